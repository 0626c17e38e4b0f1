// What every benchmark prints: wall time and peak resident memory (as /usr/bin/time -v reports).
#pragma once

#include <sys/resource.h>

#include <chrono>

namespace topoplan::bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

}  // namespace topoplan::bench
