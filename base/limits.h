// What topoplan accepts, in one place. Every input is checked against these before anything is
// built, so no input can make it allocate without bound, run for hours or print an overflowed
// number. Each limit sits far above any real cluster or job, and each error that enforces one
// names the limit and the input that crossed it.
#pragma once

#include <cstdint>

namespace topoplan::limits {

// Ten times the largest training clusters of today (100,000 GPUs): 1,048,576 GPUs.
inline constexpr int64_t kMaxGpus = int64_t{1} << 20;
// A DGX-class host is 27 devices and 41 links per 8 GPUs, plus its share of the fabric; twice
// that per GPU leaves room for explicit graphs with more detail.
inline constexpr int64_t kMaxDevices = int64_t{1} << 23;  // 8,388,608
inline constexpr int64_t kMaxLinks = int64_t{1} << 24;    // 16,777,216 physical (two directed edges each)
// One rank per GPU.
inline constexpr int64_t kMaxRanks = kMaxGpus;
// Megatron-LM's largest models have a few hundred layers; per-layer loops stay instant below this.
inline constexpr int64_t kMaxLayers = 100'000;

// Sizes: 1 EB (1e18 bytes) is a thousand times the largest data sets moved between facilities,
// and every size below it prints as an exact 64-bit byte count.
inline constexpr double kMaxBytes = 1e18;
// Durations: a thousand years, so a printed duration is never an overflowed integer.
inline constexpr double kMaxSeconds = 1000 * 365.25 * 86400;
// Rates: 1 bit/s up to 8 Pbit/s (1e6 GB/s), beyond any link or aggregate of links.
inline constexpr double kMinRateGBps = 1e-9 / 8;
inline constexpr double kMaxRateGBps = 1e6;
// One link's bandwidth per direction: 1 MB/s (a management port) to 1e6 GB/s.
inline constexpr double kMinLinkGBps = 1e-3;
inline constexpr double kMaxLinkGBps = 1e6;
// One hop's latency: up to a second, beyond any fibre on Earth (20,000 km is 98,000 us).
inline constexpr double kMaxLatencyUs = 1e6;
// Fibre length: longer than the longest submarine cable (about 39,000 km).
inline constexpr double kMaxLengthKm = 50'000;
// Efficiencies (useful fraction of a line rate): below 0.1 % nothing is a usable link.
inline constexpr double kMinEfficiency = 1e-3;
// A calibration's link efficiencies go lower: one fitted on host memory standing in for the GPUs
// (topoplan-validate's MPI backend on CPUs) gets about 0.1 % of NVLink's rate; 1e-5 leaves room
// below that and still keeps a transfer's time finite.
inline constexpr double kMinLinkEfficiency = 1e-5;
// Per-call overheads such as NCCL's launch cost: up to a second.
inline constexpr double kMaxOverheadUs = 1e6;
// Ratios such as oversubscription or an MoE capacity factor: 1000:1 is beyond any design.
inline constexpr double kMaxRatio = 1000;
// A GPU's dense peak: from a GFLOP/s to an EFLOP/s.
inline constexpr double kMinTflops = 1e-3;
inline constexpr double kMaxTflops = 1e6;
// JSON and text inputs: 1 GiB holds an explicit graph of the largest cluster accepted.
inline constexpr int64_t kMaxFileBytes = int64_t{1} << 30;

}  // namespace topoplan::limits
