#include "topology/summary.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "base/hostlist.h"
#include "base/suggest.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/cpu_models.h"
#include "topology/routing.h"

namespace topoplan {

namespace {

// What a host's socket link says of itself: NCCL's figure for its CPU model, or the node type's
// own rate (cpu_link_rate) and why.
std::string socket_source(const std::string& model, int per_host, double GBps) {
  if (per_host < 2) return "";
  if (GBps <= 0) return "none: the node type gives neither cpu_model nor cpu_link_rate";
  if (model.empty()) return "cpu_link_rate (no cpu_model given)";
  Result<const CpuModel*> m = cpu_model_named(model);
  if (!m) return "cpu_link_rate (CPU model '" + model + "' is not in topology/cpu_models.cc)";
  if ((*m)->socket_GBps == GBps) return cpu_model_source(**m);
  return "cpu_link_rate, in place of " + format_number((*m)->socket_GBps) + " GB/s, " + cpu_model_source(**m);
}

}  // namespace

ClusterSummary cluster_summarize(const Cluster& c) {
  ClusterSummary s;
  s.name = c.name;
  s.fabric = c.fabric_note;
  s.routing = c.routing;
  s.hosts = static_cast<int>(c.hosts().size());
  s.sites = static_cast<int>(c.sites().size());
  std::set<int> rails;
  std::map<int, int> domain_gpus;
  std::map<int, TierSummary> tiers;
  std::map<std::pair<int, int>, DciSummary> dci;
  std::unordered_map<uint64_t, int64_t> bundle_ports;  // upward (switch, switch above) -> ports
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    const Device& d = c.device(v);
    ++s.devices[d.kind];
    if (d.kind == DeviceKind::nic && d.rail >= 0) rails.insert(d.rail);
    if (d.kind == DeviceKind::gpu && d.scaleup_domain >= 0) ++domain_gpus[d.scaleup_domain];
    if (d.kind == DeviceKind::switch_) {
      tiers[d.tier].tier = d.tier;
      ++tiers[d.tier].switches;
    }
  }
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    const Device& a = c.device(c.source(e));
    const Device& b = c.device(c.target(e));
    const Link& l = c.link(e);
    if (l.kind == LinkKind::DCI && e % 2 == 0) {
      auto key = std::minmax(a.site, b.site);
      DciSummary& x = dci[key];
      x.site_a = c.sites()[key.first];
      x.site_b = c.sites()[key.second];
      ++x.links;
      x.GBps += l.bw_GBps;
      x.length_km = std::max(x.length_km, l.length_km);
      continue;
    }
    if (b.kind != DeviceKind::switch_) continue;
    if (a.kind == DeviceKind::nic) s.injection_GBps += l.bw_GBps;
    if (a.kind == DeviceKind::nic || (a.kind == DeviceKind::switch_ && a.tier < b.tier))
      tiers[b.tier].down_GBps += l.bw_GBps;
    if (a.kind == DeviceKind::switch_ && a.tier < b.tier) {
      TierSummary& t = tiers[a.tier];
      t.up_GBps += l.bw_GBps;
      t.up_port_GBps = t.up_ports == 0 || t.up_port_GBps == l.bw_GBps ? l.bw_GBps : 0;
      ++t.up_ports;
      ++bundle_ports[(uint64_t{c.source(e)} << 32) | c.target(e)];
    }
  }
  for (auto [pair, ports] : bundle_ports) {
    TierSummary& t = tiers[c.device(static_cast<VertexId>(pair >> 32)).tier];
    t.bundle_min_ports = t.up_bundles == 0 ? ports : std::min(t.bundle_min_ports, ports);
    t.bundle_max_ports = std::max(t.bundle_max_ports, ports);
    ++t.up_bundles;
  }
  std::map<std::tuple<std::string, int, double>, int> cpu_kinds;
  for (const Host& h : c.hosts()) {
    double socket = 0;
    for (VertexId cpu : h.cpus)
      for (EdgeId e : c.out_edges(cpu))
        if (c.link(e).kind == LinkKind::SYS && c.device(c.target(e)).kind == DeviceKind::cpu)
          socket = socket > 0 ? std::min(socket, c.link(e).bw_GBps) : c.link(e).bw_GBps;
    ++cpu_kinds[{h.cpus.empty() ? "" : c.device(h.cpus[0]).model, static_cast<int>(h.cpus.size()), socket}];
  }
  for (const auto& [kind, hosts] : cpu_kinds) {
    const auto& [model, per_host, socket] = kind;
    s.cpus.push_back({model, per_host, hosts, socket, socket_source(model, per_host, socket)});
  }
  s.rails = static_cast<int>(rails.size());
  s.scaleup_domains = static_cast<int>(domain_gpus.size());
  for (auto [domain, n] : domain_gpus) s.largest_domain_gpus = std::max(s.largest_domain_gpus, n);
  double bisection = s.injection_GBps / 2;
  for (auto& [tier, t] : tiers) {
    s.tiers.push_back(t);
    if (t.up_GBps > 0) bisection = std::min(bisection, t.up_GBps / 2);
  }
  for (auto& [key, x] : dci) {
    s.dci.push_back(x);
    bisection = std::min(bisection, x.GBps);
  }
  if (s.hosts > 1) s.bisection_GBps = bisection;
  return s;
}

nlohmann::json routing_json(const FabricRouting& routing) {
  return {{"mode", std::string(to_string(routing.mode))},
          {"source", routing.source.empty() ? "default" : routing.source}};
}

nlohmann::json summary_to_json(const ClusterSummary& s) {
  auto count = [&s](DeviceKind k) {
    auto it = s.devices.find(k);
    return it == s.devices.end() ? 0 : it->second;
  };
  nlohmann::json j;
  j["name"] = s.name;
  if (!s.fabric.empty()) j["fabric"] = s.fabric;
  j["routing"] = routing_json(s.routing);
  j["gpus"] = count(DeviceKind::gpu);
  j["hosts"] = s.hosts;
  j["nics"] = count(DeviceKind::nic);
  j["switches"] = count(DeviceKind::switch_);
  j["sites"] = s.sites;
  j["scaleup_domains"] = s.scaleup_domains;
  j["largest_scaleup_domain_gpus"] = s.largest_domain_gpus;
  j["rails"] = s.rails;
  nlohmann::json devices = nlohmann::json::object();
  for (auto [k, n] : s.devices) devices[std::string(to_string(k))] = n;
  j["devices"] = devices;
  j["cpus"] = nlohmann::json::array();
  for (const CpuSummary& x : s.cpus) {
    nlohmann::json cpu = {{"model", x.model.empty() ? nlohmann::json(nullptr) : nlohmann::json(x.model)},
                          {"per_host", x.per_host},
                          {"hosts", x.hosts}};
    if (x.per_host > 1) {
      cpu["socket_GBps"] = x.socket_GBps;
      cpu["socket_source"] = x.socket_source;
    }
    j["cpus"].push_back(cpu);
  }
  j["injection_GBps"] = s.injection_GBps;
  j["bisection_GBps"] = s.bisection_GBps ? nlohmann::json(*s.bisection_GBps) : nlohmann::json(nullptr);
  j["tiers"] = nlohmann::json::array();
  for (const TierSummary& t : s.tiers) {
    nlohmann::json x = {{"tier", t.tier}, {"switches", t.switches}, {"down_GBps", t.down_GBps}, {"up_GBps", t.up_GBps}};
    x["oversubscription"] = t.up_GBps > 0 ? nlohmann::json(t.down_GBps / t.up_GBps) : nlohmann::json(nullptr);
    if (t.up_ports > 0) {
      x["up_ports"] = t.up_ports;
      x["up_port_GBps"] = t.up_port_GBps > 0 ? nlohmann::json(t.up_port_GBps) : nlohmann::json(nullptr);
      x["up_bundles"] = t.up_bundles;
      x["bundle_ports"] = {t.bundle_min_ports, t.bundle_max_ports};
    }
    j["tiers"].push_back(x);
  }
  j["dci"] = nlohmann::json::array();
  for (const DciSummary& d : s.dci)
    j["dci"].push_back(
        {{"site_a", d.site_a}, {"site_b", d.site_b}, {"links", d.links}, {"GBps", d.GBps}, {"length_km", d.length_km}});
  return j;
}

std::string summary_to_text(const ClusterSummary& s) {
  static const char* tier_names[] = {"", "leaf", "spine", "core"};
  std::ostringstream o;
  auto count = [&s](DeviceKind k) {
    auto it = s.devices.find(k);
    return it == s.devices.end() ? 0 : it->second;
  };
  o << "cluster " << s.name << "\n";
  o << "  " << counted(count(DeviceKind::gpu), "GPU") << " on " << counted(s.hosts, "host") << ", "
    << counted(s.scaleup_domains, "scale-up domain") << " (largest " << counted(s.largest_domain_gpus, "GPU") << "), "
    << counted(s.sites, "site") << "\n";
  if (!s.fabric.empty()) o << "  fabric: " << s.fabric << "\n";
  o << "  routing: " << routing_text(s.routing) << "\n";
  o << "  devices:";
  for (auto [k, n] : s.devices) o << " " << to_string(k) << " " << n;
  for (const CpuSummary& x : s.cpus) {
    o << "\n  CPUs: " << x.per_host << " x " << (x.model.empty() ? "model not given" : x.model) << " per host ("
      << counted(x.hosts, "host") << ")";
    if (x.per_host > 1) o << ", socket link " << format_number(x.socket_GBps, 2) << " GB/s: " << x.socket_source;
  }
  o << "\n  " << counted(count(DeviceKind::nic), "NIC") << " on " << counted(s.rails, "rail") << ", injection "
    << format_number(s.injection_GBps, 1) << " GB/s\n";
  for (const TierSummary& t : s.tiers) {
    o << "  tier " << t.tier << " (" << (t.tier >= 1 && t.tier <= 3 ? tier_names[t.tier] : "switch")
      << "): " << counted(t.switches, "switch", "switches") << ", down " << format_number(t.down_GBps, 1) << " GB/s";
    // Leaves and spines are provisioned for whole scalable units, so a partly filled one has more
    // capacity up than down: say so rather than print a ratio below 1:1.
    if (t.up_GBps > 0 && t.down_GBps >= t.up_GBps)
      o << ", up " << format_number(t.up_GBps, 1) << " GB/s, oversubscription "
        << format_number(t.down_GBps / t.up_GBps, 2) << ":1";
    else if (t.up_GBps > 0)
      o << ", up " << format_number(t.up_GBps, 1) << " GB/s, not oversubscribed (uplinks for full scalable units, "
        << format_number(100 * t.down_GBps / t.up_GBps, 1) << "% of them used)";
    o << "\n";
    if (t.up_ports > 0) {
      // Uplinks are whole ports; where they do not divide evenly among the switches above, some
      // pairs get one port more.
      o << "    uplinks: " << format_count(t.up_ports) << (t.up_ports == 1 ? " port" : " ports")
        << (t.up_port_GBps > 0 ? " of " + format_rate_gbit(t.up_port_GBps) : std::string(" of mixed rates")) << " in "
        << format_count(t.up_bundles) << (t.up_bundles == 1 ? " bundle of " : " bundles of ")
        << (t.bundle_min_ports == t.bundle_max_ports
                ? std::to_string(t.bundle_min_ports)
                : std::to_string(t.bundle_min_ports) + " to " + std::to_string(t.bundle_max_ports))
        << (t.bundle_max_ports == 1 ? " port" : " ports") << " (one per switch pair)\n";
    }
  }
  for (const DciSummary& d : s.dci)
    o << "  DCI " << d.site_a << " <-> " << d.site_b << ": " << counted(d.links, "link") << ", "
      << format_number(d.GBps, 1) << " GB/s (" << format_rate_gbit(d.GBps) << ") each way, "
      << format_number(d.length_km, 1) << " km\n";
  if (s.bisection_GBps) o << "  bisection " << format_number(*s.bisection_GBps, 1) << " GB/s\n";
  return o.str();
}

Result<SiteLink> site_link(const Cluster& c, const std::string& from, const std::string& to) {
  auto index = [&c](const std::string& name) -> Result<int> {
    for (size_t i = 0; i < c.sites().size(); ++i)
      if (c.sites()[i] == name) return static_cast<int>(i);
    return Error{"unknown site '" + name + "'" + did_you_mean(name, c.sites())};
  };
  Result<int> a = index(from), b = index(to);
  RETURN_IF_ERROR(a);
  RETURN_IF_ERROR(b);
  if (*a == *b) return Error{"--from and --to name the same site '" + from + "'"};
  SiteLink out;
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    const Link& l = c.link(e);
    if (l.kind != LinkKind::DCI) continue;
    if (c.device(c.source(e)).site == *a && c.device(c.target(e)).site == *b) {
      out.GBps += l.bw_GBps;
      out.length_km = std::max(out.length_km, l.length_km);
      ++out.links;
    }
  }
  if (out.links == 0) return Error{"no DCI link joins site '" + from + "' to '" + to + "'"};
  return out;
}

std::vector<std::string> host_names(const Cluster& c, const std::vector<int>& hosts) {
  std::vector<std::string> out;
  for (int h : hosts) out.push_back(host_name(c, h));
  return out;
}

int gpus_on(const Cluster& c, const std::vector<int>& hosts) {
  int n = 0;
  for (int h : hosts) n += static_cast<int>(c.hosts()[static_cast<size_t>(h)].gpus.size());
  return n;
}

std::string hostlist_of(const Cluster& c, const std::vector<int>& hosts) {
  std::vector<std::string> names;
  for (int h : hosts) names.push_back(c.hosts()[static_cast<size_t>(h)].name);
  return hostlist_compress(names);
}

}  // namespace topoplan
