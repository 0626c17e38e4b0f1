// Slurm's running jobs, from squeue --json and from scontrol show job, and malformed output of both.
#include "planner/slurm_jobs.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

std::string error_of(const std::string& text) {
  Result<std::vector<SlurmJob>> r = slurm_jobs_parse(text, "jobs.txt");
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("slurm jobs: scontrol show job, records with a name running to the end of its line") {
  const std::string text = test::read_file(test::source_dir() / "fuzz" / "corpus" / "slurm_jobs" / "scontrol.txt");
  Result<std::vector<SlurmJob>> r = slurm_jobs_parse(text, "jobs.txt");
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].id == "12");
  CHECK((*r)[0].name == "pretrain llama");
  CHECK((*r)[0].state == "RUNNING");
  CHECK((*r)[0].nodes == "h[001-002]");  // NodeList, not ReqNodeList's (null)
  CHECK((*r)[0].line == 1);
  CHECK((*r)[1].state == "PENDING");
  CHECK((*r)[1].nodes.empty());
  CHECK((*r)[1].line == 8);
}

TEST_CASE("slurm jobs: a real Slurm 22.05's scontrol show job (scripts/slurm-test, two jobs sleeping)") {
  const auto path = test::source_dir() / "tests" / "samples" / "slurm" / "scontrol-show-job-22.05.txt";
  Result<std::vector<SlurmJob>> r = slurm_jobs_parse(test::read_file(path), "jobs.txt");
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  REQUIRE(r->size() == 6);
  CHECK((*r)[0].name == "job.sh");
  CHECK((*r)[0].state == "COMPLETED");
  CHECK((*r)[1].state == "CANCELLED");
  CHECK((*r)[4].id == "5");
  CHECK((*r)[4].name == "wrap");
  CHECK((*r)[4].state == "RUNNING");
  CHECK((*r)[4].nodes == "h[001,005]");
  CHECK((*r)[5].nodes == "h[002,006]");
}

TEST_CASE("slurm jobs: squeue --json, the state as a list (23.02 on) or a string") {
  const std::string text = test::read_file(test::source_dir() / "fuzz" / "corpus" / "slurm_jobs" / "squeue.json");
  Result<std::vector<SlurmJob>> r = slurm_jobs_parse(text, "squeue.json");
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].id == "12");
  CHECK((*r)[0].state == "RUNNING");
  CHECK((*r)[0].nodes == "h[001-002]");
  CHECK((*r)[1].state == "PENDING");
}

TEST_CASE("slurm jobs: malformed output names the line or the entry") {
  CHECK(error_of("") == "jobs.txt: expected scontrol show job output or squeue --json output; found no job");
  CHECK(error_of("NodeList=h001\n") ==
        "jobs.txt:1: expected scontrol show job output: a record starting with JobId=, got 'NodeList=h001'");
  CHECK(error_of("JobId=abc JobName=x\n") == "jobs.txt:1: JobId 'abc': expected the job's number");
  CHECK(error_of("JobId=12 JobName=x\n   NodeList=h001\n\nJobId=13\n") == "jobs.txt:1: JobId=12 has no JobState");
  CHECK(error_of("{\"jobs\": 3}") == "jobs.txt: expected squeue --json output: an object with a \"jobs\" list");
  CHECK(error_of("{\"jobs\": [3]}") == "jobs.txt: jobs[0]: expected a job object, got 3");
  CHECK(error_of("{\"jobs\": [{\"name\": \"x\"}]}") == "jobs.txt: jobs[0].job_id: expected the job's number");
  CHECK(error_of("{\"jobs\": [{\"job_id\": 1, \"job_state\": \"\"}]}") ==
        "jobs.txt: jobs[0].job_state: expected Slurm's state, a string or a list of strings");
  CHECK(error_of("{\"jobs\": [{\"job_id\": 1}]}") ==
        "jobs.txt: jobs[0].job_state: expected Slurm's state, a string or a list of strings");
  CHECK(error_of("{\"jobs\": [{\"job_id\": 1, \"job_state\": \"RUNNING\", \"nodes\": 4}]}") ==
        "jobs.txt: jobs[0].nodes: expected a hostlist string, got 4");
  CHECK(error_of("{\"jobs\": [").find("jobs.txt:1:") == 0);
}

}  // namespace topoplan
