// A fixed-size array of zeros that costs nothing until it is written: calloc hands large blocks
// straight from fresh anonymous pages, which the kernel zeroes on first touch, so an array over
// every link of a cluster (hundreds of thousands) costs only the pages a job's few thousand loaded
// links fall on. A std::vector would write every element on construction: in ScoreState::make on
// 1,024 GPUs of threetier-h100 that zeroing and its page faults were a quarter of the time.
// Only for trivially copyable T, whose all-zero bytes are the value zero.
#pragma once

#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace topoplan {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(size_t n) : n_(n), p_(allocate(n)) {}
  ZeroedArray(const ZeroedArray& o) : n_(o.n_), p_(allocate(o.n_)) {
    if (n_) std::memcpy(p_, o.p_, n_ * sizeof(T));
  }
  ZeroedArray(ZeroedArray&& o) noexcept : n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  ZeroedArray& operator=(ZeroedArray o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~ZeroedArray() { std::free(p_); }

  size_t size() const { return n_; }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }

 private:
  static T* allocate(size_t n) {
    if (n == 0) return nullptr;
    void* p = std::calloc(n, sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  size_t n_ = 0;
  T* p_ = nullptr;
};

}  // namespace topoplan
