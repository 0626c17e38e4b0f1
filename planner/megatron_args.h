// A job from a Megatron-LM command line (docs/job-format.md, "Megatron-LM arguments"): the
// arguments pretrain_gpt.py takes, in a file (one or several per line, '#' comments, as
// `plan --emit megatron` writes megatron.args) or as a whole launch line (`torchrun ...
// pretrain_gpt.py ...`, with backslash continuations and VAR=VALUE before it). Every flag is in one
// of three tables: read into the job, ignored because it does not change the traffic (paths,
// logging, learning rate ...), or refused because it changes the traffic in a way the model does
// not follow. Anything else is an error that names it, so a launch line never scores as a job it
// is not.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "planner/job.h"

namespace topoplan {

// Whether a job file's text is Megatron-LM arguments rather than JSON: it does not start with '{'
// or '[' and has a "--" flag.
bool megatron_args_detect(std::string_view text);

// The job the arguments describe, checked as job_from_json checks a job file. The name is the
// file's stem; dp is the world size over tp x cp x pp. Errors name `where`, the line and the flag:
// "train.sh:7: --num-layers: expected a whole number, got '80x'".
Result<Job> job_from_megatron_args(const std::string& text, const std::string& where, const WorldHint& world);

// The flags of each table, in their order, for the docs and the tests.
const std::vector<std::string>& megatron_flags_read();
const std::vector<std::string>& megatron_flags_ignored();
const std::vector<std::string>& megatron_flags_refused();

}  // namespace topoplan
