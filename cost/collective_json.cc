#include "cost/collective_json.h"

#include "topology/summary.h"

namespace topoplan {

nlohmann::json collective_prediction_to_json(const CollectivePrediction& p) {
  nlohmann::json j = {{"op", std::string(to_string(p.op))},
                      {"bytes", p.bytes},
                      {"ranks", p.ranks},
                      {"nodes", p.nodes},
                      {"algorithm", p.algorithm},
                      {"protocol", std::string(to_string(p.proto))},
                      {"channels", p.channels},
                      {"nvls_heads", p.nvls_heads},
                      {"tuner_pick", p.tuner_pick},
                      {"time_us", p.time_us},
                      {"latency_us", p.latency_us},
                      {"transfer_us", p.transfer_us},
                      {"algbw_GBps", p.algbw_GBps},
                      {"busbw_GBps", p.busbw_GBps},
                      {"channel_bound", p.channel_bound}};
  auto bottleneck = [](const CollectivePrediction::Bottleneck& b) {
    return nlohmann::json{
        {"link", b.link}, {"class", std::string(to_string(b.kind))}, {"bytes", b.bytes}, {"bw_GBps", b.bw_GBps}};
  };
  j["routing"] = routing_json(p.routing);
  j["bottleneck"] = bottleneck(p.bottleneck);
  if (p.even_bottleneck) j["even_split_bottleneck"] = bottleneck(*p.even_bottleneck);
  nlohmann::json cands = nlohmann::json::array();
  for (const CollectiveCandidate& c : p.candidates)
    cands.push_back({{"algorithm", c.algorithm},
                     {"protocol", std::string(to_string(c.proto))},
                     {"time_us", c.time_us},
                     {"latency_us", c.latency_us},
                     {"transfer_us", c.transfer_us},
                     {"terms",
                      {{"nccl_latency_us", c.nccl_latency_us},
                       {"overhead_us", c.overhead_us},
                       {"dci_us", c.dci_us},
                       {"link_us", c.link_us},
                       {"cap_us", c.cap_us},
                       {"cap_GBps", c.cap_GBps},
                       {"window_us", c.window_us},
                       {"fill_us", c.fill_us},
                       {"nccl_time_us", c.nccl_time_us},
                       {"link_bytes", c.link_bytes},
                       {"link_GBps", c.link_GBps},
                       {"even_link_us", c.even_link_us}}}});
  j["candidates"] = cands;
  return j;
}

}  // namespace topoplan
