#include "topology/fabric.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace topoplan {
namespace {

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

std::string host_name(int index, int total) {
  int width = std::max<int>(3, static_cast<int>(std::to_string(total).size()));
  std::string n = std::to_string(index + 1);
  return "h" + std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(n.size()))), '0') + n;
}

Result<bool> spec_check(const ClusterSpec& s) {
  const FabricSpec& f = s.fabric;
  auto bad = [](const std::string& field, const std::string& what) { return Error{field + ": " + what}; };
  if (s.nodes <= 0) return bad("nodes", "expected a positive number of nodes");
  if (s.node.hosts_per_domain > 1 && s.nodes % s.node.hosts_per_domain != 0)
    return bad("nodes", s.node.name + " is built in racks of " + std::to_string(s.node.hosts_per_domain) +
                            " trays; " + std::to_string(s.nodes) + " is not a multiple");
  if (f.nodes_per_su <= 0) return bad("fabric.nodes_per_su", "expected a positive integer");
  if (f.nodes_per_pod < 0) return bad("fabric.nodes_per_pod", "expected 0 (no core tier) or a positive integer");
  if (f.nodes_per_pod > 0 && f.nodes_per_pod % f.nodes_per_su != 0)
    return bad("fabric.nodes_per_pod", "must be a multiple of nodes_per_su (" + std::to_string(f.nodes_per_su) + ")");
  if (!(f.leaf_oversubscription >= 1)) return bad("fabric.leaf_oversubscription", "expected a ratio >= 1");
  if (!(f.pod_oversubscription >= 1)) return bad("fabric.pod_oversubscription", "expected a ratio >= 1");
  if (f.planes < 1 || f.planes > 8) return bad("fabric.planes", "expected 1 to 8");
  if (f.switch_radix < 4) return bad("fabric.switch_radix", "expected at least 4 ports");
  if (f.spines_per_pod < 0) return bad("fabric.spines_per_pod", "expected 0 (derived) or a positive integer");
  if (f.cores < 0) return bad("fabric.cores", "expected 0 (derived) or a positive integer");
  if (!s.sites.empty()) {
    long long sum = 0;
    std::set<std::string> names;
    for (size_t i = 0; i < s.sites.size(); ++i) {
      std::string field = "sites[" + std::to_string(i) + "]";
      if (s.sites[i].name.empty()) return bad(field + ".name", "expected a non-empty name");
      if (!names.insert(s.sites[i].name).second) return bad(field + ".name", "duplicate site '" + s.sites[i].name + "'");
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
  if (s.dci.links > 0 && !(s.dci.link_gbps > 0)) return bad("dci.link_rate", "expected a positive rate");
  if (!(s.dci.length_km >= 0)) return bad("dci.length_km", "expected a distance >= 0");
  return true;
}

// Builds one site's switches above its hosts; returns the site's top-tier switches.
class SiteFabric {
 public:
  SiteFabric(Cluster& c, const ClusterSpec& s, int site, std::string prefix)
      : c_(c), s_(s), f_(s.fabric), site_(site), prefix_(std::move(prefix)) {}

  std::vector<VertexId> build(const std::vector<int>& hosts) {
    const int pod_size = f_.nodes_per_pod > 0 ? f_.nodes_per_pod : static_cast<int>(hosts.size());
    const bool cores = f_.nodes_per_pod > 0;
    const double port_GBps = s_.node.nic_gbps / 8 / f_.planes;
    const int rails = f_.kind == FabricKind::rail ? s_.node.nics : 1;
    // Leaves are provisioned for a full scalable unit, even where the last one is partly filled.
    const int leaf_down_ports = f_.kind == FabricKind::rail ? f_.nodes_per_su : f_.nodes_per_su * s_.node.nics;
    const int leaf_up_ports = std::max(1, static_cast<int>(std::ceil(leaf_down_ports / f_.leaf_oversubscription)));
    const double leaf_up_GBps = leaf_down_ports * port_GBps / f_.leaf_oversubscription;
    const int spine_down_ports =
        cores ? static_cast<int>(f_.switch_radix * f_.pod_oversubscription / (f_.pod_oversubscription + 1))
              : f_.switch_radix;
    const int spine_up_ports = std::max(1, f_.switch_radix - spine_down_ports);

    std::vector<std::vector<VertexId>> pod_spines;  // [pod * planes + plane]
    std::vector<double> pod_spine_down_GBps;
    for (size_t first = 0; first < hosts.size(); first += pod_size) {
      size_t last = std::min(hosts.size(), first + pod_size);
      int sus = ceil_div(static_cast<long long>(last - first), f_.nodes_per_su);
      int leaves_per_plane = sus * rails;
      for (int plane = 0; plane < f_.planes; ++plane) {
        std::vector<VertexId> leaves;
        for (int su = 0; su < sus; ++su)
          for (int rail = 0; rail < rails; ++rail) {
            VertexId leaf = add_switch("leaf", 1, f_.kind == FabricKind::rail ? rail : -1);
            leaves.push_back(leaf);
            size_t su_first = first + static_cast<size_t>(su) * f_.nodes_per_su;
            size_t su_last = std::min(last, su_first + f_.nodes_per_su);
            for (size_t h = su_first; h < su_last; ++h)
              for (int n = 0; n < s_.node.nics; ++n)
                if (f_.kind == FabricKind::tor || n == rail)
                  c_.add_link(nic_of(hosts[h], n), leaf, LinkKind::NET, port_GBps, HopLatency::net_us).value();
          }
        bool need_spines = cores || leaves_per_plane > 1 || f_.spines_per_pod > 0;
        if (!need_spines) {
          top_.insert(top_.end(), leaves.begin(), leaves.end());
          continue;
        }
        int spines = f_.spines_per_pod > 0 ? f_.spines_per_pod
                                            : std::max(1, ceil_div(static_cast<long long>(leaves_per_plane) * leaf_up_ports,
                                                                   spine_down_ports));
        std::vector<VertexId> sp;
        for (int i = 0; i < spines; ++i) sp.push_back(add_switch("spine", 2, -1));
        for (VertexId leaf : leaves)
          for (VertexId spine : sp)
            c_.add_link(leaf, spine, LinkKind::NET, leaf_up_GBps / spines, HopLatency::net_us).value();
        pod_spines.push_back(sp);
        pod_spine_down_GBps.push_back(leaves_per_plane * leaf_up_GBps / spines);
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
      for (size_t p = plane; p < pod_spines.size(); p += f_.planes, ++pods) positions = std::max(positions, pod_spines[p].size());
      int per_group = f_.cores > 0 ? ceil_div(f_.cores, static_cast<long long>(positions))
                                   : std::max(1, ceil_div(static_cast<long long>(pods) * spine_up_ports, f_.switch_radix));
      for (size_t i = 0; i < positions; ++i) {
        std::vector<VertexId> group;
        for (int k = 0; k < per_group; ++k) group.push_back(add_switch("core", 3, -1));
        for (size_t p = plane; p < pod_spines.size(); p += f_.planes) {
          if (i >= pod_spines[p].size()) continue;
          for (VertexId core : group)
            c_.add_link(pod_spines[p][i], core, LinkKind::NET, pod_spine_down_GBps[p] / f_.pod_oversubscription / per_group,
                        HopLatency::net_us).value();
        }
        top_.insert(top_.end(), group.begin(), group.end());
      }
    }
    return top_;
  }

 private:
  // Hosts' NIC lists are filled by finalize; until then NICs are found by name.
  VertexId nic_of(int host, int n) { return *c_.find(c_.hosts()[host].name + "/nic" + std::to_string(n)); }

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
  int site_;
  std::string prefix_;
  std::map<std::string, int> counters_;
  std::vector<VertexId> top_;
};

}  // namespace

FabricSpec fabric_default(const NodeType& type) {
  FabricSpec f;
  // An NVL72 rack's 18 trays form one scalable unit; DGX SuperPOD SUs are 32 nodes.
  f.nodes_per_su = type.hosts_per_domain > 1 ? type.hosts_per_domain : 32;
  return f;
}

Result<Cluster> cluster_build(const ClusterSpec& spec) {
  if (auto ok = spec_check(spec); !ok) return Error{ok.error()};
  Cluster c;
  c.name = spec.name;
  std::vector<SiteSpec> sites = spec.sites;
  if (sites.empty()) sites.push_back({"site0", spec.nodes});
  const bool multi = sites.size() > 1;

  int next_host = 0;
  std::vector<std::vector<VertexId>> site_tops;
  for (const SiteSpec& site : sites) {
    int site_index = c.add_site(site.name);
    std::vector<int> hosts;
    int domain = -1;
    VertexId rack_nvswitch = kNoVertex;
    for (int i = 0; i < site.nodes; ++i, ++next_host) {
      Host h;
      h.name = host_name(next_host, spec.nodes);
      h.site = site_index;
      h.node_type = spec.node.name;
      if (spec.node.hosts_per_domain > 1) {
        // Trays of one rack share its NVLink domain and a single NVSwitch vertex.
        if (next_host % spec.node.hosts_per_domain == 0) {
          std::string rack = "r" + host_name(next_host / spec.node.hosts_per_domain, spec.nodes).substr(1);
          domain = c.add_domain(rack);
          Device nvs;
          nvs.name = rack + "/nvswitch";
          nvs.kind = DeviceKind::nvswitch;
          nvs.site = site_index;
          nvs.scaleup_domain = domain;
          rack_nvswitch = c.add_device(std::move(nvs)).value();
        }
      } else {
        domain = c.add_domain(h.name);
        rack_nvswitch = kNoVertex;
      }
      h.scaleup_domain = domain;
      int host = c.add_host(std::move(h));
      node_type_build(spec.node, c, host, domain, rack_nvswitch);
      hosts.push_back(host);
    }
    SiteFabric fabric(c, spec, site_index, multi ? site.name + "/" : "");
    site_tops.push_back(fabric.build(hosts));
  }

  if (multi) {
    // Site routers sit above each site's top tier; router i of every site links to router i of
    // every other site, so each pair of sites has dci.links parallel links.
    const double dci_GBps = spec.dci.link_gbps / 8;
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
          c.add_link(top, r, LinkKind::NET, dci_GBps * static_cast<double>(sites.size() - 1), HopLatency::net_us).value();
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
