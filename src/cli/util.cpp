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

std::string default_contracts_dir() {
  if (const char* env = std::getenv("ATTNCHECK_CONTRACTS"); env && *env) return env;
  return ATTNCHECK_SOURCE_DIR "/contracts";
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

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::toupper(static_cast<unsigned char>(a[i - 1])) ==
                        std::toupper(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string closest(std::string_view wanted, const std::vector<std::string>& candidates) {
  // A typo changes a few characters; beyond a third of the ID it is another ID, not a typo.
  const std::size_t limit = std::max<std::size_t>(2, wanted.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(wanted, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

// The empty argument is quoted (''): left bare it would vanish from the command line.
std::string shell_quoted(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) s += separator;
    s += items[i];
  }
  return s;
}

std::string dtype_list(const std::vector<Dtype>& dtypes) {
  std::vector<std::string> names;
  for (Dtype d : dtypes) names.emplace_back(dtype_name(d));
  return join(names, ", ");
}

}  // namespace attncheck::cli
