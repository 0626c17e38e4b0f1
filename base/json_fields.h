// Reading JSON documents with errors people can act on: the file, line and column of a syntax
// error, the dotted path of a bad field, and "did you mean" for unknown keys. Shared by every JSON
// loader (clusters, jobs, calibration overlays).
#pragma once

#include <climits>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"

namespace topoplan {

inline constexpr std::nullopt_t kRequired = std::nullopt;

// The whole file parsed; "file:3:11: syntax error ..." or "file: cannot read: ..." on failure.
Result<nlohmann::json> json_read_file(const std::string& path);
// The same for text already read; `where` names it in errors.
Result<nlohmann::json> json_parse_text(const std::string& text, const std::string& where);
// A document one of our commands wrote, told by its "format": an object whose "format" is
// `format`, else "where: expected <what> ("format": "<format>", written by <writer>)".
Result<nlohmann::json> json_parse_document(const std::string& text, const std::string& where, const std::string& format,
                                           const std::string& what, const std::string& writer);

// How a value is shown after "got": scalars as written, containers by their type.
std::string json_shown(const nlohmann::json& v);
// "hosts" + 3 -> "hosts[3]".
std::string json_indexed(const std::string& path, size_t i);

// The typed fields of one JSON object. The first problem is kept in *error and later reads return
// their fallback, so a loader checks once per object instead of after every field. Keys not in
// `keys` are an error with a "did you mean".
class Fields {
 public:
  Fields(const nlohmann::json& value, std::string path, const std::vector<std::string>& keys, std::string* error);

  bool ok() const { return error_->empty(); }
  const std::string& path() const { return path_; }
  std::string at(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  bool has(const std::string& key) const { return ok() && value_.contains(key); }
  void fail(const std::string& where, const std::string& what);

  // The value under key, or nullptr when absent (an error if required) or after an error.
  const nlohmann::json* get(const std::string& key, bool required);
  const nlohmann::json* list(const std::string& key, bool required);
  std::string text(const std::string& key, std::optional<std::string> fallback);
  // A required string that names something, so it may not be empty.
  std::string name(const std::string& key);
  // A whole number from `minimum` to `maximum`; the error names both when the value is too large.
  int integer(const std::string& key, std::optional<int> fallback, int minimum, int maximum = INT_MAX);
  // A number above `minimum`, or at least `minimum` when `inclusive`, and at most `maximum`.
  static constexpr double kNoMaximum = std::numeric_limits<double>::max();
  double number(const std::string& key, std::optional<double> fallback, double minimum, bool inclusive,
                double maximum = kNoMaximum);
  bool boolean(const std::string& key, std::optional<bool> fallback);
  // A string that must be one of `names`: "expected one of "bf16", "fp16", got "bf61", did you mean 'bf16'?".
  std::string choice(const std::string& key, std::optional<std::string> fallback,
                     const std::vector<std::string>& names);

 private:
  const nlohmann::json& value_;
  std::string path_;
  std::string* error_;
};

}  // namespace topoplan
