// Status and StatusOr<T>: every fallible call in ontomem returns one of these; no exception
// crosses the public API.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ontomem {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // the caller passed something malformed (bad JSON, bad UTF-8, empty text)
  kNotFound,           // unknown tenant, user or turn
  kAlreadyExists,      // a turn id reused with different content
  kCorruption,         // a file is damaged or not ours
  kIOError,            // the OS or SQLite failed
  kFailedPrecondition, // wrong state: newer schema, missing lexicon, embedder mismatch
  kResourceExhausted,  // a size limit or quota was hit
  kUnavailable,        // a remote dependency did not answer
  kInternal,           // a bug: please report
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: turn 3: text is not valid UTF-8" (or "OK").
  std::string ToString() const;

  // Returns a copy with "context: " put in front of the message (no-op for OK).
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "StatusOr needs a value or a non-OK status");
    if (status_.ok()) status_ = Status::Internal("StatusOr constructed from OK status without value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace ontomem

#define ONTOMEM_CONCAT_INNER_(a, b) a##b
#define ONTOMEM_CONCAT_(a, b) ONTOMEM_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::ontomem::Status _st = (expr);                    \
    if (!_st.ok()) return _st;                         \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F());` binds the value or returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(ONTOMEM_CONCAT_(_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()
