#include "planner/host_choice.h"

#include <doctest/doctest.h>

#include "tests/support.h"

using namespace topoplan;

namespace {

// data/clusters/pods-16-h100.json: 16 DGX H100, leaf groups of 2 hosts, pods of 4, 4:1 above.
Cluster small_pods() { return test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string()); }

std::vector<int> all_hosts(const Cluster& c) {
  std::vector<int> h;
  for (int i = 0; i < static_cast<int>(c.hosts().size()); ++i) h.push_back(i);
  return h;
}

HostChoice choose(const Cluster& c, const DownSet& down, const std::vector<int>& free, int gpus) {
  Result<HostChoice> r = hosts_choose(c, locality_of(c), down, free, gpus);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  return *r;
}

}  // namespace

TEST_CASE("host choice: the smallest unit that holds the job, fullest children first") {
  Cluster c = small_pods();
  // 16 GPUs fit one leaf group; 32 one pod.
  HostChoice two = choose(c, {}, all_hosts(c), 16);
  CHECK(two.hosts == std::vector<int>{0, 1});
  CHECK(two.spans[static_cast<size_t>(Level::leaf_group)] == 1);
  CHECK(choose(c, {}, all_hosts(c), 32).hosts == std::vector<int>{0, 1, 2, 3});
  // 24 GPUs: one pod, its first leaf group whole and one host of the next.
  HostChoice three = choose(c, {}, all_hosts(c), 24);
  CHECK(three.hosts == std::vector<int>{0, 1, 2});
  CHECK(three.why ==
        "3 hosts in 2 leaf groups, 1 pod, 1 site: the fewest leaf groups, pods and sites that hold 24 GPUs on whole "
        "hosts");
  // Fragmented: pod 1 has 3 free hosts, pod 2 has 4, pod 3 has 2: 32 GPUs fit pod 2 exactly.
  HostChoice best_fit = choose(c, {}, {4, 5, 6, 8, 9, 10, 11, 12, 13}, 32);
  CHECK(best_fit.hosts == std::vector<int>{8, 9, 10, 11});
  // 40 GPUs fit no pod: the fullest pod (2), then the smallest that covers the rest (pod 3).
  HostChoice two_pods = choose(c, {}, {4, 5, 6, 8, 9, 10, 11, 12, 13}, 40);
  CHECK(two_pods.hosts == std::vector<int>{8, 9, 10, 11, 12});
  CHECK(two_pods.spans[static_cast<size_t>(Level::pod)] == 2);
}

TEST_CASE("host choice: hosts with something down only when whole ones run out") {
  Cluster c = small_pods();
  Result<DownSet> down = down_parse(c, {"h001/gpu3", "h002/nic0"});
  REQUIRE(down.ok());
  HostChoice whole = choose(c, *down, all_hosts(c), 16);
  CHECK(whole.hosts == std::vector<int>{2, 3});  // h001 and h002 are not whole
  CHECK_FALSE(whole.partial_hosts);
  // Only h001..h003 offered: 23 GPUs up (h001 has 7), the job needs 23.
  HostChoice partial = choose(c, *down, {0, 1, 2}, 23);
  CHECK(partial.hosts == std::vector<int>{0, 1, 2});
  CHECK(partial.partial_hosts);
  CHECK(partial.gpus == 23);
  Result<HostChoice> short_of = hosts_choose(c, locality_of(c), *down, {0, 1}, 16);
  REQUIRE_FALSE(short_of.ok());
  CHECK(short_of.error() == "the job needs 16 GPUs; the 2 free hosts have 15 up");
}

TEST_CASE("hosts_by_name: indices in the order given; unknown and repeated names refused") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  CHECK(*hosts_by_name(c, {"h003", "h001"}) == std::vector<int>{2, 0});
  CHECK(hosts_by_name(c, {"h01"}).error().rfind("no host 'h01' in the cluster", 0) == 0);
  CHECK(hosts_by_name(c, {"h01"}).error().find("(hosts are named like 'h001')") != std::string::npos);
  CHECK(hosts_by_name(c, {"h002", "h002"}).error() == "host 'h002' is listed twice");
}
