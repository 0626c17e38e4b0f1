#include "topology/formats/slurm_topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "base/hostlist.h"
#include "base/union_find.h"
#include "base/words.h"
#include "topology/fabric.h"
#include "topology/fabric_plan.h"

namespace topoplan {
namespace {

// Each block one NVLink domain of its hosts, named after it; a note where blocks are smaller than
// the type's domain, "" where none is.
Result<std::string> racks_build(Cluster& c, const std::vector<SlurmTopology::Block>& blocks, bool yaml,
                                const NodeType& type, int site, const std::string& where,
                                std::vector<VertexId>* first_nic) {
  const auto per_rack = static_cast<size_t>(type.hosts_per_domain);
  auto label = [&](const SlurmTopology::Block& b) {
    return where + ":" + std::to_string(b.line) + ": " + (yaml ? "block " : "BlockName=") + b.name;
  };
  std::map<std::string, const SlurmTopology::Block*> block_of;
  const SlurmTopology::Block* first_smaller = nullptr;
  int smaller = 0;
  for (const SlurmTopology::Block& b : blocks) {
    if (b.nodes.size() > per_rack)
      return Error{label(b) + ": " + std::to_string(b.nodes.size()) + " hosts, more than the " +
                   std::to_string(per_rack) + " of one " + type.name +
                   " NVLink domain: on rack-scale nodes a block is the domain (the rack) Slurm keeps a job in; split " +
                   b.name + " into blocks of at most " + std::to_string(per_rack) +
                   " hosts, one per rack, or give --node-type a node type whose "
                   "hosts_per_domain is " +
                   std::to_string(b.nodes.size()) + " or more"};
    for (const std::string& host : b.nodes)
      if (auto [it, added] = block_of.emplace(host, &b); !added)
        return Error{label(b) + ": host " + host +
                     (it->second == &b
                          ? " is named twice"
                          : " is in " + it->second->name + " too (line " + std::to_string(it->second->line) + ")") +
                     ": a host is in one NVLink domain"};
    if (b.nodes.size() < per_rack && smaller++ == 0) first_smaller = &b;
  }
  for (const SlurmTopology::Block& b : blocks) {
    Result<std::vector<int>> hosts = rack_build(c, type, b.nodes, site, b.name, first_nic);
    if (!hosts) return Error{label(b) + ": " + hosts.error()};
  }
  if (!first_smaller) return std::string();
  return std::to_string(smaller) + " of " + std::to_string(blocks.size()) + " blocks hold fewer hosts than a " +
         type.name + " rack's " + std::to_string(per_rack) + " (" + first_smaller->name + ": " +
         std::to_string(first_smaller->nodes.size()) +
         "): each is an NVLink domain of its own hosts, a rack whose other trays Slurm does not schedule";
}

}  // namespace

std::string HostlistBudget::spend(size_t more) {
  used_ += more;
  if (used_ <= kHostlistMaxNames) return "";
  return "the host lists name more than " + std::to_string(kHostlistMaxNames) + " hosts in all";
}

bool slurm_conf_sniff(std::string_view line, std::string_view) {
  const std::string key = lower(std::string(line.substr(0, line.find('=') + 1)));
  return key == "switchname=" || key == "blockname=" || key == "blocksizes=";
}

Result<SlurmTopology> slurm_topology_parse(const std::string& text, const std::string& where) {
  SlurmTopology t;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  HostlistBudget budget;
  while (std::getline(in, line)) {
    ++line_no;
    auto fail = [&](const std::string& what) { return Error{where + ":" + std::to_string(line_no) + ": " + what}; };
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::pair<std::string, std::string>> pairs;  // key (lower case), value
    for (std::string w; words >> w;) {
      const size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0) return fail("'" + w + "': expected Key=Value");
      pairs.emplace_back(lower(w.substr(0, eq)), w.substr(eq + 1));
    }
    if (pairs.empty()) continue;
    const std::string head = pairs[0].first;
    // Appends the hosts `value` names to `to`.
    auto hosts = [&](const std::string& key, const std::string& value, std::vector<std::string>& to) -> std::string {
      if (value.find('=') != std::string::npos) return key + "=" + value + ": a host list has no '='";
      Result<std::vector<std::string>> names = hostlist_expand(value);
      if (!names) return key + "=" + value + ": " + names.error();
      if (std::string over = budget.spend(names->size()); !over.empty()) return key + "=" + value + ": " + over;
      to.insert(to.end(), names->begin(), names->end());
      return "";
    };
    if (head == "switchname") {
      SlurmTopology::Switch s{pairs[0].second, {}, {}, line_no};
      for (size_t i = 1; i < pairs.size(); ++i) {
        const auto& [key, value] = pairs[i];
        std::string bad;
        if (key == "nodes")
          bad = hosts("Nodes", value, s.nodes);
        else if (key == "switches")
          bad = hosts("Switches", value, s.switches);
        else if (key != "linkspeed")
          bad = "SwitchName=" + s.name + ": unknown key '" + key + "' (expected Nodes, Switches or LinkSpeed)";
        if (!bad.empty()) return fail(bad);
      }
      t.switches.push_back(std::move(s));
    } else if (head == "blockname") {
      SlurmTopology::Block b{pairs[0].second, {}, line_no};
      for (size_t i = 1; i < pairs.size(); ++i) {
        if (pairs[i].first != "nodes")
          return fail("BlockName=" + b.name + ": unknown key '" + pairs[i].first + "' (expected Nodes)");
        if (std::string bad = hosts("Nodes", pairs[i].second, b.nodes); !bad.empty()) return fail(bad);
      }
      t.blocks.push_back(std::move(b));
    } else if (head == "blocksizes") {
      if (t.block_sizes_line) return fail("BlockSizes: already given on line " + std::to_string(t.block_sizes_line));
      t.block_sizes_line = line_no;
      std::istringstream sizes(pairs[0].second);
      for (std::string item; std::getline(sizes, item, ',');) {
        int n = 0;
        auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
        if (ec != std::errc() || p != item.data() + item.size() || n <= 0)
          return fail("BlockSizes: '" + item + "' is not a positive number of nodes");
        t.block_sizes.push_back(n);
      }
    } else {
      return fail("unknown key '" + pairs[0].first + "' (expected SwitchName, BlockName or BlockSizes)");
    }
    if (!t.switches.empty() && !t.blocks.empty())
      return fail("both SwitchName and BlockName lines: a topology.conf describes one plugin's topology");
  }
  if (t.switches.empty() && t.blocks.empty()) return Error{where + ": no SwitchName or BlockName lines"};
  return slurm_topology_check(std::move(t), where);
}

Result<SlurmTopology> slurm_topology_check(SlurmTopology t, const std::string& where) {
  // The words of the file the entries came from.
  const bool yaml = t.yaml;
  auto switch_label = [&](const std::string& name) { return (yaml ? "switch " : "SwitchName=") + name; };
  auto block_label = [&](const std::string& name) { return (yaml ? "block " : "BlockName=") + name; };
  const std::string children = yaml ? "children" : "Switches";
  auto fail = [&](int line, const std::string& what) {
    return Error{where + ":" + std::to_string(line) + ": " + what};
  };
  // Names go back into topology.conf, where '=', ',' and brackets would change what they mean.
  // And a switch name is read back in a host list (Switches=, children:), which takes DNS names.
  const std::string name_rule = ": expected one name of at most " + std::to_string(kHostlistMaxNameLength) +
                                " characters of printable ASCII, without '=', ',' or brackets";
  auto bad_name = [](const std::string& name) {
    return name.empty() || name.size() > kHostlistMaxNameLength || name.find_first_of("=,[] \t") != std::string::npos;
  };
  // Host and switch names are ASCII without blanks or control characters, as DNS and Slurm take them.
  auto unprintable = [](const std::string& name) {
    return std::any_of(name.begin(), name.end(), [](char ch) { return ch < 0x21 || ch > 0x7e; });
  };
  auto shown = [](std::string name) {
    for (char& ch : name) ch = ch < 0x20 || ch > 0x7e ? '?' : ch;
    return name;
  };
  auto bad_hosts = [&](const std::vector<std::string>& names) {
    auto it = std::find_if(names.begin(), names.end(), unprintable);
    return it == names.end() ? std::string() : "host '" + shown(*it) + "' has a blank, control or non-ASCII character";
  };
  std::map<std::string, size_t> switch_at;
  for (size_t i = 0; i < t.switches.size(); ++i) {
    const SlurmTopology::Switch& s = t.switches[i];
    if (bad_name(s.name) || unprintable(s.name)) return fail(s.line, switch_label(shown(s.name)) + name_rule);
    if (std::string bad = bad_hosts(s.nodes); !bad.empty()) return fail(s.line, switch_label(s.name) + ": " + bad);
    if (s.nodes.empty() && s.switches.empty())
      return fail(s.line,
                  switch_label(s.name) + ": gives neither " + (yaml ? "nodes nor children" : "Nodes nor Switches"));
    if (std::find(s.switches.begin(), s.switches.end(), s.name) != s.switches.end())
      return fail(s.line, switch_label(s.name) + ": " + children + " names " + s.name + " itself");
    if (!switch_at.emplace(s.name, i).second)
      return fail(s.line, switch_label(s.name) + ": already defined on line " +
                              std::to_string(t.switches[switch_at[s.name]].line));
  }
  std::map<std::string, int> block_line;
  for (const SlurmTopology::Block& b : t.blocks) {
    if (bad_name(b.name) || unprintable(b.name)) return fail(b.line, block_label(shown(b.name)) + name_rule);
    if (std::string bad = bad_hosts(b.nodes); !bad.empty()) return fail(b.line, block_label(b.name) + ": " + bad);
    if (b.nodes.empty()) return fail(b.line, block_label(b.name) + ": gives no " + (yaml ? "nodes" : "Nodes"));
    if (!block_line.emplace(b.name, b.line).second)
      return fail(b.line, block_label(b.name) + ": already defined on line " + std::to_string(block_line[b.name]));
  }
  // What Slurm's block plugin refuses to start on (src/plugins/topology/block/block_record.c): a
  // block size that is not the base block's node count (the first size) times a power of two up
  // to 2^15, and a block with fewer nodes than the base (the first block's count without sizes).
  const std::string sizes_key = yaml ? "block_sizes" : "BlockSizes";
  if (!t.block_sizes.empty() && t.blocks.empty())
    return fail(
        t.block_sizes_line,
        sizes_key + ": only with BlockName lines (Slurm's block plugin); SwitchName lines are the tree plugin's");
  if (!t.blocks.empty()) {
    const size_t base =
        t.block_sizes.empty() ? t.blocks.front().nodes.size() : static_cast<size_t>(t.block_sizes.front());
    for (int size : t.block_sizes) {
      const size_t times = static_cast<size_t>(size) / base;
      if (static_cast<size_t>(size) % base != 0 || (times & (times - 1)) != 0 || times > (size_t{1} << 15))
        return fail(t.block_sizes_line,
                    sizes_key + ": " + std::to_string(size) + " is not " + std::to_string(base) +
                        " (the base block size, the first) times a power of two up to 32768: Slurm's block plugin "
                        "joins 2, 4, 8 ... base blocks into larger ones");
    }
    const std::string base_from = t.block_sizes.empty() ? " (the first block's, as no " + sizes_key + " are given)"
                                                        : " (" + sizes_key + "' first)";
    for (const SlurmTopology::Block& b : t.blocks)
      if (b.nodes.size() < base)
        return fail(b.line, block_label(b.name) + ": " + counted(static_cast<int64_t>(b.nodes.size()), "host") +
                                ", fewer than the base block size " + std::to_string(base) + base_from +
                                ": Slurm's block plugin refuses a smaller block");
  }
  // Every child switch is defined, and no switch is its own ancestor.
  for (const SlurmTopology::Switch& s : t.switches)
    for (const std::string& child : s.switches)
      if (!switch_at.contains(child))
        return fail(s.line, switch_label(s.name) + ": " + children + " names " + child + ", which no " +
                                (yaml ? "switch entry" : "SwitchName line") + " defines");
  std::vector<int> state(t.switches.size());  // 0 unseen, 1 on the path, 2 done
  std::function<std::string(size_t)> visit = [&](size_t i) -> std::string {
    if (state[i] == 2) return "";
    if (state[i] == 1) return t.switches[i].name;
    state[i] = 1;
    for (const std::string& child : t.switches[i].switches)
      if (std::string cycle = visit(switch_at[child]); !cycle.empty()) return cycle;
    state[i] = 2;
    return "";
  };
  for (size_t i = 0; i < t.switches.size(); ++i)
    if (std::string cycle = visit(i); !cycle.empty())
      return Error{where + ": switch " + cycle + " is below itself (" + children + " entries form a cycle)"};
  return t;
}

Result<ClusterImport> slurm_topology_build(const SlurmTopology& topo, const NodeType& type, const std::string& name,
                                           double oversubscription, const std::string& where) {
  if (type.nics == 0) return Error{where + ": node type '" + type.name + "' has no NICs to connect to the switches"};
  // The tree as switches; blocks become leaves.
  std::vector<SlurmTopology::Switch> switches = topo.switches;
  ClusterImport out;
  if (!topo.blocks.empty()) {
    for (const SlurmTopology::Block& b : topo.blocks) switches.push_back({b.name, b.nodes, {}, b.line});
    out.notes.push_back(type.hosts_per_domain > 1 ? "each block is an NVLink domain (" + type.name +
                                                        " racks) and a leaf switch (topology/block names no switches)"
                                                  : "each block is a leaf switch (topology/block names no switches)");
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < switches.size(); ++i) index[switches[i].name] = i;
  std::vector<std::vector<size_t>> parents_of(switches.size());
  UnionFind parts(switches.size());
  for (size_t p = 0; p < switches.size(); ++p)
    for (const std::string& child : switches[p].switches) {
      parents_of[index[child]].push_back(p);
      parts.join(static_cast<uint32_t>(index[child]), static_cast<uint32_t>(p));
    }
  // Switches that no chain of Switches= lines joins (leaves alone, separate trees) get a root.
  std::vector<std::string> tops;
  std::set<uint32_t> groups;
  for (size_t i = 0; i < switches.size(); ++i) {
    groups.insert(parts.find(static_cast<uint32_t>(i)));
    if (parents_of[i].empty()) tops.push_back(switches[i].name);
  }
  if (groups.size() > 1) {
    std::string root = "root";
    while (index.contains(root)) root += "_";
    out.notes.push_back(std::to_string(groups.size()) + " parts of the fabric that no switch in the file joins (" +
                        tops.front() + ", ...): " + root + " joins them, as fast as they are");
    index[root] = switches.size();
    for (const std::string& top : tops) parents_of[index[top]].push_back(switches.size());
    parents_of.emplace_back();
    switches.push_back({root, {}, tops, 0});
  }

  // Hosts in the order the file first names them; each under every leaf that lists it.
  std::vector<std::string> names;
  std::map<std::string, std::vector<size_t>> leaves_of;
  for (size_t i = 0; i < switches.size(); ++i)
    for (const std::string& host : switches[i].nodes) {
      std::vector<size_t>& l = leaves_of[host];
      if (l.empty()) names.push_back(host);
      if (std::find(l.begin(), l.end(), i) == l.end()) l.push_back(i);
    }
  int multi = 0;
  std::string first_multi;
  for (const std::string& h : names) {
    if (leaves_of[h].size() > static_cast<size_t>(type.nics))
      return Error{where + ": host " + h + " is under " + std::to_string(leaves_of[h].size()) +
                   " switches, more than its " + std::to_string(type.nics) + " NICs can reach"};
    if (leaves_of[h].size() > 1 && multi++ == 0) first_multi = h;
  }
  if (multi)
    out.notes.push_back(counted(multi, "host") + " under several switches (" + first_multi +
                        ", ...): NIC i goes to the i-th of them, as on a rail-optimized fabric");

  Cluster& c = out.cluster;
  c.name = name;
  c.fabric_note = std::string("from Slurm's ") + (topo.yaml ? "topology.yaml" : "topology.conf") + " (" + where + ")";
  const int site = c.add_site("site0");
  std::vector<VertexId> first_nic;
  const std::vector<SlurmTopology::Block>& racks = topo.blocks.empty() ? topo.domain_blocks : topo.blocks;
  if (type.hosts_per_domain > 1 && !racks.empty()) {
    // On rack-scale nodes (GB200 NVL72) a block is the NVLink domain the plugin keeps jobs in.
    if (topo.blocks.empty()) {
      // Blocks beside a tree: the same hosts, built in the blocks' order.
      std::vector<std::string> in_blocks;
      for (const SlurmTopology::Block& b : racks) in_blocks.insert(in_blocks.end(), b.nodes.begin(), b.nodes.end());
      const std::set<std::string> blocked(in_blocks.begin(), in_blocks.end());
      for (const std::string& h : names)
        if (!blocked.contains(h))
          return Error{where + ": host " + h + " is in no block of topology " + topo.domain_blocks_from +
                       ", which gives the NVLink domains of the tree's " + type.name + " hosts: a host is in one"};
      for (const std::string& h : in_blocks)
        if (!leaves_of.contains(h))
          return Error{where + ": topology " + topo.domain_blocks_from + " names host " + h +
                       ", which the tree does not"};
      names = in_blocks;
      out.notes.push_back("NVLink domains from the blocks of topology " + topo.domain_blocks_from +
                          ", beside the tree");
    }
    Result<std::string> note = racks_build(c, racks, topo.yaml, type, site, where, &first_nic);
    RETURN_IF_ERROR(note);
    if (!note->empty()) out.notes.push_back(*note);
  } else {
    hosts_build(c, type, names, site, 0, static_cast<int>(names.size()), &first_nic);
    const auto per_rack = static_cast<size_t>(type.hosts_per_domain);
    if (per_rack > 1)
      out.notes.push_back(
          "the tree names no NVLink domains: hosts fill " + type.name + " racks of " + std::to_string(per_rack) +
          " in the order the file names them" +
          (names.size() % per_rack ? " (the last holds " + std::to_string(names.size() % per_rack) + ")" : "") +
          "; Slurm's block topology (BlockName lines, or a block topology in topology.yaml) names the real ones");
  }

  // Tiers bottom up: a switch sits one above its highest child.
  std::vector<int> tier(switches.size(), 0);
  std::function<int(size_t)> tier_of = [&](size_t i) {
    if (tier[i] == 0) {
      int t = 1;
      for (const std::string& child : switches[i].switches) t = std::max(t, tier_of(index[child]) + 1);
      tier[i] = t;
    }
    return tier[i];
  };
  std::vector<size_t> order(switches.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i, tier_of(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tier[a] < tier[b]; });
  std::vector<VertexId> vertex(switches.size());
  for (size_t i = 0; i < switches.size(); ++i) {
    Device d;
    d.name = switches[i].name;
    d.kind = DeviceKind::switch_;
    d.site = site;
    d.tier = static_cast<int16_t>(tier[i]);
    Result<VertexId> v = c.add_device(std::move(d));
    if (!v) return Error{where + ": switch " + switches[i].name + ": " + v.error()};
    vertex[i] = *v;
  }
  const double nic_GBps = type.nic_gbit_s / 8;
  std::vector<int64_t> down_ports(switches.size(), 0);
  for (size_t h = 0; h < names.size(); ++h) {
    const std::vector<size_t>& leaves = leaves_of[names[h]];
    for (int n = 0; n < type.nics; ++n) {
      const size_t leaf = leaves[static_cast<size_t>(n) % leaves.size()];
      c.add_link(first_nic[h] + static_cast<VertexId>(n), vertex[leaf], LinkKind::NET, nic_GBps, HopLatency::net_us)
          .value();
      ++down_ports[leaf];
    }
  }
  // Uplinks, lowest tier first so each switch knows what is under it: whole ports at the NIC
  // rate, its down ports over `oversubscription` rounded up and at least one per parent, cabled
  // round robin over its parents as fabric.cc cables them (bundles differing by one port at most).
  int64_t first = 0;
  for (size_t i : order) {
    const auto parents = static_cast<int64_t>(parents_of[i].size());
    if (parents == 0) continue;
    const int64_t up =
        std::max(parents, static_cast<int64_t>(std::ceil(static_cast<double>(down_ports[i]) / oversubscription)));
    for (int64_t k = 0; k < parents; ++k) {
      const size_t p = parents_of[i][static_cast<size_t>(k)];
      for (int64_t n = ports_to(first, up, k, parents); n > 0; --n) {
        c.add_link(vertex[i], vertex[p], LinkKind::NET, nic_GBps, HopLatency::net_us).value();
        ++down_ports[p];
      }
    }
    first += up;
  }
  if (Result<void> ok = c.finalize(); !ok) return Error{where + ": " + ok.error()};
  return out;
}

namespace {

// Leaves that serve the same hosts (a rail-optimized unit's one leaf per rail, or a dual plane's
// two) become one switch: Slurm's tree plugin counts a host under several leaves as under all of
// them, so `--switches=1` could never hold and a job asking for it waited out its TIME and then
// ran anywhere (Slurm 22.05, scripts/slurm-test). Named after the leaves: leaf[0-7] -> leaf0-7.
void merge_rail_leaves(SlurmTopology& t) {
  std::map<std::vector<std::string>, std::vector<size_t>> by_hosts;
  for (size_t i = 0; i < t.switches.size(); ++i)
    if (!t.switches[i].nodes.empty()) {
      std::vector<std::string> hosts = t.switches[i].nodes;
      std::sort(hosts.begin(), hosts.end());
      by_hosts[hosts].push_back(i);
    }
  std::map<std::string, std::string> renamed;
  std::vector<char> gone(t.switches.size(), 0);
  std::set<std::string> used;
  for (const SlurmTopology::Switch& sw : t.switches) used.insert(sw.name);
  for (const auto& [hosts, leaves] : by_hosts) {
    if (leaves.size() < 2) continue;
    std::vector<std::string> names;
    for (size_t i : leaves) names.push_back(t.switches[i].name);
    std::string name;
    for (char ch : hostlist_compress(names))
      if (ch != '[' && ch != ']') name += ch == ',' ? '+' : ch;
    // Unique, and short enough to read back; else the first leaf's name, which no other switch has.
    while (name.size() <= kHostlistMaxNameLength && used.contains(name)) name += '_';
    if (name.size() > kHostlistMaxNameLength) name = names.front();
    used.insert(name);
    for (size_t i : leaves) {
      renamed[t.switches[i].name] = name;
      gone[i] = i != leaves.front();
    }
    t.switches[leaves.front()].name = name;
  }
  if (renamed.empty()) return;
  std::vector<SlurmTopology::Switch> kept;
  for (size_t i = 0; i < t.switches.size(); ++i) {
    if (gone[i]) continue;
    SlurmTopology::Switch sw = std::move(t.switches[i]);
    std::vector<std::string> children;
    for (const std::string& child : sw.switches) {
      auto it = renamed.find(child);
      const std::string& now = it == renamed.end() ? child : it->second;
      if (std::find(children.begin(), children.end(), now) == children.end()) children.push_back(now);
    }
    sw.switches = std::move(children);
    kept.push_back(std::move(sw));
  }
  t.switches = std::move(kept);
}

}  // namespace

SlurmTopology slurm_tree_of(const Cluster& c) {
  std::vector<VertexId> switches;
  for (VertexId v = 0; v < c.num_devices(); ++v)
    if (is_fabric(c.device(v).kind)) switches.push_back(v);
  std::stable_sort(switches.begin(), switches.end(),
                   [&](VertexId a, VertexId b) { return c.device(a).tier < c.device(b).tier; });
  SlurmTopology t;
  for (VertexId s : switches) {
    SlurmTopology::Switch out{c.device(s).name, {}, {}, 0};
    for (EdgeId e : c.out_edges(s)) {
      const Device& d = c.device(c.target(e));
      if (d.kind == DeviceKind::nic) {
        const std::string& h = c.hosts()[static_cast<size_t>(d.host)].name;
        if (out.nodes.empty() || out.nodes.back() != h) out.nodes.push_back(h);
      } else if (is_fabric(d.kind) && d.tier < c.device(s).tier &&
                 std::find(out.switches.begin(), out.switches.end(), d.name) == out.switches.end()) {
        out.switches.push_back(d.name);  // once per child, however many ports the bundle has
      }
    }
    t.switches.push_back(std::move(out));
  }
  merge_rail_leaves(t);
  // Slurm lets a job span only hosts that one switch reaches through its descendants. Where no top
  // switch reaches them all (sites joined by DCI links between peers, which a tree cannot name), a
  // root above the top switches stands for those links.
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < t.switches.size(); ++i) at[t.switches[i].name] = i;
  std::vector<char> has_parent(t.switches.size(), 0);
  for (const SlurmTopology::Switch& sw : t.switches)
    for (const std::string& child : sw.switches) has_parent[at[child]] = 1;
  std::vector<std::string> tops;
  for (size_t i = 0; i < t.switches.size(); ++i)
    if (!has_parent[i]) tops.push_back(t.switches[i].name);
  if (tops.size() < 2) return t;
  std::map<std::string, int> host_index;
  for (size_t h = 0; h < c.hosts().size(); ++h) host_index[c.hosts()[h].name] = static_cast<int>(h);
  std::vector<int> seen_host(c.hosts().size(), -1), seen_switch(t.switches.size(), -1);
  for (size_t k = 0; k < tops.size(); ++k) {
    size_t reached = 0;
    std::vector<size_t> stack{at[tops[k]]};
    seen_switch[stack.back()] = static_cast<int>(k);
    while (!stack.empty()) {
      const SlurmTopology::Switch& sw = t.switches[stack.back()];
      stack.pop_back();
      for (const std::string& h : sw.nodes)
        if (int& mark = seen_host[static_cast<size_t>(host_index[h])]; mark != static_cast<int>(k))
          mark = static_cast<int>(k), ++reached;
      for (const std::string& child : sw.switches)
        if (int& mark = seen_switch[at[child]]; mark != static_cast<int>(k))
          mark = static_cast<int>(k), stack.push_back(at[child]);
    }
    if (reached == c.hosts().size()) return t;
  }
  std::string root = "root";
  while (at.contains(root)) root += "_";
  t.switches.push_back({root, {}, tops, 0});
  return t;
}

SlurmTopology slurm_blocks_of(const Cluster& c, std::string* what) {
  // Hosts grouped by NVLink domain where domains span hosts, else by the leaves their NICs use.
  std::map<int32_t, int> hosts_in_domain;
  bool racks = false;
  for (const Host& h : c.hosts()) racks |= ++hosts_in_domain[h.scaleup_domain] > 1;
  *what = racks ? "NVLink domain" : "group of hosts on the same leaf switches";
  std::map<std::string, size_t> block_of;
  SlurmTopology t;
  for (const Host& h : c.hosts()) {
    std::string key;
    if (racks) {
      key = c.domains()[static_cast<size_t>(h.scaleup_domain)];
    } else {
      std::set<std::string> leaves;
      for (VertexId nic : h.nics)
        for (EdgeId e : c.out_edges(nic))
          if (is_fabric(c.device(c.target(e)).kind)) leaves.insert(c.device(c.target(e)).name);
      for (const std::string& l : leaves) key += l + ",";
    }
    auto [it, added] = block_of.emplace(key, t.blocks.size());
    if (added) t.blocks.push_back({racks ? key : "b" + std::to_string(t.blocks.size() + 1), {}, 0});
    t.blocks[it->second].nodes.push_back(h.name);
  }
  size_t base = c.hosts().size();
  for (const SlurmTopology::Block& b : t.blocks) base = std::min(base, b.nodes.size());
  for (size_t s = base; s <= c.hosts().size() && s > 0; s *= 2) t.block_sizes.push_back(static_cast<int>(s));
  return t;
}

std::string slurm_tree_write(const Cluster& c) {
  std::ostringstream out;
  out << "# topology.conf for Slurm's topology/tree plugin, written by topoplan from " << c.name << "\n";
  for (const SlurmTopology::Switch& s : slurm_tree_of(c).switches) {
    out << "SwitchName=" << s.name;
    if (!s.nodes.empty()) out << " Nodes=" << hostlist_compress(s.nodes);
    if (!s.switches.empty()) out << " Switches=" << hostlist_compress(s.switches);
    out << "\n";
  }
  return out.str();
}

std::string slurm_block_write(const Cluster& c) {
  std::string what;
  const SlurmTopology t = slurm_blocks_of(c, &what);
  std::ostringstream out;
  out << "# topology.conf for Slurm's topology/block plugin, written by topoplan from " << c.name << ": a block per "
      << what << "\n";
  for (const SlurmTopology::Block& b : t.blocks)
    out << "BlockName=" << b.name << " Nodes=" << hostlist_compress(b.nodes) << "\n";
  out << "BlockSizes=";
  for (size_t i = 0; i < t.block_sizes.size(); ++i) out << (i ? "," : "") << t.block_sizes[i];
  out << "\n";
  return out.str();
}

}  // namespace topoplan
