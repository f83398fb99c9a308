// attncheck: property and mutant registries, and the RapidCheck runner behind `attncheck gate`.
#include "attncheck/property/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <rapidcheck.h>
#include <rapidcheck/Check.h>  // rc::detail::checkProperty: the entry point that does not print

#include "attncheck/text/numbers.hpp"

namespace attncheck::property {

namespace {
std::vector<PropertyInfo>& property_store() {
  static std::vector<PropertyInfo> v;
  return v;
}
std::vector<MutantInfo>& mutant_store() {
  static std::vector<MutantInfo> v;
  return v;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// One series being sampled: a bounded reservoir keeping the max_sample_points offered points of
// smallest priority, where priority = splitmix64(seed of the series, index of the offer). That is
// a uniform sample of every offer, and a pure function of the check's seed and its offers.
struct Reservoir {
  SampleSeries series;
  std::uint64_t key = 0;  // mixes the check's seed with the series' name and subject
  struct Kept {
    std::uint64_t priority, index;
    std::vector<double> values;
    bool operator<(const Kept& o) const { return priority < o.priority || (priority == o.priority && index < o.index); }
  };
  std::vector<Kept> heap;  // a max-heap on priority while sampling

  void offer(std::initializer_list<double> values) {
    const std::uint64_t index = series.offered++;
    for (double v : values)
      if (!std::isfinite(v)) {
        ++series.nonfinite;
        return;
      }
    const Kept k{splitmix64(key ^ splitmix64(index)), index, {}};
    if (heap.size() == max_sample_points && !(k < heap.front())) return;
    if (heap.size() == max_sample_points) {
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
    }
    heap.push_back(k);
    heap.back().values.assign(values.begin(), values.end());
    std::push_heap(heap.begin(), heap.end());
  }
  // The kept points in the order they were offered.
  SampleSeries finish() {
    std::sort(heap.begin(), heap.end(), [](const Kept& a, const Kept& b) { return a.index < b.index; });
    for (const Kept& k : heap) series.points.insert(series.points.end(), k.values.begin(), k.values.end());
    return std::move(series);
  }
};

// Largest error/allowed ratio seen during one run, over every case RapidCheck tried.
struct WorstSeen {
  std::uint64_t seed = 0;              // the check's derived seed: keys the sample reservoirs
  std::vector<Reservoir> samples;      // in the order of their first offer
  double ratio = 0;
  std::string where;
  std::vector<double> all;  // every observed ratio, for the median
  std::size_t unbounded = 0;
  std::vector<std::string> findings;  // note_finding, each text once
  std::vector<CoverageSeries> coverage;  // cover, by generator
  bool covering = true;                  // false once a case has failed: shrink steps are not counted
  // The case being evaluated: its largest observed ratio, and that of the comparison its failure
  // states (observe_failure; -1 when none).
  double case_ratio = 0, case_failure_ratio = -1;
};
thread_local WorstSeen* current_worst = nullptr;

// Counts shrink steps so the report can say "after N cases and M shrinks".
class ShrinkCounter final : public rc::detail::TestListener {
 public:
  int accepted = 0;
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool ok) override { accepted += ok ? 1 : 0; }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::gave_up: return "GAVE-UP";
    case Verdict::error: return "ERROR";
  }
  return "?";
}

const std::vector<PropertyInfo>& properties() { return property_store(); }
const std::vector<MutantInfo>& mutants() { return mutant_store(); }

const PropertyInfo* find_property(std::string_view id) {
  for (const auto& p : property_store())
    if (p.id == id) return &p;
  return nullptr;
}
const MutantInfo* find_mutant(std::string_view name) {
  for (const auto& m : mutant_store())
    if (m.name == name) return &m;
  return nullptr;
}

void add_property(PropertyInfo p) {
  auto& v = property_store();
  if (find_property(p.id)) throw std::logic_error("property registered twice: " + p.id);
  v.push_back(std::move(p));
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
}
void add_mutant(MutantInfo m) {
  auto& v = mutant_store();
  if (find_mutant(m.name)) throw std::logic_error("mutant registered twice: " + m.name);
  v.push_back(std::move(m));
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

template <class T>
KernelSet<T> kernels_for(std::string_view mutant) {
  // 16-bit storage with f32 arithmetic: the f32 kernels (mutated or not), converted in and
  // rounded once to T (computed_in), so that every mutant has its mixed-precision form.
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    if (current_arithmetic() == Arithmetic::f32) return computed_in<T, float>(kernels_for<float>(mutant));
  KernelSet<T> k = reference_kernels<T>();
  if (mutant.empty() || mutant == "reference") return k;
  const MutantInfo* m = find_mutant(mutant);
  if (!m) throw std::invalid_argument("unknown mutant '" + std::string(mutant) + "'");
  if constexpr (std::is_same_v<T, f16>) m->apply_f16(k);
  else if constexpr (std::is_same_v<T, bf16>) m->apply_bf16(k);
  else if constexpr (std::is_same_v<T, float>) m->apply_f32(k);
  else m->apply_f64(k);
  k.name = m->name;
  return k;
}
template KernelSet<f16> kernels_for<f16>(std::string_view);
template KernelSet<bf16> kernels_for<bf16>(std::string_view);
template KernelSet<float> kernels_for<float>(std::string_view);
template KernelSet<double> kernels_for<double>(std::string_view);

std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view test_id, Dtype d) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the ID, then mixed with seed and dtype
  for (unsigned char c : test_id) h = (h ^ c) * 0x100000001b3ull;
  return splitmix64(run_seed ^ splitmix64(h ^ static_cast<std::uint64_t>(d)));
}

std::string replay_command(const Outcome& o, const RunParams& params) {
  std::ostringstream s;
  s << "attncheck gate --test " << o.test_id << " --dtype " << dtype_name(o.dtype) << " --seed "
    << hex_u64(params.seed) << " --cases " << params.cases;
  if (!params.mutant.empty()) s << " --mutant " << params.mutant;
  if (params.tolerance.mode != Tolerance::Mode::derived) s << " --tolerance " << params.tolerance.text();
  return s.str();
}

void fail(const std::string& message) {
  RC_FAIL(message);
  throw std::logic_error("unreachable");  // RC_FAIL throws; keeps [[noreturn]] honest
}

void observe(double ratio, const std::string& where) {
  if (!current_worst) return;
  if (ratio != ratio) ratio = std::numeric_limits<double>::infinity();  // NaN: worst possible
  current_worst->all.push_back(ratio);
  current_worst->case_ratio = std::max(current_worst->case_ratio, ratio);
  if (ratio > current_worst->ratio) {
    current_worst->ratio = ratio;
    current_worst->where = where;
  }
}

void observe_failure(double ratio, const std::string& where) {
  if (!current_worst) return;
  if (ratio != ratio) ratio = std::numeric_limits<double>::infinity();
  current_worst->case_failure_ratio = ratio;
  // A case that observed nothing else (a check that only reports its failing comparison) counts
  // this one in the median too; the others have observed it already (expect_close).
  if (current_worst->case_ratio == 0) current_worst->all.push_back(ratio);
  current_worst->case_ratio = std::max(current_worst->case_ratio, ratio);
  if (ratio > current_worst->ratio) {
    current_worst->ratio = ratio;
    current_worst->where = where;
  }
}

void note_finding(const std::string& text) {
  if (!current_worst) return;
  auto& f = current_worst->findings;
  if (std::find(f.begin(), f.end(), text) == f.end()) f.push_back(text);
}

void sample(std::string_view name, std::string_view subject, std::initializer_list<std::string_view> columns,
            std::initializer_list<double> values) {
  if (!current_worst) return;
  auto& all = current_worst->samples;
  auto it = std::find_if(all.begin(), all.end(), [&](const Reservoir& r) { return r.series.name == name && r.series.subject == subject; });
  if (it == all.end()) {
    Reservoir r;
    r.series.name = name;
    r.series.subject = subject;
    r.series.columns.assign(columns.begin(), columns.end());
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over "name/subject"
    for (unsigned char c : std::string(name) + "/" + std::string(subject)) h = (h ^ c) * 0x100000001b3ull;
    r.key = splitmix64(current_worst->seed ^ h);
    all.push_back(std::move(r));
    it = all.end() - 1;
  }
  if (it->series.columns.size() != values.size()) throw std::logic_error("sample: series " + std::string(name) + " offered a point of another width");
  it->offer(values);
}

namespace {
template <class Regions>
void cover_regions(std::string_view generator, const Regions& regions) {
  if (!current_worst || !current_worst->covering) return;
  auto& all = current_worst->coverage;
  auto it = std::find_if(all.begin(), all.end(), [&](const CoverageSeries& c) { return c.generator == generator; });
  if (it == all.end()) {
    all.push_back({std::string(generator), 0, {}, {}});
    it = all.end() - 1;
  }
  ++it->draws;
  for (const Region& r : regions) {
    auto at = std::find(it->regions.begin(), it->regions.end(), r.name);
    if (at == it->regions.end()) {
      it->regions.emplace_back(r.name);
      it->counts.push_back(0);
      at = it->regions.end() - 1;
    }
    it->counts[static_cast<std::size_t>(at - it->regions.begin())] += r.reached ? 1 : 0;
  }
}
}  // namespace

void cover(std::string_view generator, std::initializer_list<Region> regions) { cover_regions(generator, regions); }
void cover(std::string_view generator, const std::vector<Region>& regions) { cover_regions(generator, regions); }

void note_unbounded() {
  if (current_worst) ++current_worst->unbounded;
}

namespace {
// A failing evaluation's text as the report shows it: RC_FAIL prefixes "file:line:\nRC_FAIL(message)\n\n";
// only the property's own report is kept, ending in a newline.
std::string failure_text(std::string text) {
  if (const auto at = text.find("RC_FAIL(message)\n"); at != std::string::npos) text = text.substr(at + 17);
  while (!text.empty() && text.front() == '\n') text.erase(0, 1);
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}
}  // namespace

namespace detail {
void run_rapidcheck(const std::function<void()>& body, const RunParams& params, Outcome& out) {
  rc::detail::TestParams tp;
  tp.seed = out.seed;
  tp.maxSuccess = params.cases;
  tp.maxSize = 100;
  tp.maxDiscardRatio = params.max_discard_ratio;
  rc::detail::TestMetadata meta;
  meta.id = out.test_id;
  meta.description = out.test_id;
  WorstSeen worst;
  worst.seed = out.seed;
  current_worst = &worst;
  ShrinkCounter shrinks;
  // Shrinking a 4096-entry row re-runs the 200-bit oracle thousands of times. After the first
  // failure, at most shrink_budget further evaluations are made; once spent, every candidate is
  // treated as passing, so RapidCheck reports the smallest failure found so far. Counting
  // evaluations (not seconds) keeps the result the same on every machine.
  constexpr int shrink_budget = 400;
  int after_failure = -1;  // evaluations since the first failure; -1 before it
  std::string last_failure;  // message of the latest failing evaluation = the smallest case so far
  bool undecided = false;    // ... and it was the oracle that could not decide (oracle::tiered::no_verdict)
  // The ratio of each failing evaluation: that of the comparison its report states, else the largest
  // it observed when above 1, else 0 (a failure that is not an error against an allowance).
  double last_failure_ratio = 0, worst_failure_ratio = 0;
  std::string worst_failure;  // the failing evaluation of the largest ratio
  const auto failed = [&](std::string text, bool oracle_undecided) {
    if (after_failure < 0) after_failure = 0;
    last_failure = std::move(text);
    undecided = oracle_undecided;
    last_failure_ratio = worst.case_failure_ratio >= 0 ? worst.case_failure_ratio : worst.case_ratio > 1 ? worst.case_ratio : 0;
    if (last_failure_ratio > worst_failure_ratio) {
      worst_failure_ratio = last_failure_ratio;
      worst_failure = last_failure;
    }
  };
  const auto budgeted = [&] {
    if (after_failure >= shrink_budget) return;
    if (after_failure >= 0) ++after_failure;
    worst.covering = after_failure < 0;
    worst.case_ratio = 0;
    worst.case_failure_ratio = -1;
    try {
      body();
    } catch (const rc::GenerationFailure&) {
      throw;  // RapidCheck discards the case (a generator could not produce a value): not a failure
    } catch (const rc::detail::CaseResult& r) {
      if (r.type == rc::detail::CaseResult::Type::Failure) failed(r.description, false);
      throw;
    } catch (const std::exception& e) {
      failed(std::string("exception: ") + e.what(), dynamic_cast<const oracle::tiered::no_verdict*>(&e) != nullptr);
      throw;
    } catch (...) {
      failed("unknown exception", false);
      throw;
    }
  };
  oracle::tiered::tally certified;  // counts every reference value the checks asked for
  tolerance_scope tolerance(params.tolerance);
  // Every case is generated at RapidCheck's nominal size. Debian's RapidCheck scales gen::inRange,
  // gen::container and gen::arbitrary<integer> with the size, which runs from 0 to maxSize over a
  // run: `*rc::gen::inRange(1, 257)` in a property would give d = 1 in the first cases and reach
  // 256 only in the last. At the nominal size they draw from the whole range they name, in every
  // case; shrinking still goes towards the small end. (falsify/gen/values.hpp's generators ignore
  // the size anyway; tests/generators_test.cpp measures both.)
  const auto result =
      rc::detail::checkProperty(rc::gen::resize(rc::kNominalSize, rc::detail::toProperty(budgeted)), meta, tp, shrinks);
  current_worst = nullptr;
  out.certified = certified.counts;
  out.worst_ratio = worst.ratio;
  out.worst_case = worst.where;
  out.observations = worst.all.size();
  out.unbounded = worst.unbounded;
  out.findings = worst.findings;
  out.coverage = std::move(worst.coverage);
  out.samples.clear();
  for (Reservoir& r : worst.samples) out.samples.push_back(r.finish());
  if (!worst.all.empty()) {
    auto mid = worst.all.begin() + static_cast<std::ptrdiff_t>(worst.all.size() / 2);
    std::nth_element(worst.all.begin(), mid, worst.all.end());
    out.median_ratio = *mid;
  }
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    out.verdict = Verdict::pass;
    out.cases = success.numSuccess;
  } else if (result.match(failure)) {
    out.verdict = Verdict::fail;
    out.cases = failure.numSuccess + 1;
    std::ostringstream s;
    s << failure_text(last_failure.empty() ? failure.description : last_failure);
    s << "  Found after " << out.cases << " cases and " << shrinks.accepted << " shrinks, seed "
      << hex_u64(out.seed) << " (derived from run seed " << hex_u64(params.seed) << ")\n";
    if (after_failure >= shrink_budget) s << "  (shrinking stopped after " << shrink_budget << " evaluations)\n";
    for (const auto& [type, value] : failure.counterExample)
      s << "  Drawn " << type << ": " << (value.size() > 400 ? value.substr(0, 400) + " ..." : value) << "\n";
    out.counterexample = s.str();
    out.counterexample_ratio = last_failure_ratio;
    out.worst_failure_ratio = worst_failure_ratio;
    if (worst_failure_ratio > last_failure_ratio) out.worst_failure = failure_text(worst_failure);
    if (undecided) {  // not a counterexample: the oracle could not judge this case
      out.verdict = Verdict::error;
      out.message = "the oracle could not decide a case (" + out.counterexample + ")";
      out.counterexample.clear();
    }
  } else if (result.match(gave_up)) {
    out.verdict = Verdict::gave_up;
    out.cases = gave_up.numSuccess;
    out.message = gave_up.description;
  } else if (result.match(error)) {
    out.verdict = Verdict::error;
    out.message = error.description;
  }
}
}  // namespace detail

Outcome run_property(const PropertyInfo& p, Dtype d, const RunParams& params) {
  Outcome out;
  out.test_id = p.id;
  out.dtype = d;
  out.kernels = params.kernels ? params.kernels->name : params.mutant.empty() ? "reference" : params.mutant;
  out.seed = derive_seed(params.seed, p.id, d);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    p.run(d, params, out);
  } catch (const std::exception& e) {
    out.verdict = Verdict::error;
    out.message = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.replay = replay_command(out, params);
  return out;
}

}  // namespace attncheck::property
