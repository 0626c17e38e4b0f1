#include "planner/megatron_layout.h"

#include <algorithm>
#include <vector>

namespace topoplan {
namespace {

// Unrolls x*n and (...)*n as Megatron's parse_str_to_list does, innermost first.
Result<std::string> unrolled(std::string text) {
  std::erase(text, ',');
  for (int guard = 0; guard < 64; ++guard) {
    const size_t star = text.find('*');
    if (star == std::string::npos) return text;
    size_t end = star + 1;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == star + 1) return Error{"'*' must be followed by a count"};
    const long n = std::stol(text.substr(star + 1, std::min<size_t>(end - star - 1, 9)));
    if (n < 1 || n > 100000) return Error{"a repeat count must be 1 to 100000"};
    size_t begin = star;
    if (star > 0 && text[star - 1] == ')') {
      begin = text.rfind('(', star - 1);
      if (begin == std::string::npos) return Error{"')' without its '('"};
    } else if (star == 0) {
      return Error{"'*' must follow a layer or a group in parentheses"};
    } else {
      begin = star - 1;
    }
    const std::string unit = text[begin] == '(' ? text.substr(begin + 1, star - begin - 2) : text.substr(begin, 1);
    if (unit.size() * static_cast<size_t>(n) > 1000000) return Error{"it unrolls to over a million characters"};
    std::string repeated;
    for (long i = 0; i < n; ++i) repeated += unit;
    text = text.substr(0, begin) + repeated + text.substr(end);
  }
  return Error{"too many repeats"};
}

// chunks[stage][chunk] in the layout's order: every stage's first chunk, then every second one.
std::string layout_text(const std::vector<std::vector<int>>& chunks) {
  std::string out;
  const size_t pp = chunks.size(), v = chunks.front().size();
  for (size_t c = 0; c < v; ++c)
    for (size_t s = 0; s < pp; ++s) {
      if (c + s > 0) out += "|";
      if (c == 0 && s == 0) out += "E";
      const int layers = chunks[s][c];
      if (layers == 1) out += "t";
      if (layers > 1) out += "t*" + std::to_string(layers);
      if (c + 1 == v && s + 1 == pp) out += "L";
    }
  return out;
}

}  // namespace

std::string megatron_pipeline_layout(const Job& job) {
  const Parallelism& p = job.parallel;
  const int v = p.virtual_pipeline_stages;
  if (v == 1 || (p.first_stage_layers % v == 0 && p.last_stage_layers % v == 0)) return "";
  return layout_text(job_stage_chunks(job));
}

Result<PipelineSplit> megatron_pipeline_layout_parse(std::string_view layout, int pp, int layers) {
  Result<std::string> flat = unrolled(std::string(layout));
  if (!flat) return Error{flat.error()};
  std::vector<std::string> stages(1);
  for (char ch : *flat) {
    if (ch == '|') {
      stages.emplace_back();
    } else if (ch == 'm') {
      return Error{"'m' (multi-token prediction): topoplan does not model MTP layers"};
    } else if (ch != 'E' && ch != 't' && ch != 'L') {
      return Error{std::string("'") + ch + "' is not a layer (E embedding, t transformer, L loss)"};
    } else {
      stages.back() += ch;
    }
  }
  if (pp < 1 || stages.size() % static_cast<size_t>(pp) != 0)
    return Error{std::to_string(stages.size()) + " virtual stages are not a multiple of pp " + std::to_string(pp)};
  const int v = static_cast<int>(stages.size()) / pp;
  if (std::count(flat->begin(), flat->end(), 'E') != 1 || flat->front() != 'E')
    return Error{"the embedding 'E' must come once, first"};
  if (std::count(flat->begin(), flat->end(), 'L') != 1 || flat->back() != 'L')
    return Error{"the loss 'L' must come once, last"};
  const int decoders = static_cast<int>(std::count(flat->begin(), flat->end(), 't'));
  if (decoders != layers)
    return Error{std::to_string(decoders) + " transformer layers 't', the model has " + std::to_string(layers)};
  // chunks[s][c]: stage s's chunk c is the layout's (c * pp + s)th.
  std::vector<std::vector<int>> chunks(static_cast<size_t>(pp));
  std::vector<int> totals(static_cast<size_t>(pp), 0);
  for (int c = 0; c < v; ++c)
    for (int s = 0; s < pp; ++s) {
      const std::string& stage = stages[static_cast<size_t>(c * pp + s)];
      const int n = static_cast<int>(std::count(stage.begin(), stage.end(), 't'));
      chunks[static_cast<size_t>(s)].push_back(n);
      totals[static_cast<size_t>(s)] += n;
    }
  // The split it names: a stage's own count where it differs from the middle stages'.
  PipelineSplit split{v, 0, 0};
  const int middle = pp > 2 ? totals[1] : layers % pp == 0 ? layers / pp : -1;
  if (totals.front() != middle) split.first_stage_layers = totals.front();
  if (pp > 1 && totals.back() != middle) split.last_stage_layers = totals.back();
  Job job;
  job.model.layers = layers;
  job.parallel.pp = pp;
  job.parallel.virtual_pipeline_stages = v;
  job.parallel.first_stage_layers = split.first_stage_layers;
  job.parallel.last_stage_layers = split.last_stage_layers;
  if (const std::vector<std::vector<int>> modelled = job_stage_chunks(job); modelled != chunks)
    return Error{
        "topoplan models layouts whose middle stages split evenly and whose first and last stages put "
        "their lighter chunks beside the embedding and the loss; the closest is '" +
        layout_text(modelled) + "'"};
  return split;
}

}  // namespace topoplan
