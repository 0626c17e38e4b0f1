// What review, explain and score print for the data/ examples, byte for byte (tests/golden.h):
// wording, columns and figures change only on purpose. Run from the source folder, so the paths
// they print are the same everywhere.
#include <doctest/doctest.h>

#include "tests/golden.h"
#include "tests/support.h"

namespace {

const std::string kJob = " --cluster data/clusters/pods-16-h100.json --job data/jobs/llama3-70b.json --layout ";
const std::string kInterleaved = "tests/golden/layouts/pod-interleaved.hosts";  // 4 hosts of each pod in turn
const std::string kSplit = "tests/golden/layouts/tp-split.hosts";               // each TP group half on the next host

void check(const std::string& case_dir, const std::string& file, const std::string& args, int exit_code) {
  auto r = topoplan::test::run_topoplan(args, topoplan::test::source_dir());
  INFO(args);
  CHECK_MESSAGE(r.exit_code == exit_code, r.err);
  topoplan::test::check_golden(case_dir, file, r.out);
}

}  // namespace

TEST_CASE(
    "golden: review fails the pod-interleaved layout on the default limit, passes it on a looser one, fails a split "
    "TP") {
  check("review", "pod-interleaved.txt", "review" + kJob + kInterleaved, 1);
  check("review", "pod-interleaved-max-slowdown.txt", "review" + kJob + kInterleaved + " --max-slowdown 1.5", 0);
  check("review", "tp-split.txt", "review" + kJob + kSplit, 1);
}

TEST_CASE("golden: explain a group, a rank, a link and the costliest groups") {
  check("explain", "dp0.txt", "explain" + kJob + kInterleaved + " --group dp:0", 0);
  check("explain", "rank9.txt", "explain" + kJob + kInterleaved + " --rank 9", 0);
  check("explain", "link.txt", "explain" + kJob + kInterleaved + " --link 'spine0 -> core0'", 0);
  check("explain", "tp-split-tp3.txt", "explain" + kJob + kSplit + " --group tp:3", 0);
  check("explain", "tp-split-costliest.txt", "explain" + kJob + kSplit, 0);
}

TEST_CASE("golden: score's findings on a split TP layout") {
  check("score", "tp-split.txt", "score" + kJob + kSplit, 0);
}
