#include "planner/score_tables.h"

#include <algorithm>

#include "base/units.h"
#include "base/words.h"
#include "topology/locality.h"

namespace topoplan {

Rows kind_rows(const JobScore& s) {
  Rows rows{{"kind", "alone", "contended", "exposed"}};
  for (int k = 0; k < kTrafficKinds; ++k) {
    const KindScore& ks = s.by_kind[static_cast<size_t>(k)];
    rows.push_back({std::string(to_string(static_cast<TrafficKind>(k))), format_duration(ks.alone_s),
                    format_duration(ks.time_s), format_duration(ks.exposed_s)});
  }
  return rows;
}

Rows item_rows(const JobScore& s) {
  Rows rows;
  std::vector<double> sizes;
  for (const ItemScore& i : s.items) sizes.push_back(i.item.bytes);
  const SizeUnits units = size_units_of(sizes);
  for (const ItemScore& i : s.items) {
    const TrafficItem& t = i.item;
    rows.push_back({std::string(to_string(t.kind)), std::string(to_string(t.phase)), std::string(to_string(t.op)),
                    format_bytes(t.bytes, units), "x " + format_number(t.calls, 0),
                    i.algorithm + "/" + std::string(to_string(i.proto)), format_duration(i.alone_us / 1e6) + " alone,",
                    format_duration(i.contended_us / 1e6) + " with " + counted(i.groups_running, "group") + ";",
                    "exposed " + format_duration(i.exposed_us / 1e6) + "  (" + t.what + ")"});
  }
  return rows;
}

size_t bundle_ports(const Cluster& c, EdgeId e) {
  const std::span<const EdgeId> out = c.out_edges(c.source(e));
  return static_cast<size_t>(
      std::count_if(out.begin(), out.end(), [&](EdgeId x) { return c.target(x) == c.target(e); }));
}

Rows link_rows(const Cluster& c, const JobScore& s, size_t n) {
  // A bundle's ports share its flows (ECMP per port): one row per bundle at its hottest port's
  // utilization, with the bytes of all its ports.
  struct Bundle {
    const LinkUse* hottest;
    double bytes;
  };
  // The first n bundles in the links' order, then their bytes from every port: a large job loads a
  // million links, and only n rows are shown.
  std::vector<Bundle> bundles;
  std::vector<std::pair<VertexId, VertexId>> ends;  // of each bundle
  auto ends_of = [&](const LinkUse& u) { return std::make_pair(c.source(u.edge), c.target(u.edge)); };
  for (size_t i = 0; i < s.links.size() && bundles.size() < n; ++i)
    if (std::find(ends.begin(), ends.end(), ends_of(s.links[i])) == ends.end()) {
      ends.push_back(ends_of(s.links[i]));
      bundles.push_back({&s.links[i], 0});
    }
  for (const LinkUse& u : s.links) {
    const auto at = std::find(ends.begin(), ends.end(), ends_of(u));
    if (at != ends.end()) bundles[static_cast<size_t>(at - ends.begin())].bytes += u.bytes;
  }
  Rows rows{{"link", "class", "tier", "bytes/step", "peak", "in", "step avg"}};
  std::vector<double> sizes;
  for (const Bundle& b : bundles) sizes.push_back(b.bytes);
  const SizeUnits units = size_units_of(sizes);
  for (size_t i = 0; i < bundles.size(); ++i) {
    const LinkUse& u = *bundles[i].hottest;
    const size_t ports = bundle_ports(c, u.edge);
    rows.push_back({c.edge_name(u.edge) + (ports > 1 ? " (" + std::to_string(ports) + " ports)" : ""),
                    std::string(to_string(c.link(u.edge).kind)), link_tier(c, u.edge),
                    format_bytes(bundles[i].bytes, units), format_number(100 * u.peak, 1) + "%",
                    std::string(phase_window_name(u.peak_phase)), format_number(100 * u.utilization, 1) + "%"});
  }
  return rows;
}

Rows memory_rows(const JobScore& s) {
  const MemoryEstimate& m = s.memory;
  if (m.stages.empty()) return {};
  Rows rows{{"stage", "weights", "gradients", "optimizer", "activations", "in flight", "total", "of the GPU"}};
  auto gib = [](double bytes) { return format_bytes(bytes, SizeUnits::binary); };
  int first = 0;  // the first stage of the row being built
  for (size_t i = 0; i < m.stages.size(); ++i) {
    const StageMemory& st = m.stages[i];
    std::vector<std::string> row{"",
                                 gib(st.weights_bytes),
                                 gib(st.gradients_bytes),
                                 gib(st.optimizer_bytes),
                                 gib(st.activations_bytes),
                                 format_number(st.in_flight, 2),
                                 gib(st.total_bytes()),
                                 format_number(100 * st.total_bytes() / m.capacity_bytes, 1) + "%"};
    if (rows.size() > 1 && std::equal(row.begin() + 1, row.end(), rows.back().begin() + 1)) {
      rows.back()[0] = std::to_string(first) + "-" + std::to_string(i);
      continue;
    }
    first = static_cast<int>(i);
    row[0] = std::to_string(i);
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json score_tables_json(const Cluster& c, const JobScore& s, size_t hottest) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : s.findings) findings.push_back({f.severity, f.message, finding_cost_text(f), f.fix});
  return {
      {"kinds", kind_rows(s)}, {"items", item_rows(s)}, {"links", link_rows(c, s, hottest)},
          {"memory", memory_rows(s)}, {"findings", findings}};
}

}  // namespace topoplan
