#include "planner/html_report.h"

#include "base/json_fields.h"
#include "planner/score_tables.h"
#include "report_assets.h"

namespace topoplan {
namespace {

// The report lists more hot links than the text's ten: the page has room for them.
constexpr size_t kHottestLinks = 30;

std::string escaped(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early; "<\/" reads the same in JSON.
std::string script_safe(std::string json) {
  for (size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3)) json.replace(at, 2, "<\\/");
  return json;
}

}  // namespace

std::string html_report(const nlohmann::json& data) {
  const std::string title = data.value("title", "topoplan report");
  std::string page;
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escaped(title) + "</title>\n";
  page += "<style>\n" + std::string(kReportStyle) + "</style>\n</head>\n<body>\n";
  // The verdict first: PASS or FAIL and the ratio are what a reader needs before the map.
  const std::string verdict = data.value("verdict", "");
  const std::string status = verdict.starts_with("PASS ") ? " pass" : verdict.starts_with("FAIL ") ? " fail" : "";
  page += "<p class=\"verdict" + status + "\">" + escaped(verdict) + "</p>\n";
  page += "<h1>" + escaped(title) + "</h1>\n<div id=\"app\"></div>\n";
  page += "<h2>What the command printed</h2>\n<pre class=\"text\">" + escaped(data.value("text", "")) + "</pre>\n";
  page += "<script type=\"application/json\" id=\"topoplan-data\">" +
          script_safe(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "</script>\n";
  page += "<script>\n" + std::string(kReportScript) + "</script>\n</body>\n</html>\n";
  return page;
}

Result<void> html_report_write(const std::string& path, const Cluster& cluster, const std::vector<ReportPart>& parts,
                               const std::string& title, const std::string& text, const ReportFocus& focus) {
  std::vector<ReportPart> with_tables = parts;
  for (ReportPart& p : with_tables)
    if (p.job) p.tables = score_tables_json(cluster, *p.score, kHottestLinks);
  Result<nlohmann::json> data = report_data(cluster, with_tables, title, text, focus);
  RETURN_IF_ERROR(data);
  return text_write_file(path, html_report(*data));
}

}  // namespace topoplan
