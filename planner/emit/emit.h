// What schedulers and launchers read, written from a plan: a Job and its Layout (rank -> GPU) on a
// Cluster. One format per file in this folder; docs/plan-outputs.md shows each with an example and
// the command that launches with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "planner/job.h"
#include "planner/layout.h"
#include "topology/cluster.h"
#include "topology/routing.h"

namespace topoplan {

// What the Kubernetes manifests run; the other formats leave the program to the user's launch line.
struct EmitLaunch {
  std::string image;                 // the container image
  std::vector<std::string> command;  // the program every rank runs: "python", "pretrain_gpt.py", ...
  std::string queue;                 // Kueue's LocalQueue (kueue.x-k8s.io/queue-name); "" for none
};

struct EmitInput {
  const Cluster& cluster;
  const Router& router;  // the NIC each GPU uses (Router::nic_for)
  const Job& job;        // parallel.order is the plan's Megatron order string
  const Layout& layout;
  EmitLaunch launch = {};
};

struct EmittedFile {
  std::string name;  // a file name such as "slurm.hostfile" or "ompi.rankfile"
  std::string text;
  // What the file had to leave out and why, for the command to print beside it (the file says so
  // too, in a comment).
  std::vector<std::string> notes;
};

// Every format's name, in the order of the table in emit.cc: what `plan --emit`'s help and errors list.
const std::vector<std::string>& emit_format_names();

// The formats that run a container (the Kubernetes manifests): those that need EmitLaunch.
const std::vector<std::string>& emit_container_formats();

// An error, naming the format, when a container format lacks the image or the command.
Result<void> emit_launch_check(std::string_view format, const EmitLaunch& launch);

// What `plan --emit` writes: "json" is the plan file itself, every other name a format above.
struct EmitList {
  bool plan_file = false;
  std::vector<std::string> formats;  // in the order given
  EmitLaunch launch = {};            // for the container formats
};

// "json" and every format: what --emit's help and errors list.
std::vector<std::string> emit_list_names();

// "json,slurm-hostfile,torchrun" -> the plan file and the formats, in the order given, checked,
// with "did you mean" for typos; errors name the bad entry (unknown, empty or repeated).
Result<EmitList> emit_list_parse(std::string_view list);

// The files of one format. An error when the name is unknown, the layout does not fit the job and
// cluster, or the format cannot express the layout (torchrun on hosts that interleave ranks).
Result<std::vector<EmittedFile>> emit(std::string_view format, const EmitInput& in);

}  // namespace topoplan
