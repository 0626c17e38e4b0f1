#include "observe/observed_traffic_text.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "base/hostlist.h"
#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"

namespace topoplan {
namespace {

using A = TextTable::Align;

// "h[001-002]: 8 of 16 ranks": where a communicator's members run, as far as the log shows them.
std::string members_text(const ObservedComm& c) {
  if (c.members.empty()) return "not in the log";
  std::vector<std::string> hosts;
  for (const NcclLogRank& m : c.members)
    if (std::find(hosts.begin(), hosts.end(), m.host) == hosts.end()) hosts.push_back(m.host);
  return hostlist_compress(hosts) + ": " + std::to_string(c.members.size()) + " of " + counted(c.nranks, "rank");
}

// Communicators that issue the same calls per step are one row.
std::string comms_table(const ObservedTraffic& t) {
  std::map<std::pair<int, std::string>, std::vector<const ObservedComm*>> classes;
  std::vector<std::pair<int, std::string>> order;
  for (const ObservedComm& c : t.comms) {
    auto key = std::make_pair(c.nranks, observed_calls_text(c.per_step));
    if (classes[key].empty()) order.push_back(key);
    classes[key].push_back(&c);
  }
  TextTable table({A::right, A::right, A::left, A::left, A::left});
  table.add({"ranks", "comms", "first", "members (first)", "per step, per communicator"}, "  ");
  for (const auto& key : order) {
    const std::vector<const ObservedComm*>& cs = classes[key];
    table.add({std::to_string(key.first), std::to_string(cs.size()), cs[0]->comm_id, members_text(*cs[0]), key.second},
              "  ");
  }
  return table.str();
}

// Setup calls the same way: "32 communicators of 4 ranks: Broadcast 2 MB x 1".
std::string setup_text(const ObservedTraffic& t) {
  std::ostringstream out;
  std::map<std::pair<int, std::string>, int> setups;
  std::vector<std::pair<int, std::string>> setup_order;
  for (const ObservedComm& c : t.comms)
    if (!c.setup.empty()) {
      auto key = std::make_pair(c.nranks, observed_calls_text(c.setup));
      if (setups[key]++ == 0) setup_order.push_back(key);
    }
  if (!setup_order.empty()) out << "\nbefore the first step (setup), per communicator:\n";
  for (const auto& key : setup_order)
    out << "  " << setups[key] << " of " << counted(key.first, "rank") << ": " << key.second << "\n";
  return out.str();
}

std::string beside_model_text(const TrafficBesideJob& beside) {
  std::ostringstream out;
  out << "\nbeside " << beside.job << "'s model (matched by group size and operation; per group and step):\n";
  TextTable m({A::right, A::left, A::left, A::right, A::right, A::right, A::right, A::left});
  m.add({"ranks", "op", "model kinds", "model", "calls", "observed", "calls", "verdict"}, "  ");
  std::vector<double> sizes;
  for (const TrafficRow& r : beside.rows) {
    if (r.model_groups) sizes.push_back(r.model_bytes);
    if (r.observed_comms) sizes.push_back(r.observed_bytes);
  }
  const SizeUnits units = size_units_of(sizes);
  for (const TrafficRow& r : beside.rows) {
    std::string kinds;
    for (const std::string& k : r.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    m.add({std::to_string(r.group_size), r.op, kinds.empty() ? "-" : kinds,
           r.model_groups ? format_bytes(r.model_bytes, units) : "-",
           r.model_groups ? format_number(r.model_calls, 1) : "-",
           r.observed_comms ? format_bytes(r.observed_bytes, units) : "-",
           r.observed_comms ? format_number(r.observed_calls, 1) : "-", std::string(to_string(r.verdict))},
          "  ");
  }
  out << m.str();
  return out.str();
}

}  // namespace

std::string observed_traffic_text(const ObservedTraffic& t, const std::optional<TrafficBesideJob>& beside) {
  std::ostringstream out;
  out << "NCCL " << (t.version.empty() ? "version unknown" : t.version) << ": "
      << counted(static_cast<int64_t>(t.comms.size()), "communicator") << "; " << format_number(t.steps, 2) << " step"
      << (t.steps == 1 ? "" : "s") << " (" << t.steps_from << ")\n\n";
  out << comms_table(t) << setup_text(t);
  if (beside) out << beside_model_text(*beside);
  if (!t.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const std::string& w : t.warnings) out << "  " << w << "\n";
  }
  return out.str();
}

}  // namespace topoplan
