#include "topology/fabric.h"

#include "topology/fabric_plan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace topoplan {
namespace {

std::string host_name(int index, int total) {
  int width = std::max<int>(3, static_cast<int>(std::to_string(total).size()));
  std::string n = std::to_string(index + 1);
  return "h" + std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(n.size()))), '0') + n;
}

// Builds one site's switches above its hosts; returns the site's top-tier switches.
class SiteFabric {
 public:
  SiteFabric(Cluster& c, const ClusterSpec& s, const FabricPlan& plan, const std::vector<VertexId>& first_nic, int site,
             std::string prefix)
      : c_(c), s_(s), f_(s.fabric), plan_(plan), first_nic_(first_nic), site_(site), prefix_(std::move(prefix)) {}

  std::vector<VertexId> build(const std::vector<int>& hosts) {
    const size_t pod_size = static_cast<size_t>(plan_.pod_size(static_cast<int>(hosts.size())));
    const bool cores = plan_.cores();
    const bool rail = f_.kind == FabricKind::rail;
    const size_t su = static_cast<size_t>(f_.nodes_per_su);

    std::vector<std::vector<VertexId>> pod_spines;  // [pod * planes + plane]
    std::vector<PodShape> pod_shapes;               // the same index
    for (size_t first = 0; first < hosts.size(); first += pod_size) {
      const size_t last = std::min(hosts.size(), first + pod_size);
      // Within the limits checked by the plan, every count below fits an int.
      const PodShape shape = plan_.pod(static_cast<int64_t>(last - first), f_);
      for (int plane = 0; plane < f_.planes; ++plane) {
        std::vector<VertexId> leaves;
        for (int64_t k = 0; k < shape.sus; ++k)
          for (int rail_index = 0; rail_index < plan_.rails; ++rail_index) {
            VertexId leaf = add_switch("leaf", 1, rail ? rail_index : -1);
            leaves.push_back(leaf);
            const size_t su_first = first + static_cast<size_t>(k) * su;
            const size_t su_last = std::min(last, su_first + su);
            for (size_t h = su_first; h < su_last; ++h)
              for (int n = 0; n < s_.node.nics; ++n)
                if (!rail || n == rail_index)
                  c_.add_link(nic_of(hosts[h], n), leaf, LinkKind::NET, plan_.port_GBps, HopLatency::net_us).value();
          }
        if (shape.spines == 0) {
          top_.insert(top_.end(), leaves.begin(), leaves.end());
          continue;
        }
        std::vector<VertexId> sp;
        for (int64_t i = 0; i < shape.spines; ++i) sp.push_back(add_switch("spine", 2, -1));
        // The pod's leaf uplinks numbered leaf by leaf, port p to spine p mod spines: every leaf
        // reaches every spine in a bundle of whole ports, and the spines' down ports even out.
        const int64_t up = plan_.leaf_up_ports;
        for (size_t j = 0; j < leaves.size(); ++j)
          for (size_t i = 0; i < sp.size(); ++i)
            add_ports(leaves[j], sp[i],
                      ports_to(static_cast<int64_t>(j) * up, up, static_cast<int64_t>(i), shape.spines));
        pod_spines.push_back(sp);
        pod_shapes.push_back(shape);
      }
    }
    if (!cores) {
      for (auto& sp : pod_spines) top_.insert(top_.end(), sp.begin(), sp.end());
      return top_;
    }
    // Cores come in groups, one per spine position: spine i of every pod in a plane links to every
    // core of group i, as three-tier Clos fabrics are cabled (a full spine-core mesh would not fit
    // the radix).
    for (int plane = 0; plane < f_.planes; ++plane) {
      size_t positions = 0, pods = 0;
      for (size_t p = plane; p < pod_spines.size(); p += f_.planes, ++pods)
        positions = std::max(positions, pod_spines[p].size());
      const int64_t per_group = plan_.cores_per_group(static_cast<int64_t>(pods), static_cast<int64_t>(positions), f_);
      for (size_t i = 0; i < positions; ++i) {
        std::vector<VertexId> group;
        for (int64_t k = 0; k < per_group; ++k) group.push_back(add_switch("core", 3, -1));
        // As below the spines: this position's uplink ports numbered pod by pod, port q to core
        // q mod per_group.
        int64_t first = 0;
        for (size_t p = plane; p < pod_spines.size(); p += f_.planes) {
          if (i >= pod_spines[p].size()) continue;
          const PodShape& shape = pod_shapes[p];
          const int64_t up =
              ports_to(0, plan_.pod_up_ports(shape, per_group, f_), static_cast<int64_t>(i), shape.spines);
          for (int64_t k = 0; k < per_group; ++k)
            add_ports(pod_spines[p][i], group[static_cast<size_t>(k)], ports_to(first, up, k, per_group));
          first += up;
        }
        top_.insert(top_.end(), group.begin(), group.end());
      }
    }
    return top_;
  }

 private:
  // Hosts' NIC lists are filled by finalize; until then node_type_build's first NIC tells them.
  VertexId nic_of(int host, int n) const { return first_nic_[static_cast<size_t>(host)] + static_cast<VertexId>(n); }

  // A bundle: parallel links, one per port, so ECMP splits per port and a port counter matches one.
  void add_ports(VertexId a, VertexId b, int64_t ports) {
    for (int64_t k = 0; k < ports; ++k) c_.add_link(a, b, LinkKind::NET, plan_.port_GBps, HopLatency::net_us).value();
  }

  VertexId add_switch(const char* role, int tier, int rail) {
    int& counter = counters_[role];
    Device d;
    d.name = prefix_ + role + std::to_string(counter++);
    d.kind = DeviceKind::switch_;
    d.tier = static_cast<int16_t>(tier);
    d.rail = static_cast<int16_t>(rail);
    d.site = site_;
    return c_.add_device(std::move(d)).value();
  }

  Cluster& c_;
  const ClusterSpec& s_;
  const FabricSpec& f_;
  const FabricPlan& plan_;
  const std::vector<VertexId>& first_nic_;  // by host index
  int site_;
  std::string prefix_;
  std::map<std::string, int> counters_;
  std::vector<VertexId> top_;
};

}  // namespace

FabricSpec fabric_default(const NodeType& type) {
  FabricSpec f;
  // DGX SuperPOD scalable units, rail-aligned inside: 32 DGX H100 nodes (H100 reference
  // architecture, "each group of 32 nodes is rail-aligned"), 8 GB200 NVL72 racks ("each SU
  // contains 8 DGX GB200 systems", GB200 reference architecture), so same-rail NICs of the
  // SU's racks meet at one leaf.
  constexpr int kRacksPerSu = 8;
  f.nodes_per_su = type.hosts_per_domain > 1 ? kRacksPerSu * type.hosts_per_domain : 32;
  // DGX SuperPOD reference architectures cable these on InfiniBand (Quantum HDR, NDR, XDR), and
  // NCCL turns adaptive routing on for every InfiniBand port (v2.25.1-1 net_ib.cc:631, "Enable
  // ADAPTIVE_ROUTING by default on IB networks"). HGX and PCIe servers ship on InfiniBand or on
  // RoCE, so their presets leave the default and the text says so.
  // Each rail's leaf needs a port on every spine, and a pod's spines send half their ports up, so
  // a rail fabric takes at most half a switch's ports in rails: a node with more NICs than that
  // stands behind chassis switches large enough.
  f.switch_radix =
      std::max(f.switch_radix, static_cast<int>(std::bit_ceil(2 * static_cast<unsigned>(std::max(type.nics, 1)))));
  for (const char* dgx : {"dgx-a100", "dgx-h100", "gb200-nvl72"})
    if (type.name == dgx)
      f.routing = {Routing::adaptive, type.name + " preset: a DGX SuperPOD's InfiniBand, adaptive routing on"};
  return f;
}

namespace {

// One host of `type` in NVLink domain `domain` (its NVSwitch `domain_nvswitch` where hosts share
// one), its first NIC appended to *first_nic.
int host_add(Cluster& c, const NodeType& type, const std::string& name, int site, int domain, VertexId domain_nvswitch,
             std::vector<VertexId>* first_nic) {
  Host h;
  h.name = name;
  h.site = site;
  h.node_type = type.name;
  h.cores_per_cpu = type.cores_per_cpu;
  h.nic_names = type.nic_names;
  h.scaleup_domain = domain;
  const int host = c.add_host(std::move(h));
  first_nic->push_back(node_type_build(type, c, host, domain, domain_nvswitch));
  return host;
}

// What host_add added for a host, to copy it (node_type_build gives every host of a type the same
// devices and local links in the same order: only names, host and NVLink domain differ).
struct HostBuilt {
  int host;
  VertexId devices_begin, devices_end;
  EdgeId edges_begin, edges_end;
  VertexId first_nic;
};

// Another host like `model`, named `name`, in an NVLink domain of its own. Building each host
// afresh (its names' strings, a Result per device and link) was half of building a
// 100,000-GPU cluster.
int host_copy(Cluster& c, const HostBuilt& model, const std::string& name, std::vector<VertexId>* first_nic) {
  Host h = c.hosts()[static_cast<size_t>(model.host)];
  const size_t prefix = h.name.size();
  h.name = name;
  h.scaleup_domain = c.add_domain(name);
  const int domain = h.scaleup_domain;
  const int host = c.add_host(std::move(h));
  const VertexId dv = static_cast<VertexId>(c.num_devices()) - model.devices_begin;
  for (VertexId v = model.devices_begin; v < model.devices_end; ++v) {
    Device d = c.device(v);
    d.name = name + d.name.substr(prefix);
    d.host = host;
    if (d.scaleup_domain >= 0) d.scaleup_domain = domain;
    c.add_device(std::move(d)).value();
  }
  for (EdgeId e = model.edges_begin; e < model.edges_end; e += 2) {
    const Link l = c.link(e);
    c.add_link(c.source(e) + dv, c.target(e) + dv, l.kind, l.bw_GBps, l.latency_us, l.length_km).value();
  }
  first_nic->push_back(model.first_nic == kNoVertex ? kNoVertex : model.first_nic + dv);
  return host;
}

}  // namespace

Result<std::vector<int>> rack_build(Cluster& c, const NodeType& type, const std::vector<std::string>& names, int site,
                                    const std::string& domain_name, std::vector<VertexId>* first_nic) {
  // Trays of one rack share its NVLink domain and a single NVSwitch vertex.
  const int domain = c.add_domain(domain_name);
  Device nvs;
  nvs.name = domain_name + "/nvswitch";
  nvs.kind = DeviceKind::nvswitch;
  nvs.site = site;
  nvs.scaleup_domain = domain;
  Result<VertexId> nvswitch = c.add_device(std::move(nvs));
  if (!nvswitch) return Error{"NVLink domain " + domain_name + ": " + nvswitch.error()};
  std::vector<int> hosts;
  for (const std::string& name : names) hosts.push_back(host_add(c, type, name, site, domain, *nvswitch, first_nic));
  return hosts;
}

std::vector<int> hosts_build(Cluster& c, const NodeType& type, const std::vector<std::string>& names, int site,
                             int first_index, int total, std::vector<VertexId>* first_nic) {
  std::vector<int> hosts;
  if (type.hosts_per_domain > 1) {
    const auto per_rack = static_cast<size_t>(type.hosts_per_domain);
    for (size_t i = 0; i < names.size(); i += per_rack) {
      const int index = first_index + static_cast<int>(i);
      const std::vector<std::string> trays(
          names.begin() + static_cast<std::ptrdiff_t>(i),
          names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), i + per_rack)));
      const std::string rack = "r" + host_name(index / type.hosts_per_domain, total).substr(1);
      // Rack names are made here, one per index: they cannot collide.
      const std::vector<int> built = rack_build(c, type, trays, site, rack, first_nic).value();
      hosts.insert(hosts.end(), built.begin(), built.end());
    }
    return hosts;
  }
  std::optional<HostBuilt> model;
  for (const std::string& name : names) {
    if (model) {
      hosts.push_back(host_copy(c, *model, name, first_nic));
      continue;
    }
    const auto devices = static_cast<VertexId>(c.num_devices());
    const auto edges = static_cast<EdgeId>(c.num_edges());
    hosts.push_back(host_add(c, type, name, site, c.add_domain(name), kNoVertex, first_nic));
    model = HostBuilt{
        hosts.back(),     devices, static_cast<VertexId>(c.num_devices()), edges, static_cast<EdgeId>(c.num_edges()),
        first_nic->back()};
  }
  return hosts;
}

Result<Cluster> cluster_build(const ClusterSpec& spec) {
  Result<FabricPlan> plan = fabric_plan(spec);
  RETURN_IF_ERROR(plan);
  Cluster c;
  c.name = spec.name;
  c.fabric_note = plan->note;
  c.routing = spec.fabric.routing;
  c.reserve(static_cast<size_t>(plan->devices), static_cast<size_t>(plan->links));
  std::vector<SiteSpec> sites = spec.sites;
  if (sites.empty()) sites.push_back({"site0", spec.nodes});
  const bool multi = sites.size() > 1;

  int next_host = 0;
  std::vector<std::vector<VertexId>> site_tops;
  std::vector<VertexId> first_nic;  // by host index
  first_nic.reserve(static_cast<size_t>(spec.nodes));
  for (const SiteSpec& site : sites) {
    int site_index = c.add_site(site.name);
    std::vector<std::string> names;
    for (int i = 0; i < site.nodes; ++i) names.push_back(host_name(next_host + i, spec.nodes));
    const std::vector<int> hosts = hosts_build(c, spec.node, names, site_index, next_host, spec.nodes, &first_nic);
    next_host += site.nodes;
    SiteFabric fabric(c, spec, *plan, first_nic, site_index, multi ? site.name + "/" : "");
    site_tops.push_back(fabric.build(hosts));
  }

  if (multi) {
    // Site routers sit above each site's top tier; router i of every site links to router i of
    // every other site, so each pair of sites has dci.links parallel links.
    const double dci_GBps = spec.dci.link_GBps;
    int tier = 0;
    for (VertexId v : site_tops[0]) tier = std::max<int>(tier, c.device(v).tier);
    std::vector<std::vector<VertexId>> routers(sites.size());
    for (size_t s = 0; s < sites.size(); ++s)
      for (int i = 0; i < spec.dci.links; ++i) {
        Device d;
        d.name = sites[s].name + "/dci" + std::to_string(i);
        d.kind = DeviceKind::site_router;
        d.site = static_cast<int>(s);
        d.tier = static_cast<int16_t>(tier + 1);
        VertexId r = c.add_device(std::move(d)).value();
        routers[s].push_back(r);
        // Each attachment can carry the router's whole DCI share, so the DCI link is the bottleneck.
        for (VertexId top : site_tops[s])
          c.add_link(top, r, LinkKind::NET, dci_GBps * static_cast<double>(sites.size() - 1), HopLatency::net_us)
              .value();
      }
    const double dci_latency_us = HopLatency::dci_base_us + spec.dci.length_km * kFibreUsPerKm;
    for (size_t a = 0; a < sites.size(); ++a)
      for (size_t b = a + 1; b < sites.size(); ++b)
        for (int i = 0; i < spec.dci.links; ++i)
          c.add_link(routers[a][i], routers[b][i], LinkKind::DCI, dci_GBps, dci_latency_us, spec.dci.length_km).value();
  }
  if (auto ok = c.finalize(); !ok) return Error{ok.error()};
  return c;
}

}  // namespace topoplan
