#include "validate/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "base/json_fields.h"
#include "base/sort_unique.h"
#include "planner/group_ref.h"
#include "validate/harness.h"

namespace topoplan {
namespace {

// The planned item a measured result ran: the same group list, operation and size.
std::optional<size_t> item_of(const ScoreState& st, const std::string& token, const MeasuredResult& m) {
  for (size_t i = 0; i < st.item_count(); ++i) {
    const TrafficItem& it = st.traffic().items[i];
    if (it.group == token && it.op == m.op && !st.item_groups(i).empty() && !st.groups_of(i, m.index).empty() &&
        validate_size_matches(m.bytes, it.bytes))
      return i;
  }
  return std::nullopt;
}

}  // namespace

bool backend_in_host_memory(const std::string& backend) { return backend == "mpi"; }

Result<Measured> measured_parse(const std::string& text, const std::string& source) {
  Result<nlohmann::json> doc =
      json_parse_document(text, source, "topoplan-validate", "topoplan-validate's results", "topoplan-validate --json");
  RETURN_IF_ERROR(doc);
  const nlohmann::json& j = *doc;
  auto bad = [&](const std::string& field, const std::string& what) {
    return Error{source + ": " + field + ": " + what};
  };
  Measured out;
  out.source = source;
  if (j.contains("backend") && j["backend"].is_string()) out.backend = j["backend"].get<std::string>();
  if (j.contains("plan") && j["plan"].is_string()) out.plan = j["plan"].get<std::string>();
  if (!j.contains("world") || !j["world"].is_number_integer() || j["world"].get<long long>() < 1)
    return bad("world", "expected the number of ranks");
  out.world = static_cast<int>(j["world"].get<long long>());
  if (!j.contains("groups") || !j["groups"].is_array()) return bad("groups", "expected a list of groups");
  for (size_t g = 0; g < j["groups"].size(); ++g) {
    const nlohmann::json& gj = j["groups"][g];
    const std::string at = json_indexed("groups", g);
    if (!gj.is_object() || !gj.contains("kind") || !gj["kind"].is_string() ||
        (group_token(gj["kind"].get<std::string>()).empty() && gj["kind"] != "world"))
      return bad(at + ".kind",
                 "expected a group kind (tp, cp, dp, pp, ep, etp, edp) or world (--nccl-tests on every rank)");
    if (!gj.contains("index") || !gj["index"].is_number_integer() || gj["index"].get<long long>() < 0)
      return bad(at + ".index", "expected the group's index, a whole number from 0");
    if (!gj.contains("ranks") || !gj["ranks"].is_array()) return bad(at + ".ranks", "expected the group's ranks");
    std::vector<int> ranks;
    for (const nlohmann::json& r : gj["ranks"]) {
      if (!r.is_number_integer() || r.get<long long>() < 0 || r.get<long long>() >= out.world)
        return bad(at + ".ranks", "rank " + json_shown(r) + " is outside the world of " + std::to_string(out.world));
      ranks.push_back(static_cast<int>(r.get<long long>()));
    }
    if (!gj.contains("results") || !gj["results"].is_array()) return bad(at + ".results", "expected a list of results");
    for (size_t k = 0; k < gj["results"].size(); ++k) {
      const nlohmann::json& r = gj["results"][k];
      const std::string rat = json_indexed(at + ".results", k);
      if (!r.is_object()) return bad(rat, "expected {\"op\", \"bytes\", \"time_us\", ...}, got " + json_shown(r));
      MeasuredResult m;
      m.kind = gj["kind"].get<std::string>();
      m.index = static_cast<int>(gj["index"].get<long long>());
      m.ranks = ranks;
      std::optional<CollectiveOp> op =
          r.contains("op") && r["op"].is_string() ? collective_op_from(r["op"].get<std::string>()) : std::nullopt;
      if (!op)
        return bad(rat + ".op", "expected a collective (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv)");
      m.op = *op;
      for (const char* key : {"bytes", "time_us"})
        if (!r.contains(key) || !r[key].is_number() || !(r[key].get<double>() > 0) ||
            !std::isfinite(r[key].get<double>()))
          return bad(rat + "." + key, std::string("expected a number above 0, got ") +
                                          (r.contains(key) ? json_shown(r[key]) : "nothing"));
      m.bytes = r["bytes"].get<double>();
      m.time_us = r["time_us"].get<double>();
      if (r.contains("busbw_GBps") && r["busbw_GBps"].is_number()) m.busbw_GBps = r["busbw_GBps"].get<double>();
      if (r.contains("wrong") && r["wrong"].is_number_integer()) m.wrong = r["wrong"].get<long>();
      if (r.contains("alone_us") && r["alone_us"].is_number() && r["alone_us"].get<double>() > 0 &&
          std::isfinite(r["alone_us"].get<double>()))
        m.alone_us = r["alone_us"].get<double>();
      out.results.push_back(std::move(m));
    }
  }
  return out;
}

Result<Measured> measured_read(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return measured_parse(*text, path);
}

Result<Comparison> compare_measured(const Cluster& c, const Router& r, const Job& job, const Layout& layout,
                                    const ScoreOptions& opt, const Measured& m, double threshold) {
  if (m.world != layout.world_size())
    return Error{m.source + ": " + std::to_string(m.world) + " ranks, the plan places " +
                 std::to_string(layout.world_size())};
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, layout, opt);
  RETURN_IF_ERROR(state);
  const ScoreState& st = **state;
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  RETURN_IF_ERROR(groups);
  CollectiveModel model(c, r, *opt.tuning, *opt.calibration);
  CollectiveModel alone_model(c, r, *opt.tuning, *opt.calibration, &st.share());

  Comparison out;
  out.threshold = threshold;
  out.timed = !backend_in_host_memory(m.backend);
  std::map<EdgeId, int> crossed;  // edge -> slow groups crossing it
  std::map<std::string, bool> slow_counted;
  std::vector<int> world(static_cast<size_t>(m.world));  // the group of --nccl-tests on every rank
  std::iota(world.begin(), world.end(), 0);
  for (const MeasuredResult& mr : m.results) {
    const std::string token(group_token(mr.kind));
    Result<GroupList> list = mr.kind == "world" ? GroupList{world} : groups->groups(token);
    RETURN_IF_ERROR(list);
    if (mr.index >= static_cast<int>(list->size()) || (*list)[static_cast<size_t>(mr.index)] != mr.ranks)
      return Error{m.source + ": " + mr.kind + " group " + std::to_string(mr.index) +
                   " does not hold the plan's ranks: the results come from another plan"};
    CompareRow row;
    row.measured = mr;
    if (mr.wrong > 0) ++out.wrong;
    if (mr.alone_us > 0) row.measured_slowdown = mr.time_us / mr.alone_us;
    if (!out.timed) {
      out.rows.push_back(std::move(row));
      continue;
    }
    std::vector<size_t> item_groups;
    if (std::optional<size_t> i = item_of(st, token, mr)) {
      row.contended = true;
      item_groups = st.groups_of(*i, mr.index);
      double alone_us = 0;
      for (size_t k : item_groups) {
        const ScoreState::GroupTime t = st.group_time(*i, k);
        if (t.contended_us >= row.predicted_us) {
          row.predicted_us = t.contended_us;
          row.has_hot_edge = t.has_hot_edge;
          row.hot_edge = t.hot_edge;
        }
        // The same group with the item's others idle, on the same share of the fabric.
        CollectiveRequest req;
        req.op = mr.op;
        req.bytes = st.traffic().items[*i].bytes;
        req.gpus = st.item_groups(*i)[k];
        Result<CollectivePrediction> p = alone_model.predict(req);
        if (!p) return Error{mr.kind + " group " + std::to_string(mr.index) + ": " + p.error()};
        alone_us = std::max(alone_us, p->time_us);
      }
      if (alone_us > 0) row.predicted_slowdown = row.predicted_us / alone_us;
      if (row.measured.time_us > row.predicted_us * (1 + threshold))
        for (size_t k : item_groups) {
          const Touched& touched = st.item_touched(*i, k);
          std::vector<EdgeId> edges = touched.edges;
          for (uint32_t id : touched.segments)
            for (const Hop& h : *r.segment(id).hops) edges.push_back(h.edge);
          sort_unique(edges);
          for (EdgeId e : edges) ++crossed[e];
        }
    } else {
      // A size the plan does not issue (a --sizes sweep): the group alone.
      CollectiveRequest req;
      req.op = mr.op;
      req.bytes = mr.bytes;
      for (int rank : mr.ranks) req.gpus.push_back(layout.gpu_of_rank[static_cast<size_t>(rank)]);
      if (mr.op == CollectiveOp::sendrecv) req.gpus.resize(2);
      Result<CollectivePrediction> p = model.predict(req);
      if (!p) return Error{mr.kind + " group " + std::to_string(mr.index) + ": " + p.error()};
      row.predicted_us = p->time_us;
    }
    const int n = static_cast<int>(mr.ranks.size());
    row.predicted_busbw_GBps =
        row.predicted_us > 0 ? mr.bytes / (row.predicted_us * 1e3) * nccl_busbw_factor(mr.op, n) : 0;
    row.ratio = row.predicted_us > 0 ? mr.time_us / row.predicted_us : 0;
    row.slow = row.ratio > 1 + threshold;
    const std::string key = mr.kind + " " + std::to_string(mr.index);
    if (row.slow && !slow_counted[key]) {
      slow_counted[key] = true;
      ++out.slow;
    }
    out.rows.push_back(std::move(row));
  }
  // Links that more slow groups cross first; among equals, the fabric's (NET, DCI) before the links
  // inside a host, which no other job shares.
  for (const auto& [e, count] : crossed) out.suspects.push_back({e, count});
  auto fabric = [&](EdgeId e) { return c.link(e).kind == LinkKind::NET || c.link(e).kind == LinkKind::DCI; };
  std::stable_sort(out.suspects.begin(), out.suspects.end(), [&](const Suspect& a, const Suspect& b) {
    return a.slow_groups != b.slow_groups ? a.slow_groups > b.slow_groups : fabric(a.edge) && !fabric(b.edge);
  });
  if (out.suspects.size() > 10) out.suspects.resize(10);
  return out;
}

}  // namespace topoplan
