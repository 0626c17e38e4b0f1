// A transfer alone as JSON: what `topoplan transfer --json` prints without --job.
#pragma once

#include <nlohmann/json.hpp>

#include "topology/transfer_alone.h"

namespace topoplan {

// The time only with a rate, the rate needed only with a deadline.
nlohmann::json transfer_alone_to_json(const TransferAlone& transfer);

}  // namespace topoplan
