// What the drawing and the HTML report single out of an explanation: the groups' paths and hosts,
// or the one link, in blue on the job's load, and the group the page opens on.
#pragma once

#include <optional>
#include <vector>

#include "planner/explain.h"
#include "planner/report_data.h"
#include "topology/formats/dot.h"

namespace topoplan {

// The job's load with the links of the groups' paths and their hosts in blue, or `link`.
DotLoad explain_dot_load(const Cluster& cluster, const JobScore& score, const std::vector<GroupExplanation>& groups,
                         const std::optional<EdgeId>& link);

// The first group, with its slowest link, as the text names them; none for no groups.
ReportFocus explain_focus(const std::vector<GroupExplanation>& groups);

}  // namespace topoplan
