#include "planner/plan_json.h"

#include "base/json_fields.h"
#include "planner/plan.h"
#include "planner/score_json.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

// The groups initialize_model_parallel builds communicators for.
constexpr const char* kGroupTokens[] = {"tp", "cp", "dp", "pp", "dp-cp", "expert.tp", "expert.ep", "expert.dp"};

}  // namespace

Result<nlohmann::json> plan_document_parse(const std::string& text, const std::string& where) {
  return json_parse_document(text, where, kPlanFormat, "a plan file", "topoplan plan --emit json");
}

Result<Layout> plan_layout_read(const nlohmann::json& doc, const std::string& where, const Cluster& c, int world) {
  static const std::vector<std::string> keys = {"format",      "cluster",     "job",      "order",     "fabric",
                                                "background",  "exclude",     "keep",     "seed",      "hosts",
                                                "ranks",       "groups",      "score",    "baselines", "candidates",
                                                "lower_bound", "idle_fabric", "findings", "search"};
  std::string error;
  Fields top(doc, "", keys, &error);
  const nlohmann::json* ranks = top.list("ranks", true);
  const std::string order = top.name("order");
  std::vector<std::string> down;
  if (const nlohmann::json* ex = top.list("exclude", false))
    for (size_t i = 0; i < ex->size() && error.empty(); ++i) {
      if (!(*ex)[i].is_string())
        top.fail(json_indexed("exclude", i), "expected a device or link name, got " + json_shown((*ex)[i]));
      else
        down.push_back((*ex)[i].get<std::string>());
    }
  if (!error.empty()) return error_in(where, error);
  Result<Layout> out = layout_from_ranks(*ranks, {"rank", "host", "gpu", "nic"}, where, c, world);
  if (out) {
    out->order = order;
    out->down = std::move(down);
  }
  return out;
}

nlohmann::json plan_to_json(const Cluster& c, const Router& r, const std::string& cluster, const Plan& plan,
                            const PlanRequest& req) {
  nlohmann::json j;
  j["format"] = kPlanFormat;
  j["cluster"] = cluster;
  j["job"] = job_to_json(plan.job);
  j["order"] = plan.job.parallel.order;
  j["fabric"] = std::string(to_string(req.score.fabric));
  j["background"] = req.score.background ? nlohmann::json(req.score.background->source) : nlohmann::json(nullptr);
  j["exclude"] = req.down.names;
  nlohmann::json keep = nlohmann::json::array();
  if (plan.rules.tp_in_domain) keep.push_back("tp-in-domain");
  if (plan.rules.dp_only_across_sites) keep.push_back("dp-only-across-sites");
  j["keep"] = {{"rules", keep}, {"violations", plan.violations}};
  j["seed"] = req.seed;

  const HostChoice& hc = plan.hosts;
  j["hosts"] = {{"rank_order", host_names(c, plan.host_order)},
                {"why", hc.why},
                {"gpus", hc.gpus},
                {"leaf_groups", hc.spans[static_cast<size_t>(Level::leaf_group)]},
                {"pods", hc.spans[static_cast<size_t>(Level::pod)]},
                {"sites", hc.spans[static_cast<size_t>(Level::site)]}};

  j["ranks"] = rank_map_json(c, r, plan.layout.gpu_of_rank);

  nlohmann::json groups;
  if (Result<RankGroups> g = RankGroups::make(job_parallel_sizes(plan.job), plan.job.parallel.order))
    for (const char* t : kGroupTokens) groups[t] = g->groups(t).value();
  j["groups"] = std::move(groups);

  j["score"] = score_to_json(c, r, cluster, plan.score);
  j["score"].erase("placement");  // the plan's "ranks" above
  nlohmann::json baselines = nlohmann::json::array();
  for (const PlanBaseline& b : plan.baselines)
    baselines.push_back(
        {{"name", b.name},
         {"order", b.order},
         {"what", b.what},
         {"scored", b.scored},
         {"exposed_comm_s", b.scored ? nlohmann::json(b.exposed_s) : nlohmann::json(nullptr)},
         {"step_s", b.scored ? nlohmann::json(plan.score.compute_s + b.exposed_s) : nlohmann::json(nullptr)},
         {"rule_violations", b.violations},
         {"ratio", b.scored && plan.score.exposed_comm_s > 0 ? nlohmann::json(b.exposed_s / plan.score.exposed_comm_s)
                                                             : nlohmann::json(nullptr)}});
  j["baselines"] = std::move(baselines);
  nlohmann::json candidates = nlohmann::json::array();
  for (const PlanCandidate& k : plan.candidates)
    candidates.push_back({{"order", k.order}, {"exposed_comm_s", k.exposed_s}, {"rule_violations", k.violations}});
  j["candidates"] = std::move(candidates);
  j["lower_bound"] = plan.lower_bound_s
                         ? nlohmann::json{{"exposed_comm_s", *plan.lower_bound_s}, {"how", plan.lower_bound_how}}
                         : nlohmann::json(nullptr);
  j["idle_fabric"] = plan.idle ? nlohmann::json{{"input_exposed_comm_s", plan.idle->input_exposed_s},
                                                {"exposed_comm_s", plan.idle->exposed_s}}
                               : nlohmann::json(nullptr);
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : plan.findings) findings.push_back(finding_json(c, f));
  j["findings"] = std::move(findings);
  j["search"] = {{"orders", plan.stats.orders},
                 {"searched", plan.stats.searched},
                 {"moves", plan.stats.moves},
                 {"improved", plan.stats.improved},
                 {"hit_time_limit", plan.stats.hit_time_limit}};
  return j;
}

}  // namespace topoplan
