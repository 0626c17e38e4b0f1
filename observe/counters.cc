#include "observe/counters.h"

#include "base/file_io.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "base/words.h"
#include "observe/counter_parse.h"

namespace topoplan {
namespace {

using namespace counter_parse;

// One row per format, in the order detection tries them: a new counter format is its reader's file
// plus a row here (and its CounterFormat).
struct Reader {
  CounterFormat format;
  const char* name;
  const char* help;  // what it is, for --counters' help: "Prometheus text (node_exporter)"
  const char* sign;  // what tells it, for the error on a file that is no format's
  bool (*detect)(std::string_view line);
  Result<CounterSample> (*parse)(std::string_view text, const std::string& where);
};

constexpr Reader kReaders[] = {
    {CounterFormat::perfquery, "perfquery", "perfquery output", "perfquery's '# Port counters: Lid N port N' header",
     perfquery_detect, parse_perfquery},
    {CounterFormat::prometheus, "prometheus", "Prometheus text (node_exporter)",
     "Prometheus text ('name{labels} value')", prometheus_detect, parse_prometheus},
    {CounterFormat::csv, "csv", "CSV windows", "a CSV header with a 'link' column", csv_detect, parse_csv},
};

// By the first line that says something; '# time:' lines and blank lines say nothing, nor does a
// comment no format claims.
const Reader* detect(std::string_view text, std::string_view* first) {
  Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty() || starts_with(line, "# time:") || starts_with(line, "# timestamp:")) continue;
    if (first && first->empty() && line.front() != '#') *first = line;
    for (const Reader& r : kReaders)
      if (r.detect(line)) return &r;
    if (line.front() != '#') return nullptr;
  }
  return nullptr;
}

}  // namespace

std::string_view to_string(CounterFormat f) {
  for (const Reader& r : kReaders)
    if (r.format == f) return r.name;
  return "?";
}

std::string counter_formats_help() {
  std::vector<std::string> helps;
  for (const Reader& r : kReaders) helps.emplace_back(r.help);
  return names_list(helps, " or ");
}

Result<CounterSample> counters_parse(std::string_view text, const std::string& where) {
  if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes)
    return Error{where + ": " + format_bytes(static_cast<double>(text.size())) + " is more than the " +
                 format_bytes(static_cast<double>(limits::kMaxFileBytes)) + " a counter file may be"};
  std::string_view first;
  const Reader* reader = detect(text, &first);
  if (!reader) {
    if (first.empty()) return Error{where + ": empty: no counters, only blank lines and comments"};
    std::vector<std::string> signs;
    for (const Reader& r : kReaders) signs.emplace_back(r.sign);
    return Error{where + ": not a counter file: " + shown(first) + " is neither " + names_list(signs, " nor ")};
  }
  return reader->parse(text, where);
}

Result<CounterSample> counters_load(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return counters_parse(*text, path);
}

}  // namespace topoplan
