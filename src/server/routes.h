// The one route table of the HTTP API. It drives dispatch (HttpServer), the reference page
// docs/http_api.md (`ontomem docs http-api`) and the OpenAPI document at /v1/openapi.json.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "server/api.h"

namespace ontomem::server {

// Route::max_body value meaning Limits::max_body_bytes.
inline constexpr size_t kBodyLimit = static_cast<size_t>(-1);

struct Route {
  const char* method;   // GET, POST or DELETE
  const char* path;     // pattern; "{user}" is one URL-encoded path segment
  const char* summary;  // one line
  bool auth;            // needs "Authorization: Bearer KEY"
  size_t max_body;      // largest accepted body in bytes; kBodyLimit = Limits::max_body_bytes
  const char* query;    // query parameters, "name=default: meaning" separated by "; ", or ""
  const char* request;  // example request body, or "" when the route takes none
  const char* response_type;  // content type of a 200 answer
  const char* response;       // example (or description) of a 200 answer
  Reply (Api::*handler)(const Call&);
};

const std::vector<Route>& RouteTable();

// The largest body the route accepts under `limits`.
size_t MaxBody(const Route& route, const Limits& limits);

struct RouteMatch {
  const Route* route = nullptr;  // null: no route for this method and path
  size_t index = 0;              // position in RouteTable()
  std::string user;              // the raw (still URL-encoded) {user} segment
  std::string allowed;           // no route but the path exists: its methods ("GET, POST")
};
// `path` without the query string; HEAD matches GET routes.
RouteMatch MatchRoute(std::string_view method, std::string_view path);

// Percent-decodes one path segment; false on a malformed escape.
bool DecodePathSegment(std::string_view in, std::string* out);

// docs/http_api.md, generated.
std::string HttpApiMarkdown(const Limits& limits);
// The OpenAPI 3.0 document of every route in the table.
std::string OpenApiJson(const Limits& limits);

}  // namespace ontomem::server
