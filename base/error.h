// Errors are returned with a message, never thrown across layers (see DESIGN.md "Conventions").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace topoplan {

// A user-facing error: where (file, line or field) and what was expected.
struct Error {
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<Error>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// What a step that yields nothing returns: `return {};` on success, an Error on failure.
template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}

  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_->message; }

 private:
  std::optional<Error> error_;
};

// Returns a failed Result's error from the calling function, as NCCL's NCCLCHECK does, so a step
// is one line: `RETURN_IF_ERROR(c.finalize());`. Works on a call or on a Result already named.
#define RETURN_IF_ERROR(...)                                        \
  do {                                                              \
    if (auto&& topoplan_result_ = (__VA_ARGS__); !topoplan_result_) \
      return ::topoplan::Error{topoplan_result_.error()};           \
  } while (false)

// Prefixes an error with its context, e.g. "cluster.json: " + "links[3].bw_GBps: must be > 0".
inline Error error_in(const std::string& where, const std::string& what) {
  return Error{where.empty() ? what : where + ": " + what};
}

}  // namespace topoplan
