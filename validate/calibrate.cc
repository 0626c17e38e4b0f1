#include "validate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/limits.h"
#include "base/units.h"
#include "base/words.h"
#include "cost/collective.h"
#include "planner/layout.h"
#include "validate/compare.h"
#include "validate/median.h"
#include "validate/nccl_tests_format.h"
#include "validate/plan_file.h"

namespace topoplan {
namespace {

constexpr int kMaxIterations = 12;
// Stop when every class's bandwidth moves less than this fraction and its latency less than
// kLatencyTolUs.
constexpr double kBandwidthTol = 0.002;
constexpr double kLatencyTolUs = 0.05;

bool held_out(double bytes, const std::vector<double>& hold_out) {
  return std::any_of(hold_out.begin(), hold_out.end(), [&](double h) { return validate_size_matches(bytes, h); });
}

bool nvls_algorithm(const std::string& algorithm) { return algorithm == "nvls"; }

struct Prepared {
  size_t series = 0;
  std::vector<CalibrationPoint> fit;   // the points fitted
  std::vector<CalibrationPoint> held;  // the points held out
  LinearFit measured;
};

// The model's fit of one series under `cal`, and what it says about the series at its largest size.
struct ModelView {
  LinearFit fit;
  size_t cls = 0;           // bandwidth class
  LinkKind latency_kind{};  // whose latency_us the series' calls carry
  double line_GBps = 0;
  std::string algorithm;
  bool channel_bound = false;
};

Result<ModelView> model_view(const Cluster& c, const Router& r, const NcclTuning& t, const Calibration& cal,
                             const CalibrationSeries& s, const std::vector<CalibrationPoint>& points) {
  CollectiveModel model(c, r, t, cal);
  ModelView v;
  std::vector<CalibrationPoint> predicted;
  std::optional<CollectivePrediction> big;  // at the largest size
  for (const CalibrationPoint& p : points) {
    Result<CollectivePrediction> pr = model.predict({s.op, p.bytes, s.gpus, std::nullopt, std::nullopt});
    if (!pr) return Error{s.label + ": " + pr.error()};
    predicted.push_back({p.bytes, pr->time_us});
    if (!big || p.bytes > big->bytes) big = std::move(*pr);
  }
  v.fit = linear_fit(predicted);
  v.algorithm = big->algorithm;
  v.channel_bound = big->channel_bound;
  v.latency_kind = big->bottleneck.kind;
  v.cls = calibration_class_of(c, big->bottleneck.edge, nvls_algorithm(big->algorithm));
  v.line_GBps = c.link(big->bottleneck.edge).bw_GBps;
  return v;
}

// A send/receive series as the model takes it, one pair: the first neighbours on different hosts
// (the slowest pair decides the time), else the first two. A ring also pairs the last with the first.
std::vector<VertexId> sendrecv_pair(const Cluster& c, const std::vector<VertexId>& gpus, bool ring) {
  const size_t n = gpus.size();
  for (size_t i = 0; i + 1 < n || (ring && i < n && n > 2); ++i) {
    const VertexId a = gpus[i], b = gpus[(i + 1) % n];
    if (c.device(a).host != c.device(b).host) return {a, b};
  }
  return {gpus.begin(), gpus.begin() + static_cast<long>(std::min<size_t>(n, 2))};
}

// Whether a series says how fast its class's links are. Where NCCL's channel cap binds in the
// model, only a measurement below the cap does (slower links would show under it); above it, no
// link efficiency could explain the difference.
bool informs_bandwidth(const ModelView& v, const LinearFit& m) {
  return m.beta_GBps > 0 && v.fit.beta_GBps > 0 && (!v.channel_bound || m.beta_GBps < v.fit.beta_GBps);
}

double& efficiency_of(Calibration& cal, size_t cls) {
  if (cls >= kNvlClass) return cal.nvl_efficiency[cls - kNvlClass];
  return cls >= kNvlsClass ? cal.nvls_efficiency[cls - kNvlsClass] : cal.efficiency[cls];
}

}  // namespace

size_t calibration_class_of(const Cluster& c, EdgeId edge, bool nvls) {
  const VertexId gpu = gpu_end(c, edge);
  if (gpu == kNoVertex || c.link(edge).kind != LinkKind::NVL) return static_cast<size_t>(c.link(edge).kind);
  if (nvls) return kNvlsClass + static_cast<size_t>(nvls_domain_of(c, edge));
  return kNvlClass + static_cast<size_t>(gpu_arch_of(c, gpu));
}

LinearFit linear_fit(const std::vector<CalibrationPoint>& points) {
  // Weights 1/t^2: the residuals are relative.
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const CalibrationPoint& p : points) {
    const double w = 1 / (p.time_us * p.time_us);
    s += w;
    sx += w * p.bytes;
    sy += w * p.time_us;
    sxx += w * p.bytes * p.bytes;
    sxy += w * p.bytes * p.time_us;
  }
  LinearFit f;
  if (s <= 0) return f;
  const double det = s * sxx - sx * sx;
  double gamma = det > 1e-12 * s * sxx ? (s * sxy - sx * sy) / det : 0;  // us per byte
  double alpha = (sy - gamma * sx) / s;
  if (gamma <= 0) {
    gamma = 0;
    alpha = sy / s;
  } else if (alpha < 0) {
    alpha = 0;
    gamma = sxy / sxx;
  }
  f.alpha_us = alpha;
  f.beta_GBps = gamma > 0 ? 1 / (gamma * 1e3) : 0;
  return f;
}

std::string calibration_class_name(size_t cls) {
  if (cls >= kNvlClass) return "NVL " + std::string(to_string(static_cast<GpuArch>(cls - kNvlClass)));
  if (cls >= kNvlsClass) return "NVLS " + std::string(to_string(static_cast<NvlsDomain>(cls - kNvlsClass)));
  return std::string(to_string(static_cast<LinkKind>(cls)));
}

Result<CalibrationFit> calibrate(const Cluster& c, const Router& r, const NcclTuning& t, const Calibration& base,
                                 const std::vector<CalibrationSeries>& series, const std::vector<double>& hold_out) {
  CalibrationFit out;
  out.calibration = base;
  std::vector<Prepared> used;
  for (size_t i = 0; i < series.size(); ++i) {
    const CalibrationSeries& s = series[i];
    SeriesFit sf;
    sf.series = i;
    Prepared p;
    p.series = i;
    std::set<double> sizes;
    for (const CalibrationPoint& pt : s.points) {
      (held_out(pt.bytes, hold_out) ? p.held : p.fit).push_back(pt);
      if (!held_out(pt.bytes, hold_out)) sizes.insert(pt.bytes);
    }
    if (sizes.size() < 2) {
      sf.why_not = "needs two sizes or more to fit (it has " + std::to_string(sizes.size()) + ")";
    } else if (s.gpus.size() < 2) {
      sf.why_not = "one rank: nothing crosses a link";
    } else {
      p.measured = linear_fit(p.fit);
      sf.measured = p.measured;
      used.push_back(std::move(p));
    }
    out.series.push_back(std::move(sf));
  }
  if (used.empty())
    return Error{
        "no series to fit: each needs one group and one collective at two sizes or more (topoplan-validate --sizes, or "
        "an nccl-tests sweep)"};
  if (std::any_of(used.begin(), used.end(), [&](const Prepared& p) { return series[p.series].shared_hosts; }))
    out.notes.push_back(
        "some groups ran beside others on the same hosts across hosts, so they may have shared NICs and switches; "
        "the model predicts each alone here, which makes those links look slower than they are "
        "(run one group at a time: topoplan-validate --nccl-tests)");

  Calibration& cal = out.calibration;
  std::vector<ModelView> views(used.size());
  for (int iter = 1; iter <= kMaxIterations; ++iter) {
    out.iterations = iter;
    for (size_t k = 0; k < used.size(); ++k) {
      Result<ModelView> v = model_view(c, r, t, cal, series[used[k].series], used[k].fit);
      RETURN_IF_ERROR(v);
      views[k] = std::move(*v);
    }
    // Bandwidth per class: the geometric mean of measured over modelled bandwidth.
    std::map<size_t, std::vector<double>> log_ratio;
    std::map<LinkKind, std::vector<double>> offset;  // measured minus modelled latency
    for (size_t k = 0; k < used.size(); ++k) {
      const ModelView& v = views[k];
      const LinearFit& m = used[k].measured;
      if (informs_bandwidth(v, m)) log_ratio[v.cls].push_back(std::log(m.beta_GBps / v.fit.beta_GBps));
      offset[v.latency_kind].push_back(m.alpha_us - v.fit.alpha_us);
    }
    bool moved = false;
    for (const auto& [cls, logs] : log_ratio) {
      double sum = 0;
      for (double l : logs) sum += l;
      const double ratio = std::exp(sum / static_cast<double>(logs.size()));
      double& e = efficiency_of(cal, cls);
      const double next = std::clamp(e * ratio, limits::kMinLinkEfficiency, 1.0);
      moved |= std::abs(next / e - 1) > kBandwidthTol;
      e = next;
    }
    // Per-call latency: launch is what every class pays (the least of them), each class the rest.
    std::map<LinkKind, double> total;
    for (const auto& [kind, d] : offset) {
      const double delta = median(d);
      moved |= std::abs(delta) > kLatencyTolUs;
      total[kind] = std::max(0.0, cal.launch_us + cal.latency_us[static_cast<size_t>(kind)] + delta);
    }
    // Classes not measured keep their own latency above the launch.
    double launch = total.begin()->second;
    for (const auto& [kind, v] : total) launch = std::min(launch, v);
    for (const auto& [kind, v] : total) cal.latency_us[static_cast<size_t>(kind)] = v - launch;
    cal.launch_us = launch;
    if (!moved) break;
  }
  if (out.iterations == kMaxIterations)
    out.notes.push_back("the fit had not settled after " + std::to_string(kMaxIterations) +
                        " rounds: the series disagree (see each series' fit)");

  // The series under the base and the final calibration; classes; held-out sizes.
  std::map<size_t, ClassFit> classes;
  std::map<size_t, std::vector<double>> alphas, betas;
  for (size_t k = 0; k < used.size(); ++k) {
    const CalibrationSeries& s = series[used[k].series];
    Result<ModelView> before = model_view(c, r, t, base, s, used[k].fit);
    Result<ModelView> after = model_view(c, r, t, cal, s, used[k].fit);
    if (!before || !after) return Error{before ? after.error() : before.error()};
    SeriesFit& sf = out.series[used[k].series];
    sf.cls = after->cls;
    sf.algorithm = after->algorithm;
    sf.channel_bound = after->channel_bound;
    sf.before = before->fit;
    sf.after = after->fit;
    ClassFit& cf = classes[after->cls];
    cf.cls = after->cls;
    ++cf.series;
    if (informs_bandwidth(*after, used[k].measured)) ++cf.bandwidth_series;
    cf.line_GBps = cf.line_GBps > 0 ? std::min(cf.line_GBps, after->line_GBps) : after->line_GBps;
    cf.latency_us = cal.launch_us + cal.latency_us[static_cast<size_t>(after->latency_kind)];
    alphas[after->cls].push_back(used[k].measured.alpha_us);
    if (used[k].measured.beta_GBps > 0) betas[after->cls].push_back(used[k].measured.beta_GBps);
    CollectiveModel model(c, r, t, cal);
    for (const CalibrationPoint& p : used[k].held) {
      Result<CollectivePrediction> pr = model.predict({s.op, p.bytes, s.gpus, std::nullopt, std::nullopt});
      if (!pr) return Error{s.label + ": " + pr.error()};
      out.held_out.push_back({used[k].series, p.bytes, p.time_us, pr->time_us});
    }
  }
  for (auto& [cls, cf] : classes) {
    Calibration b = base;
    cf.efficiency_before = efficiency_of(b, cls);
    cf.efficiency_after = efficiency_of(cal, cls);
    cf.alpha_us = median(alphas[cls]);
    cf.beta_GBps = betas[cls].empty() ? 0 : median(betas[cls]);
    cf.clamped =
        cf.bandwidth_series > 0 && (cf.efficiency_after >= 1 || cf.efficiency_after <= limits::kMinLinkEfficiency);
    if (cf.clamped)
      out.notes.push_back(calibration_class_name(cls) + ": the measurements ask for " +
                          (cf.efficiency_after >= 1 ? "more than the line rate" : "less than the model's floor") +
                          "; kept at " + std::to_string(cf.efficiency_after) +
                          " (is the link's rate in the cluster right?)");
    else if (cf.bandwidth_series > 0 && cf.efficiency_after < 0.5 * cf.efficiency_before)
      out.notes.push_back(
          calibration_class_name(cls) + ": the links gave " +
          format_number(100 * cf.efficiency_after / cf.efficiency_before, 2) +
          "% of what the model expected: check the cluster (how many NICs, which link rates) and the run (other "
          "traffic) before trusting the overlay");
    if (cf.bandwidth_series == 0)
      out.notes.push_back(calibration_class_name(cls) +
                          ": no series tells its bandwidth (flat in size, or faster than NCCL's channel cap lets the "
                          "model go): efficiency unchanged");
    out.classes.push_back(cf);
  }
  return out;
}

std::vector<CalibrationSeries> calibration_series(const Measured& m, const Cluster& c, const Layout& layout) {
  std::vector<CalibrationSeries> out;
  std::map<std::tuple<std::string, int, CollectiveOp>, size_t> at;
  for (const MeasuredResult& r : m.results) {
    const auto key = std::make_tuple(r.kind, r.index, r.op);
    auto it = at.find(key);
    if (it == at.end()) {
      CalibrationSeries s;
      s.label = r.kind + " group " + std::to_string(r.index) + " " + std::string(to_string(r.op));
      s.op = r.op;
      for (int rank : r.ranks) s.gpus.push_back(layout.gpu_of_rank[static_cast<size_t>(rank)]);
      // topoplan-validate's pipelines send to the next stage.
      if (r.op == CollectiveOp::sendrecv) s.gpus = sendrecv_pair(c, s.gpus, false);
      it = at.emplace(key, out.size()).first;
      out.push_back(std::move(s));
    }
    out[it->second].points.push_back({r.bytes, r.time_us});
  }
  // Groups of one kind and collective ran at once: across hosts, on shared hosts, they shared NICs.
  std::map<std::pair<std::string, CollectiveOp>, std::vector<size_t>> runs;
  for (const auto& [key, i] : at) runs[{std::get<0>(key), std::get<2>(key)}].push_back(i);
  for (const auto& [key, members] : runs) {
    std::map<int, int> groups_on_host;
    bool spans = false;
    for (size_t i : members) {
      const std::vector<int> hosts = c.hosts_of(out[i].gpus);
      spans |= hosts.size() > 1;
      for (int h : hosts) ++groups_on_host[h];
    }
    const bool shared =
        spans && std::any_of(groups_on_host.begin(), groups_on_host.end(), [](const auto& x) { return x.second > 1; });
    for (size_t i : members) out[i].shared_hosts = shared;
  }
  return out;
}

Result<CalibrationSeries> calibration_series(const NcclTestsRun& run, const Cluster& c,
                                             const std::vector<std::string>& nodes) {
  const std::string where = run.source + ":" + std::to_string(run.line);
  if (run.ranks.empty())
    return Error{where + ": the log lists no ranks (its \"# Using devices\" lines): cannot place the run"};
  std::vector<const NcclTestsRank*> by_rank(run.ranks.size(), nullptr);
  for (const NcclTestsRank& rk : run.ranks) {
    if (rk.rank < 0 || static_cast<size_t>(rk.rank) >= by_rank.size())
      return Error{where + ": rank " + std::to_string(rk.rank) + " of " + std::to_string(run.ranks.size()) +
                   " listed: some device lines are missing (nccl-tests cuts them past 2 KiB per process)"};
    by_rank[static_cast<size_t>(rk.rank)] = &rk;
  }
  std::vector<std::string> log_hosts;  // in order of first appearance
  for (const NcclTestsRank* rk : by_rank)
    if (std::find(log_hosts.begin(), log_hosts.end(), rk->host) == log_hosts.end()) log_hosts.push_back(rk->host);
  if (!nodes.empty() && nodes.size() != log_hosts.size())
    return Error{where + ": the log has " + counted(static_cast<int64_t>(log_hosts.size()), "host") +
                 ", --nodes names " + std::to_string(nodes.size())};
  CalibrationSeries s;
  s.label = where + " " + (run.program.empty() ? std::string(to_string(run.op)) : run.program);
  s.op = run.op;
  for (const NcclTestsRank* rk : by_rank) {
    const size_t h = static_cast<size_t>(std::find(log_hosts.begin(), log_hosts.end(), rk->host) - log_hosts.begin());
    const std::string& name = nodes.empty() ? rk->host : nodes[h];
    std::optional<int> host = c.host_index(name);
    if (!host)
      return Error{
          where + ": host '" + name + "' is not in the cluster" +
          (nodes.empty() ? "; give --nodes with the cluster's hosts for the log's, in order of first appearance" : "")};
    const Host& hh = c.hosts()[static_cast<size_t>(*host)];
    if (rk->device < 0 || static_cast<size_t>(rk->device) >= hh.gpus.size())
      return Error{where + ": rank " + std::to_string(rk->rank) + " uses device " + std::to_string(rk->device) + "; " +
                   name + " has " + std::to_string(hh.gpus.size()) + " GPUs"};
    s.gpus.push_back(hh.gpus[static_cast<size_t>(rk->device)]);
  }
  std::set<VertexId> distinct(s.gpus.begin(), s.gpus.end());
  if (distinct.size() != s.gpus.size())
    return Error{where + ": two ranks on one GPU: cannot place the run on the cluster"};
  // nccl-tests' sendrecv sends to the next rank round the ring.
  if (s.op == CollectiveOp::sendrecv) s.gpus = sendrecv_pair(c, s.gpus, true);
  for (const NcclTestsRow& row : run.rows) s.points.push_back({row.bytes, row.time_us});
  return s;
}

std::vector<HeldSize> held_out_sizes(const CalibrationFit& fit) {
  std::map<double, std::vector<double>> by;
  for (const HeldOut& h : fit.held_out) by[h.bytes].push_back(h.error());
  std::vector<HeldSize> out;
  for (const auto& [bytes, errors] : by) out.push_back({bytes, median(errors), static_cast<int>(errors.size())});
  return out;
}

}  // namespace topoplan
