// topoplan plan: which hosts, which Megatron order string and which GPU for every rank, so that
// the job's exposed communication per step is least; beside it what it beat (the input order,
// the best order string on the input hosts) and how far it is from the lower bound. The search:
// hosts from the fabric tree (host_choice), every distinct order string placed on them in
// topology order and scored, then local search on the best (search.h). docs/planner.md.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/host_choice.h"
#include "planner/score.h"
#include "planner/search.h"

namespace topoplan {

// Rule names as --keep takes them.
inline constexpr const char* kKeepTpInDomain = "tp-in-domain";
inline constexpr const char* kKeepDpOnlyAcrossSites = "dp-only-across-sites";
// "tp-in-domain,dp-only-across-sites" or "none"; did-you-mean for typos.
Result<std::vector<std::string>> keep_rules_parse(const std::string& list);

struct PlanRequest {
  std::vector<int> free;  // hosts offered, in the scheduler's order; empty = every host
  DownSet down;           // out of service (the Router must have been built with the same)
  // The rules to keep. Given explicitly they must hold (an error otherwise); by default both are
  // kept where they can be and reported as findings where they cannot.
  std::vector<std::string> keep = {kKeepTpInDomain, kKeepDpOnlyAcrossSites};
  bool keep_given = false;
  uint64_t seed = 1;
  double time_limit_s = 0;  // 0 = no limit; the search is otherwise bounded by move counts
  ScoreOptions score;
  // The best this many order strings keep their placement in topology order (before local
  // search) in Plan::candidates: plan --running weighs them beside the searched plan.
  size_t layouts_kept = 0;
  // Local search after the construction (every order string placed in topology order); without it
  // the best construction is the plan (advise --candidates --quick).
  bool search = true;
  // The input-order baselines, the lower bound and the idle-fabric figures beside the plan; without
  // them (advise --candidates) the plan and its score are the same, found sooner.
  bool beside = true;
  std::function<void(const std::string&)> progress;  // about once a second on long runs
};

struct PlanBaseline {
  std::string name;  // "input order", "best order on the input hosts"
  std::string order;
  std::string what;  // how it was laid out
  double exposed_s = 0;
  int violations = 0;
  bool scored = true;  // false when its groups cannot all be routed (`what` says why)
};

struct PlanCandidate {
  std::string order;
  double exposed_s = 0;  // placed in topology order, before local search
  int violations = 0;
  std::optional<Layout> layout;  // that placement, for the first PlanRequest::layouts_kept
};

struct Plan {
  Job job;  // with the chosen order
  Layout layout;
  HostChoice hosts;
  std::vector<int> host_order;  // hosts in rank order
  JobScore score;
  std::vector<PlanBaseline> baselines;
  // The ranks on the hosts in the order offered, under the job's own order string (the "input
  // order" baseline), when that could be scored: what the plan is drawn beside.
  std::optional<Layout> input_layout;
  std::vector<PlanCandidate> candidates;  // every distinct order string, best first
  std::optional<double> lower_bound_s;
  std::string lower_bound_how;
  // On a shared fabric (the other ports of every tier busy, a worst case), the input order and the
  // plan scored again with the job alone on the cluster: how much of the gain the assumption makes.
  struct Idle {
    double input_exposed_s = 0, exposed_s = 0;
  };
  std::optional<Idle> idle;
  KeepRules rules;  // in force
  int violations = 0;
  std::vector<Finding> findings;  // rules the plan could not keep, ahead of the score's
  struct Stats {
    int orders = 0, searched = 0;
    int64_t moves = 0, improved = 0;
    double seconds = 0;
    bool hit_time_limit = false;
  } stats;
};

// The plan's job under `order` on `layout` (the same hosts), scored with `options` as a plan:
// its score, host order, rule violations and findings made again. Explicit rules (keep_given)
// that do not hold are an error.
Result<void> plan_place(const Cluster& cluster, const Router& router, Plan& plan, const std::string& order,
                        const Layout& layout, const ScoreOptions& options, bool keep_given);

// `router` must be built over `cluster` with request.down.
Result<Plan> plan_job(const Cluster& cluster, const Router& router, const Job& job, const PlanRequest& request);

}  // namespace topoplan
