#include "cost/calibration.h"

#include <nlohmann/json.hpp>

#include "base/enum_names.h"
#include "base/json_fields.h"
#include "base/limits.h"
#include "cost/comm_group.h"

namespace topoplan {
namespace {

Calibration make_default() {
  Calibration c;
  c.source = "topoplan defaults: nccl-tests results in ../shared/reference/measurements.json and the threads cited";
  auto set = [&c](LinkKind k, double e) { c.efficiency[static_cast<size_t>(k)] = e; };
  // NVLink copies, per GPU generation, from what NCCL's rings reach on one node (busbw = each
  // GPU's NVLink rate for a ring), each from a published figure that is not a test row:
  // - Hopper: "about 370 GB/s" of NVLink4's 450 (sjeaugey, NVIDIA/nccl-tests#212; 365-370 busbw
  //   for 2-8 H100s, NVIDIA/nccl#1455): 0.822.
  // - Blackwell: 8 B200 with NVLS disabled, 682.2 GB/s busbw of NVLink5's 900 (stas00/ml-
  //   engineering network/README.md L941, NCCL 2.27.7): 0.758.
  // - Ampere and Volta: 0.80, set when 8 A100 reached 235 of NVLink3's 300 GB/s, which is test row
  //   D14's figure; a separate published A100 figure is still to find.
  auto nvl = [&c](GpuArch a, double e) { c.nvl_efficiency[static_cast<size_t>(a)] = e; };
  nvl(GpuArch::volta, 0.80);
  nvl(GpuArch::ampere, 0.80);
  nvl(GpuArch::hopper, 0.822);
  nvl(GpuArch::blackwell, 0.758);
  // NVLink between switches (no GPU end): Hopper's until measured.
  set(LinkKind::NVL, 0.822);
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
  // NVLS all_reduce on p GPUs moves busbw * p / (2(p-1)) * (1 + 1/H) per GPU link each way; set
  // against what copies get from the same link (line rate x the NVLink efficiency above), each from
  // a published figure that is not a test row:
  // - Hopper: 8 H100, "each single node with 8 pairs still get 480 GB/s" (NVIDIA/nccl-tests#309):
  //   274.3 x 9/8 = 308.6 of 369.9 GB/s = 0.834.
  // - Blackwell: 8 B200, "Ours is 830+" (NVIDIA/nccl#1807, NCCL 2.27.1): 474.3 x 9/8 = 533.6 of
  //   682.2 GB/s = 0.782.
  // - Blackwell MNNVL: a GB200 NVL72 rack, 72 GPUs and 32 heads, "850/680" NVLS against ring (NVIDIA
  //   GTC25 S72583, quoted in stas00/ml-engineering network/README.md): 431.0 x 33/32 = 444.5 of
  //   682.2 GB/s = 0.652. A reduction spanning 72 GPUs over the rack's NVLink cables completes slower
  //   than one on a baseboard.
  // - Hopper MNNVL (GH200 NVL32): no published figure; Hopper's until measured.
  auto nvls = [&c](NvlsDomain d, double e) { c.nvls_efficiency[static_cast<size_t>(d)] = e; };
  nvls(NvlsDomain::hopper, 0.834);
  nvls(NvlsDomain::blackwell, 0.782);
  nvls(NvlsDomain::hopper_mnnvl, 0.834);
  nvls(NvlsDomain::blackwell_mnnvl, 0.652);
  // No launch cost shows beside NCCL's own latency in nccl-tests, which enqueues its iterations
  // back to back on one stream: 8 H20 (NVSwitch) all_reduce 4-16 B in 12.49-12.52 us
  // (deepseek-ai/DeepEP#303), where NCCL's ring LL latency alone is 6.6 + 14 x 0.6 = 15.0 us.
  // Systems with a slower host path (a process driving several GPUs, older drivers) show more:
  // `topoplan calibrate` fits it from their own runs.
  c.launch_us = 0;
  // Compute: the share of the kernels' own rates a training step sustains, per generation, each
  // the median of what `calibrate --training-log` fits from published runs' step times
  // (tests/planner/test_steptime.cc refits them and fails when these drift from it). Its physical
  // causes: SM clocks held below the peak's by the power cap under dense GEMMs, launch gaps
  // between a layer's kernels, Transformer Engine's and the framework's own work.
  // - Hopper: the 21 H100 rows of ../shared/reference/steptime.json that state their layout
  //   (NeMo 24.07's and Megatron Bridge's published performance tables): 0.711, rows from 0.60
  //   (Nemotron 8B and 22B) to 0.87 (GPT-3 175B on 512 GPUs), two small-expert MoE runs below.
  // - Ampere: Korthikanti et al.'s 8 DGX A100 runs, 22B to 1T (tests/planner/steptime_a100.json):
  //   0.818, rows from 0.76 to 0.93.
  // - Volta and Blackwell: no published runs with their layouts here; Ampere's and Hopper's.
  auto compute = [&c](GpuArch a, double e) { c.compute_efficiency[static_cast<size_t>(a)] = e; };
  compute(GpuArch::volta, 0.818);
  compute(GpuArch::ampere, 0.818);
  compute(GpuArch::hopper, 0.711);
  compute(GpuArch::blackwell, 0.711);
  return c;
}

constexpr std::array<std::string_view, kNvlsDomains> kNvlsDomainNames = {"hopper", "blackwell", "hopper_mnnvl",
                                                                         "blackwell_mnnvl"};

// An efficiency per generation or per domain, from the overlay key: one number for all, or an
// object naming some of `names` (the others from `base`).
template <size_t N>
void read_efficiencies(Fields& top, const std::string& key, const std::vector<std::string>& names,
                       const std::array<double, N>& base, std::array<double, N>& out, std::string& error) {
  const nlohmann::json* value = top.get(key, false);
  if (!value) return;
  if (value->is_number()) {
    out.fill(top.number(key, 1, limits::kMinLinkEfficiency, true, 1));
  } else if (!value->is_object()) {
    std::string expected;
    for (const std::string& n : names) expected += (expected.empty() ? "" : ", ") + n;
    if (error.empty()) error = key + ": expected a number or an object of " + expected + ", got " + value->dump();
  } else {
    Fields f(*value, key, names, &error);
    for (size_t i = 0; i < N; ++i) out[i] = f.number(names[i], base[i], limits::kMinLinkEfficiency, true, 1);
  }
}

template <size_t N>
nlohmann::json efficiencies_json(const std::vector<std::string>& names, const std::array<double, N>& values) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < N; ++i) out[names[i]] = values[i];
  return out;
}

}  // namespace

std::string_view to_string(NvlsDomain d) { return kNvlsDomainNames[static_cast<size_t>(d)]; }

VertexId gpu_end(const Cluster& c, EdgeId e) {
  if (c.device(c.source(e)).kind == DeviceKind::gpu) return c.source(e);
  if (c.device(c.target(e)).kind == DeviceKind::gpu) return c.target(e);
  return kNoVertex;
}

GpuArch gpu_arch_of(const Cluster& c, VertexId gpu) {
  return gpu_arch_from_compute_capability(gpu_compute_capability(c.device(gpu).model));
}

NvlsDomain nvls_domain_of(const Cluster& c, EdgeId gpu_nvswitch) {
  const VertexId gpu = gpu_end(c, gpu_nvswitch);
  const VertexId nvswitch = c.source(gpu_nvswitch) == gpu ? c.target(gpu_nvswitch) : c.source(gpu_nvswitch);
  bool mnnvl = false;
  for (EdgeId e : c.out_edges(nvswitch)) {
    const Device& d = c.device(c.target(e));
    mnnvl = mnnvl || (d.kind == DeviceKind::gpu && d.host != c.device(gpu).host);
  }
  const bool blackwell = gpu_arch_of(c, gpu) == GpuArch::blackwell;
  if (mnnvl) return blackwell ? NvlsDomain::blackwell_mnnvl : NvlsDomain::hopper_mnnvl;
  return blackwell ? NvlsDomain::blackwell : NvlsDomain::hopper;
}

Calibration::Slot Calibration::copy_slot(const Cluster& c, EdgeId e) {
  const Link& l = c.link(e);
  if (l.kind == LinkKind::NVL)
    if (VertexId gpu = gpu_end(c, e); gpu != kNoVertex) return {true, static_cast<size_t>(gpu_arch_of(c, gpu))};
  return {false, static_cast<size_t>(l.kind)};
}

double Calibration::copy_efficiency(const Cluster& c, EdgeId e) const {
  const Slot slot = copy_slot(c, e);
  return slot.nvl ? nvl_efficiency[slot.index] : efficiency[slot.index];
}

std::string Calibration::key(Slot slot) {
  return slot.nvl ? "nvl_efficiency." + std::string(to_string(static_cast<GpuArch>(slot.index)))
                  : "efficiency." + std::string(to_string(static_cast<LinkKind>(slot.index)));
}

double Calibration::multimem_efficiency(const Cluster& c, EdgeId e) const {
  if (gpu_end(c, e) == kNoVertex) return copy_efficiency(c, e);
  return copy_efficiency(c, e) * nvls_efficiency[static_cast<size_t>(nvls_domain_of(c, e))];
}

const Calibration& calibration_default() {
  static const Calibration c = make_default();
  return c;
}

Result<Calibration> calibration_from_json(const nlohmann::json& doc, const std::string& where,
                                          const Calibration& base) {
  std::string error;
  Calibration c = base;
  Fields top(doc, "", {"source", "efficiency", "nvl_efficiency", "nvls_efficiency", "launch_us", "latency_us", "compute_efficiency"}, &error);
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
  read_efficiencies(top, "nvl_efficiency", gpu_arch_names(), base.nvl_efficiency, c.nvl_efficiency, error);
  read_efficiencies(top, "nvls_efficiency", enum_names(kNvlsDomainNames), base.nvls_efficiency, c.nvls_efficiency,
                    error);
  read_efficiencies(top, "compute_efficiency", gpu_arch_names(), base.compute_efficiency, c.compute_efficiency,
                    error);
  c.launch_us = top.number("launch_us", base.launch_us, 0, true, limits::kMaxOverheadUs);
  if (!error.empty()) return error_in(where, error);
  return c;
}

Result<Calibration> calibration_load(const std::string& path) {
  Result<nlohmann::json> doc = json_read_file(path);
  RETURN_IF_ERROR(doc);
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
          {"nvl_efficiency", efficiencies_json(gpu_arch_names(), c.nvl_efficiency)},
          {"nvls_efficiency", efficiencies_json(enum_names(kNvlsDomainNames), c.nvls_efficiency)},
          {"launch_us", c.launch_us},
          {"latency_us", lat},
          {"compute_efficiency", efficiencies_json(gpu_arch_names(), c.compute_efficiency)}};
}

}  // namespace topoplan
