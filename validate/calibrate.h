// Calibration from measurements (topoplan calibrate): each measured series (one group, one
// collective, several sizes) is fitted by least squares to time = α + bytes/β, and so are the
// model's predictions for the same group and sizes. Per link class (the class of the busiest link
// the model finds for the series; NVLS multimem apart) the ratio of the fitted bandwidths scales
// that class's efficiency and the difference of the fitted latencies sets its per-call latency.
// The model is not linear in the size (protocols switch, channel caps), so the fit is repeated on
// the recalibrated model until it stops moving.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/calibration.h"
#include "cost/nccl_tuning.h"
#include "topology/routing.h"

namespace topoplan {

struct Layout;
struct Measured;
struct NcclTestsRun;

struct CalibrationPoint {
  double bytes = 0, time_us = 0;
};

struct CalibrationSeries {
  std::string label;  // "tp group 0 all_gather", "all_reduce_perf.log:12 all_reduce"
  CollectiveOp op = CollectiveOp::all_reduce;
  std::vector<VertexId> gpus;  // rank order
  std::vector<CalibrationPoint> points;
  // Other groups ran at the same time on some of the same hosts, across hosts: they may have
  // shared NICs and switches, which the model does not charge here.
  bool shared_hosts = false;
};

// time_us = alpha_us + bytes / (beta_GBps * 1e3); beta_GBps 0 when time does not grow with size.
struct LinearFit {
  double alpha_us = 0, beta_GBps = 0;
  double at(double bytes) const { return alpha_us + (beta_GBps > 0 ? bytes / (beta_GBps * 1e3) : 0); }
};
// Least squares on the relative error, so small sizes count as much as large ones; alpha >= 0.
LinearFit linear_fit(const std::vector<CalibrationPoint>& points);

// The classes a calibration sets: the link kinds, then NVLS multimem (the NVSwitch reducing), one
// class per NvlsDomain from kNvlsClass on, then copies over a GPU's NVLink, one class per GpuArch
// from kNvlClass on.
inline constexpr size_t kNvlsClass = kLinkKinds;
inline constexpr size_t kNvlClass = kNvlsClass + kNvlsDomains;
std::string calibration_class_name(size_t cls);
// The class whose efficiency sets the time of a series bound by `edge` (NVLS when `nvls`).
size_t calibration_class_of(const Cluster& cluster, EdgeId edge, bool nvls);

struct SeriesFit {
  size_t series = 0;          // index into the input
  std::optional<size_t> cls;  // none: the series could not be used (why)
  std::string why_not;
  std::string algorithm;              // the model's, at the largest size
  bool channel_bound = false;         // NCCL's channel cap, not a link, bounds it: no bandwidth information
  LinearFit measured, before, after;  // the model's fit with the base and the new calibration
};

struct ClassFit {
  size_t cls = 0;
  int series = 0, bandwidth_series = 0;
  double efficiency_before = 0, efficiency_after = 0;
  double line_GBps = 0;                // the busiest link's rate (the slowest one if the series differ)
  double latency_us = 0;               // launch + the class's latency, after
  double alpha_us = 0, beta_GBps = 0;  // the measured fits, medians over the class's series
  bool clamped = false;                // the measurements asked for more than line rate (or less than the floor)
};

struct HeldOut {
  size_t series = 0;
  double bytes = 0, measured_us = 0, predicted_us = 0;
  double error() const { return predicted_us / measured_us - 1; }
};

struct CalibrationFit {
  Calibration calibration;
  std::vector<SeriesFit> series;
  std::vector<ClassFit> classes;
  std::vector<HeldOut> held_out;
  int iterations = 0;
  std::vector<std::string> notes;
};

// Held-out sizes: per size, the median error over the series that ran it.
struct HeldSize {
  double bytes = 0, median_error = 0;
  int series = 0;
};
std::vector<HeldSize> held_out_sizes(const CalibrationFit& fit);

// Fits `base` to the series; sizes in `hold_out` are left out of the fit and predicted with the
// result instead. An error when no series has two sizes to fit.
Result<CalibrationFit> calibrate(const Cluster& cluster, const Router& router, const NcclTuning& tuning,
                                 const Calibration& base, const std::vector<CalibrationSeries>& series,
                                 const std::vector<double>& hold_out);

// topoplan-validate's results on their plan's layout: one series per group and collective.
std::vector<CalibrationSeries> calibration_series(const Measured& measured, const Cluster& cluster,
                                                  const Layout& layout);
// An nccl-tests run: its ranks on the cluster by host name and device index; `nodes` (cluster host
// names) instead names the log's hosts in order of first appearance.
Result<CalibrationSeries> calibration_series(const NcclTestsRun& run, const Cluster& cluster,
                                             const std::vector<std::string>& nodes);

}  // namespace topoplan
