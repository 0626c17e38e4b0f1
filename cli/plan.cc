// topoplan plan: the hosts, the order string and the GPU of every rank that keep a job's heavy
// traffic on fast links, written for the launcher (planner/plan.h, planner/emit/).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>
#include <sstream>

#include "base/json_fields.h"
#include "base/list_arg.h"
#include "base/suggest.h"
#include "base/units.h"
#include "base/words.h"
#include "cli/html_report.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/emit/emit.h"
#include "planner/host_choice.h"
#include "planner/plan.h"
#include "planner/plan_json.h"
#include "planner/plan_text.h"
#include "topology/load.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, nodes, exclude, keep, time_limit, emit, out_dir, html;
  ModelSources model;
  uint64_t seed = 1;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  // Megatron-LM arguments without a world size fill the allocation: --nodes, else the cluster.
  Result<Job> job = job_load(o.job, [&]() -> Result<WorldHint> {
    if (o.nodes.empty()) return WorldHint{static_cast<int>(c->gpus().size()), "the GPUs of cluster " + o.cluster};
    Result<std::vector<std::string>> names = list_arg_entries(o.nodes, "--nodes", o.nodes[0] != '@');
    RETURN_IF_ERROR(names);
    Result<std::vector<int>> hosts = hosts_by_name(*c, *names);
    RETURN_IF_ERROR(hosts);
    int gpus = 0;
    for (int h : *hosts) gpus += static_cast<int>(c->hosts()[static_cast<size_t>(h)].gpus.size());
    return WorldHint{gpus, "the GPUs of the " + std::to_string(hosts->size()) + " hosts of --nodes"};
  });
  if (!job) return fail(err, job.error());

  // Emitters: "json" is the plan file, the rest planner/emit's formats.
  bool emit_json = false;
  std::vector<std::string> formats;
  if (!o.emit.empty()) {
    std::vector<std::string> known = {"json"};
    known.insert(known.end(), emit_format_names().begin(), emit_format_names().end());
    std::string rest, list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    std::stringstream in(o.emit);
    for (std::string f; std::getline(in, f, ',');) {
      if (f == "json") {
        emit_json = true;
        continue;
      }
      if (std::find(known.begin(), known.end(), f) == known.end())
        return fail(err, "--emit: unknown format '" + f + "'" + did_you_mean(f, known) + " (formats: " + list + ")");
      rest += (rest.empty() ? "" : ",") + f;
    }
    if (!rest.empty()) {
      Result<std::vector<std::string>> parsed = emit_formats_parse(rest);
      if (!parsed) return fail(err, "--emit: " + parsed.error());
      formats = *parsed;
    }
    if (o.out_dir.empty()) return fail(err, "--emit needs -o DIR to write the files into");
  }
  if (!o.out_dir.empty() && o.emit.empty()) emit_json = true;

  PlanRequest req;
  req.seed = o.seed;
  if (!o.nodes.empty()) {
    Result<std::vector<std::string>> names = list_arg_entries(o.nodes, "--nodes", o.nodes[0] != '@');
    if (!names) return fail(err, names.error());
    Result<std::vector<int>> hosts = hosts_by_name(*c, *names);
    if (!hosts) return fail(err, hosts.error());
    req.free = *hosts;
  }
  if (!o.exclude.empty()) {
    Result<std::vector<std::string>> names = list_arg_entries(o.exclude, "--exclude", false);
    if (!names) return fail(err, names.error());
    Result<DownSet> down = down_parse(*c, *names);
    if (!down) return fail(err, down.error());
    req.down = std::move(*down);
  }
  if (!o.keep.empty()) {
    Result<std::vector<std::string>> keep = keep_rules_parse(o.keep);
    if (!keep) return fail(err, keep.error());
    req.keep = *keep;
    req.keep_given = true;
  }
  if (!o.time_limit.empty()) {
    Result<double> t = parse_duration_s(o.time_limit);
    if (!t) return fail(err, "--time-limit: " + t.error());
    req.time_limit_s = *t;
  }
  ModelInputs model;
  if (Result<void> ok = model_inputs_load(o.model, *c, model); !ok) return fail(err, ok.error());
  req.score = model.options;
  // Progress on a terminal, once the run has taken a second.
  const double start = wall_seconds();
  bool shown = false;
  if (isatty(STDERR_FILENO))
    req.progress = [&](const std::string& what) {
      if (wall_seconds() - start < 1) return;
      err << "\r" << format_duration(wall_seconds() - start) << ": " << what << "\033[K" << std::flush;
      shown = true;
    };
  Router router(*c, req.down);
  Result<Plan> plan = plan_job(*c, router, *job, req);
  if (shown) err << "\n";
  if (!plan) return fail(err, o.job + ": " + plan.error());

  std::vector<std::string> written, notes;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) return fail(err, "-o " + o.out_dir + ": " + ec.message());
    auto write = [&](const std::string& name, const std::string& text) -> bool {
      const std::string path = (std::filesystem::path(o.out_dir) / name).string();
      if (!text_write_file(path, text)) return false;
      written.push_back(path);
      return true;
    };
    if (emit_json && !write("plan.json", plan_to_json(*c, router, o.cluster, *plan, req).dump(2) + "\n"))
      return fail(err, o.out_dir + "/plan.json: cannot write");
    for (const std::string& format : formats) {
      Result<std::vector<EmittedFile>> files = emit(format, {*c, router, plan->job, plan->layout});
      if (!files) return fail(err, "--emit " + format + ": " + files.error());
      for (const EmittedFile& f : *files) {
        if (!write(f.name, f.text)) return fail(err, o.out_dir + "/" + f.name + ": cannot write");
        for (const std::string& note : f.notes) notes.push_back(f.name + ": " + note);
      }
    }
  }
  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  if (!o.json || !o.html.empty()) text << plan_text(*c, o.cluster, *plan, written);
  // What a file left out: in the text, or beside the JSON on stderr.
  for (const std::string& note : notes) (o.json ? err : text) << "note: " << note << "\n";
  if (!o.html.empty()) {
    // The input order beside the plan, scored as `score --layout` would.
    std::vector<ReportPart> parts;
    std::optional<JobScore> input;
    if (plan->input_layout)
      if (Result<JobScore> s = score_job(*c, router, *job, *plan->input_layout, req.score)) input = std::move(*s);
    if (input) parts.push_back({"input order (hosts as offered, order " + job->parallel.order + ")", &*job, &*input});
    parts.push_back({"plan (order " + plan->job.parallel.order + ")", &plan->job, &plan->score});
    if (Result<void> ok =
            html_report_write(o.html, *c, parts, plan->job.name + " on " + o.cluster + ": plan", text.str());
        !ok)
      return fail(err, ok.error());
  }
  if (o.json)
    out << plan_to_json(*c, router, o.cluster, *plan, req).dump(2) << "\n";
  else
    out << text.str();
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--nodes", o->nodes,
                 "the allocation: a Slurm hostlist (h[0001-0016,0033]) or @FILE with one host per line; "
                 "default every host, and the planner picks which");
  app.add_option(
      "--exclude", o->exclude,
      "GPUs, NICs, switches, hosts or links that are down, comma-separated (links as 'leaf0<->spine3'), or @FILE; "
      "`topoplan topo show CLUSTER --names` lists every name it takes");
  app.add_option("--keep", o->keep,
                 "rules that must hold: tp-in-domain, dp-only-across-sites (both kept where they can be by "
                 "default), or none");
  app.add_option("--seed", o->seed, "seed of the local search (the same seed gives the same plan)");
  app.add_option("--time-limit", o->time_limit, "stop the search after this long (e.g. 30s, 5min)");
  app.add_option("--emit", o->emit,
                 "files to write into -o DIR: json, " + names_list(emit_format_names()) +
                     " (comma-separated; docs/plan-outputs.md)");
  app.add_option("-o,--output", o->out_dir, "directory for the plan (plan.json) and --emit files");
  model_flags_add(app, o->model);
  app.add_option(
      "--html", o->html,
      "write a self-contained HTML report: the plan's load on the fabric as a heat map, its groups, this text");
  app.add_flag("--json", o->json, "the plan as JSON on stdout");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool plan_tool() {
  return {"plan", "choose the hosts, the rank order and the GPU of every rank, and write them for the launcher", setup};
}

}  // namespace topoplan::cli
