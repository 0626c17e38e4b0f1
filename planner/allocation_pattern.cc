#include "planner/allocation_pattern.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace topoplan {
namespace {

// What a device's links look like from it: kind, rate, latency and the far end's kind and tier,
// sorted. Alike devices have alike signatures.
using LinkSig = std::tuple<int, double, double, int, int>;
std::vector<LinkSig> signature(const Cluster& c, VertexId v) {
  std::vector<LinkSig> sig;
  for (EdgeId e : c.out_edges(v)) {
    const Link& l = c.link(e);
    const Device& far = c.device(c.target(e));
    sig.emplace_back(static_cast<int>(l.kind), l.bw_GBps, l.latency_us, static_cast<int>(far.kind), far.tier);
  }
  std::sort(sig.begin(), sig.end());
  return sig;
}

std::vector<LinkSig> host_signature(const Cluster& c, const Host& h) {
  std::vector<LinkSig> sig;
  for (const std::vector<VertexId>* devices : {&h.gpus, &h.nics, &h.cpus})
    for (VertexId v : *devices) {
      sig.push_back({-1, 0, 0, static_cast<int>(c.device(v).kind), 0});  // where a device starts
      std::vector<LinkSig> one = signature(c, v);
      sig.insert(sig.end(), one.begin(), one.end());
    }
  return sig;
}

// The fabric switches a host's NICs reach, NIC by NIC.
std::vector<VertexId> leaves_of(const Cluster& c, const Host& h) {
  std::vector<VertexId> out;
  for (VertexId nic : h.nics)
    for (EdgeId e : c.out_edges(nic))
      if (c.device(c.target(e)).kind == DeviceKind::switch_) out.push_back(c.target(e));
  return out;
}

// A leaf group's links above its leaves, leaf by leaf in NIC order: to which switch, at what rate.
using UpLink = std::tuple<VertexId, double, double>;
std::vector<UpLink> uplinks(const Cluster& c, const std::vector<VertexId>& leaves) {
  std::vector<UpLink> out;
  for (VertexId leaf : leaves) {
    std::vector<UpLink> one;
    for (EdgeId e : c.out_edges(leaf)) {
      const VertexId far = c.target(e);
      if (c.device(far).host < 0 && c.device(far).tier > c.device(leaf).tier)
        one.emplace_back(far, c.link(e).bw_GBps, c.link(e).latency_us);
    }
    std::sort(one.begin(), one.end());
    out.emplace_back(kNoVertex, 0, 0);  // where a leaf starts
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

// Why hosts of a leaf group may not stand for each other (empty: they may); into *groups, why
// the leaf groups of a pod may not.
std::string symmetric(const Cluster& c, const Locality& loc, const DownSet& down, const ScoreOptions& opt,
                      std::string* groups) {
  if (c.routing.mode != Routing::adaptive)
    return "the fabric routes by " + std::string(to_string(c.routing.mode)) + ": paths depend on the hosts";
  if (down.any()) return "some devices or links are down";
  if (opt.background) return "a background load names links";
  if (c.hosts().empty()) return "the cluster has no hosts";
  const Host& first = c.hosts().front();
  const std::vector<LinkSig> alike = host_signature(c, first);
  std::map<int, std::vector<VertexId>> group_leaves;          // leaf group -> its first host's leaves
  std::map<int, std::vector<UpLink>> pod_up;                  // pod -> its first leaf group's uplinks
  for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h) {
    const Host& host = c.hosts()[static_cast<size_t>(h)];
    if (host_signature(c, host) != alike) return "hosts differ (" + host.name + " from " + first.name + ")";
    const std::vector<VertexId> leaves = leaves_of(c, host);
    auto [g, added] = group_leaves.try_emplace(loc.leaf_group[static_cast<size_t>(h)], leaves);
    if (!added && g->second != leaves) return "the hosts of " + host.name + "'s leaf group reach different leaves";
    if (!added || !groups->empty()) continue;
    std::vector<UpLink> up = uplinks(c, leaves);
    auto [p, first_group] = pod_up.try_emplace(loc.pod[static_cast<size_t>(h)], up);
    if (!first_group && p->second != up) *groups = "the leaf groups of " + host.name + "'s pod reach the spines unevenly";
  }
  std::vector<LinkSig> domain_switch;  // the NVSwitches of multi-host NVLink domains, alike
  for (VertexId v = 0; v < c.num_devices(); ++v)
    if (c.device(v).kind == DeviceKind::nvswitch && c.device(v).host < 0) {
      if (domain_switch.empty()) domain_switch = signature(c, v);
      if (signature(c, v) != domain_switch) return "NVLink domains differ (" + c.device(v).name + ")";
    }
  return "";
}

}  // namespace

AllocationPatterns::AllocationPatterns(const Cluster& c, const Locality& loc, const DownSet& down,
                                       const ScoreOptions& opt)
    : loc_(loc) {
  why_not_ = symmetric(c, loc, down, opt, &groups_why_not_);
  unit_hosts_.resize(kLevels);
  for (Level level : {Level::domain, Level::leaf_group}) {
    std::vector<int>& count = unit_hosts_[static_cast<size_t>(level)];
    for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h) {
      const size_t u = static_cast<size_t>(loc.unit(h, level));
      if (count.size() <= u) count.resize(u + 1, 0);
      ++count[u];
    }
  }
}

std::string AllocationPatterns::key(const std::vector<int>& hosts) const {
  if (!why_not_.empty()) return "";
  std::string key;
  key.reserve(hosts.size() * sizeof(int) * 6);
  auto put = [&](int v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  std::map<int, int> group_number, domain_number;  // by order of first appearance
  for (int h : hosts) {
    put(loc_.unit(h, Level::site));
    put(loc_.unit(h, Level::pod));
    for (auto [level, numbers] : {std::pair{Level::leaf_group, &group_number}, std::pair{Level::domain, &domain_number}}) {
      const int unit = loc_.unit(h, level);
      if (level == Level::leaf_group && !groups_why_not_.empty())
        put(unit);
      else
        put(numbers->try_emplace(unit, static_cast<int>(numbers->size())).first->second);
      put(unit_hosts_[static_cast<size_t>(level)][static_cast<size_t>(unit)]);
    }
  }
  return key;
}

}  // namespace topoplan
