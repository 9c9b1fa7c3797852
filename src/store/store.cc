#include "store/store.h"

#include <algorithm>
#include <charconv>

namespace ontomem {
namespace {

bool IsPending(const std::string& id) { return !id.empty() && id[0] == '\x1f'; }

// Rewrites the pending id that `s` starts with (a whole source turn, or an assertion key's prefix).
bool ResolveOne(std::string* s, const std::vector<std::string>& assigned_ids) {
  size_t index = 0;
  const auto [end, ec] = std::from_chars(s->data() + 1, s->data() + s->size(), index);
  if (ec != std::errc() || index >= assigned_ids.size() || assigned_ids[index].empty()) return false;
  s->replace(0, static_cast<size_t>(end - s->data()), assigned_ids[index]);
  return true;
}

bool ResolveList(IdList* list, const std::vector<std::string>& assigned_ids) {
  if (std::none_of(list->begin(), list->end(), IsPending)) return true;  // shares, no copy
  std::vector<std::string> ids = list->get();
  for (std::string& id : ids)
    if (IsPending(id) && !ResolveOne(&id, assigned_ids)) return false;
  *list = IdList(std::move(ids));
  return true;
}

}  // namespace

bool ResolvePendingTurnIds(GraphEdge* e, const std::vector<std::string>& assigned_ids) {
  return ResolveList(&e->source_turns, assigned_ids) && ResolveList(&e->assertion_keys, assigned_ids);
}

}  // namespace ontomem
