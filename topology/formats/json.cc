#include "topology/formats/json.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "base/units.h"
#include "topology/formats/node_type_json.h"

namespace topoplan {
namespace {

// The link rate's key before it said its unit: GB/s then too, so files written with it still read.
constexpr const char* kOldBwKey = "bw_gbps";

using nlohmann::json;

// Names in the order listed: sites, domains and hosts are referred to by name, stored by index.
struct Names {
  std::vector<std::string> list;
  std::unordered_map<std::string, int> index;
  bool add(const std::string& n) {
    if (!index.emplace(n, static_cast<int>(list.size())).second) return false;
    list.push_back(n);
    return true;
  }
};

// A top-level array of unique names ("sites", "domains").
Names names_read(Fields& top, const char* key, const char* noun) {
  Names names;
  if (const json* list = top.list(key, false))
    for (size_t i = 0; i < list->size() && top.ok(); ++i) {
      const json& n = (*list)[i];
      if (!n.is_string() || n.get<std::string>().empty())
        top.fail(json_indexed(key, i), std::string("expected a ") + noun + " name, got " + json_shown(n));
      else if (!names.add(n.get<std::string>()))
        top.fail(json_indexed(key, i), std::string("duplicate ") + noun + " '" + n.get<std::string>() + "'");
    }
  return names;
}

// An optional reference by name; -1 when absent.
int ref(Fields& f, const char* key, const Names& names, const char* noun) {
  if (!f.has(key)) return -1;
  std::string n = f.text(key, kRequired);
  auto it = names.index.find(n);
  if (it != names.index.end()) return it->second;
  f.fail(f.at(key), std::string("no ") + noun + " '" + n + "'" + did_you_mean(n, names.list));
  return -1;
}

template <typename Kind>
Kind kind_read(Fields& f, std::optional<Kind> (*from)(std::string_view), const std::vector<std::string>& names,
               const char* noun) {
  std::string k = f.text("kind", kRequired);
  std::optional<Kind> kind = from(k);
  if (f.ok() && !kind) f.fail(f.at("kind"), std::string("unknown ") + noun + " '" + k + "'" + did_you_mean(k, names));
  return kind.value_or(Kind{});
}

VertexId endpoint(Fields& f, const char* key, const Cluster& c) {
  std::string n = f.name(key);
  if (!f.ok()) return kNoVertex;
  if (std::optional<VertexId> v = c.find(n)) return *v;
  // Suggestions scan every name, which is fine on the way to an error.
  std::vector<std::string> all;
  all.reserve(c.num_devices());
  for (VertexId v = 0; v < c.num_devices(); ++v) all.push_back(c.device(v).name);
  f.fail(f.at(key), "no device '" + n + "'" + did_you_mean(n, all));
  return kNoVertex;
}

// Whole numbers print without ".0", so saved files read like written ones; others print exactly.
nlohmann::ordered_json number_json(double x) {
  if (x == std::trunc(x) && std::abs(x) < 1e15) return static_cast<int64_t>(x);
  return x;
}

// "routing": one of adaptive, hash, static; the file is then who said so.
FabricRouting routing_read(Fields& f, const std::string& key) {
  const std::string name = f.choice(key, kRequired, routing_names());
  return {routing_from(name).value_or(Routing::adaptive), "set by the cluster file"};
}

}  // namespace

Result<ClusterSpec> recipe_from_json(const json& doc, const std::string& where) {
  std::string error;
  Fields top(doc, "", {"name", "node", "nodes", "racks", "fabric", "sites", "dci"}, &error);
  // "node": a preset's name, or a node type written out (what `topoplan import` writes).
  const json* node_value = top.get("node", true);
  if (!error.empty()) return error_in(where, error);
  Result<NodeType> type =
      node_value->is_object() ? node_type_from_json(*node_value, "node")
      : node_value->is_string()
          ? node_type_named(node_value->get<std::string>())
          : Result<NodeType>(Error{"expected a preset name or a node type object, got " + json_shown(*node_value)});
  if (!type) return error_in(where, node_value->is_object() ? type.error() : "node: " + type.error());
  const std::string node = type->name;
  const int per_rack = type->hosts_per_domain;

  ClusterSpec spec;
  spec.node = *type;
  int count = 0;  // as a preset spec counts: racks for rack-scale types, else nodes
  if (top.has("racks") && per_rack == 1) {
    top.fail("racks", "only rack-scale node types (gb200-nvl72) come in racks; give 'nodes' for " + node);
  } else if (top.has("racks") && top.has("nodes")) {
    top.fail("", "give 'nodes' or 'racks', not both");
  } else if (top.has("racks")) {
    count = top.integer("racks", kRequired, 1, INT_MAX / per_rack);
    spec.nodes = count * per_rack;
  } else {
    spec.nodes = top.integer("nodes", kRequired, 1);
    count = spec.nodes;
  }
  spec.name = top.text("name", node + ":" + std::to_string(count));

  FabricSpec& fabric = spec.fabric;
  fabric = fabric_default(*type);
  // The parser checks types and signs; cluster_build judges the values (radix, ratios, multiples).
  if (const json* value = top.get("fabric", false)) {
    Fields f(*value, "fabric",
             {"kind", "nodes_per_su", "leaf_oversubscription", "nodes_per_pod", "pod_oversubscription", "planes",
              "switch_radix", "spines_per_pod", "cores", "routing"},
             &error);
    std::string kind = f.text("kind", fabric.kind == FabricKind::rail ? "rail" : "tor");
    if (kind == "rail" || kind == "tor")
      fabric.kind = kind == "rail" ? FabricKind::rail : FabricKind::tor;
    else
      f.fail(f.at("kind"), "expected \"rail\" or \"tor\", got \"" + kind + "\"" + did_you_mean(kind, {"rail", "tor"}));
    fabric.nodes_per_su = f.integer("nodes_per_su", fabric.nodes_per_su, 1);
    fabric.leaf_oversubscription =
        f.number("leaf_oversubscription", fabric.leaf_oversubscription, 1, true, limits::kMaxRatio);
    fabric.nodes_per_pod = f.integer("nodes_per_pod", fabric.nodes_per_pod, 0);
    fabric.pod_oversubscription =
        f.number("pod_oversubscription", fabric.pod_oversubscription, 1, true, limits::kMaxRatio);
    fabric.planes = f.integer("planes", fabric.planes, 1);
    fabric.switch_radix = f.integer("switch_radix", fabric.switch_radix, 1);
    fabric.spines_per_pod = f.integer("spines_per_pod", fabric.spines_per_pod, 0);
    fabric.cores = f.integer("cores", fabric.cores, 0);
    if (f.has("routing")) fabric.routing = routing_read(f, "routing");
  }
  if (const json* list = top.list("sites", false))
    for (size_t i = 0; i < list->size() && error.empty(); ++i) {
      Fields f((*list)[i], json_indexed("sites", i), {"name", "nodes"}, &error);
      spec.sites.push_back({f.name("name"), f.integer("nodes", kRequired, 1)});
    }
  if (const json* value = top.get("dci", false)) {
    Fields f(*value, "dci", {"links", "link_rate", "length_km"}, &error);
    spec.dci.links = f.integer("links", spec.dci.links, 1);
    if (f.has("link_rate")) {
      std::string rate = f.text("link_rate", kRequired);
      Result<double> GBps = parse_rate_GBps(rate);
      if (!GBps)
        f.fail(f.at("link_rate"), GBps.error());
      else
        spec.dci.link_GBps = *GBps;
    }
    spec.dci.length_km = f.number("length_km", spec.dci.length_km, 0, true, limits::kMaxLengthKm);
  }
  if (!error.empty()) return error_in(where, error);
  return spec;
}

Result<Cluster> cluster_from_json(const json& doc, const std::string& where) {
  std::string error;
  Fields top(doc, "", {"format", "version", "name", "routing", "sites", "domains", "hosts", "devices", "links"},
             &error);
  if (top.has("format") && top.text("format", kRequired) != "topoplan-cluster")
    top.fail("format", "expected \"topoplan-cluster\", got " + json_shown(doc.at("format")));
  if (top.has("version") && top.integer("version", kRequired, 0) != 1)
    top.fail("version", "expected 1, got " + json_shown(doc.at("version")));
  Cluster c;
  c.name = top.text("name", "");
  if (top.has("routing")) c.routing = routing_read(top, "routing");
  Names sites = names_read(top, "sites", "site");
  Names domains = names_read(top, "domains", "scale-up domain");
  for (const std::string& s : sites.list) c.add_site(s);
  for (const std::string& d : domains.list) c.add_domain(d);

  Names hosts;
  if (const json* list = top.list("hosts", false))
    for (size_t i = 0; i < list->size() && error.empty(); ++i) {
      Fields f((*list)[i], json_indexed("hosts", i),
               {"name", "site", "scaleup_domain", "node_type", "cores_per_cpu", "nic_names"}, &error);
      Host h;
      h.name = f.name("name");
      h.site = ref(f, "site", sites, "site");
      h.scaleup_domain = ref(f, "scaleup_domain", domains, "scale-up domain");
      h.node_type = f.text("node_type", "");
      h.cores_per_cpu = f.integer("cores_per_cpu", 0, 0, 1 << 20);
      if (const json* names = f.list("nic_names", false))
        for (size_t k = 0; k < names->size() && f.ok(); ++k) {
          if ((*names)[k].is_string() && !(*names)[k].get<std::string>().empty())
            h.nic_names.push_back((*names)[k].get<std::string>());
          else
            f.fail(json_indexed(f.at("nic_names"), k),
                   "expected an RDMA device name such as \"mlx5_0\", got " + json_shown((*names)[k]));
        }
      if (f.ok() && !hosts.add(h.name)) f.fail(f.at("name"), "duplicate host '" + h.name + "'");
      c.add_host(std::move(h));
    }

  // Counted before anything is added: an explicit graph obeys the same limits as a recipe.
  const json* device_list = top.list("devices", true);
  const json* link_list = top.list("links", false);
  if (device_list && device_list->size() > static_cast<size_t>(limits::kMaxDevices))
    top.fail("devices", format_count(static_cast<int64_t>(device_list->size())) + " devices, more than the limit of " +
                            format_count(limits::kMaxDevices));
  if (link_list && link_list->size() > static_cast<size_t>(limits::kMaxLinks))
    top.fail("links", format_count(static_cast<int64_t>(link_list->size())) + " links, more than the limit of " +
                          format_count(limits::kMaxLinks));
  if (top.ok()) c.reserve(device_list ? device_list->size() : 0, link_list ? link_list->size() : 0);
  if (const json* list = top.ok() ? device_list : nullptr)
    for (size_t i = 0; i < list->size() && error.empty(); ++i) {
      Fields f((*list)[i], json_indexed("devices", i),
               {"name", "kind", "host", "scaleup_domain", "site", "rail", "tier", "index", "model"}, &error);
      Device d;
      d.name = f.name("name");
      d.kind = kind_read(f, device_kind_from, device_kind_names(), "device kind");
      d.host = ref(f, "host", hosts, "host");
      d.scaleup_domain = ref(f, "scaleup_domain", domains, "scale-up domain");
      d.site = ref(f, "site", sites, "site");
      d.rail = static_cast<int16_t>(f.integer("rail", -1, 0, INT16_MAX));
      d.tier = static_cast<int16_t>(f.integer("tier", 0, 0, INT16_MAX));
      d.local_index = static_cast<int16_t>(f.integer("index", -1, 0, INT16_MAX));
      d.model = f.text("model", "");
      if (!f.ok()) break;
      if (Result<VertexId> v = c.add_device(std::move(d)); !v) f.fail(f.at("name"), v.error());
    }

  if (const json* list = top.ok() ? link_list : nullptr)
    for (size_t i = 0; i < list->size() && error.empty(); ++i) {
      const json& link = (*list)[i];
      Fields f(link, json_indexed("links", i), {"a", "b", "kind", "bw_GBps", kOldBwKey, "latency_us", "length_km"},
               &error);
      VertexId a = endpoint(f, "a", c);
      VertexId b = endpoint(f, "b", c);
      LinkKind kind = kind_read(f, link_kind_from, link_kind_names(), "link kind");
      const bool old_key = link.is_object() && link.contains(kOldBwKey);
      if (old_key && link.contains("bw_GBps"))
        f.fail(f.at(kOldBwKey), std::string("give bw_GBps or its old name ") + kOldBwKey + ", not both");
      double bw_GBps =
          f.number(old_key ? kOldBwKey : "bw_GBps", kRequired, limits::kMinLinkGBps, true, limits::kMaxLinkGBps);
      double latency_us = f.number("latency_us", 0.0, 0, true, limits::kMaxLatencyUs);
      double length_km = f.number("length_km", 0.0, 0, true, limits::kMaxLengthKm);
      if (!f.ok()) break;
      if (Result<EdgeId> e = c.add_link(a, b, kind, bw_GBps, latency_us, length_km); !e) f.fail(f.path(), e.error());
    }
  if (!error.empty()) return error_in(where, error);
  if (Result<void> ok = c.finalize(); !ok) return error_in(where, ok.error());
  return c;
}

Result<Cluster> load_cluster_json(const std::string& path) {
  Result<json> read = json_read_file(path);
  RETURN_IF_ERROR(read);
  return cluster_from_document(*read, path);
}

Result<Cluster> cluster_from_document(const json& doc, const std::string& path) {
  if (doc.is_object() && doc.contains("devices")) return cluster_from_json(doc, path);
  if (doc.is_object() && doc.contains("node")) {
    Result<ClusterSpec> spec = recipe_from_json(doc, path);
    RETURN_IF_ERROR(spec);
    Result<Cluster> built = cluster_build(*spec);
    if (!built) return error_in(path, built.error());
    return built;
  }
  return error_in(path, "not a cluster file: expected \"node\" (a recipe) or \"devices\" (an explicit graph)");
}

std::string save_cluster_json(const Cluster& c) {
  using ojson = nlohmann::ordered_json;  // keys in the documented order, not sorted
  ojson doc = {{"format", "topoplan-cluster"}, {"version", 1}, {"name", c.name}};
  // A default stays unsaid, so that loading the file again says "default" again.
  if (!c.routing.source.empty()) doc["routing"] = to_string(c.routing.mode);
  doc["sites"] = c.sites();
  doc["domains"] = c.domains();
  ojson hosts = ojson::array();
  for (const Host& h : c.hosts()) {
    ojson x = {{"name", h.name}};
    if (h.site >= 0) x["site"] = c.sites()[h.site];
    if (h.scaleup_domain >= 0) x["scaleup_domain"] = c.domains()[h.scaleup_domain];
    if (!h.node_type.empty()) x["node_type"] = h.node_type;
    if (h.cores_per_cpu > 0) x["cores_per_cpu"] = h.cores_per_cpu;
    if (!h.nic_names.empty()) x["nic_names"] = h.nic_names;
    hosts.push_back(std::move(x));
  }
  doc["hosts"] = std::move(hosts);
  ojson devices = ojson::array();
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    const Device& d = c.device(v);
    ojson x = {{"name", d.name}, {"kind", to_string(d.kind)}};
    if (d.host >= 0) x["host"] = c.hosts()[d.host].name;
    if (d.scaleup_domain >= 0) x["scaleup_domain"] = c.domains()[d.scaleup_domain];
    if (d.site >= 0) x["site"] = c.sites()[d.site];
    if (d.rail >= 0) x["rail"] = d.rail;
    if (d.tier > 0) x["tier"] = d.tier;
    if (d.local_index >= 0) x["index"] = d.local_index;
    if (!d.model.empty()) x["model"] = d.model;
    devices.push_back(std::move(x));
  }
  doc["devices"] = std::move(devices);
  ojson links = ojson::array();
  for (EdgeId e = 0; e < c.num_edges(); e += 2) {
    const Link& l = c.link(e);
    ojson x = {{"a", c.device(c.source(e)).name},
               {"b", c.device(c.target(e)).name},
               {"kind", to_string(l.kind)},
               {"bw_GBps", number_json(l.bw_GBps)}};
    if (l.latency_us > 0) x["latency_us"] = number_json(l.latency_us);
    if (l.length_km > 0) x["length_km"] = number_json(l.length_km);
    links.push_back(std::move(x));
  }
  doc["links"] = std::move(links);
  return doc.dump(2) + "\n";
}

}  // namespace topoplan
