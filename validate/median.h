// The median of a sample, for measurements where one interrupted or odd value must not decide:
// the middle value, or the mean of the middle two; 0 for an empty sample.
#pragma once

#include <algorithm>
#include <vector>

namespace topoplan {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace topoplan
