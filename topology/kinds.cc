#include "topology/kinds.h"

#include <array>

#include "base/enum_names.h"

namespace topoplan {
namespace {

constexpr std::array<std::string_view, kDeviceKinds> kDeviceNames = {"gpu", "nvswitch", "pcie_switch", "cpu",
                                                                     "nic", "switch",   "site_router"};
constexpr std::array<std::string_view, kLinkKinds> kLinkNames = {"NVL", "C2C", "PCI", "SYS", "NET", "DCI"};
constexpr std::array<std::string_view, kPathClasses> kPathNames = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                                                   "PXN", "PHB", "SYS", "NET", "DCI"};
constexpr std::array<std::string_view, kRoutings> kRoutingNames = {"adaptive", "hash", "static"};

}  // namespace

std::string_view to_string(DeviceKind k) { return kDeviceNames[static_cast<size_t>(k)]; }
std::string_view to_string(LinkKind k) { return kLinkNames[static_cast<size_t>(k)]; }
std::string_view to_string(PathClass c) { return kPathNames[static_cast<size_t>(c)]; }
std::string_view to_string(Routing r) { return kRoutingNames[static_cast<size_t>(r)]; }

std::optional<DeviceKind> device_kind_from(std::string_view s) { return enum_from<DeviceKind>(kDeviceNames, s); }
std::optional<LinkKind> link_kind_from(std::string_view s) { return enum_from<LinkKind>(kLinkNames, s); }
std::optional<PathClass> path_class_from(std::string_view s) { return enum_from<PathClass>(kPathNames, s); }
std::optional<Routing> routing_from(std::string_view s) { return enum_from<Routing>(kRoutingNames, s); }

std::vector<std::string> device_kind_names() { return enum_names(kDeviceNames); }
std::vector<std::string> link_kind_names() { return enum_names(kLinkNames); }
std::vector<std::string> routing_names() { return enum_names(kRoutingNames); }

}  // namespace topoplan
