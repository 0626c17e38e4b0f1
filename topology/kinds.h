// Device kinds, link kinds and path classes, each an ordered enum with a parallel string table
// (as NCCL's src/graph/topo.h does for its path types).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

enum class DeviceKind : uint8_t { gpu, nvswitch, pcie_switch, cpu, nic, switch_, site_router };
inline constexpr int kDeviceKinds = 7;

enum class LinkKind : uint8_t { NVL, C2C, PCI, SYS, NET, DCI };
inline constexpr int kLinkKinds = 6;

// Best to worst, NCCL / nvidia-smi spellings: a path's class is its worst hop.
enum class PathClass : uint8_t { LOC, NVL, NVB, C2C, PIX, PXB, PXN, PHB, SYS, NET, DCI };
inline constexpr int kPathClasses = 11;

// How a fabric's flows use their equal-cost paths (docs/cluster-format.md, "routing"): adaptive
// (InfiniBand adaptive routing: bytes split evenly), hash (RoCE ECMP: each connection on one path
// by a hash of its 5-tuple) or static (InfiniBand forwarding tables: one path per destination).
enum class Routing : uint8_t { adaptive, hash, static_ };
inline constexpr int kRoutings = 3;

std::string_view to_string(DeviceKind k);
std::string_view to_string(LinkKind k);
std::string_view to_string(PathClass c);
std::string_view to_string(Routing r);

std::optional<DeviceKind> device_kind_from(std::string_view s);
std::optional<LinkKind> link_kind_from(std::string_view s);
std::optional<PathClass> path_class_from(std::string_view s);
std::optional<Routing> routing_from(std::string_view s);

std::vector<std::string> device_kind_names();
std::vector<std::string> link_kind_names();
std::vector<std::string> routing_names();

// Fabric devices are routed up/down; everything else is inside a host or scale-up domain.
inline bool is_fabric(DeviceKind k) { return k == DeviceKind::switch_ || k == DeviceKind::site_router; }

}  // namespace topoplan
