// attncheck CLI: `attncheck bmc` — bounded model checking of the harnesses (harnesses/*.cpp) on
// the kernel templates at the symbolic scalar; a verdict per (harness, format), from this run.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "attncheck/bmc/axioms.hpp"
#include "attncheck/bmc/cvc5_cli.hpp"
#include "attncheck/bmc/engine.hpp"
#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/gappa_run.hpp"
#include "attncheck/bmc/regression.hpp"
#include "cli/bmc_witness.hpp"
#include "cli/cli.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {
namespace {

struct BmcOptions {
  std::vector<std::string> harnesses, formats;
  std::size_t bound = 0;
  std::string solver = "z3";
  double timeout = 60;
  // The non-triviality queries (bmc_witness.cpp) inform a row and decide no verdict: their own,
  // shorter budget. KANI-AEQ-002 at f32, m = 4, spent the whole 120 s of CI's --timeout on one
  // query that ended unknown (2026-11-28, a quarter of bmc.contract-bounds' 497 s); a row whose
  // query runs out says "not shown non-trivial" either way.
  double witness_timeout = 30;
  std::string json, mutant, replay, save_regression, replay_regressions, gappa_script;
  std::string witnesses;  // --witnesses DIR: recorded non-triviality witnesses (bmc_witness.hpp)
  bool exhaustive = false, list = false, lemmas = true, witness = true, validate_axioms = false;
  bool record_witnesses = false;
};

std::optional<Dtype> parse_format(const std::string& s) {
  for (Dtype f : bmc::all_formats())
    if (s == bmc::name_of(f)) return f;
  return std::nullopt;
}

// The value of one input, for the counterexample block.
std::string value_text(Dtype f, std::uint64_t b) {
  switch (f) {
    case Dtype::f16: return fmt::format("{:g}", to_double(scalar_traits<f16>::from_bits(b)));
    case Dtype::bf16: return fmt::format("{:g}", to_double(scalar_traits<bf16>::from_bits(b)));
    case Dtype::f32: return fmt::format("{:.9g}", to_double(scalar_traits<float>::from_bits(b)));
    case Dtype::e4m3: return fmt::format("{:g}", to_double(scalar_traits<e4m3>::from_bits(b)));
    case Dtype::e5m2: return fmt::format("{:g}", to_double(scalar_traits<e5m2>::from_bits(b)));
    case Dtype::e4m3sat: return fmt::format("{:g}", to_double(scalar_traits<e4m3sat>::from_bits(b)));
    case Dtype::f64:
    case Dtype::f16_f32:  // not a bmc format (bmc::all_formats())
    case Dtype::bf16_f32: break;
  }
  return fmt::format("{:.17g}", scalar_traits<double>::from_bits(b));
}

struct Row {
  bmc::run_result r;
  std::string bound_text;  // "d=8" (KANI-AEQ-002: "m=3", its bound counts keys), "all d", "scalar"
  std::string lemmas;      // for "all d" rows
  std::string lift;        // for "all d" rows: the Coq theorem that lifts the lemmas (contract's lift:)
  std::string covers;      // for "all d" rows: what the claim covers, when less than the harness checks
  // Non-triviality at this bound (bmc_witness.hpp): true when a mutant the harness catches is
  // refuted there through the asserted bound with finite values, false ("trivial at d = N") when
  // none is; nullopt when not assessed (a run with --mutant or --no-witness, a failed row).
  std::optional<bool> nontrivial;
  std::string witness;  // what shows it, or why not
};

bool row_passed(const Row& row) {
  return row.r.v == bmc::verdict::proved || row.r.v == bmc::verdict::exhaustive_pass;
}

std::string verdict_text(const Row& row) {
  const auto& r = row.r;
  switch (r.v) {
    case bmc::verdict::proved:
      return row.bound_text == "all d" ? "proved for all d by composition" : fmt::format("proved for all inputs, {}", row.bound_text);
    case bmc::verdict::exhaustive_pass: return fmt::format("exhaustive: passed on every input ({})", r.cases);
    default: return bmc::name_of(r.v);
  }
}

void print_counterexample(const bmc::run_result& r, const bmc::mutant_def* mutant) {
  std::vector<std::string> bits, values;
  for (std::size_t i = 0; i < r.input_bits.size(); ++i) {
    bits.push_back(fmt::format("{}=0x{:x}", i < r.inputs.size() ? r.inputs[i].name : "?", r.input_bits[i]));
    values.push_back(value_text(r.format, r.input_bits[i]));
  }
  std::cout << "    Input bits:  [" << join(bits, ", ") << "]\n";
  std::cout << "    Input:       [" << join(values, ", ") << "]\n";
  if (!r.failed_in_model.empty()) std::cout << "    Fails (model):   " << join(r.failed_in_model, "; ") << "\n";
  std::cout << "    Fails (kernel):  " << (r.failed_on_replay.empty() ? "nothing (stub artefact)" : join(r.failed_on_replay, "; ")) << "\n";
  std::cout << "    Replay: " << bmc::replay_command(r, mutant) << "\n";
}

// "solver" at the top is the solver asked for (--solver); each result names the one that answered.
std::string render_json(const std::vector<Row>& rows, const BmcOptions& o, const std::string& solver_text) {
  std::string s = "{\n  \"schema\": \"attncheck-bmc/1\",\n  \"solver\": " + json_quoted(solver_text) +
                  ",\n  \"mutant\": " + (o.mutant.empty() ? std::string("null") : json_quoted(o.mutant)) +
                  ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i].r;
    std::vector<std::string> bits;
    for (auto b : r.input_bits) bits.push_back(json_quoted(fmt::format("0x{:x}", b)));
    s += fmt::format(
        "    {{\"harness\": {}, \"format\": {}, \"bound\": {}, \"verdict\": {}, \"passed\": {}, \"reason\": {}, "
        "\"solver\": {}, \"seconds\": {:.3f}, \"assertions\": {}, \"axioms\": {}, \"assumptions_satisfiable\": {}, "
        "\"reachable_assertions\": {}, \"lemmas\": {}, \"lift\": {}, \"nontrivial\": {}, \"witness\": {}, "
        "\"counterexample_bits\": [{}]}}{}\n",
        json_quoted(r.id), json_quoted(bmc::name_of(r.format)), json_quoted(rows[i].bound_text),
        json_quoted(bmc::name_of(r.v)), row_passed(rows[i]) ? "true" : "false", json_quoted(r.reason),
        json_quoted(r.solver), r.seconds, r.assertions, r.axioms, r.assumptions_satisfiable ? "true" : "false",
        r.reachable_assertions, json_quoted(rows[i].lemmas),
        rows[i].lift.empty() ? std::string("null") : json_quoted(rows[i].lift),
        !rows[i].nontrivial ? "null" : *rows[i].nontrivial ? "true" : "false", json_quoted(rows[i].witness),
        join(bits, ", "), i + 1 < rows.size() ? "," : "");
  }
  return s + "  ]\n}\n";
}

int list_harnesses() {
  for (const auto& h : bmc::harnesses()) {
    std::cout << h.id << (h.lemma ? "  (lemma)" : "") << "\n  " << h.property << "\n";
    if (!h.lemmas.empty())
      std::cout << "  all d from: " << join(h.lemmas, ", ") << "\n  composition: " << h.composition
                << "\n  (machine-checked by the Coq theorem its contract names under lift:)\n";
  }
  for (const auto& h : bmc::gappa_harnesses())
    std::cout << h.id << "  (gappa)\n  " << h.property << "\n  inputs: " << h.ranges << "\n";
  std::cout << "\nmutants:\n";
  for (const auto& m : bmc::mutants())
    std::cout << m.name << "\n  " << m.description << "\n  must be caught by: " << join(m.caught_by, ", ") << "\n";
  for (const auto& m : bmc::gappa_mutants())
    std::cout << m.name << "  (gappa)\n  " << m.description << "\n  must make gappa fail: " << join(m.caught_by, ", ") << "\n";
  return exit_pass;
}

// The longest row (d) a harness is encoded at. The symbolic run and the exp/log axioms are built
// in full before Z3's timeout applies, growing linearly with d; tools/bmc-scaling.sh shows the
// solver timing out long before this, so a larger d buys nothing but the risk of exhausting memory.
constexpr std::size_t max_bound = 64;
// The 8-bit formats are enumerated up to d = 3 (256^3 = 16.7M rows per harness, a few seconds).
constexpr std::size_t exhaustive_max_d = 3;
// Gappa's scripts grow linearly with d (2d inputs, 2d + 2 roundings) and need no bit-blasting:
// d = 256 takes seconds. The limit only keeps a typo from building a huge script.
constexpr std::size_t gappa_max_bound = 4096;

std::optional<std::vector<std::uint64_t>> parse_bits(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.rfind("0x", 0) == 0) item = item.substr(2);
    if (item.empty() || item.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || item.size() > 16)
      return std::nullopt;
    out.push_back(std::strtoull(item.c_str(), nullptr, 16));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// Every case of a regression corpus replayed on the concrete kernel (no solver).
int replay_regressions(const std::string& dir) {
  const bmc::corpus_result corpus = bmc::read_corpus(dir);
  for (const auto& e : corpus.errors) std::cerr << "error: " << e << "\n";
  if (corpus.cases.empty() && corpus.errors.empty()) {
    std::cerr << "error: " << dir << " holds no *.case files\n";
    return exit_usage;
  }
  int failed = 0;
  for (const auto& c : corpus.cases) {
    const bmc::case_replay r = bmc::replay_case(c);
    std::string what;
    if (!r.known_harness) what = "unknown harness '" + c.harness + "'";
    else if (!r.known_mutant) what = "unknown mutant '" + c.mutant + "'";
    else if (!r.on_reference.assumptions_hold) what = "the bits violate the harness's assumptions";
    else if (!r.on_reference.failed.empty()) what = "reference kernel FAILS: " + join(r.on_reference.failed, "; ");
    else if (r.has_mutant && r.on_mutant.failed.empty()) what = "stale: the mutant " + c.mutant + " passes it now";
    else what = r.has_mutant ? "reference passes, mutant " + c.mutant + " fails: " + join(r.on_mutant.failed, "; ")
                             : "reference passes";
    std::cout << (r.passed() ? "ok      " : "FAILED  ") << c.source << "\n        " << c.harness << " ["
              << bmc::name_of(c.format) << ", d=" << c.bound << "]: " << what << "\n";
    failed += r.passed() ? 0 : 1;
  }
  std::cout << "\n" << corpus.cases.size() - failed << " of " << corpus.cases.size() << " regression cases pass"
            << (corpus.errors.empty() ? "" : fmt::format(", {} unreadable", corpus.errors.size())) << "\n";
  return failed == 0 && corpus.errors.empty() ? exit_pass : exit_fail;
}

// Writes a counterexample as a regression case; says where (or why not).
void save_case(const std::string& dir, const bmc::run_result& r, const bmc::mutant_def* mutant) {
  const bmc::regression_case c = bmc::case_of(r, mutant);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (std::filesystem::path(dir) / bmc::case_file_name(c)).string();
  try {
    write_atomically(path, bmc::render_case(c));
    std::cout << "    Saved regression case: " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: cannot save the regression case to " << path << ": " << e.what() << "\n";
  }
}

// What a run does, decided from the options before anything is proved: the solver, the harnesses,
// the mutant, the formats and the bounds the contracts record.
struct BmcPlan {
  bmc::solver_choice solver = bmc::solver_choice::z3;
  bool gappa_only = false;  // --solver gappa: only the Gappa harnesses (which always run on gappa)
  std::vector<const bmc::harness_def*> selected;
  std::vector<const bmc::gappa_harness_def*> gappa_selected;
  const bmc::mutant_def* mutant = nullptr;
  const bmc::gappa_mutant_def* gappa_mutant = nullptr;
  std::vector<Dtype> formats;
  bool formats_given = false;
  std::optional<contract::LoadResult> loaded;  // `recorded` points into it
  std::map<std::string, const contract::Harness*> recorded;
  std::map<std::string, std::string> lifts;  // harness ID -> its contract's `lift:` (Coq theorem)
  std::string solver_text;
  WitnessRecord witnesses;  // --witnesses DIR, read before the run
};

// --witnesses DIR: every DIR/*.case read (a malformed one is a usage error, not skipped); a
// missing DIR is an error unless --record-witnesses will create it.
bool plan_witnesses(const BmcOptions& o, BmcPlan& p) {
  if (o.record_witnesses && o.witnesses.empty()) {
    std::cerr << "error: --record-witnesses needs --witnesses DIR (where to write them)\n";
    return false;
  }
  if (o.witnesses.empty()) return true;
  p.witnesses.dir = o.witnesses;
  p.witnesses.record = o.record_witnesses;
  std::error_code ec;
  if (!std::filesystem::is_directory(o.witnesses, ec)) {
    if (o.record_witnesses) return true;
    std::cerr << "error: --witnesses " << o.witnesses << ": not a directory\n";
    return false;
  }
  bmc::corpus_result corpus = bmc::read_corpus(o.witnesses);
  for (const auto& e : corpus.errors) std::cerr << "error: --witnesses: " << e << "\n";
  if (!corpus.errors.empty()) return false;
  p.witnesses.cases = std::move(corpus.cases);
  return true;
}

bool plan_solver(const BmcOptions& o, BmcPlan& p) {
  p.gappa_only = o.solver == "gappa";
  if (o.solver == "cvc5") p.solver = bmc::solver_choice::cvc5;
  else if (o.solver == "portfolio") p.solver = bmc::solver_choice::portfolio;
  else if (o.solver != "z3" && !p.gappa_only) {
    std::cerr << "error: unknown --solver '" << o.solver << "'; choose z3, cvc5, portfolio or gappa\n";
    return false;
  }
  if (p.solver != bmc::solver_choice::z3 && !bmc::cvc5_binary()) {
    std::cerr << "error: --solver " << o.solver << " needs the cvc5 binary on PATH (Debian: apt-get install cvc5)\n";
    return false;
  }
  if (!(o.timeout > 0) || !(o.witness_timeout > 0)) {
    std::cerr << "error: --timeout and --witness-timeout must be positive numbers of seconds\n";
    return false;
  }
  return true;
}

// The harnesses named by --harness (SMT and Gappa), checked against --solver and --mutant; none
// named: every harness the solver and the mutant concern.
bool plan_harnesses(const BmcOptions& o, BmcPlan& p) {
  for (const auto& id : o.harnesses) {
    if (const bmc::gappa_harness_def* g = bmc::find_gappa_harness(id)) {
      p.gappa_selected.push_back(g);
      continue;
    }
    const bmc::harness_def* h = bmc::find_harness(id);
    if (!h) {
      std::vector<std::string> ids;
      for (const auto& x : bmc::harnesses()) ids.push_back(x.id);
      for (const auto& x : bmc::gappa_harnesses()) ids.push_back(x.id);
      const std::string near = closest(id, ids);
      std::cerr << "error: unknown harness '" << id << "'" << (near.empty() ? "" : "; did you mean '" + near + "'?")
                << " (attncheck bmc --list)\n";
      return false;
    }
    p.selected.push_back(h);
  }
  if (!o.mutant.empty() && !bmc::find_mutant(o.mutant)) p.gappa_mutant = bmc::find_gappa_mutant(o.mutant);
  if (p.gappa_only && !p.selected.empty()) {
    std::cerr << "error: --solver gappa runs only the Gappa harnesses (GAPPA-...), not " << p.selected[0]->id << "\n";
    return false;
  }
  if (p.gappa_mutant && !p.selected.empty()) {
    std::cerr << "error: mutant '" << o.mutant << "' applies to the Gappa harnesses only, not " << p.selected[0]->id << "\n";
    return false;
  }
  if (!o.mutant.empty() && !p.gappa_mutant && bmc::find_mutant(o.mutant) && !p.gappa_selected.empty()) {
    std::cerr << "error: mutant '" << o.mutant << "' is a kernel of the SMT harnesses; " << p.gappa_selected[0]->id
              << " has its own mutants (attncheck bmc --list)\n";
    return false;
  }
  if (p.selected.empty() && p.gappa_selected.empty()) {
    // Every harness; a mutant or --solver gappa restricts to the harnesses it concerns.
    if (!p.gappa_only && !p.gappa_mutant)
      for (const auto& h : bmc::harnesses())
        if (!h.lemma) p.selected.push_back(&h);
    if (o.mutant.empty() || p.gappa_mutant)
      for (const auto& h : bmc::gappa_harnesses()) p.gappa_selected.push_back(&h);
  }
  if (!p.gappa_selected.empty() && !bmc::gappa_binary()) {
    std::cerr << "error: the Gappa harnesses need the gappa binary on PATH (Debian: apt-get install gappa)\n";
    return false;
  }
  if (!o.gappa_script.empty() && (p.gappa_selected.size() != 1 || !p.selected.empty() || o.formats.size() != 1)) {
    std::cerr << "error: --gappa-script takes exactly one Gappa --harness and one --format\n";
    return false;
  }
  if (o.bound > gappa_max_bound && !p.gappa_selected.empty()) {
    std::cerr << "error: --bound " << o.bound << " is larger than " << gappa_max_bound
              << ", the longest row a Gappa harness is recorded at\n";
    return false;
  }
  if (o.bound > max_bound && !p.selected.empty()) {
    std::cerr << "error: --bound " << o.bound << " is larger than " << max_bound << ", the longest row attncheck bmc encodes: "
              << "the formula is built in full before --timeout can act, so d = " << o.bound
              << " would exhaust memory rather than time out (the contracts record bounds up to 8)\n";
    return false;
  }
  return true;
}

bool plan_mutant_and_formats(const BmcOptions& o, BmcPlan& p) {
  if (!o.mutant.empty() && !p.gappa_mutant) {
    p.mutant = bmc::find_mutant(o.mutant);
    if (!p.mutant) {
      std::vector<std::string> names;
      for (const auto& m : bmc::mutants()) names.push_back(m.name);
      for (const auto& m : bmc::gappa_mutants()) names.push_back(m.name);
      const std::string near = closest(o.mutant, names);
      std::cerr << "error: unknown mutant '" << o.mutant << "'" << (near.empty() ? "" : "; did you mean '" + near + "'?")
                << " (attncheck bmc --list)\n";
      return false;
    }
  }
  for (const auto& f : o.formats) {
    const auto id = parse_format(f);
    if (!id) {
      std::cerr << "error: unknown --format '" << f << "'; choose f16, bf16, f32, f64, e4m3, e4m3sat or e5m2\n";
      return false;
    }
    p.formats.push_back(*id);
  }
  p.formats_given = !p.formats.empty();
  if (!p.formats_given) p.formats = {Dtype::f16, Dtype::bf16, Dtype::f32};
  return true;
}

// The bound per (harness, format): --bound, else the contract's `reached`, else its `bound`,
// else the harness's default. The contracts are read only for that.
bool plan_recorded_bounds(const Global& global, const BmcOptions& o, BmcPlan& p) {
  if (o.bound) {
    // --bound: the contracts only name the Coq lifts of the all-d rows (none readable: none named).
    std::error_code ec;
    if (std::filesystem::is_directory(global.contracts_dir, ec))
      if (const auto loaded = contract::load_directory(global.contracts_dir); loaded.ok())
        for (const auto& c : loaded.contracts)
          for (const auto& h : c.harnesses) p.lifts[h.id] = h.lift;
    return true;
  }
  p.loaded = load_or_report(global.contracts_dir, false);
  if (!p.loaded) return false;
  for (const auto& c : p.loaded->contracts)
    for (const auto& h : c.harnesses) {
      p.lifts[h.id] = h.lift;
      p.recorded[h.id] = &h;
      std::vector<int> bounds{h.bound};
      for (const auto& [f, b] : h.reached) bounds.push_back(b);
      const std::size_t limit = bmc::find_gappa_harness(h.id) ? gappa_max_bound : max_bound;
      for (int b : bounds)
        if (b > 0 && static_cast<std::size_t>(b) > limit) {
          std::cerr << h.where.file << ":" << h.where.line << ": error: " << h.id << " records bound " << b
                    << ", larger than " << limit << ", the longest row attncheck bmc encodes\n";
          return false;
        }
    }
  return true;
}

std::size_t bound_for(const BmcOptions& o, const BmcPlan& p, const bmc::harness_def& h, Dtype f) {
  if (o.bound) return o.bound;
  if (h.lemma) return 1;
  const auto it = p.recorded.find(h.id);
  if (it != p.recorded.end()) {
    const auto r = it->second->reached.find(bmc::name_of(f));
    if (r != it->second->reached.end() && r->second > 0) return static_cast<std::size_t>(r->second);
  }
  // 8-bit formats: every input, at the longest row d <= 3 that fits the enumeration.
  if (is_8bit(f)) return bmc::exhaustive_bound(h, f, exhaustive_max_d);
  if (it != p.recorded.end() && it->second->bound > 0) return static_cast<std::size_t>(it->second->bound);
  return 0;  // no bound recorded: nothing is claimed
}

// The contracts are the only place a harness's bound is written: a harness none of them records
// runs only with --bound (its rows say so).
std::string no_bound_reason(const std::string& id) {
  return fmt::format("no bound: {} has no bound: in the contracts (or pass --bound)", id);
}

// Without --format (and --bound), a harness whose contract records `reached:` runs at exactly
// the formats recorded there: a format the record leaves out was not claimed.
bool runs_at(const BmcOptions& o, const BmcPlan& p, const bmc::harness_def& h, Dtype f) {
  if (p.formats_given || o.bound) return true;
  const auto it = p.recorded.find(h.id);
  if (it == p.recorded.end() || it->second->reached.empty()) return true;
  return it->second->reached.count(bmc::name_of(f)) > 0;
}

// --replay: the given input bits on the concrete kernel of the one harness and format.
int replay_bits(const BmcOptions& o, const BmcPlan& p) {
  const auto bits = parse_bits(o.replay);
  if (!bits || p.selected.size() != 1 || !p.gappa_selected.empty() || p.formats.size() != 1) {
    std::cerr << "error: --replay takes comma-separated hex bits and exactly one --harness and one --format\n";
    return exit_usage;
  }
  const bmc::harness_def& h = *p.selected[0];
  const Dtype f = p.formats[0];
  const std::size_t b = bound_for(o, p, h, f);
  if (b == 0) {
    std::cerr << "error: " << no_bound_reason(h.id) << "\n";
    return exit_usage;
  }
  if (!h.lemma && b < h.min_bound) {
    std::cerr << "error: " << h.id << " needs --bound >= " << h.min_bound << "\n";
    return exit_usage;
  }
  const bmc::replay_result r = bmc::replay(h, f, b, *bits, p.mutant);
  std::cout << h.id << " [" << bmc::name_of(f) << ", d=" << b << "] on the concrete "
            << (p.mutant ? "mutant " + p.mutant->name : std::string("reference kernel")) << ": ";
  if (!r.assumptions_hold) {
    std::cout << "the input violates the harness's assumptions\n";
    return exit_usage;
  }
  std::cout << (r.failed.empty() ? "passes" : "FAILS: " + join(r.failed, "; ")) << "\n";
  return r.failed.empty() ? exit_pass : exit_fail;
}

std::string solver_text_of(const BmcPlan& p) {
  return p.gappa_only                             ? bmc::gappa_version()
         : p.solver == bmc::solver_choice::z3     ? bmc::solver_version()
         : p.solver == bmc::solver_choice::cvc5   ? bmc::cvc5_version()
         : "portfolio (" + bmc::solver_version() + " + " + bmc::cvc5_version() + ")";
}

// Runs the planned harnesses, printing each row as it is judged.
class BmcRun {
 public:
  BmcRun(const BmcOptions& o, const BmcPlan& p) : o_(o), p_(p) {}

  void print_header() const {
    std::cout << "attncheck " ATTNCHECK_VERSION "  bmc  solver " << p_.solver_text
              << (p_.gappa_selected.empty() || p_.gappa_only ? "" : " (GAPPA-*: " + bmc::gappa_version() + ")")
              << "  timeout " << o_.timeout << " s per harness" << (!o_.mutant.empty() ? "  mutant " + o_.mutant : "")
              << "\n\n";
    std::cout << fmt::format("{:<14} {:<5} {:<6} {:<40} {:>8}  {}\n", "harness", "fmt", "bound", "verdict", "time", "solver");
  }

  void run_smt(const bmc::harness_def& h, Dtype f) {
    if (!runs_at(o_, p_, h, f)) return;
    // `reached: {f16: all-d}`: no whole-vector bound finished at this format; only the all-d
    // composition is claimed (and run) there.
    const auto rec = p_.recorded.find(h.id);
    const bool lemmas_only = !o_.bound && !h.lemmas.empty() && rec != p_.recorded.end() &&
                             rec->second->reached.count(bmc::name_of(f)) && rec->second->reached.at(bmc::name_of(f)) == 0;
    bmc::run_options ro;
    ro.bound = bound_for(o_, p_, h, f);
    ro.timeout_seconds = o_.timeout;
    ro.mutant = p_.mutant;
    ro.solver = p_.solver;
    Row row;
    const bool enumerate = o_.exhaustive || is_8bit(f);
    if (lemmas_only) {
      row.r.v = bmc::verdict::proved;  // no whole-vector row: only the composition below
    } else if (enumerate && ro.bound == 0) {  // no row length small enough to enumerate
      row.r.id = h.id;
      row.r.format = f;
      row.r.v = bmc::verdict::unsupported;
      row.r.reason = "its inputs at d = 1 are more than 24 bits: too many to enumerate";
    } else if (ro.bound == 0) {
      row.r.id = h.id;
      row.r.format = f;
      row.r.v = bmc::verdict::unsupported;
      row.r.reason = no_bound_reason(h.id);
    } else if (!h.lemma && ro.bound < h.min_bound) {
      // e.g. KANI-AEQ-001 swaps x_0 and x_1: at d = 1 its body would read past the row.
      row.r.id = h.id;
      row.r.format = f;
      row.r.v = bmc::verdict::unsupported;
      row.r.reason = fmt::format("{} needs {} >= {}", h.id, h.bound_name, h.min_bound);
    } else {
      row.r = enumerate ? bmc::exhaustive(h, f, ro) : bmc::prove(h, f, ro);
    }
    row.bound_text = h.lemma ? "scalar" : ro.bound ? fmt::format("{}={}", h.bound_name, ro.bound) : "-";
    if (!lemmas_only && row_passed(row) && !h.lemma) assess_smt(row, h, f, ro.bound, enumerate);
    if (!lemmas_only) add(row);
    // (An 8-bit format composes lemmas each enumerated over every value of the format.)
    if ((o_.exhaustive && !is_8bit(f)) || !o_.lemmas || h.lemmas.empty() || row.r.v == bmc::verdict::unsupported)
      return;
    Row all = compose_lemmas(h, f, ro);
    // The all-d claim includes every d: it is non-trivial where the harness is at its recorded
    // bound (the row above, or, with only the composition claimed, the contract's bound:).
    if (row_passed(all)) {
      const std::size_t b = lemmas_only ? recorded_bound(h) : ro.bound;
      if (b) assess_smt(all, h, f, b, enumerate);
      else all.witness = "not assessed: no bound recorded to look for a witness at";
    }
    add(all);
  }

  // Gappa harnesses: one script per (harness, format) at the recorded bound; gappa proves the
  // derived error bound or reports its best enclosure. No lemmas, no replay: no counterexample.
  void run_gappa(const bmc::gappa_harness_def& g, Dtype f) {
    // Not asked for by name: skip what a Gappa harness cannot do (8-bit formats, enumeration).
    if ((!bmc::gappa_supports(f) || o_.exhaustive) && o_.harnesses.empty()) return;
    const auto rec = p_.recorded.find(g.id);
    if (!p_.formats_given && !o_.bound && rec != p_.recorded.end() && !rec->second->reached.empty() &&
        !rec->second->reached.count(bmc::name_of(f)))
      return;
    std::size_t d = o_.bound;
    if (!d && rec != p_.recorded.end()) {
      const auto r = rec->second->reached.find(bmc::name_of(f));
      d = r != rec->second->reached.end() && r->second > 0 ? static_cast<std::size_t>(r->second)
          : rec->second->bound > 0                          ? static_cast<std::size_t>(rec->second->bound)
                                                            : 0;
    }
    Row row;
    if (!d) {
      row.r.id = g.id;
      row.r.format = f;
      row.r.v = bmc::verdict::unsupported;
      row.r.reason = no_bound_reason(g.id);
    } else if (o_.exhaustive) {
      row.r.id = g.id;
      row.r.format = f;
      row.r.v = bmc::verdict::unsupported;
      row.r.reason = "a Gappa harness is proved over input ranges, not enumerated";
    } else {
      std::string script;
      row.r = bmc::prove_gappa(g, f, d, o_.timeout, p_.gappa_mutant ? p_.gappa_mutant->name : "", &script);
      if (!o_.gappa_script.empty()) write_atomically(o_.gappa_script, script);
    }
    row.bound_text = d ? fmt::format("d={}", d) : "-";
    if (row_passed(row) && assessing()) {
      const Witness w = gappa_witness(g, f, d, witness_seconds());
      row.nontrivial = w.nontrivial;
      row.witness = w.text;
    }
    add(row);
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  // Witnesses are looked for in a plain run: not on a mutant, not with --no-witness.
  bool assessing() const { return o_.witness && o_.mutant.empty(); }
  double witness_seconds() const { return std::min(o_.timeout, o_.witness_timeout); }

  std::size_t recorded_bound(const bmc::harness_def& h) const {
    const auto it = p_.recorded.find(h.id);
    return it == p_.recorded.end() || it->second->bound <= 0 ? 0
                                                             : std::max<std::size_t>(h.min_bound, it->second->bound);
  }

  // Non-triviality of a proved row at bound (bmc_witness.hpp), once per (harness, format, bound).
  void assess_smt(Row& row, const bmc::harness_def& h, Dtype f, std::size_t bound, bool enumerate) {
    if (!assessing()) return;
    const auto key = std::make_tuple(h.id, static_cast<int>(f), bound);
    if (!witness_cache_.count(key))
      witness_cache_[key] = smt_witness(h, f, bound, enumerate, p_.solver, witness_seconds(),
                                        o_.witnesses.empty() ? nullptr : &p_.witnesses);
    row.nontrivial = witness_cache_[key].nontrivial;
    row.witness = witness_cache_[key].text;
  }

  // The all-d claim: every lemma of the composition proved in this run.
  Row compose_lemmas(const bmc::harness_def& h, Dtype f, const bmc::run_options& ro) {
    Row all;
    all.r.id = h.id;
    all.r.format = f;
    std::vector<std::string> answered;  // the solvers that answered the lemmas, each once
    all.bound_text = "all d";
    all.r.v = bmc::verdict::proved;
    std::vector<std::string> status;
    for (const auto& lid : h.lemmas) {
      const bmc::harness_def* l = bmc::find_harness(lid);
      auto key = std::make_pair(lid, static_cast<int>(f));
      if (!lemma_cache_.count(key)) {
        bmc::run_options lo = ro;
        lo.bound = 1;
        lemma_cache_[key] = !l ? bmc::run_result{} : is_8bit(f) ? bmc::exhaustive(*l, f, lo) : bmc::prove(*l, f, lo);
      }
      const bmc::run_result& lr = lemma_cache_[key];
      const bool lemma_holds = lr.v == bmc::verdict::proved || lr.v == bmc::verdict::exhaustive_pass;
      all.r.seconds += lr.seconds;
      if (!lr.solver.empty() && std::find(answered.begin(), answered.end(), lr.solver) == answered.end())
        answered.push_back(lr.solver);
      status.push_back(lid + (lemma_holds ? "" : std::string(" ") + bmc::name_of(lr.v)));
      if (!lemma_holds) {  // the composition fails here: no need for the rest
        all.r.v = lr.v == bmc::verdict::unsupported ? bmc::verdict::unsupported : bmc::verdict::unknown;
        all.r.reason = fmt::format("lemma {} not proved: {} {}", lid, bmc::name_of(lr.v), lr.reason);
        break;
      }
    }
    all.lemmas = join(status, ", ");
    all.covers = h.all_d_covers;
    all.r.solver = answered.empty() ? p_.solver_text : join(answered, " + ");
    const auto lift = p_.lifts.find(h.id);
    all.lift = lift != p_.lifts.end() ? lift->second : "";
    if (all.r.v != bmc::verdict::proved) return all;
    // The lemmas hold; "all d" also needs the induction, machine-checked: a Coq theorem over
    // IEEE-754 binary formats (Flocq) that CI builds (proofs.coq.build, proofs.links).
    if (all.lift.empty()) {
      all.r.v = bmc::verdict::unknown;
      all.r.reason = "the lemmas hold, but no Coq theorem lifts them to every d (its contract names no lift:)";
    } else if (f == Dtype::e4m3 || f == Dtype::e4m3sat) {
      all.r.v = bmc::verdict::unsupported;
      all.r.reason = fmt::format("the lemmas hold, but {} lifts them over IEEE-754 binary formats, and {}'s values are "
                                 "not one (no infinities): no all-d claim", all.lift, bmc::name_of(f));
    }
    return all;
  }

  void add(const Row& row) {
    rows_.push_back(row);
    print_row(rows_.back());
  }

  void print_row(const Row& row) const {
    std::cout << fmt::format("{:<14} {:<5} {:<6} {:<40} {:>7.2f}s  {}\n", row.r.id, bmc::name_of(row.r.format),
                             row.bound_text, verdict_text(row), row.r.seconds, row.r.solver);
    if (!row.lemmas.empty()) std::cout << "    lemmas: " << row.lemmas << "\n";
    if (!row.lift.empty()) std::cout << "    lift (Coq): " << row.lift << "\n";
    if (!row.covers.empty()) std::cout << "    all d covers: " << row.covers << "\n";
    if (!row.witness.empty()) std::cout << "    " << row.witness << "\n";
    if (!row_passed(row) && !row.r.reason.empty() && row.r.v != bmc::verdict::counterexample)
      std::cout << "    " << row.r.reason << "\n";
    if (row.r.v == bmc::verdict::counterexample || row.r.v == bmc::verdict::stub_artefact ||
        row.r.v == bmc::verdict::exhaustive_fail)
      print_counterexample(row.r, p_.mutant);
    if ((row.r.v == bmc::verdict::counterexample || row.r.v == bmc::verdict::exhaustive_fail) &&
        !o_.save_regression.empty())
      save_case(o_.save_regression, row.r, p_.mutant);
    std::cout.flush();
  }

  const BmcOptions& o_;
  const BmcPlan& p_;
  std::vector<Row> rows_;
  std::map<std::pair<std::string, int>, bmc::run_result> lemma_cache_;
  std::map<std::tuple<std::string, int, std::size_t>, Witness> witness_cache_;
};

int report_bmc(const BmcOptions& o, const BmcPlan& p, const std::vector<Row>& rows) {
  int passed = 0;
  for (const auto& r : rows) passed += row_passed(r) ? 1 : 0;
  std::size_t trivial = 0;
  for (const auto& r : rows) trivial += r.nontrivial && !*r.nontrivial ? 1 : 0;
  std::cout << "\n" << passed << " proved, " << rows.size() - passed << " not proved";
  if (trivial) std::cout << "; " << trivial << " proved row(s) trivial at their bound (not coverage)";
  std::cout << "\n";
  if (!o.json.empty()) write_atomically(o.json, render_json(rows, o, p.solver_text));
  return passed == static_cast<int>(rows.size()) ? exit_pass : exit_fail;
}

// The exp/log axioms the SMT harnesses rest on (bmc/axioms.hpp) hold for this process's libm
// only if validated on it. f16 and bf16: every input, now (milliseconds). f32: every one of the
// 2^32 inputs takes about 2 minutes on 2 cores, so by default the run says it relies on the test
// suite's BMC-AXIOMS-F32 (the machine that built attncheck) and --validate-axioms does it here.
// Returns the line printed after the summary, or an error (empty ok) when an axiom fails.
template <class C>
std::string validate_here(std::string& error) {
  const bmc::validation_report r = bmc::validate_axioms<C>(std::max(1u, std::thread::hardware_concurrency()));
  for (const bmc::axiom_failure& f : r.failures)
    error += fmt::format("error: the {} axiom '{}' fails on this libm at {} ({} inputs, the first 0x{:x}): no exp/log "
                         "harness at {} can be proved here\n",
                         f.function, f.axiom, r.format, f.count, f.first_bits, r.format);
  return r.format + " (every input)";  // no time: the line is compared in docs/bmc.md's transcript
}

std::string validate_axioms_for(const BmcOptions& o, const BmcPlan& p, std::string& error) {
  std::set<Dtype> used;
  for (const bmc::harness_def* h : p.selected)
    if (h->uses_transcendentals)
      for (Dtype f : p.formats) used.insert(f);
  std::vector<std::string> here;
  if (used.count(Dtype::f16)) here.push_back(validate_here<f16>(error));
  if (used.count(Dtype::bf16)) here.push_back(validate_here<bf16>(error));
  const bool f32_here = used.count(Dtype::f32) && o.validate_axioms;
  if (f32_here) here.push_back(validate_here<float>(error));
  std::string line;
  if (!here.empty()) line = "exp/log axioms validated on this libm in this run: " + join(here, ", ");
  if (used.count(Dtype::f32) && !f32_here)
    line += std::string(line.empty() ? "exp/log axioms" : ";") +
            " f32: validated by the test suite (BMC-AXIOMS-F32, every input) where attncheck was built, not in "
            "this run (--validate-axioms does it here, about 2 min on 2 cores)";
  return line;
}

int run_bmc(const Global& global, const BmcOptions& o) {
  if (o.list) return list_harnesses();
  if (!o.replay_regressions.empty()) return replay_regressions(o.replay_regressions);
  BmcPlan p;
  if (!plan_solver(o, p) || !plan_harnesses(o, p) || !plan_mutant_and_formats(o, p) ||
      !plan_recorded_bounds(global, o, p) || !plan_witnesses(o, p))
    return exit_usage;
  if (!o.replay.empty()) return replay_bits(o, p);
  p.solver_text = solver_text_of(p);
  std::string axiom_error;
  const std::string axioms = validate_axioms_for(o, p, axiom_error);
  if (!axiom_error.empty()) {
    std::cerr << axiom_error;
    return exit_fail;
  }
  BmcRun run(o, p);
  run.print_header();
  for (const bmc::harness_def* h : p.selected)
    for (Dtype f : p.formats) run.run_smt(*h, f);
  for (const bmc::gappa_harness_def* g : p.gappa_selected)
    for (Dtype f : p.formats) run.run_gappa(*g, f);
  const int status = report_bmc(o, p, run.rows());
  if (!axioms.empty()) std::cout << axioms << "\n";
  return status;
}

}  // namespace

Command setup_bmc(CLI::App& parent, const Global& global) {
  auto o = std::make_shared<BmcOptions>();
  CLI::App* app = parent.add_subcommand(
      "bmc", "Bounded model checking: prove the harnesses on the kernel templates at a symbolic IEEE scalar (Z3, cvc5), and rounding-error bounds over input ranges (Gappa)");
  app->add_option("--harness", o->harnesses,
                  "Harness ID to run (repeatable; default: every non-lemma harness, the GAPPA-* ones included)");
  app->add_option("--format", o->formats,
                  "f16, bf16, f32, f64, e4m3, e4m3sat (E4M3 with OCP's saturating conversion) or e5m2 (repeatable; "
                  "default f16 bf16 f32). The 8-bit OCP formats "
                  "run on the concrete kernel over every input (d <= 3), their lemmas over every value");
  app->add_option("--bound", o->bound, "Row length d (KANI-AEQ-002: the number of keys m; rows say which) (default: the contract's reached bound per format)");
  app->add_option("--solver", o->solver,
                  "z3 (in-process), cvc5 (the cvc5 CLI on Z3's SMT-LIB2 export), portfolio (both at once, the "
                  "first definite answer counts; the row says which solver gave it), or gappa (only the GAPPA-* "
                  "harnesses, which always run on the gappa CLI)")
      ->capture_default_str();
  app->add_option("--timeout", o->timeout, "Seconds per harness and format")->capture_default_str();
  app->add_option("--witness-timeout", o->witness_timeout,
                  "Seconds per non-triviality query (at most --timeout); a query that runs out leaves the row "
                  "'not shown non-trivial', never changes its verdict")
      ->capture_default_str();
  app->add_option("--json", o->json, "Write a JSON report (schema attncheck-bmc/1) to FILE");
  app->add_option("--mutant", o->mutant,
                  "Run on a broken kernel, or (Gappa harnesses) with a too-tight claimed bound (attncheck bmc --list)");
  app->add_option("--gappa-script", o->gappa_script, "Write the Gappa script of the one Gappa --harness and --format to FILE");
  app->add_option("--replay", o->replay, "Replay comma-separated hex input bits on the concrete kernel");
  app->add_option("--save-regression", o->save_regression,
                  "Save every counterexample (real, i.e. failing on the concrete kernel) as a regression case in DIR");
  app->add_option("--replay-regressions", o->replay_regressions,
                  "Replay every DIR/*.case on the concrete kernel: the reference must pass, a named mutant must fail");
  app->add_option("--witnesses", o->witnesses,
                  "Recorded non-triviality witnesses, DIR/*.case: a proved row whose recorded witness still "
                  "fails its mutant is non-trivial without a solver query; the others are searched (CI: "
                  "tests/bmc/witnesses)");
  app->add_flag("--record-witnesses", o->record_witnesses,
                "Write each witness a search finds to the --witnesses DIR (refreshes a stale record)");
  app->add_flag("--exhaustive", o->exhaustive, "Enumerate every input on the concrete kernel (<= 24 input bits)");
  app->add_flag("!--no-lemmas", o->lemmas, "Skip the per-element lemmas (no 'all d' rows)");
  app->add_flag("!--no-witness", o->witness,
                "Do not look for a non-triviality witness (a caught mutant refuted through the asserted bound with "
                "finite values at the row's bound) for each proved row; rows then say nothing of it");
  app->add_flag("--validate-axioms", o->validate_axioms,
                "Also validate the exp/log axioms of f32 on this libm, all 2^32 inputs (f16 and bf16 are validated "
                "in every run; f32's otherwise by the test suite where attncheck was built)");
  app->add_flag("--list", o->list, "List the harnesses, lemmas and mutants");
  app->footer("Exit status: 0 every harness proved, 1 a counterexample, timeout or vacuous harness, 2 usage errors.");
  return {app, [&global, o] { return run_bmc(global, *o); }};
}

}  // namespace attncheck::cli
