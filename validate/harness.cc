#include "validate/harness.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "topology/units.h"

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
    case CollectiveOp::all_gather: return {per, per * un, per, 4.0 * per * un};
    case CollectiveOp::reduce_scatter: return {per * un, per, per, 4.0 * per * un};
    case CollectiveOp::alltoall: return {per * un, per * un, per, 4.0 * per * un};
    default: return {elements, elements, elements, 4.0 * elements};
  }
}

// What position p of a group of n must hold after the collective; empty when nothing is received.
std::vector<float> expected(CollectiveOp op, const Shape& s, int p, int n) {
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
    default:  // sendrecv: from the previous stage
      if (p == 0) return {};
      for (size_t k = 0; k < s.recv; ++k) out[k] = value(p - 1, k);
  }
  return out;
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

double validate_bus_factor(CollectiveOp op, int n) {
  const double dn = n;
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (dn - 1) / dn;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::alltoall: return (dn - 1) / dn;
    default: return 1;
  }
}

Result<ValidateRun> validate_run(ValidateBackend& b, const ValidatePlan& plan, const std::vector<ValidateKind>& kinds,
                                 const ValidateOptions& o, const std::function<void(const std::string&)>& stage) {
  const int me = b.world_rank();
  if (b.world_size() != plan.world)
    return Error{plan.source + " places " + std::to_string(plan.world) + " ranks; this run has " + std::to_string(b.world_size()) +
                 " (launch one rank per planned GPU)"};
  // Which ranks share a host must match the plan; the names may differ (a plan for other machines).
  stage("comparing hosts");
  {
    // Host names as numbers every rank can compare (a hash; a collision would only merge hosts).
    std::vector<double> h(static_cast<size_t>(plan.world), -1);
    h[static_cast<size_t>(me)] = static_cast<double>(std::hash<std::string>{}(b.host_name()) % (1ULL << 52));
    b.world_max(h);
    std::vector<std::string> run_hosts;
    for (double x : h) run_hosts.push_back(std::to_string(static_cast<unsigned long long>(x)));
    if (host_partition(run_hosts) != host_partition(plan.host_of_rank))
      return Error{"the ranks do not share hosts as " + plan.source + " places them: the plan has " +
                   std::to_string(host_partition(plan.host_of_rank).size()) + " hosts, this run " +
                   std::to_string(host_partition(run_hosts).size()) +
                   " (launch the ranks in the plan's order, e.g. with its hostfile or rankfile)"};
  }

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
    if (!comm || comm->size() != n || comm->rank() != position)
      return Error{kind.kind + " group " + std::to_string(mine) + ": the communicator has " +
                   std::to_string(comm ? comm->size() : 0) + " ranks, the plan " + std::to_string(n)};
    std::vector<double> members(static_cast<size_t>(n), -1);
    members[static_cast<size_t>(position)] = me;
    b.comm_max(*comm, members);
    for (int p = 0; p < n; ++p)
      if (static_cast<int>(members[static_cast<size_t>(p)]) != kind.groups[static_cast<size_t>(mine)][static_cast<size_t>(p)])
        return Error{kind.kind + " group " + std::to_string(mine) + ": position " + std::to_string(p) + " holds rank " +
                     std::to_string(static_cast<int>(members[static_cast<size_t>(p)])) + ", the plan says " +
                     std::to_string(kind.groups[static_cast<size_t>(mine)][static_cast<size_t>(p)])};

    std::vector<PlannedCollective> runs;
    if (o.sizes.empty()) {
      runs = kind.collectives;
    } else {
      for (const PlannedCollective& c : kind.collectives)
        for (double s : o.sizes)
          if (std::none_of(runs.begin(), runs.end(), [&](const PlannedCollective& x) { return x.op == c.op && x.bytes == s; }))
            runs.push_back({c.op, s});
    }
    // Per group and run: time and wrong count, written by the group's first rank.
    const size_t groups = kind.groups.size();
    std::vector<double> table(groups * runs.size() * 2, -1);
    for (size_t k = 0; k < runs.size(); ++k) {
      const PlannedCollective& c = runs[k];
      const Shape s = shape_of(c.op, c.bytes, n);
      const int to = c.op == CollectiveOp::sendrecv && position + 1 < n ? position + 1 : -1;
      const int from = c.op == CollectiveOp::sendrecv && position > 0 ? position - 1 : -1;
      stage(kind.kind + " group " + std::to_string(mine) + ": " + std::string(to_string(c.op)) + " of " + format_bytes(s.bytes));
      std::unique_ptr<ValidateBuffer> send = b.buffer(s.send), recv = b.buffer(s.recv);
      std::vector<float> fill(s.send);
      for (size_t e = 0; e < s.send; ++e) fill[e] = value(position, e);
      send->upload(fill);
      b.world_barrier();
      for (int i = 0; i < o.warmup; ++i) b.run(*comm, c.op, *send, *recv, s.count, to, from);
      b.sync();
      b.world_barrier();
      const double t0 = b.now_s();
      for (int i = 0; i < o.iters; ++i) b.run(*comm, c.op, *send, *recv, s.count, to, from);
      b.sync();
      const double t1 = b.now_s();
      // Checked after a clean run: the timed ones may reuse the same buffers.
      recv->upload(std::vector<float>(s.recv, -1));
      b.run(*comm, c.op, *send, *recv, s.count, to, from);
      b.sync();
      const std::vector<float> want = expected(c.op, s, position, n);
      long wrong = 0;
      if (!want.empty()) {
        const std::vector<float> got = recv->download();
        for (size_t e = 0; e < want.size(); ++e) wrong += got[e] != want[e];
      }
      std::vector<double> mine_values = {(t1 - t0) / std::max(1, o.iters) * 1e6, static_cast<double>(wrong)};
      b.comm_max(*comm, mine_values);
      if (position == 0) {
        table[(static_cast<size_t>(mine) * runs.size() + k) * 2] = mine_values[0];
        table[(static_cast<size_t>(mine) * runs.size() + k) * 2 + 1] = mine_values[1];
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
        r.time_us = table[(g * runs.size() + k) * 2];
        r.wrong = static_cast<long>(table[(g * runs.size() + k) * 2 + 1]);
        r.algbw_GBps = r.time_us > 0 ? r.bytes / (r.time_us * 1e3) : 0;
        r.busbw_GBps = r.algbw_GBps * validate_bus_factor(r.op, n);
        gr.results.push_back(r);
      }
      run.groups.push_back(std::move(gr));
    }
  }
  stage("done");
  return run;
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
                         {"wrong", r.wrong}});
    groups.push_back({{"kind", g.kind}, {"index", g.index}, {"ranks", g.ranks}, {"results", std::move(results)}});
  }
  return {{"format", "topoplan-validate"}, {"backend", run.backend}, {"plan", run.plan}, {"job", run.job},
          {"world", run.world},             {"wrong", run.wrong()},   {"groups", std::move(groups)}};
}

std::string validate_table(const ValidateRun& run) {
  std::string out = "# topoplan-validate: " + run.backend + " backend, " + std::to_string(run.world) + " ranks, plan " +
                    run.plan + (run.job.empty() ? "" : " (" + run.job + ")") + "\n";
  char line[256];
  for (const ValidateGroupResult& g : run.groups) {
    std::string ranks;
    for (int r : g.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    out += "#\n# " + g.kind + " group " + std::to_string(g.index) + ": ranks " + ranks + "\n";
    std::snprintf(line, sizeof line, "# %10s  %12s  %6s  %14s  %10s  %8s  %8s  %6s\n", "size", "count", "type", "redop/op",
                  "time", "algbw", "busbw", "#wrong");
    out += line;
    std::snprintf(line, sizeof line, "# %10s  %12s  %6s  %14s  %10s  %8s  %8s  %6s\n", "(B)", "(elements)", "", "", "(us)",
                  "(GB/s)", "(GB/s)", "");
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
