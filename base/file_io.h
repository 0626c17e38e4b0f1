// Whole files in and out, with errors that name the path; every reader of user input goes
// through here so the size limit holds everywhere.
#pragma once

#include <string>

#include "base/error.h"

namespace topoplan {

// The whole file as text, or "file: cannot read: ..."; files past limits::kMaxFileBytes are refused.
Result<std::string> text_read_file(const std::string& path);
// Writes `text` to `path` (replacing it); the error names the path and why.
Result<void> text_write_file(const std::string& path, const std::string& text);
// "dir/node.xml" -> "node": what a thing read from a file is named by default.
std::string file_stem(const std::string& path);

}  // namespace topoplan
