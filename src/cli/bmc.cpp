// attncheck CLI: `attncheck bmc` — bounded model checking of the harnesses (harnesses/*.cpp) on
// the kernel templates at the symbolic scalar; a verdict per (harness, format), from this run.
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "attncheck/bmc/engine.hpp"
#include "cli/cli.hpp"

namespace attncheck::cli {
namespace {

struct BmcOptions {
  std::vector<std::string> harnesses, formats;
  std::size_t bound = 0;
  std::string solver = "z3";
  double timeout = 60;
  std::string json, mutant, replay;
  bool exhaustive = false, list = false, lemmas = true;
};

std::string json_quoted(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", c);
    else o += c;
  }
  return o + "\"";
}

std::optional<bmc::fmt_id> parse_format(const std::string& s) {
  for (bmc::fmt_id f : bmc::all_formats())
    if (s == bmc::name_of(f)) return f;
  return std::nullopt;
}

// The value of one input, for the counterexample block.
std::string value_text(bmc::fmt_id f, std::uint64_t b) {
  switch (f) {
    case bmc::fmt_id::f16: return fmt::format("{:g}", to_double(scalar_traits<f16>::from_bits(b)));
    case bmc::fmt_id::bf16: return fmt::format("{:g}", to_double(scalar_traits<bf16>::from_bits(b)));
    case bmc::fmt_id::f32: return fmt::format("{:.9g}", to_double(scalar_traits<float>::from_bits(b)));
    case bmc::fmt_id::f64: break;
  }
  return fmt::format("{:.17g}", scalar_traits<double>::from_bits(b));
}

struct Row {
  bmc::run_result r;
  std::string bound_text;  // "d=8", "all d", "d=1 (every input)"
  std::string lemmas;      // for "all d" rows
};

bool row_passed(const Row& row) {
  return row.r.v == bmc::verdict::proved || row.r.v == bmc::verdict::exhaustive_pass;
}

std::string verdict_text(const Row& row) {
  const auto& r = row.r;
  switch (r.v) {
    case bmc::verdict::proved:
      return row.bound_text == "all d" ? "proved for all d by composition" : fmt::format("proved for all inputs, {}", row.bound_text);
    case bmc::verdict::exhaustive_pass: return fmt::format("passed on every input ({})", r.cases);
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

std::string render_json(const std::vector<Row>& rows, const BmcOptions& o) {
  std::string s = "{\n  \"schema\": \"attncheck-bmc/1\",\n  \"solver\": " + json_quoted(bmc::solver_version()) +
                  ",\n  \"mutant\": " + (o.mutant.empty() ? std::string("null") : json_quoted(o.mutant)) +
                  ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i].r;
    std::vector<std::string> bits;
    for (auto b : r.input_bits) bits.push_back(json_quoted(fmt::format("0x{:x}", b)));
    s += fmt::format(
        "    {{\"harness\": {}, \"format\": {}, \"bound\": {}, \"verdict\": {}, \"passed\": {}, \"reason\": {}, "
        "\"solver\": {}, \"seconds\": {:.3f}, \"assertions\": {}, \"axioms\": {}, \"assumptions_satisfiable\": {}, "
        "\"reachable_assertions\": {}, \"lemmas\": {}, \"counterexample_bits\": [{}]}}{}\n",
        json_quoted(r.id), json_quoted(bmc::name_of(r.format)), json_quoted(rows[i].bound_text),
        json_quoted(bmc::name_of(r.v)), row_passed(rows[i]) ? "true" : "false", json_quoted(r.reason),
        json_quoted(r.solver), r.seconds, r.assertions, r.axioms, r.assumptions_satisfiable ? "true" : "false",
        r.reachable_assertions, json_quoted(rows[i].lemmas), join(bits, ", "), i + 1 < rows.size() ? "," : "");
  }
  return s + "  ]\n}\n";
}

int list_harnesses() {
  for (const auto& h : bmc::harnesses()) {
    std::cout << h.id << (h.lemma ? "  (lemma)" : "") << "\n  " << h.property << "\n";
    if (!h.lemmas.empty())
      std::cout << "  all d from: " << join(h.lemmas, ", ") << "\n  composition: " << h.composition << "\n";
  }
  std::cout << "\nmutants:\n";
  for (const auto& m : bmc::mutants())
    std::cout << m.name << "\n  " << m.description << "\n  must be caught by: " << join(m.caught_by, ", ") << "\n";
  return exit_pass;
}

// The longest row (d) a harness is encoded at. The symbolic run and the exp/log axioms are built
// in full before Z3's timeout applies, growing linearly with d; tools/bmc-scaling.sh shows the
// solver timing out long before this, so a larger d buys nothing but the risk of exhausting memory.
constexpr std::size_t max_bound = 64;

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

int run_bmc(const Global& global, const BmcOptions& o) {
  if (o.list) return list_harnesses();
  if (o.solver != "z3") {
    std::cerr << "error: --solver " << o.solver
              << " is not available in this build: only Z3 (libz3, in-process) is wired in; use --solver z3\n";
    return exit_usage;
  }
  if (!(o.timeout > 0)) {
    std::cerr << "error: --timeout must be a positive number of seconds\n";
    return exit_usage;
  }
  if (o.bound > max_bound) {
    std::cerr << "error: --bound " << o.bound << " is larger than " << max_bound << ", the longest row attncheck bmc encodes: "
              << "the formula is built in full before --timeout can act, so d = " << o.bound
              << " would exhaust memory rather than time out (the contracts record bounds up to 8)\n";
    return exit_usage;
  }
  const bmc::mutant_def* mutant = nullptr;
  if (!o.mutant.empty()) {
    mutant = bmc::find_mutant(o.mutant);
    if (!mutant) {
      std::vector<std::string> names;
      for (const auto& m : bmc::mutants()) names.push_back(m.name);
      const std::string near = closest(o.mutant, names);
      std::cerr << "error: unknown mutant '" << o.mutant << "'" << (near.empty() ? "" : "; did you mean '" + near + "'?")
                << " (attncheck bmc --list)\n";
      return exit_usage;
    }
  }
  std::vector<bmc::fmt_id> formats;
  for (const auto& f : o.formats) {
    const auto id = parse_format(f);
    if (!id) {
      std::cerr << "error: unknown --format '" << f << "'; choose f16, bf16, f32 or f64 "
                << "(the 8-bit formats have no concrete kernel type in this build)\n";
      return exit_usage;
    }
    formats.push_back(*id);
  }
  const bool formats_given = !formats.empty();
  if (!formats_given) formats = {bmc::fmt_id::f16, bmc::fmt_id::bf16, bmc::fmt_id::f32};
  std::vector<const bmc::harness_def*> selected;
  for (const auto& id : o.harnesses) {
    const bmc::harness_def* h = bmc::find_harness(id);
    if (!h) {
      std::vector<std::string> ids;
      for (const auto& x : bmc::harnesses()) ids.push_back(x.id);
      const std::string near = closest(id, ids);
      std::cerr << "error: unknown harness '" << id << "'" << (near.empty() ? "" : "; did you mean '" + near + "'?")
                << " (attncheck bmc --list)\n";
      return exit_usage;
    }
    selected.push_back(h);
  }
  if (selected.empty())
    for (const auto& h : bmc::harnesses())
      if (!h.lemma) selected.push_back(&h);

  // The bound per (harness, format): --bound, else the contract's `reached`, else its `bound`,
  // else the harness's default. The contracts are read only for that.
  std::map<std::string, const contract::Harness*> recorded;
  std::optional<contract::LoadResult> loaded;
  if (!o.bound) {
    loaded = load_or_report(global.contracts_dir, false);
    if (!loaded) return exit_usage;
    for (const auto& c : loaded->contracts)
      for (const auto& h : c.harnesses) {
        recorded[h.id] = &h;
        std::vector<int> bounds{h.bound};
        for (const auto& [f, b] : h.reached) bounds.push_back(b);
        for (int b : bounds)
          if (b > 0 && static_cast<std::size_t>(b) > max_bound) {
            std::cerr << h.where.file << ":" << h.where.line << ": error: " << h.id << " records bound " << b
                      << ", larger than " << max_bound << ", the longest row attncheck bmc encodes\n";
            return exit_usage;
          }
      }
  }
  const auto bound_for = [&](const bmc::harness_def& h, bmc::fmt_id f) -> std::size_t {
    if (o.bound) return o.bound;
    if (h.lemma) return 1;
    const auto it = recorded.find(h.id);
    if (it != recorded.end()) {
      const auto r = it->second->reached.find(bmc::name_of(f));
      if (r != it->second->reached.end()) return static_cast<std::size_t>(r->second);
      if (it->second->bound > 0) return static_cast<std::size_t>(it->second->bound);
    }
    return h.default_bound;
  };

  if (!o.replay.empty()) {
    const auto bits = parse_bits(o.replay);
    if (!bits || selected.size() != 1 || formats.size() != 1) {
      std::cerr << "error: --replay takes comma-separated hex bits and exactly one --harness and one --format\n";
      return exit_usage;
    }
    const std::size_t b = bound_for(*selected[0], formats[0]);
    const bmc::replay_result r = bmc::replay(*selected[0], formats[0], b, *bits, mutant);
    std::cout << selected[0]->id << " [" << bmc::name_of(formats[0]) << ", d=" << b << "] on the concrete "
              << (mutant ? "mutant " + mutant->name : std::string("reference kernel")) << ": ";
    if (!r.assumptions_hold) {
      std::cout << "the input violates the harness's assumptions\n";
      return exit_usage;
    }
    std::cout << (r.failed.empty() ? "passes" : "FAILS: " + join(r.failed, "; ")) << "\n";
    return r.failed.empty() ? exit_pass : exit_fail;
  }

  std::cout << "attncheck " ATTNCHECK_VERSION "  bmc  solver " << bmc::solver_version() << "  timeout " << o.timeout
            << " s per harness" << (mutant ? "  mutant " + mutant->name : "") << "\n\n";
  std::cout << fmt::format("{:<14} {:<5} {:<6} {:<40} {:>8}  {}\n", "harness", "fmt", "bound", "verdict", "time", "solver");
  std::vector<Row> rows;
  std::map<std::pair<std::string, int>, bmc::run_result> lemma_cache;
  const auto print_row = [&](const Row& row) {
    std::cout << fmt::format("{:<14} {:<5} {:<6} {:<40} {:>7.2f}s  {}\n", row.r.id, bmc::name_of(row.r.format),
                             row.bound_text, verdict_text(row), row.r.seconds, row.r.solver);
    if (!row.lemmas.empty()) std::cout << "    lemmas: " << row.lemmas << "\n";
    if (!row_passed(row) && !row.r.reason.empty() && row.r.v != bmc::verdict::counterexample)
      std::cout << "    " << row.r.reason << "\n";
    if (row.r.v == bmc::verdict::counterexample || row.r.v == bmc::verdict::stub_artefact ||
        row.r.v == bmc::verdict::exhaustive_fail)
      print_counterexample(row.r, mutant);
    std::cout.flush();
  };
  // Without --format (and --bound), a harness whose contract records `reached:` runs at exactly
  // the formats recorded there: a format the record leaves out was not claimed.
  const auto runs_at = [&](const bmc::harness_def& h, bmc::fmt_id f) {
    if (formats_given || o.bound) return true;
    const auto it = recorded.find(h.id);
    if (it == recorded.end() || it->second->reached.empty()) return true;
    return it->second->reached.count(bmc::name_of(f)) > 0;
  };
  for (const bmc::harness_def* h : selected) {
    for (bmc::fmt_id f : formats) {
      if (!runs_at(*h, f)) continue;
      bmc::run_options ro;
      ro.bound = bound_for(*h, f);
      ro.timeout_seconds = o.timeout;
      ro.mutant = mutant;
      Row row;
      row.r = o.exhaustive ? bmc::exhaustive(*h, f, ro) : bmc::prove(*h, f, ro);
      row.bound_text = (h->lemma ? "scalar" : fmt::format("d={}", ro.bound));
      rows.push_back(row);
      print_row(rows.back());
      if (o.exhaustive || !o.lemmas || h->lemmas.empty() || row.r.v == bmc::verdict::unsupported) continue;
      // The all-d claim: every lemma of the composition proved in this run.
      Row all;
      all.r.id = h->id;
      all.r.format = f;
      all.r.solver = bmc::solver_version();
      all.bound_text = "all d";
      all.r.v = bmc::verdict::proved;
      std::vector<std::string> status;
      for (const auto& lid : h->lemmas) {
        const bmc::harness_def* l = bmc::find_harness(lid);
        auto key = std::make_pair(lid, static_cast<int>(f));
        if (!lemma_cache.count(key)) {
          bmc::run_options lo = ro;
          lo.bound = 1;
          lemma_cache[key] = l ? bmc::prove(*l, f, lo) : bmc::run_result{};
        }
        const bmc::run_result& lr = lemma_cache[key];
        all.r.seconds += lr.seconds;
        status.push_back(lid + (lr.v == bmc::verdict::proved ? "" : std::string(" ") + bmc::name_of(lr.v)));
        if (lr.v != bmc::verdict::proved) {  // the composition fails here: no need for the rest
          all.r.v = lr.v == bmc::verdict::unsupported ? bmc::verdict::unsupported : bmc::verdict::unknown;
          all.r.reason = fmt::format("lemma {} not proved: {} {}", lid, bmc::name_of(lr.v), lr.reason);
          break;
        }
      }
      all.lemmas = join(status, ", ");
      rows.push_back(all);
      print_row(rows.back());
    }
  }
  int passed = 0;
  for (const auto& r : rows) passed += row_passed(r) ? 1 : 0;
  std::cout << "\n" << passed << " proved, " << rows.size() - passed << " not proved\n";
  if (!o.json.empty()) write_atomically(o.json, render_json(rows, o));
  return passed == static_cast<int>(rows.size()) ? exit_pass : exit_fail;
}

}  // namespace

Command setup_bmc(CLI::App& parent, const Global& global) {
  auto o = std::make_shared<BmcOptions>();
  CLI::App* app = parent.add_subcommand(
      "bmc", "Bounded model checking: prove the harnesses on the kernel templates at a symbolic IEEE scalar (Z3)");
  app->add_option("--harness", o->harnesses, "Harness ID to run (repeatable; default: every non-lemma harness)");
  app->add_option("--format", o->formats, "f16, bf16, f32 or f64 (repeatable; default f16 bf16 f32)");
  app->add_option("--bound", o->bound, "Row length d (default: the contract's reached bound per format)");
  app->add_option("--solver", o->solver, "z3 (the only solver wired in; cvc5/portfolio are refused)")->capture_default_str();
  app->add_option("--timeout", o->timeout, "Seconds per harness and format")->capture_default_str();
  app->add_option("--json", o->json, "Write a JSON report (schema attncheck-bmc/1) to FILE");
  app->add_option("--mutant", o->mutant, "Run on a broken kernel (attncheck bmc --list)");
  app->add_option("--replay", o->replay, "Replay comma-separated hex input bits on the concrete kernel");
  app->add_flag("--exhaustive", o->exhaustive, "Enumerate every input on the concrete kernel (<= 24 input bits)");
  app->add_flag("!--no-lemmas", o->lemmas, "Skip the per-element lemmas (no 'all d' rows)");
  app->add_flag("--list", o->list, "List the harnesses, lemmas and mutants");
  app->footer("Exit status: 0 every harness proved, 1 a counterexample, timeout or vacuous harness, 2 usage errors.");
  return {app, [&global, o] { return run_bmc(global, *o); }};
}

}  // namespace attncheck::cli
