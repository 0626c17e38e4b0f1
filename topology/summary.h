// What `topoplan topo show` reports about a cluster: counts, tiers, capacity, DCI links.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct TierSummary {
  int tier = 0;
  int switches = 0;
  double down_GBps = 0;  // capacity into this tier from below, one direction
  double up_GBps = 0;    // capacity from this tier to the one above, one direction
  // The uplinks as built: ports (links), their rate (0 when they differ) and the bundles of
  // parallel ports between one switch and one above it, fewest and most ports.
  int64_t up_ports = 0, up_bundles = 0;
  double up_port_GBps = 0;
  int64_t bundle_min_ports = 0, bundle_max_ports = 0;
};

// Hosts alike in CPUs: the model, NUMA nodes per host and the link between two of them.
struct CpuSummary {
  std::string model;  // "" where the node type gave none
  int per_host = 0;
  int hosts = 0;
  double socket_GBps = 0;     // the slowest link between two of a host's NUMA nodes; 0: none
  std::string socket_source;  // where that figure comes from; "" with one NUMA node
};

struct DciSummary {
  std::string site_a, site_b;
  int links = 0;
  double GBps = 0;  // one direction, all parallel links
  double length_km = 0;
};

struct ClusterSummary {
  std::string name;
  std::string fabric;  // Cluster::fabric_note
  FabricRouting routing;
  std::map<DeviceKind, int> devices;
  int hosts = 0, sites = 0, scaleup_domains = 0, rails = 0;
  int largest_domain_gpus = 0;
  double injection_GBps = 0;  // all NIC-to-leaf capacity, one direction
  std::vector<CpuSummary> cpus;
  std::vector<TierSummary> tiers;
  // Half the capacity of the thinnest tier boundary (or the DCI between sites): what crosses any
  // even split of the hosts when the fabric routes it evenly. None for one host: nothing to split.
  std::optional<double> bisection_GBps;
  std::vector<DciSummary> dci;
};

ClusterSummary cluster_summarize(const Cluster& cluster);
// {"mode": "hash", "source": "set by the cluster file"}; the source "default" when nothing named it.
nlohmann::json routing_json(const FabricRouting& routing);
nlohmann::json summary_to_json(const ClusterSummary& s);
std::string summary_to_text(const ClusterSummary& s);

// Aggregate one-direction DCI capacity between two sites, and their distance. Error names the site.
struct SiteLink {
  double GBps = 0;
  double length_km = 0;
  int links = 0;
};
Result<SiteLink> site_link(const Cluster& cluster, const std::string& from, const std::string& to);

// Hosts by index as a Slurm hostlist of their names, in the order given: "h[001-004,009]".
std::string hostlist_of(const Cluster& cluster, const std::vector<int>& hosts);
// Host indices by name, in order, for JSON and messages.
std::vector<std::string> host_names(const Cluster& cluster, const std::vector<int>& hosts);
inline const std::string& host_name(const Cluster& cluster, int host) {
  return cluster.hosts()[static_cast<size_t>(host)].name;
}
// The GPUs on these hosts, down or not.
int gpus_on(const Cluster& cluster, const std::vector<int>& hosts);

}  // namespace topoplan
