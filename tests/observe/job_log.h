// NCCL logs for tests: what a job's ranks would print with NCCL_DEBUG=INFO
// NCCL_DEBUG_SUBSYS=INIT,COLL (NCCL 2.21's formats, docs/nccl-log.md) if they issued the model's
// traffic for some steps, on a layout. Lines of all ranks interleave, as a launcher's merged
// output does.
#pragma once

#include <string>

#include "planner/job.h"
#include "planner/layout.h"
#include "planner/traffic.h"

namespace topoplan::test {

struct JobLogOptions {
  int steps = 3;
  double dp_bytes_scale = 1;    // the data-parallel calls' sizes, scaled (a bucket size unlike the model's)
  bool world_allreduce = true;  // a world communicator reducing the loss twice per step (the model has none)
  bool setup_broadcast = true;  // parameters broadcast over the data-parallel groups before the first step
};

std::string job_log(const Cluster& cluster, const Job& job, const Layout& layout, const StepTraffic& traffic,
                    const JobLogOptions& options = {});

}  // namespace topoplan::test
