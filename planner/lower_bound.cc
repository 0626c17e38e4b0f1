#include "planner/lower_bound.h"

#include <algorithm>
#include <limits>

#include "planner/host_choice.h"

namespace topoplan {

Result<LowerBound> lower_bound(const Cluster& c, const Router& r, const Job& job, const Layout& layout,
                               const ScoreOptions& opt, CommNodeCache* nodes) {
  // The layout's GPUs per host, hosts in topology order.
  // By host + 1 (a GPU of no host is under 0), hosts ascending: a tree of 12,500 hosts looked up
  // for each of 100,000 GPUs was a third of this bound.
  std::vector<std::vector<VertexId>> on_host(c.hosts().size() + 1);
  for (VertexId v : layout.gpu_of_rank) on_host[static_cast<size_t>(c.device(v).host + 1)].push_back(v);
  std::vector<int> hosts;
  size_t per_host = 0;
  for (size_t at = 0; at < on_host.size(); ++at) {
    std::vector<VertexId>& gpus = on_host[at];
    if (gpus.empty()) continue;
    hosts.push_back(static_cast<int>(at) - 1);
    std::sort(gpus.begin(), gpus.end(),
              [&](VertexId a, VertexId b) { return c.device(a).local_index < c.device(b).local_index; });
    per_host = std::max(per_host, gpus.size());
  }
  hosts_sort(locality_of(c), hosts);

  Result<ComputeEstimate> compute = compute_estimate(job, c.device(layout.gpu_of_rank.front()).model, *opt.calibration);
  RETURN_IF_ERROR(compute);
  // The collectives the score times: the model's, or those NCCL's log showed (score --traffic).
  Result<StepTraffic> traffic = opt.traffic ? Result<StepTraffic>(*opt.traffic) : step_traffic(job, *compute);
  RETURN_IF_ERROR(traffic);
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);

  CollectiveModel model(c, r, *opt.tuning, *opt.calibration);
  if (nodes) model.share_nodes(nodes);
  std::vector<double> best(traffic->items.size(), 0);
  std::string per_host_tried;
  for (size_t p = 1; p <= per_host; ++p)
    if (per_host % p == 0) per_host_tried += (per_host_tried.empty() ? "" : ", ") + std::to_string(p);
  for (size_t i = 0; i < traffic->items.size(); ++i) {
    const TrafficItem& item = traffic->items[i];
    Result<GroupList> list = groups->groups(item.group);
    RETURN_IF_ERROR(list);
    const size_t k = item.stage_pairs ? 2 : list->front().size();
    if (k < 2 || list->front().size() < 2) continue;
    double fastest = std::numeric_limits<double>::infinity();
    for (size_t p = 1; p <= std::min(per_host, k); ++p) {
      if (per_host % p != 0 || (k + p - 1) / p > hosts.size()) continue;
      CollectiveRequest req;
      req.op = item.op;
      req.bytes = item.bytes;
      req.algo = item.algo;
      for (size_t j = 0; req.gpus.size() < k; ++j) {
        const std::vector<VertexId>& g = on_host[static_cast<size_t>(hosts[j] + 1)];
        for (size_t t = 0; t < p && t < g.size() && req.gpus.size() < k; ++t) req.gpus.push_back(g[t]);
      }
      Result<CollectivePrediction> pred = model.predict_pick(req);  // its time is the pick's
      if (!pred)
        return Error{std::string(to_string(item.kind)) + " " + std::string(to_string(item.op)) + ": " + pred.error()};
      fastest = std::min(fastest, pred->time_us);
    }
    if (fastest < std::numeric_limits<double>::infinity()) best[i] = fastest;
  }
  LowerBound out;
  out.exposed_s = exposure_us(*traffic, best) / 1e6;
  out.item_us = best;
  out.how = "every group alone on an idle fabric, at its best of " + per_host_tried +
            " ranks per host on consecutive hosts of the allocation";
  return out;
}

}  // namespace topoplan
