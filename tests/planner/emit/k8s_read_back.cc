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
#include "tests/support.h"
#include "topology/formats/kubernetes.h"

namespace topoplan::test {
namespace {
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
    REQUIRE(doc["kind"].as<std::string>() == "PyTorchJob");
    for (const auto& r : doc["spec"]["pytorchReplicaSpecs"])
      sets.push_back({r.first.as<std::string>(), r.second["replicas"].as<int>(), r.second["template"]});
  }
  return sets;
}

// The node affinity's values for `key`.

// Every rank started once on its planned GPU, read off the manifest alone.
void check_k8s_runs_as_planned(const std::string& text, const EmitInput& in) {
  const Cluster& c = in.cluster;
  const YAML::Node doc = YAML::Load(text);
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
    const std::vector<std::string> hosts = affinity_values(set.pod, "kubernetes.io/hostname");
    CHECK(static_cast<int>(hosts.size()) == set.pods);
    const auto labels = k8s_host_labels(c, K8sLabels::topograph);
    const std::vector<Ran> runs = run_pods(set.pod, hosts, dir);
    for (size_t i = 0; i < hosts.size(); ++i) {
      const std::string& host = hosts[i];
      INFO(set.name << " on " << host);
      CHECK(hosts_seen.insert(host).second);
      const std::optional<int> found = c.host_index(host);
      REQUIRE(found.has_value());
      const int h = *found;
      for (const auto& [key, value] : labels[static_cast<size_t>(h)]) {
        const std::vector<std::string> values = affinity_values(set.pod, key);
        CHECK(std::find(values.begin(), values.end(), value) != values.end());
      }
      const YAML::Node container = set.pod["spec"]["containers"][0];
      CHECK(container["image"].as<std::string>() == in.launch.image);
      CHECK(container["resources"]["limits"]["nvidia.com/gpu"].as<int>() ==
            static_cast<int>(c.hosts()[static_cast<size_t>(h)].gpus.size()));
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
