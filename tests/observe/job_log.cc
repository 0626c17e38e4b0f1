#include "tests/observe/job_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "planner/rank_groups.h"

namespace topoplan::test {
namespace {

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
  return b;
}

struct Comm {
  std::string token;
  std::vector<int> ranks;
};

}  // namespace

std::string job_log(const Cluster& c, const Job& job, const Layout& layout, const StepTraffic& traffic,
                    const JobLogOptions& opt) {
  Result<RankGroups> rg = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  const int world = layout.world_size();
  std::vector<Comm> comms;
  std::vector<std::string> tokens;
  for (const TrafficItem& it : traffic.items)
    if (std::find(tokens.begin(), tokens.end(), it.group) == tokens.end()) tokens.push_back(it.group);
  for (const std::string& t : tokens) {
    const Result<GroupList> list = rg->groups(t);  // kept: a range-for over *temporary would dangle
    for (const std::vector<int>& g : *list)
      if (g.size() > 1) comms.push_back({t, g});
  }
  if (opt.world_allreduce) {
    Comm w{"world", {}};
    for (int r = 0; r < world; ++r) w.ranks.push_back(r);
    comms.push_back(w);
  }
  Result<GroupList> pipelines = rg->groups("pp");
  std::vector<int> stage_of(static_cast<size_t>(world), 0);
  for (const std::vector<int>& p : *pipelines)
    for (size_t k = 0; k < p.size(); ++k) stage_of[static_cast<size_t>(p[k])] = static_cast<int>(k);

  std::vector<std::vector<std::string>> lines(static_cast<size_t>(world));
  std::vector<std::vector<uint64_t>> op_count(static_cast<size_t>(world), std::vector<uint64_t>(comms.size(), 0));
  auto prefix = [&](int r) {
    const Device& gpu = c.device(layout.gpu_of_rank[static_cast<size_t>(r)]);
    return c.hosts()[static_cast<size_t>(gpu.host)].name + ":" + std::to_string(1000 + r) + ":" +
           std::to_string(1000 + r) + " [" + std::to_string(gpu.local_index) + "] NCCL INFO ";
  };
  auto ptr = [](int r, size_t k) { return "0x" + hex((static_cast<uint64_t>(r) + 1) << 24 | (k + 1) << 4); };
  auto call = [&](int r, size_t k, const std::string& op, uint64_t count, int datatype, int root) {
    const size_t n = comms[k].ranks.size();
    lines[static_cast<size_t>(r)].push_back(prefix(r) + op + ": opCount " + hex(op_count[static_cast<size_t>(r)][k]++) +
                                            " sendbuff 0x7f3a00000000 recvbuff 0x7f3a00000000 count " +
                                            std::to_string(count) + " datatype " + std::to_string(datatype) +
                                            " op 0 root " + std::to_string(root) + " comm " + ptr(r, k) +
                                            " [nranks=" + std::to_string(n) + "] stream 0x55d0c0de0000");
  };
  for (int r = 0; r < world; ++r) lines[static_cast<size_t>(r)].push_back(prefix(r) + "NCCL version 2.21.5+cuda12.4");
  for (size_t k = 0; k < comms.size(); ++k)
    for (size_t pos = 0; pos < comms[k].ranks.size(); ++pos) {
      const int r = comms[k].ranks[pos];
      const int dev = c.device(layout.gpu_of_rank[static_cast<size_t>(r)]).local_index;
      lines[static_cast<size_t>(r)].push_back(prefix(r) + "comm " + ptr(r, k) + " rank " + std::to_string(pos) +
                                              " nranks " + std::to_string(comms[k].ranks.size()) + " cudaDev " +
                                              std::to_string(dev) + " nvmlDev " + std::to_string(dev) + " busId " +
                                              hex((dev + 1) * 0x1000) + " commId 0x" + hex(0xc0ffee00 + k) +
                                              " - Init COMPLETE");
    }
  if (opt.setup_broadcast)
    for (size_t k = 0; k < comms.size(); ++k)
      if (comms[k].token == "dp-cp")
        for (int r : comms[k].ranks) call(r, k, "Broadcast", 1000000, 9, 0);
  for (int step = 0; step < opt.steps; ++step) {
    for (const TrafficItem& it : traffic.items) {
      const long calls = std::lround(it.calls);
      const double bytes = it.bytes * (it.kind == TrafficKind::dp ? opt.dp_bytes_scale : 1);
      for (size_t k = 0; k < comms.size(); ++k) {
        const Comm& cm = comms[k];
        if (cm.token != it.group) continue;
        if (it.stage_class >= 0) {
          const std::vector<int>& stages = traffic.stage_classes[static_cast<size_t>(it.stage_class)].stages;
          if (std::find(stages.begin(), stages.end(), stage_of[static_cast<size_t>(cm.ranks[0])]) == stages.end())
            continue;
        }
        const uint64_t n = cm.ranks.size();
        for (long q = 0; q < calls; ++q)
          for (size_t pos = 0; pos < n; ++pos) {
            const int r = cm.ranks[pos];
            switch (it.op) {
              case CollectiveOp::all_gather:
                call(r, k, "AllGather", static_cast<uint64_t>(bytes / 2 / n), 9, 0);
                break;
              case CollectiveOp::reduce_scatter:
                call(r, k, "ReduceScatter", static_cast<uint64_t>(bytes / 2 / n), 9, 0);
                break;
              case CollectiveOp::alltoall:
                for (size_t p = 0; p < n; ++p)
                  if (p != pos) {
                    call(r, k, "Send", static_cast<uint64_t>(bytes / 2 / n), 9, static_cast<int>(p));
                    call(r, k, "Recv", static_cast<uint64_t>(bytes / 2 / n), 9, static_cast<int>(p));
                  }
                break;
              case CollectiveOp::sendrecv:
                // A slot sends once each way between neighbouring stages.
                for (int p : {static_cast<int>(pos) - 1, static_cast<int>(pos) + 1})
                  if (p >= 0 && p < static_cast<int>(n)) {
                    call(r, k, "Send", static_cast<uint64_t>(bytes / 2), 9, p);
                    call(r, k, "Recv", static_cast<uint64_t>(bytes / 2), 9, p);
                  }
                break;
              default:
                call(r, k, "AllReduce", static_cast<uint64_t>(bytes / 2), 9, 0);
                break;
            }
          }
      }
    }
    if (opt.world_allreduce)
      for (int q = 0; q < 2; ++q)
        for (int r = 0; r < world; ++r) call(r, comms.size() - 1, "AllReduce", 1, 7, 0);
  }
  // Interleaved as a launcher merges its ranks' output: a line of each rank in turn.
  std::string out;
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (const std::vector<std::string>& l : lines)
      if (i < l.size()) {
        out += l[i] + "\n";
        any = true;
      }
    if (!any) break;
  }
  return out;
}

}  // namespace topoplan::test
