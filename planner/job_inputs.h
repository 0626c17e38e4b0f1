// What score, review, explain and observe read: the job, the cluster, the layout (a plan file
// brings its order string and what it found down), the router around what is down, and what the
// links deliver and what else loads the fabric (ModelSources).
#pragma once

#include <memory>
#include <string>

#include "planner/score.h"

namespace topoplan {

// The files and the mode the model reads beside the job, as given (paths empty: none).
struct ModelSources {
  std::string calibration;        // overlay of effective link bandwidths (JSON)
  std::string fabric = "shared";  // "shared": other jobs fill the fabric; "idle": the job is alone
  std::string background;         // utilization of links by other traffic (JSON, docs/model.md)
};

// The loaded inputs, kept alive for ScoreOptions, which points into them.
struct ModelInputs {
  Calibration calibration = calibration_default();
  Background background;
  ScoreOptions options;
};
// Loads the calibration and background files; errors name the file.
Result<void> model_inputs_load(const ModelSources& sources, const Cluster& cluster, ModelInputs& into);

struct JobInputs {
  Job job;
  Cluster cluster;
  std::string cluster_spec;  // as given, or as the plan file names it
  DownSet down;
  std::unique_ptr<Router> router;
  Layout layout;
  ModelInputs model;
};

// `layout` empty: the default layout (docs/layout-formats.md). Errors name the file and what was
// expected. A job given as Megatron-LM arguments without a world size takes the layout's ranks,
// else the cluster's GPUs.
Result<std::unique_ptr<JobInputs>> job_inputs_load(const std::string& cluster, const std::string& job,
                                                   const std::string& layout, const ModelSources& model);
// The world size of a Megatron-LM argument list that does not give it: the ranks of the layout
// file when there is one, else every GPU of the cluster (docs/job-format.md).
Result<WorldHint> world_from_layout_or_cluster(const Cluster& cluster, const std::string& cluster_arg,
                                               const std::string& layout_path);
// The same for a job already read (a plan file's); `job_where` names it in errors.
Result<std::unique_ptr<JobInputs>> job_inputs_make(const std::string& cluster, Job job, const std::string& job_where,
                                                   const std::string& layout, const ModelSources& model);

// A plan file's job and layout on the cluster it names (`cluster` empty) or on `cluster`.
Result<std::unique_ptr<JobInputs>> job_inputs_from_plan(const std::string& plan, const std::string& cluster,
                                                        const ModelSources& model);

}  // namespace topoplan
