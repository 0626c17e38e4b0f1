#include "observe/counter_parse.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "base/limits.h"
#include "base/words.h"

namespace topoplan::counter_parse {
namespace {

// node_exporter's metrics for port counters. IB widths: the kernel's sysfs counters (and so
// node_exporter's) come from the PortCounters attribute, except the data counters, which are
// 64-bit when the HCA has PortCountersExtended and 32-bit (in words, times 4) when not
// (drivers/infiniband/core/sysfs.c get_counter_table). A value at such a counter's maximum is read
// as saturated; node_exporter's own fixture has port_transmit_wait at 4294967295.
struct PrometheusName {
  std::string_view name;
  CounterField field;
  int ib_bits;  // 0: not an IB PortCounters counter (netdev counters are 64-bit and wrap)
  int unit;
};
constexpr PrometheusName kPrometheusNames[] = {
    {"node_network_transmit_bytes_total", &PortCounters::tx_bytes, 0, 1},
    {"node_network_receive_bytes_total", &PortCounters::rx_bytes, 0, 1},
    {"node_network_transmit_drop_total", &PortCounters::tx_discards, 0, 1},
    {"node_network_receive_drop_total", &PortCounters::rx_discards, 0, 1},
    {"node_network_transmit_errs_total", &PortCounters::tx_errors, 0, 1},
    {"node_network_receive_errs_total", &PortCounters::rx_errors, 0, 1},
    {"node_infiniband_port_data_transmitted_bytes_total", &PortCounters::tx_bytes, 32, 4},
    {"node_infiniband_port_data_received_bytes_total", &PortCounters::rx_bytes, 32, 4},
    {"node_infiniband_port_discards_transmitted_total", &PortCounters::tx_discards, 16, 1},
    {"node_infiniband_port_discards_received_total", &PortCounters::rx_discards, 0, 1},
    {"node_infiniband_port_errors_received_total", &PortCounters::rx_errors, 16, 1},
    {"node_infiniband_port_transmit_wait_total", &PortCounters::xmit_wait, 32, 1},
    {"node_infiniband_link_downed_total", &PortCounters::link_downed, 8, 1},
    {"node_infiniband_symbol_error_total", &PortCounters::symbol_errors, 16, 1},
    {"node_infiniband_np_ecn_marked_roce_packets_received_total", &PortCounters::ecn_marked, 0, 1},
};

bool metric_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}
bool label_char(char c, bool first) { return c != ':' && metric_char(c, first); }

struct Series {
  std::string_view name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;
};

// Series carry a handful of labels (node_exporter's: device, port; /federate adds instance and
// job); the bound keeps the duplicate check and the memory of one line small.
constexpr size_t kMaxLabels = 64;

// name [{label="value",...}] value [timestamp]: the text format's line, label values unescaped.
Result<Series> parse_series(std::string_view line, const std::string& at) {
  Series s;
  size_t i = 0;
  while (i < line.size() && metric_char(line[i], i == 0)) ++i;
  if (i == 0) return Error{at + ": expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) at the start of " + shown(line)};
  s.name = line.substr(0, i);
  auto skip = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skip();
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      skip();
      if (i < line.size() && line[i] == '}') break;
      const size_t begin = i;
      while (i < line.size() && label_char(line[i], i == begin)) ++i;
      if (i == begin) return Error{at + ": expected a label name or '}' in " + shown(line)};
      std::string label(line.substr(begin, i - begin));
      skip();
      if (i >= line.size() || line[i] != '=')
        return Error{at + ": expected '=' after label " + label + " in " + shown(line)};
      ++i;
      skip();
      if (i >= line.size() || line[i] != '"')
        return Error{at + ": expected '\"' to open label " + label + "'s value in " + shown(line)};
      ++i;
      std::string value;
      for (;; ++i) {
        if (i >= line.size())
          return Error{at + ": label " + label + "'s value is not closed with '\"' in " + shown(line)};
        if (line[i] == '"') break;
        if (line[i] != '\\') {
          value += line[i];
          continue;
        }
        // The format escapes exactly three characters; anything else after '\' is an error there too.
        const char e = ++i < line.size() ? line[i] : '\0';
        if (e != '\\' && e != '"' && e != 'n')
          return Error{at + ": label " + label + ": '\\" + std::string(1, blank(e) ? '?' : e) +
                       "' is not an escape (\\\\, \\\", \\n) in " + shown(line)};
        value += e == 'n' ? '\n' : e;
      }
      ++i;
      if (std::any_of(s.labels.begin(), s.labels.end(), [&](const auto& l) { return l.first == label; }))
        return Error{at + ": label " + label + " twice in " + shown(line)};
      if (s.labels.size() == kMaxLabels)
        return Error{at + ": more than " + std::to_string(kMaxLabels) + " labels in " + shown(line)};
      s.labels.emplace_back(std::move(label), std::move(value));
      skip();
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      if (i < line.size() && line[i] == '}') break;
      return Error{at + ": expected ',' or '}' after label " + s.labels.back().first + " in " + shown(line)};
    }
    ++i;
  }
  std::vector<std::string_view> rest;
  for (size_t j = i; j < line.size() && rest.size() <= 2;) {  // a third word is already an error
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    const size_t begin = j;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > begin) rest.push_back(line.substr(begin, j - begin));
  }
  if (rest.empty() || rest.size() > 2)
    return Error{at + ": expected 'name{labels} value [timestamp]', got " + shown(line)};
  const std::optional<double> v = number(rest[0]);
  if (!v) return Error{at + ": expected a number (or NaN, +Inf, -Inf) as the value, got " + shown(rest[0])};
  s.value = *v;
  if (rest.size() == 2) {
    int64_t ms = 0;
    const auto [end, ec] = std::from_chars(rest[1].data(), rest[1].data() + rest[1].size(), ms);
    if (ec != std::errc() || end != rest[1].data() + rest[1].size())
      return Error{at + ": expected a timestamp in whole milliseconds after the value, got " + shown(rest[1])};
    s.timestamp_ms = ms;
  }
  return s;
}

// name{label="value",...} as an error shows it.
std::string series_text(const Series& s) {
  std::string out(s.name);
  for (size_t i = 0; i < s.labels.size(); ++i)
    out += (i ? "," : "{") + s.labels[i].first + "=\"" + s.labels[i].second + "\"";
  return s.labels.empty() ? out : out + "}";
}

const std::string* label_of(const Series& s, std::string_view name) {
  for (const auto& [l, v] : s.labels)
    if (l == name) return &v;
  return nullptr;
}

// "h001:9100" -> "h001", "[fe80::1]:9100" -> "[fe80::1]"; a bare IPv6 address stays whole.
std::string_view instance_host(std::string_view instance) {
  const size_t colon = instance.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == instance.size()) return instance;
  const std::string_view port = instance.substr(colon + 1);
  if (!std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return instance;
  const std::string_view host = instance.substr(0, colon);
  if (host.find(':') != std::string_view::npos && !(host.starts_with("[") && host.ends_with("]"))) return instance;
  return host;
}

}  // namespace

bool prometheus_detect(std::string_view line) {
  if (starts_with(line, "# HELP ") || starts_with(line, "# TYPE ")) return true;
  size_t i = 0;
  while (i < line.size() && metric_char(line[i], i == 0)) ++i;
  return i > 0 && i < line.size() && (line[i] == '{' || line[i] == ' ' || line[i] == '\t');
}

Result<CounterSample> parse_prometheus(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::prometheus, {}};
  PortIndex index;
  std::optional<double> time_s;  // a '# time:' line, for series without their own timestamp
  Lines lines(text);
  std::string_view raw;
  // Per port of the sample, the line each field was read on, to name it when a series repeats.
  std::vector<std::array<int, std::size(kFields)>> field_lines;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    if (line.front() == '#') {
      if (std::optional<Result<double>> t = time_line(line, at)) {
        if (!*t) return Error{t->error()};
        time_s = **t;
      }
      continue;  // # HELP, # TYPE, # EOF (OpenMetrics) and comments
    }
    Result<Series> s = parse_series(line, at);
    RETURN_IF_ERROR(s);
    const PrometheusName* known = nullptr;
    for (const PrometheusName& n : kPrometheusNames)
      if (s->name == n.name) known = &n;
    if (!known) continue;  // the exporter's other metrics
    const std::string series = series_text(*s);
    const std::optional<uint64_t> value = count_of(s->value);
    if (!value) return Error{at + ": " + shown(series) + ": " + why_not_count(s->value)};
    const std::string* device = label_of(*s, "device");
    if (!device || device->empty()) return Error{at + ": " + shown(series) + ": expected a non-empty device label"};
    const std::string* port = label_of(*s, "port");
    const std::string* instance = label_of(*s, "instance");
    std::string key;
    if (instance && !instance->empty()) key = std::string(instance_host(*instance)) + " ";
    key += *device;
    if (port && !port->empty()) key += " " + *port;
    std::optional<double> t = time_s;
    if (s->timestamp_ms) {
      const double seconds = static_cast<double>(*s->timestamp_ms) / 1000;
      if (seconds < 0 || seconds > limits::kMaxSeconds)
        return Error{at + ": " + shown(series) + ": timestamp " + std::to_string(*s->timestamp_ms) +
                     " ms is not a time from 1970 on (Prometheus timestamps are unix milliseconds)"};
      t = seconds;
    }
    PortCounters* p = index.at(sample, key, t, lines.number()).first;
    const size_t slot = static_cast<size_t>(p - sample.ports.data());
    field_lines.resize(sample.ports.size());
    const size_t field =
        static_cast<size_t>(std::find_if(std::begin(kFields), std::end(kFields),
                                         [&](const FieldInfo& f) { return f.counter == known->field; }) -
                            std::begin(kFields));
    int& first = field_lines[slot][field];
    if (first)
      return Error{at + ": " + shown(series) + ": " + key + "'s " + std::string(kFields[field].name) +
                   " again (first at line " + std::to_string(first) + "): a file holds each series once per time"};
    first = lines.number();
    CounterValue c;
    c.value = *value;
    const uint64_t max = known->ib_bits ? ((uint64_t{1} << known->ib_bits) - 1) * known->unit : 0;
    if (known->ib_bits && *value == max) {
      c.bits = known->ib_bits;
      c.unit = known->unit;
      c.saturates = true;
    }
    p->*known->field = c;
  }
  if (sample.ports.empty())
    return Error{where +
                 ": no port counters: none of node_exporter's node_network_*_bytes_total or "
                 "node_infiniband_port_data_*_bytes_total series"};
  for (const PortCounters& p : sample.ports)
    if (!p.tx_bytes && !p.rx_bytes)
      return Error{where + ":" + std::to_string(p.line) + ": " + p.key +
                   " has counters but no transmit or receive bytes"};
  return sample;
}

}  // namespace topoplan::counter_parse
