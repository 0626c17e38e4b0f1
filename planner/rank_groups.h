// Megatron-LM's rank groups: which global ranks form each TP, CP, EP, DP, PP (and combined) group
// for an order string such as "tp-cp-ep-dp-pp", the leftmost axis varying fastest. Semantics of
// RankGenerator, generate_masked_orthogonal_rank_groups and initialize_model_parallel in
// megatron/core/parallel_state.py (NVIDIA/Megatron-LM d98e8a64, rank_offset 0, gtp_remat 1).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace topoplan {

// The axes Megatron's RankGenerator knows; parallel string table in rank_groups.cc.
enum class Axis { tp, cp, ep, dp, pp };
inline constexpr int kAxisCount = 5;
const char* axis_name(Axis axis);

// A value per axis, indexed by Axis.
using PerAxis = std::array<int, kAxisCount>;
inline int& at(PerAxis& v, Axis a) { return v[static_cast<int>(a)]; }
inline int at(const PerAxis& v, Axis a) { return v[static_cast<int>(a)]; }

// Megatron's default (initialize_model_parallel's `order`).
inline constexpr std::string_view kDefaultOrder = "tp-cp-ep-dp-pp";

// Groups by group index, ranks in Megatron's order within each group.
using GroupList = std::vector<std::vector<int>>;

struct ParallelSizes {
  int tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
  int expert_tp = 0;  // 0 = tp, as expert_tensor_parallel_size=None
};

// Axis names of an order string, validated: known, not repeated. Axes left out are not added here.
Result<std::vector<Axis>> order_parse(std::string_view order);

// One RankGenerator: a mixed-radix grid over ranks 0..world-1, its axes in order, leftmost fastest.
class RankGrid {
 public:
  // Axes missing from `order` must have size 1; they are appended, as RankGenerator does.
  static Result<RankGrid> make(std::string_view order, const PerAxis& sizes);

  int world_size() const { return world_; }
  int size(Axis a) const { return at(sizes_, a); }
  // "tp-cp-ep-dp-pp": the order as given, completed with the missing axes.
  std::string order() const;

  // RankGenerator.get_ranks(token): for token "tp" or "tp-pp", each group holds the ranks whose
  // coordinates differ only on the named axes.
  Result<GroupList> groups(std::string_view token) const;
  // Coordinates of `rank` on each axis (rank = sum of coordinate * stride).
  PerAxis coordinates(int rank) const;

 private:
  std::vector<Axis> axes_;  // all kAxisCount axes, fastest first
  PerAxis sizes_{}, strides_{};
  int world_ = 0;
};

// The two generators initialize_model_parallel builds for one job: the dense one
// (tp, ep=1, dp, pp, cp) and the expert one (expert_tp, ep, expert_dp, pp, cp=1).
class RankGroups {
 public:
  // Checks the sizes and the order as initialize_model_parallel does, with readable messages.
  static Result<RankGroups> make(const ParallelSizes& sizes, std::string_view order = kDefaultOrder);

  const RankGrid& dense() const { return dense_; }
  const RankGrid& expert() const { return expert_; }
  int world_size() const { return dense_.world_size(); }

  // "tp", "dp-cp", "tp-pp" (Megatron's model-parallel group) … from the dense grid;
  // "expert.tp", "expert.ep", "expert.dp", "expert.tp-ep" … from the expert grid.
  Result<GroupList> groups(std::string_view token) const;

 private:
  RankGroups(RankGrid dense, RankGrid expert) : dense_(std::move(dense)), expert_(std::move(expert)) {}
  RankGrid dense_, expert_;
};

}  // namespace topoplan
