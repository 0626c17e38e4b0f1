#include <iostream>

#include "cli/tool.h"

int main(int argc, char** argv) { return topoplan::cli::cli_main(argc, argv, std::cout, std::cerr); }
