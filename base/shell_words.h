// Command lines as a POSIX shell reads them back: a word with anything beyond letters, digits and
// -_./:=,@+% single-quoted, a quote inside written '\''. For the lines topoplan prints for people to
// paste (an srun line, a bug report's command line).
#pragma once

#include <string>
#include <vector>

namespace topoplan {

std::string shell_word(const std::string& word);
std::string shell_line(const std::vector<std::string>& words);

}  // namespace topoplan
