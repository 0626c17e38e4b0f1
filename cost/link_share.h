// The share of each link's bandwidth that one job's collectives get. On an idle fabric, all of it.
// On a shared fabric (production: other jobs fill the tiers above the leaves) each host gets its
// fair share of every link above it, as if every host of the cluster pushed at line rate: the
// job's part of the NIC capacity below the link, so a 7:1 tier gives a host its NIC rate / 7 and
// ECMP collisions with other jobs cost what they cost on a full cluster. Background load (measured
// or assumed utilization per link or per tier) replaces that assumption where it is given.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

class LinkShare {
 public:
  LinkShare() = default;  // idle: every link whole

  // host_weight: the job's part of each host (its GPUs there over the host's GPUs), 0 for hosts
  // it does not use.
  static LinkShare fair(const Cluster& cluster, const std::vector<double>& host_weight);

  double at(EdgeId e) const { return share_.empty() ? 1.0 : share_[e]; }
  bool whole() const { return share_.empty(); }
  void set(const Cluster& cluster, EdgeId e, double share);

 private:
  std::vector<double> share_;  // per edge id; empty = 1 everywhere
};

// How the rest of the cluster loads the fabric.
enum class FabricMode : uint8_t {
  shared,  // every other host pushes at line rate: the job gets its fair share (LinkShare::fair)
  idle,    // the job is alone on the cluster
};
std::string_view to_string(FabricMode m);

// Utilization of links by other traffic, measured or assumed, from a background file:
// {"format": "topoplan-background",
//  "tiers": {"spine": 0.5, "core": 0.7, "dci": 0.3},
//  "links": {"leaf0 -> spine3": 0.9, "spine0 <-> core1": 0.2}}
// Values are in [0, 1); the job gets the rest. Tiers are named as link_tier names them; a link is
// one direction ("a -> b") or both ("a <-> b") and wins over its tier.
struct Background {
  std::string source;
  std::vector<std::pair<EdgeId, double>> utilization;  // later entries win
};
// Errors name the file and the key.
Result<Background> background_from_json(const nlohmann::json& doc, const std::string& where, const Cluster& cluster);
Result<Background> background_load(const std::string& path, const Cluster& cluster);

// The share of every link a job on `host_weight` gets under `mode`, with `background` (if any)
// replacing the mode's assumption on the links it names.
LinkShare link_share_make(const Cluster& cluster, FabricMode mode, const std::vector<double>& host_weight,
                          const Background* background);

}  // namespace topoplan
