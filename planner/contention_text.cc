#include "planner/contention_text.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/html_report.h"

namespace topoplan {
namespace {

std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * fraction);
  return b;
}

// "+4.7%", from a ratio of steps.
std::string slowdown_text(double slowdown) {
  char b[32];
  std::snprintf(b, sizeof b, "+%.1f%%", std::max(0.0, 100 * (slowdown - 1)));
  return b;
}

std::string causes_text(const Contention& k, const JobBeside& b) {
  std::string out;
  for (const ContentionCause& c : b.causes) {
    if (!out.empty()) out += ", ";
    out += k.jobs[c.job].name + " " + percent(c.share) + " (+" + format_duration(c.added_s) + ")";
  }
  return out.empty() ? "-" : out;
}

// {"forward": 0.2, "backward": 0.4, ...}: every phase, so scripts need not test for a key.
nlohmann::json phases_json(const std::array<double, kPhases>& utilization) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t p = 0; p < kPhases; ++p) out[std::string(phase_window_name(static_cast<Phase>(p)))] = utilization[p];
  return out;
}

nlohmann::json beside_json(const Contention& k, const JobBeside& b) {
  nlohmann::json causes = nlohmann::json::array();
  for (const ContentionCause& c : b.causes)
    causes.push_back({{"job", k.jobs[c.job].name}, {"share", c.share}, {"added_s", c.added_s}});
  return {{"step_s", b.step_s}, {"slowdown", b.slowdown}, {"slowed_by", causes}};
}

}  // namespace

std::string contention_text(const Cluster& c, const RunningJobs& running, const Contention& k, size_t links) {
  std::string out = "contention: " + counted(static_cast<int64_t>(k.jobs.size()), "running job") + " (" +
                    running.source + "), " + counted(static_cast<int64_t>(k.links.size()), "link direction") +
                    " loaded, " + std::to_string(k.meeting) + " where jobs meet\n";
  out +=
      "each job alone on an idle fabric, then beside the others with its max-min fair share of every link they "
      "share;\n  average: phases unaligned, each job's traffic spread over its step; worst: every job at its "
      "busiest phase at once\n\n";
  using A = TextTable::Align;
  TextTable jobs({A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  jobs.add({"job", "GPUs", "alone", "average", "slowdown", "worst", "slowdown", "slowed by (average)"}, "  ");
  for (const ContentionJob& j : k.jobs) {
    const JobBeside& avg = j.beside[static_cast<size_t>(Alignment::average)];
    const JobBeside& worst = j.beside[static_cast<size_t>(Alignment::worst)];
    jobs.add({j.name, std::to_string(j.gpus), format_duration(j.step_alone_s), format_duration(avg.step_s),
              slowdown_text(avg.slowdown), format_duration(worst.step_s), slowdown_text(worst.slowdown),
              causes_text(k, avg)},
             "  ");
  }
  out += jobs.str();
  if (k.meeting == 0) return out + "\nno link carries two jobs' traffic\n";
  const size_t shown = std::min(links, k.meeting);
  out += "\nwhere jobs meet (" + (shown < k.meeting ? "the busiest " + std::to_string(shown) + " of " : std::string()) +
         counted(static_cast<int64_t>(k.meeting), "link direction") +
         "),\n  the jobs' demands summed: average over their steps; worst, each at its busiest phase; per phase, "
         "all in it at once:\n";
  // A column per phase some job loads a shown link in.
  std::vector<size_t> phases;
  for (size_t p = 0; p < kPhases; ++p)
    for (size_t i = 0; i < shown && (phases.empty() || phases.back() != p); ++i)
      if (k.links[i].phase_utilization[p] > 0) phases.push_back(p);
  std::vector<A> align = {A::left, A::right, A::right, A::right};
  std::vector<std::string> head = {"link", "jobs", "average", "worst"};
  for (size_t p : phases) {
    align.push_back(A::right);
    head.emplace_back(phase_window_name(static_cast<Phase>(p)));
  }
  align.push_back(A::left);
  head.emplace_back("by job: average / busiest phase");
  TextTable table(align);
  table.add(head, "  ");
  for (size_t i = 0; i < shown; ++i) {
    const ContendedLink& l = k.links[i];
    std::string by;
    for (const JobOnLink& j : l.jobs) {
      if (!by.empty()) by += ", ";
      by += k.jobs[j.job].name + " " + percent(j.utilization) + " / " + percent(j.peak) + " " +
            std::string(phase_window_name(j.peak_phase));
    }
    std::vector<std::string> row = {c.edge_name(l.edge), std::to_string(l.jobs.size()), percent(l.utilization),
                                    percent(l.peak)};
    for (size_t p : phases) row.push_back(percent(l.phase_utilization[p]));
    row.push_back(by);
    table.add(row, "  ");
  }
  return out + table.str();
}

Result<void> contention_html_write(const std::string& path, const Cluster& c, const RunningJobs& running,
                                   const Contention& k, const std::string& text) {
  // The jobs' demands together, as one load: a link's step average and busiest phase summed over
  // them, its phase the busiest job's.
  JobScore together;
  std::vector<std::vector<EdgeId>> edges(k.jobs.size());
  for (const ContendedLink& l : k.links) {
    LinkUse u;
    u.edge = l.edge;
    u.utilization = l.utilization;
    u.peak = l.peak;
    u.peak_phase = l.jobs.front().peak_phase;
    u.phase_utilization = l.phase_utilization;
    together.links.push_back(u);
    for (const JobOnLink& j : l.jobs) edges[j.job].push_back(l.edge);
  }
  ReportPart part;
  part.label = "running jobs";
  part.score = &together;
  part.heading = counted(static_cast<int64_t>(k.jobs.size()), "running job") +
                 " together: " + std::to_string(k.meeting) + " link directions where jobs meet";
  part.sets_kind = "job";
  for (size_t j = 0; j < k.jobs.size(); ++j)
    part.sets.push_back({k.jobs[j].name, running.jobs[j].layout.gpu_of_rank, std::move(edges[j])});
  return html_report_write(path, c, {part}, "contention: " + running.source, text);
}

nlohmann::json contention_json(const Cluster& c, const RunningJobs& running, const Contention& k, Alignment alignment) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const ContentionJob& j : k.jobs) {
    nlohmann::json e = {{"name", j.name}, {"gpus", j.gpus}, {"step_alone_s", j.step_alone_s}};
    e.update(beside_json(k, j.beside[static_cast<size_t>(alignment)]));
    for (size_t a = 0; a < kAlignments; ++a)
      e[std::string(to_string(static_cast<Alignment>(a)))] = beside_json(k, j.beside[a]);
    jobs.push_back(std::move(e));
  }
  nlohmann::json list = nlohmann::json::array();
  for (const ContendedLink& l : k.links) {
    nlohmann::json by = nlohmann::json::array();
    for (const JobOnLink& j : l.jobs)
      by.push_back({{"job", k.jobs[j.job].name},
                    {"flows", j.flows},
                    {"utilization", j.utilization},
                    {"peak", j.peak},
                    {"peak_phase", phase_window_name(j.peak_phase)},
                    {"phases", phases_json(j.phase_utilization)}});
    list.push_back({{"link", c.edge_name(l.edge)},
                    {"utilization", l.utilization},
                    {"peak", l.peak},
                    {"phases", phases_json(l.phase_utilization)},
                    {"jobs", by}});
  }
  return {{"format", "topoplan-contention"},
          {"running", running.source},
          {"alignment", to_string(alignment)},
          {"links_loaded", k.links.size()},
          {"links_meeting", k.meeting},
          {"jobs", jobs},
          {"links", list}};
}

}  // namespace topoplan
