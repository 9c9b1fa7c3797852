// LlmVerifier. The HTTP client is cpp-httplib, whose Debian package is a compiled library: the
// real client is built when the library target carries cpp-httplib's pkg-config flags
// (CPPHTTPLIB_OPENSSL_SUPPORT is one of them, and the ABI depends on it). Without them every
// call falls back to the rules and is counted as a failure, so a build without the link still
// works.
#include "extract/verifier.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include "common/http_client.h"
#endif

namespace ontomem::extract {

bool LlmVerifierAvailable() {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  return true;
#else
  return false;
#endif
}

LlmVerifier::LlmVerifier(LlmVerifierOptions options, std::shared_ptr<const Verifier> fallback)
    : options_(std::move(options)), fallback_(std::move(fallback)) {
  if (!fallback_) fallback_ = std::make_shared<RuleVerifier>();
}

Verdict LlmVerifier::Verify(const Assertion& candidate, const Turn& turn) const {
  // confirm_only: the fallback's verdict first; the endpoint sees the fact as the rules read it.
  std::optional<Verdict> first;
  Assertion c = candidate;
  if (options_.confirm_only) {
    first = fallback_->Verify(candidate, turn);
    if (!first->valid) return *first;
    if (!first->relation.empty()) c.relation = first->relation;
    if (first->modality) c.modality = *first->modality;
  }
  calls_.fetch_add(1);
  auto fail = [&]() {
    failures_.fetch_add(1);
    Verdict v = first ? *first : fallback_->Verify(candidate, turn);
    v.fallback = true;
    return v;
  };
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
  return fail();
#else
  try {
    std::string relations;
    for (const char* r : kRelationIds) relations += std::string(relations.empty() ? "" : ", ") + r;
    nlohmann::json req;
    req["model"] = options_.model;
    req["temperature"] = 0;
    req["messages"] = nlohmann::json::array(
        {{{"role", "system"},
          {"content", "You verify one candidate fact extracted from a chat turn. Answer only with a JSON object "
                      "{\"valid\": true|false, \"relation\": \"<id>\"} where <id> is one of: " + relations +
                          ". valid is true only if the turn states the fact about the head with the given "
                          "modality."}},
         {{"role", "user"},
          {"content", fmt::format("Turn (speaker {}): \"{}\"\nCandidate: head=\"{}\" relation={} tail=\"{}\" "
                                  "modality={}",
                                  turn.speaker, turn.text, c.head, c.relation, c.tail, ModalityName(c.modality))}}});
    httplib::Client cli(options_.base_url);
    SetTimeouts(&cli, options_.timeout_ms);
    const httplib::Headers headers = BearerHeaders(options_.api_key);
    auto res = cli.Post("/v1/chat/completions", headers, req.dump(), "application/json");
    if (!res || res->status != 200) return fail();
    const auto body = nlohmann::json::parse(res->body, nullptr, false);
    if (body.is_discarded()) return fail();
    const auto& content = body.at("choices").at(0).at("message").at("content");
    if (!content.is_string()) return fail();
    std::string text = content.get<std::string>();
    // Tolerate code fences around the object.
    const size_t b = text.find('{'), e = text.rfind('}');
    if (b == std::string::npos || e == std::string::npos || e < b) return fail();
    const auto ans = nlohmann::json::parse(text.substr(b, e - b + 1), nullptr, false);
    if (ans.is_discarded() || !ans.is_object() || !ans.contains("valid") || !ans["valid"].is_boolean()) return fail();
    Verdict v;
    v.valid = ans["valid"].get<bool>();
    // The relation the endpoint names, else the one it was asked about; Verdict::relation is
    // only set when that differs from the candidate's.
    std::string relation = c.relation;
    if (ans.contains("relation") && ans["relation"].is_string()) {
      relation = ans["relation"].get<std::string>();
      if (RelationIndex(relation) < 0) return fail();
    }
    if (relation != candidate.relation) v.relation = relation;
    if (first && v.valid) v.modality = first->modality;  // confirmed as the rules read it
    if (!v.valid) v.reason = "llm rejected";
    return v;
  } catch (const std::exception&) {
    return fail();
  }
#endif
}

}  // namespace ontomem::extract
