#include "planner/job_inputs.h"

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "planner/plan_json.h"
#include "topology/load.h"

namespace topoplan {

Result<void> model_inputs_load(const ModelSources& f, const Cluster& c, ModelInputs& in) {
  Result<Calibration> cl = calibration_load_or_default(f.calibration);
  RETURN_IF_ERROR(cl);
  in.calibration = std::move(*cl);
  in.options.calibration = &in.calibration;
  in.options.fabric = f.fabric == "idle" ? FabricMode::idle : FabricMode::shared;
  if (!f.background.empty()) {
    Result<Background> bg = background_load(f.background, c);
    RETURN_IF_ERROR(bg);
    in.background = std::move(*bg);
    in.options.background = &in.background;
  }
  return {};
}

namespace {

Result<std::unique_ptr<JobInputs>> make(Cluster cluster, Job job, const std::string& job_path,
                                        const std::string& layout_path, const ModelSources& model) {
  auto in = std::make_unique<JobInputs>();
  in->job = std::move(job);
  in->cluster = std::move(cluster);
  const Cluster& cl = in->cluster;
  RETURN_IF_ERROR(model_inputs_load(model, cl, in->model));
  const int ranks = job_ranks(in->job);
  if (Result<void> fits = job_fits(in->job, static_cast<int>(cl.gpus().size())); !fits)
    return Error{job_path + ": " + fits.error()};
  Result<Layout> layout = layout_path.empty() ? layout_default(cl, ranks) : layout_load(layout_path, cl, ranks);
  RETURN_IF_ERROR(layout);
  in->layout = std::move(*layout);
  // A plan file brings the order string it placed ranks under and what it found down.
  if (!in->layout.order.empty()) in->job.parallel.order = in->layout.order;
  if (!in->layout.down.empty()) {
    Result<DownSet> d = down_parse(cl, in->layout.down);
    if (!d) return Error{layout_path + ": exclude: " + d.error()};
    in->down = std::move(*d);
    for (int r = 0; r < in->layout.world_size(); ++r)
      if (in->down.device_down(in->layout.gpu_of_rank[static_cast<size_t>(r)]))
        return Error{layout_path + ": rank " + std::to_string(r) + " runs on " +
                     cl.device(in->layout.gpu_of_rank[static_cast<size_t>(r)]).name + ", which the file excludes"};
  }
  in->router = std::make_unique<Router>(cl, in->down);
  return in;
}

}  // namespace

Result<WorldHint> world_from_layout_or_cluster(const Cluster& cluster, const std::string& cluster_arg,
                                               const std::string& layout_path) {
  if (layout_path.empty())
    return WorldHint{static_cast<int>(cluster.gpus().size()),
                     "the " + std::to_string(cluster.gpus().size()) + " GPUs of cluster " + cluster_arg};
  Result<Layout> layout = layout_load(layout_path, cluster, 0);
  RETURN_IF_ERROR(layout);
  return WorldHint{layout->world_size(),
                   "the " + std::to_string(layout->world_size()) + " ranks of --layout " + layout_path};
}

Result<std::unique_ptr<JobInputs>> job_inputs_load(const std::string& cluster_arg, const std::string& job_path,
                                                   const std::string& layout_path, const ModelSources& model) {
  Result<Cluster> c = cluster_load(cluster_arg);
  RETURN_IF_ERROR(c);
  Result<Job> job = job_load(job_path, [&] { return world_from_layout_or_cluster(*c, cluster_arg, layout_path); });
  RETURN_IF_ERROR(job);
  Result<std::unique_ptr<JobInputs>> in = make(std::move(*c), std::move(*job), job_path, layout_path, model);
  if (in) (*in)->cluster_spec = cluster_arg;
  return in;
}

Result<std::unique_ptr<JobInputs>> job_inputs_make(const std::string& cluster_arg, Job job, const std::string& job_path,
                                                   const std::string& layout_path, const ModelSources& model) {
  Result<Cluster> c = cluster_load(cluster_arg);
  RETURN_IF_ERROR(c);
  Result<std::unique_ptr<JobInputs>> in = make(std::move(*c), std::move(job), job_path, layout_path, model);
  if (in) (*in)->cluster_spec = cluster_arg;
  return in;
}

Result<std::unique_ptr<JobInputs>> job_inputs_from_plan(const std::string& plan_path, const std::string& cluster_arg,
                                                        const ModelSources& model) {
  Result<std::string> text = text_read_file(plan_path);
  RETURN_IF_ERROR(text);
  Result<nlohmann::json> plan = plan_document_parse(*text, plan_path);
  RETURN_IF_ERROR(plan);
  std::string cluster = cluster_arg;
  if (cluster.empty()) {
    if (!plan->contains("cluster") || !(*plan)["cluster"].is_string())
      return Error{plan_path + ": cluster: expected the cluster the plan was made for (or give --cluster)"};
    cluster = (*plan)["cluster"].get<std::string>();
  }
  if (!plan->contains("job") || !(*plan)["job"].is_object())
    return Error{plan_path + ": job: expected the planned job"};
  Result<Job> job = job_from_json((*plan)["job"], plan_path + ": job");
  RETURN_IF_ERROR(job);
  return job_inputs_make(cluster, std::move(*job), plan_path + ": job", plan_path, model);
}

}  // namespace topoplan
