// ConnectHttpEmbedder (include/ontomem/embedder.h). The HTTP client is cpp-httplib, as for the
// LLM verifier: without its pkg-config flags (CPPHTTPLIB_OPENSSL_SUPPORT) there is no client
// and connecting fails with Unavailable saying so.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "ontomem/embedder.h"

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include "common/http_client.h"
#endif

namespace ontomem {
namespace {

// "http://host:8080/api/v1" -> ("http://host:8080", "/api/v1/embeddings").
void SplitUrl(const std::string& base_url, std::string* origin, std::string* path) {
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  *origin = slash == std::string::npos ? url : url.substr(0, slash);
  std::string prefix = slash == std::string::npos ? "" : url.substr(slash);
  if (prefix.size() < 3 || prefix.compare(prefix.size() - 3, 3, "/v1") != 0) prefix += "/v1";
  *path = prefix + "/embeddings";
}

// Cuts at most `max` bytes without splitting a UTF-8 sequence.
std::string_view Cut(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

class HttpEmbedder final : public Embedder {
 public:
  explicit HttpEmbedder(HttpEmbedderOptions o) : o_(std::move(o)) { SplitUrl(o_.base_url, &origin_, &path_); }

  std::string id() const override { return fmt::format("http:{}:{}", o_.model, dim_); }
  int dim() const override { return dim_; }

  Status Embed(std::string_view text, float* out) const override {
    std::vector<float> v;
    RETURN_IF_ERROR(Request(text, &v));
    if (static_cast<int>(v.size()) != dim_)
      return Fail(fmt::format("returned {} numbers, the model gave {} before", v.size(), dim_));
    Normalise(v.data(), dim_, out);
    return Status::Ok();
  }

  // Learns the dimension from one probe.
  Status Probe() {
    std::vector<float> v;
    RETURN_IF_ERROR(Request("hello", &v));
    if (v.empty()) return Fail("returned an empty vector");
    dim_ = static_cast<int>(v.size());
    return Status::Ok();
  }

 private:
  Status Fail(const std::string& what) const {
    return Status::Unavailable(fmt::format("embedding endpoint {}{} (model {}): {}", origin_, path_, o_.model, what));
  }

  static void Normalise(const float* v, int n, float* out) {
    double ss = 0;
    for (int i = 0; i < n; ++i) ss += static_cast<double>(v[i]) * v[i];
    const float inv = ss > 0 ? static_cast<float>(1.0 / std::sqrt(ss)) : 0.0f;
    for (int i = 0; i < n; ++i) out[i] = v[i] * inv;
  }

  Status Request(std::string_view text, std::vector<float>* out) const {
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
    (void)text;
    (void)out;
    return Fail("this build has no HTTP client (cpp-httplib's pkg-config flags were not found)");
#else
    nlohmann::json req = {{"model", o_.model}, {"input", std::string(Cut(text, o_.max_text_bytes))}};
    std::string body;
    try {
      body = req.dump();
    } catch (const nlohmann::json::exception&) {  // invalid UTF-8: callers validate, but never send it
      return Status::InvalidArgument("embedding input is not valid UTF-8");
    }
    httplib::Client cli(origin_);
    if (!cli.is_valid()) return Fail("not an http(s) URL");
    SetTimeouts(&cli, o_.timeout_ms);
    const httplib::Headers headers = BearerHeaders(o_.api_key);
    auto res = cli.Post(path_, headers, body, "application/json");
    if (!res) return Fail(fmt::format("no answer ({})", httplib::to_string(res.error())));
    if (res->status != 200) return Fail(fmt::format("HTTP {}: {}", res->status, std::string(Cut(res->body, 200))));
    const auto json = nlohmann::json::parse(res->body, nullptr, false);
    if (json.is_discarded()) return Fail("the answer is not JSON");
    const nlohmann::json* vec = nullptr;
    if (json.is_object() && json.contains("data") && json["data"].is_array() && !json["data"].empty() &&
        json["data"][0].is_object() && json["data"][0].contains("embedding"))
      vec = &json["data"][0]["embedding"];
    if (!vec || !vec->is_array()) return Fail("the answer has no data[0].embedding array");
    out->clear();
    out->reserve(vec->size());
    for (const auto& x : *vec) {
      if (!x.is_number()) return Fail("data[0].embedding holds a value that is not a number");
      const float f = x.get<float>();
      if (!std::isfinite(f)) return Fail("data[0].embedding holds a value that is not finite");
      out->push_back(f);
    }
    return Status::Ok();
#endif
  }

  HttpEmbedderOptions o_;
  std::string origin_, path_;
  int dim_ = 0;
};

}  // namespace

StatusOr<std::shared_ptr<Embedder>> ConnectHttpEmbedder(const HttpEmbedderOptions& options) {
  if (options.base_url.empty()) return Status::InvalidArgument("embedding endpoint: base_url is empty");
  if (options.model.empty()) return Status::InvalidArgument("embedding endpoint: model is empty");
  if (options.timeout_ms <= 0) return Status::InvalidArgument("embedding endpoint: timeout_ms must be positive");
  auto e = std::make_shared<HttpEmbedder>(options);
  RETURN_IF_ERROR(e->Probe());
  return std::shared_ptr<Embedder>(std::move(e));
}

}  // namespace ontomem
