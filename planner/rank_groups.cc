#include "planner/rank_groups.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>

#include "base/limits.h"
#include "base/suggest.h"
#include "base/units.h"
#include "base/words.h"

namespace topoplan {
namespace {

constexpr const char* kAxisNames[kAxisCount] = {"tp", "cp", "ep", "dp", "pp"};

std::vector<std::string> axis_names() { return {std::begin(kAxisNames), std::end(kAxisNames)}; }

std::vector<std::string_view> split_dashes(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t dash = text.find('-', start);
    parts.push_back(text.substr(start, dash - start));
    if (dash == std::string_view::npos) return parts;
    start = dash + 1;
  }
}

Result<Axis> axis_parse(std::string_view name) {
  for (int i = 0; i < kAxisCount; ++i)
    if (name == kAxisNames[i]) return static_cast<Axis>(i);
  std::string what =
      name.empty() ? "empty axis name" : "unknown axis '" + std::string(name) + "'" + did_you_mean(name, axis_names());
  return Error{what + " (axes: tp, cp, ep, dp, pp)"};
}

std::optional<Error> sizes_check(const PerAxis& sizes) {
  for (int i = 0; i < kAxisCount; ++i)
    if (sizes[i] < 1)
      return Error{std::string(kAxisNames[i]) + " size must be positive, got " + std::to_string(sizes[i])};
  return std::nullopt;
}

// Sum of index * stride over a mixed-radix grid, for every index in enumeration order (leftmost
// digit fastest): the decompose + inner_product of generate_masked_orthogonal_rank_groups, done
// incrementally so a whole grid costs one pass.
std::vector<int> grid_offsets(const std::vector<int>& shape, const std::vector<int>& stride) {
  size_t count = 1;
  for (int s : shape) count *= static_cast<size_t>(s);
  std::vector<int> out;
  out.reserve(count);
  std::vector<int> index(shape.size(), 0);
  int offset = 0;
  for (size_t k = 0; k < count; ++k) {
    out.push_back(offset);
    for (size_t d = 0; d < shape.size(); ++d) {
      if (++index[d] < shape[d]) {
        offset += stride[d];
        break;
      }
      offset -= (shape[d] - 1) * stride[d];
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

const char* axis_name(Axis axis) { return kAxisNames[static_cast<int>(axis)]; }

Result<std::vector<Axis>> order_parse(std::string_view order) {
  // RankGenerator lower-cases the order before reading it.
  const std::string lowered = lower(order);
  std::string where = "order '" + std::string(order) + "'";
  std::vector<Axis> axes;
  for (std::string_view name : split_dashes(lowered)) {
    Result<Axis> axis = axis_parse(name);
    if (!axis) return error_in(where, axis.error());
    if (std::find(axes.begin(), axes.end(), *axis) != axes.end())
      return error_in(where, "axis '" + std::string(name) + "' appears twice");
    axes.push_back(*axis);
  }
  return axes;
}

Result<RankGrid> RankGrid::make(std::string_view order, const PerAxis& sizes) {
  Result<std::vector<Axis>> parsed = order_parse(order);
  RETURN_IF_ERROR(parsed);
  RankGrid grid;
  grid.axes_ = *parsed;
  grid.sizes_ = sizes;
  if (auto bad = sizes_check(sizes)) return *bad;
  for (int i = 0; i < kAxisCount; ++i) {
    Axis a = static_cast<Axis>(i);
    if (std::find(grid.axes_.begin(), grid.axes_.end(), a) != grid.axes_.end()) continue;
    // RankGenerator appends a missing axis only when its size is 1, and raises otherwise.
    if (sizes[i] != 1)
      return Error{"order '" + std::string(order) + "' lacks '" + axis_name(a) + "', but the " + axis_name(a) +
                   " size is " + std::to_string(sizes[i])};
    grid.axes_.push_back(a);
  }
  int64_t stride = 1;
  for (Axis a : grid.axes_) {
    at(grid.strides_, a) = static_cast<int>(stride);
    stride *= at(sizes, a);
    if (stride > INT_MAX) return Error{"world size exceeds " + std::to_string(INT_MAX) + " ranks"};
  }
  grid.world_ = static_cast<int>(stride);
  return grid;
}

std::string RankGrid::order() const {
  std::string s;
  for (Axis a : axes_) s += (s.empty() ? "" : "-") + std::string(axis_name(a));
  return s;
}

Result<GroupList> RankGrid::groups(std::string_view token) const {
  std::array<bool, kAxisCount> masked{};
  for (std::string_view name : split_dashes(token)) {
    Result<Axis> axis = axis_parse(name);
    if (!axis) return error_in("group '" + std::string(token) + "'", axis.error());
    masked[static_cast<int>(*axis)] = true;
  }
  std::vector<int> in_shape, in_stride, across_shape, across_stride;
  for (Axis a : axes_) {
    bool m = masked[static_cast<int>(a)];
    (m ? in_shape : across_shape).push_back(at(sizes_, a));
    (m ? in_stride : across_stride).push_back(at(strides_, a));
  }
  // Group index enumerates the unmasked axes, position in a group the masked ones.
  std::vector<int> starts = grid_offsets(across_shape, across_stride);
  std::vector<int> members = grid_offsets(in_shape, in_stride);
  GroupList out(starts.size(), std::vector<int>(members.size()));
  for (size_t g = 0; g < starts.size(); ++g)
    for (size_t j = 0; j < members.size(); ++j) out[g][j] = starts[g] + members[j];
  return out;
}

PerAxis RankGrid::coordinates(int rank) const {
  PerAxis c{};
  for (int i = 0; i < kAxisCount; ++i) c[i] = rank / strides_[i] % sizes_[i];
  return c;
}

Result<RankGroups> RankGroups::make(const ParallelSizes& s, std::string_view order) {
  if (auto bad = sizes_check({s.tp, s.cp, s.ep, s.dp, s.pp})) return *bad;
  if (s.expert_tp < 0)
    return Error{"expert_tp size must be positive (or 0 for the tp size), got " + std::to_string(s.expert_tp)};
  // Sizes are at most INT_MAX each, so the product of four cannot overflow once each is capped.
  int64_t world = 1;
  for (int size : {s.tp, s.cp, s.pp, s.dp}) world = std::min(world * size, limits::kMaxRanks + 1);
  if (world > limits::kMaxRanks)
    return Error{"world size tp*cp*pp*dp = " + std::to_string(s.tp) + "*" + std::to_string(s.cp) + "*" +
                 std::to_string(s.pp) + "*" + std::to_string(s.dp) + " is more than the limit of " +
                 format_count(limits::kMaxRanks) + " ranks (one per GPU of the largest cluster accepted)"};

  // initialize_model_parallel: expert_dp = world // (expert_tp * ep * pp), CP folded into it.
  int expert_tp = s.expert_tp ? s.expert_tp : s.tp;
  int64_t expert_model = int64_t{expert_tp} * s.ep * s.pp;
  if (world % expert_model != 0)
    return Error{"world size " + std::to_string(world) +
                 " (tp*cp*pp*dp) is not divisible by expert_tp*ep*pp = " + std::to_string(expert_tp) + "*" +
                 std::to_string(s.ep) + "*" + std::to_string(s.pp) + " = " + std::to_string(expert_model)};
  int expert_dp = static_cast<int>(world / expert_model);

  Result<RankGrid> dense = RankGrid::make(order, {s.tp, s.cp, 1, s.dp, s.pp});
  RETURN_IF_ERROR(dense);
  Result<RankGrid> expert = RankGrid::make(order, {expert_tp, 1, s.ep, expert_dp, s.pp});
  if (!expert) return error_in("expert grid", expert.error());

  // Only a pp-last order keeps attention and MoE layers' data parallelism free to differ.
  bool pp_last = order_parse(order)->back() == Axis::pp;
  if (!pp_last && s.pp != 1 && expert_dp != s.dp)
    return Error{"order '" + std::string(order) + "' does not end with pp, so with pp " + std::to_string(s.pp) +
                 " the expert dp size (" + std::to_string(expert_dp) + ") must equal the dp size (" +
                 std::to_string(s.dp) + ")"};
  // Both grids feed one pipeline: a stage must hold the same ranks in the dense and MoE layers.
  if (dense->groups("pp").value() != expert->groups("pp").value())
    return Error{"order '" + std::string(order) + "' gives different pipeline groups for the dense grid (" +
                 dense->order() + ") and the expert grid (" + expert->order() + "); Megatron requires them equal"};
  return RankGroups(std::move(*dense), std::move(*expert));
}

Result<GroupList> RankGroups::groups(std::string_view token) const {
  size_t dot = token.find('.');
  if (dot == std::string_view::npos) return dense_.groups(token);
  std::string_view grid = token.substr(0, dot);
  if (grid != "expert")
    return Error{"group '" + std::string(token) + "': unknown grid '" + std::string(grid) + "'" +
                 did_you_mean(grid, {"expert"}) + " (groups are 'tp', 'dp-cp', … or 'expert.tp', …)"};
  return expert_.groups(token.substr(dot + 1));
}

}  // namespace topoplan
