// A layout's score kept current while ranks move: every traffic item's groups, the bytes their
// transfers put on each link with all groups of the item running at once, each item's time under
// that contention, and the step's exposed communication. A move re-routes and re-times only the
// groups it touches (the planner's inner loop); `score` reads the same state once and adds the
// report. docs/model.md, "Score".
#pragma once

#include <array>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "cost/calibration.h"
#include "cost/collective.h"
#include "cost/link_share.h"
#include "cost/nccl_tuning.h"
#include "planner/layout.h"
#include "planner/traffic.h"
#include "topology/locality.h"

namespace topoplan {

struct ScoreOptions {
  const NcclTuning* tuning = &nccl_tuning_default();
  const Calibration* calibration = &calibration_default();
  FabricMode fabric = FabricMode::shared;
  const Background* background = nullptr;  // replaces the fabric mode's assumption where it says
  // The layout is the planner's best on its hosts: findings say what the hosts force rather
  // than send the user to the planner.
  bool planned = false;
  // The collectives to score instead of the model's (score --traffic: what NCCL's log saw), with
  // the model's compute and overlap windows.
  const StepTraffic* traffic = nullptr;
};

// One traffic item as it stands: the group that finishes last with every group of the item
// running, and its time per call under that contention.
struct ItemTime {
  int slowest_group = 0;
  double contended_us = 0, exposed_us = 0;  // exposed: per step
  EdgeId hot_edge = 0;                      // the link that bounds the slowest group under contention
  bool has_hot_edge = false;
};

class ScoreState {
 public:
  // Routes every group's collectives for `layout`, which must place exactly the job's ranks.
  static Result<std::unique_ptr<ScoreState>> make(const Cluster& cluster, const Router& router, const Job& job,
                                                  const Layout& layout, const ScoreOptions& options = {});
  ~ScoreState();

  // The same job and options on another layout, scored afresh.
  Result<std::unique_ptr<ScoreState>> remake(const Layout& layout) const;
  // NCCL's choice per group shape and collective, which states on one cluster and router can share
  // whatever their job, layout or share of the links (its tuner sees whole links): make takes it
  // back, and refuses it for another cluster, router, tuning or calibration.
  struct Memo;
  std::shared_ptr<Memo> memo() const;
  static std::shared_ptr<Memo> memo_make(const Cluster& cluster, const Router& router, const ScoreOptions& options);
  // What the groups' nodes are as NCCL sees them, kept in the memo: another model on the same
  // cluster and router (the lower bound's) reuses and adds to them.
  CommNodeCache* nodes() const;
  static Result<std::unique_ptr<ScoreState>> make(const Cluster& cluster, const Router& router, const Job& job,
                                                  const Layout& layout, const ScoreOptions& options,
                                                  std::shared_ptr<Memo> memo);

  // The same layout beside another background (ScoreOptions::background, which must outlive the
  // state; null: the fabric mode's assumption alone): only the links' shares change, so the
  // transfers and NCCL's choices (its tuner sees whole links) stay and nothing is routed again.
  void set_background(const Background* background);

  // Exchanges the GPUs of each pair of ranks, all at once, and re-scores the groups they touch.
  // Exchanging the same pairs again undoes it. After an error (a group that cannot be routed) the
  // state is unusable: remake it.
  Result<void> exchange(std::span<const std::pair<int, int>> rank_pairs);
  // Undoes the last exchange: the same as exchanging its pairs again, the same operations in the
  // same order, but with the transfers and NCCL choices it replaced kept rather than computed
  // again (a local search undoes most of its moves).
  Result<void> undo();

  const Layout& layout() const;
  const StepTraffic& traffic() const;
  const LinkShare& share() const;
  double exposed_us() const;  // the score: communication the step waits for
  double comm_us() const;     // every call, contended, as if nothing overlapped
  // Per step, over every item; compared from the top level down when exposures tie.
  LevelBytes level_bytes() const;

  size_t item_count() const;
  const ItemTime& item_time(size_t item) const;
  // The item's groups as GPUs, in Megatron's rank order.
  const std::vector<std::vector<VertexId>>& item_groups(size_t item) const;
  // NCCL's choice and time for a group of this one's shape, and the busiest link's busy time per
  // byte it was timed on.
  const CollectivePrediction& item_alone(size_t item, size_t group) const;
  double item_alone_peak(size_t item, size_t group) const;
  // One group's time per call with every group of the item running, and the link that sets it.
  struct GroupTime {
    double contended_us = 0;
    EdgeId hot_edge = 0;
    bool has_hot_edge = false;
  };
  GroupTime group_time(size_t item, size_t group) const;
  // How many of the item's groups load edge `e`; with the other stage classes' groups its own
  // contend with there (contending_on), for a stage class's item.
  int groups_on(size_t item, EdgeId e) const;
  int contending_on(size_t item, EdgeId e) const;
  // The groups running beside each other when the item runs: its own, and for a stage class's
  // item the other classes' too.
  size_t groups_running(size_t item) const;
  // What every group of the item loads at one byte, and what one group's transfers land on.
  const LinkLoad& item_load(size_t item) const;
  const Touched& item_touched(size_t item, size_t group) const;
  // The item's groups that make up group `index` of its token's list (a pipeline's stage pairs
  // for PP; none when a stage class's item leaves that group out), and the list index a group
  // of the item belongs to.
  std::vector<size_t> groups_of(size_t item, int index) const;
  int list_index(size_t item, size_t group) const;
  // The ranks of one group of the item, in Megatron's order.
  const std::vector<int>& group_ranks(size_t item, size_t group) const;
  // One group's own transfers alone, at one byte, into `into` (cleared first).
  Result<void> group_load(size_t item, size_t group, LinkLoad& into) const;

  struct Impl;

 private:
  explicit ScoreState(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Exposed communication per step, microseconds, from each item's time per call (0 for items
// that issue nothing): calls on the critical path count in full; calls that overlap a compute
// window share it with the other items overlapping that window; the calls that never hide (the
// last gradient bucket) count in full. Stage classes' items count only for the class that
// finishes last: its gradient reduction less its slack, then its optimizer-phase transfers; the
// other classes' items expose 0. Per item into `per_item` when given.
double exposure_us(const StepTraffic& traffic, const std::vector<double>& time_us,
                   std::vector<double>* per_item = nullptr);

// Contended time of one call from a group's time alone: its transfer time grows by how much more
// its busiest link carries with every group running (`shared`, busy microseconds per byte) than
// the link it was timed on alone (`alone_peak`); a time set by NCCL's per-channel rate grows
// only once the links are slower still.
double contended_us(const CollectivePrediction& alone, double alone_peak, double shared, double bytes);

}  // namespace topoplan
