#include "topology/summary.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "topology/routing.h"
#include "topology/suggest.h"
#include "topology/units.h"

namespace topoplan {

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
    if (a.kind == DeviceKind::nic || (a.kind == DeviceKind::switch_ && a.tier < b.tier)) tiers[b.tier].down_GBps += l.bw_GBps;
    if (a.kind == DeviceKind::switch_ && a.tier < b.tier) tiers[a.tier].up_GBps += l.bw_GBps;
  }
  s.rails = static_cast<int>(rails.size());
  s.scaleup_domains = static_cast<int>(domain_gpus.size());
  for (auto [domain, n] : domain_gpus) s.largest_domain_gpus = std::max(s.largest_domain_gpus, n);
  s.bisection_GBps = s.injection_GBps / 2;
  for (auto& [tier, t] : tiers) {
    s.tiers.push_back(t);
    if (t.up_GBps > 0) s.bisection_GBps = std::min(s.bisection_GBps, t.up_GBps / 2);
  }
  for (auto& [key, x] : dci) {
    s.dci.push_back(x);
    s.bisection_GBps = std::min(s.bisection_GBps, x.GBps);
  }
  return s;
}

nlohmann::json routing_json(const FabricRouting& routing) {
  return {{"mode", std::string(to_string(routing.mode))}, {"source", routing.source.empty() ? "default" : routing.source}};
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
  j["injection_GBps"] = s.injection_GBps;
  j["bisection_GBps"] = s.bisection_GBps;
  j["tiers"] = nlohmann::json::array();
  for (const TierSummary& t : s.tiers) {
    nlohmann::json x = {{"tier", t.tier}, {"switches", t.switches}, {"down_GBps", t.down_GBps}, {"up_GBps", t.up_GBps}};
    x["oversubscription"] = t.up_GBps > 0 ? nlohmann::json(t.down_GBps / t.up_GBps) : nlohmann::json(nullptr);
    j["tiers"].push_back(x);
  }
  j["dci"] = nlohmann::json::array();
  for (const DciSummary& d : s.dci)
    j["dci"].push_back({{"site_a", d.site_a}, {"site_b", d.site_b}, {"links", d.links}, {"GBps", d.GBps},
                        {"length_km", d.length_km}});
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
  o << "  " << count(DeviceKind::gpu) << " GPUs on " << s.hosts << " hosts, " << s.scaleup_domains
    << " scale-up domains (largest " << s.largest_domain_gpus << " GPUs), " << s.sites << " site"
    << (s.sites == 1 ? "" : "s") << "\n";
  if (!s.fabric.empty()) o << "  fabric: " << s.fabric << "\n";
  o << "  routing: " << routing_text(s.routing) << "\n";
  o << "  devices:";
  for (auto [k, n] : s.devices) o << " " << to_string(k) << " " << n;
  o << "\n  " << count(DeviceKind::nic) << " NICs on " << s.rails << " rails, injection "
    << format_number(s.injection_GBps, 1) << " GB/s\n";
  for (const TierSummary& t : s.tiers) {
    o << "  tier " << t.tier << " (" << (t.tier >= 1 && t.tier <= 3 ? tier_names[t.tier] : "switch") << "): "
      << t.switches << " switches, down " << format_number(t.down_GBps, 1) << " GB/s";
    // Leaves and spines are provisioned for whole scalable units, so a partly filled one has more
    // capacity up than down: say so rather than print a ratio below 1:1.
    if (t.up_GBps > 0 && t.down_GBps >= t.up_GBps)
      o << ", up " << format_number(t.up_GBps, 1) << " GB/s, oversubscription "
        << format_number(t.down_GBps / t.up_GBps, 2) << ":1";
    else if (t.up_GBps > 0)
      o << ", up " << format_number(t.up_GBps, 1) << " GB/s, not oversubscribed (uplinks for full scalable units, "
        << format_number(100 * t.down_GBps / t.up_GBps, 1) << "% of them used)";
    o << "\n";
  }
  for (const DciSummary& d : s.dci)
    o << "  DCI " << d.site_a << " <-> " << d.site_b << ": " << d.links << " links, " << format_number(d.GBps, 1)
      << " GB/s (" << format_rate_gbit(d.GBps) << ") each way, " << format_number(d.length_km, 1) << " km\n";
  o << "  bisection " << format_number(s.bisection_GBps, 1) << " GB/s\n";
  return o.str();
}

Result<SiteLink> site_link(const Cluster& c, const std::string& from, const std::string& to) {
  auto index = [&c](const std::string& name) -> Result<int> {
    for (size_t i = 0; i < c.sites().size(); ++i)
      if (c.sites()[i] == name) return static_cast<int>(i);
    return Error{"unknown site '" + name + "'" + did_you_mean(name, c.sites())};
  };
  Result<int> a = index(from), b = index(to);
  if (!a) return Error{a.error()};
  if (!b) return Error{b.error()};
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

}  // namespace topoplan
