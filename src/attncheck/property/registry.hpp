// attncheck: the registry of falsification properties and mutants, and the runner that checks a
// property with RapidCheck under a fixed seed and reports a verdict with its counterexample.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <functional>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/scalar/dtype.hpp"
#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/property/tolerance.hpp"
#include "attncheck/oracle/tiered.hpp"

namespace attncheck::property {

struct RunParams {
  std::uint64_t seed = 0x5eed2026;  // the run's seed; each (test, dtype) derives its own from it
  int cases = 200;                  // RapidCheck successful cases per (test, dtype)
  std::string mutant;               // empty: the reference kernels
  // Non-null: the properties check these kernels instead of the reference or a mutant (attncheck
  // audit); a run at a dtype they do not cover is an error, never a silent run of the reference.
  std::shared_ptr<const KernelSets> kernels;
  Tolerance tolerance;              // how accuracy comparisons are judged (derived by default)
  int max_discard_ratio = 10;       // RapidCheck gives up after this many discards per case asked
};

enum class Verdict { pass, fail, gave_up, error };

// A bounded, deterministic sample of per-case measurements of one check, for the report's plots
// (docs/report-schema.json, "samples"). At most max_sample_points points are kept, chosen from
// every point offered during the run by a priority derived from the check's seed and the point's
// index, so the same seed keeps the same points whichever process runs the check.
struct SampleSeries {
  std::string name;                  // what is measured: "error", "error-vs-gap", "lipschitz", ...
  std::string subject;               // what it is about: a kernel ("softmax") or a stage ("stage 1")
  std::vector<std::string> columns;  // the meaning of each value of a point
  std::vector<double> points;        // columns.size() values per point, points in the order offered
  std::uint64_t offered = 0;         // points offered during the run (kept or not)
  std::uint64_t nonfinite = 0;       // offered points with a NaN or infinite value: never kept
};
inline constexpr std::size_t max_sample_points = 160;

// Generator coverage of one check (docs/reports.md, "Generator coverage"): for one generator,
// how many inputs it drew and how many of them fell in each input region it names. A region with
// count 0 was named (the generator can produce it for this check) but never reached.
struct CoverageSeries {
  std::string generator;              // what drew the inputs: "row", "row with a non-finite entry", ...
  std::uint64_t draws = 0;            // inputs drawn in the run's cases (not in shrink steps)
  std::vector<std::string> regions;   // in the order first named
  std::vector<std::uint64_t> counts;  // per region: draws that reached it
};
std::string_view verdict_name(Verdict v);

struct Outcome {
  std::string test_id;
  Dtype dtype = Dtype::f32;
  std::string kernels = "reference";  // "reference" or the mutant's name
  Verdict verdict = Verdict::error;
  int cases = 0;                  // cases run (successful ones, plus the failing one)
  double seconds = 0;
  std::uint64_t seed = 0;         // the derived seed handed to RapidCheck
  std::string counterexample;     // the shrunk failing case, formatted (empty on pass)
  std::string message;            // gave-up or error text
  double worst_ratio = 0;         // largest (error / allowed) seen over all cases, shrinks included
  double median_ratio = 0;        // median of all observed ratios: the typical tightness
  std::size_t observations = 0;   // how many ratios were observed
  std::size_t unbounded = 0;      // observations whose derived allowance was infinite (γ_n >= 1)
  oracle::tiered::tier_counts certified;  // reference values from the tiered oracle, by tier
  std::string worst_case;         // where it was seen
  // The failing cases' own figures (0 when the check passed or its failure states no ratio): the
  // error/allowance of the shrunk counterexample's failing comparison, and the failing case with the
  // largest one. Shrinking seeks the smallest failing input, not the largest error, so a kernel 10^4
  // off can shrink to a case at ratio 1.006: reports show both, labelled (docs/reports.md).
  double counterexample_ratio = 0;
  double worst_failure_ratio = 0;
  std::string worst_failure;      // that case as the property reported it; empty when it is the counterexample
  std::vector<std::string> findings;  // measured facts a property reports on a pass (note_finding)
  std::vector<SampleSeries> samples;  // per-case measurements for plots (sample), by first offer
  std::vector<CoverageSeries> coverage;  // input regions reached (cover), by generator in first-draw order
  std::string replay;             // the command that reruns exactly this check
};

// A property body for scalar T: draws its inputs with *gen, calls the kernels in ks and states
// the obligation with RC_ASSERT / fail(). Never catches RapidCheck's exceptions.
struct PropertyInfo {
  std::string id;     // FALSIFY-...
  std::string title;  // the property as a sentence
  std::vector<Dtype> dtypes;
  std::function<void(Dtype, const RunParams&, Outcome&)> run;  // filled by register_property
  std::source_location where;  // the registration, inside the property's struct (`attncheck show`)
  // It judges rows that see no key by the kernel set's masked-row policy (KernelSet::
  // attention_*_masked): `static constexpr bool judges_masked_policy = true;` in the struct. The
  // audit names the policy on its rows and in `audit --list`.
  bool judges_masked_policy = false;
};

struct MutantInfo {
  std::string name;
  std::string description;
  std::vector<std::string> caught_by;  // FALSIFY IDs that must fail on this mutant
  std::function<void(KernelSet<f16>&)> apply_f16;
  std::function<void(KernelSet<bf16>&)> apply_bf16;
  std::function<void(KernelSet<float>&)> apply_f32;
  std::function<void(KernelSet<double>&)> apply_f64;
  std::source_location where{};  // where it is registered (register_mutant's call)
};

const std::vector<PropertyInfo>& properties();
const PropertyInfo* find_property(std::string_view id);
const std::vector<MutantInfo>& mutants();
const MutantInfo* find_mutant(std::string_view name);

// The kernel set for a run: the reference, or the reference with one mutant applied.
// Throws std::invalid_argument for an unknown mutant name.
template <class T>
KernelSet<T> kernels_for(std::string_view mutant);

// The kernel set a run checks: params.kernels at T if given (std::invalid_argument if they do not
// cover T), else kernels_for(params.mutant).
template <class T>
KernelSet<T> kernels_under_test(const RunParams& params) {
  if (!params.kernels) return kernels_for<T>(params.mutant);
  const KernelSet<T>* k = params.kernels->find<T>();
  if (!k) throw std::invalid_argument("the kernels '" + params.kernels->name + "' have no set at " + std::string(dtype_name(dtype_of<T>())));
  return *k;
}

// Runs one property at one dtype.
Outcome run_property(const PropertyInfo& p, Dtype d, const RunParams& params);

// The seed RapidCheck gets for (run seed, test, dtype): independent of which other tests run.
std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view test_id, Dtype d);

std::string replay_command(const Outcome& o, const RunParams& params);

// ---- used inside property bodies ----

// Fails the current case with a message (RapidCheck shrinks it and keeps the last message).
[[noreturn]] void fail(const std::string& message);

// Records error/allowed for the "largest error seen" report; where says what was measured.
void observe(double ratio, const std::string& where);

// Records the error/allowed of the comparison a failure states (Report::error calls it): the
// largest error seen includes it, and it is the failing case's ratio in the report.
void observe_failure(double ratio, const std::string& where);

// Records a measured fact worth printing even when the property passes (e.g. the smallest
// distance an exhaustive search found, and where): the gate prints it under its row.
void note_finding(const std::string& text);

// Offers one point of the series (name, subject) for the report's plots; columns names its values
// (the same on every offer of a series). Cheap when the point is not kept: nothing is copied.
void sample(std::string_view name, std::string_view subject, std::initializer_list<std::string_view> columns,
            std::initializer_list<double> values);

// One region of an input, as a generator names it for cover(): its name and whether this draw is in it.
struct Region {
  std::string_view name;
  bool reached;
};
// Records one input drawn by `generator`: every region the generator can produce for this check,
// each with whether this input reached it. Nothing is recorded once a case has failed (shrink
// steps re-draw smaller inputs; they are not inputs of the run).
void cover(std::string_view generator, std::initializer_list<Region> regions);
void cover(std::string_view generator, const std::vector<Region>& regions);

// Records that a check had no finite derived allowance (the a-priori bound says nothing there):
// such cases pass without testing anything, and the gate says how many there were.
void note_unbounded();

// ---- registration (used by falsify/*.cpp and falsify/mutants/*.cpp) ----
void add_property(PropertyInfo p);
void add_mutant(MutantInfo m);

namespace detail {
// Runs body under RapidCheck with the derived seed; fills the verdict fields of out.
void run_rapidcheck(const std::function<void()>& body, const RunParams& params, Outcome& out);
}  // namespace detail

// P is a struct with `static constexpr const char* id, title;` and
// `template <class T> static void check(const KernelSet<T>&);`, registered from inside itself:
//   static inline const bool registered = property::register_property<P>();
// so that a property is its struct and its YAML entry, and `where` points into the struct.
template <class P>
bool register_property(std::vector<Dtype> dtypes = {all_dtypes.begin(), all_dtypes.end()},
                       std::source_location where = std::source_location::current()) {
  PropertyInfo info;
  info.where = where;
  info.id = P::id;
  info.title = P::title;
  info.dtypes = std::move(dtypes);
  if constexpr (requires { P::judges_masked_policy; }) info.judges_masked_policy = P::judges_masked_policy;
  info.run = [](Dtype d, const RunParams& params, Outcome& out) {
    visit_dtype(d, [&]<class T>() {
      const KernelSet<T> ks = kernels_under_test<T>(params);
      detail::run_rapidcheck([&ks] { P::template check<T>(ks); }, params, out);
    });
  };
  add_property(std::move(info));
  return true;
}

// M is a struct with `static constexpr const char* name, description;`,
// `static std::vector<std::string> caught_by();` and `template <class T> static void apply(KernelSet<T>&);`.
template <class M>
bool register_mutant(std::source_location where = std::source_location::current()) {
  MutantInfo m;
  m.where = where;
  m.name = M::name;
  m.description = M::description;
  m.caught_by = M::caught_by();
  m.apply_f16 = [](KernelSet<f16>& k) { M::template apply<f16>(k); };
  m.apply_bf16 = [](KernelSet<bf16>& k) { M::template apply<bf16>(k); };
  m.apply_f32 = [](KernelSet<float>& k) { M::template apply<float>(k); };
  m.apply_f64 = [](KernelSet<double>& k) { M::template apply<double>(k); };
  add_mutant(std::move(m));
  return true;
}

}  // namespace attncheck::property
