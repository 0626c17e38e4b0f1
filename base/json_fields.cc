#include "base/json_fields.h"

#include <algorithm>
#include <cmath>

#include "base/limits.h"
#include "base/suggest.h"
#include "base/units.h"

namespace topoplan {
namespace {

using nlohmann::json;

// nlohmann counts bytes; people and editors want the line:column (1-based) of the offending byte.
std::string line_col(const std::string& text, size_t byte) {
  size_t at = std::min(byte > 0 ? byte - 1 : 0, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return std::to_string(line) + ":" + std::to_string(at - line_start + 1);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 3, column 11: "
// prefix, which repeats what line_col says.
std::string reason(std::string what) {
  if (size_t p = what.find("] "); what.starts_with("[json.exception") && p != std::string::npos) what.erase(0, p + 2);
  if (size_t p = what.find(": "); what.starts_with("parse error") && p != std::string::npos) what.erase(0, p + 2);
  return what;
}

}  // namespace

Result<json> json_read_file(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return json_parse_text(*text, path);
}

Result<json> json_parse_text(const std::string& text, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return Error{where + ":" + line_col(text, e.byte) + ": " + reason(e.what())};
  } catch (const json::exception& e) {
    return error_in(where, reason(e.what()));
  }
}

Result<json> json_parse_document(const std::string& text, const std::string& where, const std::string& format,
                                 const std::string& what, const std::string& writer) {
  Result<json> doc = json_parse_text(text, where);
  if (!doc) return doc;
  // A json fallback: a "format" of another type compares unequal instead of throwing.
  if (!doc->is_object() || doc->value("format", json()) != format)
    return Error{where + ": expected " + what + " (\"format\": \"" + format + "\", written by " + writer + ")"};
  return doc;
}

std::string json_shown(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.dump();
}

std::string json_indexed(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

Fields::Fields(const json& value, std::string path, const std::vector<std::string>& keys, std::string* error)
    : value_(value), path_(std::move(path)), error_(error) {
  if (!value.is_object()) {
    fail(path_, "expected an object, got " + json_shown(value));
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      fail(path_, "unknown key '" + it.key() + "'" + did_you_mean(it.key(), keys));
      return;
    }
}

void Fields::fail(const std::string& where, const std::string& what) {
  if (ok()) *error_ = where.empty() ? what : where + ": " + what;
}

const json* Fields::get(const std::string& key, bool required) {
  if (has(key)) return &value_.at(key);
  if (ok() && required) fail(path_, "missing key '" + key + "'");
  return nullptr;
}

const json* Fields::list(const std::string& key, bool required) {
  const json* v = get(key, required);
  if (v && !v->is_array()) fail(at(key), "expected an array, got " + json_shown(*v));
  return ok() ? v : nullptr;
}

std::string Fields::text(const std::string& key, std::optional<std::string> fallback) {
  const json* v = get(key, !fallback);
  if (v && v->is_string()) return v->get<std::string>();
  if (v) fail(at(key), "expected a string, got " + json_shown(*v));
  return fallback.value_or("");
}

std::string Fields::name(const std::string& key) {
  std::string s = text(key, kRequired);
  if (ok() && s.empty()) fail(at(key), "expected a non-empty name");
  return s;
}

int Fields::integer(const std::string& key, std::optional<int> fallback, int minimum, int maximum) {
  const json* v = get(key, !fallback);
  if (!v) return fallback.value_or(0);
  double x = v->is_number() ? v->get<double>() : NAN;
  if (x == std::trunc(x) && x >= minimum && x <= maximum) return static_cast<int>(x);
  // A whole number past the maximum is told the maximum, whether the field's or the int's.
  const bool too_large = x == std::trunc(x) && x > maximum;
  std::string expected = maximum != INT_MAX || too_large
                             ? "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum)
                         : minimum == 1 ? "a positive integer"
                         : minimum == 0 ? "a non-negative integer"
                                        : "an integer >= " + std::to_string(minimum);
  fail(at(key), "expected " + expected + ", got " + json_shown(*v));
  return fallback.value_or(0);
}

double Fields::number(const std::string& key, std::optional<double> fallback, double minimum, bool inclusive,
                      double maximum) {
  const json* v = get(key, !fallback);
  if (!v) return fallback.value_or(0);
  const double x = v->is_number() ? v->get<double>() : NAN;
  if ((inclusive ? x >= minimum : x > minimum) && x <= maximum) return x;
  const std::string lo = format_number(minimum, 6), hi = format_number(maximum, 6);
  std::string expected = maximum == kNoMaximum ? (inclusive      ? "a number >= " + lo
                                                  : minimum == 0 ? "a positive number"
                                                                 : "a number > " + lo)
                         : inclusive           ? "a number from " + lo + " to " + hi
                                               : "a number above " + lo + ", at most " + hi;
  fail(at(key), "expected " + expected + ", got " + json_shown(*v));
  return fallback.value_or(0);
}

bool Fields::boolean(const std::string& key, std::optional<bool> fallback) {
  const json* v = get(key, !fallback);
  if (v && v->is_boolean()) return v->get<bool>();
  if (v) fail(at(key), "expected true or false, got " + json_shown(*v));
  return fallback.value_or(false);
}

std::string Fields::choice(const std::string& key, std::optional<std::string> fallback,
                           const std::vector<std::string>& names) {
  std::string s = text(key, fallback);
  if (!ok() || std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string listed;
  for (const std::string& n : names) listed += (listed.empty() ? "\"" : ", \"") + n + "\"";
  fail(at(key), "expected one of " + listed + ", got \"" + s + "\"" + did_you_mean(s, names));
  return fallback.value_or(names.front());
}

}  // namespace topoplan
