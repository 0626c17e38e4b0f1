#include "planner/report_data.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/sort_unique.h"
#include "base/units.h"
#include "planner/group_ref.h"
#include "planner/rank_groups.h"

namespace topoplan {
namespace {

// Utilisation kept to 0.1 %: the colour scale has far fewer steps, and 16,384 GPUs' links stay
// a few megabytes.
double rounded(double x) { return std::round(x * 1000) / 1000; }

nlohmann::json devices_json(const Cluster& c) {
  nlohmann::json name = nlohmann::json::array(), kind = nlohmann::json::array(), host = nlohmann::json::array(),
                 tier = nlohmann::json::array(), site = nlohmann::json::array();
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    const Device& d = c.device(v);
    name.push_back(d.name);
    kind.push_back(static_cast<int>(d.kind));
    host.push_back(d.host);
    tier.push_back(d.tier);
    site.push_back(d.site);
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (int k = 0; k < kDeviceKinds; ++k) kinds.push_back(std::string(to_string(static_cast<DeviceKind>(k))));
  return {{"kinds", kinds}, {"name", name}, {"kind", kind}, {"host", host}, {"tier", tier}, {"site", site}};
}

// Each physical link once (its even edge): ends, kind and rate per direction.
nlohmann::json links_json(const Cluster& c) {
  nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array(), kind = nlohmann::json::array(),
                 GBps = nlohmann::json::array();
  for (EdgeId e = 0; e < c.num_edges(); e += 2) {
    a.push_back(c.source(e));
    b.push_back(c.target(e));
    kind.push_back(static_cast<int>(c.link(e).kind));
    GBps.push_back(c.link(e).bw_GBps);
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (int k = 0; k < kLinkKinds; ++k) kinds.push_back(std::string(to_string(static_cast<LinkKind>(k))));
  return {{"kinds", kinds}, {"a", a}, {"b", b}, {"kind", kind}, {"bw_GBps", GBps}};
}

// The loaded directions: edge (2 x the link's index in links, + 1 from b to a), utilisation over
// the step and in its busiest phase, and that phase.
nlohmann::json load_json(const JobScore& s) {
  nlohmann::json edge = nlohmann::json::array(), avg = nlohmann::json::array(), peak = nlohmann::json::array(),
                 phase = nlohmann::json::array();
  for (const LinkUse& u : s.links) {
    edge.push_back(u.edge);
    avg.push_back(rounded(u.utilization));
    peak.push_back(rounded(u.peak));
    phase.push_back(static_cast<int>(u.peak_phase));
  }
  return {{"edge", edge}, {"avg", avg}, {"peak", peak}, {"phase", phase}};
}

// The critical findings' links, each as the physical link's index and the direction it is loaded
// in, with the finding's text: drawn on the map before anything is clicked.
nlohmann::json critical_json(const JobScore& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const Finding& f : s.findings)
    if (f.severity == "critical" && f.has_link)
      out.push_back({{"link", f.link / 2}, {"dir", f.link % 2}, {"message", f.message}});
  return out;
}

// What each link costs the step: every item's exposed time, on the link that bounds its slowest
// group under contention (NVLink for TP inside a host, a NIC's cable for a split one).
nlohmann::json exposed_json(const JobScore& s) {
  std::map<EdgeId, double> behind;
  for (const ItemScore& it : s.items)
    if (it.has_hot_edge && it.exposed_us > 0) behind[it.hot_edge] += it.exposed_us / 1e6;
  nlohmann::json edge = nlohmann::json::array(), seconds = nlohmann::json::array(), text = nlohmann::json::array();
  for (const auto& [e, x] : behind) {
    edge.push_back(e);
    seconds.push_back(x);
    text.push_back(format_duration(x));
  }
  return {{"edge", edge}, {"s", seconds}, {"text", text}};
}

// Every group list of two or more ranks, by selector kind, as GPU devices in Megatron's order.
Result<nlohmann::json> groups_json(const Job& job, const JobScore& s) {
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);
  nlohmann::json out = nlohmann::json::object();
  for (const GroupKind& k : group_kinds()) {
    Result<GroupList> list = groups->groups(k.token);
    if (!list || list->empty() || list->front().size() < 2) continue;
    nlohmann::json j = nlohmann::json::array();
    for (const std::vector<int>& g : *list) {
      nlohmann::json members = nlohmann::json::array();
      for (int r : g) members.push_back(s.gpu_of_rank[static_cast<size_t>(r)]);
      j.push_back(std::move(members));
    }
    out[k.kind] = std::move(j);
  }
  return out;
}

}  // namespace

Result<nlohmann::json> report_data(const Cluster& c, const std::vector<ReportPart>& parts, const std::string& title,
                                   const std::string& text, const ReportFocus& focus) {
  nlohmann::json phases = nlohmann::json::array();
  for (size_t p = 0; p < kPhases; ++p) phases.push_back(std::string(phase_window_name(static_cast<Phase>(p))));
  nlohmann::json layouts = nlohmann::json::array();
  for (const ReportPart& part : parts) {
    Result<nlohmann::json> groups = part.job ? groups_json(*part.job, *part.score) : nlohmann::json::object();
    RETURN_IF_ERROR(groups);
    nlohmann::json group_links = nlohmann::json::object(), group_names = nlohmann::json::object();
    if (!part.sets.empty()) {
      nlohmann::json gpus = nlohmann::json::array(), links = nlohmann::json::array(), names = nlohmann::json::array();
      for (const ReportPart::GpuSet& set : part.sets) {
        gpus.push_back(set.gpus);
        std::vector<EdgeId> physical;
        for (EdgeId e : set.edges) physical.push_back(e / 2);
        sort_unique(physical);
        links.push_back(physical);
        names.push_back(set.name);
      }
      (*groups)[part.sets_kind] = std::move(gpus);
      group_links[part.sets_kind] = std::move(links);
      group_names[part.sets_kind] = std::move(names);
    }
    nlohmann::json layout = {{"label", part.label},
                             {"step_s", part.score->step_s},
                             {"exposed_s", part.score->exposed_comm_s},
                             {"step_text", format_duration(part.score->step_s)},
                             {"exposed_text", format_duration(part.score->exposed_comm_s)},
                             {"critical", critical_json(*part.score)},
                             {"exposed", exposed_json(*part.score)},
                             {"load", load_json(*part.score)},
                             {"tables", part.tables},
                             {"groups", std::move(*groups)},
                             {"group_links", std::move(group_links)},
                             {"group_names", std::move(group_names)}};
    if (!part.heading.empty()) layout["heading"] = part.heading;
    if (part.observed_ratio) {
      nlohmann::json edge = nlohmann::json::array(), ratio = nlohmann::json::array();
      for (EdgeId e = 0; e < part.observed_ratio->size(); ++e)
        if ((*part.observed_ratio)[e] > 0) {
          edge.push_back(e);
          ratio.push_back(rounded((*part.observed_ratio)[e]));
        }
      layout["observed"] = {{"edge", edge}, {"ratio", ratio}};
    }
    layouts.push_back(std::move(layout));
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const Host& h : c.hosts()) hosts.push_back(h.name);
  nlohmann::json sites = nlohmann::json::array();
  for (const std::string& s : c.sites()) sites.push_back(s);
  nlohmann::json open = nlohmann::json::object();
  if (!focus.kind.empty()) open["group"] = {{"kind", focus.kind}, {"index", focus.index}};
  if (focus.link) open["link"] = *focus.link / 2;
  if (focus.slowest) open["slowest"] = {{"link", *focus.slowest / 2}, {"dir", *focus.slowest % 2}};
  return nlohmann::json{{"format", "topoplan-report"},
                        {"version", 1},
                        {"title", title},
                        {"text", text},
                        {"verdict", focus.verdict.empty() ? text.substr(0, text.find('\n')) : focus.verdict},
                        {"cluster", c.name},
                        {"phases", phases},
                        {"sites", sites},
                        {"hosts", hosts},
                        {"devices", devices_json(c)},
                        {"links", links_json(c)},
                        {"layouts", layouts},
                        {"open", open}};
}

}  // namespace topoplan
