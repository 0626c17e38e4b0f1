#include "tests/support.h"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "topology/load.h"

namespace topoplan::test {

std::filesystem::path source_dir() { return TOPOPLAN_SOURCE_DIR; }

#ifdef TOPOPLAN_TEST_MPI
std::string mpirun_validate(int ranks, const std::string& args) {
  // As root Open MPI wants --allow-run-as-root; sanitizer builds would report MPI's own leaks, and
  // CUDA's runtime needs the memory ASan keeps as a shadow gap.
  return std::string("ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 '") + TOPOPLAN_MPIEXEC +
         "' --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " '" + TOPOPLAN_VALIDATE_BINARY + "' " +
         args;
}
#endif

std::optional<std::filesystem::path> reference_dir() {
  if (reference_absent()) return std::nullopt;
  return std::filesystem::path(TOPOPLAN_SHARED_DIR) / "reference";
}

bool reference_absent() {
  static const bool absent = [] {
    std::filesystem::path p = std::filesystem::path(TOPOPLAN_SHARED_DIR) / "reference";
    if (std::filesystem::exists(p)) return false;
    // stdio, not iostream: this runs while the tests register, before iostreams may be set up.
    std::fprintf(stderr, "skipping the tests that read %s: it is absent (../shared not checked out beside the repo)\n",
                 p.string().c_str());
    return true;
  }();
  return absent;
}

std::filesystem::path sample_path(const std::string& name) {
  const auto dir = reference_dir();
  REQUIRE_MESSAGE(dir, "../shared/reference is absent: this test should skip");
  return *dir / "samples" / name;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("topoplan-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

Cluster load_cluster(const std::string& spec) {
  Result<Cluster> c = cluster_load(spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

VertexId add_device(Cluster& c, int host, const std::string& name, DeviceKind kind, int local_index, int rail) {
  Device d;
  d.name = c.hosts()[static_cast<size_t>(host)].name + "/" + name;
  d.kind = kind;
  d.host = host;
  d.local_index = static_cast<int16_t>(local_index);
  d.rail = static_cast<int16_t>(rail);
  if (kind == DeviceKind::gpu) d.model = "H100-SXM";
  Result<VertexId> v = c.add_device(d);
  REQUIRE_MESSAGE(v.ok(), (v ? "" : v.error()));
  return *v;
}

VertexId add_leaf(Cluster& c, std::initializer_list<const char*> nics) {
  Device leaf;
  leaf.name = "leaf0";
  leaf.kind = DeviceKind::switch_;
  leaf.tier = 1;
  const VertexId sw = *c.add_device(leaf);
  for (const char* nic : nics) REQUIRE(c.add_link(*c.find(nic), sw, LinkKind::NET, 50, 1));
  return sw;
}

Job small_job() {
  Job j;
  j.name = "small";
  j.model.layers = 4;
  j.model.hidden = 1024;
  j.model.ffn_hidden = 4096;
  j.model.heads = j.model.kv_heads = 16;
  j.model.head_dim = 64;
  j.model.vocab = 32000;
  j.model.swiglu = false;
  j.training.seq_length = 2048;
  j.training.global_batch = 8;
  j.parallel.tp = 2;
  j.parallel.pp = 2;
  j.parallel.dp = 2;
  j.parallel.expert_tp = 2;
  j.parallel.sequence_parallel = true;
  j.parallel.zero_stage = 1;
  // Round figures for checks by hand; 32 SMs run each of its GEMMs' 128 x 256 tiles in whole waves.
  j.compute.peak_tflops = 1000;
  j.compute.matmul_tflops = 500;
  j.compute.attention_tflops = 400;
  j.compute.hbm_GBps = 2000;
  j.compute.sms = 32;
  return j;
}

RunResult run_topoplan(const std::string& args, const std::filesystem::path& cwd) {
  auto dir = temp_dir("run");
  std::string out = (dir / "out").string(), err = (dir / "err").string();
  std::string cmd = std::string("'") + TOPOPLAN_BINARY + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  if (!cwd.empty()) cmd = "cd '" + cwd.string() + "' && " + cmd;
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace topoplan::test
