#include "topology/transfer_alone_json.h"

namespace topoplan {

nlohmann::json transfer_alone_to_json(const TransferAlone& a) {
  nlohmann::json j = {{"bytes", a.bytes}, {"efficiency", a.efficiency}, {"length_km", a.length_km}};
  if (a.estimate) {
    j["rate_gbit_s"] = a.estimate->rate_GBps * 8;
    j["seconds"] = a.estimate->seconds;
    j["propagation_s"] = a.estimate->propagation_s;
  }
  if (a.every_s)
    j["every"] = {{"period_s", *a.every_s},
                  {"share_of_capacity", a.every_share},
                  {"finishes_before_next", a.estimate->seconds <= *a.every_s}};
  if (a.deadline_s > 0) {
    j["deadline_s"] = a.deadline_s;
    j["required_gbit_s"] = a.required_gbit_s;
  }
  return j;
}

}  // namespace topoplan
