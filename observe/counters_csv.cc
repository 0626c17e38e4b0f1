#include "observe/counter_parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "base/limits.h"
#include "base/suggest.h"
#include "base/words.h"

namespace topoplan::counter_parse {
namespace {

// Fields split at commas; a field in double quotes may hold commas and "" for a quote (RFC 4180).
// At most `max` + 1 fields: a row with more is wrong already, and a line of commas stays cheap.
std::optional<std::vector<std::string>> csv_fields(std::string_view line, size_t max) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    if (out.size() > max) return out;
    std::string field;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        field += line[i];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',') return std::nullopt;
    } else {
      const size_t end = std::min(line.find(',', i), line.size());
      field = std::string(trim(line.substr(i, end - i)));
      i = end;
    }
    out.push_back(std::string(trim(field)));
    if (i >= line.size()) return out;
    ++i;  // the comma
  }
}

// The CSV's columns: link and window_s, then counters by their field name; "discards" is a
// switch's egress drop count (tx_discards).
std::optional<CounterField> csv_counter(std::string_view column) {
  if (column == "discards") return &PortCounters::tx_discards;
  for (const FieldInfo& f : kFields)
    if (column == f.name) return f.counter;
  return std::nullopt;
}

constexpr size_t kMaxColumns = std::size(kFields) + 3;  // link, window_s, discards

std::vector<std::string> csv_columns() {
  std::vector<std::string> names = {"link", "window_s", "discards"};
  for (const FieldInfo& f : kFields) names.emplace_back(f.name);
  return names;
}

}  // namespace

bool csv_detect(std::string_view line) {
  if (line.starts_with('#')) return false;  // a comment, however many commas and links it has
  if (std::optional<std::vector<std::string>> fields = csv_fields(line, kMaxColumns))
    for (const std::string& f : *fields)
      if (lower(f) == "link") return true;
  return false;
}

Result<CounterSample> parse_csv(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::csv, {}};
  Lines lines(text);
  std::string_view raw;
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<std::optional<CounterField>> counters;
  size_t link = 0, window = 0;
  std::unordered_map<std::string, int> rows;  // link -> line
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    // The header has at most one column per name it may hold.
    std::optional<std::vector<std::string>> fields = csv_fields(line, header.empty() ? kMaxColumns : header.size());
    if (!fields) return Error{at + ": a quoted field is not closed, or text follows its closing quote: " + shown(line)};
    if (header.empty()) {
      header = std::move(*fields);
      header_line = lines.number();
      for (std::string& name : header) name = lower(name);
      bool has_link = false, has_window = false, has_bytes = false;
      for (size_t c = 0; c < header.size(); ++c) {
        const std::string& name = header[c];
        const auto before = header.begin() + static_cast<ptrdiff_t>(c);
        if (std::find(header.begin(), before, name) != before) return Error{at + ": column " + shown(name) + " twice"};
        if (name == "tx_discards" && std::find(header.begin(), header.end(), "discards") != header.end())
          return Error{at + ": columns 'discards' and 'tx_discards' both: discards is tx_discards"};
        const std::optional<CounterField> counter = csv_counter(name);
        if (name == "link")
          link = c, has_link = true;
        else if (name == "window_s")
          window = c, has_window = true;
        else if (!counter)
          return Error{at + ": unknown column " + shown(name) + did_you_mean(name, csv_columns())};
        has_bytes = has_bytes || name == "tx_bytes" || name == "rx_bytes";
        counters.push_back(counter);
      }
      if (!has_link) return Error{at + ": the header has no 'link' column (link,window_s,tx_bytes,rx_bytes,...)"};
      if (!has_window) return Error{at + ": the header has no 'window_s' column: the seconds each row's deltas cover"};
      if (!has_bytes) return Error{at + ": the header has neither a 'tx_bytes' nor an 'rx_bytes' column"};
      continue;
    }
    // The header again: CSV files concatenated with cat.
    if (std::equal(fields->begin(), fields->end(), header.begin(), header.end(),
                   [](const std::string& a, const std::string& b) { return lower(a) == b; }))
      continue;
    if (fields->size() != header.size())
      return Error{at + ": " +
                   (fields->size() > header.size() ? "more than " + std::to_string(header.size())
                                                   : std::to_string(fields->size())) +
                   " fields, but the header (line " + std::to_string(header_line) + ") has " +
                   std::to_string(header.size()) + " columns"};
    PortCounters p;
    p.line = lines.number();
    p.key = (*fields)[link];
    if (p.key.empty()) return Error{at + ": link: empty; each row names the link its counters are for"};
    const std::optional<double> w = number((*fields)[window]);
    if (!w || !std::isfinite(*w) || *w <= 0 || *w > limits::kMaxSeconds)
      return Error{at + ": window_s: expected the seconds the row covers, a number > 0, got " +
                   shown((*fields)[window])};
    p.window_s = *w;
    for (size_t c = 0; c < header.size(); ++c) {
      if (!counters[c] || (*fields)[c].empty()) continue;  // an empty field: the source lacks it
      const std::optional<double> v = number((*fields)[c]);
      const std::optional<uint64_t> n = v ? count_of(*v) : std::nullopt;
      if (!n)
        return Error{at + ": " + header[c] + ": expected a count >= 0, got " + shown((*fields)[c]) +
                     (v ? " (" + why_not_count(*v) + ")" : "")};
      p.*(*counters[c]) = CounterValue{*n, 64, 1, false};
    }
    if (!p.tx_bytes && !p.rx_bytes) return Error{at + ": " + shown(p.key) + " has neither tx_bytes nor rx_bytes"};
    const auto [first, added] = rows.try_emplace(p.key, p.line);
    if (!added)
      return Error{at + ": link " + shown(p.key) + " again (first at line " + std::to_string(first->second) + ")"};
    sample.ports.push_back(std::move(p));
  }
  if (header.empty()) return Error{where + ": empty: no CSV header"};
  if (sample.ports.empty()) return Error{where + ":" + std::to_string(header_line) + ": a header and no rows"};
  return sample;
}

}  // namespace topoplan::counter_parse
