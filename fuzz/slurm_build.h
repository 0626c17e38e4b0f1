// What both Slurm fuzz targets check once a file parsed: a small topology builds or says why, and
// the built cluster written in the same format reads back to the same hosts. The first write may
// differ from the file (leaves serving the same hosts are merged, a root joins parts no switch
// joins); what is written from it is a fixed point.
#pragma once

#include <algorithm>

#include "fuzz/fuzz.h"
#include "topology/formats/slurm_topology.h"
#include "topology/formats/slurm_yaml.h"

namespace topoplan::fuzz {

// Building is linear in the hosts; the fuzzer builds few so that it spends its time parsing.
constexpr size_t kSlurmBuildHosts = 64;

// Written files read back: topology.conf, and topology.yaml's tree (the cluster default it writes).
inline Result<SlurmTopology> slurm_conf(const std::string& text) { return slurm_topology_parse(text, "written.conf"); }
inline Result<SlurmTopology> slurm_yaml_tree(const std::string& text) {
  Result<SlurmYaml> yaml = slurm_yaml_parse(text, "written.yaml", "tree");
  RETURN_IF_ERROR(yaml);
  return yaml->topology;
}

// "" when `topo` is too large to build, does not build (with a reason), or survives the round
// trip; else what broke. `write` gives a cluster's file in the format under test, `parse` reads
// one back.
template <typename Write, typename Parse>
std::string slurm_round_trip_error(const SlurmTopology& topo, Write write, Parse parse) {
  size_t hosts = 0;
  for (const auto& s : topo.switches) hosts += s.nodes.size();
  for (const auto& b : topo.blocks) hosts += b.nodes.size();
  if (hosts > kSlurmBuildHosts) return "";
  static const NodeType type = *node_type_named("dgx-h100");
  Result<ClusterImport> built = slurm_topology_build(topo, type, "fuzz", 1, "fuzz");
  if (!built) return built.error().empty() ? "an error without a message" : "";
  // The written file read back and built, or why not.
  auto reread = [&](const std::string& written) -> Result<ClusterImport> {
    Result<SlurmTopology> again = parse(written);
    if (!again) return Error{"the written topology does not parse: " + again.error()};
    Result<ClusterImport> rebuilt = slurm_topology_build(*again, type, "fuzz", 1, "written");
    if (!rebuilt) return Error{"the written topology does not build: " + rebuilt.error()};
    return rebuilt;
  };
  const std::string first = write(built->cluster);
  Result<ClusterImport> once = reread(first);
  if (!once) return once.error();
  auto names = [](const Cluster& c) {
    std::vector<std::string> out;
    for (const Host& h : c.hosts()) out.push_back(h.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  if (names(once->cluster) != names(built->cluster) || once->cluster.gpus().size() != built->cluster.gpus().size())
    return "writing and reading the tree changed the hosts";
  // The hosts may come back in the order the file lists them (leaves first), which numbers blocks
  // anew; from the second write on nothing changes.
  const std::string second = write(once->cluster);
  Result<ClusterImport> twice = reread(second);
  if (!twice) return twice.error();
  if (write(twice->cluster) != second) return "the written topology, read and written again, changed";
  return "";
}

template <typename Write, typename Parse>
void expect_slurm_round_trip(const SlurmTopology& topo, Write write, Parse parse) {
  if (std::string e = slurm_round_trip_error(topo, write, parse); !e.empty()) violated(e.c_str());
}

}  // namespace topoplan::fuzz
