#include <algorithm>
#include <cmath>
#include <map>

#include "base/limits.h"
#include "observe/counter_parse.h"
#include "observe/counters.h"

namespace topoplan {

using namespace counter_parse;

namespace {

struct Reading {
  const CounterSample* sample;
  const PortCounters* port;
  std::string place() const { return sample->source + ":" + std::to_string(port->line); }
};

constexpr double kMaxBytesPerSecond = limits::kMaxRateGBps * 1e9;

std::string max_text(const CounterValue& c) { return "2^" + std::to_string(c.bits) + "-1"; }

// One field over a port's readings in time order: the sum of consecutive deltas, or nullopt with
// the flags that say why.
std::optional<double> field_delta(const std::vector<Reading>& readings, const FieldInfo& f, double window_s,
                                  std::vector<std::string>& flags) {
  const std::string name(f.name);
  const auto& first = readings.front().port->*f.counter;
  const auto& last = readings.back().port->*f.counter;
  if (!first && !last) return std::nullopt;  // the source does not have it
  if (!first || !last) {
    flags.push_back(name + " missing from a sample");
    return std::nullopt;
  }
  double total = 0;
  const CounterValue* before = nullptr;
  bool wrapped = false;
  for (const Reading& r : readings) {
    const auto& now = r.port->*f.counter;
    if (!now) continue;
    if (now->saturated()) {
      flags.push_back(name + " saturated at " + max_text(*now) + " (" + r.place() + "): IBA counters stop there");
      return std::nullopt;
    }
    if (before) {
      uint64_t delta = now->value - before->value;  // modulo 2^64
      if (now->value < before->value) {
        // A 64-bit counter wraps; a plausible wrap leaves a small modular delta, and nothing a port
        // counts (bytes, packets, ticks) comes faster than the fastest link moves bytes. Anything
        // else, and any narrower counter (those saturate), was reset.
        const bool wraps = !before->saturates && !now->saturates && before->bits == 64 && now->bits == 64;
        const bool plausible =
            delta <= uint64_t{1} << 62 && static_cast<double>(delta) / window_s <= kMaxBytesPerSecond;
        if (!wraps || !plausible) {
          flags.push_back(name + " went backwards (counter reset?) at " + r.place());
          return std::nullopt;
        }
        wrapped = true;
      }
      total += static_cast<double>(delta);
    }
    before = &*now;
  }
  if (wrapped) flags.push_back(name + " wrapped at 2^64");
  return total;
}

PortRate rate_of(const std::string& key, const std::vector<Reading>& readings, double window_s) {
  PortRate r;
  r.key = key;
  r.window_s = window_s;
  r.where = readings.front().place() + " -> " + readings.back().place();
  for (const FieldInfo& f : kFields) {
    std::optional<double> delta = field_delta(readings, f, window_s, r.flags);
    if (!delta) continue;
    if (f.bytes) {
      const double Bps = *delta / window_s;
      if (Bps > kMaxBytesPerSecond) {
        r.flags.push_back(std::string(f.name) + " at " + format_rate_gbit(Bps / 1e9) +
                          ", beyond any link: are both readings of one port?");
        continue;
      }
      r.*f.rate = Bps;
    } else {
      r.*f.rate = *delta;
    }
  }
  return r;
}

Result<std::vector<PortRate>> csv_rates(const std::vector<CounterSample>& samples) {
  std::vector<PortRate> out;
  std::unordered_map<std::string, std::string> seen;  // link -> where
  for (const CounterSample& s : samples)
    for (const PortCounters& p : s.ports) {
      const Reading reading{&s, &p};
      const auto [first, added] = seen.try_emplace(p.key, reading.place());
      if (!added)
        return Error{reading.place() + ": link " + shown(p.key) + " again (first at " + first->second +
                     "): each CSV row is a window of its own, so a link is given once"};
      PortRate r;
      r.key = p.key;
      r.window_s = p.window_s.value_or(0);
      r.where = reading.place();
      if (!(r.window_s > 0)) return Error{reading.place() + ": window_s: expected seconds > 0"};
      for (const FieldInfo& f : kFields) {
        const auto& c = p.*f.counter;
        if (!c) continue;
        const double v = static_cast<double>(c->value);
        if (f.bytes && v / r.window_s > kMaxBytesPerSecond) {
          r.flags.push_back(std::string(f.name) + " at " + format_rate_gbit(v / r.window_s / 1e9) +
                            ", beyond any link");
          continue;
        }
        r.*f.rate = f.bytes ? v / r.window_s : v;
      }
      out.push_back(std::move(r));
    }
  return out;
}

}  // namespace

Result<std::vector<PortRate>> counter_rates(const std::vector<CounterSample>& samples,
                                            std::optional<double> interval_s) {
  if (samples.empty()) return Error{"no counter samples: rates need at least one CSV file or two samples"};
  for (const CounterSample& s : samples)
    if (s.format != samples.front().format)
      return Error{s.source + " is " + std::string(to_string(s.format)) + " but " + samples.front().source + " is " +
                   std::string(to_string(samples.front().format)) + ": rates come from samples of one format"};
  if (interval_s && (!std::isfinite(*interval_s) || *interval_s <= 0 || *interval_s > limits::kMaxSeconds))
    return Error{"interval: expected the seconds between samples, > 0, got " + format_exact(*interval_s)};
  if (samples.front().format == CounterFormat::csv) return csv_rates(samples);

  // Every reading has a time or none has: rates over a mix would pair a time with a guess.
  const Reading* timed = nullptr;
  const Reading* untimed = nullptr;
  std::vector<Reading> all;
  for (const CounterSample& s : samples)
    for (const PortCounters& p : s.ports) all.push_back({&s, &p});
  for (const Reading& r : all) (r.port->time_s ? timed : untimed) = &r;
  if (timed && untimed)
    return Error{
        timed->place() + " has a time and " + untimed->place() +
        " has none: give every sample a time ('# time:' lines, Prometheus timestamps) or none and an interval"};

  std::vector<std::string> order;  // keys by first appearance
  std::unordered_map<std::string, std::vector<Reading>> by_key;
  for (const Reading& r : all) {
    auto [it, added] = by_key.try_emplace(r.port->key);
    if (added) order.push_back(r.port->key);
    it->second.push_back(r);
  }

  std::vector<PortRate> out;
  if (timed) {
    for (const std::string& key : order) {
      std::vector<Reading>& readings = by_key[key];
      std::stable_sort(readings.begin(), readings.end(),
                       [](const Reading& a, const Reading& b) { return *a.port->time_s < *b.port->time_s; });
      for (size_t i = 1; i < readings.size(); ++i)
        if (*readings[i].port->time_s == *readings[i - 1].port->time_s)
          return Error{readings[i].place() + ": " + key + " at time " + format_exact(*readings[i].port->time_s) +
                       " as at " + readings[i - 1].place() + ": a window of zero seconds"};
    }
  } else {
    if (!interval_s)
      return Error{samples.front().source +
                   ": the samples have no times ('# time:' lines or Prometheus timestamps): "
                   "give the interval between them"};
    if (samples.size() == 1)
      return Error{samples.front().source + ": one sample without times: rates need a second one, taken later"};
    if (samples.size() % 2)
      return Error{std::to_string(samples.size()) +
                   " samples without times: the first half is read as one moment and "
                   "the second half as the next, so give as many files after as before (or '# time:' lines)"};
    const size_t half = samples.size() / 2;
    for (const std::string& key : order) {
      const std::vector<Reading>& readings = by_key[key];
      for (size_t i = 1; i < readings.size(); ++i) {
        const bool same_half = (readings[i].sample - samples.data() < static_cast<ptrdiff_t>(half)) ==
                               (readings[i - 1].sample - samples.data() < static_cast<ptrdiff_t>(half));
        if (same_half)
          return Error{readings[i].place() + ": " + key + " again in the same half as " + readings[i - 1].place() +
                       ": without times, the first half of the files is one moment and the second half the next; "
                       "add '# time:' lines (date +%s) for more moments"};
      }
    }
  }
  bool any_pair = false;
  for (const std::string& key : order) {
    const std::vector<Reading>& readings = by_key[key];
    if (readings.size() < 2) {
      PortRate r;
      r.key = key;
      r.where = readings.front().place();
      r.flags.push_back("only in one sample");
      out.push_back(std::move(r));
      continue;
    }
    any_pair = true;
    const double window_s = timed ? *readings.back().port->time_s - *readings.front().port->time_s : *interval_s;
    if (!(window_s > 0))
      return Error{readings.back().place() + ": " + key + ": a window of " + format_exact(window_s) + " seconds"};
    out.push_back(rate_of(key, readings, window_s));
  }
  if (!any_pair)
    return Error{samples.front().source + (samples.size() > 1 ? " and the others" : "") +
                 ": no port was read twice: rates need counters from two moments (a second sample taken later)"};
  return out;
}

}  // namespace topoplan
