#include "observe/nccl_log.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/words.h"

namespace topoplan {
namespace {

// A line as messages quote it: printable, cut past the longest line NCCL writes here (a 2.24 split's).
std::string shown(std::string_view s) {
  s = trim(s);
  std::string out = "'";
  for (char c : s.substr(0, 240)) out += blank(c) || static_cast<unsigned char>(c) >= 0x80 ? (c == ' ' ? ' ' : '?') : c;
  return out + (s.size() > 240 ? "...'" : "'");
}

template <typename T>
std::optional<T> number(std::string_view s, int base = 10) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// %p as glibc prints it: "0x7f3a5c000000", or "(nil)".
std::optional<uint64_t> pointer(std::string_view s) {
  if (s == "(nil)") return 0;
  if (!s.starts_with("0x") || s.size() > 18) return std::nullopt;
  return number<uint64_t>(s.substr(2), 16);
}

// NCCL's int64ToBusId (src/misc/utils.cc): "%04lx:%02lx:%02lx.%01lx".
std::string busid_of(uint64_t id) {
  char s[48];
  std::snprintf(s, sizeof s, "%04llx:%02llx:%02llx.%01llx", static_cast<unsigned long long>(id >> 20),
                static_cast<unsigned long long>((id & 0xff000) >> 12),
                static_cast<unsigned long long>((id & 0xff0) >> 4), static_cast<unsigned long long>(id & 0xf));
  return s;
}

bool host_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// ---- the lines ---------------------------------------------------------------------------------

// "host:pid:tid [dev] NCCL INFO message" with whatever a timestamp or launcher put before it.
struct InfoLine {
  std::string_view host;
  int pid = 0;
  std::string_view message;
};

constexpr std::string_view kInfo = " NCCL INFO ";

// nullopt when the prefix before " NCCL INFO " is not NCCL's.
std::optional<InfoLine> info_line(std::string_view line, size_t marker) {
  std::string_view head = trim(line.substr(0, marker));
  if (!head.ends_with(']')) return std::nullopt;
  const size_t open = head.rfind('[');
  if (open == std::string_view::npos || !number<int>(head.substr(open + 1, head.size() - open - 2)))
    return std::nullopt;
  head = trim(head.substr(0, open));
  size_t start = head.size();
  while (start > 0 && !blank(head[start - 1])) --start;
  const std::string_view token = head.substr(start);  // "host:pid:tid", maybe "[1,0]<stdout>:host:pid:tid"
  const size_t tid_colon = token.rfind(':');
  if (tid_colon == std::string_view::npos || tid_colon == 0) return std::nullopt;
  const size_t pid_colon = token.rfind(':', tid_colon - 1);
  if (pid_colon == std::string_view::npos) return std::nullopt;
  const std::optional<int> pid = number<int>(token.substr(pid_colon + 1, tid_colon - pid_colon - 1));
  if (!pid || *pid < 0 || !number<int>(token.substr(tid_colon + 1))) return std::nullopt;
  // Hostnames hold no ':' or ']': what a launcher or a timestamp glued on before it is cut away.
  std::string_view host = token.substr(0, pid_colon);
  size_t h = host.size();
  while (h > 0 && host_char(host[h - 1])) --h;
  host = host.substr(h);
  if (host.empty()) return std::nullopt;
  return InfoLine{host, *pid, trim(line.substr(marker + kInfo.size()))};
}

struct Version {
  std::string text;  // "2.21.5"
  int major = 0, minor = 0;
};

// "NCCL version 2.21.5+cuda12.4" anywhere in the line (bare from printf, or an INFO line).
std::optional<Version> version_in(std::string_view line) {
  const size_t at = line.find("NCCL version ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view token = line.substr(at + 13);
  size_t length = 0;
  while (length < token.size() && !blank(token[length])) ++length;
  token = token.substr(0, length);
  const size_t plus = token.find("+cuda");
  if (plus == std::string_view::npos) return std::nullopt;
  const std::string_view v = token.substr(0, plus);
  const size_t dot1 = v.find('.'), dot2 = dot1 == std::string_view::npos ? dot1 : v.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return std::nullopt;
  const std::optional<int> major = number<int>(v.substr(0, dot1)),
                           minor = number<int>(v.substr(dot1 + 1, dot2 - dot1 - 1));
  size_t patch_end = dot2 + 1;
  while (patch_end < v.size() && std::isdigit(static_cast<unsigned char>(v[patch_end]))) ++patch_end;
  if (!major || !minor || patch_end == dot2 + 1 || v.size() > 32) return std::nullopt;
  Version out;
  for (char c : v) out.text += blank(c) || static_cast<unsigned char>(c) >= 0x80 ? '?' : c;
  out.major = *major;
  out.minor = *minor;
  return out;
}

// The ops NCCL prints (src/collectives.cc ncclFuncToString). per_rank: the count is one rank's
// share (one peer's for AlltoAll), so nccl-tests' size is count x word x nranks.
struct OpInfo {
  std::string_view name;
  bool per_rank, rooted, p2p, reduces;
};
constexpr OpInfo kOps[] = {{"AllReduce", false, false, false, true},    {"AllGather", true, false, false, false},
                           {"ReduceScatter", true, false, false, true}, {"Broadcast", false, true, false, false},
                           {"Reduce", false, true, false, true},        {"Send", false, false, true, false},
                           {"Recv", false, false, true, false},         {"AlltoAll", true, false, false, false},
                           {"Gather", true, true, false, false},        {"Scatter", true, true, false, false}};

const OpInfo* op_info(std::string_view name) {
  for (const OpInfo& op : kOps)
    if (op.name == name) return &op;
  return nullptr;
}

bool is_p2p(const NcclLogCall& c) { return c.op == "Send" || c.op == "Recv"; }

bool same_call(const NcclLogCall& a, const NcclLogCall& b) {
  return a.op == b.op && a.count == b.count && a.datatype == b.datatype && a.peer == b.peer && a.root == b.root;
}

std::string call_shown(const NcclLogCall& c) {
  std::string s = c.op + " count " + std::to_string(c.count) + " datatype " + std::to_string(c.datatype);
  if (c.root >= 0) s += " root " + std::to_string(c.root);
  if (c.peer >= 0) s += " peer " + std::to_string(c.peer);
  return s;
}

constexpr std::string_view kCollExample =
    "'host:1234:1290 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f... recvbuff 0x7f... count 1048576 datatype 7 "
    "op 0 root 0 comm 0x55... [nranks=8] stream 0x55...'";
constexpr std::string_view kInitExample =
    "'host:1234:1234 [0] NCCL INFO comm 0x55... rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x... - Init "
    "COMPLETE'";

// ---- what the files say, gathered ----------------------------------------------------------------

// Warnings, a few of each kind, then one line counting the rest, so a damaged 1 GB log still
// gives a short report.
class Notes {
 public:
  void add(const std::string& kind, std::string text) {
    if (counts_[kind]++ < kShown) list_.push_back(std::move(text));
  }
  std::vector<std::string> finish() {
    for (const auto& [kind, n] : counts_)
      if (n > kShown) list_.push_back("... and " + std::to_string(n - kShown) + " more " + kind);
    return std::move(list_);
  }

 private:
  static constexpr int kShown = 8;
  std::map<std::string, int> counts_;
  std::vector<std::string> list_;
};

// One rank's view of one communicator: what its init line says and the calls it logged.
struct Member {
  std::string comm_key;   // the communicator's id as reported (with "#k" for a later one under one id)
  std::string signature;  // what the init line identifies it by, to tell START and COMPLETE of one apart from a new one
  NcclLogRank who;
  int nranks = 0, nnodes = 0, split_color = -1;
  std::string parent_id, where;
  int splits = 0;  // children split from it so far (a 2.23 split line has no splitCount)
  std::vector<NcclLogCall> calls;
};

struct Gathered {
  std::vector<Member> members;
  std::string version, version_where;
  int version_major = 0, version_minor = 0;
  Notes notes;
  std::set<std::string> odd_ops;
  std::set<int> odd_types;
  int lines = 0, lines_used = 0, calls_unmatched = 0, nccl_lines = 0;
};

// The key/value pairs of an init line ("comm 0x.. rank 0 nranks 8 ... key 0- Init START").
struct Fields {
  std::map<std::string_view, std::string_view> kv;
  std::string_view end;  // "START", "COMPLETE", or "" when the line stops before "- Init ..."
  std::optional<std::string_view> get(std::string_view k) const {
    auto it = kv.find(k);
    return it == kv.end() ? std::nullopt : std::optional<std::string_view>(it->second);
  }
};

Fields fields_of(const Words& w, size_t from) {
  Fields f;
  size_t i = from;
  for (; i + 1 < w.size() && w[i] != "-"; i += 2) {
    std::string_view v = w[i + 1];
    const bool dash = v.size() > 1 && v.back() == '-';  // 2.23-2.28 split START: "key %d- Init START"
    if (dash) v.remove_suffix(1);
    f.kv.emplace(w[i], v);
    if (dash) {
      i += 2;
      break;
    }
  }
  if (i < w.size() && w[i] == "-") ++i;
  if (i + 1 < w.size() && w[i] == "Init" && (w[i + 1] == "START" || w[i + 1] == "COMPLETE")) f.end = w[i + 1];
  return f;
}

class FileReader {
 public:
  FileReader(const std::string& where, Gathered& g) : where_(where), g_(g) {}
  Result<void> line(std::string_view text, int no, bool last_cut);
  void finish();

 private:
  using Key = std::tuple<int, int, uint64_t>;  // host, pid, comm pointer
  std::string at(int no) const { return where_ + ":" + std::to_string(no); }
  int host_id(std::string_view host) {
    auto it = hosts_.find(host);
    if (it == hosts_.end()) it = hosts_.emplace(std::string(host), static_cast<int>(hosts_.size())).first;
    return it->second;
  }
  void cut(int no, bool last_cut, std::string_view what, std::string_view text) {
    if (last_cut)
      g_.notes.add("lines cut short",
                   at(no) + ": the last line is cut short (" + std::string(what) + "), got " + shown(text));
    else
      g_.notes.add("lines cut or mixed", at(no) + ": expected " + std::string(what) + ", got " + shown(text) +
                                             "; left out (processes writing one stream can cut and mix lines)");
  }
  void version(const Version& v, int no) {
    ++g_.lines_used;
    if (g_.version.empty()) {
      g_.version = v.text, g_.version_where = at(no), g_.version_major = v.major, g_.version_minor = v.minor;
    } else if (g_.version != v.text) {
      g_.notes.add("version lines", at(no) + ": NCCL " + v.text + ", but " + g_.version_where + " says " + g_.version);
    }
  }
  Result<void> init(const InfoLine& l, const Words& w, size_t comm_word, int no, bool last_cut, std::string_view text);
  Result<void> coll(const InfoLine& l, const Words& w, int no, bool last_cut, std::string_view text);

  const std::string& where_;
  Gathered& g_;
  std::map<std::string, int, std::less<>> hosts_;
  std::map<Key, size_t> bound_;  // -> g_.members
  // (host, pid, id, bus id) -> communicators so far: a GPU is in a communicator once, so a second
  // init of one id on one GPU is another communicator (2.18-2.22 give every split of a parent with
  // one color the same commId).
  std::map<std::tuple<int, int, std::string, uint64_t>, int> instances_;
  struct Unmatched {
    int line = 0, calls = 0;
    std::string host;
  };
  std::map<Key, Unmatched> unmatched_;
};

Result<void> FileReader::line(std::string_view text, int no, bool last_cut) {
  const size_t marker = text.find(kInfo);
  if (marker == std::string_view::npos) {
    if (std::optional<Version> v = version_in(text)) {
      ++g_.nccl_lines;
      version(*v, no);
    } else if (text.find(" NCCL WARN ") != std::string_view::npos) {
      ++g_.nccl_lines;
    } else if (last_cut && text.find("NCCL") != std::string_view::npos) {
      ++g_.nccl_lines;
      cut(no, true, "an NCCL INFO line", text);
    }
    return {};
  }
  ++g_.nccl_lines;
  if (text.find(kInfo, marker + 1) != std::string_view::npos || text.find(" NCCL WARN ") != std::string_view::npos) {
    cut(no, last_cut, "one NCCL line", text);
    return {};
  }
  std::optional<InfoLine> l = info_line(text, marker);
  if (!l) {
    cut(no, last_cut, "NCCL's prefix 'host:pid:tid [cudaDev] NCCL INFO '", text);
    return {};
  }
  if (l->message.starts_with("NCCL version "))
    if (std::optional<Version> v = version_in(l->message)) {
      version(*v, no);
      return {};
    }
  const Words w = words_of(l->message);
  if (w.size() >= 2 && w[0].size() > 1 && w[0].back() == ':' && w[1] == "opCount")
    return coll(*l, w, no, last_cut, text);
  size_t comm_word = 0;
  if (w.size() >= 2 && w[0].starts_with("nccl") && w[1] == "comm") comm_word = 1;
  if (w.size() < 2 || w[comm_word] != "comm") return {};
  return init(*l, w, comm_word, no, last_cut, text);
}

Result<void> FileReader::init(const InfoLine& l, const Words& w, size_t comm_word, int no, bool last_cut,
                              std::string_view text) {
  const Fields f = fields_of(w, comm_word);
  const std::optional<uint64_t> ptr = f.get("comm") ? pointer(*f.get("comm")) : std::nullopt;
  const Key key{host_id(l.host), l.pid, ptr.value_or(0)};
  const bool destroy =
      w.back() == "COMPLETE" && w.size() >= 2 && (w[w.size() - 2] == "Destroy" || w[w.size() - 2] == "Abort");
  if (destroy && ptr) {
    bound_.erase(key);
    ++g_.lines_used;
    return {};
  }
  // "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d" (2.20 on)
  if (comm_word == 0 && f.get("nNodes")) {
    const std::optional<int> nodes = number<int>(f.get("nNodes").value_or(""));
    const std::optional<int> nranks = number<int>(f.get("nRanks").value_or(""));
    auto it = bound_.find(key);
    if (!ptr || !nodes || !nranks || *nodes < 1 || *nodes > *nranks || !f.get("localRank")) {
      cut(no, last_cut, "'comm 0x... rank R nRanks N nNodes K localRanks L localRank l MNNVL m'", text);
    } else if (it != bound_.end() && g_.members[it->second].nranks == *nranks) {
      g_.members[it->second].nnodes = *nodes;
      ++g_.lines_used;
    }
    return {};
  }
  const bool split = f.get("parent").has_value();
  if (f.end.empty()) {
    // Another "comm %p ..." line (Revoke, proxy) unless it is an init line cut short.
    if (last_cut || f.get("commId") || split) cut(no, last_cut, "an init line like " + std::string(kInitExample), text);
    return {};
  }
  const std::optional<int> rank = number<int>(f.get("rank").value_or("")),
                           nranks = number<int>(f.get("nranks").value_or(""));
  const std::optional<int> cuda = number<int>(f.get("cudaDev").value_or(""));
  const std::optional<int> nvml = f.get("nvmlDev") ? number<int>(*f.get("nvmlDev")) : std::optional<int>(-1);
  const std::optional<uint64_t> bus = number<uint64_t>(f.get("busId").value_or(""), 16);
  const std::optional<std::string_view> comm_id = f.get("commId");
  const std::optional<uint64_t> parent = split ? pointer(*f.get("parent")) : std::nullopt;
  const std::optional<int> color = split ? number<int>(f.get("color").value_or("")) : std::nullopt;
  const std::optional<int> split_count =
      f.get("splitCount") ? number<int>(*f.get("splitCount")) : std::optional<int>(-1);
  if (!ptr || !rank || !nranks || !cuda || !nvml || !bus || (comm_id && !pointer(*comm_id)) || (!comm_id && !split) ||
      (split && (!parent || !color || !split_count))) {
    cut(no, last_cut, "an init line like " + std::string(kInitExample), text);
    return {};
  }
  if (*nranks <= 0 || *nranks > limits::kMaxRanks)
    return Error{at(no) + ": an init line with nranks " + std::to_string(*nranks) + " (expected 1 to " +
                 std::to_string(limits::kMaxRanks) + "), in " + shown(text)};
  if (*rank < 0 || *rank >= *nranks)
    return Error{at(no) + ": rank " + std::to_string(*rank) + " of a communicator of " + std::to_string(*nranks) +
                 " ranks (expected 0 to " + std::to_string(*nranks - 1) + "), in " + shown(text)};
  ++g_.lines_used;
  const int split_color = split ? color.value_or(-1) : -1;

  // A 2.23+ split has no commId; it is known by its parent and color, and NCCL hashes those with
  // the split's ordinal among the parent's splits (splitCount, printed from 2.24).
  std::string signature = comm_id ? std::string(*comm_id) : "";
  auto parent_it = split ? bound_.find(Key{std::get<0>(key), l.pid, *parent}) : bound_.end();
  if (!comm_id)
    signature = "split of " + std::string(*f.get("parent")) + " count " + std::to_string(*split_count) + " color " +
                std::to_string(split_color);
  auto it = bound_.find(key);
  if (it != bound_.end()) {
    Member& m = g_.members[it->second];
    if (m.signature == signature && m.who.rank == *rank && m.nranks == *nranks) {
      if (m.who.nvml_index < 0) m.who.nvml_index = *nvml;
      return {};  // START, then COMPLETE of the same communicator
    }
  }
  std::string id = comm_id ? std::string(*comm_id) : "";
  std::string parent_id;
  if (parent_it != bound_.end()) parent_id = g_.members[parent_it->second].comm_key;
  if (!comm_id) {
    if (parent_it != bound_.end()) {
      Member& p = g_.members[parent_it->second];
      const int ordinal = *split_count >= 0 ? *split_count : p.splits;
      ++p.splits;
      id = p.comm_key + "/split" + std::to_string(ordinal) + "/color" + std::to_string(split_color);
    } else {
      id = "split of " + std::string(*f.get("parent")) + " on " + std::string(l.host) + ":" + std::to_string(l.pid) +
           "/color" + std::to_string(split_color);
      g_.notes.add("splits of unknown parents",
                   at(no) + ": communicator " + std::string(*f.get("comm")) + " is split from " +
                       std::string(*f.get("parent")) +
                       ", whose init line is not in the log; its ranks cannot be matched with "
                       "other processes'");
    }
  }
  const int instance = instances_[{std::get<0>(key), l.pid, id, *bus}]++;
  Member m;
  m.comm_key = instance == 0 ? id : id + "#" + std::to_string(instance + 1);
  m.signature = std::move(signature);
  m.who = NcclLogRank{std::string(l.host), l.pid, *cuda, *nvml, busid_of(*bus), *rank};
  m.nranks = *nranks;
  m.split_color = split_color;
  m.parent_id = std::move(parent_id);
  m.where = at(no);
  bound_[key] = g_.members.size();
  g_.members.push_back(std::move(m));
  return {};
}

Result<void> FileReader::coll(const InfoLine& l, const Words& w, int no, bool last_cut, std::string_view text) {
  const std::string_view op = w[0].substr(0, w[0].size() - 1);
  const bool named = !op.empty() && op.size() <= 32 && std::all_of(op.begin(), op.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
  });
  // "%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d root %d comm %p [nranks=%d] stream %p"
  static constexpr std::string_view kKeys[] = {"opCount",  "sendbuff", "recvbuff", "count",
                                               "datatype", "op",       "root",     "comm"};
  std::string_view v[std::size(kKeys)];
  bool whole = named && w.size() >= 1 + 2 * std::size(kKeys) + 3;
  for (size_t k = 0; whole && k < std::size(kKeys); ++k) {
    whole = w[1 + 2 * k] == kKeys[k];
    v[k] = w[2 + 2 * k];
  }
  const size_t tail = 1 + 2 * std::size(kKeys);
  std::optional<int> nranks;
  if (whole && w[tail].starts_with("[nranks=") && w[tail].ends_with("]"))
    nranks = number<int>(w[tail].substr(8, w[tail].size() - 9));
  const std::optional<uint64_t> op_count = whole ? number<uint64_t>(v[0], 16) : std::nullopt;
  const std::optional<uint64_t> count = whole ? number<uint64_t>(v[3]) : std::nullopt;
  const std::optional<int> datatype = whole ? number<int>(v[4]) : std::nullopt,
                           redop = whole ? number<int>(v[5]) : std::nullopt,
                           root = whole ? number<int>(v[6]) : std::nullopt;
  const std::optional<uint64_t> ptr = whole ? pointer(v[7]) : std::nullopt;
  if (!whole || !nranks || *nranks < 1 || !op_count || !count || !datatype || !redop || !root || !ptr ||
      w[tail + 1] != "stream" || !pointer(w[tail + 2]) || !pointer(v[1]) || !pointer(v[2])) {
    cut(no, last_cut, "a COLL line like " + std::string(kCollExample), text);
    return {};
  }
  const Key key{host_id(l.host), l.pid, *ptr};
  auto it = bound_.find(key);
  if (it == bound_.end() || g_.members[it->second].nranks != *nranks) {
    Unmatched& u = unmatched_[key];
    if (u.calls++ == 0) {
      u.line = no;
      u.host = std::string(l.host) + ":" + std::to_string(l.pid);
      if (it != bound_.end())
        u.host += " (its init line says " + std::to_string(g_.members[it->second].nranks) + " ranks, the call " +
                  std::to_string(*nranks) + ")";
    }
    ++g_.calls_unmatched;
    return {};
  }
  Member& m = g_.members[it->second];
  const OpInfo* info = op_info(op);
  if (!info && g_.odd_ops.size() < 64 && g_.odd_ops.insert(std::string(op)).second)
    g_.notes.add("unknown ops",
                 at(no) + ": op " + std::string(op) + " is not one NCCL 2.18-2.28 prints; its bytes are count x word");
  if (info && (info->rooted || info->p2p) && (*root < 0 || *root >= m.nranks)) {
    cut(no, last_cut, std::string(info->p2p ? "a peer" : "a root") + " below nranks", text);
    return {};
  }
  // fp8 (10, 11) is 2.24's; before that those numbers are no type.
  int word = nccl_log_datatype_bytes(*datatype);
  if (*datatype >= 10 && g_.version_major == 2 && g_.version_minor < 24) word = 0;
  if (word == 0 && g_.odd_types.size() < 64 && g_.odd_types.insert(*datatype).second)
    g_.notes.add("unknown datatypes",
                 at(no) + ": datatype " + std::to_string(*datatype) + " is no ncclDataType_t of NCCL " +
                     (g_.version.empty() ? "2.18-2.28" : g_.version) + "; its calls count 0 bytes");
  NcclLogCall c;
  c.op = std::string(op);
  c.op_count = *op_count;
  c.count = *count;
  c.datatype = *datatype;
  c.redop = info && !info->reduces ? -1 : *redop;
  if (info && info->p2p) c.peer = *root;
  if (info && info->rooted) c.root = *root;
  c.bytes = static_cast<double>(*count) * word * (info && info->per_rank ? m.nranks : 1);
  if (!(c.bytes <= limits::kMaxBytes))
    return Error{at(no) + ": " + c.op + " of count " + std::to_string(*count) + " of datatype " +
                 std::to_string(*datatype) + " on " + std::to_string(m.nranks) +
                 " ranks is more than the limit of 1e18 bytes (limits::kMaxBytes), in " + shown(text)};
  m.calls.push_back(std::move(c));
  ++g_.lines_used;
  return {};
}

void FileReader::finish() {
  for (const auto& [key, u] : unmatched_) {
    char ptr[24];
    std::snprintf(ptr, sizeof ptr, "0x%llx", static_cast<unsigned long long>(std::get<2>(key)));
    g_.notes.add("communicators without an init line", at(u.line) + ": " + std::to_string(u.calls) +
                                                           " call(s) on communicator " + ptr + " of process " + u.host +
                                                           ", which no init line in the log set up; left out");
  }
}

// The rank of each member whose calls are kept, and warnings where the others' collectives differ.
void compare_calls(const std::vector<Member*>& ranks, const Member& kept, const std::string& id, Notes& notes) {
  for (const Member* m : ranks) {
    if (m == &kept) continue;
    size_t i = 0, j = 0, k = 0;
    while (true) {
      while (i < kept.calls.size() && is_p2p(kept.calls[i])) ++i;
      while (j < m->calls.size() && is_p2p(m->calls[j])) ++j;
      if (i >= kept.calls.size() || j >= m->calls.size()) break;
      if (!same_call(kept.calls[i], m->calls[j])) {
        notes.add("ranks whose calls disagree",
                  "communicator " + id + ": rank " + std::to_string(m->who.rank) + "'s collective #" +
                      std::to_string(k + 1) + " (" + call_shown(m->calls[j]) + ") is not rank " +
                      std::to_string(kept.who.rank) + "'s (" + call_shown(kept.calls[i]) +
                      "); the calls kept are rank " + std::to_string(kept.who.rank) + "'s");
        break;
      }
      ++i, ++j, ++k;
    }
  }
}

bool same_device(const NcclLogRank& a, const NcclLogRank& b) {
  return a.host == b.host && a.pci_busid == b.pci_busid && a.cuda_ordinal == b.cuda_ordinal;
}

std::string device_shown(const NcclLogRank& r) {
  return "cuda device " + std::to_string(r.cuda_ordinal) + " (" + r.pci_busid + ") on " + r.host + " (pid " +
         std::to_string(r.pid) + ")";
}

Result<NcclLog> finish(Gathered& g, const std::string& what) {
  NcclLog log;
  log.version = g.version;
  log.lines = g.lines;
  log.lines_used = g.lines_used;
  log.calls_unmatched = g.calls_unmatched;
  if (g.members.empty()) {
    if (g.nccl_lines == 0)
      return Error{what + ": no NCCL log lines (expected lines like " + std::string(kInitExample) + " and " +
                   std::string(kCollExample) + ", from a run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL)"};
    return Error{what + ": no communicator init line among " + std::to_string(g.nccl_lines) + " NCCL lines (expected " +
                 std::string(kInitExample) + "; NCCL_DEBUG_SUBSYS must include INIT)" +
                 (g.calls_unmatched
                      ? "; " + std::to_string(g.calls_unmatched) + " calls name communicators never initialised"
                      : "")};
  }
  std::map<std::string, size_t> index;
  std::vector<std::vector<Member*>> groups;
  for (Member& m : g.members) {
    auto [it, fresh] = index.emplace(m.comm_key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&m);
  }
  for (const std::vector<Member*>& group : groups) {
    const Member& first = *group.front();
    NcclLogComm c;
    c.comm_id = first.comm_key;
    c.nranks = first.nranks;
    c.first_seen = first.where;
    std::map<int, const Member*> by_rank;
    for (const Member* m : group) {
      if (m->nranks != c.nranks)
        return Error{m->where + ": communicator " + c.comm_id + " has " + std::to_string(m->nranks) +
                     " ranks here, but " + std::to_string(c.nranks) + " at " + first.where};
      auto [it, fresh] = by_rank.emplace(m->who.rank, m);
      if (!fresh && !same_device(it->second->who, m->who))
        return Error{m->where + ": rank " + std::to_string(m->who.rank) + " of communicator " + c.comm_id + " is " +
                     device_shown(m->who) + ", but " + it->second->where + " gave that rank to " +
                     device_shown(it->second->who)};
      c.nnodes = std::max(c.nnodes, m->nnodes);
      if (c.parent_id.empty()) c.parent_id = m->parent_id;
      if (c.split_color < 0) c.split_color = m->split_color;
    }
    for (const auto& [rank, m] : by_rank) c.members.push_back(m->who);
    // The rank that logged most (a log cut short loses the others' last calls), the lowest on a tie.
    Member* kept = nullptr;
    for (Member* m : group)
      if (!kept || m->calls.size() > kept->calls.size() ||
          (m->calls.size() == kept->calls.size() && m->who.rank < kept->who.rank))
        kept = m;
    compare_calls(group, *kept, c.comm_id, g.notes);
    if (!kept->calls.empty()) {
      c.calls_from_rank = kept->who.rank;
      c.calls = std::move(kept->calls);
    }
    log.comms.push_back(std::move(c));
  }
  if (g.version.empty())
    g.notes.add("version lines",
                what + ": no 'NCCL version' line (rank 0 prints it on stdout up to 2.21); read as NCCL 2.18-2.28");
  else if (g.version_major != 2 || g.version_minor < 18 || g.version_minor > 28)
    g.notes.add("version lines",
                g.version_where + ": NCCL " + g.version +
                    " is outside the versions this reader follows (2.18 to 2.28); the lines that match are read");
  log.warnings = g.notes.finish();
  return log;
}

Result<void> read_text(std::string_view text, const std::string& where, Gathered& g) {
  FileReader reader(where, g);
  int no = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    ++g.lines;
    if (Result<void> ok = reader.line(text.substr(begin, end - begin), ++no, newline == std::string_view::npos); !ok)
      return ok;
    begin = end + 1;
  }
  reader.finish();
  return {};
}

}  // namespace

int nccl_log_datatype_bytes(int datatype) {
  // ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64, ncclFloat16, ncclFloat32,
  // ncclFloat64, ncclBfloat16, ncclFloat8e4m3, ncclFloat8e5m2 (src/nccl.h.in, 2.24 for the last two)
  static constexpr int kBytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return datatype >= 0 && datatype < static_cast<int>(std::size(kBytes)) ? kBytes[datatype] : 0;
}

Result<NcclLog> nccl_log_parse(std::string_view text, const std::string& where) {
  Gathered g;
  RETURN_IF_ERROR(read_text(text, where, g));
  return finish(g, where);
}

Result<NcclLog> nccl_log_load(const std::vector<std::string>& paths) {
  if (paths.empty()) return Error{"no NCCL log files given"};
  Gathered g;
  for (const std::string& path : paths) {
    Result<std::string> text = text_read_file(path);
    RETURN_IF_ERROR(text);
    RETURN_IF_ERROR(read_text(*text, path, g));
  }
  return finish(g, paths.size() == 1 ? paths[0] : paths[0] + " and " + std::to_string(paths.size() - 1) + " more");
}

StepPattern nccl_log_pattern(const std::vector<NcclLogCall>& calls) {
  // Calls as small integers, one per distinct call, so each comparison below is O(1).
  std::map<std::tuple<std::string_view, uint64_t, int, int, int>, int> ids;
  std::vector<int> id(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const NcclLogCall& c = calls[i];
    id[i] = ids.emplace(std::make_tuple(std::string_view(c.op), c.count, c.datatype, c.peer, c.root),
                        static_cast<int>(ids.size()))
                .first->second;
  }
  // For each number t of trailing calls left out, the longest periodic suffix of the rest: the
  // prefix function of the reversed calls gives each suffix's smallest period in O(n).
  constexpr size_t kMaxTrailing = 8;
  StepPattern best;
  size_t best_covered = 0;
  std::vector<size_t> pi;
  for (size_t t = 0; t <= kMaxTrailing && t + 2 <= calls.size(); ++t) {
    const size_t m = calls.size() - t;
    auto r = [&](size_t k) { return id[m - 1 - k]; };
    pi.assign(m, 0);
    size_t longest = 0, period = 0;
    for (size_t k = 1; k < m; ++k) {
      size_t j = pi[k - 1];
      while (j > 0 && r(k) != r(j)) j = pi[j - 1];
      if (r(k) == r(j)) ++j;
      pi[k] = j;
      const size_t length = k + 1, p = length - j;
      if (length >= 2 * p) longest = length, period = p;
    }
    if (period > 0 && longest > best_covered) {
      best_covered = longest;
      best.period = static_cast<int>(period);
      best.setup_calls = static_cast<int>(m - longest);
      best.trailing_calls = static_cast<int>(t);
      best.repeats = static_cast<double>(longest) / static_cast<double>(period);
    }
    if (longest == m) break;  // leaving out more trailing calls cannot cover more
  }
  return best;
}

}  // namespace topoplan
