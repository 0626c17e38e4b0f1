#include "planner/plan.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/suggest.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/lower_bound.h"
#include "planner/orders.h"

namespace topoplan {
namespace {

// The hosts' up GPUs, by local index, as positions of a placement: hosts with the most GPUs up
// first (the ones moves exchange), the rest after.
Placement placement_of(const Cluster& c, const DownSet& down, const std::vector<int>& hosts, int ranks) {
  Placement p;
  size_t most = 0;
  for (int h : hosts) most = std::max(most, down.gpus_up(c, h).size());
  std::vector<int> full, rest;
  for (int h : hosts) (down.gpus_up(c, h).size() == most ? full : rest).push_back(h);
  for (const std::vector<int>* part : {&full, &rest})
    for (int h : *part) {
      p.hosts.push_back(h);
      p.gpus.push_back(down.gpus_up(c, h));
    }
  // Regular: full hosts whose every GPU runs a rank.
  p.regular = std::min(static_cast<int>(full.size()), ranks / std::max<int>(1, static_cast<int>(most)));
  return p;
}

struct Scored {
  std::string order;
  Job job;
  RankGroups groups;
  std::unique_ptr<ScoreState> state;
  Objective objective;
  Placement placement;
};

Result<Scored> score_placement(const Cluster& c, const Router& r, const Job& base, const std::string& order,
                               const Placement& p, const std::string& source, const KeepRules& rules,
                               const ScoreOptions& opt, const std::shared_ptr<ScoreState::Memo>& memo) {
  Job job = base;
  job.parallel.order = order;
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), order);
  RETURN_IF_ERROR(groups);
  const Layout layout = placement_layout(p, job_ranks(job), source);
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, layout, opt, memo);
  RETURN_IF_ERROR(state);
  const int violations = KeepCheck(*groups, rules).violations(c, layout);
  Objective o = objective_of(**state, violations);
  return Scored{order, std::move(job), std::move(*groups), std::move(*state), o, p};
}

// The orders local search starts from: the best two after placement in topology order.
constexpr size_t kSearched = 2;

std::string rule_finding(const KeepRules& rules, int violations) {
  std::vector<std::string> which;
  if (rules.tp_in_domain) which.push_back(kKeepTpInDomain);
  if (rules.dp_only_across_sites) which.push_back(kKeepDpOnlyAcrossSites);
  std::string names;
  for (const std::string& w : which) names += (names.empty() ? "" : " and ") + w;
  return std::to_string(violations) + (violations == 1 ? " group breaks " : " groups break ") + names +
         ": no placement of the job on these hosts keeps it";
}

}  // namespace

Result<std::vector<std::string>> keep_rules_parse(const std::string& list) {
  const std::vector<std::string> known = {kKeepTpInDomain, kKeepDpOnlyAcrossSites};
  std::vector<std::string> out;
  if (list == "none") return out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    if (std::find(known.begin(), known.end(), name) == known.end())
      return Error{"--keep: unknown rule '" + name + "'" + did_you_mean(name, known) +
                   " (rules: tp-in-domain, dp-only-across-sites, or none)"};
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

Result<void> plan_place(const Cluster& c, const Router& r, Plan& plan, const std::string& order, const Layout& layout,
                        const ScoreOptions& options, bool keep_given) {
  plan.job.parallel.order = order;
  plan.layout = layout;
  plan.host_order = c.hosts_of(layout.gpu_of_rank);
  ScoreOptions planned = options;
  planned.planned = true;
  Result<JobScore> score = score_job(c, r, plan.job, plan.layout, planned);
  RETURN_IF_ERROR(score);
  plan.score = std::move(*score);
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(plan.job), order);
  RETURN_IF_ERROR(groups);
  plan.violations = KeepCheck(*groups, plan.rules).violations(c, plan.layout);
  plan.findings.clear();
  if (plan.violations > 0) {
    if (keep_given) return Error{"--keep cannot hold: " + rule_finding(plan.rules, plan.violations)};
    plan.findings.push_back({.severity = "warning", .message = rule_finding(plan.rules, plan.violations)});
  }
  if (plan.hosts.partial_hosts)
    plan.findings.push_back({.severity = "warning",
                             .message = "not enough whole hosts: the plan uses hosts with a GPU, NIC or cable down",
                             .fix = "offer more whole hosts in --nodes"});
  plan.findings.insert(plan.findings.end(), plan.score.findings.begin(), plan.score.findings.end());
  return {};
}

Result<Plan> plan_job(const Cluster& c, const Router& r, const Job& job, const PlanRequest& req) {
  const double start = wall_seconds();
  const double deadline = req.time_limit_s > 0 ? start + req.time_limit_s : 0;
  auto say = [&](const std::string& what) {
    if (req.progress) req.progress(what);
  };
  const int ranks = job_ranks(job);
  const Locality& loc = locality_of(c);
  std::vector<int> offered = req.free;
  for (int h : offered)
    if (h < 0 || h >= static_cast<int>(c.hosts().size()))
      return Error{"host index " + std::to_string(h) + " is not in the cluster (0-" +
                   std::to_string(c.hosts().size() - 1) + ")"};
  offered = hosts_offered(c, offered);

  Plan plan;
  Result<HostChoice> choice = hosts_choose(c, loc, req.down, offered, ranks);
  RETURN_IF_ERROR(choice);
  plan.hosts = std::move(*choice);

  // Rules: in force where the job and the hosts allow them; asked for explicitly, they must.
  auto asked = [&](const char* rule) { return std::find(req.keep.begin(), req.keep.end(), rule) != req.keep.end(); };
  const int tp = std::max(job.parallel.tp, job.parallel.expert_tp);
  if (asked(kKeepTpInDomain) && tp > 1) {
    const int domain = largest_domain_gpus(c);
    if (tp <= domain)
      plan.rules.tp_in_domain = true;
    else if (req.keep_given)
      return Error{std::string("--keep ") + kKeepTpInDomain + " cannot hold: TP " + std::to_string(tp) +
                   " is larger than the largest NVLink domain (" + std::to_string(domain) + " GPUs)"};
  }
  if (asked(kKeepDpOnlyAcrossSites) && plan.hosts.spans[static_cast<size_t>(Level::site)] > 1)
    plan.rules.dp_only_across_sites = true;

  // The traffic's groups decide which order strings are really different.
  Result<ComputeEstimate> compute =
      compute_estimate(job, c.device(c.hosts()[static_cast<size_t>(plan.hosts.hosts.front())].gpus.front()).model,
                       *req.score.calibration);
  RETURN_IF_ERROR(compute);
  Result<StepTraffic> traffic = step_traffic(job, *compute);
  RETURN_IF_ERROR(traffic);
  std::vector<std::string> tokens;
  for (const TrafficItem& it : traffic->items) tokens.push_back(it.group);
  Result<std::vector<std::string>> orders = orders_distinct(job, tokens);
  RETURN_IF_ERROR(orders);
  plan.stats.orders = static_cast<int>(orders->size());

  // Baselines on the hosts as offered: the first that hold the job, in the scheduler's order.
  std::vector<int> input_hosts;
  int input_gpus = 0;
  for (int h : offered) {
    if (input_gpus >= ranks) break;
    const int up = static_cast<int>(req.down.gpus_up(c, h).size());
    if (up == 0) continue;
    input_hosts.push_back(h);
    input_gpus += up;
  }
  Placement input = placement_of(c, req.down, input_hosts, ranks);
  // Keep the scheduler's order for the input layout, partial hosts included.
  input.hosts = input_hosts;
  input.gpus.clear();
  for (int h : input_hosts) input.gpus.push_back(req.down.gpus_up(c, h));
  const Placement start_placement = placement_of(c, req.down, plan.hosts.hosts, ranks);

  // NCCL's choices, shared by every order's state: the same group shapes recur across orders.
  const std::shared_ptr<ScoreState::Memo> memo = ScoreState::memo_make(c, r, req.score);
  std::vector<Scored> placed;
  std::optional<Scored> input_job_order, input_best;
  std::string input_error, first_error;
  for (const std::string& order : *orders) {
    say("scoring order " + order);
    // An order whose groups cannot all be routed (a fabric cut by --exclude) is no candidate.
    Result<Scored> s = score_placement(c, r, job, order, start_placement, "plan", plan.rules, req.score, memo);
    if (!s) {
      if (first_error.empty()) first_error = order + ": " + s.error();
      continue;
    }
    // The baselines on the hosts as offered; offered already in topology order, no second score.
    if (req.beside) {
      const bool same = input.hosts == start_placement.hosts && input.gpus == start_placement.gpus;
      Result<Scored> in = same ? Result<Scored>(Scored{s->order, s->job, s->groups, nullptr, s->objective, {}})
                               : score_placement(c, r, job, order, input, "input", plan.rules, req.score, memo);
      if (!in && order == job.parallel.order) input_error = in.error();
      if (in && order == job.parallel.order)
        input_job_order.emplace(Scored{in->order, in->job, in->groups, nullptr, in->objective, {}});
      if (in && (!input_best || objective_better(in->objective, input_best->objective)))
        input_best.emplace(Scored{in->order, in->job, in->groups, nullptr, in->objective, {}});
    }
    plan.candidates.push_back({order, s->objective.exposed_us / 1e6, s->objective.violations});
    placed.push_back(std::move(*s));
    // Only the best order so far keeps its state (hundreds of MB at 100k GPUs): the next one the
    // search starts from is scored again when its turn comes, so no more than two live at once.
    std::stable_sort(placed.begin(), placed.end(),
                     [](const Scored& a, const Scored& b) { return objective_better(a.objective, b.objective); });
    for (size_t i = 1; i < placed.size(); ++i) placed[i].state.reset();
  }
  if (placed.empty()) return Error{"no order string can be placed on these hosts: " + first_error};
  std::stable_sort(plan.candidates.begin(), plan.candidates.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    return a.violations != b.violations ? a.violations < b.violations : a.exposed_s < b.exposed_s;
  });

  // The placements kept before the search moves them.
  for (size_t i = 0; i < std::min(req.layouts_kept, placed.size()); ++i)
    for (PlanCandidate& k : plan.candidates)
      if (k.order == placed[i].order) k.layout = placement_layout(placed[i].placement, ranks, "plan");

  // Local search on the most promising orders; the best result wins.
  const int regular = start_placement.regular;
  SearchLimits limits;
  limits.patience = std::clamp<int64_t>(2 * static_cast<int64_t>(regular), 200, 1000);
  limits.max_work = 5 * limits.patience;
  limits.deadline_s = deadline;
  const size_t searched = req.search ? std::min(placed.size(), kSearched) : 0;
  size_t best = 0;
  for (size_t i = 0; i < searched; ++i) {
    Scored& s = placed[i];
    if (!s.state) {
      Result<Scored> again = score_placement(c, r, job, s.order, s.placement, "plan", plan.rules, req.score, memo);
      RETURN_IF_ERROR(again);
      s.state = std::move(again->state);
    }
    limits.seed = req.seed * 0x9E3779B97F4A7C15ull + i;
    auto report = [&](const SearchStats& st, const Objective& o) {
      say("order " + s.order + ": " + format_duration(o.exposed_us / 1e6) + " exposed, " + std::to_string(st.moves) +
          " moves (" + format_number(st.moves / std::max(st.seconds, 1e-9), 0) + "/s)");
    };
    Result<SearchStats> st =
        search_placement(c, s.groups, plan.rules, s.placement, s.state, s.objective, limits, report);
    if (!st) return Error{s.order + ": " + st.error()};
    plan.stats.moves += st->moves;
    plan.stats.improved += st->improved;
    plan.stats.hit_time_limit = plan.stats.hit_time_limit || st->hit_deadline;
    ++plan.stats.searched;
    s.state.reset();  // the plan is scored afresh below
    if (objective_better(s.objective, placed[best].objective)) best = i;
  }
  Scored& won = placed[best];

  // The plan as reported is scored afresh, so `score --layout` of its file gives the same numbers.
  plan.job = won.job;
  RETURN_IF_ERROR(plan_place(c, r, plan, won.order, placement_layout(won.placement, ranks, "plan"), req.score,
                             req.keep_given));

  if (!req.beside) {
    plan.stats.seconds = wall_seconds() - start;
    return plan;
  }
  const std::string in_hosts = counted(static_cast<int64_t>(input_hosts.size()), "host") + " in the order offered";
  auto baseline = [&](const std::string& name, const std::optional<Scored>& s, const std::string& what) {
    if (s)
      plan.baselines.push_back({name, s->order, what, s->objective.exposed_us / 1e6, s->objective.violations});
    else
      plan.baselines.push_back({name, job.parallel.order, "cannot be scored: " + input_error, 0, 0, false});
  };
  baseline("input order", input_job_order, in_hosts + ", the job's order string");
  if (input_job_order) plan.input_layout = placement_layout(input, ranks, "input order");
  baseline("best order on the input hosts", input_best,
           in_hosts + ", the best of " + std::to_string(orders->size()) + " order strings");

  Result<LowerBound> lb = lower_bound(c, r, plan.job, plan.layout, req.score);
  RETURN_IF_ERROR(lb);
  plan.lower_bound_s = lb->exposed_s;
  plan.lower_bound_how = lb->how;
  if (req.score.fabric == FabricMode::shared && !req.score.background && plan.input_layout) {
    ScoreOptions idle = req.score;
    idle.fabric = FabricMode::idle;
    Result<std::unique_ptr<ScoreState>> in = ScoreState::make(c, r, job, *plan.input_layout, idle);
    Result<std::unique_ptr<ScoreState>> out = ScoreState::make(c, r, plan.job, plan.layout, idle);
    if (!in) return Error{"the input order on an idle fabric: " + in.error()};
    if (!out) return Error{"the plan on an idle fabric: " + out.error()};
    plan.idle = Plan::Idle{(*in)->exposed_us() / 1e6, (*out)->exposed_us() / 1e6};
  }
  plan.stats.seconds = wall_seconds() - start;
  return plan;
}

}  // namespace topoplan
