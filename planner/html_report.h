// --html FILE: one self-contained page (style, script and data inline) that draws the fabric as a
// heat map with the job's groups on it, beside the command's own text (docs/report.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "planner/report_data.h"

namespace topoplan {

// The page for report_data's document.
std::string html_report(const nlohmann::json& data);

// --html FILE for a command: its scored layouts, title and printed text. Errors name the file.
Result<void> html_report_write(const std::string& path, const Cluster& cluster, const std::vector<ReportPart>& parts,
                               const std::string& title, const std::string& text, const ReportFocus& focus = {});

}  // namespace topoplan
