#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"

namespace topoplan {

TEST_CASE("emit slurm-hostfile: golden files") { test::check_emit_golden("slurm-hostfile"); }

TEST_CASE("emit slurm-hostfile: one host per rank, in rank order") {
  auto c = test::emit_case("dgx-h100-interleaved");
  std::vector<EmittedFile> files = test::emit_ok("slurm-hostfile", *c);
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "slurm.hostfile");
  std::vector<std::string> hosts = test::content_lines(files[0].text);
  REQUIRE(hosts.size() == 16);
  for (int r = 0; r < 16; ++r) CHECK(hosts[static_cast<size_t>(r)] == (r % 2 ? "h002" : "h001"));
}

TEST_CASE("emit slurm-hostfile: read back as a layout, it gives the plan's hosts") {
  for (const char* name : {"dgx-h100-default", "pcie-l40s-permuted"}) {
    auto c = test::emit_case(name);
    std::string text = test::emit_ok("slurm-hostfile", *c)[0].text;
    Result<Layout> back = layout_parse(text, "slurm.hostfile", c->cluster, c->layout.world_size());
    REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
    for (int r = 0; r < c->layout.world_size(); ++r)
      CHECK(c->cluster.device(back->gpu_of_rank[static_cast<size_t>(r)]).host ==
            c->cluster.device(c->layout.gpu_of_rank[static_cast<size_t>(r)]).host);
    // Hosts alone cannot say which GPU: the file points to ranks.env when the plan permutes them.
    CHECK((text.find("ranks.env") != std::string::npos) == (std::string(name) == "pcie-l40s-permuted"));
  }
}

}  // namespace topoplan
