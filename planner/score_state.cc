#include "planner/score_state.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "base/index_list.h"
#include "base/sort_unique.h"
#include "cost/transfers.h"
#include "planner/pattern.h"

namespace topoplan {
namespace {

std::string exact(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// Groups with equal signatures are the same collective to NCCL: the same local GPUs on the same
// kind of hosts, split the same way over hosts, NVLink domains and sites. The fabric between
// them is not in it (NCCL's tuner does not see other jobs either): contended times read each
// group's own links. Each signature gets a number, so a group's is built once per move and
// every item on it finds its prediction by number.
class Signatures {
 public:
  explicit Signatures(const Cluster& c)
      : hosts_(c.hosts().size()), domains_(c.domains().size()), sites_(c.sites().size()) {
    std::unordered_map<std::string, uint32_t> types;
    std::vector<uint32_t> host_type;
    for (const Host& h : c.hosts())
      host_type.push_back(types.try_emplace(h.node_type, static_cast<uint32_t>(types.size())).first->second);
    gpu_.resize(c.num_devices());
    for (VertexId v : c.gpus()) {
      const Device& d = c.device(v);
      gpu_[v] = {d.host >= 0 ? host_type[static_cast<size_t>(d.host)] : UINT32_MAX, d.host, d.local_index,
                 d.scaleup_domain, d.site};
    }
  }

  uint32_t of(const std::vector<VertexId>& gpus) {
    if (++epoch_ == 0) {  // wrapped: stamps from 2^32 groups ago would read as current
      for (Ordinals* o : {&hosts_, &domains_, &sites_}) std::fill(o->stamp.begin(), o->stamp.end(), 0);
      epoch_ = 1;
    }
    for (Ordinals* o : {&hosts_, &domains_, &sites_}) o->next = 0;
    key_.clear();
    for (VertexId v : gpus) {
      const Gpu& d = gpu_[v];
      const uint32_t x[] = {d.host_type, hosts_(d.host, epoch_), static_cast<uint32_t>(d.local_index),
                            domains_(d.domain, epoch_), sites_(d.site, epoch_)};
      key_.append(reinterpret_cast<const char*>(x), sizeof x);
    }
    return ids_.try_emplace(key_, static_cast<uint32_t>(ids_.size())).first->second;
  }

 private:
  // First-seen numbering within one group, of ids from -1 up: stamped arrays, where a linear
  // scan was quadratic on data-parallel groups over hundreds of hosts.
  struct Ordinals {
    explicit Ordinals(size_t n) : stamp(n + 1, 0), value(n + 1, 0) {}
    uint32_t operator()(int id, uint32_t epoch) {
      const size_t i = static_cast<size_t>(id + 1);
      if (stamp[i] != epoch) {
        stamp[i] = epoch;
        value[i] = next++;
      }
      return value[i];
    }
    std::vector<uint32_t> stamp, value;
    uint32_t next = 0;
  };
  // What a signature reads of each GPU, by vertex: small and contiguous, where the devices
  // themselves (names, models) are far apart in memory.
  struct Gpu {
    uint32_t host_type = 0;  // node types, numbered
    int32_t host = -1;
    int32_t local_index = -1;
    int32_t domain = -1;
    int32_t site = -1;
  };
  std::vector<Gpu> gpu_;
  Ordinals hosts_, domains_, sites_;
  uint32_t epoch_ = 0;
  std::string key_;
  std::unordered_map<std::string, uint32_t> ids_;
};

// One group token's groups ("tp", "dp-cp", "pp/pairs"): ranks, their GPUs, and which groups each
// rank is in (compressed rows), so a move finds the groups it touches.
struct GroupSet {
  std::string key;
  GroupList ranks;
  // Each group's index in the token's list, ascending: a pipeline's pairs share their pipeline's,
  // a stage class keeps its stages' groups.
  std::vector<size_t> origin;
  std::vector<std::vector<VertexId>> gpus;
  std::vector<uint32_t> signature;  // per group (Signatures)
  std::vector<uint32_t> begin, of_rank;
};

struct Alone {
  CollectivePrediction prediction;
  double peak = 0;  // busiest link's busy microseconds per byte, alone
};

// The groups of one or more items that put the same transfers on the links. Items share one
// when they have the same groups, the same NCCL algorithm per group and the same transfers per
// algorithm (ring all-gather and reduce-scatter move the same bytes over the same hops).
struct Shared {
  Shared(const Router& r, const Calibration& cal, const LinkShare* share, size_t groups)
      : pattern(r, cal, share, groups) {}
  GroupSet* set = nullptr;
  CollectiveOp op = CollectiveOp::all_reduce;
  bool ring_ag_rs = false;
  std::vector<NcclAlgo> algo;  // per group
  std::vector<int> channels;   // per group: NCCL's, which set the connections hash routing spreads
  std::vector<size_t> items;
  Pattern pattern;
};

struct ItemState {
  GroupSet* set = nullptr;  // the item's groups: what the accessors index
  // A stage class's item: the groups of every class with parameters of its kind, which reduce at
  // once. Its NCCL choices and its pattern run over them, as if each moved the item's size, so
  // its own groups are timed against the other classes' transfers; `inner` places its own groups
  // among them. Null for other items: `set` is both.
  GroupSet* together = nullptr;
  std::vector<uint32_t> inner;
  uint32_t kind = 0;                // the item's op, size and algorithm, numbered (Impl::kinds)
  std::vector<const Alone*> alone;  // per group of pattern_set()
  Shared* pattern = nullptr;
  ItemTime time;
  // A stage class's item: its own groups' load (reports), shared by the items with the same
  // groups on the same pattern (a class's reduce-scatter and all-gather).
  mutable std::shared_ptr<LinkLoad> own_load;

  GroupSet* pattern_set() const { return together ? together : set; }
  size_t at(size_t g) const { return together ? inner[g] : g; }  // group g in the pattern
};

std::vector<double> host_weights(const Cluster& c, const Layout& layout) {
  std::vector<double> w(c.hosts().size(), 0);
  for (VertexId v : layout.gpu_of_rank) {
    const Host& h = c.hosts()[static_cast<size_t>(c.device(v).host)];
    w[static_cast<size_t>(c.device(v).host)] += 1.0 / static_cast<double>(h.gpus.size());
  }
  return w;
}

}  // namespace

double exposure_us(const StepTraffic& traffic, const std::vector<double>& time_us, std::vector<double>* per_item) {
  std::vector<double> hideable(traffic.windows.size(), 0);
  for (size_t i = 0; i < traffic.items.size(); ++i) {
    const TrafficItem& it = traffic.items[i];
    if (it.window >= 0) hideable[static_cast<size_t>(it.window)] += (it.calls - it.unhidden_calls) * time_us[i];
  }
  std::vector<double> exposed(traffic.items.size(), 0);
  for (size_t i = 0; i < traffic.items.size(); ++i) {
    const TrafficItem& it = traffic.items[i];
    const double unhidden = it.window >= 0 ? it.unhidden_calls : it.calls;
    exposed[i] = unhidden * time_us[i];
    if (it.window >= 0) {
      const double h = hideable[static_cast<size_t>(it.window)];
      const double left = std::max(0.0, h - traffic.windows[static_cast<size_t>(it.window)].us);
      if (h > 0) exposed[i] += (it.calls - it.unhidden_calls) * time_us[i] * left / h;
    }
  }
  // Stage classes reduce at once: per class, the gradient reduction after its last backward,
  // less the slack it has over stage 0, then (after the optimizer's global synchronisation) the
  // rest. Only the class that finishes last in each adds to the step; the others' items expose 0.
  const size_t classes = traffic.stage_classes.size();
  std::vector<double> reduce(classes, 0), rest(classes, 0);
  for (size_t i = 0; i < traffic.items.size(); ++i) {
    const TrafficItem& it = traffic.items[i];
    if (it.stage_class < 0) continue;
    const size_t c = static_cast<size_t>(it.stage_class);
    (it.phase == Phase::backward ? reduce : rest)[c] += exposed[i];
  }
  std::vector<double> late(classes, 0);  // each class's reduction past stage 0's last backward
  size_t reduce_max = 0, rest_max = 0;
  for (size_t c = 0; c < classes; ++c) {
    late[c] = std::max(0.0, reduce[c] - traffic.stage_classes[c].slack_us);
    if (late[c] > late[reduce_max]) reduce_max = c;
    if (rest[c] > rest[rest_max]) rest_max = c;
  }
  double total = 0;
  for (size_t i = 0; i < traffic.items.size(); ++i) {
    const TrafficItem& it = traffic.items[i];
    if (it.stage_class >= 0) {
      const size_t c = static_cast<size_t>(it.stage_class);
      if (it.phase == Phase::backward)
        exposed[i] = c == reduce_max && reduce[c] > 0 ? exposed[i] * late[c] / reduce[c] : 0;
      else if (c != rest_max)
        exposed[i] = 0;
    }
    total += exposed[i];
  }
  if (per_item) *per_item = std::move(exposed);
  return total;
}

double contended_us(const CollectivePrediction& p, double alone_peak, double shared, double bytes) {
  const double ratio = alone_peak > 0 ? shared / alone_peak : 1;
  const double transfer = p.channel_bound ? std::max(p.transfer_us, shared * bytes) : p.transfer_us * ratio;
  return p.latency_us + transfer;
}

// What states on one cluster, router, tuning and calibration share whatever their job, layout or
// share of the links: NCCL's choice for each group shape (its tuner sees whole links), each
// link's level, and what each node of a group is as NCCL sees it.
struct ScoreState::Memo {
  Memo(const Cluster& c, const Router& r, const ScoreOptions& o)
      : cluster(&c),
        router(&r),
        tuning(o.tuning),
        calibration(o.calibration),
        signatures(c),
        levels(c.num_edges()),
        nodes(c, r) {
    for (EdgeId e = 0; e < c.num_edges(); ++e) levels[e] = static_cast<uint8_t>(link_level(c, e));
  }
  // What the choices hold for: the model's inputs. Items are numbered by op, size and algorithm,
  // so any job's may share them.
  const Cluster* cluster;
  const Router* router;
  const NcclTuning* tuning;
  const Calibration* calibration;
  Signatures signatures;
  std::unordered_map<std::string, uint32_t> kinds;
  std::unordered_map<uint64_t, Alone> alone_cache;  // by signature, kind; node-based: pointers stay valid
  std::vector<uint8_t> levels;                      // per edge: link_level, for level_bytes
  CommNodeCache nodes;                              // what the groups' nodes are, as NCCL sees them
  // The transfers of groups on one host that hosts built like it copy (Router::host_twin), by
  // the group on that host: a tensor-parallel group's are made once per node type, not per host.
  struct OneHost {
    CollectiveOp op;
    NcclAlgo algo;
    int channels, p2p;
    std::vector<VertexId> gpus;  // on the host copied
    bool operator==(const OneHost&) const = default;
  };
  struct OneHostHash {
    size_t operator()(const OneHost& k) const {
      size_t h =
          std::hash<int>()(static_cast<int>(k.op) << 8 ^ static_cast<int>(k.algo) << 16 ^ k.channels ^ k.p2p << 24);
      for (VertexId v : k.gpus) h = h * 0x9e3779b97f4a7c15ull ^ v;
      return h;
    }
  };
  std::unordered_map<OneHost, std::optional<std::vector<Transfer>>, OneHostHash> one_host;  // nullopt: they leave it
};

struct ScoreState::Impl {
  Impl(const Cluster& cl, const Router& ro, const Job& j, const Layout& l, const ScoreOptions& o, RankGroups g,
       StepTraffic t, std::shared_ptr<Memo> m)
      : c(cl),
        r(ro),
        job(j),
        opt(o),
        layout(l),
        share(link_share_make(cl, o.fabric, host_weights(cl, l), o.background)),
        memo(std::move(m)),
        model(cl, ro, *o.tuning, *o.calibration),
        groups(std::move(g)),
        traffic(std::move(t)),
        signatures(memo->signatures),
        kinds(memo->kinds),
        alone_cache(memo->alone_cache),
        levels(memo->levels) {
    model.share_nodes(&memo->nodes);
  }

  // A token's groups: each pipeline's neighbouring pairs with `pairs`, only those inside
  // `stages` when given.
  Result<GroupSet*> set_for(const std::string& token, bool pairs, const std::vector<int>* stages);
  Result<bool> place(size_t item);
  // NCCL's choice for group `group` of the item's pattern set, as it stands.
  Result<const Alone*> alone_for(size_t item, size_t group);
  Result<std::vector<Transfer>> transfers(CollectiveOp op, const std::vector<VertexId>& gpus, NcclAlgo algo,
                                          int channels) const;
  Result<void> load_group(Shared& p, size_t group);
  Result<void> assign_patterns(const std::vector<size_t>& items);
  void time_item(size_t index);
  void expose();
  // What the last exchange replaced, in the order it replaced them, for undo() to put back.
  struct Replaced {
    Shared* pattern;
    uint32_t group;
    std::vector<Transfer> transfers;
  };
  struct LastExchange {
    std::vector<std::pair<int, int>> pairs;  // empty: nothing to undo
    std::vector<const Alone*> alone;         // each touched group's before, in order
    std::vector<uint32_t> signature;         // each touched group's before, set by set
    std::vector<Replaced> replaced;
    bool kept = false;  // false: patterns were rebuilt, so undo() exchanges the pairs again
  };
  // `replay`: undo the last exchange with what it replaced.
  Result<void> exchange(std::span<const std::pair<int, int>> pairs, LastExchange* replay = nullptr);
  Result<void> undo();

  const Cluster& c;
  const Router& r;
  Job job;
  ScoreOptions opt;
  Layout layout;
  LinkShare share;
  std::shared_ptr<Memo> memo;  // before the model, whose groups hold its nodes
  // NCCL's choice for a group sees whole links: its tuner knows nothing of other jobs. The share
  // applies to the load of all groups together, which sets the contended time.
  CollectiveModel model;
  RankGroups groups;
  StepTraffic traffic;
  std::vector<std::unique_ptr<GroupSet>> sets;
  Signatures& signatures;
  std::unordered_map<std::string, uint32_t>& kinds;
  std::unordered_map<uint64_t, Alone>& alone_cache;
  const std::vector<uint8_t>& levels;
  std::vector<std::unique_ptr<Shared>> patterns;
  std::vector<ItemState> items;  // parallel to traffic.items; unused (no pattern) for 1-rank groups
  double exposed = 0, comm = 0;
  LastExchange last;
};

Result<GroupSet*> ScoreState::Impl::set_for(const std::string& token, bool pairs, const std::vector<int>* stages) {
  std::string key = token + (pairs ? "/pairs" : "");
  if (stages) key += "@" + format_index_list(*stages);
  for (const auto& s : sets)
    if (s->key == key) return s.get();
  Result<GroupList> ranks = groups.groups(token);
  RETURN_IF_ERROR(ranks);
  auto s = std::make_unique<GroupSet>();
  s->key = key;
  if (pairs) {
    // Neighbouring stages; with virtual stages the last pair wraps to the first stage.
    const size_t per = stage_pairs_per_pipeline(job);
    for (size_t i = 0; i < ranks->size(); ++i)
      for (size_t k = 0; k < per; ++k) {
        const std::vector<int>& g = (*ranks)[i];
        s->ranks.push_back({g[k], g[(k + 1) % g.size()]});
        s->origin.push_back(i);
      }
  } else if (stages) {
    // A group lies in one stage: keep those whose first rank is in one of `stages`.
    Result<GroupList> pipelines = groups.groups("pp");
    RETURN_IF_ERROR(pipelines);
    std::vector<int> stage_of(layout.gpu_of_rank.size(), 0);
    for (const std::vector<int>& pipeline : *pipelines)
      for (size_t k = 0; k < pipeline.size(); ++k) stage_of[static_cast<size_t>(pipeline[k])] = static_cast<int>(k);
    for (size_t i = 0; i < ranks->size(); ++i)
      if (std::ranges::binary_search(*stages, stage_of[static_cast<size_t>((*ranks)[i].front())])) {
        s->ranks.push_back(std::move((*ranks)[i]));
        s->origin.push_back(i);
      }
  } else {
    s->ranks = std::move(*ranks);
    s->origin.resize(s->ranks.size());
    std::iota(s->origin.begin(), s->origin.end(), size_t{0});
  }
  const size_t world = layout.gpu_of_rank.size();
  s->begin.assign(world + 1, 0);
  for (const std::vector<int>& g : s->ranks)
    for (int rank : g) ++s->begin[static_cast<size_t>(rank) + 1];
  for (size_t i = 0; i < world; ++i) s->begin[i + 1] += s->begin[i];
  s->of_rank.resize(s->begin[world]);
  std::vector<uint32_t> fill(s->begin.begin(), s->begin.end() - 1);
  s->gpus.resize(s->ranks.size());
  s->signature.reserve(s->ranks.size());
  for (size_t g = 0; g < s->ranks.size(); ++g) {
    s->gpus[g].reserve(s->ranks[g].size());  // one allocation, not one per doubling
    for (int rank : s->ranks[g]) {
      s->of_rank[fill[static_cast<size_t>(rank)]++] = static_cast<uint32_t>(g);
      s->gpus[g].push_back(layout.gpu_of_rank[static_cast<size_t>(rank)]);
    }
    s->signature.push_back(signatures.of(s->gpus[g]));
  }
  sets.push_back(std::move(s));
  return sets.back().get();
}

Result<const Alone*> ScoreState::Impl::alone_for(size_t index, size_t group) {
  const TrafficItem& item = traffic.items[index];
  const ItemState& st = items[index];
  const GroupSet& set = *st.pattern_set();
  const std::vector<VertexId>& gpus = set.gpus[group];
  const uint64_t key = uint64_t{set.signature[group]} << 32 | st.kind;
  if (auto it = alone_cache.find(key); it != alone_cache.end()) return &it->second;
  CollectiveRequest req;
  req.op = item.op;
  req.bytes = item.bytes;
  req.gpus = gpus;
  req.algo = item.algo;
  Result<CollectivePrediction> p = model.predict_pick(req);
  RETURN_IF_ERROR(p);
  Alone a;
  a.prediction = std::move(*p);
  a.peak = model.busiest_us_per_byte(a.prediction.algo);
  return &alone_cache.emplace(key, std::move(a)).first->second;
}

Result<std::vector<Transfer>> ScoreState::Impl::transfers(CollectiveOp op, const std::vector<VertexId>& gpus,
                                                          NcclAlgo algo, int channels) const {
  const int p2p = opt.tuning->p2p_net_channels_per_peer;
  if (op == CollectiveOp::sendrecv) return ring_of_sends(gpus, 1.0, p2p);  // PP: many pairs, no communicator
  // On one host built like an earlier one: that host's group's transfers, shifted, when they
  // stay on it (a host's devices and local links match its twin's one for one).
  const int host = gpus.empty() ? -1 : c.device(gpus.front()).host;
  const auto twin = host >= 0 ? r.host_twin(host) : std::nullopt;
  if (twin && std::all_of(gpus.begin(), gpus.end(), [&](VertexId v) { return c.device(v).host == host; })) {
    const int model = twin->first;
    const uint32_t dv = twin->second;
    Memo::OneHost key{op, algo, channels, p2p, gpus};
    for (VertexId& v : key.gpus) v -= dv;
    auto at = memo->one_host.find(key);
    if (at == memo->one_host.end())
      if (Result<std::vector<Transfer>> made = transfers(op, key.gpus, algo, channels); made) {
        auto on_model = [&](VertexId v) { return c.device(v).host == model; };
        const bool stays = std::all_of(made->begin(), made->end(),
                                       [&](const Transfer& t) { return on_model(t.src) && on_model(t.dst); });
        at = memo->one_host.emplace(std::move(key), stays ? std::move(*made) : std::optional<std::vector<Transfer>>())
                 .first;
      }
    if (at != memo->one_host.end() && at->second) {
      std::vector<Transfer> out = *at->second;
      for (Transfer& t : out) {
        t.src += dv;
        t.dst += dv;
      }
      return out;
    }
  }
  Result<CommGroup> g = comm_group_make(c, r, gpus, &memo->nodes);
  RETURN_IF_ERROR(g);
  return collective_transfers(*g, op, algo, 1.0, {channels, p2p});
}

Result<void> ScoreState::Impl::load_group(Shared& p, size_t group) {
  Result<std::vector<Transfer>> t = transfers(p.op, p.set->gpus[group], p.algo[group], p.channels[group]);
  RETURN_IF_ERROR(t);
  return p.pattern.load(group, std::move(*t));
}

// Puts each item on a pattern with the items it shares transfers with, building new patterns.
Result<void> ScoreState::Impl::assign_patterns(const std::vector<size_t>& which) {
  std::map<std::string, Shared*> by_key;
  for (size_t i : which) {
    const TrafficItem& item = traffic.items[i];
    ItemState& st = items[i];
    std::string algos;
    bool rings = true;
    for (const Alone* a : st.alone) {
      algos += static_cast<char>('a' + static_cast<int>(a->prediction.algo));
      rings = rings && a->prediction.algo == NcclAlgo::ring;
    }
    const bool ag_rs = rings && (item.op == CollectiveOp::all_gather || item.op == CollectiveOp::reduce_scatter);
    const std::string key =
        st.pattern_set()->key + "|" + (ag_rs ? "ring ag/rs" : std::string(to_string(item.op))) + "|" + algos;
    auto [it, fresh] = by_key.try_emplace(key, nullptr);
    if (fresh) {
      auto p = std::make_unique<Shared>(r, *opt.calibration, &share, st.alone.size());
      p->set = st.pattern_set();
      p->op = item.op;
      p->ring_ag_rs = ag_rs;
      p->pattern.total().count_levels(&levels);
      if (!patterns.empty()) p->pattern.total().rates_from(patterns.front()->pattern.total());
      for (const Alone* a : st.alone) {
        p->algo.push_back(a->prediction.algo);
        p->channels.push_back(a->prediction.channels);
      }
      for (size_t g = 0; g < st.alone.size(); ++g)
        if (Result<void> ok = load_group(*p, g); !ok) return ok;
      p->pattern.refresh();
      it->second = p.get();
      patterns.push_back(std::move(p));
    }
    st.pattern = it->second;
    it->second->items.push_back(i);
  }
  return {};
}

// The item's groups and their NCCL choices; false for groups of one rank (nothing to time).
Result<bool> ScoreState::Impl::place(size_t index) {
  const TrafficItem& item = traffic.items[index];
  ItemState& st = items[index];
  const std::vector<int>* own_stages = nullptr;
  std::vector<int> all_stages;  // of every class with an item on this token
  if (item.stage_class >= 0) {
    own_stages = &traffic.stage_classes[static_cast<size_t>(item.stage_class)].stages;
    std::vector<char> has(traffic.stage_classes.size(), 0);
    for (const TrafficItem& other : traffic.items)
      if (other.stage_class >= 0 && other.group == item.group) has[static_cast<size_t>(other.stage_class)] = 1;
    for (size_t k = 0; k < has.size(); ++k)
      if (has[k])
        all_stages.insert(all_stages.end(), traffic.stage_classes[k].stages.begin(),
                          traffic.stage_classes[k].stages.end());
    std::sort(all_stages.begin(), all_stages.end());
  }
  Result<GroupSet*> set = set_for(item.group, item.stage_pairs, own_stages);
  RETURN_IF_ERROR(set);
  if ((*set)->ranks.empty() || (*set)->ranks.front().size() < 2) return false;
  st.set = *set;
  if (own_stages && all_stages.size() > own_stages->size()) {
    Result<GroupSet*> together = set_for(item.group, false, &all_stages);
    RETURN_IF_ERROR(together);
    st.together = *together;
    // Both lists keep the token's order: walk them together.
    size_t k = 0;
    for (size_t origin : st.set->origin) {
      while (st.together->origin[k] != origin) ++k;
      st.inner.push_back(static_cast<uint32_t>(k));
    }
  }
  const std::string kind = std::string(to_string(item.op)) + "|" + exact(item.bytes) + "|" +
                           (item.algo ? std::string(to_string(*item.algo)) : "auto");
  st.kind = kinds.try_emplace(kind, static_cast<uint32_t>(kinds.size())).first->second;
  for (size_t g = 0; g < st.pattern_set()->gpus.size(); ++g) {
    Result<const Alone*> a = alone_for(index, g);
    RETURN_IF_ERROR(a);
    st.alone.push_back(*a);
  }
  return true;
}

void ScoreState::Impl::time_item(size_t index) {
  const TrafficItem& item = traffic.items[index];
  ItemState& st = items[index];
  ItemTime t;
  double worst = -1;
  // NCCL's time for the group's shape and the link it was timed on are the same for every group
  // of a shape, so which group of a shape was predicted first does not matter.
  for (size_t g = 0; g < st.set->ranks.size(); ++g) {
    const Alone& a = *st.alone[st.at(g)];
    const Peak& shared = st.pattern->pattern.peak(st.at(g));
    const double contended = contended_us(a.prediction, a.peak, shared.busy_us, item.bytes);
    // Ties (within rounding: moves add and take bytes back) go to the first group.
    if (contended > worst * (1 + 1e-9)) {
      worst = contended;
      t.slowest_group = static_cast<int>(g);
      t.contended_us = contended;
      t.has_hot_edge = shared.busy_us > 0;
      t.hot_edge = shared.edge;
    }
  }
  st.time = t;
}

void ScoreState::Impl::expose() {
  std::vector<double> time(items.size(), 0), exposed_per_item;
  comm = 0;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].pattern) {
      time[i] = items[i].time.contended_us;
      comm += traffic.items[i].calls * time[i];
    }
  exposed = exposure_us(traffic, time, &exposed_per_item);
  for (size_t i = 0; i < items.size(); ++i) items[i].time.exposed_us = exposed_per_item[i];
}

Result<void> ScoreState::Impl::exchange(std::span<const std::pair<int, int>> pairs, LastExchange* replay) {
  const int world = layout.world_size();
  LastExchange record;
  record.pairs.assign(pairs.begin(), pairs.end());
  size_t next_alone = 0, next_replaced = 0;  // replaying: what to put back next
  last = {};
  for (const auto& [a, b] : pairs)
    if (a < 0 || b < 0 || a >= world || b >= world)
      return Error{"exchange: rank out of range 0-" + std::to_string(world - 1)};
  // The groups each move touches, per group set.
  std::vector<std::vector<uint32_t>> touched(sets.size());
  for (size_t s = 0; s < sets.size(); ++s) {
    const GroupSet& set = *sets[s];
    for (const auto& [a, b] : pairs)
      for (int rank : {a, b})
        for (uint32_t k = set.begin[static_cast<size_t>(rank)]; k < set.begin[static_cast<size_t>(rank) + 1]; ++k)
          touched[s].push_back(set.of_rank[k]);
    sort_unique(touched[s]);
  }
  for (const auto& [a, b] : pairs)
    std::swap(layout.gpu_of_rank[static_cast<size_t>(a)], layout.gpu_of_rank[static_cast<size_t>(b)]);
  auto set_index = [&](const GroupSet* set) {
    for (size_t s = 0; s < sets.size(); ++s)
      if (sets[s].get() == set) return s;
    return sets.size();
  };
  size_t next_signature = 0;
  for (size_t s = 0; s < sets.size(); ++s)
    for (uint32_t g : touched[s]) {
      std::vector<VertexId>& gpus = sets[s]->gpus[g];
      for (size_t k = 0; k < gpus.size(); ++k) gpus[k] = layout.gpu_of_rank[static_cast<size_t>(sets[s]->ranks[g][k])];
      uint32_t& signature = sets[s]->signature[g];
      if (replay) {
        signature = replay->signature[next_signature++];
      } else {
        record.signature.push_back(signature);
        signature = signatures.of(gpus);
      }
    }
  for (size_t i = 0; i < items.size(); ++i) {
    ItemState& st = items[i];
    if (!st.pattern) continue;
    st.own_load.reset();
    GroupSet* set = st.pattern_set();
    for (uint32_t g : touched[set_index(set)]) {
      if (replay) {
        st.alone[g] = replay->alone[next_alone++];
        continue;
      }
      record.alone.push_back(st.alone[g]);
      Result<const Alone*> a = alone_for(i, g);
      RETURN_IF_ERROR(a);
      st.alone[g] = *a;
    }
  }
  // Move each touched group's transfers in its patterns; a pattern whose items no longer agree
  // on a group's algorithm is split up again from scratch.
  std::vector<size_t> regroup;
  std::vector<char> retime(items.size(), 0);
  for (auto it = patterns.begin(); it != patterns.end();) {
    Shared& p = **it;
    const size_t s = set_index(p.set);
    if (touched[s].empty()) {
      ++it;
      continue;
    }
    bool agree = true;
    for (uint32_t g : touched[s]) {
      const NcclAlgo algo = items[p.items.front()].alone[g]->prediction.algo;
      for (size_t i : p.items) agree = agree && items[i].alone[g]->prediction.algo == algo;
      agree = agree && (!p.ring_ag_rs || algo == NcclAlgo::ring);
    }
    if (!agree && replay) return Error{"undo: the patterns changed since the exchange"};
    if (!agree) {
      regroup.insert(regroup.end(), p.items.begin(), p.items.end());
      it = patterns.erase(it);
      continue;
    }
    for (size_t k = 0; k < touched[s].size(); ++k) {
      const uint32_t g = touched[s][k];
      const CollectivePrediction& pred = items[p.items.front()].alone[g]->prediction;
      p.algo[g] = pred.algo;
      p.channels[g] = pred.channels;
      std::vector<Transfer> replaced;
      if (replay) {
        Replaced& back = replay->replaced[next_replaced++];
        if (back.pattern != &p || back.group != g) return Error{"undo: the patterns changed since the exchange"};
        if (Result<void> ok = p.pattern.update(g, std::move(back.transfers)); !ok) return ok;
        continue;
      }
      Result<std::vector<Transfer>> t = transfers(p.op, p.set->gpus[g], p.algo[g], p.channels[g]);
      RETURN_IF_ERROR(t);
      if (Result<void> ok = p.pattern.update(g, std::move(*t), &replaced); !ok) return ok;
      record.replaced.push_back({&p, g, std::move(replaced)});
    }
    p.pattern.refresh();
    for (size_t i : p.items) retime[i] = 1;
    ++it;
  }
  if (!regroup.empty()) {
    std::sort(regroup.begin(), regroup.end());
    if (Result<void> ok = assign_patterns(regroup); !ok) return ok;
    for (size_t i : regroup) retime[i] = 1;
  }
  for (size_t i = 0; i < items.size(); ++i)
    if (retime[i]) time_item(i);
  expose();
  if (!replay) {
    record.kept = regroup.empty();
    last = std::move(record);
  }
  return {};
}

Result<void> ScoreState::Impl::undo() {
  if (last.pairs.empty()) return Error{"undo: no exchange to undo"};
  LastExchange replay = std::move(last);
  Result<void> ok = exchange(replay.pairs, replay.kept ? &replay : nullptr);
  last = {};  // an undo is not undone
  return ok;
}

ScoreState::ScoreState(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ScoreState::~ScoreState() = default;

Result<std::unique_ptr<ScoreState>> ScoreState::make(const Cluster& c, const Router& r, const Job& job,
                                                     const Layout& layout, const ScoreOptions& opt) {
  return make(c, r, job, layout, opt, std::make_shared<Memo>(c, r, opt));
}

std::shared_ptr<ScoreState::Memo> ScoreState::memo() const { return impl_->memo; }
CommNodeCache* ScoreState::nodes() const { return &impl_->memo->nodes; }

std::shared_ptr<ScoreState::Memo> ScoreState::memo_make(const Cluster& c, const Router& r, const ScoreOptions& opt) {
  return std::make_shared<Memo>(c, r, opt);
}

Result<std::unique_ptr<ScoreState>> ScoreState::make(const Cluster& c, const Router& r, const Job& job,
                                                     const Layout& layout, const ScoreOptions& opt,
                                                     std::shared_ptr<Memo> memo) {
  if (!memo || memo->cluster != &c || memo->router != &r || memo->tuning != opt.tuning ||
      memo->calibration != opt.calibration)
    return Error{"NCCL's choices kept from another cluster, router, tuning or calibration"};
  if (layout.world_size() != job_ranks(job))
    return Error{layout.source + ": the layout places " + std::to_string(layout.world_size()) + " ranks, the job has " +
                 std::to_string(job_ranks(job))};
  if (layout.world_size() == 0) return Error{"the job has no ranks"};
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);
  Result<ComputeEstimate> compute = compute_estimate(job, c.device(layout.gpu_of_rank.front()).model, *opt.calibration);
  RETURN_IF_ERROR(compute);
  Result<StepTraffic> traffic = opt.traffic ? Result<StepTraffic>(*opt.traffic) : step_traffic(job, *compute);
  RETURN_IF_ERROR(traffic);
  auto impl = std::make_unique<Impl>(c, r, job, layout, opt, std::move(*groups), std::move(*traffic), std::move(memo));
  Impl& m = *impl;
  m.items.resize(m.traffic.items.size());
  std::vector<size_t> scored;
  for (size_t i = 0; i < m.traffic.items.size(); ++i) {
    const TrafficItem& item = m.traffic.items[i];
    const std::string what = std::string(to_string(item.kind)) + " " + std::string(to_string(item.op)) + ": ";
    Result<bool> placed = m.place(i);
    if (!placed) return Error{what + placed.error()};
    if (*placed) scored.push_back(i);
  }
  RETURN_IF_ERROR(m.assign_patterns(scored));
  for (size_t i : scored) m.time_item(i);
  m.expose();
  return std::unique_ptr<ScoreState>(new ScoreState(std::move(impl)));
}

Result<void> ScoreState::exchange(std::span<const std::pair<int, int>> rank_pairs) {
  return impl_->exchange(rank_pairs);
}

Result<void> ScoreState::undo() { return impl_->undo(); }

void ScoreState::set_background(const Background* background) {
  Impl& m = *impl_;
  m.opt.background = background;
  // Every load points at m.share: the old one is kept aside for the busy times' scale.
  const LinkShare old = std::move(m.share);
  m.share = link_share_make(m.c, m.opt.fabric, host_weights(m.c, m.layout), background);
  for (const std::unique_ptr<Shared>& p : m.patterns) p->pattern.reshare(&old, &m.share);
  for (size_t i = 1; i < m.patterns.size(); ++i)
    m.patterns[i]->pattern.total().rates_from(m.patterns[0]->pattern.total());
  for (size_t i = 0; i < m.items.size(); ++i) {
    m.items[i].own_load.reset();
    if (m.items[i].pattern) m.time_item(i);
  }
  m.expose();
  m.last = {};
}

Result<std::unique_ptr<ScoreState>> ScoreState::remake(const Layout& layout) const {
  return make(impl_->c, impl_->r, impl_->job, layout, impl_->opt, impl_->memo);
}
const Layout& ScoreState::layout() const { return impl_->layout; }
std::vector<size_t> ScoreState::groups_of(size_t item, int index) const {
  std::vector<size_t> out;
  const GroupSet* s = impl_->items[item].set;
  if (!s) return out;
  const auto [from, to] = std::equal_range(s->origin.begin(), s->origin.end(), static_cast<size_t>(index));
  for (auto g = from; g != to; ++g) out.push_back(static_cast<size_t>(g - s->origin.begin()));
  return out;
}
int ScoreState::list_index(size_t item, size_t group) const {
  return static_cast<int>(impl_->items[item].set->origin[group]);
}
const StepTraffic& ScoreState::traffic() const { return impl_->traffic; }
const LinkShare& ScoreState::share() const { return impl_->share; }
double ScoreState::exposed_us() const { return impl_->exposed; }
double ScoreState::comm_us() const { return impl_->comm; }

LevelBytes ScoreState::level_bytes() const {
  LevelBytes out{};
  for (size_t i = 0; i < impl_->items.size(); ++i) {
    const ItemState& st = impl_->items[i];
    if (!st.pattern) continue;
    const TrafficItem& it = impl_->traffic.items[i];
    const LevelBytes& b = st.pattern->pattern.total().level_bytes();
    // A stage class's pattern holds every class's groups: its own are their share (the groups of
    // one token are alike).
    const double own = st.together ? static_cast<double>(st.set->ranks.size()) / st.together->ranks.size() : 1;
    for (int l = 0; l < kFabricLevels; ++l)
      out[static_cast<size_t>(l)] += b[static_cast<size_t>(l)] * it.bytes * it.calls * own;
  }
  return out;
}

size_t ScoreState::item_count() const { return impl_->items.size(); }
const ItemTime& ScoreState::item_time(size_t item) const { return impl_->items[item].time; }
const std::vector<int>& ScoreState::group_ranks(size_t item, size_t group) const {
  return impl_->items[item].set->ranks[group];
}
const std::vector<std::vector<VertexId>>& ScoreState::item_groups(size_t item) const {
  static const std::vector<std::vector<VertexId>> kNone;
  const GroupSet* s = impl_->items[item].set;
  return s && impl_->items[item].pattern ? s->gpus : kNone;
}
const CollectivePrediction& ScoreState::item_alone(size_t item, size_t group) const {
  const ItemState& st = impl_->items[item];
  return st.alone[st.at(group)]->prediction;
}
double ScoreState::item_alone_peak(size_t item, size_t group) const {
  const ItemState& st = impl_->items[item];
  return st.alone[st.at(group)]->peak;
}

ScoreState::GroupTime ScoreState::group_time(size_t item, size_t group) const {
  const ItemState& st = impl_->items[item];
  const Alone& a = *st.alone[st.at(group)];
  const Peak& shared = st.pattern->pattern.peak(st.at(group));
  return {contended_us(a.prediction, a.peak, shared.busy_us, impl_->traffic.items[item].bytes), shared.edge,
          shared.busy_us > 0};
}
const LinkLoad& ScoreState::item_load(size_t item) const {
  const ItemState& st = impl_->items[item];
  if (!st.together) return st.pattern->pattern.total();
  if (st.own_load) return *st.own_load;
  for (const ItemState& other : impl_->items)
    if (other.own_load && other.pattern == st.pattern && other.set == st.set && other.together == st.together) {
      st.own_load = other.own_load;
      return *st.own_load;
    }
  st.own_load = std::make_shared<LinkLoad>(impl_->r, *impl_->opt.calibration, &impl_->share);
  st.own_load->count_levels(&impl_->levels);
  st.own_load->rates_from(st.pattern->pattern.total());
  for (size_t g = 0; g < st.set->ranks.size(); ++g) {
    Result<void> ok = st.own_load->add(st.pattern->pattern.transfers(st.at(g)));
    (void)ok;  // these transfers were loaded once already: they route
  }
  return *st.own_load;
}
const Touched& ScoreState::item_touched(size_t item, size_t group) const {
  const ItemState& st = impl_->items[item];
  return st.pattern->pattern.touched(st.at(group));
}

namespace {

// How many of `touched`'s groups load edge `e`, directly or in a fabric segment.
int count_on(const Router& r, EdgeId e, size_t n, const std::function<const Touched&(size_t)>& touched) {
  std::unordered_map<uint32_t, bool> on;  // segment -> has e
  int hits = 0;
  for (size_t g = 0; g < n; ++g) {
    const Touched& t = touched(g);
    bool hit = std::binary_search(t.edges.begin(), t.edges.end(), e);
    for (size_t k = 0; k < t.segments.size() && !hit; ++k) {
      auto [it, fresh] = on.try_emplace(t.segments[k]);
      if (fresh) {
        const std::vector<Hop>& hops = *r.segment(t.segments[k]).hops;
        it->second = std::any_of(hops.begin(), hops.end(), [e](const Hop& h) { return h.edge == e; });
      }
      hit = it->second;
    }
    hits += hit;
  }
  return hits;
}

}  // namespace

int ScoreState::groups_on(size_t item, EdgeId e) const {
  return count_on(impl_->r, e, item_groups(item).size(),
                  [&](size_t g) -> const Touched& { return item_touched(item, g); });
}

size_t ScoreState::groups_running(size_t item) const {
  const ItemState& st = impl_->items[item];
  return st.together ? st.together->ranks.size() : item_groups(item).size();
}

int ScoreState::contending_on(size_t item, EdgeId e) const {
  const ItemState& st = impl_->items[item];
  if (!st.together) return groups_on(item, e);
  const Pattern& p = st.pattern->pattern;
  return count_on(impl_->r, e, st.together->ranks.size(), [&](size_t g) -> const Touched& { return p.touched(g); });
}

Result<void> ScoreState::group_load(size_t item, size_t group, LinkLoad& into) const {
  const ItemState& st = impl_->items[item];
  into.clear();
  return into.add(st.pattern->pattern.transfers(st.at(group)));
}

}  // namespace topoplan
