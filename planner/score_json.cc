#include "planner/score_json.h"

#include "topology/locality.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

constexpr size_t kHottestLinks = 10;

nlohmann::json link_json(const Cluster& c, const LinkUse& u) {
  nlohmann::json phases;
  for (size_t p = 0; p < kPhases; ++p)
    phases[std::string(phase_window_name(static_cast<Phase>(p)))] = u.phase_utilization[p];
  nlohmann::json j = edge_json(c, u.edge);
  j.update({{"tier", link_tier(c, u.edge)},
            {"bytes", u.bytes},
            {"busy_s", u.busy_us / 1e6},
            {"utilization", u.utilization},
            {"peak_utilization", u.peak},
            {"peak_phase", std::string(phase_window_name(u.peak_phase))},
            {"phase_utilization", std::move(phases)}});
  return j;
}

std::string local_name(const Device& d) {
  const size_t slash = d.name.rfind('/');
  return slash == std::string::npos ? d.name : d.name.substr(slash + 1);
}

}  // namespace

nlohmann::json edge_json(const Cluster& c, EdgeId e) {
  return {{"link", c.edge_name(e)}, {"kind", std::string(to_string(c.link(e).kind))}, {"bw_GBps", c.link(e).bw_GBps}};
}

nlohmann::json finding_json(const Cluster& c, const Finding& f) {
  const nlohmann::json link = f.has_link ? edge_json(c, f.link) : nlohmann::json(nullptr);
  return {{"severity", f.severity},
          {"kind", f.kind},
          {"group", f.group.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.group)},
          {"index", f.index >= 0 ? nlohmann::json(f.index) : nlohmann::json(nullptr)},
          {"groups", f.groups},
          {"ranks", f.ranks},
          {"hosts", host_names(c, f.hosts)},
          {"slowest_link", link},
          {"cost_per_step_s", f.cost_per_step_s},
          {"message", f.message},
          {"fix", f.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.fix)}};
}

nlohmann::json rank_map_json(const Cluster& c, const Router& r, const std::vector<VertexId>& gpu_of_rank) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t rank = 0; rank < gpu_of_rank.size(); ++rank) {
    const Device& d = c.device(gpu_of_rank[rank]);
    const VertexId nic = r.nic_for(gpu_of_rank[rank]);
    ranks.push_back({{"rank", rank},
                     {"host", c.hosts()[static_cast<size_t>(d.host)].name},
                     {"gpu", d.local_index},
                     {"nic", nic == kNoVertex ? nlohmann::json(nullptr) : nlohmann::json(local_name(c.device(nic)))}});
  }
  return ranks;
}

nlohmann::json score_to_json(const Cluster& c, const Router& r, const std::string& cluster, const JobScore& s) {
  const ComputeEstimate& ce = s.traffic.compute;
  nlohmann::json j = {{"job", s.job},
                      {"cluster", cluster},
                      {"layout", s.layout},
                      {"fabric", std::string(to_string(s.fabric))},
                      {"routing", routing_json(c.routing)},
                      {"background", s.background.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.background)},
                      {"ranks", s.ranks},
                      {"exposed_comm_s", s.exposed_comm_s},
                      {"comm_s", s.comm_s},
                      {"compute_s", s.compute_s},
                      {"step_s", s.step_s},
                      {"model_tflops_per_gpu", s.model_tflops_per_gpu},
                      {"mfu", s.mfu},
                      {"hardware_tflops_per_gpu", s.hardware_tflops_per_gpu},
                      {"hfu", s.hfu},
                      {"compute",
                       {{"gpu", ce.gpu.model},
                        {"peak_tflops", ce.gpu.peak_tflops},
                        {"matmul_tflops", ce.gpu.matmul_tflops},
                        {"attention_tflops", ce.gpu.attention_tflops},
                        {"hbm_GBps", ce.gpu.hbm_GBps},
                        {"source", ce.gpu.source},
                        {"efficiency", ce.efficiency},
                        {"efficiency_source", ce.efficiency_source},
                        // The slowest stage's forward and backward of one micro-batch, by kernel class.
                        {"slowest_stage_micro_batch_us",
                         {{"matrix_products", ce.slowest().gemm_us},
                          {"attention", ce.slowest().attention_us},
                          {"elementwise", ce.slowest().elementwise_us}}},
                        {"optimizer_s", ce.slowest().optimizer_us / 1e6},
                        {"micro_batches", ce.micro_batches},
                        {"bubble_fraction", ce.bubble_fraction},
                        {"bubble_idle_fraction", ce.bubble_idle_fraction},
                        {"recompute_s", ce.recompute_step_us() / 1e6},
                        {"model_flops", ce.model_flops},
                        {"slowest_stage", ce.slowest_stage}}}};
  nlohmann::json stages = nlohmann::json::array();
  for (const StageMemory& m : s.memory.stages)
    stages.push_back({{"weights_bytes", m.weights_bytes},
                      {"gradients_bytes", m.gradients_bytes},
                      {"optimizer_bytes", m.optimizer_bytes},
                      {"activations_bytes", m.activations_bytes},
                      {"in_flight_micro_batches", m.in_flight},
                      {"total_bytes", m.total_bytes()}});
  if (!s.memory.stages.empty())
    j["memory"] = {{"capacity_bytes", s.memory.capacity_bytes},
                   {"peak_stage", s.memory.peak_stage},
                   {"fits", s.memory.fits()},
                   {"stages", stages}};
  for (int k = 0; k < kTrafficKinds; ++k) {
    const KindScore& ks = s.by_kind[static_cast<size_t>(k)];
    j["by_kind"][std::string(to_string(static_cast<TrafficKind>(k)))] = {
        {"time_s", ks.time_s}, {"alone_s", ks.alone_s}, {"exposed_s", ks.exposed_s}};
  }
  j["items"] = nlohmann::json::array();
  for (const ItemScore& i : s.items) {
    const TrafficItem& t = i.item;
    nlohmann::json item = {{"kind", std::string(to_string(t.kind))},
                           {"phase", std::string(to_string(t.phase))},
                           {"op", std::string(to_string(t.op))},
                           {"what", t.what},
                           {"group", t.group},
                           {"groups", i.groups},
                           {"groups_running", i.groups_running},
                           {"bytes", t.bytes},
                           {"calls", t.calls},
                           {"algorithm", i.algorithm},
                           {"protocol", std::string(to_string(i.proto))},
                           {"alone_us", i.alone_us},
                           {"contended_us", i.contended_us},
                           {"time_s", i.time_us / 1e6},
                           {"exposed_s", i.exposed_us / 1e6}};
    item["overlaps"] = t.window >= 0 ? nlohmann::json(s.traffic.windows[static_cast<size_t>(t.window)].what) : nullptr;
    // The pipeline stages whose groups issue it; absent when every stage's groups do.
    if (t.stage_class >= 0) item["stages"] = s.traffic.stage_classes[static_cast<size_t>(t.stage_class)].stages;
    if (i.has_hot_edge) item["hot_link"] = {{"link", c.edge_name(i.hot_edge)}, {"groups", i.hot_edge_groups}};
    j["items"].push_back(std::move(item));
  }
  j["links"] = nlohmann::json::array();
  for (size_t i = 0; i < s.links.size() && i < kHottestLinks; ++i) j["links"].push_back(link_json(c, s.links[i]));
  j["findings"] = nlohmann::json::array();
  for (const Finding& f : s.findings) j["findings"].push_back(finding_json(c, f));
  j["placement"] = rank_map_json(c, r, s.gpu_of_rank);
  return j;
}

}  // namespace topoplan
