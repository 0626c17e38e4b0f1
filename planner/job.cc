#include "planner/job.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/enum_names.h"
#include "base/json_fields.h"
#include "base/limits.h"
#include "base/units.h"
#include "planner/megatron_args.h"

namespace topoplan {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kDtypeNames = {"bf16", "fp16", "fp8", "fp32"};
constexpr std::array<std::string_view, 2> kCpCommNames = {"p2p", "allgather"};
constexpr std::array<std::string_view, 2> kAttentionBackendNames = {"flash", "unfused"};
constexpr std::array<std::string_view, 3> kRecomputeNames = {"none", "selective", "full"};
constexpr std::array<std::string_view, 2> kRecomputeMethodNames = {"uniform", "block"};
constexpr std::array<std::string_view, 7> kRecomputeModuleNames = {
    "core_attn", "mlp", "moe", "shared_experts", "moe_act", "layernorm", "mla_up_proj"};

std::string str(int64_t n) { return std::to_string(n); }

// "data/jobs/llama3-70b.json" -> "llama3-70b".
std::string name_from(const std::string& where) {
  std::string file = std::filesystem::path(where).filename().string();
  if (file.ends_with(".json")) file.erase(file.size() - 5);
  return file;
}

// An absent optional section reads as {}, so every key in it takes its default.
const json& section(Fields& top, const std::string& key, bool required) {
  static const json kEmpty = json::object();
  const json* v = top.get(key, required);
  return v ? *v : kEmpty;
}

Dtype dtype_read(Fields& f, const std::string& key, Dtype fallback) {
  return *dtype_from(f.choice(key, std::string(to_string(fallback)), enum_names(kDtypeNames)));
}

// Megatron --moe-layer-freq: an int, or a list with one 0/1 per layer.
void layer_freq_read(Fields& f, int layers, MoeShape& moe) {
  const json* v = f.get("layer_freq", false);
  if (!v || !v->is_array()) {
    moe.layer_freq = f.integer("layer_freq", 1, 1);
    return;
  }
  if (static_cast<int64_t>(v->size()) != layers) {
    f.fail(f.at("layer_freq"), "expected a list of " + str(layers) + " entries (one per model.layers), got " +
                                   str(static_cast<int64_t>(v->size())));
    return;
  }
  for (size_t i = 0; i < v->size() && f.ok(); ++i) {
    const json& x = (*v)[i];
    if (x == 0 || x == 1)
      moe.layer_pattern.push_back(x.get<int>());
    else
      f.fail(json_indexed(f.at("layer_freq"), i), "expected 0 or 1, got " + json_shown(x));
  }
}

MoeShape moe_read(const json& value, const ModelShape& m, std::string* error) {
  Fields f(value, "model.moe", {"experts", "top_k", "layer_freq", "ffn_hidden", "shared_experts", "capacity_factor"},
           error);
  MoeShape moe;
  moe.experts = f.integer("experts", kRequired, 1);
  moe.top_k = f.integer("top_k", kRequired, 1, moe.experts);
  layer_freq_read(f, m.layers, moe);
  moe.ffn_hidden = f.integer("ffn_hidden", m.ffn_hidden, 1);
  moe.shared_experts = f.integer("shared_experts", 0, 0);
  moe.capacity_factor = f.number("capacity_factor", 0, 0, true, limits::kMaxRatio);
  return moe;
}

ModelShape model_read(const json& value, std::string* error) {
  Fields f(value, "model",
           {"layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "swiglu", "moe"}, error);
  ModelShape m;
  m.layers = f.integer("layers", kRequired, 1, static_cast<int>(limits::kMaxLayers));
  // ffn_hidden defaults to 4 x hidden, which must stay an int.
  m.hidden = f.integer("hidden", kRequired, 1, INT_MAX / 4);
  m.ffn_hidden = f.integer("ffn_hidden", 4 * m.hidden, 1);
  m.heads = f.integer("heads", kRequired, 1);
  m.kv_heads = f.integer("kv_heads", m.heads, 1);
  m.head_dim = f.integer("head_dim", 0, 1, INT_MAX / 4);  // 0: hidden / heads, set by model_check
  m.vocab = f.integer("vocab", kRequired, 1);
  m.swiglu = f.boolean("swiglu", true);
  if (const json* moe = f.get("moe", false)) m.moe = moe_read(*moe, m, error);
  return m;
}

// Present keys only: which of them Megatron accepts depends on the granularity (recompute_check).
RecomputeSpec recompute_read(Fields& f) {
  RecomputeSpec r;
  r.granularity = *enum_from<Recompute>(kRecomputeNames, f.choice("recompute", "none", enum_names(kRecomputeNames)));
  if (f.has("recompute_method"))
    r.method = *enum_from<RecomputeMethod>(kRecomputeMethodNames,
                                           f.choice("recompute_method", kRequired, enum_names(kRecomputeMethodNames)));
  if (f.has("recompute_num_layers")) r.num_layers = f.integer("recompute_num_layers", kRequired, 1);
  if (const json* modules = f.list("recompute_modules", false)) {
    for (size_t i = 0; i < modules->size() && f.ok(); ++i) {
      const json& m = (*modules)[i];
      std::optional<RecomputeModule> module =
          m.is_string() ? enum_from<RecomputeModule>(kRecomputeModuleNames, m.get<std::string>()) : std::nullopt;
      if (module)
        r.modules.push_back(*module);
      else
        f.fail(json_indexed(f.at("recompute_modules"), i),
               "expected one of " + json(enum_names(kRecomputeModuleNames)).dump() + ", got " + json_shown(m));
    }
  } else if (r.granularity == Recompute::selective) {
    r.modules = {RecomputeModule::core_attn};  // Megatron-Core's default
  }
  return r;
}

Training training_read(const json& value, std::string* error) {
  Fields f(value, "training",
           {"seq_length", "micro_batch", "global_batch", "dtype", "grad_reduce_dtype", "main_params_dtype",
            "exp_avg_dtype", "exp_avg_sq_dtype", "attention_backend", "recompute", "recompute_method",
            "recompute_num_layers", "recompute_modules"},
           error);
  Training t;
  t.seq_length = f.integer("seq_length", kRequired, 1);
  t.micro_batch = f.integer("micro_batch", 1, 1);
  t.global_batch = f.integer("global_batch", kRequired, 1);
  t.dtype = dtype_read(f, "dtype", Dtype::bf16);
  // Megatron accumulates and all-reduces bf16 gradients in fp32 by default.
  t.grad_reduce_dtype = dtype_read(f, "grad_reduce_dtype", Dtype::fp32);
  // Master weights in fp8 would lose the updates they exist to keep.
  t.main_params_dtype = *dtype_from(f.choice("main_params_dtype", "fp32", {"fp32", "bf16", "fp16"}));
  t.exp_avg_dtype = dtype_read(f, "exp_avg_dtype", Dtype::fp32);
  t.exp_avg_sq_dtype = dtype_read(f, "exp_avg_sq_dtype", Dtype::fp32);
  t.attention_backend = *enum_from<AttentionBackend>(
      kAttentionBackendNames, f.choice("attention_backend", "flash", enum_names(kAttentionBackendNames)));
  t.recompute = recompute_read(f);
  return t;
}

Parallelism parallel_read(const json& value, std::string* error) {
  Fields f(value, "parallel",
           {"tp", "cp", "pp", "dp", "ep", "expert_tp", "sequence_parallel", "zero_stage", "fsdp",
            "virtual_pipeline_stages", "first_stage_layers", "last_stage_layers", "cp_comm", "order",
            "overlap_grad_reduce", "overlap_param_gather", "bucket_params", "tp_comm_overlap"},
           error);
  Parallelism p;
  p.tp = f.integer("tp", 1, 1);
  p.cp = f.integer("cp", 1, 1);
  p.pp = f.integer("pp", 1, 1);
  p.dp = f.integer("dp", 1, 1);
  p.ep = f.integer("ep", 1, 1);
  p.expert_tp = f.integer("expert_tp", p.tp, 1);
  // Megatron turns sequence parallelism off when there is no tensor parallelism to split over.
  p.sequence_parallel = f.boolean("sequence_parallel", false) && p.tp > 1;
  p.fsdp = f.boolean("fsdp", false);
  p.zero_stage = f.integer("zero_stage", p.fsdp ? 3 : 0, 0, 3);
  if (p.fsdp && p.zero_stage != 3)
    f.fail(f.at("zero_stage"),
           "fsdp shards parameters, gradients and optimizer state as ZeRO stage 3 does, so "
           "zero_stage must be 3 or left out, got " +
               str(p.zero_stage));
  p.virtual_pipeline_stages = f.integer("virtual_pipeline_stages", 1, 1);
  p.first_stage_layers = f.integer("first_stage_layers", 0, 0);
  p.last_stage_layers = f.integer("last_stage_layers", 0, 0);
  p.cp_comm = f.choice("cp_comm", "p2p", enum_names(kCpCommNames)) == "p2p" ? CpComm::p2p : CpComm::allgather;
  p.order = f.text("order", std::string(kDefaultOrder));
  p.overlap_grad_reduce = f.boolean("overlap_grad_reduce", true);
  p.overlap_param_gather = f.boolean("overlap_param_gather", true);
  p.tp_comm_overlap = f.boolean("tp_comm_overlap", false);
  // Megatron's arguments.py: "Tensor parallel communication/GEMM overlap can happen only when
  // sequence parallelism is enabled".
  if (p.tp_comm_overlap && !p.sequence_parallel)
    f.fail(f.at("tp_comm_overlap"), "needs sequence_parallel true (and tp > 1), as Megatron requires");
  p.bucket_params = f.integer("bucket_params", 0, 0);
  return p;
}

ComputeOverrides compute_read(const json& value, std::string* error) {
  Fields f(value, "compute",
           {"peak_tflops", "matmul_tflops", "attention_tflops", "hbm_GBps", "sms", "memory", "achievable_fraction"},
           error);
  ComputeOverrides c;
  // The one fraction of the peak is gone: a step's compute is its kernels' time (docs/model.md,
  // "Compute"), and what a site's GPUs sustain is the calibration's compute_efficiency.
  if (f.has("achievable_fraction"))
    f.fail(f.at("achievable_fraction"),
           "is no longer read: give the GPU's figures (peak_tflops, matmul_tflops, attention_tflops, hbm_GBps, "
           "sms, memory) here, and what a step sustains of them as compute_efficiency in a --calibration file "
           "(topoplan calibrate --training-log fits it)");
  auto rate = [&](const char* key) -> std::optional<double> {
    if (!f.has(key)) return std::nullopt;
    return f.number(key, kRequired, limits::kMinTflops, true, limits::kMaxTflops);
  };
  c.peak_tflops = rate("peak_tflops");
  c.matmul_tflops = rate("matmul_tflops");
  c.attention_tflops = rate("attention_tflops");
  if (f.has("hbm_GBps")) c.hbm_GBps = f.number("hbm_GBps", kRequired, limits::kMinLinkGBps, true, limits::kMaxLinkGBps);
  if (f.has("sms")) c.sms = f.integer("sms", kRequired, 1, 100000);
  if (f.has("memory")) {
    Result<double> bytes = parse_bytes(f.text("memory", kRequired));
    if (!bytes)
      f.fail(f.at("memory"), bytes.error());
    else
      c.memory_bytes = *bytes;
  }
  return c;
}

// Layers per physical pipeline stage: the given first and last counts, the rest split evenly.
std::vector<int> stage_counts(const Parallelism& p, int layers) {
  const int first = p.first_stage_layers, last = p.last_stage_layers;
  const int middle_stages = p.pp - (first > 0) - (last > 0);
  std::vector<int> counts(static_cast<size_t>(p.pp), middle_stages > 0 ? (layers - first - last) / middle_stages : 0);
  if (first > 0) counts.front() = first;
  if (last > 0) counts.back() = last;
  return counts;
}

// The checks below run in order on a parsed job; Fields::fail keeps the first failure.

// Megatron's arguments.py: without --kv-channels, hidden must split evenly over the heads.
void model_check(ModelShape& m, Fields& f) {
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    f.fail("model.heads", "hidden " + str(m.hidden) + " is not divisible by " + str(m.heads) +
                              " heads (give model.head_dim if the model decouples them)");
  if (m.head_dim == 0) m.head_dim = m.hidden / m.heads;
  if (m.heads % m.kv_heads != 0)
    f.fail("model.kv_heads", str(m.heads) + " heads are not divisible by " + str(m.kv_heads) + " kv_heads");
}

void tensor_check(const Job& job, bool expert_tp_given, Fields& f) {
  const ModelShape& m = job.model;
  const int tp = job.parallel.tp, etp = job.parallel.expert_tp;
  if (m.heads % tp != 0) f.fail("parallel.tp", str(m.heads) + " heads are not divisible by tp " + str(tp));
  // Megatron: num_query_groups must be divisible by the tensor-parallel size.
  if (m.kv_heads % tp != 0) f.fail("parallel.tp", str(m.kv_heads) + " kv_heads are not divisible by tp " + str(tp));
  if (m.ffn_hidden % tp != 0)
    f.fail("parallel.tp", "ffn_hidden " + str(m.ffn_hidden) + " is not divisible by tp " + str(tp));
  if (m.is_moe() && m.moe.ffn_hidden % etp != 0)
    f.fail("parallel.expert_tp", "moe.ffn_hidden " + str(m.moe.ffn_hidden) + " is not divisible by expert_tp " +
                                     str(etp) + (expert_tp_given ? "" : " (expert_tp defaults to tp)"));
}

void expert_check(const Job& job, Fields& f) {
  const ModelShape& m = job.model;
  const Parallelism& p = job.parallel;
  if (!m.is_moe() && p.ep > 1)
    f.fail("parallel.ep", "ep " + str(p.ep) + " needs an MoE model (model.moe), the model is dense");
  if (m.is_moe() && m.moe.experts % p.ep != 0)
    f.fail("parallel.ep", str(m.moe.experts) + " experts are not divisible by ep " + str(p.ep));
  if (m.is_moe() && p.ep > 1 && p.tp > 1 && !p.sequence_parallel)
    f.fail("parallel.sequence_parallel", "Megatron requires sequence parallelism for MoE with ep " + str(p.ep) +
                                             " and tp " + str(p.tp) + ", got false");
}

void batch_check(const Job& job, Fields& f) {
  const Training& t = job.training;
  const Parallelism& p = job.parallel;
  const int64_t per_step = int64_t{t.micro_batch} * p.dp;
  if (t.global_batch % per_step != 0)
    f.fail("training.global_batch", str(t.global_batch) + " is not divisible by micro_batch x dp = " +
                                        str(t.micro_batch) + " x " + str(p.dp) + " = " + str(per_step));
}

void sequence_check(const Job& job, Fields& f) {
  const int seq = job.training.seq_length, cp = job.parallel.cp, tp = job.parallel.tp;
  // Load-balanced causal CP gives each rank two of 2 x cp chunks, one early and one late.
  if (cp > 1 && seq % (int64_t{2} * cp) != 0)
    f.fail("parallel.cp", "seq_length " + str(seq) + " is not divisible by 2 x cp = " + str(int64_t{2} * cp) +
                              " (causal load balancing splits the sequence into 2 x cp chunks)");
  if (job.parallel.sequence_parallel && (seq / cp) % tp != 0)
    f.fail("parallel.sequence_parallel", "seq_length / cp = " + str(seq) + " / " + str(cp) + " = " + str(seq / cp) +
                                             " is not divisible by tp " + str(tp));
}

// "126 layers - first_stage_layers 6 - last_stage_layers 7 = 113 layers".
std::string rest_of(const Job& job, int rest) {
  const Parallelism& p = job.parallel;
  std::string s = str(job.model.layers) + " layers";
  if (p.first_stage_layers > 0) s += " - first_stage_layers " + str(p.first_stage_layers);
  if (p.last_stage_layers > 0) s += " - last_stage_layers " + str(p.last_stage_layers);
  return s + " = " + str(rest) + " layers";
}

// Megatron's TransformerConfig checks for get_num_layers_to_build's split.
void uneven_check(const Job& job, Fields& f) {
  const Parallelism& p = job.parallel;
  const int middle_stages = p.pp - (p.first_stage_layers > 0) - (p.last_stage_layers > 0);
  const int rest = job.model.layers - p.first_stage_layers - p.last_stage_layers;
  if (middle_stages == 0 && rest != 0)
    f.fail("parallel.pp", rest_of(job, rest) + ", but pp " + str(p.pp) + " has no stage besides the first and last");
  else if (middle_stages > 0 && rest < middle_stages)
    f.fail("parallel.pp", rest_of(job, rest) + " for the other " + str(middle_stages) +
                              " stages; each stage needs at least one layer");
  else if (middle_stages > 0 && rest % middle_stages != 0)
    f.fail("parallel.pp",
           rest_of(job, rest) + ", which do not divide evenly over the other " + str(middle_stages) + " stages");
  if (!f.ok() || p.virtual_pipeline_stages == 1) return;
  // Megatron-Core splits a middle stage's layers evenly over its virtual stages; the first and
  // last stages may split theirs unevenly (job_stage_chunks).
  std::vector<int> counts = stage_counts(p, job.model.layers);
  for (size_t s = 0; s < counts.size(); ++s) {
    const bool own_count = (s == 0 && p.first_stage_layers > 0) || (s + 1 == counts.size() && p.last_stage_layers > 0);
    if (!own_count && counts[s] % p.virtual_pipeline_stages != 0) {
      f.fail("parallel.virtual_pipeline_stages", "stage " + str(static_cast<int64_t>(s)) + "'s " + str(counts[s]) +
                                                     " layers are not divisible by virtual_pipeline_stages " +
                                                     str(p.virtual_pipeline_stages));
      return;
    }
  }
}

void pipeline_check(const Job& job, Fields& f) {
  const Parallelism& p = job.parallel;
  const int layers = job.model.layers, v = p.virtual_pipeline_stages;
  if (p.first_stage_layers > 0 && p.pp == 1) f.fail("parallel.first_stage_layers", "needs pp > 1, got pp 1");
  if (p.last_stage_layers > 0 && p.pp == 1) f.fail("parallel.last_stage_layers", "needs pp > 1, got pp 1");
  if (v > 1 && p.pp == 1) f.fail("parallel.virtual_pipeline_stages", "interleaving needs pp > 1, got pp 1");
  if (!f.ok()) return;
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
    uneven_check(job, f);
    return;
  }
  if (layers % p.pp != 0) f.fail("parallel.pp", str(layers) + " layers are not divisible by pp " + str(p.pp));
  if (layers % (int64_t{p.pp} * v) != 0)
    f.fail("parallel.virtual_pipeline_stages",
           str(layers) + " layers are not divisible by pp x virtual_pipeline_stages = " + str(p.pp) + " x " + str(v) +
               " = " + str(int64_t{p.pp} * v));
}

// Megatron's TransformerConfig checks: method and num_layers belong to full, modules to selective.
void recompute_check(const json& training, const Job& job, Fields& f) {
  const RecomputeSpec& r = job.training.recompute;
  const std::string granularity = "training.recompute is \"" + std::string(to_string(r.granularity)) + "\"";
  if (r.granularity != Recompute::full) {
    for (const char* key : {"recompute_method", "recompute_num_layers"})
      if (training.contains(key))
        f.fail(std::string("training.") + key, "applies to recompute \"full\" only; " + granularity);
  } else {
    const int per_stage = job.model.layers / job.parallel.pp;
    if (!training.contains("recompute_method"))
      f.fail("training.recompute_method", "required with recompute \"full\": \"uniform\" or \"block\"");
    else if (!training.contains("recompute_num_layers"))
      f.fail("training.recompute_num_layers",
             "required with recompute \"full\": 1 to the layers per pipeline stage (" + str(per_stage) + ")");
    else if (r.num_layers > per_stage)
      f.fail("training.recompute_num_layers",
             "expected 1 to the layers per pipeline stage (" + str(per_stage) + "), got " + str(r.num_layers));
  }
  if (r.granularity != Recompute::selective && training.contains("recompute_modules"))
    f.fail("training.recompute_modules", "applies to recompute \"selective\" only; " + granularity);
}

// RankGroups checks the sizes (every order puts them on the same grid) and then the order.
void groups_check(const Job& job, Fields& f) {
  Result<RankGroups> sizes = RankGroups::make(job_parallel_sizes(job), kDefaultOrder);
  if (!sizes) {
    f.fail("parallel", sizes.error());
    return;
  }
  Result<RankGroups> ordered = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  if (!ordered) f.fail("parallel.order", ordered.error());
}

json layer_freq_json(const MoeShape& moe) {
  if (moe.layer_pattern.empty()) return moe.layer_freq;
  return moe.layer_pattern;
}

}  // namespace

std::string_view to_string(Dtype d) { return kDtypeNames[static_cast<size_t>(d)]; }

std::optional<Dtype> dtype_from(std::string_view s) { return enum_from<Dtype>(kDtypeNames, s); }

int dtype_bytes(Dtype d) {
  constexpr std::array<int, 4> kBytes = {2, 2, 1, 4};
  return kBytes[static_cast<size_t>(d)];
}

std::string_view to_string(CpComm c) { return kCpCommNames[static_cast<size_t>(c)]; }
std::string_view to_string(AttentionBackend a) { return kAttentionBackendNames[static_cast<size_t>(a)]; }
std::string_view to_string(Recompute r) { return kRecomputeNames[static_cast<size_t>(r)]; }
std::string_view to_string(RecomputeMethod m) { return kRecomputeMethodNames[static_cast<size_t>(m)]; }
std::string_view to_string(RecomputeModule m) { return kRecomputeModuleNames[static_cast<size_t>(m)]; }

bool RecomputeSpec::recomputes(RecomputeModule m) const {
  return granularity == Recompute::full || std::find(modules.begin(), modules.end(), m) != modules.end();
}

Result<Job> job_from_json(const json& doc, const std::string& where) {
  std::string error;
  Fields top(doc, "", {"format", "name", "model", "training", "parallel", "compute"}, &error);
  if (top.has("format") && top.text("format", kRequired) != "topoplan-job")
    top.fail("format", "expected \"topoplan-job\", got " + json_shown(doc.at("format")));
  Job job;
  job.name = top.has("name") ? top.name("name") : name_from(where);
  job.model = model_read(section(top, "model", true), &error);
  job.training = training_read(section(top, "training", true), &error);
  const json& parallel = section(top, "parallel", false);
  job.parallel = parallel_read(parallel, &error);
  job.compute = compute_read(section(top, "compute", false), &error);
  if (!error.empty()) return error_in(where, error);

  model_check(job.model, top);
  tensor_check(job, parallel.contains("expert_tp"), top);
  expert_check(job, top);
  batch_check(job, top);
  sequence_check(job, top);
  pipeline_check(job, top);
  recompute_check(section(top, "training", true), job, top);
  if (top.ok()) groups_check(job, top);
  if (!error.empty()) return error_in(where, error);
  return job;
}

Result<Job> job_load(const std::string& path, const WorldHintSource& world) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  if (megatron_args_detect(*text)) {
    WorldHint hint;
    if (world) {
      Result<WorldHint> h = world();
      RETURN_IF_ERROR(h);
      hint = *h;
    }
    return job_from_megatron_args(*text, path, hint);
  }
  Result<json> doc = json_parse_text(*text, path);
  RETURN_IF_ERROR(doc);
  return job_from_json(*doc, path);
}

json job_to_json(const Job& job) {
  const ModelShape& m = job.model;
  json model = {{"layers", m.layers},     {"hidden", m.hidden},     {"ffn_hidden", m.ffn_hidden}, {"heads", m.heads},
                {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim}, {"vocab", m.vocab},           {"swiglu", m.swiglu}};
  if (m.is_moe())
    model["moe"] = {{"experts", m.moe.experts},
                    {"top_k", m.moe.top_k},
                    {"layer_freq", layer_freq_json(m.moe)},
                    {"ffn_hidden", m.moe.ffn_hidden},
                    {"shared_experts", m.moe.shared_experts},
                    {"capacity_factor", m.moe.capacity_factor}};
  const Training& t = job.training;
  json training = {{"seq_length", t.seq_length},
                   {"micro_batch", t.micro_batch},
                   {"global_batch", t.global_batch},
                   {"dtype", to_string(t.dtype)},
                   {"grad_reduce_dtype", to_string(t.grad_reduce_dtype)},
                   {"main_params_dtype", to_string(t.main_params_dtype)},
                   {"exp_avg_dtype", to_string(t.exp_avg_dtype)},
                   {"exp_avg_sq_dtype", to_string(t.exp_avg_sq_dtype)},
                   {"attention_backend", to_string(t.attention_backend)},
                   {"recompute", to_string(t.recompute.granularity)}};
  if (t.recompute.granularity == Recompute::full) {
    training["recompute_method"] = to_string(t.recompute.method);
    training["recompute_num_layers"] = t.recompute.num_layers;
  }
  if (t.recompute.granularity == Recompute::selective) {
    json modules = json::array();
    for (RecomputeModule module : t.recompute.modules) modules.push_back(to_string(module));
    training["recompute_modules"] = modules;
  }
  const Parallelism& p = job.parallel;
  json parallel = {{"tp", p.tp},
                   {"cp", p.cp},
                   {"pp", p.pp},
                   {"dp", p.dp},
                   {"ep", p.ep},
                   {"expert_tp", p.expert_tp},
                   {"sequence_parallel", p.sequence_parallel},
                   {"zero_stage", p.zero_stage},
                   {"fsdp", p.fsdp},
                   {"virtual_pipeline_stages", p.virtual_pipeline_stages},
                   {"first_stage_layers", p.first_stage_layers},
                   {"last_stage_layers", p.last_stage_layers},
                   {"cp_comm", to_string(p.cp_comm)},
                   {"order", p.order},
                   {"overlap_grad_reduce", p.overlap_grad_reduce},
                   {"overlap_param_gather", p.overlap_param_gather},
                   {"tp_comm_overlap", p.tp_comm_overlap},
                   {"bucket_params", p.bucket_params}};
  json doc = {
      {"format", "topoplan-job"}, {"name", job.name}, {"model", model}, {"training", training}, {"parallel", parallel}};
  json compute = json::object();
  if (job.compute.peak_tflops) compute["peak_tflops"] = *job.compute.peak_tflops;
  if (job.compute.matmul_tflops) compute["matmul_tflops"] = *job.compute.matmul_tflops;
  if (job.compute.attention_tflops) compute["attention_tflops"] = *job.compute.attention_tflops;
  if (job.compute.hbm_GBps) compute["hbm_GBps"] = *job.compute.hbm_GBps;
  if (job.compute.sms) compute["sms"] = *job.compute.sms;
  if (job.compute.memory_bytes) compute["memory"] = format_exact(*job.compute.memory_bytes);
  if (!compute.empty()) doc["compute"] = compute;
  return doc;
}

int job_ranks(const Job& job) {
  const Parallelism& p = job.parallel;
  return p.tp * p.cp * p.pp * p.dp;
}

ParallelSizes job_parallel_sizes(const Job& job) {
  const Parallelism& p = job.parallel;
  return {p.tp, p.cp, p.pp, p.dp, p.ep, p.expert_tp};
}

int job_expert_dp(const Job& job) {
  const Parallelism& p = job.parallel;
  return job_ranks(job) / (p.expert_tp * p.ep * p.pp);
}

Result<void> job_fits(const Job& job, int gpus) {
  const Parallelism& p = job.parallel;
  if (job_ranks(job) <= gpus) return {};
  return Error{"the job needs " + str(job_ranks(job)) + " GPUs (tp " + str(p.tp) + " x cp " + str(p.cp) + " x pp " +
               str(p.pp) + " x dp " + str(p.dp) + "), the cluster has " + str(gpus)};
}

bool job_layer_is_moe(const Job& job, int layer) {
  const MoeShape& moe = job.model.moe;
  if (!job.model.is_moe() || layer < 0 || layer >= job.model.layers) return false;
  if (!moe.layer_pattern.empty()) return moe.layer_pattern[static_cast<size_t>(layer)] == 1;
  return layer % moe.layer_freq == 0;
}

std::vector<std::vector<int>> job_stage_chunks(const Job& job) {
  const Parallelism& p = job.parallel;
  const int v = p.virtual_pipeline_stages;
  const std::vector<int> counts = stage_counts(p, job.model.layers);
  std::vector<std::vector<int>> chunks(counts.size());
  for (size_t s = 0; s < counts.size(); ++s) {
    const int base = counts[s] / v, extra = counts[s] % v;
    // The heavier chunks stand away from the embedding (the first stage's first chunk) and from
    // the output layer and loss (the last stage's last chunk), which the lighter ones make room for.
    const bool last = s + 1 == counts.size() && s > 0;
    for (int c = 0; c < v; ++c) chunks[s].push_back(base + (last ? c < extra : c >= v - extra));
  }
  return chunks;
}

std::vector<StageLayers> job_stages(const Job& job) {
  const std::vector<std::vector<int>> chunks = job_stage_chunks(job);
  std::vector<StageLayers> stages(chunks.size());
  // Interleaving (Megatron's get_transformer_layer_offset): chunk c of every stage precedes chunk
  // c + 1 of any stage, and within a round the stages' chunks follow in stage order.
  int layer = 0;
  for (int c = 0; c < job.parallel.virtual_pipeline_stages; ++c)
    for (size_t s = 0; s < chunks.size(); ++s) {
      if (c == 0) stages[s].first = layer;
      for (int i = 0; i < chunks[s][static_cast<size_t>(c)]; ++i, ++layer) {
        ++stages[s].count;
        stages[s].moe += job_layer_is_moe(job, layer);
      }
    }
  return stages;
}

int job_micro_batches(const Job& job) {
  return job.training.global_batch / (job.training.micro_batch * job.parallel.dp);
}

}  // namespace topoplan
