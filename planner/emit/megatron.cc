#include <string>

#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {
namespace {

// Besides the default, the only order Megatron takes from its command line: megatron/training/
// initialize.py passes order='tp-cp-ep-dp-pp' if not args.use_tp_pp_dp_mapping else 'tp-cp-ep-pp-dp'.
constexpr std::string_view kTpPpDpOrder = "tp-cp-ep-pp-dp";

// Two orders are the same plan when every rank gets the same coordinates on both of Megatron's
// grids: axes of size 1 can sit anywhere ("tp-dp-pp" is the default when cp = ep = 1).
bool same_grids(const RankGroups& a, const RankGroups& b) {
  for (int r = 0; r < a.world_size(); ++r)
    if (a.dense().coordinates(r) != b.dense().coordinates(r) || a.expert().coordinates(r) != b.expert().coordinates(r))
      return false;
  return true;
}

}  // namespace

// Argument names as NVIDIA/Megatron-LM d98e8a64 spells them: the sizes come from
// ModelParallelConfig fields turned into flags by ArgumentGroupFactory (megatron/training/
// argument_utils.py: "--" + name with '_' -> '-', booleans as store_true), the rest from
// megatron/training/arguments.py. The data-parallel size has no flag: Megatron derives it from the
// world size.
EmitResult emit_megatron(const EmitInput& in, const RankPlacement& placement) {
  const Parallelism& p = in.job.parallel;
  Result<RankGroups> planned = RankGroups::make(job_parallel_sizes(in.job), p.order);
  if (!planned) return Error{"job '" + in.job.name + "': " + planned.error()};

  std::string text = emit_preamble("megatron", in, placement);
  text += "# Megatron-LM arguments, one per line: pretrain_gpt.py $(grep -v '^#' megatron.args) ...\n";
  text += "# world size " + std::to_string(placement.ranks.size()) + " = tp x cp x pp x dp; Megatron derives dp " +
          std::to_string(p.dp) + " from it\n";
  auto arg = [&](const std::string& flag, int value) { text += flag + " " + std::to_string(value) + "\n"; };
  arg("--tensor-model-parallel-size", p.tp);
  arg("--pipeline-model-parallel-size", p.pp);
  arg("--context-parallel-size", p.cp);
  arg("--expert-model-parallel-size", p.ep);
  arg("--expert-tensor-parallel-size", p.expert_tp);
  // virtual_pipeline_model_parallel_size itself has no flag; this one sets it (arguments.py).
  if (p.virtual_pipeline_stages > 1) arg("--num-virtual-stages-per-pipeline-rank", p.virtual_pipeline_stages);
  if (p.first_stage_layers > 0) arg("--decoder-first-pipeline-num-layers", p.first_stage_layers);
  if (p.last_stage_layers > 0) arg("--decoder-last-pipeline-num-layers", p.last_stage_layers);
  if (p.sequence_parallel) text += "--sequence-parallel\n";
  // TransformerConfig.cp_comm_type spells the all-gather variant "all_gather", the value
  // Transformer Engine's attention takes.
  if (p.cp > 1) text += std::string("--cp-comm-type ") + (p.cp_comm == CpComm::p2p ? "p2p" : "all_gather") + "\n";

  Result<RankGroups> by_default = RankGroups::make(job_parallel_sizes(in.job), kDefaultOrder);
  Result<RankGroups> by_tp_pp_dp = RankGroups::make(job_parallel_sizes(in.job), kTpPpDpOrder);
  const std::string order = "# order " + p.order + ": ";
  if (by_default && same_grids(*planned, *by_default)) {
    text += order + (p.order == kDefaultOrder ? "" : "the same ranks as ") + "Megatron's default (" +
            std::string(kDefaultOrder) + "), no flag needed\n";
  } else if (by_tp_pp_dp && same_grids(*planned, *by_tp_pp_dp)) {
    text += order + (p.order == kTpPpDpOrder ? "--use-tp-pp-dp-mapping selects it"
                                             : "the same ranks as " + std::string(kTpPpDpOrder) +
                                                   ", which --use-tp-pp-dp-mapping selects") +
            "\n--use-tp-pp-dp-mapping\n";
  } else {
    // No flag takes an arbitrary order: initialize_model_parallel's `order` keyword does
    // (megatron/core/parallel_state.py), and megatron/training/initialize.py passes only the two above.
    text += "# order " + p.order + " has no command-line flag: pass order=\"" + p.order +
            "\" to initialize_model_parallel (megatron/core/parallel_state.py) where megatron/training/initialize.py "
            "calls it\n";
  }
  return std::vector<EmittedFile>{{"megatron.args", std::move(text)}};
}

}  // namespace topoplan
