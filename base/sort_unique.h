// A vector made sorted and free of repeats, in place.
#pragma once

#include <algorithm>
#include <vector>

namespace topoplan {

template <typename T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace topoplan
