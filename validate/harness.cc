#include "validate/harness.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "base/units.h"
#include "base/words.h"
#include "validate/median.h"

namespace topoplan {
namespace {

// A value each rank contributes: small integers, so float sums are exact.
float value(int position, size_t k) { return static_cast<float>(position + 1 + static_cast<int>(k % 7)); }

struct Shape {
  size_t send = 0, recv = 0, count = 0;  // elements
  double bytes = 0;                      // nccl-tests' size as run
};

Shape shape_of(CollectiveOp op, double bytes, int n) {
  const size_t elements = std::max<size_t>(1, static_cast<size_t>(bytes / 4));
  const size_t per = std::max<size_t>(1, elements / static_cast<size_t>(n));
  const size_t un = static_cast<size_t>(n);
  switch (op) {
    case CollectiveOp::all_gather:
      return {per, per * un, per, 4.0 * per * un};
    case CollectiveOp::reduce_scatter:
      return {per * un, per, per, 4.0 * per * un};
    case CollectiveOp::alltoall:
      return {per * un, per * un, per, 4.0 * per * un};
    default:
      return {elements, elements, elements, 4.0 * elements};
  }
}

// What position p of a group of n must hold after the collective; empty when nothing is received.
// sendrecv receives from the previous position (a ring's first from its last).
std::vector<float> expected(CollectiveOp op, const Shape& s, int p, int n, bool ring) {
  std::vector<float> out(s.recv);
  switch (op) {
    case CollectiveOp::all_reduce:
      for (size_t k = 0; k < s.recv; ++k)
        for (int i = 0; i < n; ++i) out[k] += value(i, k);
      break;
    case CollectiveOp::all_gather:
      for (size_t k = 0; k < s.recv; ++k) out[k] = value(static_cast<int>(k / s.count), k % s.count);
      break;
    case CollectiveOp::reduce_scatter:
      for (size_t k = 0; k < s.recv; ++k)
        for (int i = 0; i < n; ++i) out[k] += value(i, static_cast<size_t>(p) * s.count + k);
      break;
    case CollectiveOp::alltoall:
      for (size_t k = 0; k < s.recv; ++k)
        out[k] = value(static_cast<int>(k / s.count), static_cast<size_t>(p) * s.count + k % s.count);
      break;
    default:  // sendrecv
      if (p == 0 && !ring) return {};
      for (size_t k = 0; k < s.recv; ++k) out[k] = value((p + n - 1) % n, k);
  }
  return out;
}

struct Measurement {
  double time_us = 0;         // per call, this rank
  std::optional<long> wrong;  // wrong elements here; none where the result is not checked
};

// measure() waits at this many world barriers: ranks outside the group wait at as many.
constexpr int kMeasureBarriers = 2;

// One collective at one size on this rank, as nccl-tests times it: warm-up, a barrier over the
// world (every group of the kind starts together), timed calls issued back to back and waited for
// once, then one more call from fresh input whose result is checked. With several rounds, the
// timed calls are split among them and the median round counts, so that a round the OS or another
// job interrupted does not.
Measurement measure(ValidateBackend& b, const ValidateComm& comm, CollectiveOp op, const Shape& s, int position, int n,
                    bool ring, int iters, int warmup, int rounds, bool in_place) {
  const int to = op != CollectiveOp::sendrecv ? -1 : ring ? (position + 1) % n : position + 1 < n ? position + 1 : -1;
  const int from = op != CollectiveOp::sendrecv ? -1 : ring ? (position + n - 1) % n : position - 1;
  std::vector<float> fill(s.send);
  for (size_t e = 0; e < s.send; ++e) fill[e] = value(position, e);
  // In place, the input is in the receive buffer: all_gather's at this rank's slot.
  std::vector<float> input = fill;
  if (in_place && op == CollectiveOp::all_gather) {
    input.assign(s.recv, -1);
    std::copy(fill.begin(), fill.end(), input.begin() + static_cast<long>(static_cast<size_t>(position) * s.count));
  }
  std::unique_ptr<ValidateBuffer> send = b.buffer(in_place ? 1 : s.send);
  std::unique_ptr<ValidateBuffer> recv = b.buffer(in_place ? std::max(s.send, s.recv) : s.recv);
  if (in_place)
    recv->upload(input);
  else
    send->upload(fill);
  b.world_barrier();
  for (int i = 0; i < warmup; ++i) b.run(comm, op, *send, *recv, s.count, to, from, in_place);
  b.sync();
  b.world_barrier();
  // Rounds of calls, each timed as a whole; the median round's time per call.
  rounds = std::clamp(rounds, 1, std::max(1, iters));
  std::vector<double> per_call_s;
  for (int r = 0; r < rounds; ++r) {
    const int calls = iters / rounds + (r < iters % rounds);
    if (r > 0) {
      std::vector<double> together = {0};
      b.comm_max(comm, together);  // the group starts each round together
    }
    const double t0 = b.now_s();
    for (int i = 0; i < calls; ++i) b.run(comm, op, *send, *recv, s.count, to, from, in_place);
    b.sync();
    per_call_s.push_back((b.now_s() - t0) / std::max(1, calls));
  }
  Measurement m;
  m.time_us = median(per_call_s) * 1e6;
  // Checked after a clean run: the timed ones reuse the buffers (in place, their own output).
  if (in_place) {
    recv->upload(input);
  } else {
    recv->upload(std::vector<float>(s.recv, -1));
  }
  b.run(comm, op, *send, *recv, s.count, to, from, in_place);
  b.sync();
  const std::vector<float> want = expected(op, s, position, n, ring);
  // nccl-tests does not check an in-place all-to-all (its buffers overlap).
  if (in_place && op == CollectiveOp::alltoall) return m;
  long wrong = 0;
  if (!want.empty()) {
    const std::vector<float> got = recv->download();
    const size_t at = in_place && op == CollectiveOp::reduce_scatter ? static_cast<size_t>(position) * s.count : 0;
    for (size_t e = 0; e < want.size(); ++e) wrong += got[at + e] != want[e];
  }
  m.wrong = wrong;
  return m;
}

// Which ranks share a host, as sorted rank lists.
std::vector<std::vector<int>> host_partition(const std::vector<std::string>& host_of_rank) {
  std::map<std::string, std::vector<int>> by;
  for (size_t r = 0; r < host_of_rank.size(); ++r) by[host_of_rank[r]].push_back(static_cast<int>(r));
  std::vector<std::vector<int>> out;
  for (auto& [h, ranks] : by) out.push_back(std::move(ranks));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

long ValidateRun::wrong() const {
  long n = 0;
  for (const ValidateGroupResult& g : groups)
    for (const ValidateResult& r : g.results) n += r.wrong;
  return n;
}

namespace {

// The world must be the plan's: its size, and which ranks share a host (the names may differ: a
// plan for other machines of the same shape).
Result<void> check_world(ValidateBackend& b, const ValidatePlan& plan,
                         const std::function<void(const std::string&)>& stage) {
  if (b.world_size() != plan.world)
    return Error{plan.source + " places " + std::to_string(plan.world) + " ranks; this run has " +
                 std::to_string(b.world_size()) + " (launch one rank per planned GPU)"};
  stage("comparing hosts");
  // Host names as numbers every rank can compare (a hash; a collision would only merge hosts).
  std::vector<double> h(static_cast<size_t>(plan.world), -1);
  h[static_cast<size_t>(b.world_rank())] = static_cast<double>(std::hash<std::string>{}(b.host_name()) % (1ULL << 52));
  b.world_max(h);
  std::vector<std::string> run_hosts;
  for (double x : h) run_hosts.push_back(std::to_string(static_cast<unsigned long long>(x)));
  if (host_partition(run_hosts) != host_partition(plan.host_of_rank))
    return Error{"the ranks do not share hosts as " + plan.source + " places them: the plan has " +
                 counted(static_cast<int64_t>(host_partition(plan.host_of_rank).size()), "host") + ", this run " +
                 std::to_string(host_partition(run_hosts).size()) +
                 " (launch the ranks in the plan's order, e.g. with its hostfile or rankfile)"};
  return {};
}

// A check only some ranks fail must stop every rank, or the others wait in the next collective:
// every rank learns every rank's error, and all return the first.
Result<void> agree(ValidateBackend& b, const std::string& mine) {
  const std::vector<std::string> all = b.world_gather(mine);
  int failed = 0;
  const std::string* first = nullptr;
  size_t first_rank = 0;
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) {
      if (!first) {
        first = &all[r];
        first_rank = r;
      }
      ++failed;
    }
  if (!first) return {};
  return Error{"rank " + std::to_string(first_rank) + ": " + *first +
               (failed > 1 ? " (and " + std::to_string(failed - 1) + " other ranks)" : "")};
}

}  // namespace

Result<ValidateRun> validate_run(ValidateBackend& b, const ValidatePlan& plan, const std::vector<ValidateKind>& kinds,
                                 const ValidateOptions& o, const std::function<void(const std::string&)>& stage) {
  const int me = b.world_rank();
  RETURN_IF_ERROR(check_world(b, plan, stage));

  ValidateRun run;
  run.backend = b.name();
  run.plan = plan.source;
  run.job = plan.job;
  run.world = plan.world;
  for (const ValidateKind& kind : kinds) {
    // My group of this kind and my place in it.
    int mine = -1, position = -1;
    for (size_t g = 0; g < kind.groups.size() && mine < 0; ++g)
      for (size_t p = 0; p < kind.groups[g].size(); ++p)
        if (kind.groups[g][p] == me) {
          mine = static_cast<int>(g);
          position = static_cast<int>(p);
        }
    stage(kind.kind + ": splitting communicators");
    std::unique_ptr<ValidateComm> comm = b.split(mine, position);
    const int n = static_cast<int>(kind.groups.front().size());
    const std::string group = kind.kind + " group " + std::to_string(mine);
    std::string error;
    if (!comm || comm->size() != n || comm->rank() != position)
      error = group + ": the communicator has " + std::to_string(comm ? comm->size() : 0) + " ranks, the plan " +
              std::to_string(n);
    RETURN_IF_ERROR(agree(b, error));
    std::vector<double> members(static_cast<size_t>(n), -1);
    members[static_cast<size_t>(position)] = me;
    b.comm_max(*comm, members);
    for (int p = 0; p < n && error.empty(); ++p)
      if (static_cast<int>(members[static_cast<size_t>(p)]) !=
          kind.groups[static_cast<size_t>(mine)][static_cast<size_t>(p)])
        error = group + ": position " + std::to_string(p) + " holds rank " +
                std::to_string(static_cast<int>(members[static_cast<size_t>(p)])) + ", the plan says " +
                std::to_string(kind.groups[static_cast<size_t>(mine)][static_cast<size_t>(p)]);
    RETURN_IF_ERROR(agree(b, error));

    std::vector<PlannedCollective> runs;
    if (o.sizes.empty()) {
      runs = kind.collectives;
    } else {
      for (const PlannedCollective& c : kind.collectives)
        for (double s : o.sizes)
          if (std::none_of(runs.begin(), runs.end(),
                           [&](const PlannedCollective& x) { return x.op == c.op && x.bytes == s; }))
            runs.push_back({c.op, s});
    }
    // Per group and run: time, wrong count and time alone (-1: not run), written by the group's
    // first rank.
    const size_t groups = kind.groups.size();
    constexpr size_t kColumns = 3;
    std::vector<double> table(groups * runs.size() * kColumns, -1);
    auto cell = [&](size_t g, size_t k, size_t column) -> double& {
      return table[(g * runs.size() + k) * kColumns + column];
    };
    for (size_t k = 0; k < runs.size(); ++k) {
      const PlannedCollective& c = runs[k];
      const Shape s = shape_of(c.op, c.bytes, n);
      const std::string what = std::string(to_string(c.op)) + " of " + format_bytes(s.bytes);
      stage(kind.kind + " group " + std::to_string(mine) + ": " + what);
      const Measurement m = measure(b, *comm, c.op, s, position, n, false, o.iters, o.warmup, o.rounds, false);
      std::vector<double> mine_values = {m.time_us, static_cast<double>(m.wrong.value_or(0))};
      b.comm_max(*comm, mine_values);
      if (position == 0) {
        cell(static_cast<size_t>(mine), k, 0) = mine_values[0];
        cell(static_cast<size_t>(mine), k, 1) = mine_values[1];
      }
      if (!o.alone || groups < 2) continue;
      // Each group again with the others idle: what sharing the machines cost it.
      for (size_t g = 0; g < groups; ++g) {
        stage(kind.kind + " group " + std::to_string(g) + " alone: " + what);
        if (static_cast<size_t>(mine) != g) {
          for (int i = 0; i < kMeasureBarriers; ++i) b.world_barrier();
          continue;
        }
        std::vector<double> alone = {
            measure(b, *comm, c.op, s, position, n, false, o.iters, o.warmup, o.rounds, false).time_us};
        b.comm_max(*comm, alone);
        if (position == 0) cell(g, k, 2) = alone[0];
      }
    }
    stage(kind.kind + ": collecting results");
    b.world_max(table);
    for (size_t g = 0; g < groups; ++g) {
      ValidateGroupResult gr{kind.kind, static_cast<int>(g), kind.groups[g], {}};
      for (size_t k = 0; k < runs.size(); ++k) {
        const Shape s = shape_of(runs[k].op, runs[k].bytes, n);
        ValidateResult r;
        r.op = runs[k].op;
        r.bytes = s.bytes;
        r.count = s.count;
        r.time_us = cell(g, k, 0);
        r.wrong = static_cast<long>(cell(g, k, 1));
        r.alone_us = std::max(0.0, cell(g, k, 2));
        r.algbw_GBps = r.time_us > 0 ? r.bytes / (r.time_us * 1e3) : 0;
        r.busbw_GBps = r.algbw_GBps * nccl_busbw_factor(r.op, n);
        gr.results.push_back(r);
      }
      run.groups.push_back(std::move(gr));
    }
  }
  stage("done");
  return run;
}

Result<SweepResult> validate_sweep(ValidateBackend& b, const ValidatePlan& plan, const SweepOptions& o,
                                   const std::function<void(const std::string&)>& stage) {
  RETURN_IF_ERROR(check_world(b, plan, stage));
  const int me = b.world_rank();
  std::vector<int> ranks;
  if (o.kind.empty()) {
    for (int r = 0; r < plan.world; ++r) ranks.push_back(r);
  } else {
    // Any kind of the plan, one-rank groups too: on one GPU, NCCL's one-rank communicators.
    auto it =
        std::find_if(plan.groups.begin(), plan.groups.end(), [&](const ValidateKind& k) { return k.kind == o.kind; });
    if (it == plan.groups.end()) {
      std::string names;
      for (const ValidateKind& k : plan.groups) names += (names.empty() ? "" : ", ") + k.kind;
      return Error{"--group " + o.kind + ": the plan has no " + o.kind + " groups (it has " + names + ")"};
    }
    const ValidateKind& k = *it;
    if (o.index < 0 || static_cast<size_t>(o.index) >= k.groups.size())
      return Error{"--group " + o.kind + ":" + std::to_string(o.index) + ": the plan has " +
                   std::to_string(k.groups.size()) + " " + o.kind + " groups (0 to " +
                   std::to_string(k.groups.size() - 1) + ")"};
    ranks = k.groups[static_cast<size_t>(o.index)];
  }
  const int n = static_cast<int>(ranks.size());
  const auto at = std::find(ranks.begin(), ranks.end(), me);
  const int position = at == ranks.end() ? -1 : static_cast<int>(at - ranks.begin());
  stage("splitting the group's communicator");
  std::unique_ptr<ValidateComm> comm = b.split(position < 0 ? -1 : 0, position);
  std::string error;
  if (position >= 0 && (!comm || comm->size() != n || comm->rank() != position))
    error = "the group's communicator has " + std::to_string(comm ? comm->size() : 0) + " ranks, the plan " +
            std::to_string(n);
  RETURN_IF_ERROR(agree(b, error));

  // nccl-tests' device lines, in the group's rank order.
  char pid[32];
  std::snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
  const std::vector<std::string> infos =
      b.world_gather(b.host_name() + "\t" + pid + "\t" + b.device_bus_id() + "\t" + b.device_name());
  SweepResult out;
  NcclTestsRun& t = out.table;
  t.source = plan.source;
  t.program = nccl_tests_program(o.op);
  t.op = o.op;
  t.min_bytes = o.min_bytes;
  t.max_bytes = o.max_bytes;
  t.step_factor = static_cast<int>(o.factor);
  t.warmup_iters = o.warmup;
  t.iters = o.iters;
  for (int p = 0; p < n; ++p) {
    const int r = ranks[static_cast<size_t>(p)];
    std::istringstream fields(infos[static_cast<size_t>(r)]);
    NcclTestsRank rank;
    std::string pid_text;
    std::getline(fields, rank.host, '\t');
    std::getline(fields, pid_text, '\t');
    std::getline(fields, rank.bus_id, '\t');
    std::getline(fields, rank.device_name);
    rank.rank = p;
    rank.pid = std::stol(pid_text);
    rank.device = plan.gpu_of_rank[static_cast<size_t>(r)];
    t.ranks.push_back(rank);
  }

  // Per size: out-of-place time and wrong count, in-place time and wrong count (-1: not checked).
  std::vector<double> sizes;
  for (double size = o.min_bytes; size <= o.max_bytes; size *= o.factor) {
    sizes.push_back(size);
    if (o.factor <= 1) break;
  }
  std::vector<double> table(sizes.size() * 4, -1);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Shape s = shape_of(o.op, sizes[k], n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      stage(std::string(to_string(o.op)) + " of " + format_bytes(s.bytes) + (in_place ? " in place" : " out of place"));
      if (position < 0) {
        for (int i = 0; i < kMeasureBarriers; ++i) b.world_barrier();
        continue;
      }
      const Measurement m = measure(b, *comm, o.op, s, position, n, true, o.iters, o.warmup, 1, in_place != 0);
      // Every member's time and wrong count to every member: the average and the worst.
      std::vector<double> times(static_cast<size_t>(n), -1), wrong(static_cast<size_t>(n), -1);
      times[static_cast<size_t>(position)] = m.time_us;
      wrong[static_cast<size_t>(position)] = m.wrong ? static_cast<double>(*m.wrong) : -1;
      times.insert(times.end(), wrong.begin(), wrong.end());
      b.comm_max(*comm, times);
      if (position == 0) {
        double sum = 0;
        for (int p = 0; p < n; ++p) sum += times[static_cast<size_t>(p)];
        table[k * 4 + static_cast<size_t>(2 * in_place)] = sum / n;
        table[k * 4 + static_cast<size_t>(2 * in_place) + 1] = *std::max_element(times.begin() + n, times.end());
      }
    }
  }
  stage("collecting results");
  b.world_max(table);

  ValidateGroupResult group{o.kind.empty() ? "world" : o.kind, o.kind.empty() ? 0 : o.index, ranks, {}};
  double busbw_sum = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Shape s = shape_of(o.op, sizes[k], n);
    const bool reduces = o.op == CollectiveOp::all_reduce || o.op == CollectiveOp::reduce_scatter;
    NcclTestsRow row;
    row.bytes = s.bytes;
    row.count = s.count;
    row.type = "float";
    // nccl-tests prints its -o operation (sum) for sendrecv too (2.13.0 on).
    row.redop = reduces || o.op == CollectiveOp::sendrecv ? "sum" : "none";
    const double factor = nccl_busbw_factor(o.op, n);
    row.time_us = table[k * 4];
    row.algbw_GBps = s.bytes / (row.time_us * 1e3);
    row.busbw_GBps = row.algbw_GBps * factor;
    if (table[k * 4 + 1] >= 0) row.wrong = static_cast<long>(table[k * 4 + 1]);
    row.in_place_time_us = table[k * 4 + 2];
    row.in_place_algbw_GBps = s.bytes / (row.in_place_time_us * 1e3);
    row.in_place_busbw_GBps = row.in_place_algbw_GBps * factor;
    if (table[k * 4 + 3] >= 0) row.in_place_wrong = static_cast<long>(table[k * 4 + 3]);
    t.out_of_bounds += row.wrong.value_or(0) + row.in_place_wrong.value_or(0);
    busbw_sum += row.busbw_GBps + row.in_place_busbw_GBps;
    t.rows.push_back(row);
    ValidateResult r;
    r.op = o.op;
    r.bytes = s.bytes;
    r.count = s.count;
    r.time_us = row.time_us;
    r.algbw_GBps = row.algbw_GBps;
    r.busbw_GBps = row.busbw_GBps;
    r.wrong = row.wrong.value_or(0) + row.in_place_wrong.value_or(0);
    group.results.push_back(r);
  }
  t.avg_busbw_GBps = sizes.empty() ? 0 : busbw_sum / static_cast<double>(2 * sizes.size());
  out.run.backend = b.name();
  out.run.plan = plan.source;
  out.run.job = plan.job;
  out.run.world = plan.world;
  out.run.groups.push_back(std::move(group));
  stage("done");
  return out;
}

nlohmann::json validate_to_json(const ValidateRun& run) {
  nlohmann::json groups = nlohmann::json::array();
  for (const ValidateGroupResult& g : run.groups) {
    nlohmann::json results = nlohmann::json::array();
    for (const ValidateResult& r : g.results)
      results.push_back({{"op", std::string(to_string(r.op))},
                         {"bytes", r.bytes},
                         {"count", r.count},
                         {"time_us", r.time_us},
                         {"algbw_GBps", r.algbw_GBps},
                         {"busbw_GBps", r.busbw_GBps},
                         {"alone_us", r.alone_us > 0 ? nlohmann::json(r.alone_us) : nlohmann::json(nullptr)},
                         {"wrong", r.wrong}});
    groups.push_back({{"kind", g.kind}, {"index", g.index}, {"ranks", g.ranks}, {"results", std::move(results)}});
  }
  return {{"format", "topoplan-validate"},
          {"backend", run.backend},
          {"plan", run.plan},
          {"job", run.job},
          {"world", run.world},
          {"wrong", run.wrong()},
          {"groups", std::move(groups)}};
}

std::string validate_table(const ValidateRun& run) {
  std::string out = "# topoplan-validate: " + run.backend + " backend, " + std::to_string(run.world) + " ranks, plan " +
                    run.plan + (run.job.empty() ? "" : " (" + run.job + ")") + "\n";
  char line[256];
  for (const ValidateGroupResult& g : run.groups) {
    std::string ranks;
    for (int r : g.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    out += "#\n# " + g.kind + " group " + std::to_string(g.index) + ": ranks " + ranks + "\n";
    std::snprintf(line, sizeof line, "# %10s  %12s  %6s  %14s  %10s  %8s  %8s  %6s\n", "size", "count", "type",
                  "redop/op", "time", "algbw", "busbw", "#wrong");
    out += line;
    std::snprintf(line, sizeof line, "# %10s  %12s  %6s  %14s  %10s  %8s  %8s  %6s\n", "(B)", "(elements)", "", "",
                  "(us)", "(GB/s)", "(GB/s)", "");
    out += line;
    for (const ValidateResult& r : g.results) {
      std::snprintf(line, sizeof line, "  %10.0f  %12zu  %6s  %14s  %10.2f  %8.2f  %8.2f  %6ld\n", r.bytes, r.count,
                    "float", std::string(to_string(r.op)).c_str(), r.time_us, r.algbw_GBps, r.busbw_GBps, r.wrong);
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "# Out of bounds values : %ld %s\n", run.wrong(), run.wrong() ? "FAILED" : "OK");
  out += line;
  return out;
}

}  // namespace topoplan
