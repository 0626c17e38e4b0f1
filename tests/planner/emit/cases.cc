#include "tests/planner/emit/cases.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/golden.h"
#include "tests/support.h"
#include "topology/formats/json.h"

namespace topoplan::test {
namespace {

// 16 ranks: tp 8 inside a DGX, two pipeline stages of two virtual stages each.
Job dense16() {
  Job j = small_job();
  j.name = "dense-16";
  j.parallel.tp = j.parallel.expert_tp = 8;
  j.parallel.pp = 2;
  j.parallel.dp = 1;
  j.parallel.virtual_pipeline_stages = 2;
  return j;
}

// 32 ranks with experts: tp 2, cp 2 (all-gather), pp 2 with uneven stages, dp 4, ep 4, expert_tp 1.
Job moe32(const std::string& order) {
  Job j = small_job();
  j.name = "moe-32";
  j.model.layers = 8;
  j.model.moe.experts = 8;
  j.model.moe.top_k = 2;
  j.model.moe.ffn_hidden = 1024;
  j.parallel.tp = 2;
  j.parallel.cp = 2;
  j.parallel.pp = 2;
  j.parallel.dp = 4;
  j.parallel.ep = 4;
  j.parallel.expert_tp = 1;
  j.parallel.cp_comm = CpComm::allgather;
  j.parallel.first_stage_layers = 3;
  j.parallel.last_stage_layers = 5;
  j.parallel.order = order;
  return j;
}

// Two hosts of four GPUs, NICs with their RDMA names (nic_names), no node type (so no core counts): GPUs 0-1
// hang off socket 0, GPU 2 off socket 1, GPU 3 only on NVLink (no CPU reachable).
constexpr const char* kExplicitGraph = R"({
  "name": "explicit-lab",
  "hosts": [{"name": "n1", "nic_names": ["mlx5_0", "mlx5_1"]}, {"name": "n2", "nic_names": ["mlx5_0", "mlx5_1"]}],
  "devices": [
    {"name": "leaf0", "kind": "switch", "tier": 1},
    HOST_DEVICES(n1), HOST_DEVICES(n2)
  ],
  "links": [HOST_LINKS(n1), HOST_LINKS(n2)]
})";

std::string expand(std::string text, const std::string& macro, const std::string& body) {
  for (const char* host : {"n1", "n2"}) {
    std::string call = macro + "(" + host + ")", b = body;
    for (size_t at = b.find("HOST"); at != std::string::npos; at = b.find("HOST", at)) b.replace(at, 4, host);
    text.replace(text.find(call), call.size(), b);
  }
  return text;
}

std::string explicit_graph_json() {
  std::string text = expand(kExplicitGraph, "HOST_DEVICES", R"(
    {"name": "HOST/cpu0", "kind": "cpu", "host": "HOST"}, {"name": "HOST/cpu1", "kind": "cpu", "host": "HOST"},
    {"name": "HOST/pcie0", "kind": "pcie_switch", "host": "HOST"}, {"name": "HOST/pcie1", "kind": "pcie_switch", "host": "HOST"},
    {"name": "HOST/nvswitch", "kind": "nvswitch", "host": "HOST"},
    {"name": "HOST/gpu0", "kind": "gpu", "host": "HOST", "index": 0},
    {"name": "HOST/gpu1", "kind": "gpu", "host": "HOST", "index": 1},
    {"name": "HOST/gpu2", "kind": "gpu", "host": "HOST", "index": 2},
    {"name": "HOST/gpu3", "kind": "gpu", "host": "HOST", "index": 3},
    {"name": "HOST/mlx5_0", "kind": "nic", "host": "HOST", "index": 0},
    {"name": "HOST/mlx5_1", "kind": "nic", "host": "HOST", "index": 1})");
  return expand(text, "HOST_LINKS", R"(
    {"a": "HOST/cpu0", "b": "HOST/cpu1", "kind": "SYS", "bw_GBps": 10},
    {"a": "HOST/pcie0", "b": "HOST/cpu0", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/pcie1", "b": "HOST/cpu1", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/gpu0", "b": "HOST/pcie0", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/gpu1", "b": "HOST/pcie0", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/gpu2", "b": "HOST/pcie1", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/mlx5_0", "b": "HOST/pcie0", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/mlx5_1", "b": "HOST/pcie1", "kind": "PCI", "bw_GBps": 63},
    {"a": "HOST/gpu0", "b": "HOST/nvswitch", "kind": "NVL", "bw_GBps": 450},
    {"a": "HOST/gpu1", "b": "HOST/nvswitch", "kind": "NVL", "bw_GBps": 450},
    {"a": "HOST/gpu2", "b": "HOST/nvswitch", "kind": "NVL", "bw_GBps": 450},
    {"a": "HOST/gpu3", "b": "HOST/nvswitch", "kind": "NVL", "bw_GBps": 450},
    {"a": "HOST/mlx5_0", "b": "leaf0", "kind": "NET", "bw_GBps": 50},
    {"a": "HOST/mlx5_1", "b": "leaf0", "kind": "NET", "bw_GBps": 50})");
}

// {"ranks": [...]} with the GPUs of `hosts` in turn, each host's GPUs in `gpu_order`.
Layout by_names(const Cluster& c, const std::vector<std::string>& hosts, const std::vector<int>& gpu_order) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const std::string& h : hosts)
    for (int g : gpu_order) ranks.push_back(h + "/gpu" + std::to_string(g));
  Result<Layout> l =
      layout_parse(nlohmann::json{{"ranks", ranks}}.dump(), "permuted", c, static_cast<int>(ranks.size()));
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  return std::move(*l);
}

Layout default_layout(const Cluster& c, const Job& j) {
  Result<Layout> l = layout_default(c, job_ranks(j));
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  return std::move(*l);
}

}  // namespace

const std::vector<std::string>& emit_case_names() {
  static const std::vector<std::string> names = {"dgx-h100-default",  "dgx-h100-permuted",  "dgx-h100-interleaved",
                                                 "pcie-l40s-default", "pcie-l40s-permuted", "explicit-graph"};
  return names;
}

std::unique_ptr<EmitCase> emit_case(const std::string& name) {
  auto c = std::make_unique<EmitCase>();
  c->name = name;
  if (name.starts_with("dgx-h100")) {
    c->cluster = load_cluster("dgx-h100:2");
    c->job = dense16();
  } else if (name.starts_with("pcie-l40s")) {
    c->cluster = load_cluster("pcie-l40s:4");
    c->job = moe32(name == "pcie-l40s-default" ? "tp-cp-ep-pp-dp" : "tp-dp-ep-cp-pp");
  } else {
    REQUIRE(name == "explicit-graph");
    Result<Cluster> cluster = cluster_from_json(nlohmann::json::parse(explicit_graph_json()), "explicit-lab.json");
    REQUIRE_MESSAGE(cluster.ok(), (cluster ? "" : cluster.error()));
    c->cluster = std::move(*cluster);
    c->job = small_job();
  }
  c->router = std::make_unique<Router>(c->cluster);
  REQUIRE(RankGroups::make(job_parallel_sizes(c->job), c->job.parallel.order).ok());
  if (name == "dgx-h100-permuted") {
    // Hosts swapped, and GPUs reversed in pairs on one host and in fours on the other.
    Layout second = by_names(c->cluster, {"h002"}, {3, 2, 1, 0, 7, 6, 5, 4});
    Layout first = by_names(c->cluster, {"h001"}, {1, 0, 3, 2, 5, 4, 7, 6});
    c->layout = second;
    c->layout.gpu_of_rank.insert(c->layout.gpu_of_rank.end(), first.gpu_of_rank.begin(), first.gpu_of_rank.end());
  } else if (name == "pcie-l40s-permuted") {
    c->layout = by_names(c->cluster, {"h003", "h001", "h004", "h002"}, {0, 2, 4, 6, 1, 3, 5, 7});
  } else if (name == "dgx-h100-interleaved") {
    std::string hosts;
    for (int r = 0; r < 16; ++r) hosts += r % 2 ? "h002\n" : "h001\n";
    Result<Layout> l = layout_parse(hosts, "interleaved", c->cluster, 16);
    REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
    c->layout = std::move(*l);
  } else {
    c->layout = default_layout(c->cluster, c->job);
  }
  return c;
}

std::vector<EmittedFile> emit_ok(const std::string& format, const EmitCase& c) {
  Result<std::vector<EmittedFile>> files = emit(format, c.input());
  REQUIRE_MESSAGE(files.ok(), c.name << ": " << (files ? "" : files.error()));
  return std::move(*files);
}

void check_emit_golden(const std::string& format, const std::vector<std::string>& skip) {
  for (const std::string& name : emit_case_names()) {
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    auto c = emit_case(name);
    for (const EmittedFile& f : emit_ok(format, *c)) check_golden("emit/" + name, f.name, f.text);
  }
}

std::vector<std::string> content_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("#")) lines.push_back(line);
  return lines;
}

}  // namespace topoplan::test
