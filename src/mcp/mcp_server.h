// The Model Context Protocol over stdio (`ontomem mcp`): newline-delimited JSON-RPC 2.0 on
// stdin/stdout, exposing one tenant's memory to an agent host as four tools: remember, recall,
// feedback and forget. docs/mcp.md shows how to configure a host and what each tool takes.
//
// Protocol errors are JSON-RPC errors (-32700 parse error, -32600 invalid request, -32601
// unknown method, -32602 invalid params, which includes arguments that break a tool's input
// schema); a tool that runs and fails (unknown user, a turn id that does not exist) answers with
// a result whose isError is true and whose text says why, so the model can correct itself.
// Nothing but protocol messages is ever written to the output stream; logs go to `log`.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ontomem/memory.h"
#include "ontomem/status.h"

namespace ontomem::mcp {

// Protocol revisions this server speaks, newest first. An initialize naming one of them gets
// it back; any other gets the newest.
inline constexpr const char* kProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

struct McpOptions {
  std::string tenant;        // every call works in this tenant (required)
  std::string default_user;  // user of calls that name none; empty = every call must name one
  // Longest accepted message line; a longer one is answered with -32600 and skipped.
  size_t max_message_bytes = size_t{4} << 20;
  // Largest k a recall may ask for.
  int max_k = 100;
  std::string server_version = "0.1.0";
  // Where diagnostics go (never the protocol stream); null = nowhere.
  std::ostream* log = nullptr;
};

class McpServer {
 public:
  // `memory` must outlive the server.
  McpServer(Memory* memory, McpOptions options);

  // Reads messages line by line from `in` until end of input and writes each response as one
  // line to `out`. OK at end of input; IOError if `out` fails. Never stops on a bad message.
  Status Serve(std::istream& in, std::ostream& out);

  // Handles one message line (a request, a notification or a batch) and returns the response
  // line without its newline, or "" when there is nothing to answer (notifications).
  std::string HandleMessage(std::string_view line);

 private:
  // The response to one request object, or null for a notification.
  nlohmann::json HandleOne(const nlohmann::json& msg);
  nlohmann::json Dispatch(const std::string& method, const nlohmann::json& params, bool* is_error);
  nlohmann::json Initialize(const nlohmann::json& params, bool* is_error);
  nlohmann::json CallTool(const nlohmann::json& params, bool* is_error);
  void Log(std::string_view what) const;

  Memory* memory_;
  McpOptions options_;
  bool initialized_ = false;
  std::string protocol_version_;
};

}  // namespace ontomem::mcp
