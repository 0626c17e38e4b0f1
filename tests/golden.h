// Golden files: the expected output of a format or command, kept under tests/golden/<case>/<file>
// and compared byte for byte. They change only on purpose: run the tests with
// TOPOPLAN_UPDATE_GOLDEN=1 to rewrite the files a test compares, then review `git diff tests/golden`.
#pragma once

#include <string>

namespace topoplan::test {

// Checks `actual` against tests/golden/<case_dir>/<file>, or writes it there when
// TOPOPLAN_UPDATE_GOLDEN=1. A mismatch reports the first line that differs.
void check_golden(const std::string& case_dir, const std::string& file, const std::string& actual);

}  // namespace topoplan::test
