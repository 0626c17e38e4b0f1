#include "topology/formats/file_format.h"

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/nvidia_smi.h"

using namespace topoplan;

TEST_CASE("file format: every real sample is told by its content" * doctest::skip(test::reference_absent())) {
  auto of = [](const char* name) { return file_format_of(test::read_file(test::sample_path(name))); };
  CHECK(of("nccl-ibm-gx3d-h100-dump.xml") == FileFormat::nccl_xml);
  CHECK(of("nccl-aws-p4d-24xl-a100-topo.xml") == FileFormat::nccl_xml);
  CHECK(of("hwloc-2socket-tesla-mlx4-ib.xml") == FileFormat::hwloc_xml);  // after <?xml?> and <!DOCTYPE>
  CHECK(of("hwloc-nvidia-dgx2h-v100-nvswitch.xml") == FileFormat::hwloc_xml);
  CHECK(of("nvsmi-topo-h100-nv18-8nic.txt") == FileFormat::nvidia_smi);
  CHECK(of("nvsmi-topo-k40m-soc-legacy.txt") == FileFormat::nvidia_smi);  // tab-separated header
  CHECK(of("slurm-topology-tree-3level.conf") == FileFormat::slurm_conf);
  CHECK(of("slurm-topology-block.conf") == FileFormat::slurm_conf);
  CHECK(of("SOURCES.md") == FileFormat::unknown);
}

TEST_CASE("file format: comments, terminal escapes and foreign files") {
  CHECK(file_format_of("  {\"format\": \"topoplan-cluster\"}") == FileFormat::json);
  CHECK(file_format_of("# rack A\n\nswitchname=s0 Nodes=h1\n") == FileFormat::slurm_conf);  // keys are case-insensitive
  CHECK(file_format_of("# written by hand\n- topology: t\n  tree: {}\n") == FileFormat::slurm_yaml);
  CHECK(file_format_of("---\n- topology: t\n") == FileFormat::slurm_yaml);
  CHECK(file_format_of("\t\x1b[4mGPU0\x1b[0m\t\x1b[4mGPU1\x1b[0m\n") == FileFormat::nvidia_smi);
  CHECK(file_format_of("<?xml version=\"1.0\"?>\n<!-- a <comment> -->\n<system version=\"1\"/>") == FileFormat::nccl_xml);
  CHECK(file_format_of("<html><body/></html>") == FileFormat::unknown);
  CHECK(file_format_of("GPU01 is not a header\n") == FileFormat::unknown);
  CHECK(file_format_of("") == FileFormat::unknown);
  CHECK(file_format_of("\n# only comments\n") == FileFormat::unknown);
  const bool slurm_has_none = node_parser(FileFormat::slurm_conf) == nullptr;  // doctest prints no function pointers
  const bool nvsmi_parsed = node_parser(FileFormat::nvidia_smi) == &nvidia_smi_topo_parse;
  CHECK(slurm_has_none);
  CHECK(nvsmi_parsed);
  CHECK(std::string(import_format_name(FileFormat::hwloc_xml)) == "hwloc");
}
