#include "engine/validate.h"

#include <fmt/format.h>

#include "text/text.h"

namespace ontomem {
namespace {

Status CheckUtf8(std::string_view what, std::string_view value) {
  size_t off = 0;
  if (!text::IsValidUtf8(value, &off))
    return Status::InvalidArgument(fmt::format("{} is not valid UTF-8 (bad byte at offset {})", what, off));
  return Status::Ok();
}

bool IsBlank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

}  // namespace

Status ValidateName(std::string_view what, std::string_view value, bool allow_empty) {
  if (value.empty()) {
    if (allow_empty) return Status::Ok();
    return Status::InvalidArgument(fmt::format("{} is empty", what));
  }
  if (value.size() > kMaxNameBytes)
    return Status::InvalidArgument(
        fmt::format("{} is {} bytes, the limit is {}", what, value.size(), kMaxNameBytes));
  RETURN_IF_ERROR(CheckUtf8(what, value));
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7F)
      return Status::InvalidArgument(fmt::format("{} contains a control character", what));
  return Status::Ok();
}

Status ValidateKey(const UserKey& key) {
  RETURN_IF_ERROR(ValidateName("tenant", key.tenant, false));
  RETURN_IF_ERROR(ValidateName("user", key.user, false));
  return Status::Ok();
}

Status ValidateTurn(const Turn& turn, const Options& options, std::string_view where) {
  Status st = ValidateName("turn id", turn.id, true);
  if (st.ok()) st = ValidateName("speaker", turn.speaker, true);
  if (st.ok()) st = CheckUtf8("text", turn.text);
  if (st.ok() && IsBlank(turn.text)) st = Status::InvalidArgument("text is empty");
  if (st.ok() && turn.text.size() > options.max_turn_bytes)
    st = Status::ResourceExhausted(fmt::format("text is {} bytes, the limit is {} (Options::max_turn_bytes)",
                                               turn.text.size(), options.max_turn_bytes));
  if (st.ok()) st = ValidateName("session", turn.session, true);
  if (st.ok()) st = ValidateTimeMs("time", turn.time_ms);
  return st.WithContext(where);
}

Status ValidateTimeMs(std::string_view what, int64_t ms) {
  constexpr int64_t kYear10000 = 253402300800000;  // 10000-01-01T00:00:00Z in Unix ms
  if (ms < 0) return Status::InvalidArgument(fmt::format("{} is negative", what));
  if (ms >= kYear10000)
    return Status::InvalidArgument(fmt::format(
        "{} {} is after the year 9999: times are Unix milliseconds (microseconds or nanoseconds sent?)", what, ms));
  return Status::Ok();
}

Status ValidateQuery(std::string_view query, const SearchOptions& options) {
  RETURN_IF_ERROR(CheckUtf8("query", query));
  if (IsBlank(query)) return Status::InvalidArgument("query is empty");
  if (query.size() > (64u << 10)) return Status::ResourceExhausted("query is longer than 64 KiB");
  if (options.k < 1 || options.k > 1000)
    return Status::InvalidArgument(fmt::format("k is {}, it must be 1..1000", options.k));
  RETURN_IF_ERROR(ValidateName("asker", options.asker, true));
  if (options.context.size() > 64) return Status::InvalidArgument("context has more than 64 turns");
  for (size_t i = 0; i < options.context.size(); ++i)
    RETURN_IF_ERROR(CheckUtf8(fmt::format("context[{}]", i), options.context[i]));
  return Status::Ok();
}

}  // namespace ontomem
