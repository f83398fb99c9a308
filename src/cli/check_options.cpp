// attncheck CLI: the options `gate` and `audit` share to choose what runs (check_options.hpp).
#include "cli/check_options.hpp"

#include <algorithm>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"

namespace attncheck::cli {

void add_check_selection_options(CLI::App& app, CheckSelectionOptions& o, const CheckSelectionHelp& help) {
  app.add_option("--contract", o.contracts, help.contract)->delimiter(',');
  app.add_option("--test", o.tests, help.test)->delimiter(',');
  app.add_option("--dtype", o.dtypes, help.dtype)->delimiter(',');
  app.add_option("--seed", o.seed, help.seed)->capture_default_str();
  app.add_option("--cases", o.cases, help.cases)->capture_default_str();
}

void add_jobs_option(CLI::App& app, CheckSelectionOptions& o, const std::string& help, bool show_default) {
  CLI::Option* jobs = app.add_option("-j,--jobs", o.jobs, help);
  if (show_default) jobs->capture_default_str();
}

std::optional<std::uint64_t> checked_seed(const CheckSelectionOptions& o) {
  const auto seed = parse_seed(o.seed);
  if (!seed) std::cerr << "error: invalid --seed '" << o.seed << "'; write it in decimal (12345) or hex (0x5eed2026)\n";
  return seed;
}

bool checked_cases(const CheckSelectionOptions& o, std::string_view cases_note) {
  if (o.cases >= 1 && o.cases <= 10000) return true;
  std::cerr << "error: --cases must be between 1 and 10000 (got " << o.cases << ")" << cases_note << "\n";
  return false;
}

bool checked_jobs(const CheckSelectionOptions& o) {
  if (o.jobs >= 0) return true;
  std::cerr << "error: -j/--jobs must be at least 1 (or 0 for one worker per core; got " << o.jobs << ")\n";
  return false;
}

std::optional<std::vector<Dtype>> checked_dtypes(const CheckSelectionOptions& o, bool dedupe) {
  std::vector<Dtype> dtypes;
  for (const auto& name : o.dtypes) {
    const auto d = parse_dtype(name);
    if (!d) {
      std::cerr << "error: unknown dtype '" << name << "'; use one of f32, f64, f16, bf16 (f32 arithmetic), f16@f16, bf16@bf16\n";
      return std::nullopt;
    }
    if (!dedupe || std::find(dtypes.begin(), dtypes.end(), *d) == dtypes.end()) dtypes.push_back(*d);
  }
  return dtypes;
}

}  // namespace attncheck::cli
