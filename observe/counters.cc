#include "observe/counters.h"

#include "observe/counter_parse.h"
#include "base/file_io.h"
#include "base/limits.h"
#include "base/words.h"

namespace topoplan {
namespace {

using namespace counter_parse;

// By the first line that says: perfquery's header, Prometheus' HELP/TYPE or a series, a CSV header
// with a link column. '# time:' lines and blank lines say nothing.
std::optional<CounterFormat> detect(std::string_view text, std::string_view* first) {
  Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty() || starts_with(line, "# time:") || starts_with(line, "# timestamp:")) continue;
    if (first && first->empty() && line.front() != '#') *first = line;
    if (perfquery_header(line)) return CounterFormat::perfquery;
    if (starts_with(line, "# HELP ") || starts_with(line, "# TYPE ")) return CounterFormat::prometheus;
    if (line.front() == '#') continue;
    if (prometheus_series(line)) return CounterFormat::prometheus;
    if (csv_header(line)) return CounterFormat::csv;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CounterFormat f) {
  switch (f) {
    case CounterFormat::perfquery: return "perfquery";
    case CounterFormat::prometheus: return "prometheus";
    case CounterFormat::csv: return "csv";
  }
  return "?";
}

Result<CounterSample> counters_parse(std::string_view text, const std::string& where) {
  if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes)
    return Error{where + ": " + format_bytes(static_cast<double>(text.size())) + " is more than the " +
                 format_bytes(static_cast<double>(limits::kMaxFileBytes)) + " a counter file may be"};
  std::string_view first;
  const std::optional<CounterFormat> format = detect(text, &first);
  if (!format) {
    if (first.empty()) return Error{where + ": empty: no counters, only blank lines and comments"};
    return Error{where + ": not a counter file: " + shown(first) +
                 " is neither perfquery's '# Port counters: Lid N port N' header, Prometheus text "
                 "('name{labels} value') nor a CSV header with a 'link' column"};
  }
  switch (*format) {
    case CounterFormat::perfquery: return parse_perfquery(text, where);
    case CounterFormat::prometheus: return parse_prometheus(text, where);
    case CounterFormat::csv: return parse_csv(text, where);
  }
  return Error{where + ": unknown format"};
}

Result<CounterSample> counters_load(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return counters_parse(*text, path);
}

}  // namespace topoplan
