// Names to indices for a container that holds the names itself: an open-addressing table of
// indices, probed linearly, so an entry is 8 bytes, with no copy of its name and no heap node
// of its own (a 100,000-GPU cluster names 340,000 devices, and a node-based map of them was a
// tenth of building the cluster). Callers pass the names by index (`name_of(i)`) on each call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace topoplan {

class NameIndex {
 public:
  template <typename NameOf>
  std::optional<uint32_t> find(std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return std::nullopt;
    const uint32_t h = hash(name);
    for (size_t s = h & mask();; s = (s + 1) & mask()) {
      const uint64_t at = slots_[s];
      if (at == 0) return std::nullopt;
      if (hash_of(at) == h && name_of(index_of(at)) == name) return index_of(at);
    }
  }
  // Puts `index` under `name`, unless the name has an index already: that one is returned.
  template <typename NameOf>
  std::optional<uint32_t> insert(std::string_view name, uint32_t index, const NameOf& name_of) {
    if (2 * (size_ + 1) > slots_.size()) grow(std::max<size_t>(16, 2 * slots_.size()));
    const uint32_t h = hash(name);
    for (size_t s = h & mask();; s = (s + 1) & mask()) {
      uint64_t& at = slots_[s];
      if (at == 0) {
        at = uint64_t{h} << 32 | (uint64_t{index} + 1);
        ++size_;
        return std::nullopt;
      }
      if (hash_of(at) == h && name_of(index_of(at)) == name) return index_of(at);
    }
  }
  void reserve(size_t n) {
    size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (want > slots_.size()) grow(want);
  }

 private:
  // A slot holds the name's hash (high half) beside its index + 1, so a probe reads a name only
  // when the hashes agree, and growing reads none.
  static uint32_t hash(std::string_view name) {
    const uint64_t h = std::hash<std::string_view>()(name);
    return static_cast<uint32_t>(h ^ (h >> 32));
  }
  static uint32_t hash_of(uint64_t slot) { return static_cast<uint32_t>(slot >> 32); }
  static uint32_t index_of(uint64_t slot) { return static_cast<uint32_t>(slot) - 1; }
  size_t mask() const { return slots_.size() - 1; }
  // A power of two at least twice the entries, so probes stay short.
  void grow(size_t n) {
    std::vector<uint64_t> old(n, 0);
    old.swap(slots_);
    for (uint64_t at : old)
      if (at != 0) {
        size_t s = hash_of(at) & mask();
        while (slots_[s] != 0) s = (s + 1) & mask();
        slots_[s] = at;
      }
  }

  std::vector<uint64_t> slots_;  // 0 for an empty slot
  size_t size_ = 0;
};

}  // namespace topoplan
