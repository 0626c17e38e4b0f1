#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

std::string job_path() { return (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string(); }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The drawing's line that starts with `start`, or "".
std::string line_of(const std::string& text, const std::string& start) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(start)) return line;
  return "";
}

}  // namespace

TEST_CASE("explain --dot: the group's paths and hosts in blue on the job's load") {
  auto dir = topoplan::test::temp_dir("explain-dot");
  const std::string dot = (dir / "dp0.dot").string();
  // dp 0 holds ranks 0, 8, 16 and 24: GPU 0 of h001-h004, a ring over rail 0.
  auto r = run_topoplan("explain --cluster dgx-h100:16 --job " + job_path() + " --group dp:0 --dot " + dot);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("dp 0 (ranks 0,8,16,24) on 4 hosts (h[001-004])") != std::string::npos);
  std::string graph = topoplan::test::read_file(dot);
  CHECK(graph.find("label=\"llama3-70b: dp 0 in blue; link utilization per step") != std::string::npos);
  for (const char* host : {"h001", "h002", "h003", "h004"}) {
    CAPTURE(host);
    CHECK(line_of(graph, std::string("  \"leaf[0-7]\" -- \"") + host + "\"")
              .find("color=blue, fontcolor=blue, style=bold") != std::string::npos);
    const std::regex marked(
        "\"" + std::string(host) +
        R"(" \[label="[^"]*", shape=box, style=filled, fillcolor=palegreen, color=blue, penwidth=3\])");
    CHECK(std::regex_search(graph, marked));
  }
  CHECK(count(graph, "color=blue, penwidth=3]") == 4);
  const std::string other = line_of(graph, "  \"leaf[0-7]\" -- \"h005\"");
  REQUIRE_FALSE(other.empty());
  CHECK(other.find("blue") == std::string::npos);
  CHECK(std::count(graph.begin(), graph.end(), '\n') < 60);

  // --link: that link's edge, no host.
  r = run_topoplan("explain --cluster dgx-h100:16 --job " + job_path() + " --link 'h009/nic3 -> leaf3' --dot " + dot);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  graph = topoplan::test::read_file(dot);
  CHECK(line_of(graph, "  \"leaf[0-7]\" -- \"h009\"").find("color=blue, fontcolor=blue") != std::string::npos);
  CHECK(line_of(graph, "  \"leaf[0-7]\" -- \"h001\"").find("blue") == std::string::npos);
  CHECK(count(graph, "color=blue, penwidth=3]") == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("--dot-hosts: expand draws every device; bad values and files exit 2 with the reason") {
  auto dir = topoplan::test::temp_dir("dot-flags");
  const std::string dot = (dir / "x.dot").string();
  auto r = run_topoplan("score --cluster dgx-h100:16 --job " + job_path() + " --dot " + dot + " --dot-hosts expand");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(topoplan::test::read_file(dot).find("subgraph cluster_host_15 {") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:2 --format dot --dot-hosts expand");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("\"h002/gpu7\" [label=\"gpu7\"") != std::string::npos);

  r = run_topoplan("score --cluster dgx-h100:16 --job " + job_path() + " --dot " + dot + " --dot-hosts expnd");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--dot-hosts: unknown value 'expnd', did you mean 'expand'? (expected collapse or expand)") !=
        std::string::npos);
  r = run_topoplan("explain --cluster dgx-h100:16 --job " + job_path() + " --dot-hosts expand");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--dot-hosts requires --dot") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:2 --format json --dot-hosts expand");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--dot-hosts: only with --format dot") != std::string::npos);
  const std::string unwritable = (dir / "missing" / "x.dot").string();
  r = run_topoplan("explain --cluster dgx-h100:16 --job " + job_path() + " --group tp:0 --dot " + unwritable);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(unwritable + ": cannot write") != std::string::npos);
  std::filesystem::remove_all(dir);
}
