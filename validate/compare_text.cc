#include "validate/compare_text.h"

#include <algorithm>
#include <sstream>

#include "base/text_table.h"
#include "base/units.h"

namespace topoplan {
namespace {

std::string wrong_text(int wrong) {
  return wrong == 0 ? "values right"
                    : std::to_string(wrong) + (wrong == 1 ? " result" : " results") + " with wrong values";
}

}  // namespace

std::string comparison_text(const Cluster& c, const std::string& plan_path, const std::string& measured_path,
                            const Measured& m, const Comparison& cmp) {
  std::ostringstream out;
  out << measured_path << " beside " << plan_path << ": ";
  if (cmp.timed)
    out << cmp.rows.size() << " results, " << cmp.slow << (cmp.slow == 1 ? " group" : " groups")
        << " slower than predicted by more than " << format_number(100 * cmp.threshold, 0) << "%"
        << (cmp.wrong ? ", " + wrong_text(cmp.wrong) : "") << "\n\n";
  else
    out << kCompareHostMemoryNote << " (" << m.backend
        << " backend: the CPUs' memory and MPI's transport, not the NVLink, PCIe and "
        << "NICs the model prices); " << cmp.rows.size() << " results, every group with the plan's ranks, "
        << wrong_text(cmp.wrong) << "\n\n";
  using A = TextTable::Align;
  // The slowdown of running beside the kind's other groups, where the run measured it (--alone).
  const bool slowdown =
      std::any_of(cmp.rows.begin(), cmp.rows.end(), [](const CompareRow& r) { return r.measured_slowdown > 0; });
  auto factor = [](double x) { return x > 0 ? format_number(x, 2) + "x" : std::string("-"); };
  std::vector<A> align = {A::left, A::right, A::left, A::right};
  std::vector<std::string> head = {"kind", "group", "op", "size"};
  if (cmp.timed) {
    align.insert(align.end(), {A::right, A::right, A::right, A::right, A::right});
    head.insert(head.end(), {"predicted", "measured", "ratio", "busbw pred", "busbw meas"});
  } else {
    align.insert(align.end(), {A::right, A::right});
    head.insert(head.end(), {"measured", "busbw meas"});
  }
  if (slowdown) {
    align.insert(align.end(), {A::right, A::right});
    head.insert(head.end(), {"together/alone meas", "pred"});
  }
  align.push_back(A::left);
  head.push_back("");
  std::vector<double> sizes;
  for (const CompareRow& r : cmp.rows) sizes.push_back(r.measured.bytes);
  const SizeUnits units = size_units_of(sizes);
  TextTable t(align);
  t.add(head, "  ");
  for (const CompareRow& r : cmp.rows) {
    std::vector<std::string> row = {r.measured.kind, std::to_string(r.measured.index),
                                    std::string(to_string(r.measured.op)), format_bytes(r.measured.bytes, units)};
    if (cmp.timed)
      row.insert(row.end(), {format_duration(r.predicted_us * 1e-6) + (r.contended ? "" : " (alone)"),
                             format_duration(r.measured.time_us * 1e-6), format_number(r.ratio, 2) + "x",
                             format_number(r.predicted_busbw_GBps, 2) + " GB/s",
                             format_number(r.measured.busbw_GBps, 2) + " GB/s"});
    else
      row.insert(row.end(),
                 {format_duration(r.measured.time_us * 1e-6), format_number(r.measured.busbw_GBps, 2) + " GB/s"});
    if (slowdown) row.insert(row.end(), {factor(r.measured_slowdown), cmp.timed ? factor(r.predicted_slowdown) : "-"});
    std::string verdict =
        r.slow ? "SLOW" + (r.has_hot_edge ? " (bound by " + c.edge_name(r.hot_edge) + ")" : std::string()) : "";
    if (r.measured.wrong > 0)
      verdict = "WRONG (" + std::to_string(r.measured.wrong) + " values)" + (verdict.empty() ? "" : ", " + verdict);
    row.push_back(verdict);
    t.add(row, "  ");
  }
  out << t.str();
  if (!cmp.suspects.empty()) {
    out << "\nsuspects (links the slow groups cross):\n";
    for (const Suspect& s : cmp.suspects)
      out << "  " << c.edge_name(s.edge) << " (" << to_string(c.link(s.edge).kind) << ", "
          << format_number(c.link(s.edge).bw_GBps, 1) << " GB/s): " << s.slow_groups
          << (s.slow_groups == 1 ? " slow group\n" : " slow groups\n");
  }
  if (!cmp.timed) out << "\n(for the GPUs' timing, run topoplan-validate with --backend nccl)\n";
  return out.str();
}

}  // namespace topoplan
