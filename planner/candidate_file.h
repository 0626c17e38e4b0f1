// A scheduler's candidate allocations (advise --candidates): one per line, either a Slurm hostlist
// ("h[001-012,017-020]") or a JSON object {"id": "rack7", "hosts": "h[001-016]"} whose hosts are a
// hostlist or an array of names. Blank lines and lines starting with # are skipped. Errors name the
// file and line: an unknown host, a host listed twice, a malformed hostlist or JSON, an id used twice.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct CandidateAllocation {
  std::string id;  // the JSON line's, else "line N"
  int line = 0;
  std::vector<int> hosts;  // in the order given
};

Result<std::vector<CandidateAllocation>> candidates_parse(const Cluster& cluster, const std::string& text,
                                                          const std::string& where);
Result<std::vector<CandidateAllocation>> candidates_load(const Cluster& cluster, const std::string& path);

}  // namespace topoplan
