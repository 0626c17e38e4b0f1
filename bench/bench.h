// What every benchmark prints: wall time and peak resident memory (as /usr/bin/time -v reports);
// and how it stops on inputs that do not load.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/error.h"

namespace topoplan::bench {

// A benchmark's inputs are its own: one that does not load is a bug, said and stopped.
template <typename T>
T or_die(Result<T> r) {
  if (!r) std::fprintf(stderr, "%s\n", r.error().c_str()), std::exit(1);
  return std::move(*r);
}

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

}  // namespace topoplan::bench
