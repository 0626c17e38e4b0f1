#include "planner/stage_params.h"

namespace topoplan {
namespace {

double attention_params(const ModelShape& m) {
  return static_cast<double>(m.hidden) * (2.0 * m.heads * m.head_dim + 2.0 * m.kv_heads * m.head_dim);
}

double mlp_params(const Job& job, double ffn) { return (job.model.swiglu ? 3.0 : 2.0) * job.model.hidden * ffn; }

}  // namespace

StageParams stage_params(const Job& job, const StageLayers& stage, bool first, bool last) {
  const ModelShape& m = job.model;
  const Parallelism& p = job.parallel;
  const int dense_layers = stage.count - stage.moe;
  double dense = dense_layers * (attention_params(m) + mlp_params(job, m.ffn_hidden));
  dense +=
      stage.moe * (attention_params(m) + mlp_params(job, static_cast<double>(m.moe.ffn_hidden) * m.moe.shared_experts));
  if (first) dense += static_cast<double>(m.vocab) * m.hidden;  // embedding
  if (last) dense += static_cast<double>(m.vocab) * m.hidden;   // output layer (untied)
  StageParams out;
  out.dense = dense / p.tp;
  // Router weights are replicated, like the layer norms: small, reduced with the dense ones.
  out.dense += stage.moe * static_cast<double>(m.hidden) * m.moe.experts;
  if (stage.moe > 0)
    out.expert =
        stage.moe * (static_cast<double>(m.moe.experts) / p.ep) * mlp_params(job, m.moe.ffn_hidden) / p.expert_tp;
  return out;
}

}  // namespace topoplan
