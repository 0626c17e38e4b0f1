#include "planner/emit/emit.h"

#include <doctest/doctest.h>

#include "tests/planner/emit/cases.h"

namespace topoplan {
namespace {

std::string parse_error(std::string_view list) {
  Result<EmitList> r = emit_list_parse(list);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("emit: the formats in --emit's order") {
  CHECK(emit_format_names() == std::vector<std::string>{"slurm-hostfile", "ompi-rankfile", "torchrun", "megatron",
                                                        "env", "jobset", "pytorchjob", "mpijob"});
  CHECK(emit_container_formats() == std::vector<std::string>{"jobset", "pytorchjob", "mpijob"});
}

TEST_CASE("emit: a format list keeps the order given and tolerates spaces") {
  CHECK(emit_list_parse("torchrun,slurm-hostfile")->formats == std::vector<std::string>{"torchrun", "slurm-hostfile"});
  CHECK(emit_list_parse(" env , megatron ")->formats == std::vector<std::string>{"env", "megatron"});
  CHECK(emit_list_parse("slurm-hostfile,ompi-rankfile,torchrun,megatron,env")->formats.size() == 5);
  CHECK_FALSE(emit_list_parse("env")->plan_file);
  // "json" is the plan file, wherever it stands; the formats keep their order around it.
  Result<EmitList> with_plan = emit_list_parse("torchrun, json,env");
  CHECK(with_plan->plan_file);
  CHECK(with_plan->formats == std::vector<std::string>{"torchrun", "env"});
  CHECK(emit_list_parse("json")->formats.empty());
}

TEST_CASE("emit: malformed format lists name the bad entry") {
  CHECK(parse_error("slurm-hostfile,torchrn") ==
        "unknown output format 'torchrn', did you mean 'torchrun'? "
        "(formats: json, slurm-hostfile, ompi-rankfile, torchrun, megatron, env, jobset, pytorchjob, mpijob)");
  CHECK(parse_error("rankfile") ==
        "unknown output format 'rankfile' (formats: json, slurm-hostfile, ompi-rankfile, torchrun, megatron, env, "
        "jobset, pytorchjob, mpijob)");
  CHECK(parse_error("ompi-rankfle").find("did you mean 'ompi-rankfile'?") != std::string::npos);
  CHECK(parse_error("env,,megatron") ==
        "output format 2 of 'env,,megatron' is empty (formats are separated by single commas)");
  CHECK(parse_error("env,") == "output format 2 of 'env,' is empty (formats are separated by single commas)");
  CHECK(parse_error(",env") == "output format 1 of ',env' is empty (formats are separated by single commas)");
  CHECK(parse_error("env,megatron,env") == "output format 'env' is listed twice");
  CHECK(parse_error("json,env,json") == "output format 'json' is listed twice");
  CHECK(parse_error("") ==
        "no output format given (formats: json, slurm-hostfile, ompi-rankfile, torchrun, megatron, env, jobset, "
        "pytorchjob, mpijob)");
  CHECK(parse_error("  ") == parse_error(""));
}

TEST_CASE("emit: an unknown format, or a layout that does not fit the job, is an error") {
  auto c = test::emit_case("dgx-h100-default");
  Result<std::vector<EmittedFile>> r = emit("slurm", c->input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().starts_with("unknown output format 'slurm'"));

  Layout short_layout = c->layout;
  short_layout.gpu_of_rank.pop_back();
  EmitInput in{c->cluster, *c->router, c->job, short_layout};
  CHECK(emit("env", in).error() == "the layout places 15 ranks, job 'dense-16' has 16");

  Layout shared = c->layout;
  shared.gpu_of_rank[3] = shared.gpu_of_rank[1];
  EmitInput in2{c->cluster, *c->router, c->job, shared};
  CHECK(emit("env", in2).error() == "ranks 1 and 3 share GPU h001/gpu1");

  Layout on_nic = c->layout;
  on_nic.gpu_of_rank[2] = *c->cluster.find("h001/nic2");
  EmitInput in3{c->cluster, *c->router, c->job, on_nic};
  CHECK(emit("env", in3).error() == "rank 2 is not on a GPU of a host");
}

TEST_CASE("emit: every format begins with what reproduces it") {
  auto c = test::emit_case("pcie-l40s-permuted");
  for (const std::string& format : emit_format_names()) {
    if (format == "torchrun") continue;  // checked in its own test; same preamble
    for (const EmittedFile& f : test::emit_ok(format, *c)) {
      INFO(f.name);
      CHECK(f.text.starts_with("# topoplan " + format +
                               ": job 'moe-32' on cluster 'pcie-l40s:4', 32 ranks on 4 hosts, "
                               "layout permuted\n# order tp-dp-ep-cp-pp: tp 2, cp 2, ep 4, dp 4, pp 2, expert_tp 1\n"));
    }
  }
}

TEST_CASE("emit: the same input gives the same bytes") {
  for (const std::string& name : test::emit_case_names()) {
    auto a = test::emit_case(name), b = test::emit_case(name);
    for (const std::string& format : emit_format_names()) {
      Result<std::vector<EmittedFile>> x = emit(format, a->input()), y = emit(format, b->input());
      REQUIRE(x.ok() == y.ok());
      if (!x) continue;
      for (size_t i = 0; i < x->size(); ++i) CHECK((*x)[i].text == (*y)[i].text);
    }
  }
}

}  // namespace topoplan
