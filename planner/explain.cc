#include "planner/explain.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "base/index_list.h"
#include "base/sort_unique.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/host_choice.h"
#include "planner/lower_bound.h"
#include "planner/orders.h"
#include "planner/plan.h"
#include "topology/summary.h"

namespace topoplan {
struct Explainer::Impl {
  const Cluster& c;
  const Router& r;
  Job job;
  Layout layout;
  DownSet down;
  ScoreOptions opt;
  Locality loc;
  RankGroups groups;
  std::unique_ptr<ScoreState> state;
  JobScore score;
  LowerBound bound;
  std::optional<Move> best_order, planned;  // computed once, on first need
  // Whether ranks fill hosts in rank order, per_host at a time (the default layout, a plan,
  // srun's block distribution), rather than as a layout file scatters them.
  int per_host = 0;
  bool blocks = false;

  Impl(const Cluster& cl, const Router& ro, Job j, Layout l, DownSet d, const ScoreOptions& o, RankGroups g)
      : c(cl),
        r(ro),
        job(std::move(j)),
        layout(std::move(l)),
        down(std::move(d)),
        opt(o),
        loc(locality_of(cl)),
        groups(std::move(g)) {}

  // The dense kinds always; the expert ones when the job's traffic uses them (an MoE model).
  bool used(const GroupKind& k) const {
    if (!std::string(k.token).starts_with("expert.")) return true;
    for (const TrafficItem& it : state->traffic().items)
      if (it.group == k.token) return true;
    return false;
  }
  double alone_of(size_t item, const std::vector<VertexId>& gpus) {
    const TrafficItem& it = state->traffic().items[item];
    CollectiveModel model(c, r, *opt.tuning, *opt.calibration);
    CollectiveRequest req;
    req.op = it.op;
    req.bytes = it.bytes;
    req.algo = it.algo;
    req.gpus = gpus;
    Result<CollectivePrediction> p = model.predict(req);
    return p ? p->time_us : 0;
  }
  Result<double> exposed_with_order(const std::string& order) {
    Job j = job;
    j.parallel.order = order;
    Result<std::unique_ptr<ScoreState>> other = ScoreState::make(c, r, j, layout, opt);
    RETURN_IF_ERROR(other);
    return (*other)->exposed_us() / 1e6;
  }
  Result<void> fill(GroupExplanation& g, bool full);
  std::string why(const GroupExplanation& g) const;
  void inside(GroupExplanation& g);
  std::optional<Layout> packed(const GroupList& list) const;
  Result<void> moves(GroupExplanation& g);
};

std::string Explainer::Impl::why(const GroupExplanation& g) const {
  const std::vector<int> hosts = c.hosts_of(g.gpus);
  const std::string kind = g.ref.kind;
  if (hosts.size() == 1)
    return "all " + std::to_string(g.ranks.size()) + " ranks run on " + c.hosts()[static_cast<size_t>(hosts[0])].name;
  if (blocks) {
    std::vector<int> sorted = g.ranks;
    std::sort(sorted.begin(), sorted.end());
    const int stride = sorted.size() > 1 ? sorted[1] - sorted[0] : 1;
    std::string before;
    if (Result<std::vector<Axis>> axes = order_parse(groups.dense().order()))
      for (Axis a : *axes) {
        if (kind.find(axis_name(a)) != std::string::npos ||
            std::string(group_token(kind)).find(axis_name(a)) != std::string::npos)
          break;
        if (groups.dense().size(a) > 1)
          before +=
              (before.empty() ? "" : ", ") + std::string(axis_name(a)) + " " + std::to_string(groups.dense().size(a));
      }
    const std::string head = "a host holds " + std::to_string(per_host) + " consecutive ranks";
    if (stride == 1)
      return "the group's " + std::to_string(g.ranks.size()) + " ranks are consecutive and " + head + ", so it spans " +
             counted(static_cast<int64_t>(hosts.size()), "host");
    return "order " + groups.dense().order() + " puts " + (before.empty() ? "other axes" : before) + " before " + kind +
           ": the group's ranks are " + std::to_string(stride) + " apart (" +
           format_index_list({sorted.begin(), sorted.begin() + std::min<size_t>(sorted.size(), 4)}) +
           (sorted.size() > 4 ? ", ..." : "") + ") and " + head + ", so it spans " +
           counted(static_cast<int64_t>(hosts.size()), "host");
  }
  // A layout file: name the lines that put the ranks on different hosts.
  std::string out = "the layout " + layout.source + " puts ";
  std::map<int, std::vector<int>> by_host;
  for (size_t k = 0; k < g.ranks.size(); ++k) by_host[c.device(g.gpus[k]).host].push_back(g.ranks[k]);
  size_t shown = 0;
  for (int h : hosts) {
    if (shown++ == 3) {
      out += ", ...";
      break;
    }
    const std::vector<int>& rs = by_host[h];
    out += (shown > 1 ? ", " : "") + std::string("ranks ") + format_index_list(rs) + " on " +
           c.hosts()[static_cast<size_t>(h)].name;
    if (!layout.line_of_rank.empty()) {
      // A hostlist expression or slots=N places several ranks from one line: name it once.
      std::set<int> lines;
      for (int rank : rs) lines.insert(layout.line_of_rank[static_cast<size_t>(rank)]);
      out += std::string(lines.size() == 1 ? " (line " : " (lines ") + format_index_list({lines.begin(), lines.end()}) +
             ")";
    }
  }
  return out;
}

void Explainer::Impl::inside(GroupExplanation& g) {
  if (!g.found_traffic) return;
  const size_t k = g.gpus.size();
  std::map<int, int> count;
  for (VertexId v : g.gpus) ++count[c.device(v).host];
  size_t p = 0;
  for (const auto& [h, n] : count) p = std::max(p, static_cast<size_t>(n));
  const int first = c.device(g.gpus.front()).host;
  for (Level level : {Level::domain, Level::leaf_group, Level::pod}) {
    InsideUnit u;
    u.level = level;
    std::vector<int> unit_hosts;
    for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h)
      if (loc.unit(h, level) == loc.unit(first, level)) unit_hosts.push_back(h);
    hosts_sort(loc, unit_hosts);
    std::vector<VertexId> gpus;
    std::vector<int> used;
    // A domain packs the group densely; a leaf group or pod keeps its shape (p ranks per host).
    const size_t per = level == Level::domain ? SIZE_MAX : p;
    for (int h : unit_hosts) {
      if (gpus.size() >= k) break;
      const std::vector<VertexId> up = down.gpus_up(c, h);
      size_t took = 0;
      for (VertexId v : up)
        if (gpus.size() < k && took < per) {
          gpus.push_back(v);
          ++took;
        }
      if (took) used.push_back(h);
    }
    if (gpus.size() < k) {
      u.why_not = "the " + std::string(to_string(level)) + " of " + c.hosts()[static_cast<size_t>(first)].name +
                  " has " + std::to_string(gpus.size()) + " GPUs for the group's " + std::to_string(k) +
                  (level == Level::domain ? "" : " at " + std::to_string(p) + " per host");
    } else {
      u.possible = true;
      u.hosts = hostlist_of(c, used);
      for (size_t i = 0; i < state->item_count(); ++i)
        if (state->traffic().items[i].op == g.item.op && state->traffic().items[i].bytes == g.item.bytes &&
            state->traffic().items[i].group == g.item.group) {
          u.alone_us = alone_of(i, gpus);
          break;
        }
    }
    g.inside.push_back(u);
  }
}

// Every group of `list` on one host of the layout's: a group goes to the host holding most of its
// members that still has room, members already there keep their GPUs. The same GPUs as the layout,
// or none when some group finds no host with room.
std::optional<Layout> Explainer::Impl::packed(const GroupList& list) const {
  std::map<int, std::vector<VertexId>> room;  // host -> its layout GPUs not yet taken
  for (VertexId v : layout.gpu_of_rank) room[c.device(v).host].push_back(v);
  Layout out = layout;
  for (const std::vector<int>& group : list) {
    std::map<int, int> members;
    for (int rank : group) ++members[c.device(layout.gpu_of_rank[static_cast<size_t>(rank)]).host];
    int target = -1;
    for (const auto& [h, free] : room)
      if (free.size() >= group.size() && (target < 0 || members[h] > members[target])) target = h;
    if (target < 0) return std::nullopt;
    std::vector<VertexId>& free = room[target];
    std::vector<int> newcomers;
    for (int rank : group) {
      auto it = std::find(free.begin(), free.end(), layout.gpu_of_rank[static_cast<size_t>(rank)]);
      if (it == free.end()) {
        newcomers.push_back(rank);
        continue;
      }
      free.erase(it);
    }
    for (int rank : newcomers) {
      out.gpu_of_rank[static_cast<size_t>(rank)] = free.front();
      free.erase(free.begin());
    }
  }
  return out;
}

Result<void> Explainer::Impl::moves(GroupExplanation& g) {
  std::vector<Move> found;
  // Another order string on the same GPUs.
  if (!best_order) {
    std::vector<std::string> tokens;
    for (const TrafficItem& it : state->traffic().items) tokens.push_back(it.group);
    Result<std::vector<std::string>> orders = orders_distinct(job, tokens);
    RETURN_IF_ERROR(orders);
    Move m{"", job.parallel.order, {}, {}, score.exposed_comm_s};
    for (const std::string& o : *orders) {
      if (o == job.parallel.order) continue;
      Result<double> e = exposed_with_order(o);
      if (e && *e < m.exposed_s) m = {"order string " + o + " on the same GPUs", o, {}, {}, *e};
    }
    best_order = m;
  }
  if (!best_order->what.empty()) found.push_back(*best_order);

  // Swap the members outside the host holding most of them for non-members on it.
  const std::vector<int> hosts = c.hosts_of(g.gpus);
  if (hosts.size() > 1) {
    std::map<int, std::vector<int>> members;
    for (size_t k = 0; k < g.ranks.size(); ++k) members[c.device(g.gpus[k]).host].push_back(g.ranks[k]);
    int target = hosts.front();
    for (const auto& [h, rs] : members)
      if (rs.size() > members[target].size()) target = h;
    std::vector<int> outside, free_on_target;
    for (const auto& [h, rs] : members)
      if (h != target) outside.insert(outside.end(), rs.begin(), rs.end());
    for (int rank = 0; rank < layout.world_size(); ++rank)
      if (c.device(layout.gpu_of_rank[static_cast<size_t>(rank)]).host == target &&
          std::find(g.ranks.begin(), g.ranks.end(), rank) == g.ranks.end())
        free_on_target.push_back(rank);
    if (free_on_target.size() >= outside.size()) {
      Move m;
      for (size_t k = 0; k < outside.size(); ++k) m.exchange.emplace_back(outside[k], free_on_target[k]);
      if (Result<void> ok = state->exchange(m.exchange); !ok) return ok;
      m.exposed_s = state->exposed_us() / 1e6;
      if (Result<void> ok = state->undo(); !ok) return ok;
      std::vector<int> from, to;
      for (const auto& [a, b] : m.exchange) {
        from.push_back(a);
        to.push_back(b);
      }
      m.what = "swap ranks " + format_index_list(from) + " with ranks " + format_index_list(to) +
               ": the whole group on " + c.hosts()[static_cast<size_t>(target)].name;
      m.order = job.parallel.order;
      found.push_back(std::move(m));
    }
    // One of many alike: every group of its kind on one host at once, where one swap alone
    // would only split another.
    Result<GroupList> list = groups.groups(g.token);
    RETURN_IF_ERROR(list);
    int split = 0;
    for (const std::vector<int>& members_of : *list) {
      std::vector<VertexId> gpus;
      for (int rank : members_of) gpus.push_back(layout.gpu_of_rank[static_cast<size_t>(rank)]);
      split += c.hosts_of(gpus).size() > 1;
    }
    if (split > 1) {
      if (std::optional<Layout> l = packed(*list)) {
        Result<std::unique_ptr<ScoreState>> other = state->remake(*l);
        RETURN_IF_ERROR(other);
        Move m;
        m.what = "every " + g.ref.kind + " group on one host (" + std::to_string(split) + " of the " +
                 std::to_string(list->size()) + " span hosts)";
        m.order = job.parallel.order;
        for (int rank = 0; rank < layout.world_size(); ++rank)
          if (l->gpu_of_rank[static_cast<size_t>(rank)] != layout.gpu_of_rank[static_cast<size_t>(rank)])
            m.moves_to.emplace_back(rank, l->gpu_of_rank[static_cast<size_t>(rank)]);
        m.exposed_s = (*other)->exposed_us() / 1e6;
        found.push_back(std::move(m));
      }
    }
  }
  // The planner on the same hosts.
  if (!planned) {
    PlanRequest req;
    req.free = c.hosts_of(layout.gpu_of_rank);
    req.down = down;
    req.score = opt;
    Result<Plan> p = plan_job(c, r, job, req);
    if (!p) return Error{"the planner on the same hosts: " + p.error()};
    planned = Move{"topoplan plan on the same hosts (order " + p->job.parallel.order + ", hosts in rank order " +
                       hostlist_of(c, p->host_order) + ")",
                   p->job.parallel.order,
                   {},
                   {},
                   p->score.exposed_comm_s};
  }
  found.push_back(*planned);
  // A move that leaves the step as it is or makes it worse is no advice.
  for (Move& m : found)
    if (m.exposed_s < score.exposed_comm_s * (1 - 1e-6)) g.moves.push_back(std::move(m));
  return {};
}

Result<void> Explainer::Impl::fill(GroupExplanation& g, bool full) {
  const std::string token = std::string(group_token(g.ref.kind));
  g.token = token;
  Result<GroupList> list = groups.groups(token);
  RETURN_IF_ERROR(list);
  if (g.ref.index < 0 || g.ref.index >= static_cast<int>(list->size()))
    return Error{g.ref.kind + ":" + std::to_string(g.ref.index) + ": the job has " + std::to_string(list->size()) +
                 " " + g.ref.kind + " groups (0-" + std::to_string(list->size() - 1) + ")"};
  g.ranks = (*list)[static_cast<size_t>(g.ref.index)];
  for (int rank : g.ranks) g.gpus.push_back(layout.gpu_of_rank[static_cast<size_t>(rank)]);

  // Its collectives: per step, and the heaviest, with the group's own time in it.
  const GroupCost cost = group_cost(*state, bound.item_us, token, g.ref.index);
  const size_t heaviest = cost.heaviest;
  g.per_step_s = cost.per_step_s;
  g.excess_s = cost.excess_s;
  const std::vector<int> hosts = c.hosts_of(g.gpus);
  std::string where = hosts.size() == 1 ? c.hosts()[static_cast<size_t>(hosts[0])].name
                                        : std::to_string(hosts.size()) + " hosts (" + hostlist_of(c, hosts) + ")";
  g.summary =
      g.ref.kind + " " + std::to_string(g.ref.index) + " (ranks " + format_index_list(g.ranks) + ") on " + where;
  if (heaviest == SIZE_MAX) {
    g.summary += ": no collectives in the job's traffic";
    g.why = why(g);
    return {};
  }
  g.found_traffic = true;
  g.item = state->traffic().items[heaviest];
  size_t slow = state->groups_of(heaviest, g.ref.index).front();
  for (size_t k : state->groups_of(heaviest, g.ref.index))
    if (state->group_time(heaviest, k).contended_us > state->group_time(heaviest, slow).contended_us) slow = k;
  const ScoreState::GroupTime t = state->group_time(heaviest, slow);
  const CollectivePrediction& alone = state->item_alone(heaviest, slow);
  g.contended_us = t.contended_us;
  g.alone_us = alone.time_us;
  g.has_slowest = t.has_hot_edge;
  g.slowest = t.hot_edge;
  g.behind_share = t.contended_us > 0 ? std::max(0.0, t.contended_us - alone.latency_us) / t.contended_us : 0;
  g.summary += ": " + std::string(to_string(g.item.op)) + " " + format_bytes(g.item.bytes) + " " +
               format_duration(g.contended_us * 1e-6) + " per call";
  if (g.has_slowest)
    g.summary += " behind " + c.edge_name(g.slowest) + " (" + std::string(to_string(c.link(g.slowest).kind)) + ")";
  g.summary +=
      ", " + format_duration(g.per_step_s) + " per step, " + format_duration(g.excess_s) + " over its best case";
  g.why = why(g);
  if (!full) return {};

  // The paths between the ranks that exchange data, folded by shape.
  std::vector<std::pair<int, int>> pairs;
  const size_t k = g.ranks.size();
  if (g.item.stage_pairs || g.item.op == CollectiveOp::sendrecv) {
    for (size_t i = 0; i + 1 < k; ++i) pairs.emplace_back(static_cast<int>(i), static_cast<int>(i + 1));
  } else if (g.item.op == CollectiveOp::alltoall) {
    for (size_t i = 1; i < k; ++i) pairs.emplace_back(0, static_cast<int>(i));
  } else {
    for (size_t i = 0; i < k; ++i) pairs.emplace_back(static_cast<int>(i), static_cast<int>((i + 1) % k));
  }
  std::map<std::string, size_t> shapes;
  const bool pxn = g.item.op == CollectiveOp::sendrecv;
  for (const auto& [a, b] : pairs) {
    Result<Route> route = r.route(g.gpus[static_cast<size_t>(a)], g.gpus[static_cast<size_t>(b)],
                                  {pxn ? NicPolicy::pxn : NicPolicy::rail_aligned, false});
    RETURN_IF_ERROR(route);
    for (const Hop& h : route->hops) g.path_edges.push_back(h.edge);
    const std::string shape =
        std::string(to_string(route->path_class)) + "|" + std::to_string(route->hops.size()) + "|" +
        format_number(route->bw_GBps, 3) + "|" +
        std::to_string(static_cast<int>(
            loc.level(c.device(g.gpus[static_cast<size_t>(a)]).host, c.device(g.gpus[static_cast<size_t>(b)]).host)));
    auto [it, fresh] = shapes.try_emplace(shape, g.paths.size());
    if (fresh)
      g.paths.push_back({g.ranks[static_cast<size_t>(a)], g.ranks[static_cast<size_t>(b)], std::move(*route), 1});
    else
      ++g.paths[it->second].count;
  }
  sort_unique(g.path_edges);
  inside(g);
  return moves(g);
}

Explainer::Explainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Explainer::~Explainer() = default;

Result<std::unique_ptr<Explainer>> Explainer::make(const Cluster& c, const Router& r, const Job& job,
                                                   const Layout& layout, const DownSet& down, const ScoreOptions& opt) {
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);
  auto impl = std::make_unique<Impl>(c, r, job, layout, down, opt, std::move(*groups));
  const std::vector<VertexId>& gpus = layout.gpu_of_rank;
  impl->per_host = static_cast<int>(std::count_if(
      gpus.begin(), gpus.end(), [&](VertexId v) { return c.device(v).host == c.device(gpus.front()).host; }));
  impl->blocks = impl->per_host > 0;
  for (size_t rk = 1; rk < gpus.size() && impl->blocks; ++rk)
    impl->blocks =
        c.device(gpus[rk]).host == c.device(gpus[rk - 1]).host || rk % static_cast<size_t>(impl->per_host) == 0;
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, layout, opt);
  RETURN_IF_ERROR(state);
  impl->state = std::move(*state);
  Result<LowerBound> bound = lower_bound(c, r, job, layout, opt);
  RETURN_IF_ERROR(bound);
  impl->bound = std::move(*bound);
  Result<JobScore> score = score_report(c, r, job, *impl->state, opt, &impl->bound.item_us);
  RETURN_IF_ERROR(score);
  impl->score = std::move(*score);
  return std::unique_ptr<Explainer>(new Explainer(std::move(impl)));
}

const JobScore& Explainer::score() const { return impl_->score; }
const Job& Explainer::job() const { return impl_->job; }

Result<GroupExplanation> Explainer::group(const GroupRef& ref) {
  GroupExplanation g;
  g.ref = ref;
  RETURN_IF_ERROR(impl_->fill(g, true));
  return g;
}

Result<std::vector<GroupExplanation>> Explainer::rank(int rank) {
  const int world = impl_->layout.world_size();
  if (rank < 0 || rank >= world)
    return Error{"--rank: the job has ranks 0-" + std::to_string(world - 1) + ", got " + std::to_string(rank)};
  std::vector<GroupExplanation> out;
  for (const GroupKind& k : group_kinds()) {
    Result<GroupList> list = impl_->groups.groups(k.token);
    if (!list || list->empty() || list->front().size() < 2 || !impl_->used(k)) continue;
    for (size_t i = 0; i < list->size(); ++i)
      if (std::find((*list)[i].begin(), (*list)[i].end(), rank) != (*list)[i].end()) {
        GroupExplanation g;
        g.ref = {k.kind, static_cast<int>(i)};
        RETURN_IF_ERROR(impl_->fill(g, false));
        out.push_back(std::move(g));
        break;
      }
  }
  return out;
}

Result<LinkExplanation> Explainer::link(const std::string& name) {
  const Cluster& c = impl_->c;
  const size_t arrow = name.find("->");
  if (arrow == std::string::npos) return Error{"--link: expected 'a -> b' as score lists links, got '" + name + "'"};
  const std::string a(trim(std::string_view(name).substr(0, arrow))), b(trim(std::string_view(name).substr(arrow + 2)));
  std::optional<VertexId> va = c.find(a), vb = c.find(b);
  if (!va || !vb) return Error{"--link: no device '" + (va ? b : a) + "'"};
  std::optional<EdgeId> edge;
  // A bundle's ports carry equal shares: its first port stands for each of them.
  for (EdgeId e : c.out_edges(*va))
    if (c.target(e) == *vb && !edge) edge = e;
  if (!edge) return Error{"--link: '" + a + "' and '" + b + "' are not linked"};
  LinkExplanation out;
  out.edge = *edge;
  const ScoreState& st = *impl_->state;
  std::array<double, kPhases> busy{};
  for (size_t i = 0; i < st.item_count(); ++i) {
    if (st.item_groups(i).empty()) continue;
    const LinkLoad& load = st.item_load(i);
    const double per_byte = load.bytes(*edge);
    if (per_byte <= 0) continue;
    const TrafficItem& it = st.traffic().items[i];
    LinkExplanation::Use u;
    u.item = it;
    u.groups = st.groups_on(i, *edge);
    u.bytes_per_step = per_byte * it.bytes * it.calls;
    u.busy_s = load.busy_us(*edge) * it.bytes * it.calls / 1e6;
    busy[static_cast<size_t>(it.phase)] += u.busy_s;
    out.uses.push_back(u);
  }
  std::stable_sort(out.uses.begin(), out.uses.end(),
                   [](const LinkExplanation::Use& x, const LinkExplanation::Use& y) { return x.busy_s > y.busy_s; });
  // The same windows as score's per-phase utilisation.
  const std::array<double, kPhases> duration_us = phase_durations_us(st);
  for (size_t p = 0; p < kPhases; ++p) {
    if (busy[p] <= 0) continue;
    const double d = duration_us[p] / 1e6;
    out.phases.push_back({std::string(phase_window_name(static_cast<Phase>(p))), busy[p], d, d > 0 ? busy[p] / d : 0});
  }
  return out;
}

Result<std::vector<GroupExplanation>> Explainer::costliest(size_t n) {
  struct Candidate {
    GroupRef ref;
    double excess, per_step;
  };
  std::vector<Candidate> all;
  for (const GroupKind& k : group_kinds()) {
    Result<GroupList> list = impl_->groups.groups(k.token);
    if (!list || list->empty() || list->front().size() < 2) continue;
    for (size_t i = 0; i < list->size(); ++i) {
      GroupExplanation g;
      g.ref = {k.kind, static_cast<int>(i)};
      RETURN_IF_ERROR(impl_->fill(g, false));
      if (g.found_traffic) all.push_back({g.ref, g.excess_s, g.per_step_s});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return a.excess != b.excess ? a.excess > b.excess : a.per_step > b.per_step;
  });
  std::vector<GroupExplanation> out;
  for (size_t i = 0; i < all.size() && i < n; ++i) {
    Result<GroupExplanation> g = group(all[i].ref);
    RETURN_IF_ERROR(g);
    out.push_back(std::move(*g));
  }
  return out;
}

}  // namespace topoplan
