// --html FILE: one self-contained page (style, script and data inline) that draws the fabric as a
// heat map with the job's groups on it, beside the command's own text (docs/report.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "topology/error.h"

namespace topoplan::cli {

// The page for report_data's document. Errors name the file.
std::string html_report(const nlohmann::json& data);
Result<bool> html_report_write(const std::string& path, const nlohmann::json& data);

}  // namespace topoplan::cli
