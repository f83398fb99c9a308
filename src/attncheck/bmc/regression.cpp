// attncheck: reading, writing and replaying BMC regression cases (regression.hpp).
#include "attncheck/bmc/regression.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::optional<Dtype> format_named(const std::string& s) {
  for (Dtype f : all_formats())
    if (s == name_of(f)) return f;
  return std::nullopt;
}

}  // namespace

regression_case case_of(const run_result& r, const mutant_def* mutant) {
  regression_case c;
  c.harness = r.id;
  c.format = r.format;
  c.bound = r.bound;
  c.mutant = mutant ? mutant->name : "";
  c.bits = r.input_bits;
  c.failed = r.failed_on_replay;
  return c;
}

std::string render_case(const regression_case& c) {
  std::vector<std::string> hex;
  for (std::uint64_t b : c.bits) hex.push_back(fmt::format("{:x}", b));
  std::string s =
      "# attncheck bmc regression case: a solver counterexample as concrete input bits (hex, in the\n"
      "# harness's input order). Replayed on the concrete kernel by bmc_tests (BMC-REGRESSION-CORPUS)\n"
      "# and by `attncheck bmc --replay-regressions DIR`: the reference kernel must pass it and the\n"
      "# mutant, if named, must still fail it.\n";
  s += fmt::format("harness: {}\nformat: {}\nbound: {}\n", c.harness, name_of(c.format), c.bound);
  if (!c.mutant.empty()) s += fmt::format("mutant: {}\n", c.mutant);
  s += fmt::format("bits: {}\n", fmt::join(hex, ","));
  for (const auto& f : c.failed) s += fmt::format("failed: {}\n", f);
  return s;
}

std::string case_file_name(const regression_case& c) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the bits: distinct counterexamples, distinct files
  for (std::uint64_t b : c.bits)
    for (int i = 0; i < 8; ++i) h = (h ^ ((b >> (8 * i)) & 0xff)) * 1099511628211ull;
  return fmt::format("{}-{}-d{}{}-{:08x}.case", c.harness, name_of(c.format), c.bound,
                     c.mutant.empty() ? "" : "-" + c.mutant, static_cast<std::uint32_t>(h));
}

std::optional<regression_case> parse_case(const std::string& text, std::string* error) {
  regression_case c;
  bool has_harness = false, has_format = false, has_bound = false, has_bits = false;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  const auto fail = [&](const std::string& why) -> std::optional<regression_case> {
    if (error) *error = fmt::format("line {}: {}", n, why);
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++n;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return fail("expected 'key: value', got '" + line + "'");
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "harness") {
      c.harness = value;
      has_harness = !value.empty();
    } else if (key == "format") {
      const auto f = format_named(value);
      if (!f) return fail("unknown format '" + value + "' (f16, bf16, f32, f64)");
      c.format = *f;
      has_format = true;
    } else if (key == "bound") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 6)
        return fail("bound must be a positive integer, got '" + value + "'");
      c.bound = std::stoul(value);
      if (c.bound == 0) return fail("bound must be a positive integer, got 0");
      has_bound = true;
    } else if (key == "mutant") {
      c.mutant = value;
    } else if (key == "bits") {
      std::istringstream items(value);
      std::string item;
      while (std::getline(items, item, ',')) {
        item = trim(item);
        if (item.rfind("0x", 0) == 0) item = item.substr(2);
        if (item.empty() || item.size() > 16 || item.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
          return fail("bits must be comma-separated hex, got '" + item + "'");
        c.bits.push_back(std::stoull(item, nullptr, 16));
      }
      has_bits = !c.bits.empty();
    } else if (key == "failed") {
      c.failed.push_back(value);
    } else {
      return fail("unknown key '" + key + "'");
    }
  }
  if (!has_harness || !has_format || !has_bound || !has_bits)
    return fail("a case needs harness, format, bound and bits");
  return c;
}

corpus_result read_corpus(const std::string& dir) {
  namespace fs = std::filesystem;
  corpus_result r;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    r.errors.push_back(dir + ": not a directory");
    return r;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".case") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string why;
    auto c = parse_case(ss.str(), &why);
    if (!c) {
      r.errors.push_back(p.string() + ": " + why);
      continue;
    }
    c->source = p.string();
    r.cases.push_back(std::move(*c));
  }
  return r;
}

bool case_replay::passed() const {
  if (!known_harness || !known_mutant || !on_reference.assumptions_hold || !on_reference.failed.empty()) return false;
  return !has_mutant || (on_mutant.assumptions_hold && !on_mutant.failed.empty());
}

case_replay replay_case(const regression_case& c) {
  case_replay r;
  const harness_def* h = find_harness(c.harness);
  r.known_harness = h != nullptr;
  if (!h) return r;
  r.on_reference = replay(*h, c.format, c.bound, c.bits, nullptr);
  r.has_mutant = !c.mutant.empty();
  if (!r.has_mutant) return r;
  const mutant_def* m = find_mutant(c.mutant);
  r.known_mutant = m != nullptr;
  if (m) r.on_mutant = replay(*h, c.format, c.bound, c.bits, m);
  return r;
}

}  // namespace attncheck::bmc
