// What a DOT drawing shows, before it is written: devices folded into drawn nodes (a host, the
// hosts of a leaf group, interchangeable switches) and the physical links between two drawn nodes
// folded into one bundle. Private to topology/formats/dot.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "topology/cluster.h"
#include "topology/formats/dot.h"

namespace topoplan {

// Past this many nodes on a rank, or edges from it down to the ranks already drawn, hosts fold
// into groups and a switch level into one node per site. Dot gives every edge label a slot of its
// own between the two ranks it joins, so a rank is as wide as its nodes or the labels below it; at
// 60-110 pt each plus 18 pt between, 16 keep it near 2000 pt, readable on a screen or an A3 page.
inline constexpr size_t kDotMaxRankWidth = 16;

inline constexpr uint32_t kNoDotNode = UINT32_MAX;

struct DotNode {
  std::string id;  // unique among the drawing's nodes
  std::vector<VertexId> devices;
  std::vector<int> hosts;  // hosts folded into it (collapse); empty for switches
  int host_box = -1;       // expand: the host whose box holds this device
  // Drawn top to bottom by level: fabric tier (leaf 1, spine 2 ...), 0 hosts, -1 the switches of a
  // rack-scale NVLink domain, which hang below the trays they join.
  int level = 0;
  int site = -1;
  DeviceKind kind = DeviceKind::gpu;
  double inside_utilization = 0;  // the busiest link between its own devices
  bool marked = false;            // holds a highlighted host
};

struct DotBundle {
  uint32_t upper = 0, lower = 0;  // node indexes; upper is drawn above (or first, on one rank)
  int links = 0;
  LinkKind kind = LinkKind::NET;  // of its first link
  double bw_GBps = 0;             // per link and direction; 0 when its links differ
  double total_bw_GBps = 0;       // per direction
  double length_km = 0;           // DCI
  double down = 0, up = 0;        // its busiest link's utilization, upper to lower and back
  bool highlighted = false;
};

struct DotGraph {
  std::vector<DotNode> nodes;
  std::vector<uint32_t> node_of;  // per device; kNoDotNode when not drawn
  std::vector<DotBundle> bundles;
};

// With a load, only loaded links and their devices are drawn.
DotGraph dot_graph_build(const Cluster& cluster, const DotLoad* load, DotHosts hosts);

}  // namespace topoplan
