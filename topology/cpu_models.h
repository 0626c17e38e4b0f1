// What a CPU model string says about the socket link between two of a host's NUMA nodes: NCCL's
// topology code gives that SYS link a bandwidth by CPU architecture, vendor and (Intel) generation,
// and this table gives each model NCCL would see its figure.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace topoplan {

struct CpuModel {
  const char* name;        // what a node type's cpu_model holds: "Xeon-8480C"
  const char* family;      // "Intel Sapphire Rapids"
  const char* nccl_class;  // the NCCL constant behind socket_GBps: "SRP_QPI_BW"
  double socket_GBps;      // per direction between two NUMA nodes, as NCCL charges it
};

// Every model known, in a stable order.
const std::vector<CpuModel>& cpu_models();
// The model of that name; the error says "unknown CPU model 'X'", a close name and the known ones.
Result<const CpuModel*> cpu_model_named(const std::string& name);
// "NCCL v2.30.7-1 SRP_QPI_BW for Intel Sapphire Rapids": where a model's socket figure comes from.
std::string cpu_model_source(const CpuModel& model);

}  // namespace topoplan
