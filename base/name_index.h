// Names to indices for a container that holds the names itself: an open-addressing table of
// indices, probed linearly, so an entry is 4 bytes, with no copy of its name and no heap node
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
    for (size_t s = start(name);; s = (s + 1) & mask()) {
      const uint32_t at = slots_[s];
      if (at == 0) return std::nullopt;
      if (name_of(at - 1) == name) return at - 1;
    }
  }
  // Puts `index` under `name`, unless the name has an index already: that one is returned.
  template <typename NameOf>
  std::optional<uint32_t> insert(std::string_view name, uint32_t index, const NameOf& name_of) {
    if (2 * (size_ + 1) > slots_.size()) grow(std::max<size_t>(16, 2 * slots_.size()), name_of);
    for (size_t s = start(name);; s = (s + 1) & mask()) {
      uint32_t& at = slots_[s];
      if (at == 0) {
        at = index + 1;
        ++size_;
        return std::nullopt;
      }
      if (name_of(at - 1) == name) return at - 1;
    }
  }
  template <typename NameOf>
  void reserve(size_t n, const NameOf& name_of) {
    size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (want > slots_.size()) grow(want, name_of);
  }

 private:
  size_t mask() const { return slots_.size() - 1; }
  size_t start(std::string_view name) const { return std::hash<std::string_view>()(name) & mask(); }
  // A power of two at least twice the entries, so probes stay short.
  template <typename NameOf>
  void grow(size_t n, const NameOf& name_of) {
    std::vector<uint32_t> old(n, 0);
    old.swap(slots_);
    for (uint32_t at : old)
      if (at != 0) {
        size_t s = start(name_of(at - 1));
        while (slots_[s] != 0) s = (s + 1) & mask();
        slots_[s] = at;
      }
  }

  std::vector<uint32_t> slots_;  // index + 1; 0 for an empty slot
  size_t size_ = 0;
};

}  // namespace topoplan
