// attncheck: finding and probing the external solvers the model checker runs as child processes
// (cvc5, gappa): one lookup and one version probe for both, so they behave alike.
#pragma once

#include <optional>
#include <string>

namespace attncheck::bmc {

// The executable: $env_var if it is set and non-empty (nullopt when that path is not executable,
// never a silent fall-back to PATH), else the first `name` on PATH (/usr/bin:/bin without PATH).
std::optional<std::string> find_executable(const char* env_var, const std::string& name);

// The first line `command` prints on stdout, without trailing white space ("" if it printed none).
std::string first_output_line(const std::string& command);

}  // namespace attncheck::bmc
