#include "tests/planner/emit/k8s_read_back.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/shell_words.h"
#include "planner/emit/cpu_binding.h"
#include "tests/support.h"
#include "topology/formats/kubernetes.h"

namespace topoplan::test {
namespace {

// The node affinity's values for `key`.
std::vector<std::string> affinity_values(const YAML::Node& pod, const std::string& key) {
  const YAML::Node terms =
      pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 1);
  for (const YAML::Node& m : terms[0]["matchExpressions"])
    if (m["key"].as<std::string>() == key) {
      CHECK(m["operator"].as<std::string>() == "In");
      return m["values"].as<std::vector<std::string>>();
    }
  FAIL("no node affinity on " << key);
  return {};
}

struct Ran {
  int status = -1;
  std::string out;
};

// The container's command run as the pod on each of `nodes` would run it, torchrun a stand-in;
// one shell for them all.
std::vector<Ran> run_pods(const YAML::Node& pod, const std::vector<std::string>& nodes,
                          const std::filesystem::path& dir) {
  const auto bin = dir / "bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin / "torchrun") << "#!/bin/sh\necho \"$CUDA_VISIBLE_DEVICES $*\"\n";
  std::filesystem::permissions(bin / "torchrun", std::filesystem::perms::owner_all);
  const std::string command = shell_line(pod["spec"]["containers"][0]["command"].as<std::vector<std::string>>());
  std::string script = "PATH=" + shell_word(bin.string()) + ":\"$PATH\"\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string out = shell_word((dir / ("out." + std::to_string(i))).string());
    script += "env NODE_NAME=" + shell_word(nodes[i]) + " MASTER_ADDR=m0 MASTER_PORT=23456 " + command + " >" + out +
              " 2>&1; echo $? >>" + out + "\n";
  }
  std::ofstream(dir / "pods.sh") << script;
  REQUIRE(std::system(("sh " + shell_word((dir / "pods.sh").string())).c_str()) == 0);
  std::vector<Ran> ran;
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string out = read_file(dir / ("out." + std::to_string(i)));
    // The last line is the exit status.
    const size_t last = out.rfind('\n', out.size() - 2);
    const size_t from = last == std::string::npos ? 0 : last + 1;
    ran.push_back({std::stoi(out.substr(from)), out.substr(0, from)});
  }
  return ran;
}

// The hosts a pod set may run on (its node affinity's host names), each checked: named once over
// all pod sets, carrying the labels the pod set selects on; a GPU pod set asks for all the host's
// GPUs.
std::vector<int> checked_hosts(const K8sPodSet& set, const EmitInput& in, std::set<std::string>& seen) {
  const Cluster& c = in.cluster;
  const std::vector<std::string> names = affinity_values(set.pod, "kubernetes.io/hostname");
  CHECK(static_cast<int>(names.size()) == set.pods);
  const auto labels = k8s_host_labels(c, K8sLabels::topograph);
  const YAML::Node container = set.pod["spec"]["containers"][0];
  CHECK(container["image"].as<std::string>() == in.launch.image);
  std::vector<int> hosts;
  for (const std::string& name : names) {
    INFO(set.name << " on " << name);
    CHECK(seen.insert(name).second);
    const std::optional<int> h = c.host_index(name);
    REQUIRE(h.has_value());
    hosts.push_back(*h);
    for (const auto& [key, value] : labels[static_cast<size_t>(*h)]) {
      const std::vector<std::string> values = affinity_values(set.pod, key);
      CHECK(std::find(values.begin(), values.end(), value) != values.end());
    }
    CHECK(container["resources"]["limits"]["nvidia.com/gpu"].as<int>() ==
          static_cast<int>(c.hosts()[static_cast<size_t>(*h)].gpus.size()));
  }
  return hosts;
}

void write_script(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

// A stand-in for mpirun: without --rankfile it runs its command once in each pod of PODS (that
// pod's TMPDIR, and a `hostname` that prints the pod's name); with one it prints the rankfile and
// TOPOPLAN_DEVICES, runs the rank wrapper for ranks 0, the middle and the last with a command
// that shows what the rank sees, and prints the command it was given.
std::string mpirun_stand_in(const std::filesystem::path& pods) {
  return "#!/bin/sh\n"
         "rankfile= np=\n"
         "while [ \"$1\" != sh ]; do\n"
         "  case $1 in --rankfile) rankfile=$2; shift ;; -np) np=$2; shift ;; esac\n"
         "  shift\n"
         "done\n"
         "if [ -z \"$rankfile\" ]; then\n"
         "  for pod in " +
         shell_word(pods.string()) +
         "/*; do TMPDIR=$pod PATH=$pod/bin:$PATH \"$@\"; done\n"
         "  exit\n"
         "fi\n"
         "cat \"$rankfile\"\n"
         "echo \"DEVICES $TOPOPLAN_DEVICES\"\n"
         "for r in 0 $((np / 2)) $((np - 1)); do\n"
         "  OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$np \"$1\" \"$2\" \"$3\" \"$4\" sh -c "
         "'echo \"R $RANK $WORLD_SIZE $LOCAL_RANK $CUDA_VISIBLE_DEVICES $MASTER_ADDR $MASTER_PORT\"'\n"
         "done\n"
         "shift 4\n"
         "echo \"CMD $*\"\n";
}

// An MPIJob as mpi-operator would run it, the workers landing on the planned hosts in reverse
// index order (or, with `stray`, worker 0 on a node the plan lacks): the launcher's rankfile must
// put every rank on the pod of its planned host, bound as ompi-rankfile binds it, and its device
// list give every rank its planned GPU.
void check_mpijob(const YAML::Node& doc, const EmitInput& in, bool stray) {
  const Cluster& c = in.cluster;
  const std::vector<K8sPodSet> sets = k8s_pod_sets(doc);
  REQUIRE(sets.size() == 2);
  REQUIRE(sets[0].name == "Launcher");
  REQUIRE(sets[1].name == "Worker");
  std::set<std::string> seen;
  const std::vector<int> hosts = checked_hosts(sets[1], in, seen);
  const std::string name = doc["metadata"]["name"].as<std::string>();
  const auto dir = temp_dir("k8s-mpijob");
  const auto pods = dir / "pods", bin = dir / "bin", launch = dir / "launch";
  std::filesystem::create_directories(bin);
  std::filesystem::create_directories(launch);
  write_script(bin / "mpirun", mpirun_stand_in(pods));
  // Each worker notes its node; its sshd is replaced by `true`.
  std::vector<std::string> worker = sets[1].pod["spec"]["containers"][0]["command"].as<std::vector<std::string>>();
  REQUIRE(worker.size() == 6);
  worker.resize(4);
  worker.push_back("true");
  std::string hostfile, workers;
  std::vector<std::pair<std::filesystem::path, std::string>> noted;  // what each worker must note
  std::map<std::string, int> host_of_pod;                            // by the pod's name in the hostfile
  const int slots = doc["spec"]["slotsPerWorker"].as<int>();
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string pod = name + "-worker-" + std::to_string(i);
    const int host = hosts[hosts.size() - 1 - i];
    const std::string node = stray && i == 0 ? "h999" : c.hosts()[static_cast<size_t>(host)].name;
    const auto at = pods / std::to_string(i);
    std::filesystem::create_directories(at / "bin");
    write_script(at / "bin" / "hostname", "#!/bin/sh\necho " + pod + "\n");
    workers += "env NODE_NAME=" + shell_word(node) + " TMPDIR=" + shell_word(at.string()) + " " + shell_line(worker) +
               " || exit 1\n";
    noted.emplace_back(at / "topoplan-node", node + "\n");
    hostfile += pod + "." + name + ".default.svc slots=" + std::to_string(slots) + "\n";
    host_of_pod[pod + "." + name + ".default.svc"] = host;
  }
  write_script(dir / "workers.sh", workers);
  REQUIRE(std::system(("sh " + shell_word((dir / "workers.sh").string())).c_str()) == 0);
  for (const auto& [path, node] : noted) CHECK(read_file(path) == node);
  std::ofstream(dir / "hostfile") << hostfile;
  const std::string out = (dir / "out").string();
  const int status =
      std::system(("env OMPI_MCA_orte_default_hostfile=" + shell_word((dir / "hostfile").string()) +
                   " TMPDIR=" + shell_word(launch.string()) + " PATH=" + shell_word(bin.string()) + ":\"$PATH\" " +
                   shell_line(sets[0].pod["spec"]["containers"][0]["command"].as<std::vector<std::string>>()) + " >" +
                   shell_word(out) + " 2>&1")
                      .c_str());
  const std::string text = read_file(out);
  if (stray) {
    CHECK(status != 0);
    CHECK(text.find("topoplan: no worker pod runs on node " + c.hosts()[static_cast<size_t>(hosts.back())].name) !=
          std::string::npos);
    return;
  }
  REQUIRE_MESSAGE(status == 0, text);
  const size_t world = in.layout.gpu_of_rank.size();
  std::vector<int> host_of_rank(world, -1);
  std::vector<std::string> devices;
  std::string master;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "rank") {
      // "rank R=POD slot=LIST"
      std::string spec, slot;
      words >> spec >> slot;
      const size_t r = std::stoul(spec.substr(0, spec.find('=')));
      const std::string pod = spec.substr(spec.find('=') + 1);
      REQUIRE(r < world);
      REQUIRE(host_of_pod.count(pod));
      host_of_rank[r] = host_of_pod[pod];
      if (r == 0) master = pod;
      const Device& gpu = c.device(in.layout.gpu_of_rank[r]);
      CHECK(slot == "slot=" + ompi_slot_list(cpu_bindings(c, gpu.host)[static_cast<size_t>(gpu.local_index)]));
    } else if (first == "DEVICES") {
      for (std::string d; words >> d;) devices.push_back(d);
    } else if (first == "R") {
      // "R RANK WORLD_SIZE LOCAL_RANK CUDA_VISIBLE_DEVICES MASTER_ADDR MASTER_PORT"
      size_t rank = 0, size = 0;
      std::string local, device, addr, port;
      words >> rank >> size >> local >> device >> addr >> port;
      CHECK(size == world);
      CHECK(local == "0");
      REQUIRE(rank < devices.size());
      CHECK(device == devices[rank]);
      CHECK(addr == master);
      CHECK(port == "29500");
    } else if (first == "CMD") {
      std::vector<std::string> rest;
      for (std::string w; words >> w;) rest.push_back(w);
      CHECK(rest == in.launch.command);
    }
  }
  REQUIRE(devices.size() == world);
  for (size_t r = 0; r < world; ++r) {
    INFO("rank " << r);
    REQUIRE(host_of_rank[r] >= 0);
    CHECK(in.layout.gpu_of_rank[r] ==
          c.hosts()[static_cast<size_t>(host_of_rank[r])].gpus[static_cast<size_t>(std::stoi(devices[r]))]);
  }
}

}  // namespace

std::vector<K8sPodSet> k8s_pod_sets(const YAML::Node& doc) {
  std::vector<K8sPodSet> sets;
  if (doc["kind"].as<std::string>() == "JobSet") {
    for (const YAML::Node& r : doc["spec"]["replicatedJobs"]) {
      const YAML::Node job = r["template"]["spec"];
      CHECK(job["completionMode"].as<std::string>() == "Indexed");
      CHECK(job["parallelism"].as<int>() == job["completions"].as<int>());
      sets.push_back(
          {r["name"].as<std::string>(), r["replicas"].as<int>() * job["completions"].as<int>(), job["template"]});
    }
  } else {
    const std::string kind = doc["kind"].as<std::string>();
    REQUIRE((kind == "PyTorchJob" || kind == "MPIJob"));
    for (const auto& r : doc["spec"][kind == "MPIJob" ? "mpiReplicaSpecs" : "pytorchReplicaSpecs"])
      sets.push_back({r.first.as<std::string>(), r.second["replicas"].as<int>(), r.second["template"]});
  }
  return sets;
}

void check_k8s_runs_as_planned(const std::string& text, const EmitInput& in) {
  const Cluster& c = in.cluster;
  const YAML::Node doc = YAML::Load(text);
  if (doc["kind"].as<std::string>() == "MPIJob") {
    check_mpijob(doc, in, false);
    check_mpijob(doc, in, true);
    return;
  }
  const std::vector<K8sPodSet> sets = k8s_pod_sets(doc);
  // Node rank 0's pod: JobSet's DNS name for it, or the Master's address the operator gives (run_pod's).
  const std::string master = doc["kind"].as<std::string>() == "JobSet"
                                 ? doc["metadata"]["name"].as<std::string>() + "-node-0-0-0." +
                                       doc["spec"]["network"]["subdomain"].as<std::string>()
                                 : "m0";
  const auto dir = temp_dir("k8s-" + doc["kind"].as<std::string>());
  std::vector<int> started(in.layout.gpu_of_rank.size(), 0);
  std::set<std::string> hosts_seen;
  int nnodes = 0;
  for (const K8sPodSet& set : sets) {
    const std::vector<int> hosts = checked_hosts(set, in, hosts_seen);
    std::vector<std::string> names;
    for (int h : hosts) names.push_back(c.hosts()[static_cast<size_t>(h)].name);
    const std::vector<Ran> runs = run_pods(set.pod, names, dir);
    for (size_t i = 0; i < hosts.size(); ++i) {
      const int h = hosts[i];
      const Ran& ran = runs[i];
      REQUIRE_MESSAGE(ran.status == 0, ran.out);
      // "DEVICES --nnodes=N --node-rank=K --nproc-per-node=P --master-addr=A --master-port=M --no-python CMD"
      std::istringstream words(ran.out);
      std::string devices, word;
      words >> devices;
      std::map<std::string, std::string> flags;
      while (words >> word && word != "--no-python")
        flags[word.substr(0, word.find('='))] = word.substr(word.find('=') + 1);
      std::vector<std::string> rest;
      for (std::string w; words >> w;) rest.push_back(w);
      CHECK(rest == in.launch.command);
      CHECK(flags["--master-addr"] == master);
      nnodes = std::stoi(flags["--nnodes"]);
      const int node = std::stoi(flags["--node-rank"]), nproc = std::stoi(flags["--nproc-per-node"]);
      if (set.name == "node-0" || set.name == "Master") CHECK(node == 0);
      std::istringstream list(devices);
      int local = 0;
      for (std::string d; std::getline(list, d, ','); ++local) {
        const size_t rank = static_cast<size_t>(node * nproc + local);
        REQUIRE(rank < started.size());
        CHECK(in.layout.gpu_of_rank[rank] == c.hosts()[static_cast<size_t>(h)].gpus[static_cast<size_t>(std::stoi(d))]);
        ++started[rank];
      }
      CHECK(local == nproc);
    }
    // A pod on a node the plan does not hold stops and says so.
    const Ran stray = run_pods(set.pod, {"h999"}, dir)[0];
    CHECK(stray.status == 1);
    CHECK(stray.out.find("node 'h999', which the plan does not hold") != std::string::npos);
  }
  CHECK(nnodes == static_cast<int>(hosts_seen.size()));
  CHECK(std::all_of(started.begin(), started.end(), [](int n) { return n == 1; }));
}

}  // namespace topoplan::test
