#include "observe/traffic_beside_job.h"

#include "planner/compute.h"

namespace topoplan {

Result<TrafficBesideJob> traffic_beside_job(const ObservedTraffic& observed, const std::string& job_path,
                                            double tolerance) {
  Result<Job> job = job_load(job_path);
  if (!job) return Error{job.error()};
  // Bytes and calls per step do not depend on the GPU, only the overlap windows do, which the
  // comparison leaves out.
  Result<ComputeEstimate> compute = compute_estimate(*job, "H100");
  if (!compute) return Error{job_path + ": " + compute.error()};
  Result<StepTraffic> model = step_traffic(*job, *compute);
  if (!model) return Error{job_path + ": " + model.error()};
  Result<std::vector<TrafficRow>> rows = traffic_beside_model(observed, *job, *model, tolerance);
  if (!rows) return Error{job_path + ": " + rows.error()};
  return TrafficBesideJob{job->name, std::move(*rows)};
}

}  // namespace topoplan
