#include "planner/orders.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "base/sort_unique.h"

namespace topoplan {

namespace {

// Pairs of axes in the opposite order from Megatron's default, tp-cp-ep-dp-pp.
int inversions(const std::string& order) {
  Result<std::vector<Axis>> axes = order_parse(order);
  if (!axes) return 0;
  int n = 0;
  for (size_t i = 0; i < axes->size(); ++i)
    for (size_t j = i + 1; j < axes->size(); ++j) n += (*axes)[i] > (*axes)[j];
  return n;
}

}  // namespace

Result<std::vector<std::string>> orders_distinct(const Job& job, const std::vector<std::string>& tokens) {
  std::vector<std::string> names = {"cp", "dp", "ep", "pp", "tp"};  // sorted: next_permutation visits all
  std::vector<std::string> candidates = {job.parallel.order};
  do {
    std::string o;
    for (const std::string& n : names) o += (o.empty() ? "" : "-") + n;
    if (o != job.parallel.order) candidates.push_back(o);
  } while (std::next_permutation(names.begin(), names.end()));

  // Two orders place the job alike when every group it uses holds the same ranks, compared by a
  // 64-bit hash of the group lists (holding the lists of 120 orders would take gigabytes at 100k
  // ranks; a collision among at most 120 hashes is not a practical concern).
  std::map<uint64_t, size_t> seen;  // hash -> index in out
  std::vector<std::string> out;
  std::vector<std::string> all_tokens = tokens;
  all_tokens.push_back("pp");  // pipeline neighbours come from the pp groups
  sort_unique(all_tokens);
  std::string first_error;
  for (const std::string& order : candidates) {
    Result<RankGroups> g = RankGroups::make(job_parallel_sizes(job), order);
    if (!g) {
      if (first_error.empty()) first_error = g.error();
      continue;
    }
    uint64_t key = 1469598103934665603ull;  // FNV-1a
    auto mix = [&key](uint64_t x) { key = (key ^ x) * 1099511628211ull; };
    for (const std::string& t : all_tokens) {
      Result<GroupList> l = g->groups(t);
      RETURN_IF_ERROR(l);
      for (const std::vector<int>& group : *l) {
        for (int rank : group) mix(static_cast<uint64_t>(rank));
        mix(UINT64_MAX);
      }
      mix(UINT64_MAX - 1);
    }
    auto [it, fresh] = seen.try_emplace(key, out.size());
    if (fresh)
      out.push_back(order);
    else if (inversions(order) < inversions(out[it->second]))
      out[it->second] = order;  // name the class by the order nearest Megatron's default
  }
  if (out.empty()) return Error{"no order string fits the job's sizes: " + first_error};
  return out;
}

}  // namespace topoplan
