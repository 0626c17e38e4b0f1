// The cluster as a graph: devices are vertices, every full-duplex physical link is two directed
// edges (ids 2k and 2k+1) so load is always accounted per direction.
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/name_index.h"
#include "topology/kinds.h"

namespace topoplan {

using VertexId = uint32_t;
using EdgeId = uint32_t;
inline constexpr VertexId kNoVertex = UINT32_MAX;

struct Device {
  std::string name;  // stable: "h017/gpu3", "leaf12", "siteA/dci0"
  DeviceKind kind = DeviceKind::gpu;
  int32_t host = -1;            // index into Cluster::hosts()
  int32_t scaleup_domain = -1;  // index into Cluster::domains(); GPUs and NVSwitches
  int32_t site = -1;            // index into Cluster::sites()
  int16_t rail = -1;            // NICs on a rail-optimized fabric
  int16_t tier = 0;             // switches: leaf 1, spine 2, core 3; site routers above
  int16_t local_index = -1;     // GPU or NIC index within its host (cuda_ordinal order)
  std::string model;            // GPU model ("H100-SXM"), informational for other kinds
};

struct Link {
  EdgeId id = 0;
  LinkKind kind = LinkKind::NET;
  double bw_GBps = 0;     // GB/s (1e9 bytes/s) in this direction
  double latency_us = 0;  // one way, including propagation for DCI
  double length_km = 0;   // DCI only
};

struct Host {
  std::string name;
  int32_t site = -1;
  int32_t scaleup_domain = -1;
  std::string node_type;       // preset it was built from, "" for explicit graphs
  int cores_per_cpu = 0;       // cores per NUMA node, 0 unknown: what CPU binding divides among GPUs
  std::vector<VertexId> gpus;  // by local_index
  std::vector<VertexId> nics;  // by local_index
  std::vector<VertexId> cpus;  // NUMA nodes, in vertex order
  // Each NIC's RDMA device name as NCCL_IB_HCA takes it ("mlx5_0"), by position in `nics`; empty
  // when unknown (the device name "h001/nic0" is the model's, not the server's).
  std::vector<std::string> nic_names;
};

// A fabric's routing and who said so, for the text that states it: the cluster file, a preset's
// reason, or nobody (then adaptive is the default, and the text says so).
struct FabricRouting {
  Routing mode = Routing::adaptive;
  std::string source;  // "" = the default
};

// Propagation in fibre, about 2/3 c: 4.9 us per km (ITU-T G.652 group index ~1.468).
inline constexpr double kFibreUsPerKm = 4.9;

struct Locality;  // topology/locality.h

class Cluster {
 public:
  // The graph's adjacency, built by finalize from the links in id order: each vertex's out-edges
  // are contiguous (compressed sparse rows), each edge's bundle its id, so out_edges is a span.
  // Devices and links live in arrays by vertex and edge id beside it.
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeId, boost::no_property,
                                                   VertexId, uint32_t>;

  std::string name;
  // How the fabric was built and why, for `topo show` ("rail-optimized, 3 tiers: pods of ...");
  // empty for explicit graphs.
  std::string fabric_note;
  FabricRouting routing;

  // Building. Names must be unique; links need a positive bandwidth.
  int add_site(const std::string& site_name);
  int add_domain(const std::string& domain_name);
  int add_host(Host host);
  Result<VertexId> add_device(Device device);
  // Adds a -> b (returned id, even) and b -> a (id + 1) with the same properties.
  Result<EdgeId> add_link(VertexId a, VertexId b, LinkKind kind, double bw_GBps, double latency_us,
                          double length_km = 0);
  // Room for this many devices and physical links, so building a large cluster does not move
  // every device and link each time a vector grows.
  void reserve(size_t devices, size_t links);
  // Indexes edges, orders GPUs host-major, checks every GPU reaches every other, and finds where
  // each host sits (locality_of). Call once built.
  Result<void> finalize();

  // Reading (after finalize).
  size_t num_devices() const { return devices_.size(); }
  size_t num_edges() const { return edge_src_.size(); }
  const Device& device(VertexId v) const { return devices_[v]; }
  const Link& link(EdgeId e) const { return links_[e]; }
  VertexId source(EdgeId e) const { return edge_src_[e]; }
  VertexId target(EdgeId e) const { return edge_dst_[e]; }
  static EdgeId reverse(EdgeId e) { return e ^ 1u; }
  std::span<const EdgeId> out_edges(VertexId v) const {
    const std::vector<uint32_t>& row = g_.m_forward.m_rowstart;
    if (row[v] == row[v + 1]) return {};
    return {&g_[Graph::edge_descriptor(v, row[v])], row[v + 1] - row[v]};
  }
  std::optional<VertexId> find(const std::string& device_name) const;
  // "leaf0 -> spine3" style label of a directed edge.
  std::string edge_name(EdgeId e) const;

  const std::vector<Host>& hosts() const { return hosts_; }
  const std::vector<std::string>& sites() const { return sites_; }
  const std::vector<std::string>& domains() const { return domains_; }
  // All GPUs, host-major then local_index: the global GPU index used on the command line.
  const std::vector<VertexId>& gpus() const { return gpus_; }
  // GPUs per host when every host has the same count, else 0.
  int gpus_per_host() const { return gpus_per_host_; }
  std::optional<int> host_index(const std::string& host_name) const;
  // A NIC's RDMA device name from its host's nic_names ("mlx5_0"), "" when the cluster does not know it.
  std::string_view hca_name(VertexId nic) const;
  // The hosts of these devices, in order of first appearance.
  std::vector<int> hosts_of(std::span<const VertexId> devices) const;
  const Graph& graph() const { return g_; }

 private:
  std::vector<Device> devices_;
  Graph g_;
  // Per edge id.
  std::vector<Link> links_;
  std::vector<VertexId> edge_src_, edge_dst_;
  NameIndex by_name_, host_by_name_;  // of devices_, of hosts_
  std::string_view device_name(uint32_t v) const { return devices_[v].name; }
  std::string_view host_name(uint32_t h) const { return hosts_[h].name; }
  std::vector<Host> hosts_;
  std::vector<std::string> sites_, domains_;
  std::vector<VertexId> gpus_;
  int gpus_per_host_ = 0;
  // Derived once by finalize: a score asks for it several times, each a pass over every device.
  std::shared_ptr<const Locality> locality_;
  friend const Locality& locality_of(const Cluster& cluster);
};

}  // namespace topoplan
