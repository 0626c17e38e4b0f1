#include "planner/score_text.h"

#include <sstream>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/score_tables.h"

namespace topoplan {
namespace {

constexpr size_t kHottest = 10;

}  // namespace

std::string score_text(const Cluster& c, const std::string& cluster, const JobScore& s) {
  std::ostringstream out;
  const ComputeEstimate& ce = s.traffic.compute;
  out << s.job << " on " << cluster << ": " << counted(s.ranks, "rank") << ", layout " << s.layout << ", "
      << to_string(s.fabric) << " fabric" << (s.background.empty() ? "" : " with background " + s.background) << "\n";
  out << "routing: " << routing_text(c.routing) << "\n";
  const StageCompute& sc = ce.slowest();
  const double kernels_us = sc.gemm_us + sc.attention_us + sc.elementwise_us;
  auto share = [&](double us) { return format_number(kernels_us > 0 ? 100 * us / kernels_us : 0, 0) + "%"; };
  out << "step " << format_duration(s.step_s) << " = compute " << format_duration(s.compute_s) << " (" << ce.gpu.model
      << " kernels at " << format_number(100 * ce.efficiency, 1) << "% of their rates: matrix products "
      << share(sc.gemm_us) << ", attention " << share(sc.attention_us) << ", element-wise " << share(sc.elementwise_us)
      << "; " << ce.micro_batches << " micro-batches, pipeline bubble " << format_number(100 * ce.bubble_idle_fraction, 1)
      << "% of the step"
      << (ce.recompute_step_us() > 0 ? ", recomputation " + format_duration(ce.recompute_step_us() / 1e6) : "")
      << ") + exposed communication " << format_duration(s.exposed_comm_s) << "\n";
  out << "MFU " << format_number(100 * s.mfu, 1) << "% (" << format_number(s.model_tflops_per_gpu, 0)
      << " model TFLOPS per GPU, recomputation not counted), HFU " << format_number(100 * s.hfu, 1) << "% ("
      << format_number(s.hardware_tflops_per_gpu, 0) << " TFLOPS counting it)\n";
  if (!s.memory.stages.empty()) out << "memory per GPU, at its peak on " << memory_text(s.memory, ce.gpu.model) << "\n";
  out << "\n";
  // Columns are as wide as their widest cell, so long names and large values never run together.
  using A = TextTable::Align;
  TextTable kinds({A::left, A::right, A::right, A::right});
  for (std::vector<std::string>& row : kind_rows(s)) kinds.add(std::move(row));
  out << kinds.str();
  if (!s.memory.stages.empty()) out << "\n" << memory_section_text(s);
  out << "\ncollectives per step (per group; the slowest group's time per call):\n";
  TextTable items({A::left, A::left, A::left, A::right, A::right, A::left, A::right, A::right, A::left});
  for (std::vector<std::string>& row : item_rows(s)) items.add(std::move(row), "  ");
  out << items.str();
  out << "\nhottest links (busiest phase first; average over the step):\n";
  TextTable links({A::left, A::left, A::left, A::right, A::right, A::left, A::right});
  for (std::vector<std::string>& row : link_rows(c, s, kHottest)) links.add(std::move(row), "  ");
  out << links.str();
  out << "\nfindings:\n" << findings_text(s.findings, s);
  return out.str();
}

std::string memory_section_text(const JobScore& s) {
  Rows rows = memory_rows(s);
  if (rows.empty()) return "";
  using A = TextTable::Align;
  TextTable table({A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right});
  for (std::vector<std::string>& row : rows) table.add(std::move(row), "  ");
  return "memory per GPU at each pipeline stage's peak (" + s.traffic.compute.gpu.model + ", " +
         format_bytes(s.memory.capacity_bytes, SizeUnits::binary) + "):\n" + table.str();
}

std::string score_verdict(const JobScore& s) {
  int critical = 0;
  for (const Finding& f : s.findings) critical += f.severity == "critical";
  return s.job + ", layout " + s.layout + ": step " + format_duration(s.step_s) + ", exposed communication " +
         format_duration(s.exposed_comm_s) + " per step, MFU " + format_number(100 * s.mfu, 1) + "%" +
         (critical ? ", " + std::to_string(critical) + (critical == 1 ? " critical finding" : " critical findings")
                   : "");
}

}  // namespace topoplan
