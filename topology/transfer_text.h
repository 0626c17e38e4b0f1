// A transfer as `topoplan transfer` words it: the efficiency its rates are discounted by (beside a
// job too), and a transfer alone.
#pragma once

#include <string>

#include "topology/transfer_alone.h"

namespace topoplan {

// " x 0.9 efficiency" after a rate, or nothing at full efficiency.
std::string transfer_efficiency_text(double efficiency);

std::string transfer_alone_text(const TransferAlone& transfer);

}  // namespace topoplan
