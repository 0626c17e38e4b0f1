#include "observe/observed_dot_load.h"

namespace topoplan {

DotLoad observed_dot_load(const JobScore& score, const std::vector<double>& ratios) {
  DotLoad load;
  load.utilization = ratios;
  load.ratio = true;
  load.title = score.job + ": observed / predicted per link (x1 = as predicted; each edge its largest, down / up)";
  return load;
}

}  // namespace topoplan
