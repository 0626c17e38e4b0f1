#include "planner/slurm_jobs.h"

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/words.h"

namespace topoplan {
namespace {

// squeue --json (Slurm's data_parser): {"jobs": [{"job_id": 12, "name": "...", "job_state":
// ["RUNNING"] (a string before 23.02), "nodes": "h[001-004]", ...}, ...], ...}; other keys are
// Slurm's and not read.
Result<std::vector<SlurmJob>> from_json(const std::string& text, const std::string& where) {
  Result<nlohmann::json> doc = json_parse_text(text, where);
  RETURN_IF_ERROR(doc);
  if (!doc->is_object() || !doc->contains("jobs") || !(*doc)["jobs"].is_array())
    return Error{where + ": expected squeue --json output: an object with a \"jobs\" list"};
  std::vector<SlurmJob> out;
  const nlohmann::json& jobs = (*doc)["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string at = where + ": " + json_indexed("jobs", i);
    const nlohmann::json& j = jobs[i];
    if (!j.is_object()) return Error{at + ": expected a job object, got " + json_shown(j)};
    SlurmJob s;
    if (!j.contains("job_id") || !j["job_id"].is_number_unsigned())
      return Error{at + ".job_id: expected the job's number"};
    s.id = std::to_string(j["job_id"].get<uint64_t>());
    if (j.contains("name")) {
      if (!j["name"].is_string()) return Error{at + ".name: expected a string, got " + json_shown(j["name"])};
      s.name = j["name"].get<std::string>();
    }
    const nlohmann::json* state = j.contains("job_state") ? &j["job_state"] : nullptr;
    if (state && state->is_array() && !state->empty() && state->front().is_string())
      s.state = state->front().get<std::string>();
    else if (state && state->is_string())
      s.state = state->get<std::string>();
    if (s.state.empty()) return Error{at + ".job_state: expected Slurm's state, a string or a list of strings"};
    if (j.contains("nodes")) {
      if (!j["nodes"].is_string())
        return Error{at + ".nodes: expected a hostlist string, got " + json_shown(j["nodes"])};
      s.nodes = j["nodes"].get<std::string>();
    }
    out.push_back(std::move(s));
  }
  return out;
}

// scontrol show job: a record per job, blank lines between, "Key=Value" words; JobName runs to the
// end of its line (a name may hold spaces). "(null)" is Slurm's empty.
Result<std::vector<SlurmJob>> from_text(const std::string& text, const std::string& where) {
  std::vector<SlurmJob> out;
  bool open = false;
  size_t start = 0;
  int line = 0;
  auto close = [&]() -> Result<void> {
    if (!open) return {};
    open = false;
    const SlurmJob& s = out.back();
    const std::string at = where + ":" + std::to_string(s.line) + ": JobId=" + s.id;
    if (s.state.empty()) return Error{at + " has no JobState"};
    return {};
  };
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view l(text.data() + start, end - start);
    ++line;
    const Words words = words_of(l);
    if (words.empty()) {
      RETURN_IF_ERROR(close());
    } else {
      for (size_t k = 0; k < words.size(); ++k) {
        const std::string_view w = words[k];
        const size_t eq = w.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;  // a value's second word
        const std::string_view key = w.substr(0, eq);
        std::string value(w.substr(eq + 1));
        if (value == "(null)") value.clear();
        if (key == "JobId") {
          RETURN_IF_ERROR(close());
          if (value.empty() || value.find_first_not_of("0123456789_") != std::string::npos)
            return Error{where + ":" + std::to_string(line) + ": JobId '" + value + "': expected the job's number"};
          out.push_back({value, "", "", "", line});
          open = true;
        } else if (!open) {
          return Error{where + ":" + std::to_string(line) +
                       ": expected scontrol show job output: a record starting "
                       "with JobId=, got '" +
                       std::string(w) + "'"};
        } else if (key == "JobName") {
          // To the end of the line.
          const size_t from = static_cast<size_t>(w.data() - l.data()) + eq + 1;
          std::string_view rest = l.substr(from);
          while (!rest.empty() && blank(rest.back())) rest.remove_suffix(1);
          out.back().name = std::string(rest);
          break;
        } else if (key == "JobState") {
          out.back().state = value;
        } else if (key == "NodeList") {
          out.back().nodes = value;
        }
      }
    }
    start = end + 1;
  }
  RETURN_IF_ERROR(close());
  if (out.empty()) return Error{where + ": expected scontrol show job output or squeue --json output; found no job"};
  return out;
}

}  // namespace

Result<std::vector<SlurmJob>> slurm_jobs_parse(const std::string& text, const std::string& where) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return from_json(text, where);
  return from_text(text, where);
}

}  // namespace topoplan
