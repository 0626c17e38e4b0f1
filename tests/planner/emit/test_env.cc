#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"
#include "tests/support.h"

namespace topoplan {

TEST_CASE("emit env: golden files") { test::check_emit_golden("env"); }

TEST_CASE("emit env: per rank its host, its GPU alone and its NIC by its RDMA name") {
  auto dgx = test::emit_case("dgx-h100-permuted");
  std::vector<EmittedFile> files = test::emit_ok("env", *dgx);
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "ranks.env");
  CHECK(files[0].notes.empty());
  std::vector<std::string> lines = test::content_lines(files[0].text);
  REQUIRE(lines.size() == 16);
  // Rail-aligned: GPU i uses NIC i, whose name the DGX H100 user guide gives (GPU 3: mlx5_5).
  CHECK(lines[0] == "0 h002 CUDA_VISIBLE_DEVICES=3 NCCL_IB_HCA==mlx5_5");
  CHECK(lines[9] == "9 h001 CUDA_VISIBLE_DEVICES=0 NCCL_IB_HCA==mlx5_0");

  // A cluster file gives its hosts' nic_names; a GPU without a PCIe NIC takes a cabled one.
  auto lab = test::emit_case("explicit-graph");
  std::vector<std::string> l = test::content_lines(test::emit_ok("env", *lab)[0].text);
  CHECK(l[1] == "1 n1 CUDA_VISIBLE_DEVICES=1 NCCL_IB_HCA==mlx5_0");
  CHECK(l[6] == "6 n2 CUDA_VISIBLE_DEVICES=2 NCCL_IB_HCA==mlx5_1");
}

TEST_CASE("emit env: NICs without a known name get no NCCL_IB_HCA, and the file and its note say why") {
  // The PCIe L40S preset documents no RDMA names: "nic1" would match no device.
  auto l40s = test::emit_case("pcie-l40s-default");
  const EmittedFile f = test::emit_ok("env", *l40s)[0];
  CHECK(test::content_lines(f.text)[3] == "3 h001 CUDA_VISIBLE_DEVICES=3");
  REQUIRE(f.notes.size() == 1);
  CHECK(f.notes[0] ==
        "NCCL_IB_HCA left out on h[001-004]: the cluster does not know the RDMA device names of their NICs (import the "
        "server's NCCL topology or hwloc XML, or give the hosts' nic_names in the cluster file)");
  CHECK(f.text.find("# " + f.notes[0] + "\n") != std::string::npos);
  CHECK(f.text.find("NCCL_IB_HCA==") == std::string::npos);
}

TEST_CASE("emit env: an imported server's NIC names reach ranks.env" * doctest::skip(test::reference_absent())) {
  // import nccl-xml nccl-ibm-gx3d-h100-dump.xml --base dgx-h100 --nodes 2: the file's mlx5 names,
  // in rail order, not the preset's.
  const auto dir = test::temp_dir("emit-env-import");
  const std::string recipe = (dir / "c.json").string();
  auto r = test::run_topoplan("import nccl-xml " + test::sample_path("nccl-ibm-gx3d-h100-dump.xml").string() +
                              " --base dgx-h100 --nodes 2 -o " + recipe);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  Cluster c = test::load_cluster(recipe);
  Router router(c);
  Job job = test::small_job();
  job.parallel.tp = job.parallel.expert_tp = 8;
  job.parallel.dp = 1;
  Layout layout = *layout_default(c, job_ranks(job));
  Result<std::vector<EmittedFile>> files = emit("env", {c, router, job, layout});
  REQUIRE_MESSAGE(files.ok(), (files ? "" : files.error()));
  const std::vector<std::string> lines = test::content_lines((*files)[0].text);
  const Host& h = c.hosts()[0];
  REQUIRE(h.nic_names.size() == 8);
  CHECK(h.nic_names[0] == "mlx5_7");  // beside GPU 0 in the file
  CHECK(lines[0] ==
        "0 " + h.name + " CUDA_VISIBLE_DEVICES=0 NCCL_IB_HCA==" + std::string(c.hca_name(router.nic_for(h.gpus[0]))));
  CHECK(lines[0].ends_with("==mlx5_7"));
  CHECK((*files)[0].notes.empty());
  std::filesystem::remove_all(dir);
}

}  // namespace topoplan
