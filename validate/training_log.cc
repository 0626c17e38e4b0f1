#include "validate/training_log.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include "base/file_io.h"

namespace topoplan {
namespace {

// The line without ANSI colour sequences (ESC [ ... letter), which torchtitan's logger adds.
std::string without_colour(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

// The number after `key` (and the spaces after it), digits grouped by commas allowed; nullopt
// when the key is absent, an error when what follows is not a finite positive number.
Result<std::optional<double>> number_after(const std::string& line, const std::string& key) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return std::optional<double>{};
  size_t i = at + key.size();
  while (i < line.size() && line[i] == ' ') ++i;
  std::string digits;
  size_t end = i;
  for (; end < line.size(); ++end) {
    const char ch = line[end];
    if (ch == ',' && end + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[end + 1])) && !digits.empty())
      continue;
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-'))
      break;
    digits += ch;
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || !(value > 0) ||
      value > 1e12) {
    size_t shown = end;
    while (shown < line.size() && line[shown] != ' ' && line[shown] != '|' && line[shown] != ',') ++shown;
    std::string name = key;  // as the log spells it, without the separator
    while (!name.empty() && (name.back() == ':' || name.back() == '=')) name.pop_back();
    name.erase(0, name.find_first_not_of(' '));
    return Error{name + ": expected a positive number, got '" + line.substr(i, std::max(shown, end) - i) + "'"};
  }
  return std::optional<double>{value};
}

// Megatron's timers that time a DP synchronisation the step waits for (TrainingIteration).
constexpr std::string_view kDpSyncTimers[] = {"all-grads-sync", "params-all-gather"};

// One line of a Megatron timer block, "    name ......: (min, max)" or "    name ......: max":
// the name and the max, nullopt when the line is not one (the block has ended), an error when
// its value is not a number of milliseconds.
Result<std::optional<std::pair<std::string, double>>> timer_line(const std::string& line) {
  using Timer = std::optional<std::pair<std::string, double>>;
  const size_t dots = line.find(" ..");
  const size_t colon = dots == std::string::npos ? dots : line.find(':', dots);
  if (colon == std::string::npos || line.find_first_not_of('.', dots + 1) != colon) return Timer{};
  const size_t name_at = line.find_last_of(" \t:]", dots - 1);
  const std::string name = line.substr(name_at == std::string::npos ? 0 : name_at + 1,
                                       dots - (name_at == std::string::npos ? 0 : name_at + 1));
  std::string value = line.substr(colon + 1);
  value.erase(0, value.find_first_not_of(' '));
  if (!value.empty() && value.front() == '(' && value.back() == ')' && value.find(',') != std::string::npos)
    value = value.substr(value.find(',') + 1, value.size() - value.find(',') - 2);  // the max
  value.erase(0, value.find_first_not_of(' '));
  value.erase(value.find_last_not_of(" \r") + 1);
  double ms = -1;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
  if (name.empty() || ec != std::errc() || ptr != value.data() + value.size() || !(ms >= 0) || ms > 1e9)
    return Error{"timer " + name + ": expected '(min, max)' or 'max' in milliseconds, got '" + value + "'"};
  return Timer{std::pair{name, ms}};
}

struct Marker {
  TrainingLogFormat format;
  const char* time_key;        // the number that makes a line an iteration line
  const char* iteration_keys[2];
};

constexpr Marker kMarkers[] = {
    {TrainingLogFormat::megatron, "elapsed time per iteration (ms):", {"iteration", nullptr}},
    {TrainingLogFormat::nemo, "train_step_timing in s", {"global_step", "iteration"}},
    {TrainingLogFormat::torchtitan, " tps:", {"step:", nullptr}},
    {TrainingLogFormat::torchtitan, " wps:", {"step:", nullptr}},
};

}  // namespace

std::string_view to_string(TrainingLogFormat f) {
  static constexpr std::string_view kNames[] = {"Megatron-LM", "NeMo", "torchtitan"};
  return kNames[static_cast<size_t>(f)];
}

Result<TrainingLog> training_log_parse(const std::string& text, const std::string& where) {
  TrainingLog log;
  log.source = where;
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  bool found = false;
  bool in_timers = false;  // inside a timer block that follows an iteration line
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = without_colour(raw);
    const std::string at = where + ":" + std::to_string(line_no) + ": ";
    if (line.find("time across ranks (ms):") != std::string::npos) {
      in_timers = !log.iterations.empty();  // start-up timers come before any iteration
      continue;
    }
    if (in_timers) {
      Result<std::optional<std::pair<std::string, double>>> timer = timer_line(line);
      if (!timer) return Error{at + timer.error()};
      in_timers = timer->has_value();
      if (in_timers) {
        for (std::string_view name : kDpSyncTimers)
          if ((*timer)->first == name) {
            std::optional<double>& sync = log.iterations.back().dp_sync_s;
            sync = sync.value_or(0) + (*timer)->second / 1e3;
          }
        continue;
      }
    }
    for (const Marker& m : kMarkers) {
      if (line.find(m.time_key) == std::string::npos) continue;
      if (found && m.format != log.format)
        return Error{at + "a " + std::string(to_string(m.format)) + " line in a " + std::string(to_string(log.format)) +
                     " log; give each run's log as its own file"};
      found = true;
      log.format = m.format;
      TrainingIteration it;
      it.line = line_no;
      // NeMo 1 writes "key=value", NeMo 2 "key: value".
      const std::string sep = line.find(std::string(m.time_key) + "=") != std::string::npos ? "=" : ":";
      const std::string time_key = m.format == TrainingLogFormat::nemo ? m.time_key + sep : m.time_key;
      Result<std::optional<double>> time = number_after(line, time_key);
      if (!time) return Error{at + time.error()};
      if (m.format == TrainingLogFormat::megatron) it.step_s = **time / 1e3;
      if (m.format == TrainingLogFormat::nemo) it.step_s = **time;
      if (m.format == TrainingLogFormat::torchtitan) it.tokens_per_s_per_gpu = **time;
      for (const char* key : m.iteration_keys) {
        if (!key) continue;
        const std::string k = m.format == TrainingLogFormat::nemo ? key + sep : key;
        Result<std::optional<double>> n = number_after(line, k);
        if (n && *n) {
          it.iteration = static_cast<long>(**n);
          break;
        }
      }
      const char* tflops_key = m.format == TrainingLogFormat::megatron ? "throughput per GPU (TFLOP/s/GPU):"
                               : m.format == TrainingLogFormat::torchtitan ? " tflops:"
                                                                           : nullptr;
      if (tflops_key) {
        Result<std::optional<double>> tf = number_after(line, tflops_key);
        if (!tf) return Error{at + tf.error()};
        if (*tf) it.tflops_per_gpu = **tf;
      }
      log.iterations.push_back(it);
      break;
    }
  }
  if (!found)
    return Error{where +
                 ": no training iterations found: expected Megatron-LM's 'elapsed time per iteration (ms):', NeMo's "
                 "'train_step_timing in s', or torchtitan's 'step: N ... tps:' lines"};
  return log;
}

Result<TrainingLog> training_log_read(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return training_log_parse(*text, path);
}

}  // namespace topoplan
