#include "planner/megatron_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/json_fields.h"
#include "base/name_table.h"
#include "base/suggest.h"
#include "planner/megatron_layout.h"

namespace topoplan {
namespace {

using nlohmann::json;

// ---- The command line as the shell splits it ---------------------------------------------------

struct Token {
  std::string text;
  int line = 0;
  bool expands = false;      // holds $ or ` that the shell would expand: its value is not written here
  bool starts_line = false;  // the first word after a newline that no backslash continues
  char op = 0;               // the first shell operator in it, unquoted (; & | < > ( )), else 0
};

// POSIX shell words: blanks and newlines separate, '#' at the start of a word comments to the end of
// the line, backslash-newline joins lines, '...' is literal, "..." keeps $ (marked as expanding).
// Operators (; & | < > ( )) stay in the word and are marked: in a launch line they end the command
// (an error: one command is all it may hold), in an argument list expanded by $(...) they are
// plain characters ("([1]*3+[0])*2").
Result<std::vector<Token>> shell_words(const std::string& text, const std::string& where) {
  std::vector<Token> out;
  Token word;
  bool in_word = false, new_line = false;
  int line = 1;
  auto at = [&](int l) { return where + ":" + std::to_string(l) + ": "; };
  auto end_word = [&] {
    if (in_word) out.push_back(std::move(word));
    word = Token{};
    in_word = false;
  };
  auto start = [&] {
    if (!in_word) {
      word.line = line;
      word.starts_line = new_line;
      new_line = false;
    }
    in_word = true;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i, ++line;  // a continued line
      continue;
    }
    if (ch == '\\' && i + 1 < text.size() && text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n') {
      i += 2, ++line;
      continue;
    }
    if (ch == '\n' || ch == ' ' || ch == '\t' || ch == '\r') {
      end_word();
      if (ch == '\n') ++line, new_line = true;
      continue;
    }
    if (ch == '#' && !in_word) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    start();
    if (std::string_view(";&|<>()").find(ch) != std::string_view::npos && word.op == 0) word.op = ch;
    if (ch == '\\' && i + 1 < text.size()) {
      word.text += text[++i];
    } else if (ch == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) return Error{at(line) + "a ' quote is never closed"};
      const std::string_view quoted(text.data() + i + 1, close - i - 1);
      line += static_cast<int>(std::count(quoted.begin(), quoted.end(), '\n'));
      word.text += quoted;
      i = close;
    } else if (ch == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\$`\n").find(text[j + 1]) != std::string_view::npos) {
          if (text[++j] == '\n')
            ++line;
          else
            word.text += text[j];
          continue;
        }
        if (text[j] == '$' || text[j] == '`') word.expands = true;
        if (text[j] == '\n') ++line;
        word.text += text[j];
      }
      if (j == text.size()) return Error{at(word.line) + "a \" quote is never closed"};
      i = j;
    } else {
      if (ch == '$' || ch == '`') word.expands = true;
      word.text += ch;
    }
  }
  end_word();
  return out;
}

// ---- The flag tables ---------------------------------------------------------------------------

enum class Arity : uint8_t { none, one, many };

// Flags read into the job: the name as Megatron-LM d98e8a64 spells it and how many values it takes.
struct ReadFlag {
  const char* name;
  Arity arity;
};
constexpr ReadFlag kRead[] = {
    // model (TransformerConfig fields, --group-query-attention, --swiglu, TokenizerConfig's vocab)
    {"--num-layers", Arity::one},
    {"--hidden-size", Arity::one},
    {"--ffn-hidden-size", Arity::one},
    {"--num-attention-heads", Arity::one},
    {"--group-query-attention", Arity::none},
    {"--num-query-groups", Arity::one},
    {"--kv-channels", Arity::one},
    {"--vocab-size", Arity::one},
    {"--swiglu", Arity::none},
    {"--quick-geglu", Arity::none},
    // mixture of experts
    {"--num-experts", Arity::one},
    {"--moe-router-topk", Arity::one},
    {"--moe-ffn-hidden-size", Arity::one},
    {"--moe-layer-freq", Arity::one},
    {"--moe-shared-expert-intermediate-size", Arity::one},
    {"--moe-expert-capacity-factor", Arity::one},
    {"--moe-pad-expert-input-to-capacity", Arity::none},
    {"--moe-token-dispatcher-type", Arity::one},
    // batch and precision
    {"--seq-length", Arity::one},
    {"--micro-batch-size", Arity::one},
    {"--global-batch-size", Arity::one},
    {"--bf16", Arity::none},
    {"--fp16", Arity::none},
    {"--fp8-format", Arity::one},
    {"--accumulate-allreduce-grads-in-fp32", Arity::none},
    {"--grad-reduce-in-bf16", Arity::none},
    {"--use-precision-aware-optimizer", Arity::none},
    {"--main-params-dtype", Arity::one},
    {"--exp-avg-dtype", Arity::one},
    {"--exp-avg-sq-dtype", Arity::one},
    {"--attention-backend", Arity::one},
    // parallelism
    {"--tensor-model-parallel-size", Arity::one},
    {"--pipeline-model-parallel-size", Arity::one},
    {"--context-parallel-size", Arity::one},
    {"--expert-model-parallel-size", Arity::one},
    {"--expert-tensor-parallel-size", Arity::one},
    {"--num-virtual-stages-per-pipeline-rank", Arity::one},
    {"--num-layers-per-virtual-pipeline-stage", Arity::one},
    {"--decoder-first-pipeline-num-layers", Arity::one},
    {"--decoder-last-pipeline-num-layers", Arity::one},
    {"--pipeline-model-parallel-layout", Arity::one},
    {"--account-for-embedding-in-pipeline-split", Arity::none},
    {"--account-for-loss-in-pipeline-split", Arity::none},
    {"--sequence-parallel", Arity::none},
    {"--cp-comm-type", Arity::many},
    {"--use-tp-pp-dp-mapping", Arity::none},
    {"--no-overlap-p2p-communication", Arity::none},
    {"--overlap-p2p-communication", Arity::none},  // before Megatron made it the default (4eeff55d)
    {"--tp-comm-overlap", Arity::none},
    // data parallelism
    {"--use-distributed-optimizer", Arity::none},
    {"--use-megatron-fsdp", Arity::none},
    {"--use-custom-fsdp", Arity::none},  // Megatron FSDP's older name
    {"--data-parallel-sharding-strategy", Arity::one},
    {"--use-torch-fsdp2", Arity::none},
    {"--overlap-grad-reduce", Arity::none},
    {"--overlap-param-gather", Arity::none},
    {"--ddp-bucket-size", Arity::one},
    // recomputation
    {"--recompute-granularity", Arity::one},
    {"--recompute-method", Arity::one},
    {"--recompute-num-layers", Arity::one},
    {"--recompute-modules", Arity::many},
    {"--recompute-activations", Arity::none},
};

// Flags that do not change what the job sends or computes in the model: paths, data, tokenizer,
// logging, checkpoints, the optimizer's numbers, kernel choices and fusions, position embeddings,
// router losses. Their values are skipped whatever they are.
constexpr const char* kIgnored[] = {
    // data, tokenizer, paths
    "--data-path",
    "--split",
    "--train-data-path",
    "--valid-data-path",
    "--test-data-path",
    "--data-cache-path",
    "--data-args-path",
    "--per-split-data-args-path",
    "--mock-data",
    "--num-workers",
    "--dataloader-type",
    "--num-dataset-builder-threads",
    "--object-storage-cache-path",
    "--no-mmap-bin-files",
    "--eod-mask-loss",
    "--reset-position-ids",
    "--reset-attention-mask",
    "--no-create-attention-mask-in-dataloader",
    "--tokenizer-type",
    "--tokenizer-model",
    "--tokenizer-metadata",
    "--tokenizer-special-tokens",
    "--vocab-file",
    "--merge-file",
    "--vocab-extra-ids",
    "--null-tokenizer-eod-id",
    "--trust-remote-code",
    "--make-vocab-size-divisible-by",
    // checkpoints
    "--save",
    "--load",
    "--save-interval",
    "--save-retain-interval",
    "--non-persistent-save-interval",
    "--ckpt-format",
    "--async-save",
    "--use-dist-ckpt",
    "--dist-ckpt-format",
    "--ckpt-fully-parallel-save",
    "--ckpt-fully-parallel-load",
    "--no-ckpt-fully-parallel-save",
    "--ckpt-assume-constant-structure",
    "--no-save-optim",
    "--no-save-rng",
    "--no-load-optim",
    "--no-load-rng",
    "--finetune",
    "--pretrained-checkpoint",
    "--exit-on-missing-checkpoint",
    "--auto-detect-ckpt-format",
    "--use-persistent-ckpt-worker",
    "--dist-ckpt-strictness",
    // schedule, optimizer numbers, loss scaling, initialisation
    "--train-iters",
    "--train-samples",
    "--eval-iters",
    "--eval-interval",
    "--exit-interval",
    "--exit-duration-in-mins",
    "--exit-signal-handler",
    "--lr",
    "--min-lr",
    "--lr-decay-style",
    "--lr-decay-iters",
    "--lr-decay-samples",
    "--lr-warmup-iters",
    "--lr-warmup-samples",
    "--lr-warmup-fraction",
    "--lr-warmup-init",
    "--lr-wsd-decay-style",
    "--lr-wsd-decay-iters",
    "--lr-wsd-decay-samples",
    "--weight-decay",
    "--start-weight-decay",
    "--end-weight-decay",
    "--weight-decay-incr-style",
    "--clip-grad",
    "--adam-beta1",
    "--adam-beta2",
    "--adam-eps",
    "--sgd-momentum",
    "--optimizer",
    "--override-opt-param-scheduler",
    "--use-checkpoint-opt-param-scheduler",
    "--loss-scale",
    "--initial-loss-scale",
    "--min-loss-scale",
    "--loss-scale-window",
    "--hysteresis",
    "--init-method-std",
    "--init-method-xavier-uniform",
    "--seed",
    "--hidden-dropout",
    "--attention-dropout",
    "--no-initialization",
    "--use-cpu-initialization",
    "--data-parallel-random-init",
    "--calculate-per-token-loss",
    "--fp16-lm-cross-entropy",
    "--attention-softmax-in-fp32",
    // logging, profiling, resilience
    "--log-interval",
    "--log-throughput",
    "--log-params-norm",
    "--log-num-zeros-in-grad",
    "--log-timers-to-tensorboard",
    "--log-validation-ppl-to-tensorboard",
    "--log-memory-to-tensorboard",
    "--log-world-size-to-tensorboard",
    "--log-loss-scale-to-tensorboard",
    "--log-progress",
    "--logging-level",
    "--timing-log-level",
    "--timing-log-option",
    "--tensorboard-dir",
    "--tensorboard-log-interval",
    "--tensorboard-queue-size",
    "--wandb-project",
    "--wandb-exp-name",
    "--wandb-save-dir",
    "--wandb-entity",
    "--profile",
    "--profile-step-start",
    "--profile-step-end",
    "--profile-ranks",
    "--use-pytorch-profiler",
    "--record-memory-history",
    "--rerun-mode",
    "--no-check-for-nan-in-loss-and-grad",
    "--check-for-large-grads",
    "--log-straggler",
    "--manual-gc",
    "--manual-gc-interval",
    "--empty-unused-memory-level",
    "--deterministic-mode",
    "--distributed-backend",
    "--distributed-timeout-minutes",
    "--local-rank",
    "--nccl-communicator-config-path",
    "--disable-gloo-process-groups",
    "--high-priority-stream-groups",
    "--enable-ft-package",
    "--no-one-logger",
    // kernels, fusions and implementations: the same collectives either way
    "--use-mcore-models",
    "--transformer-impl",
    "--use-flash-attn",
    "--no-masked-softmax-fusion",
    "--no-bias-gelu-fusion",
    "--no-bias-swiglu-fusion",
    "--no-bias-dropout-fusion",
    "--no-rope-fusion",
    "--no-persist-layer-norm",
    "--no-gradient-accumulation-fusion",
    "--cross-entropy-loss-fusion",
    "--cross-entropy-fusion-impl",
    "--moe-grouped-gemm",
    "--moe-permute-fusion",
    "--moe-router-fusion",
    "--enable-cuda-graph",
    "--cuda-graph-impl",
    "--cuda-graph-scope",
    "--cuda-graph-modules",
    "--use-nccl-ub",
    "--tp-comm-overlap-cfg",
    "--tp-comm-bootstrap-backend",
    "--ddp-average-in-collective",
    "--ddp-pad-buckets-for-high-nccl-busbw",
    "--no-gradient-reduce-div-fusion",
    "--fp8-recipe",
    "--fp8-margin",
    "--fp8-interval",
    "--fp8-amax-history-len",
    "--fp8-amax-compute-algo",
    "--first-last-layers-bf16",
    // shape details that leave the sizes the traffic depends on alone
    "--normalization",
    "--norm-epsilon",
    "--apply-layernorm-1p",
    "--qk-layernorm",
    "--add-qkv-bias",
    "--disable-bias-linear",
    "--untie-embeddings-and-output-weights",
    "--position-embedding-type",
    "--use-rotary-position-embeddings",
    "--rotary-base",
    "--rotary-percent",
    "--rotary-interleaved",
    "--rotary-seq-len-interpolation-factor",
    "--use-rope-scaling",
    "--rope-scaling-factor",
    "--no-position-embedding",
    "--max-position-embeddings",
    "--openai-gelu",
    "--squared-relu",
    // MLA: modelled as ordinary attention with as many KV heads as query heads (docs/job-format.md)
    "--multi-latent-attention",
    "--q-lora-rank",
    "--kv-lora-rank",
    "--qk-head-dim",
    "--qk-pos-emb-head-dim",
    "--v-head-dim",
    "--rotary-scaling-factor",
    "--mscale",
    "--mscale-all-dim",
    // the router's losses and scores: which experts, not how many copies
    "--moe-router-load-balancing-type",
    "--moe-aux-loss-coeff",
    "--moe-z-loss-coeff",
    "--moe-router-dtype",
    "--moe-router-score-function",
    "--moe-router-enable-expert-bias",
    "--moe-router-bias-update-rate",
    "--moe-router-pre-softmax",
    "--moe-router-topk-scaling-factor",
    "--moe-input-jitter-eps",
    "--moe-per-layer-logging",
    "--moe-token-drop-policy",
    "--moe-router-force-load-balancing",
    "--moe-use-upcycling",
};

// Flags that change the traffic in a way the model does not follow, each with what it does.
struct RefusedFlag {
  const char* name;
  const char* why;
};
constexpr RefusedFlag kRefused[] = {
    {"--hierarchical-context-parallel-sizes", "context parallelism in levels (a2a+p2p)"},
    {"--hybrid-context-parallel", "context parallelism that changes per batch"},
    {"--distribute-saved-activations", "spreads checkpointed activations over tensor-parallel ranks: more all-gathers"},
    {"--overlap-param-gather-with-optimizer-step",
     "hides the first bucket's parameter all-gather under the optimizer step"},
    {"--no-align-param-gather", "lets pipeline stages start their parameter all-gathers at different times"},
    {"--fp8-param-gather", "gathers parameters in fp8: half the bytes the model sends"},
    {"--fp4-format", "FP4 compute"},
    {"--fp4-param-gather", "gathers parameters in fp4"},
    {"--main-grads-dtype", "another element type for the gradient buffers"},
    {"--ddp-reduce-scatter-with-fp32-accumulation", "an all-to-all in place of the gradient reduce-scatter"},
    {"--num-distributed-optimizer-instances", "several distributed-optimizer copies over the data-parallel ranks"},
    {"--outer-dp-sharding-strategy", "hybrid sharding over an outer data-parallel group"},
    {"--enable-full-sharding-in-hsdp", "hybrid sharding over an outer data-parallel group"},
    {"--ddp-num-buckets", "sets the bucket count; give --ddp-bucket-size instead"},
    {"--rampup-batch-size", "a batch that grows during training; the step the model scores has one global batch"},
    {"--mtp-num-layers", "multi-token prediction layers beyond --num-layers"},
    {"--moe-router-num-groups",
     "group-limited routing: tokens go to fewer expert-parallel ranks than the model spreads them over"},
    {"--moe-router-group-topk",
     "group-limited routing: tokens go to fewer expert-parallel ranks than the model spreads them over"},
    {"--moe-router-topk-limited-devices", "device-limited routing"},
    {"--moe-shared-expert-overlap", "runs the shared experts under the token dispatch"},
    {"--overlap-moe-expert-parallel-comm", "overlaps the expert all-to-all with another micro-batch's compute"},
    {"--delay-wgrad-compute", "moves weight-gradient compute to overlap the expert all-to-all"},
    {"--moe-layer-recompute", "recomputes MoE layers, and their all-to-alls"},
    {"--moe-enable-deepep", "DeepEP's dispatcher instead of the all-to-all one"},
    {"--moe-flex-dispatcher-backend", "the flex dispatcher instead of the all-to-all one"},
    {"--moe-expert-rank-capacity-factor", "a capacity per expert-parallel rank"},
    {"--use-sharp", "reduces in the switches (SHARP), which the model does not price"},
    {"--window-size", "sliding-window attention: less attention compute than the model counts"},
    {"--tensor-parallel-num-weight-shards", "shards weights further inside tensor parallelism"},
    {"--expert-tensor-parallel-num-weight-shards", "shards expert weights further inside expert tensor parallelism"},
    {"--tp-comm-overlap-disable-qkv", "leaves the QKV projection's tensor-parallel communication exposed"},
    {"--tp-comm-overlap-disable-fc1", "leaves fc1's tensor-parallel communication exposed"},
    {"--tp-comm-overlap-rs-dgrad", "another overlap of the backward reduce-scatter"},
    {"--no-tp-comm-overlap-ag", "leaves tensor-parallel all-gathers exposed under --tp-comm-overlap"},
    {"--no-tp-comm-overlap-rs", "leaves tensor-parallel reduce-scatters exposed under --tp-comm-overlap"},
    {"--use-ring-exchange-p2p", "pipeline sends as ring exchanges"},
    {"--cpu-offloading", "moves activations or weights over PCIe to the host"},
    {"--fine-grained-activation-offloading", "moves activations over PCIe to the host"},
    {"--use-checkpoint-args", "takes the model's shape from the checkpoint, which topoplan cannot read"},
    {"--use-mp-args-from-checkpoint-args", "takes the parallel sizes from the checkpoint, which topoplan cannot read"},
    {"--yaml-cfg", "takes the arguments from a YAML file, which topoplan does not read"},
    {"--heterogeneous-layers-config-path", "layers of different shapes"},
    {"--hybrid-layer-pattern", "a hybrid (Mamba) model"},
    {"--hybrid-override-pattern", "a hybrid (Mamba) model"},
    {"--encoder-num-layers", "an encoder-decoder model; topoplan reads decoder-only (GPT) jobs"},
    {"--decoder-num-layers", "an encoder-decoder model; give --num-layers"},
    {"--encoder-seq-length", "an encoder-decoder model; give --seq-length"},
    {"--model-parallel-size", "no longer valid in Megatron-LM; give --tensor-model-parallel-size"},
    {"--checkpoint-activations", "no longer valid in Megatron-LM; give --recompute-granularity and --recompute-method"},
};

bool ignored(std::string_view name) {
  return std::find_if(std::begin(kIgnored), std::end(kIgnored), [&](const char* f) { return name == f; }) !=
         std::end(kIgnored);
}

std::vector<std::string> known_flags() {
  std::vector<std::string> all = megatron_flags_read();
  for (const char* f : kIgnored) all.emplace_back(f);
  for (const RefusedFlag& f : kRefused) all.emplace_back(f.name);
  return all;
}

// ---- The command line's parts ------------------------------------------------------------------

// A flag as given: its values and the line it is on. The last one counts, as argparse takes it.
struct Given {
  std::vector<Token> values;
  int line = 0;
};

struct CommandLine {
  std::map<std::string, Given> flags;  // read flags only
  int world = 0;
  std::string world_from;  // "torchrun --nnodes 2 --nproc-per-node 8 (line 1)", "WORLD_SIZE=16 (line 1)"
};

bool is_assignment(std::string_view w) {
  const size_t eq = w.find('=');
  if (eq == 0 || eq == std::string_view::npos || std::isdigit(static_cast<unsigned char>(w[0]))) return false;
  return std::all_of(w.begin(), w.begin() + static_cast<long>(eq),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

bool is_torchrun(const std::string& w) {
  return w == "torchrun" || w.ends_with("/torchrun") || w == "torch.distributed.run" || w == "torch.distributed.launch";
}

// A whole number written out: digits only, within an int.
std::optional<int64_t> whole(const std::string& s, int64_t max = INT_MAX) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s[0] == '-' || s[0] == '+' || ec != std::errc() || end != s.data() + s.size() || v > max)
    return std::nullopt;
  return v;
}

class Reader {
 public:
  Reader(std::string where) : where_(std::move(where)) {}

  std::string at(int line) const { return where_ + ":" + std::to_string(line) + ": "; }

  Result<CommandLine> split(const std::vector<Token>& tokens) {
    CommandLine cl;
    size_t i = 0;
    for (; i < tokens.size() && is_assignment(tokens[i].text); ++i) {
      const Token& t = tokens[i];
      if (!t.text.starts_with("WORLD_SIZE=")) continue;
      const std::string value = t.text.substr(11);
      std::optional<int64_t> n = t.expands ? std::nullopt : whole(value);
      if (!n || *n < 1)
        return Error{at(t.line) + "WORLD_SIZE: expected a positive whole number, got '" + value + "'" + shell_note(t)};
      cl.world = static_cast<int>(*n);
      cl.world_from = "WORLD_SIZE=" + value + " (line " + std::to_string(t.line) + ")";
    }
    if (i < tokens.size() && !tokens[i].text.starts_with("--")) {
      // A launch line: the launcher's words up to the training script.
      size_t script = i;
      while (script < tokens.size() && !(tokens[script].text.ends_with(".py") && !tokens[script].text.starts_with("-")))
        ++script;
      if (script == tokens.size())
        return Error{at(tokens[i].line) +
                     "expected Megatron-LM arguments (--num-layers ...) or a launch line that runs a "
                     "training script (torchrun ... pretrain_gpt.py ...), got '" +
                     tokens[i].text + "'"};
      RETURN_IF_ERROR(launcher(tokens, i, script, cl));
      // The command ends at a newline no backslash continues, or at an operator; what follows is
      // another command.
      for (size_t k = i; k < tokens.size(); ++k)
        if (tokens[k].op)
          return Error{at(tokens[k].line) + "'" + std::string(1, tokens[k].op) +
                       "' joins shell commands; give one launch line or the arguments alone (docs/job-format.md)"};
      for (size_t k = i + 1; k < tokens.size(); ++k)
        if (tokens[k].starts_line)
          return Error{at(tokens[k].line) + "'" + tokens[k].text +
                       "' starts a second command after the launch line of line " + std::to_string(tokens[i].line) +
                       " (a line that goes on ends with a backslash)"};
      i = script + 1;
    }
    for (; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      if (!t.text.starts_with("--"))
        return Error{at(t.line) + "expected a flag (--name), got '" + t.text + "'" + shell_note(t)};
      const size_t eq = t.text.find('=');
      const std::string name = t.text.substr(0, eq);
      std::vector<Token> values;
      if (eq != std::string::npos) values.push_back({t.text.substr(eq + 1), t.line, t.expands});
      while (i + 1 < tokens.size() && !tokens[i + 1].text.starts_with("--")) values.push_back(tokens[++i]);
      if (ignored(name)) continue;
      if (const RefusedFlag* r = table_find(kRefused, name))
        return Error{at(t.line) + name + ": " + r->why +
                     "; the model does not follow it, so topoplan cannot score this job"};
      const ReadFlag* f = table_find(kRead, name);
      if (!f)
        return Error{at(t.line) + name +
                     ": not a flag topoplan knows; it may change the traffic, so the job is not built "
                     "without knowing it" +
                     did_you_mean(name, known_flags()) +
                     " (docs/job-format.md lists the flags read, ignored and refused)"};
      if (f->arity == Arity::none && !values.empty())
        return Error{at(t.line) + name + ": takes no value, got '" + values[0].text + "'"};
      if (f->arity != Arity::none && values.empty()) return Error{at(t.line) + name + ": a value is missing"};
      if (f->arity == Arity::one && values.size() > 1)
        return Error{at(values[1].line) + name + ": takes one value, got '" + values[0].text + "' and '" +
                     values[1].text + "'"};
      for (const Token& v : values)
        if (v.expands) return Error{at(v.line) + name + ": '" + v.text + "'" + shell_note(v)};
      cl.flags[name] = {std::move(values), t.line};
    }
    return cl;
  }

 private:
  static std::string shell_note(const Token& t) {
    return t.expands ? " (the shell would expand it; topoplan reads the command as written: write the value out)" : "";
  }

  // torchrun's --nnodes and --nproc-per-node (or --standalone) between `from` and the script.
  Result<void> launcher(const std::vector<Token>& tokens, size_t from, size_t script, CommandLine& cl) {
    bool torchrun = false;
    int64_t nnodes = 0, nproc = 0;
    int line = tokens[from].line;
    for (size_t i = from; i < script; ++i) {
      const Token& t = tokens[i];
      if (is_torchrun(t.text)) {
        torchrun = true;
        line = t.line;
        continue;
      }
      if (!torchrun || !t.text.starts_with("--")) continue;
      const size_t eq = t.text.find('=');
      const std::string name = t.text.substr(0, eq);
      if (name == "--standalone") {
        nnodes = 1;
        continue;
      }
      const bool nodes = name == "--nnodes", procs = name == "--nproc-per-node" || name == "--nproc_per_node";
      if (!nodes && !procs) continue;
      const Token* v = eq != std::string::npos ? &t : (i + 1 < script ? &tokens[++i] : nullptr);
      const std::string value = v == nullptr ? "" : eq != std::string::npos ? t.text.substr(eq + 1) : v->text;
      std::string number = value;
      // --nnodes MIN:MAX is elastic; a fixed size says MIN:MIN or one number.
      if (const size_t colon = value.find(':'); nodes && colon != std::string::npos) {
        if (value.substr(0, colon) != value.substr(colon + 1))
          return Error{at(t.line) + "torchrun --nnodes " + value +
                       ": an elastic range has no one world size; give one number"};
        number = value.substr(0, colon);
      }
      std::optional<int64_t> n = (v && v->expands) ? std::nullopt : whole(number);
      if (!n || *n < 1)
        return Error{at(t.line) + "torchrun " + name + ": expected a positive whole number, got '" + value + "'" +
                     (v ? shell_note(*v) : "") +
                     (procs && (value == "gpu" || value == "auto") ? " (give the GPUs per node)" : "")};
      (nodes ? nnodes : nproc) = *n;
    }
    if (!torchrun || nproc == 0) return {};
    if (nnodes == 0) nnodes = 1;  // torchrun's default
    if (nnodes * nproc > INT_MAX) return Error{at(line) + "torchrun's world size is beyond " + std::to_string(INT_MAX)};
    cl.world = static_cast<int>(nnodes * nproc);
    cl.world_from = "torchrun --nnodes " + std::to_string(nnodes) + " --nproc-per-node " + std::to_string(nproc) +
                    " (line " + std::to_string(line) + ")";
    return {};
  }

  std::string where_;
};

// ---- From flags to a job -------------------------------------------------------------------------

// Builds the job document from the flags and remembers which flag set which field, so that the
// checks of job_from_json name the flag: "parallel.tp" -> "--tensor-model-parallel-size" (line 3).
// As Fields does, it keeps the first problem and later reads return their fallback, so the
// translation checks once at the end.
class Translator {
 public:
  Translator(const CommandLine& cl, std::string where) : cl_(cl), where_(std::move(where)) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
  }

  bool has(const std::string& flag) const { return cl_.flags.contains(flag); }
  int line(const std::string& flag) const { return cl_.flags.at(flag).line; }
  const std::string& value(const std::string& flag) const { return cl_.flags.at(flag).values[0].text; }
  const std::vector<Token>& values(const std::string& flag) const { return cl_.flags.at(flag).values; }
  std::string at(const std::string& flag) const {
    return where_ + ":" + std::to_string(line(flag)) + ": " + flag + ": ";
  }
  // Errors in `json_field` (and the fields under it) name `flag`; "world" names the world size.
  void field(const std::string& json_field, const std::string& flag) { field_flag_[json_field] = flag; }

  // The flag's whole number; `fallback` when absent (nullopt: the flag is required, `what` says
  // what it gives).
  int64_t number(const std::string& flag, std::optional<int64_t> fallback, const std::string& what = "",
                 int64_t max = INT_MAX) {
    if (!has(flag)) {
      if (!fallback) fail(where_ + ": " + flag + " is missing: it gives the " + what);
      return fallback.value_or(1);
    }
    std::optional<int64_t> n = whole(value(flag), max);
    if (!n) fail(at(flag) + "expected a whole number, got '" + value(flag) + "'");
    return n.value_or(1);
  }

  double real(const std::string& flag) {
    const std::string& s = value(flag);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
      fail(at(flag) + "expected a number, got '" + s + "'");
    return v;
  }

  // One of `choices` (the first when it is none, after the error).
  std::string choice(const std::string& flag, const std::vector<std::string>& choices) {
    const std::string& v = value(flag);
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
    fail(at(flag) + "expected one of " + names_list(choices) + ", got '" + v + "'" + did_you_mean(v, choices));
    return choices.front();
  }

  // job_from_json's "field: what" as "where:line: --flag: what", the nearest field that a flag set.
  std::string rename(const std::string& error) const {
    const size_t colon = error.find(": ");
    if (colon == std::string::npos) return where_ + ": " + error;
    const std::string what = error.substr(colon + 2);
    std::string key = error.substr(0, colon);
    key = key.substr(0, key.find('['));  // "model.moe.layer_freq[3]" is --moe-layer-freq's
    for (;;) {
      if (auto it = field_flag_.find(key); it != field_flag_.end()) {
        if (it->second == "world")
          return where_ + ": with the world size " + std::to_string(cl_.world) + " (" + cl_.world_from + "): " + what;
        return at(it->second) + what;
      }
      const size_t dot = key.rfind('.');
      if (dot == std::string::npos) break;
      key.erase(dot);
    }
    return where_ + ": the job the arguments make: " + error;
  }

 private:
  const CommandLine& cl_;
  std::string where_;
  std::string error_;
  std::map<std::string, std::string> field_flag_;
};

// Megatron's --moe-layer-freq list form (arguments.py _eval_pattern): digits, commas, brackets,
// parentheses, + and *, a Python expression of lists. Evaluated here without Python: a sum of
// terms, each a list literal or a parenthesised sum, repeated by * N.
class PatternParser {
 public:
  explicit PatternParser(std::string_view s) : s_(s) {}

  Result<std::vector<int>> parse() {
    Result<std::vector<int>> v = sum();
    if (!v) return v;
    if (i_ != s_.size()) return fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return v;
  }

 private:
  Error fail(const std::string& what) const { return Error{"column " + std::to_string(i_ + 1) + ": " + what}; }

  Result<std::vector<int>> sum() {
    Result<std::vector<int>> out = term();
    while (out && i_ < s_.size() && s_[i_] == '+') {
      ++i_;
      Result<std::vector<int>> next = term();
      if (!next) return next;
      out->insert(out->end(), next->begin(), next->end());
      if (out->size() > kMaxEntries) return fail("more than " + std::to_string(kMaxEntries) + " entries");
    }
    return out;
  }

  Result<std::vector<int>> term() {
    Result<std::vector<int>> base = atom();
    while (base && i_ < s_.size() && s_[i_] == '*') {
      ++i_;
      std::optional<int64_t> n = integer();
      if (!n) return fail("expected a count after '*'");
      if (*n > 0 && base->size() * static_cast<size_t>(*n) > kMaxEntries)
        return fail("more than " + std::to_string(kMaxEntries) + " entries");
      std::vector<int> repeated;
      for (int64_t k = 0; k < *n; ++k) repeated.insert(repeated.end(), base->begin(), base->end());
      *base = std::move(repeated);
    }
    return base;
  }

  Result<std::vector<int>> atom() {
    if (i_ < s_.size() && s_[i_] == '(') {
      ++i_;
      Result<std::vector<int>> inner = sum();
      if (!inner) return inner;
      if (i_ >= s_.size() || s_[i_] != ')') return fail("expected ')'");
      ++i_;
      return inner;
    }
    if (i_ >= s_.size() || s_[i_] != '[') return fail("expected '[' or '('");
    ++i_;
    std::vector<int> list;
    while (i_ < s_.size() && s_[i_] != ']') {
      std::optional<int64_t> n = integer();
      if (!n) return fail("expected 0 or 1");
      list.push_back(static_cast<int>(std::min<int64_t>(*n, INT_MAX)));
      if (i_ < s_.size() && s_[i_] == ',')
        ++i_;
      else
        break;
    }
    if (i_ >= s_.size() || s_[i_] != ']') return fail("expected ']'");
    ++i_;
    return list;
  }

  std::optional<int64_t> integer() {
    const size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return whole(std::string(s_.substr(b, i_ - b)));
  }

  static constexpr size_t kMaxEntries = 1 << 20;  // layers are far fewer
  std::string_view s_;
  size_t i_ = 0;
};

// A number the flag gives into doc[key], its errors named after the flag.
void number_into(Translator& t, json& doc, const std::string& field, const std::string& key, const std::string& flag,
                 std::optional<int64_t> fallback, const std::string& what = "") {
  doc[key] = t.number(flag, fallback, what);
  if (t.has(flag) || !fallback) t.field(field + "." + key, flag);
}

json model_doc(Translator& t) {
  json m;
  number_into(t, m, "model", "layers", "--num-layers", std::nullopt, "number of transformer layers");
  number_into(t, m, "model", "hidden", "--hidden-size", std::nullopt, "hidden size");
  number_into(t, m, "model", "heads", "--num-attention-heads", std::nullopt, "number of attention heads");
  number_into(t, m, "model", "vocab", "--vocab-size", std::nullopt,
              "vocabulary size (topoplan does not read tokenizer files: add the tokenizer's vocabulary size)");
  m["swiglu"] = t.has("--swiglu") || t.has("--quick-geglu");
  // arguments.py: without --ffn-hidden-size, 4h, or for a gated MLP 2/3 of it rounded down to 64.
  const int64_t hidden = m["hidden"].get<int64_t>();
  const int64_t ffn = m["swiglu"].get<bool>() ? (4 * hidden * 2 / 3) / 64 * 64 : 4 * hidden;
  number_into(t, m, "model", "ffn_hidden", "--ffn-hidden-size", std::max<int64_t>(ffn, 1));
  if (t.has("--num-query-groups") && !t.has("--group-query-attention"))
    t.fail(t.at("--num-query-groups") +
           "Megatron-LM reads it only with --group-query-attention (without it every head "
           "has its own key and value); add --group-query-attention or drop it");
  if (t.has("--group-query-attention"))
    number_into(t, m, "model", "kv_heads", "--num-query-groups", std::nullopt,
                "number of key/value heads with --group-query-attention");
  if (t.has("--kv-channels")) {
    number_into(t, m, "model", "head_dim", "--kv-channels", 0);
    t.field("model.heads", "--kv-channels");
  }
  if (!t.has("--num-experts")) return m;

  json moe;
  number_into(t, moe, "model.moe", "experts", "--num-experts", std::nullopt);
  t.field("model.moe", "--num-experts");
  number_into(t, moe, "model.moe", "top_k", "--moe-router-topk", 2);  // Megatron's default
  number_into(t, moe, "model.moe", "ffn_hidden", "--moe-ffn-hidden-size", m["ffn_hidden"].get<int64_t>());
  if (t.has("--moe-layer-freq")) {
    const std::string& f = t.value("--moe-layer-freq");
    if (f.find('[') == std::string::npos) {
      number_into(t, moe, "model.moe", "layer_freq", "--moe-layer-freq", 1);
    } else if (Result<std::vector<int>> pattern = PatternParser(f).parse(); pattern) {
      moe["layer_freq"] = *pattern;
      t.field("model.moe.layer_freq", "--moe-layer-freq");
    } else {
      t.fail(t.at("--moe-layer-freq") + "'" + f + "': " + pattern.error());
    }
  }
  if (t.has("--moe-shared-expert-intermediate-size")) {
    const int64_t size = t.number("--moe-shared-expert-intermediate-size", 0);
    const int64_t per = moe["ffn_hidden"].get<int64_t>();
    if (per <= 0 || size % per != 0)
      t.fail(t.at("--moe-shared-expert-intermediate-size") + std::to_string(size) +
             " is not a whole number of experts of --moe-ffn-hidden-size " + std::to_string(per) +
             " (topoplan counts shared experts of the routed experts' size)");
    moe["shared_experts"] = per > 0 ? size / per : 0;
    t.field("model.moe.shared_experts", "--moe-shared-expert-intermediate-size");
  }
  if (t.has("--moe-expert-capacity-factor")) {
    const double cf = t.real("--moe-expert-capacity-factor");
    if (cf > 0 && !t.has("--moe-pad-expert-input-to-capacity"))
      t.fail(t.at("--moe-expert-capacity-factor") +
             "without --moe-pad-expert-input-to-capacity Megatron sends only the "
             "tokens routed, up to the capacity; topoplan counts every expert's full capacity, as padding does: add "
             "--moe-pad-expert-input-to-capacity");
    moe["capacity_factor"] = cf;
    t.field("model.moe.capacity_factor", "--moe-expert-capacity-factor");
  }
  m["moe"] = moe;
  return m;
}

json training_doc(Translator& t, int dp) {
  json tr;
  number_into(t, tr, "training", "seq_length", "--seq-length", std::nullopt, "sequence length");
  number_into(t, tr, "training", "micro_batch", "--micro-batch-size", std::nullopt, "micro-batch size");
  // arguments.py: the global batch defaults to micro-batch x data-parallel size.
  number_into(t, tr, "training", "global_batch", "--global-batch-size", tr["micro_batch"].get<int64_t>() * dp);
  if (!t.has("--global-batch-size")) t.field("training.global_batch", "--micro-batch-size");

  // Precision, and the gradient reduction's element type as arguments.py sets it.
  const bool bf16 = t.has("--bf16"), fp16 = t.has("--fp16");
  if (bf16 && fp16) t.fail(t.at("--fp16") + "--bf16 and --fp16 are both given; Megatron takes one");
  std::string dtype = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  if (t.has("--fp8-format")) {
    t.choice("--fp8-format", {"e4m3", "hybrid"});
    if (!bf16 && !fp16) t.fail(t.at("--fp8-format") + "FP8 runs on bf16 or fp16 parameters: add --bf16");
    dtype = "fp8";
  }
  std::string grad = "fp32";
  if (fp16 && !t.has("--accumulate-allreduce-grads-in-fp32")) grad = "fp16";
  if (bf16 && t.has("--grad-reduce-in-bf16")) grad = "bf16";
  tr["dtype"] = dtype;
  tr["grad_reduce_dtype"] = grad;
  // Adam's state stays fp32 unless the precision-aware optimizer narrows it; argparse checks the
  // dtype flags' choices either way, and without the switch they do nothing (arguments.py).
  const std::string main_params = t.has("--main-params-dtype") ? t.choice("--main-params-dtype", {"fp32", "fp16"}) : "fp32";
  const std::string exp_avg =
      t.has("--exp-avg-dtype") ? t.choice("--exp-avg-dtype", {"fp32", "fp16", "bf16", "fp8"}) : "fp32";
  const std::string exp_avg_sq =
      t.has("--exp-avg-sq-dtype") ? t.choice("--exp-avg-sq-dtype", {"fp32", "fp16", "bf16", "fp8"}) : "fp32";
  if (t.has("--use-precision-aware-optimizer")) {
    tr["main_params_dtype"] = main_params;
    tr["exp_avg_dtype"] = exp_avg;
    tr["exp_avg_sq_dtype"] = exp_avg_sq;
    for (const auto& [field, flag] : {std::pair{"training.main_params_dtype", "--main-params-dtype"},
                                      std::pair{"training.exp_avg_dtype", "--exp-avg-dtype"},
                                      std::pair{"training.exp_avg_sq_dtype", "--exp-avg-sq-dtype"}})
      if (t.has(flag)) t.field(field, flag);
  }
  // AttnBackend (transformer/enums.py): auto, flash and fused run a flash kernel (FlashAttention or
  // cuDNN's through Transformer Engine); unfused and local write the scores out. auto by default.
  if (t.has("--attention-backend")) {
    const std::string backend = t.choice("--attention-backend", {"flash", "fused", "unfused", "local", "auto"});
    tr["attention_backend"] = backend == "unfused" || backend == "local" ? "unfused" : "flash";
    t.field("training.attention_backend", "--attention-backend");
  }

  // Recomputation: --recompute-activations is selective (arguments.py).
  std::string granularity = t.has("--recompute-activations") ? "selective" : "none";
  if (t.has("--recompute-granularity")) granularity = t.choice("--recompute-granularity", {"full", "selective"});
  tr["recompute"] = granularity;
  const std::string by = t.has("--recompute-granularity") ? "--recompute-granularity" : "--recompute-activations";
  for (const char* key : {"recompute", "recompute_method", "recompute_num_layers", "recompute_modules"})
    t.field(std::string("training.") + key, by);
  if (t.has("--recompute-method")) {
    tr["recompute_method"] = t.choice("--recompute-method", {"uniform", "block"});
    t.field("training.recompute_method", "--recompute-method");
  }
  if (t.has("--recompute-num-layers"))
    number_into(t, tr, "training", "recompute_num_layers", "--recompute-num-layers", 0);
  if (t.has("--recompute-modules")) {
    json modules = json::array();
    for (const Token& m : t.values("--recompute-modules")) modules.push_back(m.text);
    tr["recompute_modules"] = modules;
    t.field("training.recompute_modules", "--recompute-modules");
  }
  return tr;
}

json parallel_doc(Translator& t, const json& model, json parallel) {
  parallel["sequence_parallel"] = t.has("--sequence-parallel");
  t.field("parallel.sequence_parallel", "--sequence-parallel");
  // Virtual stages: per pipeline rank, or (older) as layers per virtual stage.
  const std::string per_rank = "--num-virtual-stages-per-pipeline-rank",
                    per_layers = "--num-layers-per-virtual-pipeline-stage";
  if (t.has(per_rank) && t.has(per_layers))
    t.fail(t.at(per_layers) + "give it or " + per_rank + ", not both (arguments.py)");
  if (t.has(per_rank)) number_into(t, parallel, "parallel", "virtual_pipeline_stages", per_rank, 1);
  if (t.has(per_layers)) {
    const int64_t per = t.number(per_layers, 1);
    const int64_t layers = model["layers"].get<int64_t>(), stages = parallel.value("pp", int64_t{1});
    if (per < 1 || layers % stages != 0 || (layers / stages) % per != 0)
      t.fail(t.at(per_layers) + "the " + std::to_string(layers) + " layers over pp " + std::to_string(stages) +
             " do not split into virtual stages of " + std::to_string(per) + " layers");
    else
      parallel["virtual_pipeline_stages"] = layers / stages / per;
    t.field("parallel.virtual_pipeline_stages", per_layers);
  }
  const int64_t chunks = parallel.value("virtual_pipeline_stages", int64_t{1});
  for (const auto& [flag, key] : {std::pair{"--decoder-first-pipeline-num-layers", "first_stage_layers"},
                                  {"--decoder-last-pipeline-num-layers", "last_stage_layers"}}) {
    if (!t.has(flag)) continue;
    number_into(t, parallel, "parallel", key, flag, 0);
    // TransformerConfig refuses it; the layout takes such a split (planner/megatron_layout.h).
    if (const int64_t n = parallel[key].get<int64_t>(); t.ok() && n % chunks != 0)
      t.fail(t.at(flag) + std::to_string(n) + " layers are not divisible by the " + std::to_string(chunks) +
             " virtual stages per pipeline rank (Megatron's TransformerConfig); --pipeline-model-parallel-layout "
             "takes such a split");
  }
  // The embedding and the loss counted as a layer each: the stages split layers + 2 evenly, so the
  // first and last hold one layer fewer (TransformerConfig, get_num_layers_to_build).
  const std::string embedding = "--account-for-embedding-in-pipeline-split",
                    loss = "--account-for-loss-in-pipeline-split";
  if (t.has(embedding) || t.has(loss)) {
    const std::string& flag = t.has(embedding) ? embedding : loss;
    for (const std::string& other :
         {std::string("--decoder-first-pipeline-num-layers"), std::string("--decoder-last-pipeline-num-layers")})
      if (t.has(other)) t.fail(t.at(flag) + "give it or " + other + ", not both (TransformerConfig)");
    const int64_t pp = parallel.value("pp", int64_t{1}),
                  slots = model["layers"].get<int64_t>() + t.has(embedding) + t.has(loss);
    if (slots % (pp * chunks) != 0 || slots / pp < 2)
      t.fail(t.at(flag) + std::to_string(slots) +
             " layers with the embedding and loss do not split into pp x virtual "
             "stages = " +
             std::to_string(pp) + " x " + std::to_string(chunks) + " equal chunks, or leave a stage none");
    for (const auto& [given, key] : {std::pair{&embedding, "first_stage_layers"}, {&loss, "last_stage_layers"}})
      if (t.has(*given) && t.ok()) {
        parallel[key] = slots / pp - 1;
        t.field(std::string("parallel.") + key, *given);
      }
  }
  if (const std::string layout = "--pipeline-model-parallel-layout"; t.has(layout)) {
    for (const std::string& other : {per_rank, per_layers, std::string("--decoder-first-pipeline-num-layers"),
                                     std::string("--decoder-last-pipeline-num-layers"), embedding, loss})
      if (t.has(other)) t.fail(t.at(layout) + "give it or " + other + ", not both (arguments.py, TransformerConfig)");
    Result<PipelineSplit> split = megatron_pipeline_layout_parse(
        t.value(layout), static_cast<int>(parallel.value("pp", int64_t{1})), model["layers"].get<int>());
    if (!split) {
      t.fail(t.at(layout) + split.error());
    } else {
      parallel["virtual_pipeline_stages"] = split->virtual_stages;
      parallel["first_stage_layers"] = split->first_stage_layers;
      parallel["last_stage_layers"] = split->last_stage_layers;
      for (const char* key : {"virtual_pipeline_stages", "first_stage_layers", "last_stage_layers"})
        t.field(std::string("parallel.") + key, layout);
    }
  }
  if (parallel.value("virtual_pipeline_stages", int64_t{1}) > 1 && t.has("--no-overlap-p2p-communication"))
    t.fail(t.at("--no-overlap-p2p-communication") +
           "the interleaved schedule's sends and receives then block; topoplan's "
           "model overlaps them with the next chunk's compute, as Megatron does by default");
  if (t.has("--cp-comm-type")) {
    // One type for every layer; a list must repeat it.
    const std::vector<Token>& v = t.values("--cp-comm-type");
    for (const Token& x : v)
      if (x.text != v[0].text)
        t.fail(t.at("--cp-comm-type") + "a type per layer ('" + v[0].text + "', '" + x.text +
               "'); topoplan's model takes one type for every layer");
    const std::string& c = v[0].text;
    if (c != "p2p" && c != "all_gather" && c != "allgather")
      t.fail(t.at("--cp-comm-type") + "'" + c + "': topoplan models p2p and all_gather" +
             did_you_mean(c, {"p2p", "all_gather"}));
    parallel["cp_comm"] = c == "p2p" ? "p2p" : "allgather";
    t.field("parallel.cp_comm", "--cp-comm-type");
  }
  if (t.has("--use-tp-pp-dp-mapping")) {
    parallel["order"] = "tp-cp-ep-pp-dp";
    t.field("parallel.order", "--use-tp-pp-dp-mapping");
  }

  // The distributed optimizer is ZeRO 1; Megatron FSDP's strategies are 0 to 3; Torch FSDP2 shards fully.
  int zero = t.has("--use-distributed-optimizer") ? 1 : 0;
  std::string zero_flag = "--use-distributed-optimizer";
  for (const char* fsdp : {"--use-megatron-fsdp", "--use-custom-fsdp"})
    if (t.has(fsdp)) {
      zero = 3;  // optim_grads_params, Megatron's default strategy
      zero_flag = fsdp;
    }
  if (zero_flag != "--use-distributed-optimizer" && t.has("--data-parallel-sharding-strategy")) {
    const std::vector<std::string> strategies = {"no_shard", "optim", "optim_grads", "optim_grads_params"};
    const std::string s = t.choice("--data-parallel-sharding-strategy", strategies);
    zero = static_cast<int>(std::find(strategies.begin(), strategies.end(), s) - strategies.begin());
    zero_flag = "--data-parallel-sharding-strategy";
  }
  if (t.has("--use-torch-fsdp2")) {
    zero = 3;
    zero_flag = "--use-torch-fsdp2";
  }
  parallel["zero_stage"] = zero;
  parallel["fsdp"] = zero == 3;
  t.field("parallel.zero_stage", zero_flag);
  t.field("parallel.fsdp", zero_flag);
  // Megatron's defaults are off, unlike a job file's.
  parallel["overlap_grad_reduce"] = t.has("--overlap-grad-reduce");
  parallel["overlap_param_gather"] = t.has("--overlap-param-gather");
  if (t.has("--overlap-param-gather") && (zero == 0 || !t.has("--overlap-grad-reduce")))
    t.fail(t.at("--overlap-param-gather") +
           "Megatron-LM runs it only with the distributed optimizer or Megatron FSDP, "
           "and with --overlap-grad-reduce (arguments.py)");
  parallel["tp_comm_overlap"] = t.has("--tp-comm-overlap");
  t.field("parallel.tp_comm_overlap", "--tp-comm-overlap");
  if (t.has("--ddp-bucket-size")) {
    parallel["bucket_params"] = t.number("--ddp-bucket-size", 0, "", INT64_MAX / 2);
    t.field("parallel.bucket_params", "--ddp-bucket-size");
  }
  // The model's expert traffic is the all-to-all dispatcher's; Megatron's default is allgather.
  if (model.contains("moe") && parallel.value("ep", int64_t{1}) > 1) {
    if (!t.has("--moe-token-dispatcher-type"))
      t.fail(t.at("--expert-model-parallel-size") +
             "with expert parallelism Megatron's default token dispatcher is "
             "allgather; topoplan models the all-to-all one: add --moe-token-dispatcher-type alltoall");
    else if (t.value("--moe-token-dispatcher-type") != "alltoall")
      t.fail(t.at("--moe-token-dispatcher-type") + "'" + t.value("--moe-token-dispatcher-type") +
             "': topoplan models the all-to-all dispatcher (alltoall)");
  }
  return parallel;
}

}  // namespace

bool megatron_args_detect(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{' || text[first] == '[') return false;
  return text.find("--") != std::string_view::npos;
}

const std::vector<std::string>& megatron_flags_read() {
  static const std::vector<std::string> names = table_names(kRead);
  return names;
}

const std::vector<std::string>& megatron_flags_ignored() {
  static const std::vector<std::string> names(std::begin(kIgnored), std::end(kIgnored));
  return names;
}

const std::vector<std::string>& megatron_flags_refused() {
  static const std::vector<std::string> names = table_names(kRefused);
  return names;
}

Result<Job> job_from_megatron_args(const std::string& text, const std::string& where, const WorldHint& hint) {
  Result<std::vector<Token>> tokens = shell_words(text, where);
  RETURN_IF_ERROR(tokens);
  if (tokens->empty()) return Error{where + ": no arguments"};
  Result<CommandLine> cl = Reader(where).split(*tokens);
  RETURN_IF_ERROR(cl);
  if (cl->world == 0 && hint.ranks > 0) {
    cl->world = hint.ranks;
    cl->world_from = hint.from;
  }
  if (cl->world == 0)
    return Error{where +
                 ": the world size is not given, and Megatron-LM derives the data-parallel size from it: launch "
                 "with torchrun --nnodes N --nproc-per-node K, put WORLD_SIZE=N before the command, or let the "
                 "command decide (plan --nodes, score --layout; docs/job-format.md)"};
  Translator t(*cl, where);

  json parallel = json::object();
  for (const auto& [flag, key] : {std::pair{"--tensor-model-parallel-size", "tp"},
                                  {"--pipeline-model-parallel-size", "pp"},
                                  {"--context-parallel-size", "cp"},
                                  {"--expert-model-parallel-size", "ep"},
                                  {"--expert-tensor-parallel-size", "expert_tp"}})
    if (t.has(flag)) number_into(t, parallel, "parallel", key, flag, 1);
  if (!t.ok()) return Error{t.error()};
  // The data-parallel size: Megatron derives it from the world size.
  const int64_t tp = parallel.value("tp", int64_t{1}), cp = parallel.value("cp", int64_t{1}),
                pp = parallel.value("pp", int64_t{1});
  const int64_t model_ranks = tp * cp * pp;
  if (tp < 1 || cp < 1 || pp < 1 || cl->world % model_ranks != 0)
    return Error{where + ": the world size " + std::to_string(cl->world) + " (" + cl->world_from +
                 ") is not divisible by tp x cp x pp = " + std::to_string(tp) + " x " + std::to_string(cp) + " x " +
                 std::to_string(pp) + " = " + std::to_string(model_ranks)};
  const int dp = static_cast<int>(cl->world / model_ranks);
  parallel["dp"] = dp;
  t.field("parallel.dp", "world");
  t.field("parallel", "world");

  const json model = model_doc(t);
  const json training = training_doc(t, dp);
  parallel = parallel_doc(t, model, std::move(parallel));
  if (!t.ok()) return Error{t.error()};
  const json doc = {{"format", "topoplan-job"},
                    {"name", file_stem(where)},
                    {"model", model},
                    {"training", training},
                    {"parallel", parallel}};
  Result<Job> job = job_from_json(doc, "");
  if (!job) return Error{t.rename(job.error())};
  return job;
}

}  // namespace topoplan
