// Union-find over 0..n-1 with path halving: which devices a relation joins (a graph's components,
// PCIe switches shared in a topology file, parts of a switch tree).
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace topoplan {

struct UnionFind {
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
  std::vector<uint32_t> parent;
};

}  // namespace topoplan
