#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/fabric_plan.h"
#include "topology/formats/json.h"
#include "topology/formats/node_type_json.h"

using namespace topoplan;
using nlohmann::json;

namespace {

std::string load_error(const json& doc) {
  Result<NodeType> t = node_type_from_json(doc, "node.json");
  REQUIRE_FALSE(t.ok());
  return t.error();
}

// The DGX H100 preset as a node type file, without its NICs' RDMA names: the cases below change
// the NIC count, and the names are the preset's eight NICs'.
json h100_node() {
  json j = json::parse(node_type_to_json(*node_type_named("dgx-h100")).dump());
  j.erase("nic_names");
  return j;
}

}  // namespace

TEST_CASE("node type json: every preset writes and reads back the same") {
  for (const NodeType& preset : node_types()) {
    const std::string written = node_type_to_json(preset).dump();
    Result<NodeType> back = node_type_from_json(json::parse(written), preset.name);
    REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
    CHECK(node_type_to_json(*back).dump() == written);
    CHECK(back->nvlink_GBps == preset.nvlink_GBps);
    CHECK(back->pcie_GBps == preset.pcie_GBps);
  }
}

TEST_CASE("node type json: a recipe's node written out builds what the preset builds") {
  Result<ClusterSpec> inline_spec = recipe_from_json({{"node", h100_node()}, {"nodes", 4}}, "lab.json");
  REQUIRE_MESSAGE(inline_spec.ok(), (inline_spec ? "" : inline_spec.error()));
  Result<ClusterSpec> preset_spec = recipe_from_json({{"node", "dgx-h100"}, {"nodes", 4}}, "lab.json");
  REQUIRE(preset_spec.ok());
  Result<Cluster> a = cluster_build(*inline_spec), b = cluster_build(*preset_spec);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->num_devices() == b->num_devices());
  CHECK(a->num_edges() == b->num_edges());
  CHECK(inline_spec->name == "dgx-h100:4");
}

TEST_CASE("node type json: NIC placement and NUMA nodes as written") {
  json doc = h100_node();
  doc["gpus"] = 4;
  doc["nics"] = 2;
  doc["gpus_per_pcie_switch"] = 2;
  doc["nic_switch"] = {1, 1};
  doc["cpus"] = 4;
  Result<ClusterSpec> spec = recipe_from_json({{"node", doc}, {"nodes", 1}}, "lab.json");
  REQUIRE_MESSAGE(spec.ok(), (spec ? "" : spec.error()));
  Result<Cluster> c = cluster_build(*spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  const Host& h = c->hosts()[0];
  CHECK(h.cpus.size() == 4);
  // Both NICs hang off the second switch, with GPUs 2 and 3.
  for (VertexId nic : h.nics) {
    VertexId parent = c->target(c->out_edges(nic)[0]);
    CHECK(c->device(parent).name == "h001/pcie1");
  }
  Result<FabricPlan> plan = fabric_plan(*spec);
  REQUIRE(plan.ok());
  CHECK(plan->devices == static_cast<int64_t>(c->num_devices()));
  CHECK(2 * plan->links == static_cast<int64_t>(c->num_edges()));  // 6 socket links among 4 NUMA nodes counted
}

TEST_CASE("node type json: the CPU model sets the socket link, cpu_link_rate overrides it, old files read") {
  // NCCL's figures by model: Sapphire Rapids 22 GB/s, Emerald Rapids 40, AMD 16, Grace (Arm) 6.
  CHECK(node_type_socket_GBps(*node_type_named("pcie-l40s")) == 22);
  CHECK(node_type_socket_GBps(*node_type_named("dgx-h100")) == 22);
  CHECK(node_type_socket_GBps(*node_type_named("hgx-b200")) == 40);
  CHECK(node_type_socket_GBps(*node_type_named("dgx-a100")) == 16);
  CHECK(node_type_socket_GBps(*node_type_named("gb200-nvl72")) == 6);
  json doc = h100_node();
  CHECK(doc["cpu_model"] == "Xeon-8480C");
  CHECK_FALSE(doc.contains("cpu_link_rate"));  // written only where it overrides the model's figure
  doc["cpu_link_rate"] = "12GB/s";
  NodeType t = *node_type_from_json(doc, "node.json");
  CHECK(node_type_socket_GBps(t) == 12);
  CHECK(node_type_to_json(t)["cpu_link_rate"] == "12GB/s");
  // A file from before cpu_model decided the link: its cpu_link_rate alone, no model.
  doc.erase("cpu_model");
  t = *node_type_from_json(doc, "node.json");
  CHECK(t.cpu_model.empty());
  CHECK(node_type_socket_GBps(t) == 12);
  CHECK_FALSE(node_type_to_json(t).contains("cpu_model"));
  // Neither: no socket link, as such a file always meant.
  doc.erase("cpu_link_rate");
  CHECK(node_type_socket_GBps(*node_type_from_json(doc, "node.json")) == 0);
}

TEST_CASE("node type json: an unknown CPU model names the field and the model meant") {
  json doc = h100_node();
  doc["cpu_model"] = "Xeon-8408C";
  const std::string e = load_error(doc);
  CHECK_MESSAGE(
      e.find("node.json: cpu_model: unknown CPU model 'Xeon-8408C', did you mean 'Xeon-8480C'? (known: Xeon, ") == 0,
      e);
  CHECK(e.find("for another CPU leave cpu_model out and give cpu_link_rate)") != std::string::npos);
  Result<ClusterSpec> nested = recipe_from_json({{"node", doc}, {"nodes", 1}}, "lab.json");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().find("lab.json: node: cpu_model: unknown CPU model 'Xeon-8408C'") == 0);
  doc["cpu_model"] = 7;
  CHECK(load_error(doc).find("node.json: cpu_model: ") == 0);
  doc["cpu_model"] = "xeon-8480c";  // names are exact, as the table spells them
  CHECK(load_error(doc).find("did you mean 'Xeon-8480C'?") != std::string::npos);
}

TEST_CASE("node type json: malformed fields get one clear error each") {
  json doc = h100_node();
  doc["gpus"] = 0;
  CHECK(load_error(doc) == "node.json: gpus: expected an integer from 1 to 1024, got 0");
  doc = h100_node();
  doc["nic_rate"] = "fast";
  CHECK(load_error(doc).find("node.json: nic_rate: ") == 0);
  doc = h100_node();
  doc["nvlink_GBps"] = 450;
  CHECK(load_error(doc).find("unknown key 'nvlink_GBps'") != std::string::npos);
  doc = h100_node();
  doc["gpus_per_pcie_switch"] = 3;
  CHECK(load_error(doc) == "node.json: gpus_per_pcie_switch: 8 GPUs do not fill switches of 3");
  doc = h100_node();
  doc["nic_switch"] = {0, 1, 2, 3, 4, 5, 6, 8};
  CHECK(load_error(doc) == "node.json: nic_switch[7]: expected a switch from 0 to 7, got 8");
  doc["nic_switch"] = {0, 1};
  CHECK(load_error(doc) == "node.json: nic_switch: expected one switch per NIC (8), got 2");
  doc = h100_node();
  doc["format"] = "topoplan-cluster";
  CHECK(load_error(doc).find("format: expected \"topoplan-node-type\"") != std::string::npos);
  doc = h100_node();
  doc.erase("pcie_rate");
  CHECK(load_error(doc) == "node.json: pcie_rate: must be above 0");
  Result<ClusterSpec> bad = recipe_from_json({{"node", 7}, {"nodes", 1}}, "lab.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "lab.json: node: expected a preset name or a node type object, got 7");
  doc = h100_node();
  doc["gpus"] = -1;
  Result<ClusterSpec> nested = recipe_from_json({{"node", doc}, {"nodes", 1}}, "lab.json");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().find("lab.json: node: gpus: ") == 0);
}

TEST_CASE("node type json: an NVLink mesh's bonds read back, and every malformed matrix named") {
  // A 4-GPU board bonding every pair with 4 links (HGX A100 4-GPU): 12 links x 25 GB/s per GPU.
  json doc = h100_node();
  doc["gpus"] = 4;
  doc["nics"] = 4;
  doc["nvlink_rate"] = "300GB/s";
  doc["gpu_model"] = "A100-SXM4";
  doc["nvlink_bonds"] = {{0, 4, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}};
  Result<NodeType> t = node_type_from_json(doc, "hgx4.json");
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(nvlink_bond_GBps(*t, 0, 3) == 100);
  Result<NodeType> back = node_type_from_json(json::parse(node_type_to_json(*t).dump()), "again.json");
  REQUIRE(back.ok());
  CHECK(back->nvlink_bonds == t->nvlink_bonds);
  // Built: six direct links per host and no NVSwitch, as the plan counted.
  ClusterSpec spec;
  spec.node = *t;
  spec.nodes = 2;
  spec.fabric = fabric_default(*t);
  Result<FabricPlan> plan = fabric_plan(spec);
  Result<Cluster> c = cluster_build(spec);
  REQUIRE(plan.ok());
  REQUIRE(c.ok());
  CHECK(plan->devices == static_cast<int64_t>(c->num_devices()));
  CHECK(2 * plan->links == static_cast<int64_t>(c->num_edges()));
  CHECK_FALSE(c->find("h001/nvswitch"));

  auto with = [&](const json& bonds) {
    json d = doc;
    d["nvlink_bonds"] = bonds;
    return load_error(d);
  };
  CHECK(with({{0, 4, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}}) ==
        "node.json: nvlink_bonds: expected 4 rows, one per GPU, got 3");
  CHECK(with({{0, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}}) ==
        "node.json: nvlink_bonds[0]: expected 4 entries, one per GPU, got 3");
  CHECK(with({{1, 4, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}}) ==
        "node.json: nvlink_bonds[0][0]: a GPU has no NVLink to itself, got 1");
  CHECK(with({{0, 4, 4, 3}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}}) ==
        "node.json: nvlink_bonds[3][0]: 4 NVLinks, but [0][3] says 3: a bond joins both GPUs");
  CHECK(with({{0, 2, 2, 0}, {2, 0, 0, 2}, {2, 0, 0, 1}, {0, 2, 1, 0}}) ==
        "node.json: nvlink_bonds[2]: GPU 2 has 3 NVLinks, GPU 0 4: every GPU shares nvlink_rate between the same "
        "number of links (above 0)");
  CHECK(with({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}).find("has 0 NVLinks") != std::string::npos);
  CHECK(with({{0, 19, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}}) ==
        "node.json: nvlink_bonds[0][1]: expected 0 to 18 NVLinks, got 19");
  CHECK(with({{0, "4", 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0}}) ==
        "node.json: nvlink_bonds[0][1]: expected 0 to 18 NVLinks, got \"4\"");
  CHECK(with({1, 2, 3, 4}) == "node.json: nvlink_bonds[0]: expected a list of NVLink counts, one per GPU, got 1");
  CHECK(with("all").find("nvlink_bonds") != std::string::npos);
  json no_rate = doc;
  no_rate.erase("nvlink_rate");
  CHECK(load_error(no_rate) ==
        "node.json: nvlink_bonds: give nvlink_rate, the NVLink bandwidth per GPU that its bonds share");
  json rack = doc;
  rack["hosts_per_domain"] = 2;
  CHECK(load_error(rack) ==
        "node.json: nvlink_bonds: GPUs linked point to point stay in their host; hosts_per_domain must be 1");
}
