#include "planner/candidates_text.h"

#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

int span(const CandidateResult& r, Level level) { return r.spans[static_cast<size_t>(level)]; }

double best_step(const CandidateRanking& k) {
  return k.ranked.empty() || !k.results[k.ranked.front()].holds ? 0 : k.results[k.ranked.front()].step_s;
}

}  // namespace

std::string candidates_text(const Job& job, const std::vector<CandidateAllocation>& cands, const CandidateRanking& k) {
  const size_t n = cands.size();
  std::string out = job.name + " on " + counted(static_cast<int64_t>(n), "candidate") +
                    (k.searched ? ", each planned as plan --nodes would ("
                                : ", each placed as plan --nodes places it before its local search (") +
                    counted(k.planned, "plan") + " made";
  out += "; " + k.sharing + ")";
  if (k.running)
    out += ", beside " + counted(static_cast<int64_t>(k.running->running->jobs.size()), "running job") + " (" +
           k.running->running->source + ", " + std::string(to_string(k.running->alignment)) +
           " alignment), ranked by step x (GPUs + " + format_number(k.running->weight) +
           " x the GPUs' time it costs them)";
  out += ":\n";
  const double best = best_step(k);
  using A = TextTable::Align;
  // Beside running jobs, what each costs them and what the ranking orders by.
  std::vector<A> align = {A::right, A::left, A::right, A::right, A::right, A::right, A::right, A::right};
  std::vector<std::string> head = {"rank", "candidate", "hosts", "leaf groups", "pods", "step", "exposed", "vs best"};
  if (k.running) {
    align.insert(align.end(), {A::right, A::right});
    head.insert(head.end(), {"costs them", "GPU-s per step"});
  }
  align.push_back(A::left);
  head.push_back("order");
  TextTable table(align);
  table.add(head, "  ");
  std::string failed;
  for (size_t i : k.ranked) {
    const CandidateResult& r = k.results[i];
    if (!r.holds) {
      failed += "  " + cands[i].id + ": " + r.why + "\n";
      continue;
    }
    std::vector<std::string> row = {std::to_string(r.rank),
                                    cands[i].id,
                                    std::to_string(r.hosts.size()),
                                    std::to_string(span(r, Level::leaf_group)),
                                    std::to_string(span(r, Level::pod)),
                                    format_duration(r.step_s),
                                    format_duration(r.exposed_s),
                                    format_over_best(r.step_s, best)};
    if (k.running) row.insert(row.end(), {format_number(r.lost_gpus, 1) + " GPUs", format_number(r.cost_gpu_s, 1)});
    row.push_back(r.order + (r.violations > 0 ? " (" + counted(r.violations, "rule") + " broken)" : ""));
    table.add(row, "  ");
  }
  if (best > 0) out += table.str();
  if (!failed.empty()) out += (best > 0 ? "\n" : "") + std::string("do not hold the job:\n") + failed;
  return out;
}

nlohmann::json candidates_json(const Cluster& c, const Job& job, const std::vector<CandidateAllocation>& cands,
                               const CandidateRanking& k) {
  const double best = best_step(k);
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < cands.size(); ++i) {
    const CandidateResult& r = k.results[i];
    nlohmann::json e = {{"id", cands[i].id}, {"line", cands[i].line}, {"holds", r.holds}};
    if (r.holds) {
      e.update({{"rank", r.rank},
                {"step_s", r.step_s},
                {"exposed_s", r.exposed_s},
                {"over_best", r.step_s / best - 1},
                {"order", r.order},
                {"hosts", host_names(c, r.hosts)},
                {"leaf_groups", span(r, Level::leaf_group)},
                {"pods", span(r, Level::pod)},
                {"sites", span(r, Level::site)},
                {"rules_broken", r.violations}});
      if (k.running) e.update({{"lost_gpus", r.lost_gpus}, {"cost_gpu_s", r.cost_gpu_s}});
    } else {
      e["why"] = r.why;
    }
    e["planned_as"] = r.planned_as >= 0 ? nlohmann::json(cands[static_cast<size_t>(r.planned_as)].id) : nullptr;
    list.push_back(std::move(e));
  }
  nlohmann::json ranked = nlohmann::json::array();
  for (size_t i : k.ranked)
    if (k.results[i].holds) ranked.push_back(cands[i].id);
  nlohmann::json out = {{"job", job.name},    {"candidates", list},   {"ranked", ranked},
                        {"plans", k.planned}, {"search", k.searched}, {"sharing", k.sharing}};
  if (k.running)
    out["running"] = {{"source", k.running->running->source},
                      {"jobs", k.running->running->jobs.size()},
                      {"weight", k.running->weight},
                      {"alignment", to_string(k.running->alignment)}};
  return out;
}

}  // namespace topoplan
