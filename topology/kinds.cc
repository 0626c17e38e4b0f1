#include "topology/kinds.h"

#include <array>

namespace topoplan {
namespace {

constexpr std::array<std::string_view, kDeviceKinds> kDeviceNames = {
    "gpu", "nvswitch", "pcie_switch", "cpu", "nic", "switch", "site_router"};
constexpr std::array<std::string_view, kLinkKinds> kLinkNames = {"NVL", "C2C", "PCI", "SYS", "NET", "DCI"};
constexpr std::array<std::string_view, kPathClasses> kPathNames = {
    "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DCI"};

template <typename Enum, size_t N>
std::optional<Enum> lookup(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<Enum>(i);
  return std::nullopt;
}

template <size_t N>
std::vector<std::string> all(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}

}  // namespace

std::string_view to_string(DeviceKind k) { return kDeviceNames[static_cast<size_t>(k)]; }
std::string_view to_string(LinkKind k) { return kLinkNames[static_cast<size_t>(k)]; }
std::string_view to_string(PathClass c) { return kPathNames[static_cast<size_t>(c)]; }

std::optional<DeviceKind> device_kind_from(std::string_view s) { return lookup<DeviceKind>(kDeviceNames, s); }
std::optional<LinkKind> link_kind_from(std::string_view s) { return lookup<LinkKind>(kLinkNames, s); }
std::optional<PathClass> path_class_from(std::string_view s) { return lookup<PathClass>(kPathNames, s); }

std::vector<std::string> device_kind_names() { return all(kDeviceNames); }
std::vector<std::string> link_kind_names() { return all(kLinkNames); }

}  // namespace topoplan
