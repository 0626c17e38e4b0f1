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
  CHECK(f.error(R"({"format": "topoplan-running"})") ==
        at + ": jobs: expected the running jobs: \"jobs\" (plans, or job and layout files), or \"slurm\" with "
             "\"slurm_jobs\"");
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

TEST_CASE("running jobs: from Slurm's view, each job's file named by its id or name") {
  Files f;
  f.write("jobs.txt",
          "JobId=12 JobName=pretrain\n   JobState=RUNNING Reason=None\n   NodeList=h[002-003]\n\n"
          "JobId=13 JobName=sft\n   JobState=RUNNING\n   NodeList=h004\n\n"
          "JobId=14 JobName=queued\n   JobState=PENDING\n   NodeList=(null)\n");
  // tiny-8 is 8 ranks: 4 on each of two nodes, then 8 on one.
  f.write("running.json", R"({"format": "topoplan-running", "slurm": "jobs.txt",
    "slurm_jobs": {"12": "tiny.json", "sft": "tiny.json"}, "jobs": [{"plan": "planned/plan.json"}]})");
  Result<RunningJobs> r = running_jobs_load(f.path("running.json"), f.cluster);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  REQUIRE(r->jobs.size() == 3);
  CHECK(r->jobs[0].name == "pretrain#12");
  CHECK(r->jobs[0].where == f.path("jobs.txt") + ":1: job 12 (pretrain)");
  // Block by block over the nodes, as srun places ranks by default.
  CHECK(f.cluster.device(r->jobs[0].layout.gpu_of_rank[3]).name == "h002/gpu3");
  CHECK(f.cluster.device(r->jobs[0].layout.gpu_of_rank[4]).name == "h003/gpu0");
  CHECK(r->jobs[1].name == "sft#13");
  CHECK(f.cluster.device(r->jobs[1].layout.gpu_of_rank[7]).name == "h004/gpu7");
  CHECK(r->jobs[2].name == "tiny-8");

  const std::string at = f.path("running.json");
  const std::string slurm = f.path("jobs.txt");
  // A running job without a file, unless ignored; a file for no running job; a node not in the cluster.
  CHECK(f.error(R"({"format": "topoplan-running", "slurm": "jobs.txt", "slurm_jobs": {"12": "tiny.json"}})") ==
        slurm +
            ":5: job 13 (sft) runs on h004 but slurm_jobs names no job file for it: add \"13\": \"FILE\", or "
            "its id to \"ignore\" (its traffic is then not counted)");
  f.write("running.json",
          R"({"format": "topoplan-running", "slurm": "jobs.txt", "slurm_jobs": {"12": "tiny.json"}, "ignore": [13]})");
  Result<RunningJobs> ignored = running_jobs_load(f.path("running.json"), f.cluster);
  REQUIRE_MESSAGE(ignored.ok(), (ignored ? "" : ignored.error()));
  CHECK(ignored->jobs.size() == 1);
  CHECK(f.error(R"({"format": "topoplan-running", "slurm": "jobs.txt", "slurm_jobs": {"12": "tiny.json",
                    "sft": "tiny.json", "14": "tiny.json"}})") ==
        at + ": slurm_jobs.14: no running job of " + slurm + " has this id or name");
  CHECK(f.error(R"({"format": "topoplan-running", "slurm_jobs": {"12": "tiny.json"}})") ==
        at + ": slurm: expected the file of squeue --json or scontrol show job output that slurm_jobs refers to");
  CHECK(f.error(R"({"format": "topoplan-running", "slurm": "jobs.txt", "slurm_jobs": ["tiny.json"]})")
            .find(at + ": slurm_jobs: expected an object") == 0);
  f.write("far.txt", "JobId=20 JobName=far\n   JobState=RUNNING\n   NodeList=h[004-005]\n");
  CHECK(f.error(R"({"format": "topoplan-running", "slurm": "far.txt", "slurm_jobs": {"far": "tiny.json"}})") ==
        f.path("far.txt") + ":1: job 20 (far): node 'h005' is not a host of the cluster");
  f.write("odd.txt", "JobId=21 JobName=odd\n   JobState=RUNNING\n   NodeList=h[002-004]\n");
  CHECK(f.error(R"({"format": "topoplan-running", "slurm": "odd.txt", "slurm_jobs": {"21": "tiny.json"}})") ==
        f.path("odd.txt") + ":1: job 21 (odd): " + f.path("tiny.json") +
            " has 8 ranks, not a whole number on each of its 3 nodes");
}

TEST_CASE("running jobs: what their plans exclude is down for every job") {
  Files f;
  const std::string job = (test::data_dir() / "jobs" / "tiny-8.json").string();
  test::RunResult r = test::run_topoplan("plan --cluster dgx-h100:4 --nodes h002 --exclude h004 --job " + job + " -o " +
                                         (f.dir / "excluding").string() + " --emit json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  Result<RunningJobs> running = running_jobs_load(f.path("excluding/plan.json"), f.cluster);
  REQUIRE_MESSAGE(running.ok(), (running ? "" : running.error()));
  CHECK(running->down == std::vector<std::string>{"h004"});
  Result<DownSet> given = down_parse(f.cluster, {"h001/gpu3"});
  REQUIRE(given.ok());
  Result<DownSet> both = running_jobs_down(f.cluster, *given, *running);
  REQUIRE(both.ok());
  CHECK(both->names == std::vector<std::string>{"h001/gpu3", "h004"});
  CHECK(both->device_down(f.cluster.hosts()[3].gpus[0]));
  CHECK(both->device_down(f.cluster.hosts()[0].gpus[3]));
}

}  // namespace topoplan
