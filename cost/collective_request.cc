#include "cost/collective_request.h"

#include "base/index_list.h"

namespace topoplan {

Result<CollectiveRequest> collective_request_parse(const std::string& op, const std::string& algo,
                                                   const std::string& proto) {
  Result<CollectiveOp> parsed = parse_collective_op(op);
  if (!parsed) return Error{"--op: " + parsed.error()};
  CollectiveRequest req;
  req.op = *parsed;
  if (algo != "auto") {
    // The model expands no CollNet (SHARP) algorithm, so forcing one is refused like a typo.
    std::optional<NcclAlgo> a = nccl_algo_from(algo);
    if (!a || *a == NcclAlgo::collnet_direct || *a == NcclAlgo::collnet_chain)
      return Error{"--algo: expected auto, ring, tree, nvls, nvlstree or pat, got '" + algo + "'"};
    req.algo = a;
  }
  if (proto != "auto") {
    std::optional<NcclProto> p = nccl_proto_from(proto);
    if (!p) return Error{"--proto: expected auto, ll, ll128 or simple, got '" + proto + "'"};
    req.proto = p;
  }
  return req;
}

Result<std::vector<VertexId>> collective_gpus_pick(const Cluster& c, const std::string& indices, int per_host) {
  const std::vector<VertexId>& all = c.gpus();
  std::vector<int> picked;
  if (!indices.empty()) {
    Result<std::vector<int>> list = parse_index_list(indices, static_cast<int>(all.size()));
    if (!list) return Error{"--gpus: " + list.error()};
    picked = *list;
  } else {
    for (int i = 0; i < static_cast<int>(all.size()); ++i) picked.push_back(i);
  }
  std::vector<int> per_host_count(c.hosts().size(), 0);
  std::vector<VertexId> gpus;
  for (int i : picked) {
    VertexId v = all[static_cast<size_t>(i)];
    if (per_host > 0 && per_host_count[static_cast<size_t>(c.device(v).host)]++ >= per_host) continue;
    gpus.push_back(v);
  }
  if (gpus.size() < 2) return Error{"--gpus: a collective needs at least 2 GPUs, got " + std::to_string(gpus.size())};
  return gpus;
}

}  // namespace topoplan
