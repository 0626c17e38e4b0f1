#include "observe/scored_traffic_text.h"

namespace topoplan {

std::string scored_traffic_text(const std::string& path, const ScoredTraffic& t) {
  std::string out = "\ntraffic from NCCL's log (" + path + "): " + std::to_string(t.matched.size()) +
                    " communicators scored as the job's groups\n";
  for (const std::string& u : t.unscored) out += "  left out: " + u + "\n";
  for (const std::string& n : t.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace topoplan
