// docs/bad_input.md: every kind of bad request, sent to a real in-process server, with the
// status and error it actually got (`ontomem docs bad-input`; a test keeps the file current).
#pragma once

#include <string>

#include "ontomem/status.h"

namespace ontomem::server {

// Starts servers on 127.0.0.1 (ephemeral ports, a temporary data directory, a built-in
// hashing embedder), sends the requests and returns the Markdown page.
StatusOr<std::string> BadInputMarkdown();

}  // namespace ontomem::server
