#include "planner/explain_json.h"

#include "planner/score_json.h"

namespace topoplan {
namespace {

nlohmann::json route_json(const Cluster& c, const Route& r) {
  nlohmann::json hops = nlohmann::json::array();
  for (const Hop& h : r.hops) {
    nlohmann::json hop = edge_json(c, h.edge);
    hop["share"] = h.share;
    hops.push_back(std::move(hop));
  }
  return {{"class", std::string(to_string(r.path_class))}, {"bw_GBps", r.bw_GBps}, {"paths", r.paths}, {"hops", hops}};
}

}  // namespace

nlohmann::json group_explanation_json(const Cluster& c, const GroupExplanation& g) {
  nlohmann::json j = {{"kind", g.ref.kind}, {"index", g.ref.index}, {"group", g.token},
                      {"ranks", g.ranks},   {"summary", g.summary}, {"why", g.why}};
  nlohmann::json where = nlohmann::json::array();
  for (size_t k = 0; k < g.ranks.size(); ++k) {
    const Device& d = c.device(g.gpus[k]);
    where.push_back(
        {{"rank", g.ranks[k]}, {"host", c.hosts()[static_cast<size_t>(d.host)].name}, {"gpu", d.local_index}});
  }
  j["placement"] = std::move(where);
  if (!g.found_traffic) return j;
  j["collective"] = {{"op", std::string(to_string(g.item.op))},
                     {"what", g.item.what},
                     {"bytes", g.item.bytes},
                     {"calls", g.item.calls},
                     {"alone_us", g.alone_us},
                     {"contended_us", g.contended_us}};
  j["per_step_s"] = g.per_step_s;
  j["over_best_case_s"] = g.excess_s;
  j["slowest_link"] = nullptr;
  if (g.has_slowest) {
    j["slowest_link"] = edge_json(c, g.slowest);
    j["slowest_link"]["share_of_time"] = g.behind_share;
  }
  nlohmann::json paths = nlohmann::json::array();
  for (const PairPath& p : g.paths) {
    nlohmann::json pj = route_json(c, p.route);
    pj["from_rank"] = p.from_rank;
    pj["to_rank"] = p.to_rank;
    pj["pairs_like_it"] = p.count;
    paths.push_back(std::move(pj));
  }
  j["paths"] = std::move(paths);
  nlohmann::json inside = nlohmann::json::array();
  for (const InsideUnit& u : g.inside)
    inside.push_back({{"level", std::string(to_string(u.level))},
                      {"possible", u.possible},
                      {"hosts", u.hosts},
                      {"alone_us", u.possible ? nlohmann::json(u.alone_us) : nlohmann::json(nullptr)},
                      {"why_not", u.why_not}});
  j["inside"] = std::move(inside);
  nlohmann::json moves = nlohmann::json::array();
  for (const Move& m : g.moves) {
    nlohmann::json moved = nlohmann::json::array();
    for (const auto& [rank, gpu] : m.moves_to) moved.push_back({{"rank", rank}, {"gpu", c.device(gpu).name}});
    moves.push_back({{"move", m.what},
                     {"order", m.order},
                     {"exchange", m.exchange},
                     {"moves_to", std::move(moved)},
                     {"exposed_comm_s", m.exposed_s}});
  }
  j["moves"] = std::move(moves);
  return j;
}

nlohmann::json link_explanation_json(const Cluster& c, const LinkExplanation& l) {
  nlohmann::json uses = nlohmann::json::array();
  for (const LinkExplanation::Use& u : l.uses)
    uses.push_back({{"kind", std::string(to_string(u.item.kind))},
                    {"op", std::string(to_string(u.item.op))},
                    {"what", u.item.what},
                    {"phase", std::string(to_string(u.item.phase))},
                    {"groups", u.groups},
                    {"bytes_per_step", u.bytes_per_step},
                    {"busy_s", u.busy_s}});
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : l.phases)
    phases.push_back(
        {{"phase", p.phase}, {"busy_s", p.busy_s}, {"duration_s", p.duration_s}, {"utilization", p.utilization}});
  return {{"name", c.edge_name(l.edge)},
          {"kind", std::string(to_string(c.link(l.edge).kind))},
          {"bw_GBps", c.link(l.edge).bw_GBps},
          {"uses", uses},
          {"phases", phases}};
}

}  // namespace topoplan
