#include "observe/traffic_compare.h"

#include <algorithm>
#include <map>

#include "planner/rank_groups.h"

namespace topoplan {

std::string_view to_string(TrafficRow::Verdict v) {
  switch (v) {
    case TrafficRow::Verdict::ok:
      return "ok";
    case TrafficRow::Verdict::model_lacks:
      return "model lacks";
    case TrafficRow::Verdict::model_over_counts:
      return "model over-counts";
    case TrafficRow::Verdict::model_under_counts:
      return "model under-counts";
  }
  return "?";
}

namespace {

std::string op_key(CollectiveOp op) { return op == CollectiveOp::alltoall ? "sendrecv" : std::string(to_string(op)); }

}  // namespace

Result<std::vector<TrafficRow>> traffic_beside_model(const ObservedTraffic& observed, const Job& job,
                                                     const StepTraffic& model, double tolerance) {
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);
  const int pp = job.parallel.pp;
  std::map<std::pair<int, std::string>, TrafficRow> rows;
  // The model: per (group size, op), bytes and calls summed over its groups, then averaged.
  std::map<std::pair<int, std::string>, std::map<std::string, int>> groups_of;  // token -> its group count
  for (const TrafficItem& it : model.items) {
    if (it.calls <= 0 || it.bytes <= 0) continue;
    Result<GroupList> list = groups->groups(it.group);
    RETURN_IF_ERROR(list);
    if (list->empty() || (*list)[0].size() < 2) continue;
    const int size = static_cast<int>((*list)[0].size());
    const int token_groups = static_cast<int>(list->size());
    // A stage class's item runs on its stages' groups only.
    const double running =
        it.stage_class >= 0 && pp > 0
            ? token_groups *
                  static_cast<double>(model.stage_classes[static_cast<size_t>(it.stage_class)].stages.size()) / pp
            : token_groups;
    TrafficRow& r = rows[{size, op_key(it.op)}];
    r.group_size = size;
    r.op = op_key(it.op);
    const std::string kind(to_string(it.kind));
    if (std::find(r.kinds.begin(), r.kinds.end(), kind) == r.kinds.end()) r.kinds.push_back(kind);
    // A pipeline slot sends once each way between neighbours; the log holds one rank's calls (the
    // one that logged most: a middle stage, with two neighbours, where there is one).
    const double sends = it.stage_pairs ? std::min(2, size - 1) : 1;
    r.model_bytes += it.bytes * it.calls * sends * running;
    r.model_calls += it.calls * sends * running;
    groups_of[{size, r.op}][it.group] = token_groups;
  }
  for (auto& [key, r] : rows) {
    for (const auto& [token, n] : groups_of[key]) r.model_groups += n;
    r.model_bytes /= r.model_groups;
    r.model_calls /= r.model_groups;
  }
  // The log: per communicator size and op, averaged over the communicators of that size that
  // issue it.
  for (const ObservedComm& c : observed.comms) {
    std::map<std::string, std::pair<double, double>> by_op;  // bytes, calls
    for (const ObservedCall& call : c.per_step) {
      if (call.op == "Recv") continue;  // its Send carries the bytes
      // Ops the model has no name for (Gather, Scatter) keep NCCL's.
      const std::optional<CollectiveOp> op = observed_op(call.op);
      auto& [bytes, calls] = by_op[op ? op_key(*op) : call.op];
      bytes += call.bytes * call.calls;
      calls += call.calls;
    }
    for (const auto& [op, v] : by_op) {
      TrafficRow& r = rows[{c.nranks, op}];
      r.group_size = c.nranks;
      r.op = op;
      r.observed_bytes += v.first;
      r.observed_calls += v.second;
      ++r.observed_comms;
    }
  }
  std::vector<TrafficRow> out;
  for (auto& [key, r] : rows) {
    if (r.observed_comms > 0) {
      r.observed_bytes /= r.observed_comms;
      r.observed_calls /= r.observed_comms;
    }
    if (r.model_groups == 0)
      r.verdict = TrafficRow::Verdict::model_lacks;
    else if (r.observed_comms == 0 || r.observed_bytes * tolerance < r.model_bytes)
      r.verdict = TrafficRow::Verdict::model_over_counts;
    else if (r.observed_bytes > tolerance * r.model_bytes)
      r.verdict = TrafficRow::Verdict::model_under_counts;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace topoplan
