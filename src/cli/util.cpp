// attncheck CLI: helpers shared by the subcommands.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/cli.hpp"

namespace attncheck::cli {

namespace fs = std::filesystem;

// The directory of the running executable (Linux: /proc/self/exe, symlinks resolved); empty if unknown.
static fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// Found relative to the executable, never through a path compiled in, so that an installed, moved
// or packaged attncheck reads its own contracts: PREFIX/bin/attncheck reads
// PREFIX/share/attncheck/contracts (what `cmake --install` and the .deb lay out); a binary with a
// contracts/ directory beside it reads that one (the build tree: CMake links BUILD/contracts to
// the source tree's contracts/). Canonical, so that the directory above it is the tree that holds
// docs/ and the files the contracts name (repo_root_of).
DefaultContracts find_default_contracts() {
  if (const char* env = std::getenv("ATTNCHECK_CONTRACTS"); env && *env) return {env, "$ATTNCHECK_CONTRACTS"};
  const fs::path bin = executable_dir();
  const fs::path installed = (bin / ".." / "share" / "attncheck" / "contracts").lexically_normal();
  std::error_code ec;
  for (const auto& [candidate, origin] : {std::pair{installed, "installed: share/attncheck/contracts beside the bin/ directory"},
                                          std::pair{bin / "contracts", "contracts/ beside the executable, as in the build tree"}})
    if (fs::is_directory(candidate, ec)) {
      const fs::path real = fs::canonical(candidate, ec);
      return {ec ? candidate.string() : real.string(), origin};
    }
  return {installed.string(), "not found: neither share/attncheck/contracts beside the bin/ directory nor contracts/ beside the executable"};
}

std::string default_contracts_dir() { return find_default_contracts().dir; }

// Beside the executable, as the contracts are found (never a path compiled in: an installed, moved
// or packaged attncheck names no build tree): installed, PREFIX/share/attncheck/<installed>;
// otherwise (the build tree) BUILD/<build>.
std::string beside_executable(const std::string& installed, const std::string& build) {
  const fs::path bin = executable_dir();
  const fs::path share = (bin / ".." / "share" / "attncheck").lexically_normal();
  std::error_code ec;
  if (fs::is_directory(share / "contracts", ec)) return (share / installed).string();
  return (bin / build).string();
}

bool running_installed() {
  std::error_code ec;
  return fs::is_directory((executable_dir() / ".." / "share" / "attncheck" / "contracts").lexically_normal(), ec);
}

std::string repo_root_of(const std::string& contracts_dir) {
  fs::path p = fs::absolute(contracts_dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "contracts/" normalises with an empty filename
  return p.parent_path().string();
}

std::optional<contract::LoadResult> load_or_report(const std::string& dir, bool print_warnings) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cerr << "error: contracts directory '" << dir
              << "' does not exist; pass --contracts DIR or set ATTNCHECK_CONTRACTS\n";
    return std::nullopt;
  }
  contract::LoadResult loaded = contract::load_directory(dir);
  const bool ok = loaded.ok();
  int errors = 0;
  for (const auto& d : loaded.diagnostics) {
    if (d.severity == contract::Severity::error) ++errors;
    if (!ok || print_warnings || d.severity == contract::Severity::error)
      std::cerr << contract::to_string(d) << "\n";
  }
  if (ok) return loaded;
  std::cerr << errors << (errors == 1 ? " error" : " errors") << " in the contracts under " << dir
            << "; fix them (run 'attncheck lint' for the full check)\n";
  return std::nullopt;
}

std::optional<std::uint64_t> parse_seed(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (err != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// The empty argument is quoted (''): left bare it would vanish from the command line.
std::string shell_quoted(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}


std::string dtype_list(const std::vector<Dtype>& dtypes) {
  std::vector<std::string> names;
  for (Dtype d : dtypes) names.emplace_back(dtype_name(d));
  return join(names, ", ");
}

}  // namespace attncheck::cli
