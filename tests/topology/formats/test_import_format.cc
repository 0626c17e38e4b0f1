#include "topology/formats/import_format.h"

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/nvidia_smi.h"

using namespace topoplan;

namespace {

// The display name of the format the content shows, "" for none (JSON and foreign files).
std::string of(std::string_view text) {
  const ImportFormat* f = import_format_of(text);
  return f ? f->display : "";
}

}  // namespace

TEST_CASE("import format: every real sample is told by its content" * doctest::skip(test::reference_absent())) {
  auto sample = [](const char* name) { return of(test::read_file(test::sample_path(name))); };
  CHECK(sample("nccl-ibm-gx3d-h100-dump.xml") == "NCCL topology XML");
  CHECK(sample("nccl-aws-p4d-24xl-a100-topo.xml") == "NCCL topology XML");
  CHECK(sample("hwloc-2socket-tesla-mlx4-ib.xml") == "hwloc XML");  // after <?xml?> and <!DOCTYPE>
  CHECK(sample("hwloc-nvidia-dgx2h-v100-nvswitch.xml") == "hwloc XML");
  CHECK(sample("nvsmi-topo-h100-nv18-8nic.txt") == "nvidia-smi topo -m");
  CHECK(sample("nvsmi-topo-k40m-soc-legacy.txt") == "nvidia-smi topo -m");  // tab-separated header
  CHECK(sample("slurm-topology-tree-3level.conf") == "Slurm topology.conf");
  CHECK(sample("slurm-topology-block.conf") == "Slurm topology.conf");
  CHECK(sample("SOURCES.md") == "");
}

TEST_CASE("import format: comments, terminal escapes and foreign files") {
  CHECK(json_of("  {\"format\": \"topoplan-cluster\"}"));
  CHECK(of("  {\"format\": \"topoplan-cluster\"}") == "");
  CHECK(of("# rack A\n\nswitchname=s0 Nodes=h1\n") == "Slurm topology.conf");  // keys are case-insensitive
  CHECK(of("# written by hand\n- topology: t\n  tree: {}\n") == "Slurm topology.yaml");
  CHECK(of("---\n- topology: t\n") == "Slurm topology.yaml");
  CHECK(of("\t\x1b[4mGPU0\x1b[0m\t\x1b[4mGPU1\x1b[0m\n") == "nvidia-smi topo -m");
  CHECK(of("<?xml version=\"1.0\"?>\n<!-- a <comment> -->\n<system version=\"1\"/>") == "NCCL topology XML");
  CHECK(of("<html><body/></html>") == "");
  CHECK(of("GPU01 is not a header\n") == "");
  CHECK(of("") == "");
  CHECK(of("\n# only comments\n") == "");
  CHECK_FALSE(json_of("\n# only comments\n"));
}

TEST_CASE("import format: the table names, parses and lists every format") {
  Result<const ImportFormat*> hwloc = import_format_named("hwloc");
  REQUIRE(hwloc);
  CHECK(std::string((*hwloc)->display) == "hwloc XML");
  const bool nvsmi_parsed =
      (*import_format_named("nvidia-smi"))->node == &nvidia_smi_topo_parse;  // doctest prints no function pointers
  CHECK(nvsmi_parsed);
  Result<const ImportFormat*> slurm = import_format_named("slurm-topology");
  REQUIRE(slurm);
  const bool slurm_builds_a_cluster = (*slurm)->node == nullptr && (*slurm)->cluster != nullptr;
  CHECK(slurm_builds_a_cluster);
  // Slurm's two files share one import name, listed once.
  CHECK(import_format_names(ImportKind::cluster) == "ibnetdiscover or slurm-topology");
  CHECK(import_format_names(ImportKind::node) == "nvidia-smi, nccl-xml or hwloc");
  CHECK(import_format_help(ImportKind::node).find("hwloc (lstopo --of xml)") != std::string::npos);
  Result<const ImportFormat*> typo = import_format_named("nvidia-sm");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().find("unknown format 'nvidia-sm', did you mean 'nvidia-smi'? (formats: ") != std::string::npos);
  for (const ImportFormat& f : import_formats()) CHECK_MESSAGE((f.node == nullptr) != (f.cluster == nullptr), f.name);
}
