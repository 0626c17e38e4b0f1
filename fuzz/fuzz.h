// Shared by the libFuzzer targets (one small file per parser). The rule each target enforces:
// a parser returns a value or an error with a message, for any bytes. An exception, a crash, a
// leak, undefined behaviour (ASan/UBSan) or a broken round trip stops the fuzzer with the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/json_fields.h"

namespace topoplan::fuzz {

inline std::string text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Stops the run with a message; libFuzzer saves the input that got here.
[[noreturn]] inline void violated(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "fuzz property violated: %s %s\n", what, detail.c_str());
  std::abort();
}

// An error must say what went wrong.
template <typename R>
bool ok_or_explained(const R& r) {
  if (!r.ok() && r.error().empty()) violated("an error without a message");
  return r.ok();
}

// The input as a JSON document, or nothing when it is not one (after checking the parse error).
inline std::optional<nlohmann::json> json_input(const uint8_t* data, size_t size) {
  Result<nlohmann::json> doc = json_parse_text(text(data, size), "fuzz.json");
  if (!ok_or_explained(doc)) return std::nullopt;
  return std::move(*doc);
}

// What a loader accepted, written and loaded again, must load and write the same.
template <typename Load, typename Write>
void expect_round_trip(const Load& load, const Write& write, const std::string& written) {
  auto back = load(nlohmann::json::parse(written));
  if (!back) violated("what was written does not load:", back.error());
  if (write(*back) != written) violated("writing what was loaded changed it");
}

}  // namespace topoplan::fuzz
