// A score as `topoplan score` prints it: the job's line, the step's parts and MFU, the tables of
// planner/score_tables and the findings; and the one-line verdict the HTML report opens with.
#pragma once

#include <string>

#include "planner/score.h"

namespace topoplan {

// `cluster_spec` as the user gave it (a preset or a file).
std::string score_text(const Cluster& cluster, const std::string& cluster_spec, const JobScore& score);

// What a GPU of each pipeline stage holds at its peak (memory_rows under a heading that names the
// GPU and its memory), as score, review and plan print it; empty without a memory estimate.
std::string memory_section_text(const JobScore& score);

// "llama3-70b, layout default: step 9.1 s, exposed communication 1.2 s per step, MFU 38.0%", with
// the count of critical findings when there are any.
std::string score_verdict(const JobScore& score);

}  // namespace topoplan
