// The plans the emitter tests write out, small enough to read in their golden files
// (tests/golden/emit/<case>/): two DGX H100 and four PCIe L40S servers, each with the default layout
// and a permuted one (hosts reordered, a non-identity GPU order inside every host), DGX H100 ranks
// interleaved across hosts (what torchrun cannot express), and an explicit graph without core counts.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "planner/emit/emit.h"

namespace topoplan::test {

struct EmitCase {
  std::string name;  // also its golden directory, under tests/golden/emit/
  Cluster cluster;
  std::unique_ptr<Router> router;  // refers to `cluster`, so a case lives behind a pointer
  Job job;
  Layout layout;
  // With a container launch, which only the Kubernetes formats read.
  EmitInput input() const { return {cluster, *router, job, layout, launch()}; }
  static EmitLaunch launch() {
    return {"nvcr.io/nvidia/pytorch:25.01-py3", {"python", "pretrain_gpt.py", "--lr", "3e-4"}, "team-a"};
  }
};

// "dgx-h100-default", "dgx-h100-permuted", "dgx-h100-interleaved", "pcie-l40s-default",
// "pcie-l40s-permuted", "explicit-graph".
const std::vector<std::string>& emit_case_names();
std::unique_ptr<EmitCase> emit_case(const std::string& name);

// The files of one format for a case; the test stops with the emitter's message if it fails.
std::vector<EmittedFile> emit_ok(const std::string& format, const EmitCase& c);
// Compares the files of `format` for every case but `skip` with tests/golden/emit/<case>/.
void check_emit_golden(const std::string& format, const std::vector<std::string>& skip = {});
// The file's lines that are not '#' comments.
std::vector<std::string> content_lines(const std::string& text);

}  // namespace topoplan::test

// Lists of lines print one per line when a CHECK comparing them fails.
template <>
struct doctest::StringMaker<std::vector<std::string>> {
  static doctest::String convert(const std::vector<std::string>& lines) {
    std::string s = "{";
    for (const std::string& l : lines) s += "\n  " + l;
    return (s + "\n}").c_str();
  }
};
