// What the HTML report draws (docs/report.md), as one JSON document embedded in the page: every
// device and link of the cluster, the job's load on each link direction (step average and busiest
// phase), the job's groups by kind as GPU devices, and the command's own text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/job.h"
#include "planner/score.h"

namespace topoplan {

struct ReportPart {
  std::string label;         // "layout default", "layout under review", "plan"
  const Job* job = nullptr;  // its order string places the groups; null: no rank groups
  const JobScore* score = nullptr;
  nlohmann::json tables;  // its tables as the command prints them (planner/score_tables)
  // Port counters' observed / predicted per directed edge (observe --html): 0 where no counter
  // measured it, kDotBusyUnpredicted where the job puts nothing on a busy link; null for none.
  const std::vector<double>* observed_ratio = nullptr;
  // Named sets of GPUs shown as groups of kind `sets_kind` (contention: each running job), each
  // lighting the links it loads when picked, rather than a ring; `heading` replaces the step line.
  struct GpuSet {
    std::string name;
    std::vector<VertexId> gpus;
    std::vector<EdgeId> edges;
  };
  std::string sets_kind;
  std::vector<GpuSet> sets;
  std::string heading;
};

// What the page opens with: the verdict on top, a group selected with its hosts open and the link
// the text names as its slowest, a link marked (explain --group, --link).
struct ReportFocus {
  std::string kind;  // a group_kinds() kind, "" for none
  int index = 0;
  std::optional<EdgeId> link;
  std::optional<EdgeId> slowest;  // the selected group's slowest link, as the text names it
  std::string verdict;            // the page's first line; "" takes the text's first line
};

// `text` is what the command prints, shown as it is. Each part is one scored layout of the same
// job on the same cluster (review shows the layout under review and the planner's side by side).
Result<nlohmann::json> report_data(const Cluster& cluster, const std::vector<ReportPart>& parts,
                                   const std::string& title, const std::string& text, const ReportFocus& focus = {});

}  // namespace topoplan
