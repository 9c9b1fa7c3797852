// `ontomem serve`: opens the memory, serves HTTP until SIGTERM or SIGINT, then drains and
// closes everything so that no acknowledged write is lost.
#pragma once

#include <string>

#include "ontomem/options.h"
#include "ontomem/status.h"
#include "server/api.h"

namespace ontomem::server {

// Blocks until a signal ends the server. Prints the listen address and a curl example on
// stdout once it accepts requests.
Status Serve(const Options& memory_options, const std::string& keys_path, const ServerOptions& options);

}  // namespace ontomem::server
