// attncheck: finding and probing external solvers (external_tool.hpp).
#include "attncheck/bmc/external_tool.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace attncheck::bmc {

std::optional<std::string> find_executable(const char* env_var, const std::string& name) {
  if (const char* env = std::getenv(env_var); env && *env)
    return ::access(env, X_OK) == 0 ? std::optional<std::string>(env) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const std::string p = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

std::string first_output_line(const std::string& command) {
  std::string out;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, f)) out = buf;
    ::pclose(f);
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

}  // namespace attncheck::bmc
