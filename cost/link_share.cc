#include "cost/link_share.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/suggest.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

bool shared_by_jobs(const Cluster& c, EdgeId e) {
  const LinkKind k = c.link(e).kind;
  if (k != LinkKind::NET && k != LinkKind::DCI) return false;
  // A NIC's own cable belongs to its host.
  return c.device(c.source(e)).kind != DeviceKind::nic && c.device(c.target(e)).kind != DeviceKind::nic;
}

double utilization_of(const nlohmann::json& v, const std::string& at, std::string* error) {
  if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() < 1)) {
    *error = at + ": expected a utilization in [0, 1), got " + json_shown(v);
    return 0;
  }
  return v.get<double>();
}

}  // namespace

LinkShare LinkShare::fair(const Cluster& c, const std::vector<double>& host_weight) {
  // NIC capacity below every fabric device, all of it and the job's part, filled tier by tier
  // from the leaves up (each device adds its lower neighbours once).
  const size_t n = c.num_devices();
  std::vector<double> total(n, 0), job(n, 0);
  std::vector<VertexId> fabric;
  for (VertexId v = 0; v < n; ++v)
    if (is_fabric(c.device(v).kind)) fabric.push_back(v);
  std::stable_sort(fabric.begin(), fabric.end(),
                   [&](VertexId a, VertexId b) { return c.device(a).tier < c.device(b).tier; });
  std::vector<VertexId> seen;
  for (VertexId v : fabric) {
    seen.clear();
    for (EdgeId e : c.out_edges(v)) {
      const VertexId below = c.target(e);
      const Device& d = c.device(below);
      if (d.kind == DeviceKind::nic) {
        total[v] += c.link(e).bw_GBps;
        job[v] += c.link(e).bw_GBps * host_weight[static_cast<size_t>(d.host)];
      } else if (is_fabric(d.kind) && d.tier < c.device(v).tier &&
                 std::find(seen.begin(), seen.end(), below) == seen.end()) {
        seen.push_back(below);
        total[v] += total[below];
        job[v] += job[below];
      }
    }
  }
  LinkShare s;
  s.share_.assign(c.num_edges(), 1.0);
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    if (!shared_by_jobs(c, e)) continue;
    const VertexId a = c.source(e), b = c.target(e);
    const VertexId lower = c.device(b).tier < c.device(a).tier ? b : a;
    // No job capacity below means no job route crosses it; leave it whole rather than at zero.
    if (total[lower] > 0 && job[lower] > 0) s.share_[e] = std::min(1.0, job[lower] / total[lower]);
  }
  return s;
}

void LinkShare::set(const Cluster& c, EdgeId e, double share) {
  if (share_.empty()) share_.assign(c.num_edges(), 1.0);
  share_[e] = share;
}

std::string_view to_string(FabricMode m) { return m == FabricMode::shared ? "shared" : "idle"; }

Result<Background> background_from_json(const nlohmann::json& doc, const std::string& where, const Cluster& c) {
  std::string error;
  Fields top(doc, "", {"format", "tiers", "links"}, &error);
  if (top.has("format") && top.text("format", kRequired) != "topoplan-background")
    top.fail("format", "expected \"topoplan-background\"");
  const nlohmann::json* tiers = top.get("tiers", false);
  const nlohmann::json* links = top.get("links", false);
  if (error.empty() && tiers && !tiers->is_object()) error = "tiers: expected an object of tier: utilization";
  if (error.empty() && links && !links->is_object()) error = "links: expected an object of \"a -> b\": utilization";
  if (error.empty() && !tiers && !links) error = "expected \"tiers\" or \"links\" (or both)";
  if (!error.empty()) return error_in(where, error);

  Background bg;
  bg.source = where;
  if (tiers && !tiers->empty()) {
    std::map<std::string, std::vector<EdgeId>> by_tier;
    for (EdgeId e = 0; e < c.num_edges(); ++e)
      if (c.link(e).kind == LinkKind::NET || c.link(e).kind == LinkKind::DCI) by_tier[link_tier(c, e)].push_back(e);
    std::vector<std::string> names;
    for (const auto& [name, edges] : by_tier) names.push_back(name);
    for (const auto& [name, value] : tiers->items()) {
      auto it = by_tier.find(name);
      if (it == by_tier.end()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        return error_in(where, "tiers." + name + ": no such tier in this cluster" + did_you_mean(name, names) +
                                   " (tiers: " + list + ")");
      }
      const double u = utilization_of(value, "tiers." + name, &error);
      if (!error.empty()) return error_in(where, error);
      for (EdgeId e : it->second) bg.utilization.emplace_back(e, u);
    }
  }
  if (links) {
    for (const auto& [name, value] : links->items()) {
      const std::string at = "links[\"" + name + "\"]";
      const bool both = name.find(" <-> ") != std::string::npos;
      const size_t arrow = both ? name.find(" <-> ") : name.find(" -> ");
      if (arrow == std::string::npos)
        return error_in(where, at + ": expected \"a -> b\" (one direction) or \"a <-> b\" (both)");
      const std::string from = name.substr(0, arrow), to = name.substr(arrow + (both ? 5 : 4));
      std::optional<VertexId> a = c.find(from), b = c.find(to);
      if (!a || !b) return error_in(where, at + ": no device '" + (a ? to : from) + "'");
      const double u = utilization_of(value, at, &error);
      if (!error.empty()) return error_in(where, error);
      bool linked = false;
      for (EdgeId e : c.out_edges(*a)) {
        if (c.target(e) != *b) continue;
        linked = true;
        bg.utilization.emplace_back(e, u);
        if (both) bg.utilization.emplace_back(Cluster::reverse(e), u);
      }
      if (!linked) return error_in(where, at + ": '" + from + "' and '" + to + "' are not linked");
    }
  }
  return bg;
}

Result<Background> background_load(const std::string& path, const Cluster& c) {
  Result<nlohmann::json> doc = json_read_file(path);
  RETURN_IF_ERROR(doc);
  return background_from_json(*doc, path, c);
}

LinkShare link_share_make(const Cluster& c, FabricMode mode, const std::vector<double>& host_weight,
                          const Background* background) {
  LinkShare s = mode == FabricMode::shared ? LinkShare::fair(c, host_weight) : LinkShare{};
  if (background)
    for (const auto& [e, u] : background->utilization) s.set(c, e, 1 - u);
  return s;
}

}  // namespace topoplan
