// A fixed-size array of zeros that costs nothing until it is written: a large one is mapped from
// fresh anonymous pages, which the kernel zeroes on first touch, so an array over every link of a
// cluster (hundreds of thousands) costs only the pages a job's few thousand loaded links fall on.
// A std::vector would write every element on construction: in ScoreState::make on 1,024 GPUs of
// threetier-h100 that zeroing and its page faults were a quarter of the time. calloc is not
// enough: once a large block is freed, glibc raises its mmap threshold (up to 32 MiB) and serves
// the next ones from the heap, zeroing every byte (a tenth of `contention` on 100 jobs).
// Only for trivially copyable T, whose all-zero bytes are the value zero.
#pragma once

#include <sys/mman.h>

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
  ~ZeroedArray() { release(p_, n_); }

  size_t size() const { return n_; }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }

 private:
  // Below this, calloc's heap blocks are cheaper than a mapping and its page faults.
  static constexpr size_t kMapBytes = size_t{1} << 20;
  static T* allocate(size_t n) {
    if (n == 0) return nullptr;
    void* p = nullptr;
    if (n * sizeof(T) >= kMapBytes) {
      p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
    } else {
      p = std::calloc(n, sizeof(T));
      if (!p) throw std::bad_alloc();
    }
    return static_cast<T*>(p);
  }
  static void release(T* p, size_t n) {
    if (!p) return;
    if (n * sizeof(T) >= kMapBytes)
      ::munmap(p, n * sizeof(T));
    else
      std::free(p);
  }
  size_t n_ = 0;
  T* p_ = nullptr;
};

}  // namespace topoplan
