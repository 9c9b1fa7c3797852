// ConnectHttpEmbedder (include/ontomem/embedder.h). The HTTP client is cpp-httplib, as for the
// LLM verifier: without its pkg-config flags (CPPHTTPLIB_OPENSSL_SUPPORT) there is no client
// and connecting fails with Unavailable saying so.
#include <fmt/format.h>

#include <algorithm>
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

  Status Embed(std::string_view text, float* out) const override { return EmbedBatch({text}, out); }

  Status EmbedBatch(const std::vector<std::string_view>& texts, float* out) const override {
    constexpr size_t kPerRequest = 64;
    std::vector<std::vector<float>> rows;
    for (size_t at = 0; at < texts.size(); at += kPerRequest) {
      const size_t n = std::min(kPerRequest, texts.size() - at);
      RETURN_IF_ERROR(Request(std::vector<std::string_view>(texts.begin() + static_cast<std::ptrdiff_t>(at),
                                                            texts.begin() + static_cast<std::ptrdiff_t>(at + n)),
                              &rows));
      for (size_t i = 0; i < n; ++i) {
        if (static_cast<int>(rows[i].size()) != dim_)
          return Fail(fmt::format("returned {} numbers, the model gave {} before", rows[i].size(), dim_));
        Normalise(rows[i].data(), dim_, out + (at + i) * static_cast<size_t>(dim_));
      }
    }
    return Status::Ok();
  }

  // Learns the dimension from one probe.
  Status Probe() {
    std::vector<std::vector<float>> rows;
    RETURN_IF_ERROR(Request({"hello"}, &rows));
    if (rows[0].empty()) return Fail("returned an empty vector");
    dim_ = static_cast<int>(rows[0].size());
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

  // One request for `texts`; `out` gets one vector per text, in order (the answer's "index").
  Status Request(const std::vector<std::string_view>& texts, std::vector<std::vector<float>>* out) const {
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
    (void)texts;
    (void)out;
    return Fail("this build has no HTTP client (cpp-httplib's pkg-config flags were not found)");
#else
    nlohmann::json input = nlohmann::json::array();
    for (std::string_view t : texts) input.push_back(std::string(Cut(t, o_.max_text_bytes)));
    nlohmann::json req = {{"model", o_.model}, {"input", std::move(input)}};
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
    if (!json.is_object() || !json.contains("data") || !json["data"].is_array())
      return Fail("the answer has no data array");
    const auto& data = json["data"];
    if (data.size() != texts.size())
      return Fail(fmt::format("the answer has {} vectors for {} texts", data.size(), texts.size()));
    out->assign(texts.size(), {});
    std::vector<bool> seen(texts.size(), false);
    for (size_t j = 0; j < data.size(); ++j) {
      const auto& item = data[j];
      if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array())
        return Fail(fmt::format("data[{}] has no embedding array", j));
      size_t i = j;
      if (item.contains("index")) {
        if (!item["index"].is_number_unsigned() || item["index"].get<size_t>() >= texts.size())
          return Fail(fmt::format("data[{}].index is not one of the {} texts", j, texts.size()));
        i = item["index"].get<size_t>();
      }
      if (seen[i]) return Fail(fmt::format("data[{}].index repeats {}", j, i));
      seen[i] = true;
      auto& v = (*out)[i];
      v.reserve(item["embedding"].size());
      for (const auto& x : item["embedding"]) {
        if (!x.is_number()) return Fail(fmt::format("data[{}].embedding holds a value that is not a number", j));
        const float f = x.get<float>();
        if (!std::isfinite(f)) return Fail(fmt::format("data[{}].embedding holds a value that is not finite", j));
        v.push_back(f);
      }
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
