#include "planner/running_jobs.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "base/hostlist.h"
#include "base/json_fields.h"
#include "planner/job_inputs.h"
#include "planner/plan_json.h"
#include "planner/slurm_jobs.h"

namespace topoplan {
namespace {

namespace fs = std::filesystem;

// A plan file's job and placement; the job keeps the order string its ranks were placed under.
Result<RunningJob> from_plan(const std::string& path, const Cluster& c) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  Result<nlohmann::json> doc = plan_document_parse(*text, path);
  RETURN_IF_ERROR(doc);
  if (!doc->contains("job") || !(*doc)["job"].is_object()) return Error{path + ": job: expected the planned job"};
  Result<Job> job = job_from_json((*doc)["job"], path + ": job");
  RETURN_IF_ERROR(job);
  Result<Layout> layout = plan_layout_read(*doc, path, c, job_ranks(*job));
  RETURN_IF_ERROR(layout);
  RunningJob out{job->name, path, std::move(*job), std::move(*layout)};
  if (!out.layout.order.empty()) out.job.parallel.order = out.layout.order;
  return out;
}

// A job file (or Megatron-LM arguments) and a layout file.
Result<RunningJob> from_job(const std::string& job_path, const std::string& layout_path, const Cluster& c) {
  Result<Job> job = job_load(job_path, [&] { return world_from_layout_or_cluster(c, "the cluster", layout_path); });
  RETURN_IF_ERROR(job);
  if (Result<void> fits = job_fits(*job, static_cast<int>(c.gpus().size())); !fits)
    return Error{job_path + ": " + fits.error()};
  Result<Layout> layout = layout_load(layout_path, c, job_ranks(*job));
  RETURN_IF_ERROR(layout);
  RunningJob out{job->name, job_path, std::move(*job), std::move(*layout)};
  if (!out.layout.order.empty()) out.job.parallel.order = out.layout.order;
  return out;
}

// Slurm's running jobs, each by its id or name in `files` (a job file), or in `ignore`.
Result<std::vector<RunningJob>> from_slurm(const std::string& slurm_path, const nlohmann::json& files,
                                           const std::vector<std::string>& ignore, const std::string& path,
                                           const std::function<std::string(const std::string&)>& relative,
                                           const Cluster& c) {
  Result<std::string> text = text_read_file(slurm_path);
  RETURN_IF_ERROR(text);
  Result<std::vector<SlurmJob>> jobs = slurm_jobs_parse(*text, slurm_path);
  RETURN_IF_ERROR(jobs);
  auto listed = [](const std::vector<std::string>& keys, const SlurmJob& j) {
    return std::find(keys.begin(), keys.end(), j.id) != keys.end() ||
           (!j.name.empty() && std::find(keys.begin(), keys.end(), j.name) != keys.end());
  };
  std::vector<std::string> mapped;
  for (const auto& [key, value] : files.items()) {
    if (!value.is_string())
      return Error{path + ": slurm_jobs." + key + ": expected the job's file (a path), got " + json_shown(value)};
    mapped.push_back(key);
  }
  std::vector<RunningJob> out;
  std::vector<std::string> used;
  for (const SlurmJob& j : *jobs) {
    if (j.state != "RUNNING") continue;
    const std::string where = slurm_path + (j.line > 0 ? ":" + std::to_string(j.line) : std::string()) + ": job " +
                              j.id + (j.name.empty() ? "" : " (" + j.name + ")");
    std::string key = files.contains(j.id) ? j.id : (!j.name.empty() && files.contains(j.name) ? j.name : "");
    if (key.empty()) {
      if (listed(ignore, j)) continue;
      return Error{where + " runs on " + j.nodes + " but slurm_jobs names no job file for it: add \"" + j.id +
                   "\": \"FILE\", or its id to \"ignore\" " + "(its traffic is then not counted)"};
    }
    used.push_back(key);
    if (j.nodes.empty()) return Error{where + ": RUNNING without nodes"};
    Result<std::vector<std::string>> hosts = hostlist_expand(j.nodes);
    if (!hosts) return Error{where + ": nodes: " + hosts.error()};
    const std::string job_path = relative(files[key].get<std::string>());
    int gpus = 0;
    for (const std::string& h : *hosts) {
      const std::optional<int> at = c.host_index(h);
      if (!at) return Error{where + ": node '" + h + "' is not a host of the cluster"};
      gpus += static_cast<int>(c.hosts()[static_cast<size_t>(*at)].gpus.size());
    }
    Result<Job> job = job_load(job_path, [&]() -> Result<WorldHint> {
      return WorldHint{gpus, "the " + std::to_string(gpus) + " GPUs of Slurm job " + j.id + "'s nodes"};
    });
    if (!job) return Error{where + ": " + job.error()};
    const int ranks = job_ranks(*job);
    const int per = ranks / static_cast<int>(hosts->size());
    if (per * static_cast<int>(hosts->size()) != ranks)
      return Error{where + ": " + job_path + " has " + std::to_string(ranks) +
                   " ranks, not a whole number on each of its " + std::to_string(hosts->size()) + " nodes"};
    // Ranks block by block over the nodes in Slurm's order, as srun places them by default.
    std::string layout;
    for (const std::string& h : *hosts) layout += h + " slots=" + std::to_string(per) + "\n";
    Result<Layout> l = layout_parse(layout, where, c, ranks);
    RETURN_IF_ERROR(l);
    RunningJob r{j.name.empty() ? j.id : j.name + "#" + j.id, where, std::move(*job), std::move(*l)};
    out.push_back(std::move(r));
  }
  for (const std::string& key : mapped)
    if (std::find(used.begin(), used.end(), key) == used.end())
      return Error{path + ": slurm_jobs." + key + ": no running job of " + slurm_path + " has this id or name"};
  return out;
}

Result<std::vector<RunningJob>> from_list(const nlohmann::json& doc, const std::string& path, const Cluster& c) {
  std::string error;
  Fields top(doc, "", {"format", "jobs", "slurm", "slurm_jobs", "ignore"}, &error);
  const nlohmann::json* list = top.list("jobs", false);
  const std::string slurm = top.text("slurm", "");
  const nlohmann::json* files = top.get("slurm_jobs", !slurm.empty());
  std::vector<std::string> ignore;
  if (const nlohmann::json* ig = top.list("ignore", false))
    for (size_t i = 0; i < ig->size() && error.empty(); ++i) {
      if ((*ig)[i].is_string())
        ignore.push_back((*ig)[i].get<std::string>());
      else if ((*ig)[i].is_number_unsigned())
        ignore.push_back(std::to_string((*ig)[i].get<uint64_t>()));
      else
        top.fail(json_indexed("ignore", i), "expected a Slurm job id or name, got " + json_shown((*ig)[i]));
    }
  if (error.empty() && files && !files->is_object())
    top.fail("slurm_jobs", "expected an object: each Slurm job id or name to its job file");
  if (error.empty() && slurm.empty() && (files || !ignore.empty()))
    top.fail("slurm", "expected the file of squeue --json or scontrol show job output that slurm_jobs refers to");
  if (error.empty() && !list && slurm.empty())
    top.fail("jobs",
             "expected the running jobs: \"jobs\" (plans, or job and layout files), or \"slurm\" with \"slurm_jobs\"");
  if (!error.empty()) return error_in(path, error);
  const fs::path folder = fs::path(path).parent_path();
  auto relative = [&](const std::string& p) { return fs::path(p).is_absolute() ? p : (folder / p).string(); };
  std::vector<RunningJob> out;
  if (!slurm.empty()) {
    Result<std::vector<RunningJob>> from = from_slurm(relative(slurm), *files, ignore, path, relative, c);
    RETURN_IF_ERROR(from);
    out = std::move(*from);
  }
  if (!list) {
    if (out.empty()) return error_in(path, "slurm: " + relative(slurm) + " lists no running job");
    return out;
  }
  if (list->empty()) return error_in(path, "jobs: expected at least one running job");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = json_indexed("jobs", i);
    Fields f((*list)[i], at, {"name", "plan", "job", "layout"}, &error);
    const std::string name = f.text("name", "");
    const std::string plan = f.text("plan", ""), job = f.text("job", ""), layout = f.text("layout", "");
    if (f.ok() && plan.empty() == job.empty())
      f.fail(at, "expected \"plan\" (a plan file) or \"job\" with \"layout\" (a job file and where its ranks run)");
    if (f.ok() && !plan.empty() && !layout.empty())
      f.fail(at + ".layout", "a plan file brings its own placement; give \"job\" with \"layout\", or \"plan\" alone");
    if (f.ok() && !job.empty() && layout.empty())
      f.fail(at + ".layout", "expected the layout file that places the job's ranks (a host list, rankfile ...)");
    if (!error.empty()) return error_in(path, error);
    Result<RunningJob> r = plan.empty() ? from_job(relative(job), relative(layout), c) : from_plan(relative(plan), c);
    if (!r) return Error{path + ": " + at + ": " + r.error()};
    r->where = path + ": " + at;
    if (!name.empty()) r->name = name;
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::vector<RunningJob>> from_folder(const std::string& path, const Cluster& c) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  if (ec) return Error{path + ": cannot read the folder: " + ec.message()};
  if (files.empty()) return Error{path + ": expected plan files (*.json) of the running jobs, found none"};
  std::sort(files.begin(), files.end());
  std::vector<RunningJob> out;
  for (const fs::path& f : files) {
    Result<RunningJob> r = from_plan(f.string(), c);
    RETURN_IF_ERROR(r);
    r->name = f.stem().string();
    out.push_back(std::move(*r));
  }
  return out;
}

// One name per job, and at most one rank per GPU over all of them.
Result<void> check(const RunningJobs& running, const Cluster& c) {
  std::map<std::string, size_t> names;
  for (size_t j = 0; j < running.jobs.size(); ++j) {
    const RunningJob& job = running.jobs[j];
    if (job.name.empty()) return Error{job.where + ": name: expected a name for the job"};
    auto [it, fresh] = names.emplace(job.name, j);
    if (!fresh)
      return Error{job.where + ": name: '" + job.name + "' is also the name of " + running.jobs[it->second].where +
                   "; give each running job its own \"name\""};
  }
  struct Owner {
    size_t job = SIZE_MAX;
    int rank = 0;
  };
  std::vector<Owner> owner(c.num_devices());
  for (size_t j = 0; j < running.jobs.size(); ++j) {
    const RunningJob& job = running.jobs[j];
    for (int r = 0; r < job.layout.world_size(); ++r) {
      const VertexId gpu = job.layout.gpu_of_rank[static_cast<size_t>(r)];
      Owner& o = owner[gpu];
      if (o.job != SIZE_MAX) {
        const RunningJob& other = running.jobs[o.job];
        return Error{running.source + ": running jobs '" + other.name + "' (rank " + std::to_string(o.rank) +
                     ") and '" + job.name + "' (rank " + std::to_string(r) + ") both run on " + c.device(gpu).name +
                     ": a GPU runs one job's rank"};
      }
      o = {j, r};
    }
  }
  return {};
}

}  // namespace

Result<RunningJobs> running_jobs_load(const std::string& path, const Cluster& c) {
  RunningJobs out;
  out.source = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    Result<std::vector<RunningJob>> jobs = from_folder(path, c);
    RETURN_IF_ERROR(jobs);
    out.jobs = std::move(*jobs);
  } else {
    Result<std::string> text = text_read_file(path);
    RETURN_IF_ERROR(text);
    Result<nlohmann::json> doc = json_parse_text(*text, path);
    RETURN_IF_ERROR(doc);
    const nlohmann::json* format = doc->is_object() && doc->contains("format") ? &(*doc)["format"] : nullptr;
    if (format && *format == kPlanFormat) {
      Result<RunningJob> one = from_plan(path, c);
      RETURN_IF_ERROR(one);
      out.jobs.push_back(std::move(*one));
    } else if (format && *format == kRunningFormat) {
      Result<std::vector<RunningJob>> jobs = from_list(*doc, path, c);
      RETURN_IF_ERROR(jobs);
      out.jobs = std::move(*jobs);
    } else {
      return Error{path + ": expected the running jobs: a file with \"format\": \"" + std::string(kRunningFormat) +
                   "\", a plan file (\"format\": \"" + kPlanFormat + "\") or a folder of plan files"};
    }
  }
  for (const RunningJob& j : out.jobs)
    for (const std::string& d : j.layout.down)
      if (std::find(out.down.begin(), out.down.end(), d) == out.down.end()) out.down.push_back(d);
  RETURN_IF_ERROR(check(out, c));
  return out;
}

Result<DownSet> running_jobs_down(const Cluster& c, const DownSet& down, const RunningJobs& running) {
  if (running.down.empty()) return down;
  std::vector<std::string> names = down.names;
  names.insert(names.end(), running.down.begin(), running.down.end());
  Result<DownSet> both = down_parse(c, names);
  if (!both) return Error{running.source + ": exclude: " + both.error()};
  return both;
}

}  // namespace topoplan
