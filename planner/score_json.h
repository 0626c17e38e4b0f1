// A score as JSON, the same content as `topoplan score` prints (and the "score" of a plan file).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "planner/score.h"

namespace topoplan {

// The ten hottest links, the findings and the placement; `cluster` names the cluster argument
// as given.
nlohmann::json score_to_json(const Cluster& c, const Router& r, const std::string& cluster, const JobScore& s);
// One directed link: {"link": "leaf0 -> spine3", "kind": "NET", "bw_GBps": 100}; callers add fields.
nlohmann::json edge_json(const Cluster& c, EdgeId e);
// One finding: severity, kind, group and index, ranks, hosts, the slowest link, cost, fix.
nlohmann::json finding_json(const Cluster& c, const Finding& f);
// Every rank's host, GPU and NIC: [{"rank", "host", "gpu", "nic"}].
nlohmann::json rank_map_json(const Cluster& c, const Router& r, const std::vector<VertexId>& gpu_of_rank);

}  // namespace topoplan
