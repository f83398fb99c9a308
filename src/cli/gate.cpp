// attncheck CLI: `attncheck gate` — runs the falsification tests of the selected contracts and
// reports a verdict per (test, dtype). Exit 0 only when every check ran and passed.
#include "cli/gate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "attncheck/property/parallel.hpp"
#include "cli/check_options.hpp"
#include "cli/cli.hpp"
#include "cli/progress.hpp"
#include "cli/report_files.hpp"
#include "cli/report_html.hpp"

namespace attncheck::cli {

std::string GateRow::dtype() const { return has_property ? std::string(dtype_name(outcome.dtype)) : "-"; }

int GateReport::passed() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const GateRow& r) { return r.passed(); }));
}

namespace {

struct GateOptions : ReportFileOptions, CheckSelectionOptions {
  std::string mutant;
  std::string tolerance = "derived";
  bool list_mutants = false;
  bool list = false;
  std::string shard;  // "i/N": only every N-th check, starting at the i-th (1-based)
};

// "--shard i/N" -> (i, N) with 1 <= i <= N.
std::optional<std::pair<std::size_t, std::size_t>> parse_shard(const std::string& s) {
  const auto slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) return std::nullopt;
  const auto digits = [](std::string_view t) { return t.find_first_not_of("0123456789") == std::string_view::npos && t.size() <= 6; };
  const std::string_view a(s.data(), slash), b(s.data() + slash + 1, s.size() - slash - 1);
  if (!digits(a) || !digits(b)) return std::nullopt;
  const std::size_t i = std::stoul(std::string(a)), n = std::stoul(std::string(b));
  if (n < 1 || i < 1 || i > n) return std::nullopt;
  return std::make_pair(i, n);
}

int list_mutants() {
  const auto& ms = property::mutants();
  if (ms.empty()) {
    std::cout << "no mutants are registered in this build\n";
    return exit_pass;
  }
  for (const auto& m : ms) {
    std::cout << m.name << "\n  " << m.description << "\n  must be caught by: "
              << (m.caught_by.empty() ? "-" : join(m.caught_by, ", ")) << "\n";
  }
  return exit_pass;
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const auto& m : property::mutants()) names.push_back(m.name);
  return names;
}

// Checks every argument that needs no contracts; prints the problem and its fix on failure.
bool validate(const GateOptions& o, property::RunParams& params, std::vector<Dtype>& dtypes) {
  const auto seed = checked_seed(o);
  if (!seed) return false;
  // The statistical tests split their false-alarm budget (1e-9 per run) over at most 10^4
  // cases per (test, dtype); more cases would silently weaken that guarantee.
  if (!checked_cases(o, "; the statistical tests' false-alarm bound of 1e-9 per run assumes at most 10^4 cases"))
    return false;
  const auto chosen = checked_dtypes(o, true);
  if (!chosen) return false;
  for (Dtype d : *chosen)
    if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) dtypes.push_back(d);
  std::string why;
  const auto tolerance = property::parse_tolerance(o.tolerance, why);
  if (!tolerance) {
    std::cerr << "error: --tolerance: " << why << "\n";
    return false;
  }
  params.tolerance = *tolerance;
  params.seed = *seed;
  params.cases = o.cases;
  params.mutant = o.mutant == "reference" ? "" : o.mutant;
  if (!params.mutant.empty() && !property::find_mutant(params.mutant)) {
    const auto names = mutant_names();
    std::cerr << "error: unknown mutant '" << params.mutant << "'; "
              << (names.empty() ? "this build has no mutants" : "known mutants: " + join(names, ", "))
              << " (see 'attncheck gate --list-mutants')\n";
    return false;
  }
  if (!checked_jobs(o)) return false;
  if (!o.shard.empty() && !parse_shard(o.shard)) {
    std::cerr << "error: invalid --shard '" << o.shard << "'; write i/N with 1 <= i <= N, e.g. --shard 2/4\n";
    return false;
  }
  return true;
}

// The contracts to run: all, or those named by --contract (every name must exist).
bool select_contracts(const std::vector<contract::Contract>& all, const std::vector<std::string>& wanted,
                      std::vector<const contract::Contract*>& selected) {
  std::vector<std::string> ids;
  for (const auto& c : all) ids.push_back(c.id);
  for (const auto& c : all)
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), c.id) != wanted.end()) selected.push_back(&c);
  for (const auto& w : wanted) {
    if (std::find(ids.begin(), ids.end(), w) != ids.end()) continue;
    const std::string guess = closest(w, ids);
    std::cerr << "error: unknown contract '" << w << "'"
              << (guess.empty() ? "" : "; did you mean '" + guess + "'?") << "\n  known contracts: "
              << (ids.empty() ? "(none)" : join(ids, ", ")) << "\n";
    return false;
  }
  return true;
}

// Every --test ID must be a test of a selected contract, or the user would get a silent no-op.
bool check_test_ids(const std::vector<contract::Contract>& all, const std::vector<const contract::Contract*>& selected,
                    const std::vector<std::string>& wanted) {
  for (const auto& w : wanted) {
    bool in_selected = false;
    for (const auto* c : selected)
      for (const auto& t : c->tests) in_selected |= t.id == w;
    if (in_selected) continue;
    std::vector<std::string> ids;
    std::string owner;
    for (const auto& c : all)
      for (const auto& t : c.tests) {
        ids.push_back(t.id);
        if (t.id == w) owner = c.id;
      }
    if (!owner.empty()) {
      std::cerr << "error: test " << w << " belongs to contract " << owner
                << ", which --contract did not select; add --contract " << owner << "\n";
    } else {
      const std::string guess = closest(w, ids);
      std::cerr << "error: unknown test ID " << w << (guess.empty() ? "" : " (did you mean " + guess + "?)")
                << "; run 'attncheck list' to see the IDs\n";
    }
    return false;
  }
  return true;
}

// The (test, dtype) checks to run, in contract and file order; a test without a property is
// one ERROR row, never skipped.
std::vector<GateRow> plan(const std::vector<const contract::Contract*>& selected, const GateOptions& o,
                          const std::vector<Dtype>& dtypes, const property::RunParams& params) {
  std::vector<GateRow> rows;
  for (const auto* c : selected) {
    for (const auto& t : c->tests) {
      if (!o.tests.empty() && std::find(o.tests.begin(), o.tests.end(), t.id) == o.tests.end()) continue;
      GateRow base;
      base.contract = c->id;
      base.obligations = t.obligations;
      base.outcome.test_id = t.id;
      base.outcome.kernels = params.mutant.empty() ? "reference" : params.mutant;
      const property::PropertyInfo* p = property::find_property(t.id);
      if (!p || p->dtypes.empty()) {
        base.has_property = false;
        base.outcome.verdict = property::Verdict::error;
        base.outcome.message = p ? "the property registers no dtypes" : "no executable property in this build";
        base.outcome.replay = "attncheck gate --test " + t.id;
        rows.push_back(base);
        continue;
      }
      bool any = false;
      for (Dtype d : p->dtypes) {
        if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) continue;
        GateRow row = base;
        row.outcome.dtype = d;
        rows.push_back(row);
        any = true;
      }
      if (!any)
        std::cerr << "note: " << t.id << " does not run at the requested dtypes (it runs at "
                  << dtype_list(p->dtypes) << ")\n";
    }
  }
  return rows;
}

// Fills in each planned row's outcome, in `jobs` worker processes (property/parallel.hpp: the same
// outcomes as one process, since each check's seed depends only on the run seed, test and dtype),
// until done or interrupted; returns which rows ran (all of them unless interrupted: checks
// already running then still finish). Shows a progress line on a terminal (stderr only, so
// stdout stays identical between runs).
std::vector<bool> run_all(std::vector<GateRow>& rows, const property::RunParams& params, const Global& global, bool timings,
                          bool quiet, int jobs) {
  Progress progress(quiet, rows.size(), static_cast<std::size_t>(params.cases));
  std::vector<std::size_t> todo;
  std::vector<bool> ran(rows.size(), false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].has_property) todo.push_back(i);
    else ran[i] = true;  // an ERROR row with nothing to run is already complete
  }
  property::ParallelHooks hooks;
  hooks.on_start = [&](std::size_t k) {
    const GateRow& row = rows[todo[k]];
    progress.show(todo[k], row.contract + " " + (row.obligations.empty() ? "-" : join(row.obligations, ",")) + " " +
                               row.outcome.test_id + " [" + std::string(dtype_name(row.outcome.dtype)) + "]");
  };
  hooks.on_done = [&](std::size_t, const property::Outcome& o) { progress.finished(static_cast<std::size_t>(o.cases)); };
  hooks.stop = [] { return interrupted() != 0; };
  hooks.error_outcome = [&](std::size_t k, const std::string& why) {
    property::Outcome o = rows[todo[k]].outcome;
    o.verdict = property::Verdict::error;
    o.message = why;
    o.replay = property::replay_command(o, params);
    return o;
  };
  const auto outcomes = property::run_parallel(
      todo.size(), jobs,
      [&](std::size_t k) {
        const GateRow& row = rows[todo[k]];
        return property::run_property(*property::find_property(row.outcome.test_id), row.outcome.dtype, params);
      },
      hooks);
  for (std::size_t k = 0; k < todo.size(); ++k)
    if (outcomes[k]) rows[todo[k]].outcome = *outcomes[k], ran[todo[k]] = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!ran[i]) continue;
    GateRow& row = rows[i];
    if (!timings) row.outcome.seconds = 0;
    if (global.contracts_given) row.outcome.replay += " --contracts " + shell_quoted(global.contracts_dir);
  }
  progress.clear();
  return ran;
}

// For a mutant run: was it caught, and by the tests that are supposed to catch it?
std::vector<std::string> mutant_notes(const GateReport& r, const std::string& mutant) {
  if (mutant.empty()) return {};
  const property::MutantInfo* m = property::find_mutant(mutant);
  std::set<std::string> failed, ran;
  for (const GateRow& row : r.rows) {
    if (!row.has_property) continue;
    ran.insert(row.outcome.test_id);
    if (row.outcome.verdict == property::Verdict::fail) failed.insert(row.outcome.test_id);
  }
  std::vector<std::string> notes;
  notes.push_back(failed.empty() ? "mutant " + mutant + " was NOT caught: no check failed"
                                 : "mutant " + mutant + " was caught by " +
                                       join(std::vector<std::string>(failed.begin(), failed.end()), ", "));
  std::vector<std::string> missed;
  for (const auto& id : m->caught_by)
    if (ran.count(id) && !failed.count(id)) missed.push_back(id);
  if (!missed.empty()) notes.push_back("  expected to catch it, but did not fail: " + join(missed, ", "));
  return notes;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int run_gate(const GateOptions& o, const Global& global) {
  if (o.list_mutants) return list_mutants();
  property::RunParams params;
  std::vector<Dtype> dtypes;
  if (!validate(o, params, dtypes)) return exit_usage;

  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  std::vector<const contract::Contract*> selected;
  if (!select_contracts(loaded->contracts, o.contracts, selected)) return exit_usage;
  if (!check_test_ids(loaded->contracts, selected, o.tests)) return exit_usage;

  GateReport report;
  const auto t0 = std::chrono::steady_clock::now();
  report.started_utc = utc_now();
  report.version = ATTNCHECK_VERSION;
  report.seed = params.seed;
  report.cases = params.cases;
  report.kernels = params.mutant.empty() ? "reference" : params.mutant;
  report.tolerance = params.tolerance.text();
  report.timings = !o.no_timings;
  report.quiet = o.quiet;
  report.verbose = o.verbose;
  report.coverage = o.coverage;
  report.color = use_color(STDOUT_FILENO);
  {
    std::vector<contract::Contract> chosen;
    for (const auto* c : selected) chosen.push_back(*c);
    describe_contracts(report, chosen, global.contracts_dir);
  }
  report.rows = plan(selected, o, dtypes, params);
  if (o.list) {
    // One "TEST_ID DTYPE" line per planned check (a test without a property: "TEST_ID -"), so a
    // build system can register one test per check (cmake/AttncheckAudit.cmake).
    for (const auto& r : report.rows)
      std::cout << r.outcome.test_id << " " << (r.has_property ? std::string(dtype_name(r.outcome.dtype)) : "-") << "\n";
    return exit_pass;
  }
  std::string shard_note;
  if (!o.shard.empty()) {
    // Every N-th planned check from the i-th: the plan is the same on every machine (contract
    // and file order), so the N shards together run each check exactly once.
    const auto sh = parse_shard(o.shard);
    const std::size_t all = report.rows.size();
    std::vector<GateRow> mine;
    for (std::size_t i = 0; i < all; ++i)
      if (i % sh->second == sh->first - 1) mine.push_back(std::move(report.rows[i]));
    report.rows = std::move(mine);
    shard_note = "shard " + o.shard + ": " + std::to_string(report.rows.size()) + " of the " + std::to_string(all) +
                 " planned checks (the other shards run the rest)";
  }
  if (report.rows.empty()) {
    // Zero checks must not read as "0 passed, 0 failed" success.
    std::cerr << "error: nothing to run: the selected contracts have no falsification tests at the requested "
                 "dtypes; widen --contract/--test/--dtype\n";
    return exit_usage;
  }
  stop_on_interrupt();
  const std::vector<bool> ran = run_all(report.rows, params, global, report.timings, o.quiet,
                                        o.jobs > 0 ? o.jobs : property::default_jobs());
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (interrupted()) {
    // Print what finished; write no report file: a report of part of a run would read as the run.
    std::vector<GateRow> finished;
    for (std::size_t i = 0; i < report.rows.size(); ++i)
      if (ran[i]) finished.push_back(std::move(report.rows[i]));
    const std::size_t done = finished.size();
    report.skipped = static_cast<int>(report.rows.size() - done);
    report.rows = std::move(finished);
    report.notes.push_back("interrupted: " + std::to_string(done) + " of " + std::to_string(done + report.skipped) +
                           " checks finished (the " + std::to_string(report.skipped) +
                           " not run are counted as skipped); no report file was written");
    std::cout << render_text(report) << std::flush;
    std::cerr << "attncheck: interrupted by signal " << interrupted() << "; no report file was written\n";
    return interrupted_exit_status();
  }
  report.notes = mutant_notes(report, params.mutant);
  if (!shard_note.empty()) report.notes.push_back(shard_note);
  for (std::string& note : coverage_notes(report.rows)) report.notes.push_back(std::move(note));
  // A derived bound that is infinite (γ_n >= 1 for the row length and format) checks nothing:
  // say so rather than let those cases count silently as passes.
  for (const GateRow& row : report.rows)
    if (row.outcome.unbounded > 0)
      // (Not "N of M": some properties skip the ratio of an unbounded comparison, others record
      // it as 0, so the observations are no denominator for it.)
      report.notes.push_back("note: " + row.outcome.test_id + " [" + row.dtype() + "]: " + std::to_string(row.outcome.unbounded) +
                             " comparisons had no finite derived bound (gamma_n >= 1 at that length in " +
                             (row.outcome.dtype == Dtype::f16 || row.outcome.dtype == Dtype::bf16 ? "16-bit arithmetic" : "this format") +
                             "), so they checked nothing");

  // Uncertified reference values: their enclosures still bound the exact value (the verdicts
  // use the enclosures), but the correctly rounded value shown in a report may be a guess.
  // One note for all of them (the JSON report has the count per check).
  std::size_t uncertified = 0, checks_with = 0;
  std::string worst_check;
  std::size_t worst = 0;
  for (const GateRow& row : report.rows) {
    const std::size_t u = row.outcome.certified.uncertified;
    if (u == 0) continue;
    uncertified += u;
    ++checks_with;
    if (u > worst) worst = u, worst_check = row.outcome.test_id + " [" + row.dtype() + "]";
  }
  if (uncertified > 0)
    report.notes.push_back("note: " + std::to_string(uncertified) + " reference values in " + std::to_string(checks_with) +
                           " checks could not be certified as correctly rounded (most: " + std::to_string(worst) + " in " +
                           worst_check + "); their enclosures still decide the verdicts; per check: --json, field "
                           "certified.uncertified");

  std::cout << render_text(report) << std::flush;
  ReportFiles files;
  if (!o.json.empty()) files.emplace_back(o.json, render_json(report));
  if (!o.junit.empty()) files.emplace_back(o.junit, render_junit(report));
  if (!o.sarif.empty()) files.emplace_back(o.sarif, render_sarif(report));
  if (!o.markdown.empty()) files.emplace_back(o.markdown, render_markdown(report));
  if (!o.html.empty() && !add_html_report(files, o.html, render_json(report))) return exit_usage;
  if (!write_reports(files)) {
    if (interrupted()) {
      std::cerr << "attncheck: interrupted by signal " << interrupted() << " while writing reports; those not yet written were not\n";
      return interrupted_exit_status();
    }
    return exit_usage;
  }
  return report.failed() == 0 ? exit_pass : exit_fail;
}

}  // namespace

Command setup_gate(CLI::App& parent, const Global& global) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* app = parent.add_subcommand(
      "gate", "Run the falsification tests of the contracts and report a verdict per (test, dtype)");
  app->fallthrough();
  add_check_selection_options(
      *app, *o,
      {"Only this contract (repeatable; default: all)", "Only this falsification test ID (repeatable)",
       "Only this format (repeatable): f32, f64; 16-bit storage with its arithmetic: f16@f32 and bf16@f32 "
       "(also spelt f16, bf16), f16@f16 and bf16@bf16",
       "Run seed, decimal or 0x hex; same seed, same verdicts", "Successful random cases per (test, dtype)"});
  app->add_option("--mutant", o->mutant, "Run against a built-in wrong kernel (self-test of attncheck)");
  app->add_option("--tolerance", o->tolerance,
                  "How accuracy against the oracle is judged: derived (the derived rounding-error bound), "
                  "ulp:N, abs:A,rel:R, or baseline:K (error <= K x that of attncheck's plain reference kernel "
                  "at the same format)")
      ->capture_default_str();
  add_report_options(*app, *o,
                     {"schema attncheck-gate/1, schema_version 7: docs/report-schema.json",
                      "one testcase per test and dtype", "", "seed and inputs"});
  app->add_flag("--list-mutants", o->list_mutants, "List the built-in mutants and the tests that must catch them");
  app->add_flag("--list", o->list, "Print the checks the gate would run, one 'TEST_ID DTYPE' line each, and run none");
  add_jobs_option(*app, *o, "Worker processes (default 0: one per core); the verdicts and reports are the same for every N",
                  false);
  app->add_option("--shard", o->shard,
                  "Run only shard i of N (i/N, 1-based): every N-th check from the i-th, to split a gate across "
                  "CI machines; the N shards together run every check once");
  app->footer("Reports are written atomically (temporary file + rename) once the run has finished. SIGINT stops\n"
              "after the checks in progress, prints what finished and writes no report (exit 130; a second SIGINT\n"
              "quits at once); SIGTERM stops at once, writing nothing (exit 143).\n"
              "Colours only on a terminal, never with NO_COLOR set; the progress line only on a terminal, after\n"
              "a second (ATTNCHECK_PROGRESS_AFTER_MS=N: after N ms).\n"
              "Exit status: 0 all passed, 1 a check failed (or ERROR/GAVE-UP), 2 usage or contract errors.");
  return {app, [o, &global] { return run_gate(*o, global); }};
}

}  // namespace attncheck::cli
