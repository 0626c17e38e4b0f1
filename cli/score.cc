// topoplan score: a job placed on a cluster, its exposed communication per step, the hottest
// links and findings (planner/score.h).
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/text_table.h"
#include "cli/tool.h"
#include "planner/score.h"
#include "topology/formats/dot.h"
#include "topology/load.h"
#include "topology/units.h"

namespace topoplan::cli {
namespace {

constexpr size_t kHottest = 10;

struct Options {
  std::string cluster, job, layout, calibration, links, dot;
  bool json = false;
};

// "host" for links inside a host, else the fabric tier the link climbs to.
std::string tier_name(const Cluster& c, EdgeId e) {
  const Link& l = c.link(e);
  if (l.kind == LinkKind::DCI) return "dci";
  if (l.kind != LinkKind::NET) return "host";
  const int tier = std::max(c.device(c.source(e)).tier, c.device(c.target(e)).tier);
  static constexpr const char* kTiers[] = {"host", "leaf", "spine", "core"};
  return tier < 4 ? kTiers[tier] : "tier " + std::to_string(tier);
}

std::string time_text(double seconds) { return format_duration(seconds); }

nlohmann::json link_json(const Cluster& c, const LinkUse& u) {
  return {{"link", c.edge_name(u.edge)},
          {"kind", std::string(to_string(c.link(u.edge).kind))},
          {"tier", tier_name(c, u.edge)},
          {"bytes", u.bytes},
          {"busy_s", u.busy_us / 1e6},
          {"utilization", u.utilization}};
}

nlohmann::json score_json(const Cluster& c, const std::string& cluster, const JobScore& s) {
  const ComputeEstimate& ce = s.traffic.compute;
  nlohmann::json j = {{"job", s.job},
                      {"cluster", cluster},
                      {"layout", s.layout},
                      {"ranks", s.ranks},
                      {"exposed_comm_s", s.exposed_comm_s},
                      {"comm_s", s.comm_s},
                      {"compute_s", s.compute_s},
                      {"step_s", s.step_s},
                      {"compute",
                       {{"gpu", ce.gpu.model},
                        {"peak_tflops", ce.gpu.peak_tflops},
                        {"achievable_fraction", ce.gpu.achievable_fraction},
                        {"source", ce.gpu.source},
                        {"micro_batches", ce.micro_batches},
                        {"bubble_fraction", ce.bubble_fraction},
                        {"bubble_idle_fraction", ce.bubble_idle_fraction},
                        {"slowest_stage", ce.slowest_stage}}}};
  for (int k = 0; k < kTrafficKinds; ++k) {
    const KindScore& ks = s.by_kind[static_cast<size_t>(k)];
    j["by_kind"][std::string(to_string(static_cast<TrafficKind>(k)))] = {
        {"time_s", ks.time_s}, {"alone_s", ks.alone_s}, {"exposed_s", ks.exposed_s}};
  }
  j["items"] = nlohmann::json::array();
  for (const ItemScore& i : s.items) {
    const TrafficItem& t = i.item;
    nlohmann::json item = {{"kind", std::string(to_string(t.kind))},
                           {"phase", std::string(to_string(t.phase))},
                           {"op", std::string(to_string(t.op))},
                           {"what", t.what},
                           {"group", t.group},
                           {"groups", i.groups},
                           {"bytes", t.bytes},
                           {"calls", t.calls},
                           {"algorithm", i.algorithm},
                           {"protocol", std::string(to_string(i.proto))},
                           {"alone_us", i.alone_us},
                           {"contended_us", i.contended_us},
                           {"time_s", i.time_us / 1e6},
                           {"exposed_s", i.exposed_us / 1e6}};
    item["overlaps"] = t.window >= 0 ? nlohmann::json(s.traffic.windows[static_cast<size_t>(t.window)].what) : nullptr;
    if (i.has_hot_edge) item["hot_link"] = {{"link", c.edge_name(i.hot_edge)}, {"groups", i.hot_edge_groups}};
    j["items"].push_back(std::move(item));
  }
  j["links"] = nlohmann::json::array();
  for (size_t i = 0; i < s.links.size() && i < kHottest; ++i) j["links"].push_back(link_json(c, s.links[i]));
  j["findings"] = nlohmann::json::array();
  for (const Finding& f : s.findings)
    j["findings"].push_back({{"severity", f.severity}, {"kind", f.kind}, {"group", f.group}, {"message", f.message}});
  return j;
}

void print_text(std::ostream& out, const Cluster& c, const std::string& cluster, const JobScore& s) {
  const ComputeEstimate& ce = s.traffic.compute;
  out << s.job << " on " << cluster << ": " << s.ranks << " ranks, layout " << s.layout << "\n";
  out << "step " << time_text(s.step_s) << " = compute " << time_text(s.compute_s) << " (" << ce.gpu.model << " at "
      << format_number(100 * ce.gpu.achievable_fraction, 1) << "% of " << format_number(ce.gpu.peak_tflops, 0)
      << " TFLOPS, " << ce.micro_batches << " micro-batches, pipeline bubble "
      << format_number(100 * ce.bubble_idle_fraction, 1) << "% of the step) + exposed communication "
      << time_text(s.exposed_comm_s) << "\n\n";
  // Columns are as wide as their widest cell, so long names and large values never run together.
  using A = TextTable::Align;
  TextTable kinds({A::left, A::right, A::right, A::right});
  kinds.add({"kind", "alone", "contended", "exposed"});
  for (int k = 0; k < kTrafficKinds; ++k) {
    const KindScore& ks = s.by_kind[static_cast<size_t>(k)];
    kinds.add({std::string(to_string(static_cast<TrafficKind>(k))), time_text(ks.alone_s), time_text(ks.time_s),
               time_text(ks.exposed_s)});
  }
  out << kinds.str();
  out << "\ncollectives per step (per group; the slowest group's time per call):\n";
  TextTable items({A::left, A::left, A::left, A::right, A::right, A::left, A::right, A::right, A::left});
  for (const ItemScore& i : s.items) {
    const TrafficItem& t = i.item;
    items.add({std::string(to_string(t.kind)), std::string(to_string(t.phase)), std::string(to_string(t.op)),
               format_bytes(t.bytes), "x " + format_number(t.calls, 0),
               i.algorithm + "/" + std::string(to_string(i.proto)), time_text(i.alone_us / 1e6) + " alone,",
               time_text(i.contended_us / 1e6) + " with " + std::to_string(i.groups) + " groups;",
               "exposed " + time_text(i.exposed_us / 1e6) + "  (" + t.what + ")"},
              "  ");
  }
  out << items.str();
  out << "\nhottest links (per step):\n";
  TextTable links({A::left, A::left, A::left, A::right, A::right});
  for (size_t i = 0; i < s.links.size() && i < kHottest; ++i) {
    const LinkUse& u = s.links[i];
    links.add({c.edge_name(u.edge), std::string(to_string(c.link(u.edge).kind)), tier_name(c, u.edge),
               format_bytes(u.bytes), format_number(100 * u.utilization, 1) + "%"},
              "  ");
  }
  out << links.str();
  out << "\nfindings:\n";
  if (s.findings.empty()) out << "  none\n";
  for (const Finding& f : s.findings) out << "  [" << f.severity << "] " << f.message << "\n";
}

// One row per physical link that carries bytes: both directions side by side.
Result<bool> write_links_csv(const std::string& path, const Cluster& c, const JobScore& s) {
  std::ofstream f(path);
  if (!f) return Error{path + ": cannot write"};
  std::vector<const LinkUse*> by_edge(c.num_edges(), nullptr);
  for (const LinkUse& u : s.links) by_edge[u.edge] = &u;
  f << "link,from,to,kind,tier,bw_gbps,bytes_forward,bytes_reverse,utilization_forward,utilization_reverse\n";
  for (EdgeId e = 0; e < c.num_edges(); e += 2) {
    const LinkUse *fw = by_edge[e], *rv = by_edge[e + 1];
    if (!fw && !rv) continue;
    f << c.edge_name(e) << "," << c.device(c.source(e)).name << "," << c.device(c.target(e)).name << ","
      << to_string(c.link(e).kind) << "," << tier_name(c, e) << "," << c.link(e).bw_gbps << "," << (fw ? fw->bytes : 0)
      << "," << (rv ? rv->bytes : 0) << "," << (fw ? fw->utilization : 0) << "," << (rv ? rv->utilization : 0) << "\n";
  }
  if (!f) return Error{path + ": write failed"};
  return true;
}

Result<bool> write_dot(const std::string& path, const Cluster& c, const JobScore& s) {
  std::ofstream f(path);
  if (!f) return Error{path + ": cannot write"};
  DotLoad load;
  load.utilization.assign(c.num_edges(), 0);
  for (const LinkUse& u : s.links) load.utilization[u.edge] = u.utilization;
  load.title = s.job + ": link utilization per step (source to target / back)";
  f << save_cluster_dot(c, load);
  if (!f) return Error{path + ": write failed"};
  return true;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Calibration cal = calibration_default();
  if (!o.calibration.empty()) {
    Result<Calibration> cl = calibration_load(o.calibration);
    if (!cl) return fail(err, cl.error());
    cal = *cl;
  }
  Result<Job> job = job_load(o.job);
  if (!job) return fail(err, job.error());
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  const int ranks = job_ranks(*job);
  if (Result<bool> fits = job_fits(*job, static_cast<int>(c->gpus().size())); !fits) return fail(err, o.job + ": " + fits.error());
  Result<Layout> layout = o.layout.empty() ? layout_default(*c, ranks) : layout_load(o.layout, *c, ranks);
  if (!layout) return fail(err, layout.error());
  Router router(*c);
  ScoreOptions opt;
  opt.calibration = &cal;
  Result<JobScore> s = score_job(*c, router, *job, *layout, opt);
  if (!s) return fail(err, o.job + ": " + s.error());
  if (!o.links.empty())
    if (Result<bool> ok = write_links_csv(o.links, *c, *s); !ok) return fail(err, ok.error());
  if (!o.dot.empty())
    if (Result<bool> ok = write_dot(o.dot, *c, *s); !ok) return fail(err, ok.error());
  if (o.json)
    out << score_json(*c, o.cluster, *s).dump(2) << "\n";
  else
    print_text(out, *c, o.cluster, *s);
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, "job file (docs/job-format.md), e.g. data/jobs/llama3-70b.json")->required();
  app.add_option("--layout", o->layout, "rank -> GPU map: JSON, or a host list in rank order (SLURM_HOSTFILE)");
  app.add_option("--calibration", o->calibration, "overlay of effective link bandwidths (JSON)");
  app.add_option("--links", o->links, "write every loaded link (both directions, per step) as CSV");
  app.add_option("--dot", o->dot, "write the job's part of the cluster, links coloured by utilization (Graphviz)");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool score_tool() { return {"score", "score a job's placement: exposed communication, hottest links, findings", setup}; }

}  // namespace topoplan::cli
