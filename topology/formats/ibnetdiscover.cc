#include "topology/formats/ibnetdiscover.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "base/file_io.h"
#include "base/limits.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/fabric.h"

namespace topoplan {
namespace {

// Data rate per lane after line encoding, Gbit/s: the InfiniBand Architecture Specification
// Vol. 2 Rel. 1.5, "Link speed" (SDR 2.5, DDR 5, QDR 10 GBd with 8b/10b; FDR10 10.3125, FDR
// 14.0625, EDR 25.78125 GBd with 64b/66b; HDR 53.125, NDR 106.25, XDR 212.5 GBd PAM4 with FEC),
// as NVIDIA's port rates quote them: 4xHDR 200 Gb/s, 4xNDR 400 Gb/s. ibnetdiscover's names for
// the active speed are infiniband-diags' (libibnetdisc, ibnd_dump speed strings).
constexpr std::pair<std::string_view, double> kLaneGbitS[] = {
    {"SDR", 2},  {"DDR", 4},  {"QDR", 8},   {"FDR10", 10}, {"FDR", 14.0625 * 64 / 66},
    {"EDR", 25}, {"HDR", 50}, {"NDR", 100}, {"XDR", 200},
};
// Active link widths: lanes per port (2x: the split ports of HDR100 and NDR200).
constexpr int kWidths[] = {1, 2, 4, 8, 12};

struct IbNode {
  bool is_switch = false;
  std::string id, description;
  int ports = 0, line = 0;
};

// One side of a cable as a port line gives it.
struct IbPort {
  size_t node = 0, peer = 0;
  int port = 0, peer_port = 0, line = 0;
  double GBps = 0;
};

// A small cursor over one line, for the bracketed and quoted fields.
struct Cursor {
  std::string_view s;
  size_t at = 0;
  void blanks() {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r')) ++at;
  }
  bool eat(char ch) {
    if (at < s.size() && s[at] == ch) return ++at, true;
    return false;
  }
  bool number(int* n) {
    auto [p, ec] = std::from_chars(s.data() + at, s.data() + s.size(), *n);
    if (ec != std::errc() || *n < 0) return false;
    at = static_cast<size_t>(p - s.data());
    return true;
  }
  bool quoted(std::string* out) {
    if (!eat('"')) return false;
    const size_t end = s.find('"', at);
    if (end == std::string_view::npos) return false;
    *out = std::string(s.substr(at, end - at));
    at = end + 1;
    return true;
  }
  // "(guid)", where given.
  bool guid() {
    if (!eat('(')) return true;
    const size_t end = s.find(')', at);
    if (end == std::string_view::npos) return false;
    at = end + 1;
    return true;
  }
  std::string_view rest() const { return s.substr(std::min(at, s.size())); }
};

// "4xHDR" as GB/s, or why not.
Result<double> link_GBps(std::string_view text) {
  const size_t x = text.find('x');
  int width = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + (x == std::string_view::npos ? 0 : x), width);
  if (x == std::string_view::npos || x == 0 || ec != std::errc() || p != text.data() + x)
    return Error{"expected the link's width and speed at the end, e.g. 4xHDR, got '" + std::string(text) + "'"};
  if (std::find(std::begin(kWidths), std::end(kWidths), width) == std::end(kWidths))
    return Error{"unknown link width '" + std::string(text.substr(0, x + 1)) + "' (expected 1x, 2x, 4x, 8x or 12x)"};
  const std::string_view speed = text.substr(x + 1);
  std::vector<std::string> speeds;
  for (const auto& [name, gbit_s] : kLaneGbitS) {
    if (speed == name) return width * gbit_s / 8;
    speeds.emplace_back(name);
  }
  std::string list;
  for (const std::string& s : speeds) list += (list.empty() ? "" : ", ") + s;
  return Error{"unknown link speed '" + std::string(speed) + "' (expected one of " + list + ")"};
}

struct IbFabric {
  std::vector<IbNode> nodes;
  std::vector<IbPort> ports;
};

Result<IbFabric> fabric_parse(const std::string& text, const std::string& where) {
  IbFabric f;
  std::map<std::string, size_t> node_at;
  std::vector<std::pair<std::string, int>> peer_names;  // per port: the peer's id as written, its port
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::optional<size_t> block;  // the node whose port lines follow
  size_t block_ports = 0;
  auto fail = [&](int at, const std::string& what) { return Error{where + ":" + std::to_string(at) + ": " + what}; };
  auto end_block = [&]() -> std::optional<Error> {
    if (block && block_ports == 0)
      return fail(f.nodes[*block].line,
                  "\"" + f.nodes[*block].id +
                      "\" has no port lines: a truncated block? (every node ibnetdiscover reaches has a cabled port)");
    block.reset();
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++line_no;
    Cursor c{line};
    c.blanks();
    if (c.at == line.size() || line[c.at] == '#') continue;
    const std::string_view l = c.rest();
    if (l[0] == '[') {
      if (!block) return fail(line_no, "a port line outside a node block (expected a Switch or Ca line before it)");
      IbPort p;
      p.node = *block;
      p.line = line_no;
      std::string peer;
      if (!(c.eat('[') && c.number(&p.port) && c.eat(']') && c.guid() && (c.blanks(), c.quoted(&peer)) && c.eat('[') &&
            c.number(&p.peer_port) && c.eat(']') && c.guid()))
        return fail(line_no, "expected a port line '[N] \"PEER\"[M] # ... 4xHDR', got '" + std::string(l) + "'");
      const IbNode& n = f.nodes[*block];
      if (p.port < 1 || p.port > n.ports)
        return fail(line_no, "port " + std::to_string(p.port) + " of \"" + n.id + "\", which has ports 1 to " +
                                 std::to_string(n.ports));
      const std::string_view rest = trim(c.rest());
      const size_t last = rest.find_last_of(" \t");
      Result<double> GBps = link_GBps(last == std::string_view::npos ? rest : rest.substr(last + 1));
      if (!GBps) return fail(line_no, "\"" + n.id + "\"[" + std::to_string(p.port) + "]: " + GBps.error());
      p.GBps = *GBps;
      f.ports.push_back(p);
      peer_names.emplace_back(peer, line_no);
      ++block_ports;
      continue;
    }
    std::string word;
    for (size_t i = c.at; i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])); ++i) word += line[i];
    if (word.find('=') != std::string::npos || l.starts_with("Non-Chassis Nodes") || word == "Chassis") {
      // vendid=, devid=, sysimgguid=, switchguid=, caguid= and chassis headings open or sort blocks.
      if (auto e = end_block()) return *e;
      continue;
    }
    if (word != "Switch" && word != "Ca" && word != "Rt")
      return fail(line_no, "expected a node line (Switch, Ca), a port line ([N] ...) or key=value, got '" +
                               std::string(l) + "'");
    if (word == "Rt") return fail(line_no, "an InfiniBand router: topoplan reads one subnet, of switches and HCAs");
    if (auto e = end_block()) return *e;
    c.at += word.size();
    IbNode n;
    n.is_switch = word == "Switch";
    n.line = line_no;
    c.blanks();
    if (!(c.number(&n.ports) && (c.blanks(), c.quoted(&n.id)) && n.ports > 0))
      return fail(line_no, "expected '" + word + " PORTS \"" + (n.is_switch ? "S" : "H") +
                               "-GUID\" # \"description\"', got '" + std::string(l) + "'");
    c.blanks();
    if (c.eat('#')) {
      c.blanks();
      if (!c.quoted(&n.description)) n.description.clear();
    }
    if (!node_at.emplace(n.id, f.nodes.size()).second)
      return fail(line_no, "\"" + n.id + "\" is described twice (first on line " +
                               std::to_string(f.nodes[node_at[n.id]].line) + ")");
    block = f.nodes.size();
    block_ports = 0;
    f.nodes.push_back(std::move(n));
  }
  if (auto e = end_block()) return *e;
  // Peers by name, then each cable's two sides agree: a port is cabled once.
  std::map<std::pair<size_t, int>, size_t> side;
  for (size_t i = 0; i < f.ports.size(); ++i) {
    IbPort& p = f.ports[i];
    auto it = node_at.find(peer_names[i].first);
    if (it == node_at.end())
      return fail(p.line,
                  "names \"" + peer_names[i].first + "\", which no Switch or Ca block describes (a truncated file?)");
    p.peer = it->second;
    if (p.peer == p.node)
      return fail(p.line, "\"" + f.nodes[p.node].id + "\"[" + std::to_string(p.port) + "] is cabled to its own node");
    if (p.peer_port < 1 || p.peer_port > f.nodes[p.peer].ports)
      return fail(p.line, "port " + std::to_string(p.peer_port) + " of \"" + f.nodes[p.peer].id +
                              "\", which has ports 1 to " + std::to_string(f.nodes[p.peer].ports));
    if (auto [at, added] = side.emplace(std::pair{p.node, p.port}, i); !added)
      return fail(p.line, "\"" + f.nodes[p.node].id + "\"[" + std::to_string(p.port) +
                              "] is listed twice (first on line " + std::to_string(f.ports[at->second].line) + ")");
  }
  for (const IbPort& p : f.ports) {
    auto back = side.find({p.peer, p.peer_port});
    if (back == side.end()) continue;  // the peer's block lists its other ports only: one side is enough
    const IbPort& q = f.ports[back->second];
    if (q.peer != p.node || q.peer_port != p.port)
      return fail(p.line, "\"" + f.nodes[p.node].id + "\"[" + std::to_string(p.port) + "] is cabled to \"" +
                              f.nodes[p.peer].id + "\"[" + std::to_string(p.peer_port) + "], which line " +
                              std::to_string(q.line) + " cables to \"" + f.nodes[q.peer].id + "\"[" +
                              std::to_string(q.peer_port) + "]: a port is cabled once");
  }
  return f;
}

}  // namespace

bool ibnetdiscover_sniff(std::string_view line, std::string_view) {
  if (line.starts_with("vendid=")) return true;
  for (std::string_view kind : {"Switch", "Ca"})
    if (line.starts_with(kind) && line.size() > kind.size() + 1 &&
        (line[kind.size()] == ' ' || line[kind.size()] == '\t')) {
      const std::string_view rest = trim(line.substr(kind.size()));
      if (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) return true;
    }
  return false;
}

Result<ClusterImport> ibnetdiscover_import(const std::string& text, const std::string& where,
                                           const ClusterImportOptions& options) {
  if (!options.topology.empty())
    return Error{where + ": --topology picks one of topology.yaml's topologies; ibnetdiscover prints one fabric"};
  if (options.oversubscription != 1)
    return Error{where + ": --oversubscription is for files without port counts; ibnetdiscover gives every cable"};
  const NodeType& type = options.type;
  if (type.nics == 0) return Error{where + ": node type '" + type.name + "' has no NICs to connect to the switches"};
  Result<IbFabric> parsed = fabric_parse(text, where);
  RETURN_IF_ERROR(parsed);
  const IbFabric& f = *parsed;

  // Hosts in the order the file first names them; each host's HCA ports in HCA order (mlx5_2
  // before mlx5_10), which is the rail order NCCL's NIC numbering follows.
  std::vector<std::string> names;
  std::map<std::string, std::vector<const IbPort*>> ports_of;
  std::vector<std::string> host_of(f.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const IbNode& n = f.nodes[i];
    if (n.is_switch) continue;
    const std::string host = n.description.substr(0, n.description.find_first_of(" \t"));
    if (host.empty())
      return Error{where + ":" + std::to_string(n.line) + ": Ca \"" + n.id +
                   "\" has no description to name its host by"};
    host_of[i] = host;
    if (!ports_of.contains(host)) names.push_back(host);
    ports_of[host];
  }
  if (names.empty()) return Error{where + ": no Ca blocks: no hosts to place (ibnetdiscover lists HCAs as Ca blocks)"};
  // Checked before hosts are built: a file is cheap to write and every host brings the type's devices.
  if (static_cast<int64_t>(names.size()) > limits::kMaxGpus / type.gpus)
    return Error{where + ": " + format_count(static_cast<int64_t>(names.size())) + " hosts of " +
                 std::to_string(type.gpus) + " GPUs are more than the limit of " + format_count(limits::kMaxGpus) +
                 " GPUs"};
  for (const IbPort& p : f.ports) {
    const IbNode& n = f.nodes[p.node];
    if (!n.is_switch && f.nodes[p.peer].is_switch)
      ports_of[host_of[p.node]].push_back(&p);
    else if (!n.is_switch)
      return Error{where + ":" + std::to_string(p.line) + ": Ca \"" + n.id + "\" is cabled to Ca \"" +
                   f.nodes[p.peer].id + "\": topoplan reads fabrics of switches, not hosts cabled back to back"};
  }
  // Switch port lines name CA ports whose own block may list none: take them from the switch side.
  for (const IbPort& p : f.ports)
    if (f.nodes[p.node].is_switch && !f.nodes[p.peer].is_switch) {
      std::vector<const IbPort*>& list = ports_of[host_of[p.peer]];
      const bool listed = std::any_of(list.begin(), list.end(),
                                      [&](const IbPort* q) { return q->node == p.peer && q->port == p.peer_port; });
      if (!listed) list.push_back(&p);
    }
  auto ca_port = [&](const IbPort* p) {
    return f.nodes[p->node].is_switch ? std::pair{p->peer, p->peer_port} : std::pair{p->node, p->port};
  };
  auto switch_of = [&](const IbPort* p) { return f.nodes[p->node].is_switch ? p->node : p->peer; };
  std::vector<std::string> notes;
  int shared = 0;
  std::string first_shared;
  for (const std::string& h : names) {
    std::vector<const IbPort*>& list = ports_of[h];
    std::sort(list.begin(), list.end(), [&](const IbPort* a, const IbPort* b) {
      const auto [na, pa] = ca_port(a);
      const auto [nb, pb] = ca_port(b);
      const std::string &da = f.nodes[na].description, &db = f.nodes[nb].description;
      return std::tuple{da.size(), da, pa} < std::tuple{db.size(), db, pb};
    });
    if (list.empty()) return Error{where + ": host " + h + " has no cabled HCA port"};
    if (list.size() > static_cast<size_t>(type.nics))
      return Error{where + ": host " + h + " has " + std::to_string(list.size()) + " cabled HCA ports, more than the " +
                   std::to_string(type.nics) + " NICs of node type '" + type.name + "'"};
    if (list.size() < static_cast<size_t>(type.nics) && shared++ == 0) first_shared = h;
  }
  if (shared)
    notes.push_back(counted(shared, "host") + " with fewer cabled HCA ports than " + type.name + "'s " +
                    counted(type.nics, "NIC") + " (" + first_shared +
                    ", ...): NIC i takes HCA port i mod the ports, at that port's rate");

  // Tiers by distance from the hosts: leaves hold HCAs, each switch above one tier over its
  // nearest lower neighbour (breadth first, so a spine cabled to a core and a leaf is tier 2).
  std::vector<int> tier(f.nodes.size(), 0);
  std::vector<size_t> frontier;
  for (const std::string& h : names)
    for (const IbPort* p : ports_of[h])
      if (int& t = tier[switch_of(p)]; t == 0) t = 1, frontier.push_back(switch_of(p));
  std::vector<std::vector<size_t>> neighbours(f.nodes.size());
  for (const IbPort& p : f.ports)
    if (f.nodes[p.node].is_switch && f.nodes[p.peer].is_switch)
      neighbours[p.node].push_back(p.peer), neighbours[p.peer].push_back(p.node);
  for (size_t i = 0; i < frontier.size(); ++i)
    for (size_t n : neighbours[frontier[i]])
      if (tier[n] == 0) tier[n] = tier[frontier[i]] + 1, frontier.push_back(n);
  for (size_t i = 0; i < f.nodes.size(); ++i)
    if (f.nodes[i].is_switch && tier[i] == 0)
      return Error{where + ":" + std::to_string(f.nodes[i].line) + ": switch \"" + f.nodes[i].id +
                   "\" reaches no host: a fabric apart from the hosts'"};

  ClusterImport out;
  Cluster& c = out.cluster;
  c.name = file_stem(where);
  c.fabric_note = "from ibnetdiscover (" + where + ")";
  const int site = c.add_site("site0");
  std::vector<VertexId> first_nic;
  hosts_build(c, type, names, site, 0, static_cast<int>(names.size()), &first_nic);
  if (type.hosts_per_domain > 1)
    notes.push_back("ibnetdiscover names no NVLink domains: hosts fill " + type.name + " racks of " +
                    std::to_string(type.hosts_per_domain) + " in the order the file names them");
  std::vector<VertexId> vertex(f.nodes.size());
  for (size_t i : frontier) {  // leaves first, then up
    Device d;
    d.name = f.nodes[i].id;
    d.kind = DeviceKind::switch_;
    d.site = site;
    d.tier = static_cast<int16_t>(tier[i]);
    Result<VertexId> v = c.add_device(std::move(d));
    if (!v)
      return Error{where + ":" + std::to_string(f.nodes[i].line) + ": switch " + f.nodes[i].id + ": " + v.error()};
    vertex[i] = *v;
  }
  for (size_t h = 0; h < names.size(); ++h) {
    const std::vector<const IbPort*>& list = ports_of[names[h]];
    for (int n = 0; n < type.nics; ++n) {
      const IbPort* p = list[static_cast<size_t>(n) % list.size()];
      c.add_link(first_nic[h] + static_cast<VertexId>(n), vertex[switch_of(p)], LinkKind::NET, p->GBps,
                 HopLatency::net_us)
          .value();
    }
  }
  // One link per cable between switches: from the side whose (node, port) sorts first, or the only side listed.
  std::map<std::pair<size_t, int>, bool> seen;
  for (const IbPort& p : f.ports) {
    if (!f.nodes[p.node].is_switch || !f.nodes[p.peer].is_switch) continue;
    if (seen.contains({p.peer, p.peer_port})) continue;
    seen[{p.node, p.port}] = true;
    c.add_link(vertex[p.node], vertex[p.peer], LinkKind::NET, p.GBps, HopLatency::net_us).value();
  }
  if (Result<void> ok = c.finalize(); !ok) return Error{where + ": " + ok.error()};
  out.notes = std::move(notes);
  return out;
}

}  // namespace topoplan
