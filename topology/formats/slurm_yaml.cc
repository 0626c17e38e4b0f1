#include "topology/formats/slurm_yaml.h"

#include <yaml-cpp/yaml.h>

#include <optional>

#include "base/file_io.h"
#include "base/hostlist.h"

namespace topoplan {
namespace {

// Thrown where the file says something other than what topology.yaml(5) allows; caught once.
struct Bad {
  int line;
  std::string what;
};

int line_of(const YAML::Node& n) { return n.Mark().is_null() ? 0 : n.Mark().line + 1; }

[[noreturn]] void bad(const YAML::Node& at, const std::string& what) { throw Bad{line_of(at), what}; }

std::string text_of(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) bad(n, field + ": expected a name");
  return n.Scalar();
}

// Every key of `map` is one of `keys`.
void only_keys(const YAML::Node& map, const std::string& what, std::initializer_list<const char*> keys) {
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    bool known = false;
    std::string expected;
    for (const char* k : keys) known |= key == k, expected += std::string(expected.empty() ? "" : ", ") + k;
    if (!known) bad(kv.first, what + ": unknown key '" + key + "' (expected " + expected + ")");
  }
}

// By value: a Node is a handle, and callers pass temporaries (map["key"]) a reference would outlive.
YAML::Node list_of(const YAML::Node& n, const std::string& what) {
  if (!n.IsSequence()) bad(n, what + ": expected a list");
  return n;
}

// A hostlist expression, or a list of them.
std::vector<std::string> hosts_of(const YAML::Node& n, const std::string& what, HostlistBudget& budget) {
  std::vector<std::string> out;
  auto add = [&](const YAML::Node& item) {
    const std::string text = text_of(item, what);
    Result<std::vector<std::string>> names = hostlist_expand(text);
    if (!names) bad(item, what + " '" + text + "': " + names.error());
    if (std::string over = budget.spend(names->size()); !over.empty()) bad(item, what + ": " + over);
    out.insert(out.end(), names->begin(), names->end());
  };
  if (n.IsSequence())
    for (const YAML::Node& item : n) add(item);
  else
    add(n);
  return out;
}

bool flag_of(const YAML::Node& n, const std::string& what) {
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value)) bad(n, what + ": expected true or false");
  return value;
}

SlurmTopology tree_of(const YAML::Node& tree, const std::string& name) {
  const std::string what = "topology " + name + ": tree";
  if (!tree.IsMap()) bad(tree, what + ": expected switches: [...]");
  only_keys(tree, what, {"switches"});
  if (!tree["switches"]) bad(tree, what + ": gives no switches");
  SlurmTopology t;
  HostlistBudget budget;
  for (const YAML::Node& s : list_of(tree["switches"], what + ": switches")) {
    if (!s.IsMap() || !s["switch"]) bad(s, what + ": a switch entry needs 'switch: NAME'");
    SlurmTopology::Switch out{text_of(s["switch"], "switch"), {}, {}, line_of(s)};
    only_keys(s, "switch " + out.name, {"switch", "children", "nodes"});
    if (s["nodes"]) out.nodes = hosts_of(s["nodes"], "switch " + out.name + ": nodes", budget);
    if (s["children"]) out.switches = hosts_of(s["children"], "switch " + out.name + ": children", budget);
    t.switches.push_back(std::move(out));
  }
  if (t.switches.empty()) bad(tree, what + ": gives no switches");
  return t;
}

SlurmTopology blocks_of(const YAML::Node& block, const std::string& name) {
  const std::string what = "topology " + name + ": block";
  if (!block.IsMap()) bad(block, what + ": expected blocks: [...] and block_sizes: [...]");
  only_keys(block, what, {"blocks", "block_sizes"});
  if (!block["blocks"]) bad(block, what + ": gives no blocks");
  SlurmTopology t;
  HostlistBudget budget;
  for (const YAML::Node& b : list_of(block["blocks"], what + ": blocks")) {
    if (!b.IsMap() || !b["block"]) bad(b, what + ": a block entry needs 'block: NAME'");
    SlurmTopology::Block out{text_of(b["block"], "block"), {}, line_of(b)};
    only_keys(b, "block " + out.name, {"block", "nodes"});
    if (b["nodes"]) out.nodes = hosts_of(b["nodes"], "block " + out.name + ": nodes", budget);
    t.blocks.push_back(std::move(out));
  }
  if (t.blocks.empty()) bad(block, what + ": gives no blocks");
  if (const YAML::Node sizes = block["block_sizes"]) {
    t.block_sizes_line = line_of(sizes);
    for (const YAML::Node& s : list_of(sizes, what + ": block_sizes")) {
      int n = 0;
      if (!s.IsScalar() || !YAML::convert<int>::decode(s, n) || n <= 0)
        bad(s, what + ": block_sizes: '" + (s.IsScalar() ? s.Scalar() : "?") + "' is not a positive number of nodes");
      t.block_sizes.push_back(n);
    }
  }
  return t;
}

}  // namespace

Result<SlurmYaml> slurm_yaml_parse(const std::string& text, const std::string& where, const std::string& name) {
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsSequence() || root.size() == 0) bad(root, "expected a list of topologies ('- topology: NAME')");
    SlurmYaml out;
    // Indexes into root: yaml-cpp's iteration hands out temporaries.
    std::optional<size_t> chosen, default_one;
    for (size_t i = 0; i < root.size(); ++i) {
      const YAML::Node item = root[i];
      if (!item.IsMap() || !item["topology"]) bad(item, "a topology entry needs 'topology: NAME'");
      const std::string n = text_of(item["topology"], "topology");
      only_keys(item, "topology " + n, {"topology", "cluster_default", "tree", "block", "flat", "ring", "torus3d"});
      int types = 0;
      for (const char* type : {"tree", "block", "flat", "ring", "torus3d"}) types += item[type] ? 1 : 0;
      if (types != 1) bad(item, "topology " + n + ": expected exactly one of tree, block or flat");
      for (const std::string& seen : out.names)
        if (seen == n) bad(item, "topology " + n + ": defined twice");
      out.names.push_back(n);
      if (n == name) chosen = i;
      const bool is_default =
          item["cluster_default"] && flag_of(item["cluster_default"], "topology " + n + ": cluster_default");
      if (is_default && !default_one) default_one = i;
    }
    auto list = [&] {
      std::string all;
      for (const std::string& n : out.names) all += (all.empty() ? "" : ", ") + n;
      return all;
    };
    if (!name.empty() && !chosen)
      return Error{where + ": no topology named '" + name + "' (the file has " + list() + ")"};
    if (!chosen) chosen = default_one;
    if (!chosen && root.size() == 1) chosen = 0;
    if (!chosen)
      return Error{where + ": " + std::to_string(root.size()) +
                   " topologies and none is cluster_default: pick one with --topology (" + list() + ")"};
    const YAML::Node t = root[*chosen];
    out.name = t["topology"].Scalar();
    if (t["tree"])
      out.topology = tree_of(t["tree"], out.name);
    else if (t["block"])
      out.topology = blocks_of(t["block"], out.name);
    else
      bad(t, "topology " + out.name + " is " +
                 (t["flat"] ? "flat: it names no switches" : "a ring or torus, which topoplan does not build") +
                 "; pick a tree or block topology" + (out.names.size() > 1 ? " with --topology (" + list() + ")" : ""));
    out.topology.yaml = true;
    Result<SlurmTopology> checked = slurm_topology_check(std::move(out.topology), where);
    RETURN_IF_ERROR(checked);
    out.topology = std::move(*checked);
    // A tree says nothing of NVLink domains; the file's first block topology does (as GB200 NVL72
    // clusters pair a tree of the InfiniBand fabric with a block per rack).
    for (size_t i = 0; i < root.size() && t["tree"]; ++i)
      if (const YAML::Node other = root[i]; other["block"]) {
        const std::string name_i = other["topology"].Scalar();
        SlurmTopology blocks = blocks_of(other["block"], name_i);
        blocks.yaml = true;
        Result<SlurmTopology> ok = slurm_topology_check(std::move(blocks), where);
        RETURN_IF_ERROR(ok);
        out.topology.domain_blocks = std::move(ok->blocks);
        out.topology.domain_blocks_from = name_i;
        break;
      }
    return out;
  } catch (const Bad& b) {
    return Error{where + (b.line ? ":" + std::to_string(b.line) : "") + ": " + b.what};
  } catch (const YAML::Exception& e) {
    return Error{where + ":" + std::to_string(e.mark.line + 1) + ": not YAML: " + e.msg};
  }
}

std::string slurm_yaml_write(const Cluster& c) {
  const SlurmTopology tree = slurm_tree_of(c);
  std::string what;
  const SlurmTopology blocks = slurm_blocks_of(c, &what);
  YAML::Emitter y;
  y << YAML::BeginSeq;
  y << YAML::BeginMap << YAML::Key << "topology" << YAML::Value << "tree" << YAML::Key << "cluster_default"
    << YAML::Value << true;
  y << YAML::Key << "tree" << YAML::Value << YAML::BeginMap << YAML::Key << "switches" << YAML::Value << YAML::BeginSeq;
  for (const SlurmTopology::Switch& s : tree.switches) {
    y << YAML::BeginMap << YAML::Key << "switch" << YAML::Value << s.name;
    if (!s.nodes.empty()) y << YAML::Key << "nodes" << YAML::Value << hostlist_compress(s.nodes);
    if (!s.switches.empty()) y << YAML::Key << "children" << YAML::Value << hostlist_compress(s.switches);
    y << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  y << YAML::BeginMap << YAML::Key << "topology" << YAML::Value << "block" << YAML::Key << "cluster_default"
    << YAML::Value << false;
  y << YAML::Key << "block" << YAML::Value << YAML::BeginMap << YAML::Key << "block_sizes" << YAML::Value << YAML::Flow
    << blocks.block_sizes;
  y << YAML::Key << "blocks" << YAML::Value << YAML::BeginSeq;
  for (const SlurmTopology::Block& b : blocks.blocks)
    y << YAML::BeginMap << YAML::Key << "block" << YAML::Value << b.name << YAML::Key << "nodes" << YAML::Value
      << hostlist_compress(b.nodes) << YAML::EndMap;
  y << YAML::EndSeq << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  return "# topology.yaml for Slurm's topology plugins, written by topoplan from " + c.name +
         ": the tree (every switch with its hosts or child switches) as the cluster default, and blocks (a block per " +
         what + ")\n" + y.c_str() + "\n";
}

bool slurm_yaml_sniff(std::string_view line, std::string_view) {
  return line.starts_with("---") || line.starts_with("- ") || line == "-";
}

Result<ClusterImport> slurm_topology_import(const std::string& text, const std::string& where,
                                            const ClusterImportOptions& options) {
  std::string chosen;
  Result<SlurmTopology> topo = [&]() -> Result<SlurmTopology> {
    const ImportFormat* format = import_format_of(text);
    const bool is_yaml = (format && format->sniff == slurm_yaml_sniff) ||
                         (!format && !json_of(text) && (where.ends_with(".yaml") || where.ends_with(".yml")));
    if (!is_yaml) {
      if (!options.topology.empty())
        return Error{where + ": --topology picks one of topology.yaml's topologies; a topology.conf holds one"};
      return slurm_topology_parse(text, where);
    }
    Result<SlurmYaml> yaml = slurm_yaml_parse(text, where, options.topology);
    RETURN_IF_ERROR(yaml);
    if (yaml->names.size() > 1)
      chosen = "topology " + yaml->name + (options.topology.empty() ? " (its cluster default)" : "") + " of " +
               std::to_string(yaml->names.size()) + " in the file";
    return yaml->topology;
  }();
  RETURN_IF_ERROR(topo);
  Result<ClusterImport> built =
      slurm_topology_build(*topo, options.type, file_stem(where), options.oversubscription, where);
  if (built && !chosen.empty()) built->notes.insert(built->notes.begin(), chosen);
  return built;
}

}  // namespace topoplan
