#include <iostream>

#include "cli/guard.h"
#include "cli/tool.h"

int main(int argc, char** argv) {
  topoplan::cli::guard_terminate(argc, argv);
  return topoplan::cli::cli_main(argc, argv, std::cout, std::cerr);
}
