#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "topology/formats/json.h"

using namespace topoplan;
using nlohmann::json;

namespace {

// Two hosts of one GPU and one NIC under one leaf, exactly as save_cluster_json writes it.
const char* const kTinyGraph = R"({
  "format": "topoplan-cluster",
  "version": 1,
  "name": "tiny",
  "sites": [
    "s0"
  ],
  "domains": [
    "h0",
    "h1"
  ],
  "hosts": [
    {
      "name": "h0",
      "site": "s0",
      "scaleup_domain": "h0",
      "nic_names": [
        "mlx5_0"
      ]
    },
    {
      "name": "h1",
      "site": "s0",
      "scaleup_domain": "h1",
      "node_type": "custom"
    }
  ],
  "devices": [
    {
      "name": "h0/gpu0",
      "kind": "gpu",
      "host": "h0",
      "scaleup_domain": "h0",
      "site": "s0",
      "index": 0,
      "model": "H100-SXM5"
    },
    {
      "name": "h0/nic0",
      "kind": "nic",
      "host": "h0",
      "site": "s0",
      "rail": 0,
      "index": 0
    },
    {
      "name": "h1/gpu0",
      "kind": "gpu",
      "host": "h1",
      "scaleup_domain": "h1",
      "site": "s0",
      "index": 0
    },
    {
      "name": "h1/nic0",
      "kind": "nic",
      "host": "h1",
      "site": "s0",
      "rail": 0,
      "index": 0
    },
    {
      "name": "leaf0",
      "kind": "switch",
      "site": "s0",
      "tier": 1
    }
  ],
  "links": [
    {
      "a": "h0/gpu0",
      "b": "h0/nic0",
      "kind": "PCI",
      "bw_GBps": 63,
      "latency_us": 0.3
    },
    {
      "a": "h0/nic0",
      "b": "leaf0",
      "kind": "NET",
      "bw_GBps": 50,
      "latency_us": 0.6
    },
    {
      "a": "h1/gpu0",
      "b": "h1/nic0",
      "kind": "PCI",
      "bw_GBps": 63,
      "latency_us": 0.3
    },
    {
      "a": "h1/nic0",
      "b": "leaf0",
      "kind": "NET",
      "bw_GBps": 50.5,
      "latency_us": 0.6,
      "length_km": 0.002
    }
  ]
}
)";

std::string write(const std::string& file, const std::string& text) {
  std::filesystem::path p = test::temp_dir("json") / file;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

// Loads `text` saved as `file` and returns the error, failing the test if it loaded.
std::string load_error(const std::string& file, const std::string& text) {
  Result<Cluster> c = load_cluster_json(write(file, text));
  REQUIRE_FALSE(c.ok());
  return c.error();
}

// The tiny graph with one change applied.
std::string tiny_with(const std::function<void(json&)>& change) {
  json doc = json::parse(kTinyGraph);
  change(doc);
  return doc.dump(2);
}

Cluster loaded(const std::string& path) {
  Result<Cluster> c = load_cluster_json(path);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

}  // namespace

TEST_CASE("json recipe: every data/clusters file loads with its GPU count") {
  struct Case {
    const char* file;
    size_t gpus, hosts, sites;
  };
  for (Case k : {Case{"lab-h100.json", 32, 4, 1}, Case{"superpod-su-h100.json", 256, 32, 1},
                 Case{"threetier-h100.json", 16384, 2048, 1}, Case{"nvl72-2racks.json", 144, 36, 1},
                 Case{"two-site-h100.json", 1024, 128, 2}}) {
    CAPTURE(k.file);
    Cluster c = loaded((test::data_dir() / "clusters" / k.file).string());
    CHECK(c.gpus().size() == k.gpus);
    CHECK(c.hosts().size() == k.hosts);
    CHECK(c.sites().size() == k.sites);
  }
  Cluster racks = loaded((test::data_dir() / "clusters" / "nvl72-2racks.json").string());
  CHECK(racks.domains().size() == 2);
  Cluster sites = loaded((test::data_dir() / "clusters" / "two-site-h100.json").string());
  CHECK(sites.sites() == std::vector<std::string>{"siteA", "siteB"});
}

TEST_CASE("recipe: keys fill the spec, missing ones take the node type's defaults") {
  Result<ClusterSpec> s = recipe_from_json(json::parse(R"({
    "node": "dgx-h100", "nodes": 128,
    "fabric": {"kind": "tor", "nodes_per_pod": 64, "pod_oversubscription": 2.5, "planes": 2, "cores": 4},
    "sites": [{"name": "siteA", "nodes": 64}, {"name": "siteB", "nodes": 64}],
    "dci": {"links": 8, "link_rate": "1.6Tbps", "length_km": 100}
  })"),
                                           "x.json");
  REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
  CHECK(s->name == "dgx-h100:128");
  CHECK(s->node.name == "dgx-h100");
  CHECK(s->nodes == 128);
  CHECK(s->fabric.kind == FabricKind::tor);
  CHECK(s->fabric.nodes_per_su == fabric_default(s->node).nodes_per_su);
  CHECK(s->fabric.switch_radix == fabric_default(s->node).switch_radix);
  CHECK(s->fabric.nodes_per_pod == 64);
  CHECK(s->fabric.pod_oversubscription == 2.5);
  CHECK(s->fabric.planes == 2);
  CHECK(s->fabric.cores == 4);
  REQUIRE(s->sites.size() == 2);
  CHECK(s->sites[1].name == "siteB");
  CHECK(s->sites[1].nodes == 64);
  CHECK(s->dci.links == 8);
  CHECK(s->dci.link_GBps == doctest::Approx(200));  // "1.6Tbps" in the file
  CHECK(s->dci.length_km == 100);

  Result<ClusterSpec> racks = recipe_from_json(json::parse(R"({"node": "gb200-nvl72", "racks": 2})"), "r.json");
  REQUIRE(racks.ok());
  CHECK(racks->nodes == 36);
  CHECK(racks->name == "gb200-nvl72:2");
}

TEST_CASE("json: a built preset saved, loaded and saved again gives the same bytes") {
  for (const char* file : {"lab-h100.json", "nvl72-2racks.json", "two-site-h100.json"}) {
    CAPTURE(file);
    Cluster built = loaded((test::data_dir() / "clusters" / file).string());
    std::string saved = save_cluster_json(built);
    Cluster back = loaded(write(std::string("saved-") + file, saved));
    CHECK(back.num_devices() == built.num_devices());
    CHECK(back.num_edges() == built.num_edges());
    CHECK(back.gpus() == built.gpus());
    CHECK(save_cluster_json(back) == saved);
  }
}

TEST_CASE("json: the explicit graph format is what save_cluster_json writes") {
  Cluster c = loaded(write("tiny.json", kTinyGraph));
  CHECK(c.gpus().size() == 2);
  CHECK(c.num_edges() == 8);
  CHECK(c.link(6).bw_GBps == 50.5);
  CHECK(c.link(7).length_km == 0.002);
  CHECK(c.hosts()[1].node_type == "custom");
  // NIC names: h0 gives its NIC's RDMA name, h1 none.
  CHECK(c.hca_name(*c.find("h0/nic0")) == "mlx5_0");
  CHECK(c.hca_name(*c.find("h1/nic0")).empty());
  CHECK(c.hca_name(*c.find("h0/gpu0")).empty());
  CHECK(save_cluster_json(c) == kTinyGraph);
}

TEST_CASE("json graph: nic_names give one RDMA name per NIC of the host") {
  std::string e = load_error("g.json", tiny_with([](json& d) {
                               d["hosts"][0]["nic_names"] = json::array({"mlx5_0", "mlx5_1"});
                             }));
  CHECK_MESSAGE(e.find("g.json: host 'h0' names 2 NICs in nic_names, it has 1") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["hosts"][0]["nic_names"] = json::array({3}); }));
  CHECK_MESSAGE(e.find("g.json: hosts[0].nic_names[0]: expected an RDMA device name such as \"mlx5_0\", got 3") !=
                    std::string::npos,
                e);
  e = load_error("g.json", tiny_with([](json& d) { d["hosts"][0]["nic_names"] = "mlx5_0"; }));
  CHECK_MESSAGE(e.find("g.json: hosts[0].nic_names: ") != std::string::npos, e);
}

TEST_CASE("json recipe: a DGX H100 names its compute NICs as NVIDIA's user guide does; other presets do not") {
  Cluster dgx = loaded(write("dgx.json", R"({"node": "dgx-h100", "nodes": 2})"));
  CHECK(dgx.hosts()[1].nic_names ==
        std::vector<std::string>{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"});
  CHECK(dgx.hca_name(*dgx.find("h002/nic7")) == "mlx5_11");
  Cluster a100 = loaded(write("a100.json", R"({"node": "dgx-a100", "nodes": 2})"));
  CHECK(a100.hosts()[0].nic_names.empty());
}

TEST_CASE("json: malformed JSON reports file:line:col") {
  std::string e = load_error("bad.json", "{\n  \"node\": \"dgx-h100\",\n  \"nodes\" 4\n}\n");
  CHECK_MESSAGE(e.find("bad.json:3:11: ") != std::string::npos, e);
  CHECK_MESSAGE(e.find("expected ':'") != std::string::npos, e);
  CHECK(e.find("json.exception") == std::string::npos);

  e = load_error("comma.json", "{\"node\": \"dgx-h100\",\n \"nodes\": 4,\n}");
  CHECK_MESSAGE(e.find("comma.json:3:1: ") != std::string::npos, e);
  e = load_error("big.json", R"({"node": "dgx-h100", "nodes": 1e999})");
  CHECK_MESSAGE(e.find("big.json: number overflow parsing '1e999'") != std::string::npos, e);
  e = load_error("empty.json", "");
  CHECK_MESSAGE(e.find("empty.json:1:1: ") != std::string::npos, e);
}

TEST_CASE("json: neither a recipe nor a graph, or no file at all") {
  std::string e = load_error("other.json", R"({"gpus": 8})");
  CHECK_MESSAGE(e.find("other.json: not a cluster file") != std::string::npos, e);
  Result<Cluster> missing = load_cluster_json("/nonexistent/lab.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("/nonexistent/lab.json: cannot read") == 0);
}

TEST_CASE("recipe: unknown keys are named with a did-you-mean") {
  std::string e = load_error("lab.json", R"({"node": "dgx-h100", "nodes": 4, "fabirc": {}})");
  CHECK_MESSAGE(e.find("lab.json: unknown key 'fabirc', did you mean 'fabric'?") != std::string::npos, e);
  e = load_error("lab.json", R"({"node": "dgx-h100", "nodes": 4, "fabric": {"plane": 2}})");
  CHECK_MESSAGE(e.find("lab.json: fabric: unknown key 'plane', did you mean 'planes'?") != std::string::npos, e);
}

TEST_CASE("recipe: wrong types and non-positive counts name the field and the value") {
  auto error_for = [](const std::string& text) { return load_error("lab.json", text); };
  std::string e = error_for(R"({"node": "dgx-h100", "nodes": "4"})");
  CHECK_MESSAGE(e.find(R"(lab.json: nodes: expected a positive integer, got "4")") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 4, "fabric": {"nodes_per_su": -3}})");
  CHECK_MESSAGE(e.find("lab.json: fabric.nodes_per_su: expected a positive integer, got -3") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 2.5})");
  CHECK_MESSAGE(e.find("lab.json: nodes: expected a positive integer, got 2.5") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 4, "fabric": {"kind": "rial"}})");
  CHECK_MESSAGE(e.find(R"(lab.json: fabric.kind: expected "rail" or "tor", got "rial", did you mean 'rail'?)") !=
                    std::string::npos,
                e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 8, "sites": [{"name": "a", "nodes": 0}]})");
  CHECK_MESSAGE(e.find("lab.json: sites[0].nodes: expected a positive integer, got 0") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 8, "sites": {"a": 8}})");
  CHECK_MESSAGE(e.find("lab.json: sites: expected an array, got an object") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 8, "dci": {"links": 2, "link_rate": 400}})");
  CHECK_MESSAGE(e.find("lab.json: dci.link_rate: expected a string, got 400") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100", "nodes": 8, "dci": {"links": 2, "link_rate": "400Gbs"}})");
  CHECK_MESSAGE(e.find("lab.json: dci.link_rate: invalid rate '400Gbs'") != std::string::npos, e);
  e = error_for(R"({"node": "dgx-h100"})");
  CHECK_MESSAGE(e.find("lab.json: missing key 'nodes'") != std::string::npos, e);
}

TEST_CASE("recipe: a mistyped node type gets a did-you-mean") {
  std::string e = load_error("lab.json", R"({"node": "dgx-h10", "nodes": 4})");
  CHECK_MESSAGE(e.find("lab.json: node: unknown preset 'dgx-h10', did you mean 'dgx-h100'?") != std::string::npos, e);
}

TEST_CASE("recipe: racks are for rack-scale node types only, and not beside nodes") {
  std::string e = load_error("lab.json", R"({"node": "dgx-h100", "racks": 2})");
  CHECK_MESSAGE(e.find("lab.json: racks: only rack-scale node types") != std::string::npos, e);
  e = load_error("lab.json", R"({"node": "gb200-nvl72", "racks": 2, "nodes": 36})");
  CHECK_MESSAGE(e.find("lab.json: give 'nodes' or 'racks', not both") != std::string::npos, e);
}

TEST_CASE("recipe: cluster_build's checks come back with the file name") {
  std::string e = load_error(
      "lab.json", R"({"node": "dgx-h100", "nodes": 8, "sites": [{"name": "a", "nodes": 4}, {"name": "b", "nodes": 2}],
                     "dci": {"links": 1}})");
  CHECK_MESSAGE(e.find("lab.json: sites: site nodes add up to 6, expected 8") != std::string::npos, e);
}

TEST_CASE("json graph: a link to a device that does not exist") {
  std::string e = load_error("g.json", tiny_with([](json& d) { d["links"][3]["b"] = "h1/gpu9"; }));
  CHECK_MESSAGE(e.find("g.json: links[3].b: no device 'h1/gpu9', did you mean 'h1/gpu0'?") != std::string::npos, e);
}

TEST_CASE("json graph: a link's rate under its old key bw_gbps (GB/s then too) still reads") {
  const std::string old = tiny_with([](json& d) {
    for (json& l : d["links"]) {
      l["bw_gbps"] = l["bw_GBps"];
      l.erase("bw_GBps");
    }
  });
  const std::string now = kTinyGraph;
  Cluster a = loaded(write("old.json", old)), b = loaded(write("now.json", now));
  REQUIRE(a.num_edges() == b.num_edges());
  for (EdgeId e = 0; e < a.num_edges(); ++e) CHECK(a.link(e).bw_GBps == b.link(e).bw_GBps);
  std::string e = load_error("g.json", tiny_with([](json& d) { d["links"][1]["bw_gbps"] = 50; }));
  CHECK_MESSAGE(e.find("g.json: links[1].bw_gbps: give bw_GBps or its old name bw_gbps, not both") != std::string::npos,
                e);
  e = load_error("g.json", tiny_with([](json& d) {
                   d["links"][2].erase("bw_GBps");
                   d["links"][2]["bw_gbps"] = -1;
                 }));
  CHECK_MESSAGE(
      e.find("g.json: links[2].bw_gbps: expected a number from 0.001 to 1000000, got -1") != std::string::npos, e);
}

TEST_CASE("json graph: zero and negative bandwidth") {
  std::string e = load_error("g.json", tiny_with([](json& d) { d["links"][1]["bw_GBps"] = 0; }));
  CHECK_MESSAGE(e.find("g.json: links[1].bw_GBps: expected a number from 0.001 to 1000000, got 0") != std::string::npos,
                e);
  e = load_error("g.json", tiny_with([](json& d) { d["links"][2]["bw_GBps"] = -50; }));
  CHECK_MESSAGE(
      e.find("g.json: links[2].bw_GBps: expected a number from 0.001 to 1000000, got -50") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["links"][2]["bw_GBps"] = "50GB/s"; }));
  CHECK_MESSAGE(
      e.find(R"(g.json: links[2].bw_GBps: expected a number from 0.001 to 1000000, got "50GB/s")") != std::string::npos,
      e);
  e = load_error("g.json", tiny_with([](json& d) { d["links"][2].erase("bw_GBps"); }));
  CHECK_MESSAGE(e.find("g.json: links[2]: missing key 'bw_GBps'") != std::string::npos, e);
}

TEST_CASE("json graph: unknown kinds and keys get a did-you-mean") {
  std::string e = load_error("g.json", tiny_with([](json& d) { d["links"][0]["kind"] = "NVK"; }));
  CHECK_MESSAGE(e.find("g.json: links[0].kind: unknown link kind 'NVK', did you mean 'NVL'?") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["devices"][4]["kind"] = "swich"; }));
  CHECK_MESSAGE(
      e.find("g.json: devices[4].kind: unknown device kind 'swich', did you mean 'switch'?") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["devices"][1]["rial"] = 0; }));
  CHECK_MESSAGE(e.find("g.json: devices[1]: unknown key 'rial', did you mean 'rail'?") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["hosts"][0]["site"] = "s00"; }));
  CHECK_MESSAGE(e.find("g.json: hosts[0].site: no site 's00', did you mean 's0'?") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["devices"][0]["index"] = -1; }));
  CHECK_MESSAGE(e.find("g.json: devices[0].index: expected an integer from 0 to 32767, got -1") != std::string::npos,
                e);
  e = load_error("g.json", tiny_with([](json& d) { d["version"] = 2; }));
  CHECK_MESSAGE(e.find("g.json: version: expected 1, got 2") != std::string::npos, e);
}

TEST_CASE("json graph: duplicate names") {
  std::string e = load_error("g.json", tiny_with([](json& d) { d["devices"][2]["name"] = "h0/gpu0"; }));
  CHECK_MESSAGE(e.find("g.json: devices[2].name: duplicate device name 'h0/gpu0'") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["hosts"][1]["name"] = "h0"; }));
  CHECK_MESSAGE(e.find("g.json: hosts[1].name: duplicate host 'h0'") != std::string::npos, e);
  e = load_error("g.json", tiny_with([](json& d) { d["sites"].push_back("s0"); }));
  CHECK_MESSAGE(e.find("g.json: sites[1]: duplicate site 's0'") != std::string::npos, e);
}

TEST_CASE("json graph: a GPU with no path to the others") {
  std::string e = load_error("g.json", tiny_with([](json& d) { d["links"].erase(2); }));
  CHECK_MESSAGE(e.find("g.json: GPU 'h1/gpu0' has no path to 'h0/gpu0'") != std::string::npos, e);
}
