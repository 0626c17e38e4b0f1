#include "observe/counter_parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "base/limits.h"
#include "base/words.h"

namespace topoplan::counter_parse {
namespace {

// libibmad/fields.c: PortCounters (IB_PC_*) and PortCountersExtended (IB_PC_EXT_*) names, with the
// widths of the plain attribute; the extended attribute's are all 64 bits. The second name is the
// one older libibmad printed for the plain attribute (before the IBA names; collectd and
// tacc_stats parse both).
struct PerfqueryName {
  std::string_view name, old_name;
  CounterField field;
  int plain_bits;
  int unit;
};
constexpr PerfqueryName kPerfqueryNames[] = {
    {"PortXmitData", "XmtData", &PortCounters::tx_bytes, 32, 4},  // 4-byte words (IBA: octets / 4)
    {"PortRcvData", "RcvData", &PortCounters::rx_bytes, 32, 4},
    {"PortXmitDiscards", "XmtDiscards", &PortCounters::tx_discards, 16, 1},
    {"PortRcvErrors", "RcvErrors", &PortCounters::rx_errors, 16, 1},
    {"PortXmitWait", "XmtWait", &PortCounters::xmit_wait, 32, 1},
    {"LinkDownedCounter", "LinkDowned", &PortCounters::link_downed, 8, 1},
    {"SymbolErrorCounter", "SymbolErrors", &PortCounters::symbol_errors, 16, 1},
};

const PerfqueryName* perfquery_name(std::string_view name) {
  for (const PerfqueryName& n : kPerfqueryNames)
    if (name == n.name || name == n.old_name) return &n;
  return nullptr;
}

enum class Block { none, plain, extended, other };

// "# Port counters: Lid 12 port 1 (CapMask: 0x5A00)" and "# Port extended counters: ..."; the
// other blocks perfquery prints ("# %s counters: ..." from common_func, such as PortXmitDataSL or
// SwPortVLCongestion, and "# PortSamplesControl: ...") are skipped.
Block block_of(std::string_view line) {
  if (starts_with(line, "# Port counters:")) return Block::plain;
  if (starts_with(line, "# Port extended counters:")) return Block::extended;
  const std::string_view head = line.substr(0, line.find(':'));
  if (head.size() < line.size() && starts_with(head, "# ") &&
      (head.ends_with(" counters") || head == "# PortSamplesControl"))
    return Block::other;
  return Block::none;
}

// The port of a header: "Lid 12 port 1" -> "lid 12 port 1" (a Gid after the lid is dropped: a LID
// names a port in its subnet); a directed-route or local port keeps perfquery's words.
std::optional<std::string> perfquery_key(std::string_view header) {
  std::string_view rest = trim(header.substr(header.find(':') + 1));
  if (rest.ends_with(")")) {
    const size_t open = rest.rfind(" (");
    if (open == std::string_view::npos) return std::nullopt;
    rest = trim(rest.substr(0, open));
  }
  const size_t at = rest.rfind(" port ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::optional<uint64_t> port = whole(trim(rest.substr(at + 6)));
  std::string_view id = trim(rest.substr(0, at));
  if (!port || *port > 255 || id.empty()) return std::nullopt;  // PortSelect is 8 bits; 255 is -a's "all ports"
  if (starts_with(id, "Lid ")) {
    std::string_view lid = id.substr(4);
    lid = lid.substr(0, lid.find(' '));
    const std::optional<uint64_t> n = whole(lid);
    if (!n || *n > 0xffff) return std::nullopt;
    return "lid " + std::to_string(*n) + " port " + std::to_string(*port);
  }
  return std::string(id) + " port " + std::to_string(*port);
}

}  // namespace

bool perfquery_detect(std::string_view line) {
  const Block b = block_of(line);
  return b == Block::plain || b == Block::extended;
}

Result<CounterSample> parse_perfquery(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::perfquery, {}};
  PortIndex index;
  std::optional<double> time_s;
  Block block = Block::none;
  PortCounters current;  // the block being read
  int block_line = 0;
  std::vector<uint8_t> kinds;          // per port of the sample: the blocks read for it (1 plain, 2 extended)
  std::vector<std::string_view> seen;  // counter names in this block

  // A block is kept when it ends: it must have a data counter, and it merges with a block of the
  // other kind for the same port and time (perfquery -x for data, plain perfquery for errors).
  auto end_block = [&]() -> std::optional<Error> {
    if (block != Block::plain && block != Block::extended) return std::nullopt;
    const std::string at = where + ":" + std::to_string(block_line);
    if (!current.tx_bytes && !current.rx_bytes)
      return Error{at + ": the block for " + current.key + " has no PortXmitData or PortRcvData (no data counters)"};
    auto [port, added] = index.at(sample, current.key, time_s, block_line);
    const uint8_t kind = block == Block::plain ? 1 : 2;
    kinds.resize(sample.ports.size());
    uint8_t& had = kinds[static_cast<size_t>(port - sample.ports.data())];
    if (had & kind)
      return Error{at + ": " + current.key + " again (first at line " + std::to_string(port->line) +
                   "): a file holds each port once per '# time:'"};
    had |= kind;
    if (!added) {
      for (const FieldInfo& f : kFields) {
        auto &kept = port->*f.counter, &read = current.*f.counter;
        if (read && (!kept || read->bits > kept->bits)) kept = read;
      }
    } else {
      for (const FieldInfo& f : kFields) port->*f.counter = current.*f.counter;
    }
    return std::nullopt;
  };

  Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    if (line.front() == '#') {
      const std::optional<Result<double>> t = time_line(line, at);
      const Block next = t ? Block::none : block_of(line);
      if (t || next != Block::none) {
        if (std::optional<Error> e = end_block()) return *e;
        block = next;
      }
      if (t) {
        if (!*t) return Error{t->error()};
        time_s = **t;
      } else if (next == Block::plain || next == Block::extended) {
        std::optional<std::string> key = perfquery_key(line);
        if (!key)
          return Error{at + ": expected '# Port counters: Lid <lid> port <port> (CapMask: ...)', got " + shown(line)};
        current = PortCounters{};
        current.key = std::move(*key);
        block_line = lines.number();
        seen.clear();
      }
      continue;  // other comments, in a block or not, are the operator's
    }
    if (block == Block::other) continue;
    if (block == Block::none)
      return Error{at + ": expected a '# Port counters:' or '# Port extended counters:' header before " + shown(line)};
    // "PortXmitData:....................1234": the name, a colon, dots up to column 33, the value.
    const size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    const bool named = colon != std::string_view::npos && !name.empty() &&
                       std::all_of(name.begin(), name.end(),
                                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    std::string_view value = named ? line.substr(colon + 1) : std::string_view{};
    while (!value.empty() && value.front() == '.') value.remove_prefix(1);
    value = trim(value);
    if (!named || value.empty() || std::any_of(value.begin(), value.end(), blank))
      return Error{at + ": expected 'Name:....value' in the block for " + current.key + ", got " + shown(line)};
    const PerfqueryName* known = perfquery_name(name);
    if (!known) continue;  // PortSelect, CounterSelect (hex), packet counts ...: not used here
    if (std::find(seen.begin(), seen.end(), known->name) != seen.end())
      return Error{at + ": " + std::string(name) + " twice in the block for " + current.key};
    seen.push_back(known->name);
    const int bits = block == Block::extended ? 64 : known->plain_bits;
    const std::optional<uint64_t> n = whole(value);
    const std::string unit = known->unit == 4 ? "4-byte words" : "counts";
    if (!n)
      return Error{at + ": " + std::string(name) + ": expected a whole number of " + unit + ", got " + shown(value)};
    if (bits < 64 && *n > (uint64_t{1} << bits) - 1)
      return Error{at + ": " + std::string(name) + ": " + shown(value) + " is above 2^" + std::to_string(bits) +
                   "-1, the most a plain perfquery counter holds (was this perfquery -x output?)"};
    CounterValue c;
    c.value = *n * static_cast<uint64_t>(known->unit);  // modulo 2^64: deltas stay exact below 2^64 bytes
    c.bits = bits;
    c.unit = known->unit;
    c.saturates = bits < 64;  // IBA PortCounters stop at their maximum; the extended ones run on
    current.*known->field = c;
  }
  if (std::optional<Error> e = end_block()) return *e;
  if (sample.ports.empty()) return Error{where + ": no '# Port counters:' or '# Port extended counters:' block"};
  return sample;
}

}  // namespace topoplan::counter_parse
