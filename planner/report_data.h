// What the HTML report draws (docs/report.md), as one JSON document embedded in the page: every
// device and link of the cluster, the job's load on each link direction (step average and busiest
// phase), the job's groups by kind as GPU devices, and the command's own text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planner/job.h"
#include "planner/score.h"

namespace topoplan {

struct ReportPart {
  std::string label;  // "score", "input layout", "plan"
  const JobScore* score = nullptr;
};

// `text` is what the command prints, shown as it is. Each part is one scored layout of the same
// job on the same cluster (review and plan show the input and the plan side by side).
Result<nlohmann::json> report_data(const Cluster& cluster, const Job& job, const std::vector<ReportPart>& parts,
                                   const std::string& title, const std::string& text);

}  // namespace topoplan
