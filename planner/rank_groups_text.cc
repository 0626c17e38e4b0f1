#include "planner/rank_groups_text.h"

#include <iomanip>
#include <sstream>

namespace topoplan {

namespace {

// The lists printed, in this order: the groups initialize_model_parallel builds communicators for.
constexpr const char* kTokens[] = {"tp",    "cp",        "dp",        "pp",        "tp-pp",
                                   "dp-cp", "expert.ep", "expert.dp", "expert.tp", "expert.tp-ep"};

// Text output shows the head of each list; --json has every group.
constexpr size_t kShownGroups = 4;
constexpr size_t kShownRanks = 8;

std::string group_text(const std::vector<int>& group) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < group.size(); ++i) {
    if (i == kShownRanks - 1 && group.size() > kShownRanks) {
      s << " ... " << group.back();
      break;
    }
    s << (i ? " " : "") << group[i];
  }
  s << "]";
  return s.str();
}

std::string grid_text(const RankGrid& grid, std::initializer_list<Axis> axes) {
  std::string s;
  for (Axis a : axes) s += (s.empty() ? "" : ", ") + std::string(axis_name(a)) + " " + std::to_string(grid.size(a));
  return s;
}

}  // namespace

std::string rank_groups_json(const RankGroups& g) {
  std::ostringstream out;
  out << "{";
  const char* sep = "\n";
  for (const char* token : kTokens) {
    out << sep << "  \"" << token << "\": [";
    const char* gsep = "";
    GroupList groups = g.groups(token).value();
    for (const auto& group : groups) {
      out << gsep << "[";
      for (size_t i = 0; i < group.size(); ++i) out << (i ? ", " : "") << group[i];
      out << "]";
      gsep = ", ";
    }
    out << "]";
    sep = ",\n";
  }
  out << "\n}\n";
  return out.str();
}

std::string rank_groups_text(const RankGroups& g) {
  std::ostringstream out;
  out << "# world " << g.world_size() << ", order " << g.dense().order() << "; dense grid "
      << grid_text(g.dense(), {Axis::tp, Axis::cp, Axis::dp, Axis::pp}) << "; expert grid "
      << grid_text(g.expert(), {Axis::tp, Axis::ep, Axis::dp, Axis::pp}) << "\n";
  out << "# group         count x size  first groups (--json for all)\n";
  for (const char* token : kTokens) {
    GroupList groups = g.groups(token).value();
    out << std::left << std::setw(14) << token << std::right << std::setw(6) << groups.size() << " x " << std::left
        << std::setw(6) << groups[0].size() << std::right;
    for (size_t i = 0; i < groups.size() && i < kShownGroups; ++i) out << " " << group_text(groups[i]);
    if (groups.size() > kShownGroups) out << " ... " << groups.size() - kShownGroups << " more";
    out << "\n";
  }
  return out.str();
}

}  // namespace topoplan
