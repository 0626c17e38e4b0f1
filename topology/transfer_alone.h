// A transfer alone, as `topoplan transfer` reports it without --job: its time at a line rate
// given or read from a cluster's DCI links, the rate a deadline needs, and a recurring
// transfer's share of the link (topology/transfer.h does the arithmetic).
#pragma once

#include <optional>
#include <string>

#include "base/error.h"
#include "topology/transfer.h"

namespace topoplan {

// The command's options, the rate and the deadline as typed so their errors name them. Exactly
// one of `rate` and `cluster` gives the rate; neither leaves only the rate a deadline needs.
struct TransferAloneRequest {
  double bytes = 0;
  double efficiency = 1;          // useful fraction of the line rate
  double length_km = 0;           // fibre length with `rate`; the DCI links' own with `cluster`
  std::string rate;               // "400Gbps"
  std::string cluster, from, to;  // the DCI links from one site to another
  std::string deadline;           // "1h"
  std::optional<double> every_s;  // a recurring transfer's period
};

struct TransferAlone {
  double bytes = 0;
  double efficiency = 1;
  double length_km = 0;
  std::string via;                           // "4 DCI links a -> b" where a cluster gave the rate
  std::optional<TransferEstimate> estimate;  // with a rate
  std::optional<double> every_s;
  double every_share = 0;  // with every_s: transfer_share_of_capacity
  double deadline_s = 0;   // 0: no deadline
  double required_gbit_s = 0;
};

// Errors name the option: the rate, the sites, a time beyond limits::kMaxSeconds, a deadline
// shorter than the propagation delay.
Result<TransferAlone> transfer_alone(const TransferAloneRequest& request);

}  // namespace topoplan
