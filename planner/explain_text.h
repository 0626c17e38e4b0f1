// An explanation as `topoplan explain` prints it: the job's line, then each group asked for, or
// the link and the collectives that load it.
#pragma once

#include <string>
#include <vector>

#include "planner/explain.h"
#include "planner/layout.h"

namespace topoplan {

// How the groups were asked for: it sets the heading, and a rank's groups are shown by their
// summary alone, since a rank is in one group of every kind.
enum class ExplainAsked : uint8_t { group, rank, costliest };

// The group's placement, heaviest collective, slowest link, paths hop by hop, what fits inside one
// unit and the moves that lower `exposed_s`, the job's exposed communication now.
std::string group_explanation_text(const Cluster& cluster, const GroupExplanation& group, double exposed_s);

// `rank` is the one asked for, with ExplainAsked::rank.
std::string explain_groups_text(const Cluster& cluster, const Job& job, const Layout& layout, double exposed_s,
                                const std::vector<GroupExplanation>& groups, ExplainAsked asked, int rank);

// The link, each collective that crosses it and its busy time per phase.
std::string link_explanation_text(const Cluster& cluster, const LinkExplanation& link);

}  // namespace topoplan
