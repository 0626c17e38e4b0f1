#include "cost/calibration.h"

#include <nlohmann/json.hpp>

#include "topology/formats/json_fields.h"
#include "topology/limits.h"

namespace topoplan {
namespace {

Calibration make_default() {
  Calibration c;
  c.source = "topoplan defaults: nccl-tests results in ../shared/reference/measurements.json and the threads cited";
  auto set = [&c](LinkKind k, double e) { c.efficiency[static_cast<size_t>(k)] = e; };
  // NVLink: NCCL rings reach about 370 of NVLink4's 450 GB/s (sjeaugey, NVIDIA/nccl-tests#212;
  // 365-370 busbw for 2-8 H100s, NVIDIA/nccl#1455) and 235 of NVLink3's 300 GB/s on 8x A100
  // (stas00/ml-engineering network/README.md): 0.8 of line rate covers both within 3 %.
  set(LinkKind::NVL, 0.80);
  // NVLink-C2C is NVLink signalling between Grace and Blackwell: same efficiency until measured.
  set(LinkKind::C2C, 0.80);
  // PCIe: 128b/130b is already out of the link's rate; TLP headers on 256-byte payloads cost
  // about 10 % more. Unmeasured estimate, for `topoplan calibrate` to replace.
  set(LinkKind::PCI, 0.80);
  // Socket links are shared with memory traffic. Unmeasured estimate.
  set(LinkKind::SYS, 0.60);
  // A 400G NIC gives NCCL 46-49 GB/s of its 50 (NVIDIA/nccl-tests#267 and #290, maintainers);
  // 8x HDR reach 192 of 200 GB/s on DGX A100 rings (NVIDIA/nccl#812).
  set(LinkKind::NET, 0.95);
  // DCI links are NICs and optics of the same kind, plus distance.
  set(LinkKind::DCI, 0.95);
  // NVLS all_reduce reaches algbw ~270 GB/s on 8 H100 / H200 (busbw 473-479, measurements D1, D13)
  // where each GPU link carries 9/8 of the buffer each way: 307 GB/s of multimem traffic, 0.853 of
  // the 360 GB/s copies get on the same link.
  c.nvls_efficiency = 0.853;
  // Small all_reduce on one node is 30-45 us in nccl-tests (8x A100 32 KiB 43.8 us; 8x H100 1 MiB
  // 42 us) where NCCL's model says 15-30 us: launch and nccl-tests' per-iteration overhead.
  c.launch_us = 32;
  return c;
}

}  // namespace

const Calibration& calibration_default() {
  static const Calibration c = make_default();
  return c;
}

Result<Calibration> calibration_from_json(const nlohmann::json& doc, const std::string& where, const Calibration& base) {
  std::string error;
  Calibration c = base;
  Fields top(doc, "", {"source", "efficiency", "nvls_efficiency", "launch_us", "latency_us"}, &error);
  c.source = top.text("source", base.source);
  if (const nlohmann::json* eff = top.get("efficiency", false)) {
    Fields f(*eff, "efficiency", link_kind_names(), &error);
    for (const std::string& kind : link_kind_names()) {
      size_t k = static_cast<size_t>(*link_kind_from(kind));
      c.efficiency[k] = f.number(kind, base.efficiency[k], limits::kMinLinkEfficiency, true, 1);
    }
  }
  if (const nlohmann::json* lat = top.get("latency_us", false)) {
    Fields f(*lat, "latency_us", link_kind_names(), &error);
    for (const std::string& kind : link_kind_names()) {
      size_t k = static_cast<size_t>(*link_kind_from(kind));
      c.latency_us[k] = f.number(kind, base.latency_us[k], 0, true, limits::kMaxOverheadUs);
    }
  }
  c.nvls_efficiency = top.number("nvls_efficiency", base.nvls_efficiency, limits::kMinLinkEfficiency, true, 1);
  c.launch_us = top.number("launch_us", base.launch_us, 0, true, limits::kMaxOverheadUs);
  if (!error.empty()) return error_in(where, error);
  return c;
}

Result<Calibration> calibration_load(const std::string& path) {
  Result<nlohmann::json> doc = json_read_file(path);
  if (!doc) return Error{doc.error()};
  return calibration_from_json(*doc, path);
}

Result<Calibration> calibration_load_or_default(const std::string& path) {
  if (path.empty()) return calibration_default();
  return calibration_load(path);
}

nlohmann::json calibration_to_json(const Calibration& c) {
  nlohmann::json eff = nlohmann::json::object(), lat = nlohmann::json::object();
  for (const std::string& kind : link_kind_names()) {
    eff[kind] = c.efficiency[static_cast<size_t>(*link_kind_from(kind))];
    lat[kind] = c.latency_us[static_cast<size_t>(*link_kind_from(kind))];
  }
  return {{"source", c.source},
          {"efficiency", eff},
          {"nvls_efficiency", c.nvls_efficiency},
          {"launch_us", c.launch_us},
          {"latency_us", lat}};
}

}  // namespace topoplan
