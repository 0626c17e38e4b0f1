#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

std::string sample(const std::string& name) { return topoplan::test::sample_path(name).string(); }

}  // namespace

TEST_CASE("import: nvidia-smi into a recipe that the other commands take" *
          doctest::skip(topoplan::test::reference_absent())) {
  const auto dir = topoplan::test::temp_dir("import");
  const std::string recipe = (dir / "lab.json").string();
  auto r = run_topoplan("import nvidia-smi " + sample("nvsmi-topo-h100-nv18-8nic.txt") +
                        " --base dgx-h100 --name lab-h100 --nodes 4 -o " + recipe);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("node type 'lab-h100': 8 x H100-SXM5, 8 NICs, 2 CPUs") != std::string::npos);
  CHECK(r.out.find("18 NVLinks per GPU x 25 GB/s per link") != std::string::npos);
  CHECK(r.out.find("wrote " + recipe + ": a cluster recipe of 4 such nodes") != std::string::npos);
  auto show = run_topoplan("topo show " + recipe + " --json");
  REQUIRE_MESSAGE(show.exit_code == 0, show.err);
  auto j = nlohmann::json::parse(show.out);
  CHECK(j["gpus"] == 32);
  CHECK(j["nics"] == 32);
  // The same cluster as the preset it matches.
  auto preset = nlohmann::json::parse(run_topoplan("topo show dgx-h100:4 --json").out);
  CHECK(j["devices"] == preset["devices"]);
  CHECK(j["links"] == preset["links"]);
}

TEST_CASE("import: --json carries the node type, where each value came from, the NIC names" *
          doctest::skip(topoplan::test::reference_absent())) {
  auto r = run_topoplan("import nccl-xml " + sample("nccl-ibm-gx3d-h100-dump.xml") +
                        " --gpu-model H100-SXM5 --pcie-rate 63GB/s --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["node_type"]["nic_rate"] == "200Gbps");
  CHECK(j["node_type"]["nvlink_rate"] == "450GB/s");
  CHECK(j["node_type"]["cpu_model"] == "Xeon");
  CHECK(j["sources"]["pcie_rate"] == "--pcie-rate");
  CHECK(j["sources"]["nic_rate"] == "file");
  CHECK(j["node_type"]["nic_names"][0] == "mlx5_7");
  CHECK(j["node_type"]["gpu_busids"][0] == "0000:a4:00.0");
  // The file names the vendor only: the socket link is NCCL's for a Xeon of unknown generation.
  CHECK(j["sources"]["cpu_link_rate"].get<std::string>().find("cpu_model Xeon: 10 GB/s, NCCL v2.30.7-1 SKL_QPI_BW") ==
        0);
  r = run_topoplan("import nccl-xml " + sample("nccl-ibm-gx3d-h100-dump.xml") +
                   " --gpu-model H100-SXM5 --pcie-rate 63GB/s --cpu-model Xeon-8408C");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(
      r.err.find("cpu_model: unknown CPU model 'Xeon-8408C', did you mean 'Xeon-8480C'?") != std::string::npos, r.err);
}

TEST_CASE("import: bad input exits 2 with one line") {
  const auto dir = topoplan::test::temp_dir("import-bad");
  auto r = run_topoplan("import lstopo x.txt");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "topoplan: error: FORMAT: unknown format 'lstopo' (formats: nvidia-smi, nccl-xml, hwloc, ibnetdiscover, "
        "slurm-topology)\n");
  r = run_topoplan("import nvidia-smi " + (dir / "absent.txt").string() + " --base dgx-h100");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot read") != std::string::npos);
  r = run_topoplan("import nvidia-smi x.txt --base dgx-h200");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--base: unknown preset 'dgx-h200'") != std::string::npos);
  r = run_topoplan("import nvidia-smi x.txt --nic-rate fast");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--nic-rate: ") != std::string::npos);
}

TEST_CASE("import: a cluster from parts: Slurm's tree with a node type from nvidia-smi" *
          doctest::skip(topoplan::test::reference_absent())) {
  const auto dir = topoplan::test::temp_dir("import-slurm");
  const std::string node = (dir / "node.json").string(), cluster = (dir / "cluster.json").string();
  auto r = run_topoplan("import nvidia-smi " + sample("nvsmi-topo-a100-nv12-8nic.txt") + " --base dgx-a100 -o " + node);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  r = run_topoplan("import slurm-topology " + sample("slurm-topology-tree-3level.conf") + " --node-type " + node +
                   " -o " + cluster);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find(
            "400 hosts of nvsmi-topo-a100-nv12-8nic (3200 GPUs), switches 20 at tier 1, 2 at tier 2, 1 at tier 3") !=
        std::string::npos);
  auto path = run_topoplan("topo path " + cluster + " peta10000/gpu0 peta10399/gpu0 --json");
  REQUIRE_MESSAGE(path.exit_code == 0, path.err);
  CHECK(nlohmann::json::parse(path.out)["class"] == "NET");
  auto tree = run_topoplan("topo export " + cluster + " --format slurm-tree");
  REQUIRE(tree.exit_code == 0);
  CHECK(tree.out.find("SwitchName=grp10 Switches=leaf[100-109]\n") != std::string::npos);
  r = run_topoplan("import slurm-topology " + sample("slurm-topology-block.conf"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("give --node-type PRESET or FILE") != std::string::npos);
  r = run_topoplan("import nvidia-smi x.txt --node-type dgx-h100");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--node-type: only with ibnetdiscover or slurm-topology") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:2 --format slurm");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("expected dot, nccl-xml, json, slurm-tree, slurm-block, slurm-yaml, k8s-labels or kueue-topology") !=
        std::string::npos);
  r = run_topoplan("topo export dgx-h100:2 --format k8s-labels --labels tier");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--labels: unknown scheme 'tier' (expected topograph or tiers)") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:2 --format slurm-tree --labels tiers");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--labels: only with --format k8s-labels or kueue-topology") != std::string::npos);
}

TEST_CASE("import: CLUSTER arguments take other tools' files: FILE:N servers, topology.yaml@NODE" *
          doctest::skip(topoplan::test::reference_absent())) {
  const auto dir = topoplan::test::temp_dir("import-direct");
  const std::string node = (dir / "a100.json").string(), yaml = (dir / "topology.yaml").string();
  auto r = run_topoplan("import nvidia-smi " + sample("nvsmi-topo-a100-nv12-8nic.txt") + " --base dgx-a100 -o " + node);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // A node type file with a count is a cluster on the default fabric, scored like the preset.
  auto direct = run_topoplan("topo show " + node + ":4 --json");
  REQUIRE_MESSAGE(direct.exit_code == 0, direct.err);
  CHECK(nlohmann::json::parse(direct.out)["devices"]["gpu"] == 32);
  // topology.yaml written from a cluster, read back with a node file for its hosts.
  REQUIRE(run_topoplan("topo export dgx-h100:64 --format slurm-yaml -o " + yaml).exit_code == 0);
  auto slurm = run_topoplan("topo show " + yaml + "@" + node + " --json");
  REQUIRE_MESSAGE(slurm.exit_code == 0, slurm.err);
  CHECK(nlohmann::json::parse(slurm.out)["devices"]["gpu"] == 512);
  r = run_topoplan("import slurm-topology " + yaml + " --node-type dgx-h100 --topology block --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["notes"][0] == "topology block of 2 in the file");

  // Each form that cannot be a cluster says what would be.
  r = run_topoplan("topo show " + sample("nvsmi-topo-a100-nv12-8nic.txt"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("describes one server (nvidia-smi topo -m): give ") != std::string::npos);
  r = run_topoplan("topo show " + sample("nvsmi-topo-a100-nv12-8nic.txt") + ":4");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("\n  the GPU model: --gpu-model M") != std::string::npos);
  CHECK(r.err.find("\n  the NIC rate: --nic-rate R") != std::string::npos);
  CHECK(r.err.find("\n(the options are `topoplan import nvidia-smi ") != std::string::npos);
  r = run_topoplan("topo show " + yaml);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("(Slurm topology.yaml) names hosts, not what is in them: give ") != std::string::npos);
  r = run_topoplan("topo show " + node);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is a node type: give ") != std::string::npos);
  r = run_topoplan("topo show " + node + ":0");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("expected FILE:N with N a positive number of nodes, got '0'") != std::string::npos);
  r = run_topoplan("topo show " + node + ":9999999");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("9999999 nodes of 8 GPUs are more than the limit of") != std::string::npos);
  r = run_topoplan("topo show " + (topoplan::test::data_dir() / "clusters" / "lab-h100.json").string() + ":4");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is a cluster file already: give it without :4") != std::string::npos);
  r = run_topoplan("topo show " + yaml + "@");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("expected FILE@NODE") != std::string::npos);
  r = run_topoplan("topo show missing.xml:4");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("error: missing.xml: cannot read") != std::string::npos);
  r = run_topoplan("topo show " + sample("SOURCES.md"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(": not a cluster: expected a recipe or graph (JSON)") != std::string::npos);
  // A .yaml file whose content names no format is read as YAML, for YAML's error.
  const std::string map = (dir / "map.yaml").string();
  { std::ofstream(map) << "just: a map\n"; }
  r = run_topoplan("import slurm-topology " + map + " --node-type dgx-h100");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("map.yaml:1: expected a list of topologies ('- topology: NAME')") != std::string::npos);
  r = run_topoplan("import nvidia-smi x.txt --topology tree");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--topology: only with a fabric's file of several topologies (Slurm's topology.yaml)") !=
        std::string::npos);
}

TEST_CASE("discover: this machine, without GPUs as on CI, says so and exits 0") {
  auto r = run_topoplan("discover");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("this host: ") == 0);
  auto j = nlohmann::json::parse(run_topoplan("discover --json").out);
  CHECK(j["found"]["numa_nodes"].get<int>() >= 1);
  if (j["found"]["gpus"] == 0) CHECK(j["node_type"].is_null());
  r = run_topoplan("discover --xml /nonexistent.xml");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent.xml") != std::string::npos);
}

TEST_CASE("topo export --format nccl-xml: one server's NCCL_TOPO_FILE from a preset, a recipe or a node type") {
  auto r = run_topoplan("topo export dgx-h100 --format nccl-xml");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("<system version=\"1\">") != std::string::npos);
  CHECK(r.out.find("vendor=\"GenuineIntel\"") != std::string::npos);
  CHECK(r.out.find("link_speed=\"32.0 GT/s PCIe\"") != std::string::npos);
  CHECK(run_topoplan("topo export dgx-h100:4 --format nccl-xml").out == r.out);
  const auto dir = topoplan::test::temp_dir("export-nccl");
  const std::string graph = (dir / "graph.json").string();
  REQUIRE(run_topoplan("topo export dgx-h100:2 --format json -o " + graph).exit_code == 0);
  r = run_topoplan("topo export " + graph + " --format nccl-xml");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("an explicit graph keeps no node type") != std::string::npos);
  r = run_topoplan("topo export gb200-nvl72 --format nccl-xml");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("Grace trays") != std::string::npos);
}

TEST_CASE("import: DGX-1's NVLink mesh from nvidia-smi, scored on the rings NCCL packs" *
          doctest::skip(topoplan::test::reference_absent())) {
  const auto dir = topoplan::test::temp_dir("import-dgx1");
  const std::string node = (dir / "dgx1.json").string();
  auto r = run_topoplan("import nvidia-smi " + sample("nvsmi-topo-dgx1-v100-hybridcube-4nic.txt") +
                        " --gpu-model V100-SXM2 --nic-rate 100Gbps --pcie-rate 15.75GB/s -o " + node);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("nvlink_bonds          a mesh, 16 GPU pairs bonded: 8 by 2 NVLinks, 8 by 1 NVLink  file: GPUs "
                   "bonded point to point") != std::string::npos);
  auto all = run_topoplan("collective --cluster " + node + ":1 --op all_reduce --size 1GiB --json");
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  const nlohmann::json one = nlohmann::json::parse(all.out);
  CHECK(one["channels"] == 12);  // 6 rings, doubled, as NCCL's logs on such machines show
  CHECK(one["bottleneck"]["class"] == "NVL");
  CHECK(one["busbw_GBps"].get<double>() < 150);  // six NVLink2 links at 25 GB/s
  auto nvb = run_topoplan("topo path " + node + ":1 h001/gpu0 h001/gpu5 --json");
  REQUIRE_MESSAGE(nvb.exit_code == 0, nvb.err);
  CHECK(nlohmann::json::parse(nvb.out)["class"] == "NVB");
  // --nvlinks cannot flatten the mesh into one count per GPU.
  r = run_topoplan("import nvidia-smi " + sample("nvsmi-topo-dgx1-v100-hybridcube-4nic.txt") +
                   " --gpu-model V100-SXM2 --nvlinks 6");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--nvlinks: the file bonds GPUs to each other point to point") != std::string::npos);
}

namespace {

// The options an "asks once" message lists, one a line: "  the NIC rate: --nic-rate R, ...".
std::vector<std::string> options_asked(const std::string& err) {
  std::vector<std::string> out;
  for (size_t at = err.find("\n  "); at != std::string::npos; at = err.find("\n  ", at + 1)) {
    const size_t flag = err.find(": --", at);
    const size_t end = err.find_first_of(" ,", flag + 2);
    if (flag != std::string::npos && flag < err.find('\n', at + 1)) out.push_back(err.substr(flag + 2, end - flag - 2));
  }
  return out;
}

}  // namespace

TEST_CASE("import asks once: every sample's missing values in one message; given them, it imports" *
          doctest::skip(topoplan::test::reference_absent())) {
  // A value for each option a message may ask for; the GPU model the sample's source names.
  const std::map<std::string, std::string> value = {{"--nic-rate", "200Gbps"},
                                                    {"--pcie-rate", "31.5GB/s"},
                                                    {"--cpu-model", "Xeon-8480C"},
                                                    {"--nvlinks", "12"},
                                                    {"--nvlink-rate", "25GB/s"}};
  struct Sample {
    const char* format;
    const char* file;
    const char* gpu_model;
    std::vector<std::string> asked;  // what the file alone leaves out
  };
  const Sample samples[] = {
      {"nvidia-smi",
       "nvsmi-topo-pcie-rtx6000ada-4nic.txt",
       "RTX-6000-Ada",
       {"--gpu-model", "--nic-rate", "--pcie-rate", "--cpu-model"}},
      {"nvidia-smi",
       "nvsmi-topo-h100-nv18-8nic.txt",
       "H100-SXM5",
       {"--gpu-model", "--nic-rate", "--pcie-rate", "--cpu-model"}},
      {"nvidia-smi",
       "nvsmi-topo-a100-nv12-8nic.txt",
       "A100-SXM4",
       {"--gpu-model", "--nic-rate", "--pcie-rate", "--cpu-model"}},
      {"nvidia-smi",
       "nvsmi-topo-dgx1-v100-hybridcube-4nic.txt",
       "V100-SXM2",
       {"--gpu-model", "--nic-rate", "--pcie-rate"}},
      {"nvidia-smi",
       "nvsmi-topo-k40m-soc-legacy.txt",
       "K40m",
       {"--gpu-model", "--nic-rate", "--pcie-rate", "--cpu-model"}},
      {"nccl-xml", "nccl-azure-ndv5-h100-topo.xml", "H100-SXM5", {"--gpu-model", "--nvlinks", "--nic-rate"}},
      {"nccl-xml", "nccl-azure-ndv4-a100-topo.xml", "A100-SXM4", {"--gpu-model", "--nvlinks", "--nic-rate"}},
      {"nccl-xml", "nccl-aws-p4d-24xl-a100-topo.xml", "A100-SXM4", {"--nvlinks", "--nic-rate"}},
      {"nccl-xml", "nccl-ibm-gx3d-h100-dump.xml", "H100-SXM5", {"--pcie-rate"}},
      {"hwloc", "hwloc-nvidia-dgx2h-v100-nvswitch.xml", "V100-SXM3", {}},
  };
  for (const Sample& s : samples) {
    CAPTURE(s.file);
    const std::string base = std::string("import ") + s.format + " " + sample(s.file);
    auto first = run_topoplan(base);
    if (s.asked.empty()) {
      CHECK_MESSAGE(first.exit_code == 0, first.err);
      continue;
    }
    REQUIRE(first.exit_code == 2);
    const std::vector<std::string> asked = options_asked(first.err);
    CHECK_MESSAGE(asked == s.asked, first.err);
    // Given what it asked for, the import succeeds: nothing is asked on a second run.
    std::string args = base;
    for (const std::string& flag : asked)
      args += " " + flag + " " + (flag == "--gpu-model" ? s.gpu_model : value.at(flag));
    auto second = run_topoplan(args);
    const std::string said = args + "\n" + second.err;
    CHECK_MESSAGE(second.exit_code == 0, said);
  }
  // What a node type cannot express is refused with its reason, not asked for.
  auto refused = run_topoplan("import hwloc " + sample("hwloc-2socket-tesla-mlx4-ib.xml"));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("out of step with the GPUs before it") != std::string::npos);
  CHECK(options_asked(refused.err).empty());
  // Slurm's import with a server file for --node-type asks the same way, naming the import to run.
  auto slurm = run_topoplan("import slurm-topology " + sample("slurm-topology-block.conf") + " --node-type " +
                            sample("nvsmi-topo-pcie-rtx6000ada-4nic.txt"));
  CHECK(slurm.exit_code == 2);
  CHECK(options_asked(slurm.err) ==
        std::vector<std::string>{"--gpu-model", "--nic-rate", "--pcie-rate", "--cpu-model"});
  CHECK(slurm.err.find("(the options are `topoplan import nvidia-smi ") != std::string::npos);
}

TEST_CASE("import: ibnetdiscover into a cluster file that score and plan read back") {
  const auto dir = topoplan::test::temp_dir("import-ibnetdiscover");
  const std::string fabric =
      (topoplan::test::source_dir() / "tests" / "samples" / "ibnetdiscover" / "ibsim-2switch-2hcas.txt").string();
  const std::string cluster = (dir / "cluster.json").string();
  auto r = run_topoplan("import ibnetdiscover " + fabric + " --node-type dgx-h100 -o " + cluster);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("2 hosts of dgx-h100 (16 GPUs), switches 1 at tier 1, 1 at tier 2") != std::string::npos);
  CHECK(r.out.find("wrote " + cluster) != std::string::npos);
  // Told by content: the same file as FILE@NODE.
  auto show = run_topoplan("topo show " + fabric + "@dgx-h100 --json");
  REQUIRE_MESSAGE(show.exit_code == 0, show.err);
  CHECK(nlohmann::json::parse(show.out)["gpus"] == 16);
  const std::string job = (topoplan::test::data_dir() / "jobs" / "tiny-8.json").string();
  auto score = run_topoplan("score --cluster " + cluster + " --job " + job + " --json");
  REQUIRE_MESSAGE(score.exit_code == 0, score.err);
  auto plan = run_topoplan("plan --cluster " + cluster + " --job " + job);
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  CHECK(plan.out.starts_with("plan: "));
  r = run_topoplan("import ibnetdiscover " + fabric);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "topoplan: error: ibnetdiscover: give --node-type PRESET or FILE: InfiniBand ibnetdiscover names hosts, not "
        "what is in them\n");
  const std::string bad = (dir / "bad.txt").string();
  std::ofstream(bad) << "Switch 36 \"S-01\" # \"leaf\"\n[1] \"H-02\"[1](2) # \"n\" lid 2 4xHDR\nCa 1 \"H-02\" # \"n "
                        "mlx5_0\"\n[1](2) \"S-01\"[1] # 3xHDR\n";
  r = run_topoplan("import ibnetdiscover " + bad + " --node-type dgx-h100");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "topoplan: error: " + bad + ":4: \"H-02\"[1]: unknown link width '3x' (expected 1x, 2x, 4x, 8x or 12x)\n");
  r = run_topoplan("import ibnetdisco " + fabric);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown format 'ibnetdisco', did you mean 'ibnetdiscover'?") != std::string::npos);
}
