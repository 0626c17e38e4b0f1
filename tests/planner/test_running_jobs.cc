// The running jobs as given: a list of plan files and job + layout pairs, a folder of plan files,
// one plan file; and every malformed input refused with the file, the entry and what was expected.
#include "planner/running_jobs.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/support.h"

namespace topoplan {
namespace {

namespace fs = std::filesystem;

// dgx-h100:4 with tiny-8 (8 ranks, 4 GPUs a host... one host each) planned into `dir`/plan.json.
struct Files {
  fs::path dir;
  Cluster cluster = test::load_cluster("dgx-h100:4");
  Files() : dir(test::temp_dir("running-jobs")) {
    const std::string job = (test::data_dir() / "jobs" / "tiny-8.json").string();
    test::RunResult r = test::run_topoplan("plan --cluster dgx-h100:4 --nodes h001 --job " + job + " -o " +
                                           (dir / "planned").string() + " --emit json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    fs::copy_file(test::data_dir() / "jobs" / "tiny-8.json", dir / "tiny.json");
    write("b.hosts", "h002 slots=8\n");
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string error(const std::string& text) const {
    write("running.json", text);
    Result<RunningJobs> r = running_jobs_load(path("running.json"), cluster);
    REQUIRE_FALSE(r.ok());
    return r.error();
  }
};

}  // namespace

TEST_CASE("running jobs: a plan file and a job with its layout, paths beside the list") {
  Files f;
  f.write("running.json", R"({"format": "topoplan-running", "jobs": [
    {"plan": "planned/plan.json"}, {"name": "second", "job": "tiny.json", "layout": "b.hosts"}]})");
  Result<RunningJobs> r = running_jobs_load(f.path("running.json"), f.cluster);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  REQUIRE(r->jobs.size() == 2);
  CHECK(r->jobs[0].name == "tiny-8");  // the job's own name
  CHECK(r->jobs[0].where == f.path("running.json") + ": jobs[0]");
  CHECK(r->jobs[0].layout.world_size() == 8);
  CHECK(f.cluster.device(r->jobs[0].layout.gpu_of_rank[0]).host == 0);
  CHECK(r->jobs[1].name == "second");
  CHECK(f.cluster.device(r->jobs[1].layout.gpu_of_rank[7]).host == 1);
  CHECK(r->down.empty());
}

TEST_CASE("running jobs: a folder of plan files, and one plan file") {
  Files f;
  fs::create_directory(f.dir / "plans");
  fs::copy_file(f.dir / "planned" / "plan.json", f.dir / "plans" / "x.json");
  Result<RunningJobs> folder = running_jobs_load(f.path("plans"), f.cluster);
  REQUIRE_MESSAGE(folder.ok(), (folder ? "" : folder.error()));
  REQUIRE(folder->jobs.size() == 1);
  CHECK(folder->jobs[0].name == "x");
  Result<RunningJobs> one = running_jobs_load(f.path("planned/plan.json"), f.cluster);
  REQUIRE(one.ok());
  CHECK(one->jobs[0].name == "tiny-8");
  CHECK(one->jobs[0].layout.gpu_of_rank == folder->jobs[0].layout.gpu_of_rank);
  fs::create_directory(f.dir / "empty");
  Result<RunningJobs> none = running_jobs_load(f.path("empty"), f.cluster);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error() == f.path("empty") + ": expected plan files (*.json) of the running jobs, found none");
}

TEST_CASE("running jobs: malformed lists name the file, the entry and what was expected") {
  Files f;
  const std::string at = f.path("running.json");
  CHECK(f.error("{").find(at + ":1:2: ") == 0);
  CHECK(f.error(R"({"jobs": []})") ==
        at + ": expected the running jobs: a file with \"format\": \"topoplan-running\", a plan file (\"format\": "
             "\"topoplan-plan\") or a folder of plan files");
  CHECK(f.error(R"({"format": "topoplan-running"})") == at + ": missing key 'jobs'");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": []})") == at + ": jobs: expected at least one running job");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"name": "x"}]})") ==
        at + ": jobs[0]: expected \"plan\" (a plan file) or \"job\" with \"layout\" (a job file and where its ranks "
             "run)");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"job": "tiny.json"}]})") ==
        at + ": jobs[0].layout: expected the layout file that places the job's ranks (a host list, rankfile ...)");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"plan": "planned/plan.json", "layout": "b.hosts"}]})")
            .find(at + ": jobs[0].layout: a plan file brings its own placement") == 0);
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"plan": "planned/plan.json", "hosts": "b.hosts"}]})")
            .find(at + ": jobs[0]: unknown key 'hosts'") == 0);
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"name": 3, "plan": "planned/plan.json"}]})")
            .find(at + ": jobs[0].name: expected a string") == 0);
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"plan": "nowhere.json"}]})")
            .find(at + ": jobs[0]: " + f.path("nowhere.json") + ": cannot read") == 0);
  // A plan file that is something else.
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"plan": "tiny.json"}]})").find(at + ": jobs[0]: ") == 0);
}

TEST_CASE("running jobs: a host the cluster lacks, two jobs on one GPU, two jobs of one name") {
  Files f;
  const std::string at = f.path("running.json");
  f.write("far.hosts", "h002 slots=4\nh009 slots=4\n");
  const std::string unknown =
      f.error(R"({"format": "topoplan-running", "jobs": [{"job": "tiny.json", "layout": "far.hosts"}]})");
  CHECK(unknown.find(at + ": jobs[0]: " + f.path("far.hosts") + ":2:") == 0);
  CHECK(unknown.find("h009") != std::string::npos);
  f.write("a.hosts", "h002 slots=8\n");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"name": "a", "job": "tiny.json", "layout": "a.hosts"},
                    {"name": "b", "job": "tiny.json", "layout": "b.hosts"}]})") ==
        at + ": running jobs 'a' (rank 0) and 'b' (rank 0) both run on h002/gpu0: a GPU runs one job's rank");
  CHECK(f.error(R"({"format": "topoplan-running", "jobs": [{"plan": "planned/plan.json"},
                    {"job": "tiny.json", "layout": "b.hosts"}]})") ==
        at + ": jobs[1]: name: 'tiny-8' is also the name of " + at +
            ": jobs[0]; give each running job its own \"name\"");
}

}  // namespace topoplan
