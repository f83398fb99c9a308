// attncheck CLI: `attncheck audit` — checks a third-party kernel (a shared library exporting the
// C ABI of include/attncheck/abi.h, or any program speaking the exec protocol) against every
// applicable obligation of the contracts plus the AUDIT-* obligations, in a child process.
#include "cli/audit.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>

#include "attncheck/audit/attention_shape.hpp"
#include "attncheck/audit/exec_backend.hpp"
#include "attncheck/audit/library_backend.hpp"
#include "attncheck/text/numbers.hpp"
#include "attncheck/property/parallel.hpp"
#include "cli/check_options.hpp"
#include "cli/cli.hpp"
#include "cli/gate.hpp"
#include "cli/progress.hpp"
#include "cli/report_files.hpp"
#include "cli/report_html.hpp"

namespace attncheck::cli {

namespace {

struct AuditOptions : ReportFileOptions, CheckSelectionOptions {
  std::string lib, bindings, exec;
  std::vector<std::string> kernels;
  double timeout = 2;
  int memory_mib = 0;  // --memory; 0 = not given: default_memory_mib for the source
  std::string masked;
  std::string tolerance;  // "" = not given: the bindings file's, else derived
  int abi = 0;            // --abi: 0 = not given
  bool no_lse = false;
  bool nondeterministic = false;
  std::string stores;  // --stores: "" = not given
  std::string subnormals;  // --subnormals: "" = not given
  std::vector<std::string> attention_shapes;  // --attention-shape, as given
  std::size_t splits = 0;                     // --splits S
  bool page_size_invariant = false;           // --page-size-invariant
  bool packing_invariant = false;             // --packing-invariant
  std::vector<std::string> supports;          // --supports, as given
  bool replay = false;
  bool list = false;
};

// --memory's defaults. --lib: what the fork server may add to the address space it inherits (a
// compiled kernel's own allocations). --exec: the whole address space of the program, and an
// interpreter reserves much of it before it computes anything: measured at start on 2 cores,
// Node 20 ~0.7 GiB, Python with torch ~0.6 GiB, and more with more cores (a thread pool per core,
// a malloc arena of 64 MiB per thread); 1 GiB made correct Node and Python servers fail on the
// default shapes. 4 GiB leaves them room and still stops a runaway allocation.
constexpr int default_lib_memory_mib = 1024, default_exec_memory_mib = 4096;
int memory_mib(const AuditOptions& o) {
  if (o.memory_mib != 0) return o.memory_mib;
  return o.exec.empty() ? default_lib_memory_mib : default_exec_memory_mib;
}

std::string supports_args(const AuditOptions& o) {
  std::string s;
  for (const auto& w : o.supports) s += " --supports " + shell_quoted(w);
  return s;
}

// The options that select the kernels, as they must be repeated in a replay line.
std::string source_args(const AuditOptions& o) {
  std::string s;
  if (!o.bindings.empty())
    return " --bindings " + shell_quoted(o.bindings) + (o.abi ? " --abi " + std::to_string(o.abi) : "") + (o.no_lse ? " --no-lse" : "") +
           (o.stores.empty() ? "" : " --stores " + o.stores) + (o.subnormals.empty() ? "" : " --subnormals " + o.subnormals) +
           (o.nondeterministic ? " --nondeterministic" : "") +
           (o.splits ? " --splits " + std::to_string(o.splits) : "") + (o.page_size_invariant ? " --page-size-invariant" : "") +
           (o.packing_invariant ? " --packing-invariant" : "") + supports_args(o);
  if (!o.lib.empty()) s += " --lib " + shell_quoted(o.lib);
  if (!o.exec.empty()) s += " --exec " + shell_quoted(o.exec);
  for (const auto& k : o.kernels) s += " --kernel " + shell_quoted(k);
  if (o.abi) s += " --abi " + std::to_string(o.abi);
  if (o.no_lse) s += " --no-lse";
  if (!o.stores.empty()) s += " --stores " + o.stores;
  if (!o.subnormals.empty()) s += " --subnormals " + o.subnormals;
  if (o.nondeterministic) s += " --nondeterministic";
  if (o.splits) s += " --splits " + std::to_string(o.splits);
  if (o.page_size_invariant) s += " --page-size-invariant";
  if (o.packing_invariant) s += " --packing-invariant";
  return s + supports_args(o);
}

// Reads the kernel source options; prints the problem and returns false on a usage error.
bool resolve_source(const AuditOptions& o, audit::KernelSource& src) {
  const int ways = !o.lib.empty() + !o.bindings.empty() + !o.exec.empty();
  if (ways != 1 && !(o.list && ways == 0)) {
    std::cerr << "error: name the kernels in exactly one way: --lib PATH --kernel KIND:DTYPE:SYMBOL, --bindings FILE, "
                 "or --exec 'COMMAND' --kernel KIND:DTYPE\n";
    return false;
  }
  if (!o.bindings.empty()) {
    if (!o.kernels.empty()) {
      std::cerr << "error: --kernel and --bindings do not mix; list the kernels in the bindings file\n";
      return false;
    }
    if (auto e = audit::read_bindings(o.bindings, src); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return false;
    }
  } else {
    if (o.kernels.empty()) {
      std::cerr << "error: no --kernel given; e.g. --kernel " << (o.exec.empty() ? "softmax:f32:my_softmax" : "softmax:f32") << "\n";
      return false;
    }
    src.library = o.lib;
    src.exec = o.exec;
    for (const auto& spec : o.kernels) {
      audit::Binding b;
      // --list without --lib or --exec takes either form: the symbol names no kernel that is called.
      const bool with_symbol = ways == 0 ? std::count(spec.begin(), spec.end(), ':') >= 2 : o.exec.empty();
      if (auto e = audit::parse_kernel_spec(spec, with_symbol, b); !e.empty()) {
        std::cerr << "error: " << e << "\n";
        return false;
      }
      src.bindings.push_back(b);
    }
  }
  for (std::size_t i = 0; i < src.bindings.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (src.bindings[i].kind == src.bindings[j].kind && src.bindings[i].dtype == src.bindings[j].dtype) {
        std::cerr << "error: two kernels for " << audit::kind_name(src.bindings[i].kind) << ":" << dtype_name(src.bindings[i].dtype)
                  << "; audit them in separate runs\n";
        return false;
      }
  if (!o.masked.empty()) {
    // The command line applies to every kernel, over the bindings file's policies.
    const auto p = audit::parse_masked_policy(o.masked);
    if (!p) {
      std::cerr << "error: unknown --masked '" << o.masked << "'; use zeros, nan or either\n";
      return false;
    }
    src.masked = *p;
    src.kernel_masked.clear();
  }
  if (o.abi != 0) {
    if (o.abi < audit::min_abi_version || o.abi > audit::max_abi_version) {
      std::cerr << "error: --abi " << o.abi << ": this attncheck speaks ABI versions " << audit::min_abi_version << " to "
                << audit::max_abi_version << " (include/attncheck/abi.h)\n";
      return false;
    }
    if (src.abi != 0 && src.abi != o.abi) {
      std::cerr << "error: --abi " << o.abi << " and the bindings file's abi: " << src.abi << " differ\n";
      return false;
    }
    src.abi = o.abi;
  }
  if (o.no_lse) {  // like --masked: for every kernel, over the bindings file's lse: entries
    src.lse = false;
    src.kernel_lse.clear();
  }
  if (o.nondeterministic) {  // likewise over the bindings file's deterministic: entries
    src.deterministic = false;
    src.kernel_deterministic.clear();
  }
  if (!o.stores.empty()) {  // likewise over the bindings file's stores: entries
    if (auto e = audit::parse_stores(o.stores, src.stores); !e.empty()) {
      std::cerr << "error: --" << e << "\n";
      return false;
    }
    src.kernel_stores.clear();
  }
  if (!o.subnormals.empty())  // over the bindings file's subnormals:
    if (auto e = audit::parse_subnormals(o.subnormals, src.subnormals); !e.empty()) {
      std::cerr << "error: --" << e << "\n";
      return false;
    }
  if (o.splits) src.splits = o.splits;  // likewise over the bindings file's splits:
  if (o.page_size_invariant) src.page_size_invariant = true;  // and its page_size_invariant:
  if (o.packing_invariant) src.packing_invariant = true;      // and its packing_invariant:
  return true;
}

// The AUDIT-* obligations are stated in docs/audit.md ("- **AUDIT-SAFE-001** ..."), not in a
// contract: SARIF and the JSON report point there, at the line that states each one.
void describe_audit_obligations(GateReport& report) {
  const std::string doc = report.repo_root + "/docs/audit.md";
  std::ifstream in(doc);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.rfind("- **AUDIT-", 0) != 0) continue;
    const auto end = line.find("**", 4);
    if (end == std::string::npos) continue;
    const std::string id = line.substr(4, end - 4);
    if (report.obligations.count(id)) continue;
    std::string statement = line.substr(end + 2);
    statement.erase(0, statement.find_first_not_of(" "));
    report.obligations[id] = {"audit", statement, {doc, line_no, 5}};  // column of the ID
  }
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string row_note_text(const audit::AuditRow& r) {
  return "  " + r.outcome.test_id + " [" + std::string(dtype_name(r.outcome.dtype)) + "]: " + r.reason;
}

// Checks every argument that needs no contracts: the kernel source and the run's limits.
bool parse_audit_options(const AuditOptions& o, audit::KernelSource& src, audit::AuditRequest& req) {
  if (!resolve_source(o, src)) return false;
  const auto seed = checked_seed(o);
  if (!seed || !checked_cases(o, "")) return false;
  if (!(o.timeout > 0 && o.timeout <= 3600)) {
    std::cerr << "error: --timeout must be in (0, 3600] seconds (got " << o.timeout << ")\n";
    return false;
  }
  if (o.memory_mib != 0 && o.memory_mib < 16) {
    std::cerr << "error: --memory must be at least 16 MiB (got " << o.memory_mib << ")\n";
    return false;
  }
  if (!checked_jobs(o)) return false;
  if (o.replay && (o.tests.size() != 1 || o.dtypes.size() != 1)) {
    std::cerr << "error: --replay re-runs one check: give exactly one --test and one --dtype (copy the Replay line of the report)\n";
    return false;
  }
  const auto dtypes = checked_dtypes(o, false);
  if (!dtypes) return false;
  req.only_dtypes = *dtypes;
  req.params.seed = *seed;
  req.params.cases = o.cases;
  return true;
}

// The checks to run: the tests of the selected contracts (every named contract and test must
// exist), the tolerance and the masked-row policies.
bool plan_audit(const AuditOptions& o, const contract::LoadResult& loaded, const audit::KernelSource& src, audit::AuditRequest& req) {
  std::vector<std::string> known_tests;
  for (const auto& c : loaded.contracts) {
    if (!o.contracts.empty() && std::find(o.contracts.begin(), o.contracts.end(), c.id) == o.contracts.end()) continue;
    for (const auto& t : c.tests) {
      req.tests.push_back({c.id, t.id, t.obligations});
      known_tests.push_back(t.id);
    }
  }
  for (const auto& w : o.contracts)
    if (std::none_of(loaded.contracts.begin(), loaded.contracts.end(), [&](const auto& c) { return c.id == w; })) {
      std::cerr << "error: unknown contract '" << w << "'; run 'attncheck list' to see the contracts\n";
      return false;
    }
  for (const auto& ap : audit::audit_properties()) known_tests.push_back(ap.id);
  for (const auto& w : o.tests)
    if (std::find(known_tests.begin(), known_tests.end(), w) == known_tests.end()) {
      const std::string guess = closest(w, known_tests);
      std::cerr << "error: unknown test ID " << w << (guess.empty() ? "" : " (did you mean " + guess + "?)")
                << " among the selected contracts and the AUDIT-* obligations\n";
      return false;
    }
  req.only_tests = o.tests;
  const std::string tolerance_text = !o.tolerance.empty() ? o.tolerance : !src.tolerance.empty() ? src.tolerance : "derived";
  std::string why;
  const auto tolerance = property::parse_tolerance(tolerance_text, why);
  if (!tolerance) {
    std::cerr << "error: --tolerance: " << why << "\n";
    return false;
  }
  req.params.tolerance = *tolerance;
  req.policy.masked = src.masked;
  req.policy.returns_lse = src.lse;
  req.policy.stores = src.stores;
  req.policy.subnormals = src.subnormals;
  req.policy.deterministic = src.deterministic;
  req.policy.splits = src.splits;
  req.policy.page_size_invariant = src.page_size_invariant;
  req.policy.packing_invariant = src.packing_invariant;
  req.policy.supports = src.supports;
  for (const auto& spec : o.attention_shapes) {
    audit::SizedProblem p;
    if (const std::string why = audit::parse_attention_shape(spec, p); !why.empty()) {
      std::cerr << "error: --attention-shape '" << spec << "': " << why << "\n";
      return false;
    }
    req.policy.attention_shapes.push_back(std::move(p));
  }
  for (const auto& [kernel, p] : src.kernel_masked) req.kernel_policies.emplace(kernel, req.policy).first->second.masked = p;
  for (const auto& [kernel, l] : src.kernel_lse) req.kernel_policies.emplace(kernel, req.policy).first->second.returns_lse = l;
  for (const auto& [kernel, st] : src.kernel_stores) req.kernel_policies.emplace(kernel, req.policy).first->second.stores = st;
  for (const auto& [kernel, det] : src.kernel_deterministic)
    req.kernel_policies.emplace(kernel, req.policy).first->second.deterministic = det;
  // Capabilities: the file's top level, a kernel's own, then --supports (the last of a feature wins).
  std::vector<audit::Supports> cli_supports;
  for (const auto& w : o.supports) {
    audit::Supports s;
    if (auto e = audit::parse_supports(w, s); !e.empty()) {
      std::cerr << "error: --" << e << "\n";
      return false;
    }
    cli_supports.push_back(s);
  }
  for (const auto& [kernel, own] : src.kernel_supports) {
    auto& p = req.kernel_policies.emplace(kernel, req.policy).first->second;
    p.supports.insert(p.supports.end(), own.begin(), own.end());
  }
  req.policy.supports.insert(req.policy.supports.end(), cli_supports.begin(), cli_supports.end());
  for (auto& [kernel, p] : req.kernel_policies) p.supports.insert(p.supports.end(), cli_supports.begin(), cli_supports.end());
  req.full_inputs = o.replay;
  req.stop = [] { return interrupted() != 0; };
  return true;
}

// Runs the checks with a progress line; interrupted, run_audit drops the checks that finished
// after the signal, which may have seen their kernel process get it too (a terminal's Ctrl-C
// reaches the whole process group).
std::vector<audit::AuditRow> run_audit_checks(const AuditOptions& o, audit::Backend& backend, const audit::AuditRequest& req) {
  std::unique_ptr<Progress> line;
  audit::Progress progress;
  progress.started = [&line, &o](std::size_t i, std::size_t n, const std::string& what) {
    if (!line) line = std::make_unique<Progress>(o.quiet, n, 0);
    line->show(i, what);
  };
  progress.finished = [&line] {
    if (line) line->finished(0);
  };
  stop_on_interrupt();
  auto rows = audit::run_audit(backend, req, progress);
  if (line) line->clear();
  return rows;
}

// Replay lines: the same kernels, only this check, same seed and cases.
void add_replay_lines(std::vector<audit::AuditRow>& rows, const AuditOptions& o, const Global& global,
                      const audit::KernelSource& src, const audit::AuditRequest& req) {
  for (auto& r : rows) {
    r.outcome.replay = "attncheck" + (global.contracts_given ? " --contracts " + shell_quoted(global.contracts_dir) : std::string()) +
                       " audit" + source_args(o) + " --test " + r.outcome.test_id + " --dtype " + std::string(dtype_name(r.outcome.dtype)) +
                       " --seed " + hex_u64(req.params.seed) + " --cases " + std::to_string(req.params.cases);
    if (o.timeout != 2) r.outcome.replay += " --timeout " + decimal(o.timeout, 6);
    if (o.memory_mib != 0) r.outcome.replay += " --memory " + std::to_string(o.memory_mib);
    if (!o.tolerance.empty()) r.outcome.replay += " --tolerance " + req.params.tolerance.text();
    if (src.masked != audit::MaskedPolicy::either && o.bindings.empty())
      r.outcome.replay += " --masked " + std::string(audit::masked_policy_name(src.masked));
    for (const auto& p : req.policy.attention_shapes) r.outcome.replay += " --attention-shape " + audit::attention_shape_spec(p);
    r.outcome.replay += " --replay";
    if (o.no_timings) r.outcome.seconds = 0;
  }
}

// The kinds a not-applicable row needs and was not given ("needs kinds softmax, scores at f32"),
// or "" when that is not why it is not applicable (a declaration, a replaced test, ...).
std::string missing_kinds(const audit::AuditRow& r) {
  if (r.reason == "calls no kernel") return "none";
  for (const char* lead : {"needs kinds ", "needs kind "})
    if (r.reason.rfind(lead, 0) == 0) {
      const std::string rest = r.reason.substr(std::string_view(lead).size());
      return rest.substr(0, rest.rfind(" at "));
    }
  return "";
}

// One line for the checks that are not applicable because they call kinds nobody asked about:
// their count and those kinds; each row stays in the JSON and JUnit reports (and under --verbose).
std::string unasked_note(std::size_t n, const std::vector<std::string>& kinds) {
  std::vector<std::string> names;
  bool none = false;  // some call no kernel at all
  for (const auto& k : kinds) {
    none = none || k == "none";
    std::size_t from = 0;
    for (std::size_t comma; from <= k.size(); from = comma + 2) {
      comma = k.find(", ", from);
      if (comma == std::string::npos) comma = k.size();
      const std::string name = k.substr(from, comma - from);
      if (name != "none" && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return std::to_string(n) + " not applicable: they call kernel kinds this audit was not given" +
         (names.empty() ? std::string() : " (" + join(names, ", ") + ")") +
         (none ? " or no kernel" : "") + "; --verbose lists each, as the JSON report does";
}

// The audit rows as the gate's rows, over the rows that ran; what did not run (not applicable,
// declined inputs) and what --exec cannot observe are notes.
void add_audit_rows(GateReport& report, const std::vector<audit::AuditRow>& rows, const audit::Backend& backend) {
  std::vector<std::string> na, declined, not_judged, not_drawn, unasked;
  std::size_t unasked_rows = 0;
  for (const auto& r : rows) {
    if (r.state == audit::RowState::not_judged) {
      // Ran, but the kernel answered none of its calls: a skipped row (JUnit <skipped/>), a note
      // with what to do, never a pass or a failure.
      std::string text = row_note_text(r);
      for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 5) text.replace(at, 1, "\n    ");
      not_judged.push_back(text);
      GateRow g;
      g.contract = r.contract == "audit" && !r.kinds.empty() ? "audit:" + r.kinds.front() : r.contract;
      g.obligations = r.obligations;
      g.outcome = r.outcome;
      g.outcome.message = "not judged: " + r.reason;
      report.skipped_rows.push_back(g);
      continue;
    }
    if (r.state == audit::RowState::not_applicable) {
      if (const std::string kinds = missing_kinds(r); !kinds.empty() && !report.verbose) {
        ++unasked_rows;
        unasked.push_back(kinds);
      } else {
        na.push_back(row_note_text(r));
      }
      GateRow g;
      g.contract = r.contract;
      g.obligations = r.obligations;
      g.outcome = r.outcome;
      g.outcome.message = "not applicable: " + r.reason;
      report.skipped_rows.push_back(g);
      continue;
    }
    GateRow g;
    // The gate's table has no kind column: an AUDIT-* row names its kind with the contract.
    g.contract = r.contract == "audit" && !r.kinds.empty() ? "audit:" + r.kinds.front() : r.contract;
    g.obligations = r.obligations;
    g.outcome = r.outcome;
    report.rows.push_back(g);
    if (r.stats.not_drawn > 0)
      not_drawn.push_back("  " + r.outcome.test_id + " [" + std::string(dtype_name(r.outcome.dtype)) + "]: " + std::to_string(r.stats.not_drawn) +
                          " drawn inputs not sent (" + audit::tally_text(r.stats.not_drawn_features) + ")");
    if (r.stats.declines > 0)
      declined.push_back("  " + r.outcome.test_id + " [" + std::string(dtype_name(r.outcome.dtype)) + "]: " +
                         std::to_string(r.stats.declines) + " inputs declined (not judged), the first: " + r.stats.first_decline);
  }
  if (!backend.sees_memory())
    report.notes.push_back("note: over --exec, writes outside the output and changes to inputs cannot be observed; "
                           "AUDIT-SAFE-001 checks time and answers only");
  if (!not_drawn.empty()) {
    report.notes.push_back("not drawn (outside the declared capabilities, --supports; each feature with its count):");
    report.notes.insert(report.notes.end(), not_drawn.begin(), not_drawn.end());
  }
  if (!declined.empty()) {
    report.notes.push_back("declined inputs (the kernel returned nonzero):");
    report.notes.insert(report.notes.end(), declined.begin(), declined.end());
  }
  if (!not_judged.empty()) {
    report.notes.push_back(std::to_string(not_judged.size()) + " not judged (NOT-JUDGED: the kernel declined every input; neither passed nor failed):");
    report.notes.insert(report.notes.end(), not_judged.begin(), not_judged.end());
  }
  if (unasked_rows) report.notes.push_back(unasked_note(unasked_rows, unasked));
  if (!na.empty()) {
    report.notes.push_back(std::to_string(na.size()) + (unasked_rows ? " more" : "") + " not applicable:");
    report.notes.insert(report.notes.end(), na.begin(), na.end());
  }
  report.skipped = static_cast<int>(report.skipped_rows.size());
  for (std::string& note : coverage_notes(report.rows)) report.notes.push_back(std::move(note));
}

// Prints the report and writes the report files; returns the exit status.
int report_audit(const AuditOptions& o, const audit::KernelSource& src, const audit::AuditRequest& req, const audit::Backend& backend,
                 const std::vector<audit::AuditRow>& rows, GateReport& report) {
  const std::string masked = std::string(audit::masked_policy_name(src.masked));
  std::string masked_text = masked;  // the default, then the kernels with their own policy
  for (const auto& [kernel, p] : src.kernel_masked)
    masked_text += std::string(", ") + std::string(audit::kind_name(kernel.first)) + ":" + std::string(dtype_name(kernel.second)) + " " +
                   std::string(audit::masked_policy_name(p));
  std::cout << "audit of " << backend.describe() << "  timeout " << decimal(o.timeout, 6) << " s  masked rows: " << masked_text
            << "  tolerance " << req.params.tolerance.text()
            << (src.subnormals == Subnormals::flush ? "  subnormals: flush (declared flush-to-zero)" : "") << "\n";
  for (const auto& b : src.bindings) {  // what each kernel declared it supports (--supports, supports:)
    const audit::Kind k = audit::abi_kind(b.kind, src.abi != 0 ? src.abi : 1);
    if (const auto caps = audit::capabilities_for(req.policy_for(k, b.dtype).supports, k); caps.any())
      std::cout << "  " << audit::kind_name(k) << ":" << dtype_name(b.dtype) << " supports only " << caps.text() << "\n";
  }
  if (report.rows.empty() && interrupted()) {
    std::cerr << "attncheck: interrupted by signal " << interrupted() << " before any check finished; no report file was written\n";
    return interrupted_exit_status();
  }
  const bool judged_none = std::any_of(rows.begin(), rows.end(), [](const audit::AuditRow& r) { return r.state == audit::RowState::not_judged; });
  if (report.rows.empty() && !judged_none) {
    std::cout << "\n";
    for (const auto& n : report.notes) std::cout << n << "\n";
    std::cerr << "error: nothing applicable: no obligation of the selected contracts can be checked with the kernels given\n";
    return exit_usage;
  }
  if (interrupted()) {
    report.notes.push_back("interrupted: " + std::to_string(report.rows.size()) +
                           " checks finished (those in progress were discarded); no report file was written");
    std::cout << render_text(report) << std::flush;
    std::cerr << "attncheck: interrupted by signal " << interrupted() << "; no report file was written\n";
    return interrupted_exit_status();
  }
  std::cout << render_text(report) << std::flush;
  ReportFiles files;
  if (!o.json.empty() || !o.html.empty()) {
    AuditReportInfo info{ATTNCHECK_VERSION, backend.describe(), hex_u64(req.params.seed), masked,
                         req.params.tolerance.text(), req.params.cases, o.timeout};
    const std::string json = render_audit_json(info, rows, report);
    if (!o.json.empty()) files.emplace_back(o.json, json);
    if (!o.html.empty() && !add_html_report(files, o.html, json)) return exit_usage;
  }
  if (!o.junit.empty()) files.emplace_back(o.junit, render_junit(report));
  if (!o.sarif.empty()) files.emplace_back(o.sarif, render_sarif(report));
  if (!o.markdown.empty()) files.emplace_back(o.markdown, render_markdown(report));
  if (!write_reports(files)) return interrupted() ? interrupted_exit_status() : exit_usage;
  // Every check NOT-JUDGED and none run: the kernels declined every input the audit drew, so it
  // verified nothing. A gate must not read that as a pass: a setup error (what it declines, above).
  const bool judged_any = std::any_of(rows.begin(), rows.end(), [](const audit::AuditRow& r) { return r.state == audit::RowState::ran; });
  if (judged_none && !judged_any) {
    std::cerr << "error: nothing was judged: the kernel declined every input of every check (the notes above give the first "
                 "input each check drew and the status it answered). Audit the shapes and formats it computes (--attention-shape, "
                 "--supports, --dtype) or fix why it declines\n";
    return exit_usage;
  }
  return report.failed() == 0 ? exit_pass : exit_fail;
}

// Answers which kernels exist and calls none: the backend of `audit --list`. abi is the declared
// ABI version (--abi, abi:): from 2, `attention` is version 2's, as the library and exec backends
// resolve it (a library's own marker is not read: nothing is loaded).
class PlanBackend final : public audit::Backend {
 public:
  PlanBackend(const std::vector<audit::Binding>& bindings, int abi) : bindings_(bindings), abi_(abi) {}
  bool has(audit::Kind k, Dtype d) const override {
    return std::any_of(bindings_.begin(), bindings_.end(),
                       [&](const audit::Binding& b) { return audit::abi_kind(b.kind, abi_) == k && b.dtype == d; });
  }
  audit::Reply call(const audit::Call&) override { throw std::logic_error("audit --list calls no kernel"); }
  std::string describe() const override { return "no kernel (--list)"; }
  bool sees_memory() const override { return false; }

 private:
  std::vector<audit::Binding> bindings_;
  int abi_ = 1;
};

// `audit --list`: one line "TEST_ID DTYPE" per check the audit would run (each once, in run
// order), decided as a run decides it and without loading or calling any kernel, so that a build
// system can register one test per check before the kernels are built (cmake/AttncheckAudit.cmake).
int list_audit_checks(const audit::KernelSource& src, audit::AuditRequest& req) {
  PlanBackend backend(src.bindings, src.abi != 0 ? src.abi : 1);
  // A library's version marker is not read here: an attention kernel of an undeclared version is
  // listed as version 1's. Say so, so that a version-2 library's checks are not listed wrong unseen.
  if (src.abi == 0 && std::any_of(src.bindings.begin(), src.bindings.end(), [](const audit::Binding& b) { return b.kind == audit::Kind::attention; }))
    std::cerr << "note: --list loads no library, so `attention` is listed as ABI version 1's; for a library exporting "
                 "version 2 (ATTNCHECK_EXPORT_ABI_VERSION) or a program serving kind 8, add --abi 2 (ABI 2 in attncheck_add_audit)\n";
  req.plan_only = true;
  std::vector<std::string> seen, masked;
  for (const auto& r : audit::run_audit(backend, req, {})) {
    if (r.state != audit::RowState::ran) continue;
    const std::string line = r.outcome.test_id + " " + std::string(dtype_name(r.outcome.dtype));
    if (!r.masked_policy.empty()) {
      const std::string m = "  " + line + " " + (r.kinds.empty() ? std::string() : join(r.kinds, ",") + " ") + r.masked_policy;
      if (std::find(masked.begin(), masked.end(), m) == masked.end()) masked.push_back(m);
    }
    if (std::find(seen.begin(), seen.end(), line) != seen.end()) continue;
    seen.push_back(line);
    std::cout << line << "\n";
  }
  // Which checks judge the masked-row policy, and the policy each applies: on stderr, so that the
  // lines above stay "TEST_ID DTYPE" for the build systems that read them.
  if (!masked.empty()) {
    std::cout.flush();  // the list first where both streams go to one pipe
    std::cerr << "the masked-row policy (--masked, masked:) is judged by (check, format, kinds, policy):\n";
    for (const auto& m : masked) std::cerr << m << "\n";
  }
  return exit_pass;
}

// An exec program asked for a kernel it does not serve is a usage error, not one failure per
// check: each requested kernel is asked for once (ExecBackend::serves), and when the program
// says it serves no such kernel but serves the kind at another format, the error lists those
// and suggests the nearest spelling; when it serves the kind at no format, the error says so.
// When it answers the question otherwise (a crash, a hang, another ERROR), the checks run and
// judge it.
// A multi-line message (a Python traceback) indented under its first line.
std::string indent_lines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 3)) text.replace(at, 1, "\n  ");
  return text;
}

bool exec_serves_requested(audit::ExecBackend& b, const audit::KernelSource& src) {
  const int abi = src.abi != 0 ? src.abi : 1;
  for (const auto& binding : src.bindings) {
    const audit::Kind kind = audit::abi_kind(binding.kind, abi);
    const auto served_here = b.serves(kind, binding.dtype);
    if (served_here == audit::ExecBackend::Served::unknown) {
      // Served, or failing: a kernel that raises the same error on any input is set up wrong (its
      // signature, the function its table names), said at once with exit 2 and its own message.
      if (const std::string text = b.fails_every_call(kind, binding.dtype); !text.empty()) {
        std::cerr << "error: " << b.describe() << " failed the same way on two different " << audit::kind_name(kind) << ":"
                  << dtype_name(binding.dtype) << " calls (the smallest input, all +0, then all 0.5), so the audit would fail every check "
                  << "for it. Its message:\n  " << indent_lines(text)
                  << "\nCheck the kernel's signature and return values against docs/audit-protocol.md (Python: help(attncheck.audit) "
                     "gives each kind's); a kernel that cannot compute an input must decline it, not raise\n";
        return false;
      }
    }
    if (served_here != audit::ExecBackend::Served::no) continue;
    std::vector<Dtype> served;
    for (Dtype d : all_dtypes)
      if (d != binding.dtype && b.serves(kind, d) == audit::ExecBackend::Served::yes) served.push_back(d);
    if (served.empty() && kind == audit::Kind::attention_v2 && b.serves(audit::Kind::attention, binding.dtype) == audit::ExecBackend::Served::yes) {
      std::cerr << "error: " << b.describe() << " serves attention:" << dtype_name(binding.dtype)
                << " of ABI version 1 (CALL kind 6), not version 2's (kind 8), which --abi 2 or abi: 2 asks for: audit it without "
                   "them (docs/audit-protocol.md)\n";
      return false;
    }
    const std::string k(audit::kind_name(kind));
    if (served.empty()) {
      // It serves the kind at no format: a setup error (the wrong program, or the wrong kind asked),
      // said at once with exit 2, not one failure per check.
      std::cerr << "error: " << b.describe() << " serves no " << k << " kernel"
                << (kind == audit::Kind::attention_v2 ? " (CALL kind 8, attention of ABI version 2, which --abi 2 or abi: 2 asks for)" : "")
                << ": asked for " << k << ":" << dtype_name(binding.dtype)
                << " and at every other format, it answered that it serves none. Audit it for a kind it serves (its "
                   "serve() table; docs/audit-protocol.md, Conversation 2)\n";
      return false;
    }
    std::string list;
    for (Dtype d : served) list += (list.empty() ? "" : ", ") + k + ":" + std::string(dtype_name(d));
    const auto same_storage = std::find_if(served.begin(), served.end(), [&](Dtype d) { return storage_name(d) == storage_name(binding.dtype); });
    const Dtype nearest = same_storage != served.end() ? *same_storage : served.front();
    std::cerr << "error: " << b.describe() << " serves no " << k << ":" << dtype_name(binding.dtype) << " kernel; it serves " << list
              << ".\n  Did you mean --kernel " << k << ":" << dtype_name(nearest)
              << "? (a 16-bit storage name alone, such as f16, means f32 arithmetic: f16@f32; docs/formats.md)\n";
    return false;
  }
  return true;
}

int run_audit_command(const AuditOptions& o, const Global& global) {
  audit::KernelSource src;
  audit::AuditRequest req;
  if (!parse_audit_options(o, src, req)) return exit_usage;
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded || !plan_audit(o, *loaded, src, req)) return exit_usage;
  if (o.list) return list_audit_checks(src, req);

  audit::Limits limits;
  limits.timeout_seconds = o.timeout;
  limits.memory_bytes = static_cast<std::size_t>(memory_mib(o)) << 20;
  // Starts the kernel process(es): here, to report loading errors before anything runs, and once
  // more in each worker process of -j N (a fork server or program serves one process only).
  const auto make_backend = [src, limits]() -> std::unique_ptr<audit::Backend> {
    if (!src.exec.empty()) {
      std::vector<std::pair<audit::Kind, Dtype>> ks;
      for (const auto& b : src.bindings) ks.emplace_back(b.kind, b.dtype);
      return std::make_unique<audit::ExecBackend>(src.exec, ks, limits, src.abi != 0 ? src.abi : 1);
    }
    return std::make_unique<audit::LibraryBackend>(src.library, src.bindings, limits, src.abi);
  };
  std::unique_ptr<audit::Backend> backend;
  try {
    backend = make_backend();
  } catch (const audit::LoadError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_usage;
  }
  if (auto* exec = dynamic_cast<audit::ExecBackend*>(backend.get()); exec && !exec_serves_requested(*exec, src)) return exit_usage;
  req.jobs = o.jobs > 0 ? o.jobs : property::default_jobs();
  req.worker_backend = make_backend;

  const auto t0 = std::chrono::steady_clock::now();
  const std::string started = utc_now();
  auto rows = run_audit_checks(o, *backend, req);
  add_replay_lines(rows, o, global, src, req);

  // The text and JUnit reports are the gate's.
  GateReport report;
  report.version = ATTNCHECK_VERSION;
  report.seed = req.params.seed;
  report.cases = req.params.cases;
  report.kernels = backend->describe();
  report.timings = !o.no_timings;
  report.command = "audit";
  report.tolerance = req.params.tolerance.text();
  report.quiet = o.quiet;
  report.verbose = o.verbose;
  report.coverage = o.coverage;
  report.color = use_color(STDOUT_FILENO);
  report.started_utc = started;
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<contract::Contract> chosen;
  for (const auto& c : loaded->contracts)
    if (o.contracts.empty() || std::find(o.contracts.begin(), o.contracts.end(), c.id) != o.contracts.end()) chosen.push_back(c);
  describe_contracts(report, chosen, global.contracts_dir);
  describe_audit_obligations(report);
  for (const auto& c : loaded->contracts)  // the AUDIT-* checks run whichever contracts were chosen
    for (const auto& a : c.audit_properties)
      if (!a.if_fails.empty()) report.test_causes.emplace(a.id, a.if_fails);
  add_audit_rows(report, rows, *backend);
  return report_audit(o, src, req, *backend, rows, report);
}

}  // namespace

Command setup_audit(CLI::App& parent, const Global& global) {
  auto o = std::make_shared<AuditOptions>();
  CLI::App* app = parent.add_subcommand(
      "audit", "Check a third-party kernel (shared library or program) against every applicable obligation, in a child process");
  app->fallthrough();
  app->add_option("--lib", o->lib, "Shared library exporting kernels with the C ABI of include/attncheck/abi.h");
  app->add_option("--kernel", o->kernels,
                  "KIND:DTYPE:SYMBOL with --lib, KIND:DTYPE with --exec (repeatable). Kinds: softmax, log_softmax, scores, "
                  "rmsnorm, entropy, attention (ABI version 2's batched attention for a library exporting that version, "
                  "or under --abi 2), softmax_jvp, attention_backward (ABI version 2's backward pass), attention_merge (ABI "
                  "version 2's merge of split-KV partial results), attention_varlen (ABI version 2's attention over a packed "
                  "variable-length batch, FlashAttention's varlen API), attention_paged (ABI version 2's attention over a paged "
                  "KV cache: a block table of pages, as vLLM's PagedAttention), attention_fp8kv (ABI version 2's attention over an "
                  "FP8 KV cache: E4M3FN or E5M2 codes with per-tensor or per-head scales), kv_quantize (ABI version 2's FP8 cache "
                  "write: the codes of x / scale, saturating or not); dtypes: f32, f64, f16 and bf16 (storage; f32 arithmetic: "
                  "the same as f16@f32, bf16@f32), f16@f16 and bf16@bf16 (16-bit arithmetic)");
  app->add_option("--bindings", o->bindings, "YAML file naming the library and its kernels (see docs/audit.md)");
  app->add_option("--exec", o->exec, "Program serving kernels over the exec protocol on stdin/stdout (docs/audit-protocol.md)");
  add_check_selection_options(*app, *o,
                              {"Only the tests of this contract (repeatable; default: all)",
                               "Only this test ID, FALSIFY-... or AUDIT-... (repeatable)",
                               "Only this dtype (repeatable; default: every dtype given a kernel)",
                               "Run seed, decimal or 0x hex; same seed, same cases", "Successful random cases per check"});
  app->add_option("--timeout", o->timeout, "Seconds of CPU time one kernel call may use before it is killed (attention calls: plus 1 s per 2e7 multiply-adds); a call waiting for a busy machine is not cut short (docs/audit.md)")->capture_default_str();
  app->add_option("--memory", o->memory_mib,
                  "MiB of address space the kernel process may add (--lib; default 1024) or use in all (--exec; default 4096: "
                  "interpreters reserve much at start); an allocation failure the program reports is an ERROR naming this limit");
  app->add_option("--tolerance", o->tolerance,
                  "How accuracy against the oracle is judged: derived (default), ulp:N, abs:A,rel:R or baseline:K "
                  "(error <= K x that of attncheck's plain reference kernel at the same format); overrides the "
                  "bindings file's");
  app->add_option("--masked", o->masked,
                  "What a fully masked row (all -inf) must give, for every kernel: zeros (log_softmax: all -inf), nan or "
                  "either (default either); replaces the bindings file's masked: policies (per kernel there). For "
                  "the attention kinds of ABI version 2 (dense, split or not, merge, varlen, paged, FP8): the output of a "
                  "row with no visible key, in every check that meets one (--list names them)");
  app->add_option("--abi", o->abi,
                  "ABI version of the kernels (include/attncheck/abi.h): 2 makes `attention` the batched attention of "
                  "version 2. For --exec it selects (default 1); for --lib the library's exported "
                  "attncheck_abi_version() decides when it has one (--abi must then agree), else --abi (default 1)");
  app->add_flag("--no-lse", o->no_lse,
                "Attention, attention_merge, attention_varlen, attention_paged and attention_fp8kv of ABI version 2: the kernels return no log-sum-exp "
                "(they are never asked "
                  "for one: lse is NULL); "
                "replaces the bindings file's lse: entries");
  app->add_flag("--nondeterministic", o->nondeterministic,
                "The kernels may give different bits for the same input (atomic adds, split-K sums): AUDIT-DET-001 is "
                "not demanded, every run is judged against the derived bounds on its own; replaces the bindings file's "
                "deterministic: entries");
  app->add_option("--stores", o->stores,
                  "Attention and its backward pass with 16-bit storage and f32 arithmetic: what the kernels store in "
                  "the storage format along the way, the error model they are judged by: p (fused, the default: "
                  "scores and O in f32, the weights P rounded for P.V, as FlashAttention; its backward stores P and dS "
                  "for the products, as FlashAttention-2) or scores,p (also spelt scores,p,dp,ds or unfused: a graph "
                  "of separate ops, every op's output stored: q @ k^T and the score steps, P, and in the backward dP, "
                  "dS and each product, as PyTorch's autograd on bf16 tensors); replaces the bindings file's stores: "
                  "entries (docs/formats.md)");
  app->add_option("--subnormals", o->subnormals,
                  "What the kernels' arithmetic does below the smallest normal number: ieee (gradual underflow, the "
                  "default) or flush (flush-to-zero: results below the smallest normal may be 0, as most "
                  "vectorised exp implementations and GPU kernels built with FTZ give); every allowance gains the absolute "
                  "term that implies; for every kernel of the run, replaces the bindings file's subnormals: (docs/formats.md)");
  app->add_option("--splits", o->splits,
                  "Attention of ABI version 2, dense or paged: the kernel reads attncheck_attention_problem's num_splits "
                  "(split-KV decoding): it is told to split each row's keys into at most S parts (FALSIFY-MERGE-004 and, "
                  "paged, FALSIFY-PAGED-005 draw 1 to 6, capped at S; AUDIT-ATTB-002 and AUDIT-PAGED-001 run at S) and "
                  "judged by the bound for every such partition; without it num_splits is 0 and those two are not "
                  "applicable. A kernel that splits on its own (vLLM's 512-token partitions) needs S at least its most "
                  "parts. Replaces the bindings file's splits:")
      ->check(CLI::Range(1, 65535));
  app->add_flag("--page-size-invariant", o->page_size_invariant,
                "Attention over a paged KV cache: the kernel gives the same bits whatever the page size the same tokens "
                "are stored in (it gathers, or walks keys in logical order); FALSIFY-PAGED-002 then redraws the page size "
                "of its second placement. Without it the page size is kept (a kernel whose blocks follow the pages is "
                "correct); makes the bindings file's page_size_invariant: true");
  app->add_flag("--packing-invariant", o->packing_invariant,
                "Attention over a packed variable-length batch: the kernel computes each sequence in the order its dense "
                "attention kernel computes that sequence alone (one code path and tiling for both entry points); "
                "FALSIFY-VARLEN-003 then demands the dense kernel's bits (O and LSE), not twice the derived bound; makes the "
                "bindings file's packing_invariant: true");
  app->add_option("--supports", o->supports,
                  "Attention (ABI 1 and 2), attention_backward, attention_varlen, attention_paged, attention_fp8kv: what the kernel can "
                  "compute, [KIND:]FEATURE=VALUE "
                  "(repeatable): a flag feature yes or no (causal, non_causal, top_left, bottom_right, window, softcap, alibi, "
                  "n_gt_m, keyless_rows, empty_sequences, dv_ne_d), a valued one the numbers it takes (group=1,2,4 for H/H_kv, "
                  "d=64,128, page_size=16); default: everything. Inputs outside are not sent (the report counts them per "
                  "feature), a check with none inside is N/A, and an input inside that the kernel declines FAILS. Adds to the "
                  "bindings file's supports: (the last of a feature wins; docs/audit.md, \"Capabilities\")");
  app->add_option("--attention-shape", o->attention_shapes,
                  "Attention of ABI version 2: a shape AUDIT-ATTB-002 (and, for the backward pass, AUDIT-ATTBWD-001) audits instead of its three defaults (repeatable), "
                  "e.g. B=1,H=32,Hkv=8,n=4096,m=4096,d=128,causal=br; keys B H Hkv n m d dv scale causal=off|tl|br "
                  "align=tl|br window=L:R softcap=C alibi=geo|S1/S2/.., and the inputs' magnitudes qk=LO:HI (of the q "
                  "and k elements) shift=S (every score shifted by about S) (docs/audit.md)");
  add_report_options(*app, *o,
                     {"schema attncheck-audit/1, schema_version 7: docs/audit.md, docs/report-schema.json",
                      "one testcase per check and dtype; N/A ones skipped", " (AUDIT-* obligations: docs/audit.md)",
                      "seed and kernels"});
  add_jobs_option(*app, *o,
                  "Worker processes (0 = one per core, the default); each starts its own kernel process. The "
                  "reports are the same for every N (with --no-timings, byte for byte)",
                  true);
  app->add_flag("--replay", o->replay,
                "Re-run one check (exactly one --test and one --dtype, as printed in a report's Replay line) and show "
                "every element of a faulting input");
  app->add_flag("--list", o->list,
                "Print the checks the audit would run, one 'TEST_ID DTYPE' line each, and run none: no kernel is "
                "loaded or called, so --lib and --exec may be left out and --kernel may be KIND:DTYPE. The checks "
                "that judge the masked-row policy, with the kinds and the policy each applies, follow on stderr");
  app->footer("Reports are written atomically once the audit has finished. SIGINT stops after the checks in progress\n"
              "(which are discarded), prints what finished and writes no report (exit 130; a second SIGINT quits at\n"
              "once); SIGTERM stops at once, writing nothing (exit 143).\n"
              "Exit status: 0 every applicable check passed (or was NOT-JUDGED: the kernel declined every input), 1 a check\n"
              "failed (or ERROR/GAVE-UP), 2 usage or loading errors, or every check NOT-JUDGED (nothing was judged).");
  return {app, [o, &global] { return run_audit_command(*o, global); }};
}

}  // namespace attncheck::cli
