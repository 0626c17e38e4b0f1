#include "planner/megatron_layout.h"

#include <doctest/doctest.h>

namespace topoplan {
namespace {

Job pipeline(int layers, int pp, int v, int first, int last) {
  Job j;
  j.model.layers = layers;
  j.parallel.pp = pp;
  j.parallel.virtual_pipeline_stages = v;
  j.parallel.first_stage_layers = first;
  j.parallel.last_stage_layers = last;
  return j;
}

std::string parse_error(std::string_view layout, int pp, int layers) {
  Result<PipelineSplit> r = megatron_pipeline_layout_parse(layout, pp, layers);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("megatron layout: Llama 3 405B's 7 + 14 x 8 + 7 layers on two virtual stages") {
  const Job j = pipeline(126, 16, 2, 7, 7);
  std::string expected = "Et*3";
  for (int s = 1; s < 16; ++s) expected += "|t*4";
  for (int s = 0; s < 15; ++s) expected += "|t*4";
  expected += "|t*3L";
  CHECK(megatron_pipeline_layout(j) == expected);
  Result<PipelineSplit> back = megatron_pipeline_layout_parse(expected, 16, 126);
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  CHECK(back->virtual_stages == 2);
  CHECK(back->first_stage_layers == 7);
  CHECK(back->last_stage_layers == 7);
  // Megatron's shorthand reads the same: repeats in parentheses, cosmetic commas.
  Result<PipelineSplit> short_form = megatron_pipeline_layout_parse("Et*3|(t*4|)*30,t*3L", 16, 126);
  REQUIRE(short_form.ok());
  CHECK(short_form->first_stage_layers == 7);
}

TEST_CASE("megatron layout: none where Megatron's count flags say it") {
  CHECK(megatron_pipeline_layout(pipeline(126, 16, 1, 7, 7)).empty());  // not interleaved
  CHECK(megatron_pipeline_layout(pipeline(80, 4, 2, 8, 8)).empty());    // 8 % 2 == 0: the flags
  CHECK(megatron_pipeline_layout(pipeline(80, 4, 5, 0, 0)).empty());    // even
  // Only the last stage uneven: the first splits like a middle stage.
  CHECK(megatron_pipeline_layout(pipeline(11, 3, 2, 0, 3)) == "Et*2|t*2|t*2|t*2|t*2|tL");
  // NeMo's 405B recipe (account_for_embedding/loss_in_pipeline_split, pp 8, vp 8): 15 + 6 x 16 + 15.
  Result<PipelineSplit> nemo =
      megatron_pipeline_layout_parse(megatron_pipeline_layout(pipeline(126, 8, 8, 15, 15)), 8, 126);
  REQUIRE(nemo.ok());
  CHECK(nemo->first_stage_layers == 15);
  CHECK(nemo->virtual_stages == 8);
}

TEST_CASE("megatron layout: an even layout sets no stage of its own") {
  Result<PipelineSplit> even = megatron_pipeline_layout_parse("Et|t|t|tL", 2, 4);
  REQUIRE(even.ok());
  CHECK(even->virtual_stages == 2);
  CHECK(even->first_stage_layers == 0);
  CHECK(even->last_stage_layers == 0);
}

TEST_CASE("megatron layout: malformed layouts and ones topoplan does not model say why") {
  CHECK(parse_error("Et|x|t|tL", 2, 4) == "'x' is not a layer (E embedding, t transformer, L loss)");
  CHECK(parse_error("Et|m|t|tL", 2, 4) == "'m' (multi-token prediction): topoplan does not model MTP layers");
  CHECK(parse_error("Et|t|tL", 2, 3) == "3 virtual stages are not a multiple of pp 2");
  CHECK(parse_error("tE|t|t|tL", 2, 4) == "the embedding 'E' must come once, first");
  CHECK(parse_error("Et|t|t|t", 2, 4) == "the loss 'L' must come once, last");
  CHECK(parse_error("Et|t|t|tL", 2, 5) == "4 transformer layers 't', the model has 5");
  CHECK(parse_error("E*|tL", 2, 1) == "'*' must be followed by a count");
  CHECK(parse_error("*2", 1, 1) == "'*' must follow a layer or a group in parentheses");
  CHECK(parse_error("Et)*2|tL", 1, 2) == "')' without its '('");
  // The heavier chunk beside the embedding: the same stage totals, another placement.
  CHECK(parse_error("Et*4|t*4|t*3|t*4L", 2, 15) ==
        "topoplan models layouts whose middle stages split evenly and whose first and last stages put their lighter "
        "chunks beside the embedding and the loss; the closest is 'Et*3|t*4|t*4|t*4L'");
}

}  // namespace topoplan
