#include "topology/fabric_plan.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/limits.h"
#include "base/units.h"

namespace topoplan {
namespace {

// Counts saturate here instead of overflowing: anything this large is refused by the limits.
constexpr int64_t kHuge = int64_t{1} << 60;
int64_t mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kHuge / b ? kHuge : a * b;
}
int64_t add(int64_t a, int64_t b) { return std::min(kHuge, a + b); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

Error bad(const std::string& field, const std::string& what) { return Error{field + ": " + what}; }

// Values in range, one field at a time; the counts come after.
Result<void> spec_check(const ClusterSpec& s) {
  const FabricSpec& f = s.fabric;
  if (s.nodes <= 0) return bad("nodes", "expected a positive number of nodes");
  if (s.node.nics == 0)
    return bad("node", "node type '" + s.node.name + "' has no NICs: a cluster's fabric joins its hosts through them");
  if (s.node.hosts_per_domain > 1 && s.nodes % s.node.hosts_per_domain != 0)
    return bad("nodes", s.node.name + " is built in racks of " + std::to_string(s.node.hosts_per_domain) + " trays; " +
                            std::to_string(s.nodes) + " is not a multiple");
  if (f.nodes_per_su <= 0) return bad("fabric.nodes_per_su", "expected a positive integer");
  if (f.nodes_per_pod < kPodsWhenNeeded)
    return bad("fabric.nodes_per_pod", "expected 0 (no core tier) or a positive integer");
  if (f.nodes_per_pod > 0 && f.nodes_per_pod % f.nodes_per_su != 0)
    return bad("fabric.nodes_per_pod", "must be a multiple of nodes_per_su (" + std::to_string(f.nodes_per_su) + ")");
  for (auto [name, ratio] : {std::pair{"fabric.leaf_oversubscription", f.leaf_oversubscription},
                             std::pair{"fabric.pod_oversubscription", f.pod_oversubscription}})
    if (!(ratio >= 1 && ratio <= limits::kMaxRatio))
      return bad(name,
                 "expected a ratio from 1 to " + format_number(limits::kMaxRatio) + ", got " + format_exact(ratio));
  if (f.planes < 1 || f.planes > 8) return bad("fabric.planes", "expected 1 to 8");
  if (f.switch_radix < 4) return bad("fabric.switch_radix", "expected at least 4 ports");
  if (f.spines_per_pod < 0) return bad("fabric.spines_per_pod", "expected 0 (derived) or a positive integer");
  if (f.cores < 0) return bad("fabric.cores", "expected 0 (derived) or a positive integer");
  if (!s.sites.empty()) {
    int64_t sum = 0;
    std::set<std::string> names;
    for (size_t i = 0; i < s.sites.size(); ++i) {
      std::string field = "sites[" + std::to_string(i) + "]";
      if (s.sites[i].name.empty()) return bad(field + ".name", "expected a non-empty name");
      if (!names.insert(s.sites[i].name).second)
        return bad(field + ".name", "duplicate site '" + s.sites[i].name + "'");
      if (s.sites[i].nodes <= 0) return bad(field + ".nodes", "expected a positive number of nodes");
      if (s.node.hosts_per_domain > 1 && s.sites[i].nodes % s.node.hosts_per_domain != 0)
        return bad(field + ".nodes", "must be a multiple of " + std::to_string(s.node.hosts_per_domain) + " trays");
      sum += s.sites[i].nodes;
    }
    if (sum != s.nodes)
      return bad("sites", "site nodes add up to " + std::to_string(sum) + ", expected " + std::to_string(s.nodes));
    if (s.sites.size() > 1 && s.dci.links <= 0) return bad("dci.links", "several sites need at least one DCI link");
  }
  if (s.dci.links < 0) return bad("dci.links", "expected a non-negative integer");
  const double dci_GBps = s.dci.link_GBps;
  if (s.dci.links > 0 && !(dci_GBps >= limits::kMinLinkGBps && dci_GBps <= limits::kMaxLinkGBps))
    return bad("dci.link_rate", "expected a rate from 8 Mbps to 8 Pbps, got " + format_rate_gbit(dci_GBps));
  if (!(s.dci.length_km >= 0 && s.dci.length_km <= limits::kMaxLengthKm))
    return bad("dci.length_km", "expected a distance from 0 to " + format_number(limits::kMaxLengthKm) + " km");
  return {};
}

std::string kind_text(const FabricSpec& f) { return f.kind == FabricKind::rail ? "rail-optimized" : "top-of-rack"; }

// Per pod position of a site: how many pods of each shape.
struct SitePods {
  PodShape full, last;
  int64_t full_count = 0;
  bool has_last = false;
  int64_t pods() const { return full_count + (has_last ? 1 : 0); }
  int64_t max_spines() const { return std::max<int64_t>(full_count ? full.spines : 0, has_last ? last.spines : 0); }
};

}  // namespace

PodShape FabricPlan::pod(int64_t hosts, const FabricSpec& f) const {
  PodShape p;
  p.hosts = hosts;
  p.sus = ceil_div(hosts, f.nodes_per_su);
  p.leaves = mul(p.sus, rails);
  const bool need_spines = cores() || p.leaves > 1 || f.spines_per_pod > 0;
  if (need_spines)
    p.spines = f.spines_per_pod > 0 ? f.spines_per_pod
                                    : std::max<int64_t>(1, ceil_div(mul(p.leaves, leaf_up_ports), spine_down_ports));
  return p;
}

int64_t FabricPlan::cores_per_group(int64_t pods, int64_t positions, const FabricSpec& f) const {
  if (f.cores > 0) return ceil_div(f.cores, positions);
  const int64_t by_ports = std::max<int64_t>(1, ceil_div(mul(pods, spine_up_ports), f.switch_radix));
  // Links are whole ports and a spine has a port to each core of its group, so a group has at
  // most a spine's uplinks (more cores would add uplinks the oversubscription does not ask for).
  // With more pods than a core has ports, the cores stand for larger (chassis) switches rather
  // than multiplying, so the spine-core links grow with the pods, not with their square.
  return std::min(by_ports, spine_up_ports);
}

int64_t FabricPlan::pod_up_ports(const PodShape& pod, int64_t per_group, const FabricSpec& f) const {
  const double wanted = std::ceil(static_cast<double>(mul(pod.leaves, leaf_up_ports)) / f.pod_oversubscription);
  return std::max(mul(pod.spines, per_group), static_cast<int64_t>(wanted));
}

int64_t ports_to(int64_t first, int64_t count, int64_t index, int64_t targets) {
  const int64_t offset = ((index - first) % targets + targets) % targets;  // ports before the first on `index`
  return count / targets + (offset < count % targets ? 1 : 0);
}

Result<FabricPlan> fabric_plan(const ClusterSpec& s) {
  RETURN_IF_ERROR(spec_check(s));
  const FabricSpec& f = s.fabric;
  const NodeType& type = s.node;
  FabricPlan plan;
  plan.gpus = mul(s.nodes, type.gpus);
  if (plan.gpus > limits::kMaxGpus)
    return bad("nodes", std::to_string(s.nodes) + " nodes of " + std::to_string(type.gpus) + " GPUs are " +
                            format_count(plan.gpus) + " GPUs, more than the limit of " +
                            format_count(limits::kMaxGpus) + " GPUs in a cluster");

  std::vector<SiteSpec> sites = s.sites;
  if (sites.empty()) sites.push_back({"site0", s.nodes});
  int largest_site = 0;
  for (const SiteSpec& site : sites) largest_site = std::max(largest_site, site.nodes);

  // Ports and capacity of one leaf and one spine, as cabled in fabric.cc.
  plan.rails = f.kind == FabricKind::rail ? type.nics : 1;
  plan.port_GBps = type.nic_gbit_s / 8 / f.planes;
  plan.leaf_down_ports = f.kind == FabricKind::rail ? f.nodes_per_su : mul(f.nodes_per_su, type.nics);
  // Whole uplink ports, rounded up: oversubscription comes out at most what was asked.
  plan.leaf_up_ports =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(plan.leaf_down_ports / f.leaf_oversubscription)));
  const int64_t three_tier_spine_down =
      static_cast<int64_t>(f.switch_radix * f.pod_oversubscription / (f.pod_oversubscription + 1));

  // Two tiers connect as many leaves per plane as a spine has ports; past that, real clusters are
  // built as pods of what one spine layer with half its ports going up connects, under a core tier.
  const int64_t two_tier_sus = std::max<int64_t>(1, f.switch_radix / plan.rails);
  plan.two_tier_max_nodes = static_cast<int>(std::min<int64_t>(mul(two_tier_sus, f.nodes_per_su), INT32_MAX));
  plan.nodes_per_pod = std::max(0, f.nodes_per_pod);
  if (f.nodes_per_pod == kPodsWhenNeeded && largest_site > plan.two_tier_max_nodes) {
    const int64_t pod_sus = std::max<int64_t>(1, three_tier_spine_down / plan.rails);
    plan.nodes_per_pod = static_cast<int>(std::min<int64_t>(mul(pod_sus, f.nodes_per_su), INT32_MAX));
    plan.pods_by_default = true;
  }
  plan.spine_down_ports = plan.cores() ? std::max<int64_t>(1, three_tier_spine_down) : f.switch_radix;
  plan.spine_up_ports = std::max<int64_t>(1, f.switch_radix - plan.spine_down_ports);

  // Hosts, then each site's fabric, then the routers and links between sites.
  const HostCounts host = node_type_counts(type);
  plan.devices = mul(s.nodes, host.devices);
  plan.links = mul(s.nodes, host.links);
  if (type.hosts_per_domain > 1) plan.devices = add(plan.devices, s.nodes / type.hosts_per_domain);
  std::vector<int64_t> tops;
  int64_t leaves_total = 0, spines_total = 0, cores_total = 0;
  int64_t most_spines = 0;  // in any pod, against the uplinks a leaf has
  for (const SiteSpec& site : sites) {
    SitePods sp;
    const int size = plan.pod_size(site.nodes);
    sp.full_count = site.nodes / size;
    sp.full = plan.pod(size, f);
    if (site.nodes % size) {
      sp.has_last = true;
      sp.last = plan.pod(site.nodes % size, f);
    }
    plan.links = add(plan.links, mul(mul(site.nodes, type.nics), f.planes));
    int64_t site_tops = 0;
    for (auto [shape, count] : {std::pair{sp.full, sp.full_count}, std::pair{sp.last, int64_t{sp.has_last}}}) {
      leaves_total = add(leaves_total, mul(mul(count, shape.leaves), f.planes));
      spines_total = add(spines_total, mul(mul(count, shape.spines), f.planes));
      // A link per leaf uplink port: every leaf's ports are spread over all the pod's spines.
      if (shape.spines) plan.links = add(plan.links, mul(mul(count, f.planes), mul(shape.leaves, plan.leaf_up_ports)));
      if (!plan.cores())
        site_tops = add(site_tops, mul(mul(count, f.planes), shape.spines ? shape.spines : shape.leaves));
      if (count) most_spines = std::max(most_spines, shape.spines);
    }
    if (plan.cores()) {
      const int64_t positions = sp.max_spines();
      const int64_t per_group = plan.cores_per_group(sp.pods(), positions, f);
      cores_total = add(cores_total, mul(mul(positions, per_group), f.planes));
      site_tops = mul(mul(positions, per_group), f.planes);
      for (auto [shape, count] : {std::pair{sp.full, sp.full_count}, std::pair{sp.last, int64_t{sp.has_last}}})
        if (count) plan.links = add(plan.links, mul(mul(count, f.planes), plan.pod_up_ports(shape, per_group, f)));
    }
    tops.push_back(site_tops);
  }
  plan.switches = add(add(leaves_total, spines_total), cores_total);
  plan.devices = add(plan.devices, plan.switches);
  if (sites.size() > 1) {
    const int64_t n = static_cast<int64_t>(sites.size());
    plan.devices = add(plan.devices, mul(n, s.dci.links));
    for (int64_t t : tops) plan.links = add(plan.links, mul(t, s.dci.links));
    plan.links = add(plan.links, mul(mul(n, n - 1) / 2, s.dci.links));
  }

  // The inputs that size the fabric, for messages that have to say what to change.
  const std::string inputs = "nodes " + std::to_string(s.nodes) + ", fabric.nodes_per_su " +
                             std::to_string(f.nodes_per_su) + ", spines_per_pod " + std::to_string(f.spines_per_pod) +
                             ", cores " + std::to_string(f.cores) + ", switch_radix " + std::to_string(f.switch_radix);
  const std::string switches = format_count(plan.switches) + " switches (" + format_count(leaves_total) + " leaves, " +
                               format_count(spines_total) + " spines, " + format_count(cores_total) + " cores)";
  if (plan.devices > limits::kMaxDevices)
    return bad("fabric", "the cluster would have " + format_count(plan.devices) + " devices, " + switches +
                             " of them, more than the limit of " + format_count(limits::kMaxDevices) + " devices (" +
                             inputs + ")");
  if (plan.links > limits::kMaxLinks)
    return bad("fabric", "the cluster would have " + format_count(plan.links) + " links, more than the limit of " +
                             format_count(limits::kMaxLinks) + " (" + switches + "; " + inputs + ")");
  // Whole ports: a leaf reaches a spine only through one of its own uplinks.
  if (most_spines > plan.leaf_up_ports)
    return bad(f.spines_per_pod > 0 ? "fabric.spines_per_pod" : "fabric",
               "a pod would have " + format_count(most_spines) + " spines but a leaf has " +
                   format_count(plan.leaf_up_ports) + " uplink ports, and every leaf needs a port to every spine; " +
                   (f.spines_per_pod > 0 ? "use at most " + format_count(plan.leaf_up_ports) + " spines"
                                         : "use pods under a core tier, or smaller ones (fabric.nodes_per_pod), or "
                                           "spines with more ports (fabric.switch_radix)") +
                   " (" + inputs + ")");
  if (plan.port_GBps < limits::kMinLinkGBps)
    return bad("fabric", "switch ports would run at " + format_number(plan.port_GBps, 9) + " GB/s (nic_rate over " +
                             std::to_string(f.planes) + " planes), below the limit of " +
                             format_number(limits::kMinLinkGBps) + " GB/s");

  // What `topo show` says about the tiers.
  const int tiers = plan.cores() ? 3 : spines_total > 0 ? 2 : 1;
  plan.note = kind_text(f) + ", " + std::to_string(tiers) + (tiers == 1 ? " tier" : " tiers");
  if (plan.cores()) {
    plan.note += ": pods of " + std::to_string(plan.nodes_per_pod) + " nodes under a core tier";
    if (f.pod_oversubscription > 1) plan.note += " (" + format_number(f.pod_oversubscription, 2) + ":1 above the pods)";
    if (plan.pods_by_default) {
      plan.note += ", added because two tiers of " + std::to_string(f.switch_radix) +
                   "-port switches connect at most " + std::to_string(plan.two_tier_max_nodes) + " nodes and " +
                   (sites.size() > 1 ? "the largest site has " : "the cluster has ") + std::to_string(largest_site);
      const int64_t pods = ceil_div(largest_site, plan.nodes_per_pod);
      if (pods > f.switch_radix)
        plan.note += "; " + std::to_string(pods) + " pods are more than a " + std::to_string(f.switch_radix) +
                     "-port core connects, so each core stands for a " + std::to_string(pods) + "-port chassis switch";
    }
  } else {
    plan.note += ", scalable units of " + std::to_string(f.nodes_per_su) + " nodes";
  }
  return plan;
}

}  // namespace topoplan
