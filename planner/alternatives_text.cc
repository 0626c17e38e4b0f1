#include "planner/alternatives_text.h"

#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/summary.h"

namespace topoplan {

std::string alternatives_text(const Job& job, const Alternatives& list, const std::string& why) {
  std::string out = why + "\n";
  out += "layouts of " + job.name + " on at most " + counted(list.gpus_available, "GPU") + ", legal for the model, " +
         "with its global batch of " + std::to_string(job.training.global_batch) + " and within GPU memory (" +
         std::to_string(list.legal) + " legal, " + std::to_string(list.over_memory) +
         " over memory), fastest first:\n";
  using A = TextTable::Align;
  TextTable table({A::left, A::right, A::right, A::right, A::right, A::right});
  table.add({"layout", "GPUs", "step", "exposed", "MFU", "memory"}, "  ");
  for (const Alternative& a : list.ranked) {
    const Parallelism& p = a.job.parallel;
    std::string sizes = "tp " + std::to_string(p.tp) + " pp " + std::to_string(p.pp) +
                        (p.virtual_pipeline_stages > 1 ? " v " + std::to_string(p.virtual_pipeline_stages) : "") +
                        " cp " + std::to_string(p.cp) + " ep " + std::to_string(p.ep) + " dp " + std::to_string(p.dp) +
                        (a.is_job ? " (as given)" : "");
    table.add({sizes, std::to_string(job_ranks(a.job)), format_duration(a.step_s), format_duration(a.exposed_s),
               format_number(100 * a.mfu, 1) + "%", format_bytes(a.memory_peak_bytes, SizeUnits::binary)},
              "  ");
  }
  out += table.str();
  out += "each scored on the hosts the planner would take for it, ranks host-major in the job's order, before the "
         "planner's search; `topoplan plan` on a job with those sizes gives its rank order\n";
  return out;
}

nlohmann::json alternatives_json(const Cluster& c, const Job& job, const Alternatives& list) {
  nlohmann::json ranked = nlohmann::json::array();
  for (const Alternative& a : list.ranked) {
    const Parallelism& p = a.job.parallel;
    ranked.push_back({{"parallel",
                       {{"tp", p.tp},
                        {"pp", p.pp},
                        {"virtual_pipeline_stages", p.virtual_pipeline_stages},
                        {"cp", p.cp},
                        {"ep", p.ep},
                        {"expert_tp", p.expert_tp},
                        {"dp", p.dp},
                        {"sequence_parallel", p.sequence_parallel}}},
                      {"gpus", job_ranks(a.job)},
                      {"step_s", a.step_s},
                      {"exposed_s", a.exposed_s},
                      {"mfu", a.mfu},
                      {"memory_peak_bytes", a.memory_peak_bytes},
                      {"hosts", host_names(c, a.hosts)},
                      {"is_job", a.is_job}});
  }
  return {{"job", job.name},
          {"job_gpus", job_ranks(job)},
          {"gpus_available", list.gpus_available},
          {"legal", list.legal},
          {"over_memory", list.over_memory},
          {"ranked", ranked}};
}

}  // namespace topoplan
