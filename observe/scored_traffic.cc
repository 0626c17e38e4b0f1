#include "observe/scored_traffic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "base/units.h"
#include "base/words.h"
#include "planner/group_ref.h"
#include "planner/rank_groups.h"

namespace topoplan {
namespace {

// Where an item with no model counterpart runs: compute-bound kinds in the forward pass, the
// pipeline's sends in its slots, data parallelism with the optimizer; on the critical path.
Phase default_phase(TrafficKind k) {
  switch (k) {
    case TrafficKind::pp:
      return Phase::pipeline;
    case TrafficKind::dp:
      return Phase::optimizer;
    default:
      return Phase::forward;
  }
}

std::string comm_text(const ObservedComm& c) { return c.comm_id + " (" + counted(c.nranks, "rank") + ")"; }

}  // namespace

Result<ScoredTraffic> scored_traffic(const ObservedTraffic& observed, const Cluster& c, const Job& job,
                                     const Layout& layout, const StepTraffic& model) {
  Result<RankGroups> rank_groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(rank_groups);
  ScoredTraffic out;
  out.traffic = model;
  out.traffic.items.clear();
  std::vector<int> rank_of(c.num_devices(), -1);
  for (size_t r = 0; r < layout.gpu_of_rank.size(); ++r) rank_of[layout.gpu_of_rank[r]] = static_cast<int>(r);
  // The group kinds the model scores, in its order, with each rank's group and place in it.
  struct Token {
    std::string name;
    TrafficKind kind;
    GroupList groups;
    std::vector<std::pair<int, int>> at;                        // rank -> (group, position)
    std::vector<std::pair<const ObservedComm*, size_t>> comms;  // matched, with their group
  };
  std::vector<Token> tokens;
  for (const TrafficItem& it : model.items) {
    if (std::any_of(tokens.begin(), tokens.end(), [&it](const Token& t) { return t.name == it.group; })) continue;
    Result<GroupList> list = rank_groups->groups(it.group);
    RETURN_IF_ERROR(list);
    Token t{
        it.group, it.kind, std::move(*list), std::vector<std::pair<int, int>>(layout.gpu_of_rank.size(), {-1, -1}), {}};
    for (size_t g = 0; g < t.groups.size(); ++g)
      for (size_t k = 0; k < t.groups[g].size(); ++k)
        t.at[static_cast<size_t>(t.groups[g][k])] = {static_cast<int>(g), static_cast<int>(k)};
    tokens.push_back(std::move(t));
  }
  // Each communicator is the group whose ranks sit at its members' places, in the first kind that
  // has one (kinds that coincide, as dp and dp-cp without CP, take the model's first).
  for (const ObservedComm& comm : observed.comms) {
    if (comm.members.empty()) {
      out.unscored.push_back(comm_text(comm) + ": no member's init line in the log");
      continue;
    }
    std::vector<std::pair<int, int>> members;  // (comm rank, job rank)
    std::string problem;
    for (const NcclLogRank& m : comm.members) {
      const std::optional<int> h = c.host_index(m.host);
      if (!h)
        return Error{"communicator " + comm.comm_id + ": rank " + std::to_string(m.rank) + " runs on host '" + m.host +
                     "', which the cluster lacks"};
      const std::vector<VertexId>& gpus = c.hosts()[static_cast<size_t>(*h)].gpus;
      if (m.cuda_ordinal < 0 || static_cast<size_t>(m.cuda_ordinal) >= gpus.size())
        return Error{"communicator " + comm.comm_id + ": rank " + std::to_string(m.rank) + " on " + m.host +
                     " uses CUDA device " + std::to_string(m.cuda_ordinal) + ", and the host has " +
                     std::to_string(gpus.size()) + " GPUs"};
      const int r = rank_of[gpus[static_cast<size_t>(m.cuda_ordinal)]];
      if (r < 0 && problem.empty())
        problem = m.host + " GPU " + std::to_string(m.cuda_ordinal) + " has no rank in the layout";
      members.emplace_back(m.rank, r);
    }
    if (!problem.empty()) {
      out.unscored.push_back(comm_text(comm) + ": " + problem);
      continue;
    }
    bool found = false;
    for (Token& t : tokens) {
      const int g = t.at[static_cast<size_t>(members[0].second)].first;
      if (g < 0 || t.groups[static_cast<size_t>(g)].size() != static_cast<size_t>(comm.nranks)) continue;
      const std::vector<int>& group = t.groups[static_cast<size_t>(g)];
      if (std::all_of(members.begin(), members.end(), [&group](const std::pair<int, int>& m) {
            return group[static_cast<size_t>(m.first)] == m.second;
          })) {
        t.comms.emplace_back(&comm, static_cast<size_t>(g));
        out.matched.push_back(comm_text(comm) + " = " + group_ref_text(t.name, g));
        found = true;
        break;
      }
    }
    if (!found) {
      out.unscored.push_back(comm_text(comm) + ": no group of the job's kinds in this layout; not scored: " +
                             (comm.per_step.empty() ? "no calls" : observed_calls_text(comm.per_step) + " per step"));
    }
  }
  // The pipeline stage of each rank, for kinds whose model items run per stage class.
  Result<GroupList> pipelines = rank_groups->groups("pp");
  RETURN_IF_ERROR(pipelines);
  std::vector<int> stage_of(layout.gpu_of_rank.size(), 0);
  for (const std::vector<int>& pipeline : *pipelines)
    for (size_t k = 0; k < pipeline.size(); ++k) stage_of[static_cast<size_t>(pipeline[k])] = static_cast<int>(k);
  for (const Token& t : tokens) {
    std::vector<size_t> items;  // the model's items of this kind
    for (size_t i = 0; i < model.items.size(); ++i)
      if (model.items[i].group == t.name) items.push_back(i);
    const std::string kind = group_kind_name(t.name);
    if (t.comms.empty()) {
      out.notes.push_back(kind + ": no communicator in the log; the model's " + std::to_string(items.size()) +
                          " item(s) are left out");
      continue;
    }
    if (t.comms.size() < t.groups.size())
      out.notes.push_back(kind + ": " + std::to_string(t.comms.size()) + " of " + std::to_string(t.groups.size()) +
                          " groups in the log; their calls stand for every group");
    // A stage class per communicator when the model reduces per class, else one class (-1).
    const bool per_class =
        std::any_of(items.begin(), items.end(), [&](size_t i) { return model.items[i].stage_class >= 0; });
    auto class_of = [&](size_t group) -> int {
      if (!per_class) return -1;
      const int stage = stage_of[static_cast<size_t>(t.groups[group].front())];
      for (size_t k = 0; k < model.stage_classes.size(); ++k)
        if (std::ranges::binary_search(model.stage_classes[k].stages, stage)) return static_cast<int>(k);
      return -1;
    };
    const bool alltoall =
        std::any_of(items.begin(), items.end(), [&](size_t i) { return model.items[i].op == CollectiveOp::alltoall; });
    std::map<int, std::map<std::pair<CollectiveOp, double>, double>>
        calls_by_class;  // class -> (op, bytes) -> calls summed
    std::map<int, int> comms_by_class;
    for (const auto& [comm, group] : t.comms) {
      const int cls = class_of(group);
      ++comms_by_class[cls];
      for (const ObservedCall& call : comm->per_step) {
        if (call.op == "Recv") continue;  // its Send carries it
        std::optional<CollectiveOp> op = observed_op(call.op);
        if (!op) {
          out.unscored.push_back(comm_text(*comm) + ": " + call.op + " has no model operation; left out");
          continue;
        }
        double bytes = call.bytes, calls = call.calls;
        // NCCL returns at once from a collective of count 0 (ncclEnqueueCheck, src/enqueue.cc):
        // nothing moves, nothing to score.
        if (bytes <= 0) continue;
        // PyTorch's all_to_all is a group of sends, one per peer: one alltoall of every chunk.
        if (*op == CollectiveOp::sendrecv && alltoall && comm->nranks > 1) {
          op = CollectiveOp::alltoall;
          bytes *= comm->nranks;
          calls /= comm->nranks - 1;
        } else if (*op == CollectiveOp::sendrecv && t.kind == TrafficKind::pp) {
          // A pipeline slot sends once each way between neighbours; the log's calls are one rank's
          // (the one that logged most: a middle stage, with two neighbours, where there is one).
          calls /= std::min(2, comm->nranks - 1);
        }
        calls_by_class[cls][{*op, bytes}] += calls;
      }
    }
    std::vector<bool> used(items.size(), false);
    for (const auto& [cls, calls] : calls_by_class)
      for (const auto& [key, total] : calls) {
        const CollectiveOp op = key.first;
        const double bytes = key.second, per_group = total / comms_by_class[cls];
        // The model's items of the same operation and class closest in size take the calls in
        // proportion to theirs: the forward and backward all-gathers of one size split as modelled.
        double closest = INFINITY;
        for (size_t k = 0; k < items.size(); ++k) {
          const TrafficItem& m = model.items[items[k]];
          if (m.op == op && m.stage_class == cls && m.bytes > 0)
            closest = std::min(closest, std::abs(std::log(m.bytes / bytes)));
        }
        std::vector<size_t> like;
        double like_calls = 0;
        for (size_t k = 0; k < items.size(); ++k) {
          const TrafficItem& m = model.items[items[k]];
          if (m.op == op && m.stage_class == cls && m.bytes > 0 &&
              std::abs(std::log(m.bytes / bytes)) <= closest + 0.01) {
            like.push_back(k);
            like_calls += m.calls;
          }
        }
        if (like.empty()) {
          TrafficItem it;
          it.kind = t.kind;
          it.phase = default_phase(t.kind);
          it.op = op;
          it.group = t.name;
          it.stage_pairs = op == CollectiveOp::sendrecv && t.kind == TrafficKind::pp;
          it.stage_class = cls;
          it.bytes = bytes;
          it.calls = per_group;
          it.what = "observed only";
          out.notes.push_back(kind + " " + std::string(to_string(op)) + " " + format_bytes(bytes) + " x " +
                              format_number(per_group, 2) + ": no such item in the model; scored on the critical path");
          out.traffic.items.push_back(std::move(it));
          continue;
        }
        for (size_t k : like) {
          TrafficItem it = model.items[items[k]];
          used[k] = true;
          const double share = like_calls > 0 ? it.calls / like_calls : 1.0 / like.size();
          it.bytes = bytes;
          it.calls = per_group * share;
          it.unhidden_calls = std::min(it.unhidden_calls, it.calls);
          it.what += " (observed)";
          out.traffic.items.push_back(std::move(it));
        }
      }
    for (size_t k = 0; k < items.size(); ++k)
      if (!used[k] && model.items[items[k]].calls > 0) {
        const TrafficItem& m = model.items[items[k]];
        out.notes.push_back(kind + " " + std::string(to_string(m.op)) + " " + format_bytes(m.bytes) + " x " +
                            format_number(m.calls, 2) + " (" + m.what + "): in the model, not in the log");
      }
  }
  return out;
}

Result<ScoredTraffic> scored_traffic_load(const std::string& path, const Cluster& c, const Job& job,
                                          const Layout& layout) {
  Result<ObservedTraffic> t = observed_traffic_load(path);
  RETURN_IF_ERROR(t);
  Result<ComputeEstimate> compute = compute_estimate(job, c.device(layout.gpu_of_rank.front()).model);
  RETURN_IF_ERROR(compute);
  Result<StepTraffic> model = step_traffic(job, *compute);
  RETURN_IF_ERROR(model);
  Result<ScoredTraffic> scored = scored_traffic(*t, c, job, layout, *model);
  if (!scored) return Error{path + ": " + scored.error()};
  if (scored->matched.empty())
    return Error{path + ": no communicator of the log is a group of the job in this layout (" +
                 (scored->unscored.empty() ? std::string("the log has none") : scored->unscored.front()) +
                 "); check --layout against the hosts and GPUs the log names"};
  return scored;
}

}  // namespace topoplan
