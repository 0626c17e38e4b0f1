// Graphviz export for looking at a cluster: `topoplan ... | dot -Tsvg > cluster.svg`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "topology/cluster.h"

namespace topoplan {

// collapse: a host is one node (name, GPUs), and once a rank would grow too wide to read, the hosts
// of a leaf group (or NVLink domain, pod, site) and interchangeable switches fold into one node.
// expand: every device, each host a box of its GPUs, NICs, CPUs and switches.
enum class DotHosts : uint8_t { collapse, expand };
std::string_view to_string(DotHosts h);
std::optional<DotHosts> dot_hosts_from(std::string_view s);
std::vector<std::string> dot_hosts_names();
// --dot-hosts: an unknown value is an error that lists the choices, as --format's is.
Result<DotHosts> dot_hosts_parse(const std::string& text);

// Fabric tiers ranked top to bottom (site routers, cores, spines, leaves, hosts), one box per site;
// the physical links between two drawn nodes are one edge labelled with their count and capacity
// per direction ("8 x 50 GB/s"), styled by kind.
std::string save_cluster_dot(const Cluster& cluster, DotHosts hosts = DotHosts::collapse);

// Link utilization to draw instead of capacities: per directed edge id, a share of time busy
// (0 = idle). Only loaded links and their endpoints are drawn, each edge coloured and sized by its
// busiest link, so the hot spots of a job stand out.
struct DotLoad {
  std::vector<double> utilization;  // indexed by EdgeId, size num_edges()
  std::string title;
  // What `explain` is about: edges holding any of these directed edges are drawn bold in blue, the
  // nodes holding these hosts are outlined in blue.
  std::vector<EdgeId> highlight_edges;
  std::vector<int> highlight_hosts;
  // `utilization` holds observed / predicted instead (observe --dot): labelled "x1.3", green near
  // 1 and red far above it; kDotBusyUnpredicted for a link busy where nothing was predicted.
  bool ratio = false;
};
inline constexpr double kDotBusyUnpredicted = 1e9;
std::string save_cluster_dot(const Cluster& cluster, const DotLoad& load, DotHosts hosts = DotHosts::collapse);

}  // namespace topoplan
