#include "cost/collective_text.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/routing.h"

namespace topoplan {

namespace {

// The model works in microseconds; people read durations.
std::string time_text(double us) { return format_duration(us * 1e-6); }

}  // namespace

std::string collective_text(const CollectivePrediction& p) {
  std::ostringstream out;
  out << to_string(p.op) << " " << format_bytes(p.bytes) << " on " << counted(p.ranks, "GPU") << " ("
      << counted(p.nodes, "node") << ", " << counted(p.channels, "channel") << "): " << p.algorithm << "/"
      << to_string(p.proto) << "\n";
  out << "  time " << time_text(p.time_us) << "   algbw " << format_number(p.algbw_GBps, 1) << " GB/s   busbw "
      << format_number(p.busbw_GBps, 1) << " GB/s\n";
  out << "  latency " << time_text(p.latency_us) << " + transfer " << time_text(p.transfer_us);
  if (p.channel_bound) out << " (bound by NCCL's per-channel rate, not a link)";
  const CollectiveCandidate& chosen = p.candidates.front();
  if (chosen.window_us > std::max(chosen.link_us, chosen.cap_us))
    out << " (bound by what a connection holds in flight per DCI round trip)";
  out << "\n  busiest link " << p.bottleneck.link << " (" << to_string(p.bottleneck.kind)
      << "): " << format_bytes(p.bottleneck.bytes) << " at " << format_number(p.bottleneck.bw_GBps, 1)
      << " GB/s effective\n";
  out << "  routing: " << routing_text(p.routing) << "\n";
  if (p.even_bottleneck)
    out << "  split evenly instead (what " << to_string(p.routing.mode)
        << " routing gives on average), the busiest link would be " << p.even_bottleneck->link << ": "
        << format_bytes(p.even_bottleneck->bytes) << "; as routed the worst carries "
        << format_number(p.bottleneck.bytes / p.even_bottleneck->bytes, 2) << "x that\n";
  out << "  candidates:";
  for (size_t i = 0; i < p.candidates.size() && i < 6; ++i)
    out << (i ? ", " : " ") << p.candidates[i].algorithm << "/" << to_string(p.candidates[i].proto) << " "
        << time_text(p.candidates[i].time_us);
  out << "\n";
  return out.str();
}

std::string collective_why_text(const Cluster& c, const CollectivePrediction& p) {
  std::ostringstream out;
  const std::vector<CollectiveCandidate>& cs = p.candidates;
  const size_t shown = std::min<size_t>(cs.size(), 2);
  auto us = [](double x) { return x > 0 ? time_text(x) : std::string("-"); };
  using A = TextTable::Align;
  std::vector<A> align = {A::left};
  std::vector<std::string> head = {""};
  for (size_t i = 0; i < shown; ++i) {
    align.push_back(A::right);
    head.push_back(cs[i].algorithm + "/" + std::string(to_string(cs[i].proto)) + (i ? " (runner-up)" : " (chosen)"));
  }
  TextTable t(align);
  t.add(head, "  ");
  auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> r = {name};
    for (size_t i = 0; i < shown; ++i) r.push_back(value(cs[i]));
    t.add(r, "  ");
  };
  row("NCCL latency", [&](const CollectiveCandidate& x) { return us(x.nccl_latency_us); });
  row("launch + per-class (calibration)", [&](const CollectiveCandidate& x) { return us(x.overhead_us); });
  row("DCI propagation", [&](const CollectiveCandidate& x) { return us(x.dci_us); });
  row("busiest link", [&](const CollectiveCandidate& x) { return us(x.link_us); });
  if (p.even_bottleneck)
    row("  the same split evenly (expected)", [&](const CollectiveCandidate& x) { return us(x.even_link_us); });
  row("channel cap", [&](const CollectiveCandidate& x) { return us(x.cap_us); });
  row("DCI window (in flight per round trip)", [&](const CollectiveCandidate& x) { return us(x.window_us); });
  row("pipeline fill", [&](const CollectiveCandidate& x) { return us(x.fill_us); });
  row("total", [&](const CollectiveCandidate& x) { return time_text(x.time_us); });
  row("NCCL's own estimate (what it picks by)", [&](const CollectiveCandidate& x) { return us(x.nccl_time_us); });
  out << "why " << p.algorithm << "/" << to_string(p.proto) << " ("
      << (p.tuner_pick ? "NCCL's tuner picks it" : "fastest here; NCCL's pick is not modelled") << "; " << p.channels
      << " channels" << (p.nvls_heads > 0 ? ", " + std::to_string(p.nvls_heads) + " NVLS heads" : std::string())
      << "):\n"
      << t.str();
  for (size_t i = 0; i < shown; ++i) {
    const CollectiveCandidate& x = cs[i];
    out << "  " << x.algorithm << "/" << to_string(x.proto) << ": ";
    if (x.has_link)
      out << "busiest link " << c.edge_name(x.link_edge) << " (" << to_string(c.link(x.link_edge).kind) << "), "
          << format_bytes(x.link_bytes) << " at " << format_number(x.link_GBps, 1) << " GB/s effective";
    if (x.cap_us > 0) out << "; NCCL's channel cap " << format_number(x.cap_GBps, 1) << " GB/s on the size";
    const char* bound = x.window_us > std::max(x.link_us, x.cap_us) ? "the DCI window (in flight per round trip)"
                        : x.cap_us > x.link_us                      ? "the channel cap"
                        : x.latency_us > x.transfer_us              ? "latency"
                                                                    : "the link";
    out << "; bound by " << bound << "\n";
  }
  if (shown == 2 && cs[1].time_us < cs[0].time_us)
    out << "  the runner-up would be " << time_text(cs[0].time_us - cs[1].time_us)
        << " faster on these links, but NCCL's own estimate rates it " << time_text(cs[1].nccl_time_us) << " against "
        << time_text(cs[0].nccl_time_us) << "\n";
  else if (shown == 2)
    out << "  the runner-up loses by " << time_text(cs[1].time_us - cs[0].time_us) << ": latency "
        << (cs[1].latency_us >= cs[0].latency_us ? "+" : "-")
        << time_text(std::abs(cs[1].latency_us - cs[0].latency_us)) << ", transfer "
        << (cs[1].transfer_us >= cs[0].transfer_us ? "+" : "-")
        << time_text(std::abs(cs[1].transfer_us - cs[0].transfer_us)) << "\n";
  return out.str();
}

// nccl-tests' layout: '#' comment lines, then one row per size; columns as wide as their values.
std::string collective_sweep_text(const std::string& cluster, const std::vector<CollectivePrediction>& rows) {
  std::ostringstream out;
  const CollectivePrediction& first = rows.front();
  out << "# topoplan collective " << to_string(first.op) << " on " << cluster << ": " << counted(first.ranks, "rank")
      << ", " << counted(first.nodes, "node") << ", " << counted(first.channels, "channel") << "\n";
  out << "# routing: " << routing_text(first.routing) << "\n";
  using A = TextTable::Align;
  TextTable table({A::right, A::right, A::right, A::right, A::left, A::left});
  table.add({"size", "time_us", "algbw_GBps", "busbw_GBps", "algorithm", "protocol"}, "#");
  auto fixed2 = [](double x) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << x;
    return s.str();
  };
  for (const CollectivePrediction& p : rows)
    table.add({std::to_string(static_cast<long long>(p.bytes)), fixed2(p.time_us), fixed2(p.algbw_GBps),
               fixed2(p.busbw_GBps), p.algorithm, std::string(to_string(p.proto))});
  out << table.str();
  return out.str();
}

}  // namespace topoplan
