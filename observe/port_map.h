// Which link of the cluster a port counter measures. A counter is kept on one end of a physical
// link: its transmit counter is the direction leaving that device, its receive counter the one
// arriving. Ports are named as the cluster names them or through a mapping file when the names
// the counters carry (a LID, a Prometheus instance and device) are not the graph's.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// A device's network ports, numbered from 1 in the order its NET and DCI links were built: what
// "leaf3:5" names. GPUs, NVSwitches and PCIe have none.
std::vector<EdgeId> network_ports(const Cluster& cluster, VertexId device);

struct PortLink {
  EdgeId tx = 0;     // out of the counter's device; its reverse is what the port receives
  std::string name;  // "leaf3:5 (leaf3 -> spine1)"
};

// Counter key -> port, from a CSV file with the header `counter,port`; a port is written as
// port_find reads it. Errors name the file, line and what was expected.
using PortMapping = std::unordered_map<std::string, std::string>;
Result<PortMapping> port_mapping_load(const std::string& path, const Cluster& cluster);

// The link a counter key names: through `mapping` when it has the key, else the key itself as
//  - "a -> b": the one link from a to b (parallel links need a port number),
//  - "device:N": the device's Nth network port,
//  - "device", "host device" or "host device N" (Prometheus instance, device, port) where
//    "device" or "host/device" is a device of the cluster with one network port (a NIC).
// An error says why the key names no link, or that it names several.
Result<PortLink> port_find(const Cluster& cluster, const std::string& key, const PortMapping* mapping);

}  // namespace topoplan
