#include "topology/cluster.h"

#include <algorithm>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/transform_iterator.hpp>
#include <utility>

#include "base/limits.h"
#include "base/union_find.h"
#include "base/units.h"
#include "topology/locality.h"

namespace topoplan {

int Cluster::add_site(const std::string& site_name) {
  sites_.push_back(site_name);
  return static_cast<int>(sites_.size() - 1);
}

int Cluster::add_domain(const std::string& domain_name) {
  domains_.push_back(domain_name);
  return static_cast<int>(domains_.size() - 1);
}

int Cluster::add_host(Host host) {
  int index = static_cast<int>(hosts_.size());
  // A repeated name keeps its first host, as host_index finds it.
  host_by_name_.insert(host.name, static_cast<uint32_t>(index), [this](uint32_t h) { return host_name(h); });
  hosts_.push_back(std::move(host));
  return index;
}

Result<VertexId> Cluster::add_device(Device device) {
  if (device.name.empty()) return Error{"device with an empty name"};
  if (by_name_.insert(device.name, static_cast<VertexId>(num_devices()), [this](uint32_t v) { return device_name(v); }))
    return Error{"duplicate device name '" + device.name + "'"};
  devices_.push_back(std::move(device));
  return static_cast<VertexId>(devices_.size() - 1);
}

Result<EdgeId> Cluster::add_link(VertexId a, VertexId b, LinkKind kind, double bw_GBps, double latency_us,
                                 double length_km) {
  if (a >= num_devices() || b >= num_devices()) return Error{"link to a device that does not exist"};
  if (a == b) return Error{"link from '" + devices_[a].name + "' to itself"};
  if (!(bw_GBps > 0)) return Error{"link " + devices_[a].name + " - " + devices_[b].name + ": bw_GBps must be > 0"};
  if (!(latency_us >= 0))
    return Error{"link " + devices_[a].name + " - " + devices_[b].name + ": latency_us must be >= 0"};
  if (!(length_km >= 0))
    return Error{"link " + devices_[a].name + " - " + devices_[b].name + ": length_km must be >= 0"};
  EdgeId id = static_cast<EdgeId>(edge_src_.size());
  Link l{id, kind, bw_GBps, latency_us, length_km};
  links_.push_back(l);
  l.id = id + 1;
  links_.push_back(l);
  edge_src_.push_back(a);  // push_back, not a range insert: a hundred thousand links per cluster
  edge_src_.push_back(b);
  edge_dst_.push_back(b);
  edge_dst_.push_back(a);
  return id;
}

void Cluster::reserve(size_t devices, size_t links) {
  devices_.reserve(devices);
  by_name_.reserve(devices);
  links_.reserve(2 * links);
  edge_src_.reserve(2 * links);
  edge_dst_.reserve(2 * links);
}

Result<void> Cluster::finalize() {
  size_t n = num_devices();
  // Rows in edge id order: a vertex's out-edges in the order they were added, as before the
  // graph was compressed.
  struct Ends {
    const Cluster* c;
    std::pair<VertexId, VertexId> operator()(EdgeId e) const { return {c->edge_src_[e], c->edge_dst_[e]}; }
  };
  const boost::counting_iterator<EdgeId> first(0), last(static_cast<EdgeId>(edge_src_.size()));
  g_ = Graph(boost::edges_are_unsorted_multi_pass, boost::make_transform_iterator(first, Ends{this}),
             boost::make_transform_iterator(last, Ends{this}), first, n);

  for (auto& h : hosts_) {
    h.gpus.clear();
    h.nics.clear();
    h.cpus.clear();
  }
  for (VertexId v = 0; v < n; ++v) {
    const Device& d = devices_[v];
    if (d.kind == DeviceKind::cpu && d.host >= 0 && d.host < static_cast<int>(hosts_.size()))
      hosts_[d.host].cpus.push_back(v);
    if (d.kind != DeviceKind::gpu && d.kind != DeviceKind::nic) continue;
    if (d.host < 0 || d.host >= static_cast<int>(hosts_.size()))
      return Error{"device '" + d.name + "' (" + std::string(to_string(d.kind)) + ") has no host"};
    (d.kind == DeviceKind::gpu ? hosts_[d.host].gpus : hosts_[d.host].nics).push_back(v);
  }
  gpus_.clear();
  gpus_per_host_ = hosts_.empty() ? 0 : static_cast<int>(hosts_[0].gpus.size());
  for (auto& h : hosts_) {
    auto by_local = [this](VertexId x, VertexId y) { return devices_[x].local_index < devices_[y].local_index; };
    std::stable_sort(h.gpus.begin(), h.gpus.end(), by_local);
    std::stable_sort(h.nics.begin(), h.nics.end(), by_local);
    gpus_.insert(gpus_.end(), h.gpus.begin(), h.gpus.end());
    if (static_cast<int>(h.gpus.size()) != gpus_per_host_) gpus_per_host_ = 0;
    if (!h.nic_names.empty() && h.nic_names.size() != h.nics.size())
      return Error{"host '" + h.name + "' names " + std::to_string(h.nic_names.size()) + " NICs in nic_names, it has " +
                   std::to_string(h.nics.size())};
  }
  if (gpus_.empty()) return Error{"the cluster has no GPU"};
  if (gpus_.size() > static_cast<size_t>(limits::kMaxGpus))
    return Error{"the cluster has " + format_count(static_cast<int64_t>(gpus_.size())) +
                 " GPUs, more than the limit of " + format_count(limits::kMaxGpus)};

  // Links are symmetric, so components of the directed graph's edges are the undirected ones;
  // union-find over the edge arrays needs no second graph (which cost more than the first).
  UnionFind components(n);
  for (EdgeId e = 0; e < edge_src_.size(); e += 2) components.join(edge_src_[e], edge_dst_[e]);
  for (VertexId gpu : gpus_)
    if (components.find(gpu) != components.find(gpus_[0]))
      return Error{"GPU '" + devices_[gpu].name + "' has no path to '" + devices_[gpus_[0]].name + "'"};
  locality_ = std::make_shared<const Locality>(locality_derive(*this));
  return {};
}

std::optional<VertexId> Cluster::find(const std::string& device_name) const {
  return by_name_.find(device_name, [this](uint32_t v) { return this->device_name(v); });
}

std::vector<int> Cluster::hosts_of(std::span<const VertexId> devices) const {
  // A group's few devices: a look through the hosts found so far. A layout's (100,000 GPUs on
  // 12,500 hosts): one pass with a mark per host.
  std::vector<int> out;
  if (devices.size() <= 64) {
    for (VertexId v : devices)
      if (std::find(out.begin(), out.end(), device(v).host) == out.end()) out.push_back(device(v).host);
    return out;
  }
  std::vector<char> seen(hosts_.size(), 0);
  bool outside = false;  // a device in no host (-1), listed once like a host
  for (VertexId v : devices) {
    const int h = device(v).host;
    if (h < 0 ? !std::exchange(outside, true) : !seen[static_cast<size_t>(h)]++) out.push_back(h);
  }
  return out;
}

std::string_view Cluster::hca_name(VertexId nic) const {
  const Device& d = devices_[nic];
  if (d.kind != DeviceKind::nic || d.host < 0) return {};
  const Host& h = hosts_[static_cast<size_t>(d.host)];
  if (h.nic_names.empty()) return {};
  auto at = std::find(h.nics.begin(), h.nics.end(), nic);
  return at == h.nics.end() ? std::string_view()
                            : std::string_view(h.nic_names[static_cast<size_t>(at - h.nics.begin())]);
}

std::optional<int> Cluster::host_index(const std::string& host_name) const {
  const std::optional<uint32_t> at = host_by_name_.find(host_name, [this](uint32_t h) { return this->host_name(h); });
  if (!at) return std::nullopt;
  return static_cast<int>(*at);
}

std::string Cluster::edge_name(EdgeId e) const { return devices_[source(e)].name + " -> " + devices_[target(e)].name; }

}  // namespace topoplan
