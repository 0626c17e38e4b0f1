// Why a group of a placed job spans a slow hop, and what would bring it back (topoplan explain):
// its ranks, hosts and GPUs; the path between the ranks that exchange data, hop by hop; the link
// that bounds it and the share of its time spent behind it; the cause (the order string's axes, or
// the lines of the layout file); its time inside one NVLink domain, one leaf group, one pod; and
// the moves that get there with the job's exposed communication after each. Also per rank (every
// group it is in) and per link (which groups and collectives load it, by phase).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "planner/group_ref.h"
#include "planner/score.h"

namespace topoplan {

struct PairPath {
  int from_rank = 0, to_rank = 0;
  Route route;
  int count = 1;  // pairs with the same shape of path, folded into this one
};

struct InsideUnit {
  Level level = Level::domain;
  bool possible = false;
  std::string why_not;  // when not possible
  std::string hosts;    // where it was timed
  double alone_us = 0;  // the group's heaviest collective there, alone
};

// A change to the layout, scored: only moves that lower the job's exposed communication are offered.
struct Move {
  std::string what;
  std::string order;                               // the order string after the move
  std::vector<std::pair<int, int>> exchange;       // ranks whose GPUs trade places
  std::vector<std::pair<int, VertexId>> moves_to;  // ranks that move, and the GPU each moves to
  double exposed_s = 0;                            // the job's exposed communication after it
};

struct GroupExplanation {
  GroupRef ref;
  std::string token;  // the group list it indexes ("tp", "dp-cp", "pp", "expert.ep" ...)
  std::vector<int> ranks;
  std::vector<VertexId> gpus;
  bool found_traffic = false;             // the job issues collectives on it
  TrafficItem item;                       // its heaviest collective
  double alone_us = 0, contended_us = 0;  // per call
  double per_step_s = 0;                  // every collective on the group, contended, per step
  double excess_s = 0;                    // per step, over each collective's best-case time
  std::vector<PairPath> paths;
  std::vector<EdgeId> path_edges;  // every directed edge on the paths of every pair, sorted
  bool has_slowest = false;
  EdgeId slowest = 0;
  double behind_share = 0;  // of a call's time spent draining the slowest link
  std::string why;
  std::vector<InsideUnit> inside;
  std::vector<Move> moves;  // each lowers the job's exposed communication, best last
  std::string summary;      // one line
};

struct LinkExplanation {
  EdgeId edge = 0;
  struct Use {
    TrafficItem item;
    int groups = 0;
    double bytes_per_step = 0, busy_s = 0;
  };
  std::vector<Use> uses;
  struct PhaseLoad {
    std::string phase;
    double busy_s = 0, duration_s = 0, utilization = 0;
  };
  std::vector<PhaseLoad> phases;
};

class Explainer {
 public:
  static Result<std::unique_ptr<Explainer>> make(const Cluster& cluster, const Router& router, const Job& job,
                                                 const Layout& layout, const DownSet& down,
                                                 const ScoreOptions& options);
  ~Explainer();

  // With moves and counterfactuals.
  Result<GroupExplanation> group(const GroupRef& ref);
  // Every group the rank is in, summaries only.
  Result<std::vector<GroupExplanation>> rank(int rank);
  Result<LinkExplanation> link(const std::string& name);
  // The groups whose collectives cost the most over their best case, explained in full.
  Result<std::vector<GroupExplanation>> costliest(size_t n);

  const JobScore& score() const;
  const Job& job() const;

  struct Impl;

 private:
  explicit Explainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace topoplan
