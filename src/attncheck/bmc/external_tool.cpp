// attncheck: finding and probing external solvers (external_tool.hpp).
#include "attncheck/bmc/external_tool.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

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

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

tool_process::tool_process(const std::string& tag) {
  std::string tmpl = (std::filesystem::temp_directory_path() / ("attncheck-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory for " + tag);
  dir_ = tmpl;
}

tool_process::~tool_process() {
  kill();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void tool_process::write(const std::string& name, const std::string& text) {
  std::ofstream out(path(name));
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path(name));
}

void tool_process::start(std::vector<std::string> argv) {
  const std::string out_path = path("out"), err_path = path("err");
  // Everything the child needs is built before the fork: between fork and exec the child calls
  // only async-signal-safe functions (no malloc), since another thread of this process (the
  // engine's watcher) may hold the allocator's lock at the fork (cli/progress.cpp tells how
  // that deadlocked a child under ASan).
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("cannot start " + argv.at(0) + " (fork failed)");
  if (pid_ == 0) {
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0) ::_exit(127);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
}

bool tool_process::finished() {
  if (exited_ || pid_ <= 0) return true;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
  return exited_;
}

void tool_process::kill() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    exited_ = true;
  }
}

bool tool_process::wait_until(std::chrono::steady_clock::time_point deadline) {
  while (!finished()) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

int tool_process::exit_code() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }
std::string tool_process::out() const { return slurp(path("out")); }
std::string tool_process::err() const { return slurp(path("err")); }

}  // namespace attncheck::bmc
