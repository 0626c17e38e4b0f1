#include "base/shell_words.h"

#include <doctest/doctest.h>

namespace topoplan {

TEST_CASE("shell words: quoted only where a shell would split or expand them") {
  CHECK(shell_word("srun") == "srun");
  CHECK(shell_word("--ntasks=16") == "--ntasks=16");
  CHECK(shell_word("/a/b_c.d:e,f@g+h%") == "/a/b_c.d:e,f@g+h%");
  CHECK(shell_word("") == "''");
  CHECK(shell_word("a b") == "'a b'");
  CHECK(shell_word("$HOME") == "'$HOME'");
  CHECK(shell_word("it's") == "'it'\\''s'");
  CHECK(shell_line({"python", "train.py", "--name", "a b"}) == "python train.py --name 'a b'");
  CHECK(shell_line({}) == "");
}

}  // namespace topoplan
