#!/usr/bin/env bash
# tools/check-coq-lifts.py must be able to fail: on copies of the tree, each with one planted
# inconsistency, it exits 1 and names it. Usage: coq_lifts_catch_stale.sh ROOT ATTNCHECK
set -uo pipefail
root="$1"; cli="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$cli" --contracts "$root/contracts" bmc --list > "$tmp/registry" || exit 1
fresh() {  # a copy of what the check reads
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/proofs" "$tmp/t/src/attncheck"
  cp -r "$root/contracts" "$root/harnesses" "$tmp/t/"; cp -r "$root/proofs/coq" "$tmp/t/proofs/"
  cp -r "$root/src/attncheck/kernels" "$root/src/attncheck/bounds" "$tmp/t/src/attncheck/"
  cp -r "$root/falsify" "$tmp/t/"  # the test that evaluates LSE-BND-001's allowance
}
fails=0
expect() {  # expect NAME PATTERN: the check exits 1 and prints PATTERN
  out="$(python3 "$root/tools/check-coq-lifts.py" "$tmp/t" "$tmp/registry" 2>&1)"; rc=$?
  if [ $rc -eq 1 ] && grep -qE "$2" <<<"$out"; then echo "caught: $1"
  else echo "NOT CAUGHT: $1 (exit $rc)"; echo "$out"; fails=1; fi
}
fresh; out="$(python3 "$root/tools/check-coq-lifts.py" "$tmp/t" "$tmp/registry")" \
  || { echo "the unmodified copy fails: $out"; exit 1; }
# A lemma's premise weakened in the harness (x <= m becomes x < m): its Coq statement is stale.
fresh; sed -i '/struct lem_sm_001/,/^};/s/x <= m/x < m/' "$tmp/t/harnesses/softmax_kernel.cpp"
expect "harness lemma edited" 'SoftmaxKernelLift.v:[0-9]+: STALE: lem_sm_001 in harnesses/softmax_kernel.cpp'
# The kernel's max step changed (>= instead of >): the Coq model of the kernel is stale.
fresh; sed -i 's/select(xi > m, xi, m)/select(xi >= m, xi, m)/' "$tmp/t/src/attncheck/kernels/softmax.hpp"
expect "kernel step edited" 'STALE: max_step in src/attncheck/kernels/softmax.hpp'
# A lift that no longer assumes a lemma the registry lists for its harness.
fresh; sed -i '/Hypothesis lem_ascl_004 : LEM_ASCL_004./d' "$tmp/t/proofs/coq/AttentionScalingLift.v"
expect "hypothesis dropped" 'bmc_ascl_003_all_d does not assume LEM-ASCL-004, which the registry lists for BMC-ASCL-003'
# A lift that assumes a lemma the solver does not prove for its harness.
fresh; sed -i 's/Hypothesis lem_ascl_002 : LEM_ASCL_002./&\nHypothesis lem_ascl_003 : LEM_ASCL_003./' "$tmp/t/proofs/coq/AttentionScalingLift.v"
expect "unproved lemma assumed" 'kani_ascl_002_all_d assumes LEM-ASCL-003, which the registry does not list for KANI-ASCL-002'
# A hypothesis that is not a step lemma at all.
fresh; sed -i 's/Hypothesis lem_sm_004 : LEM_SM_004./&\nHypothesis planted : forall x : float, x = x./' "$tmp/t/proofs/coq/SoftmaxKernelLift.v"
expect "non-lemma hypothesis" 'kani_sm_002_all_d assumes planted : .*not a step lemma'
# A comment quoting C++ with no anchor.
fresh; sed -i 's/ {transcribes src\/attncheck\/kernels\/softmax.hpp row_max #[0-9a-f]*}//' "$tmp/t/proofs/coq/SoftmaxKernelLift.v"
expect "unanchored transcription" 'quotes C\+\+ but names no'
# The bound functions the floating-point theorems conclude (issue 47): a planted change in the C++
# (the enclosure's (1−u)^{n−1} becomes (1−u)^{n−2} in softmax_bound_with) makes SM-BND-001's theorem stale.
fresh; sed -i '/softmax_bound_with(const/,/^}/s/static_cast<real>(n > 0 ? n - 1 : 0)/static_cast<real>(n > 1 ? n - 2 : 0)/' "$tmp/t/src/attncheck/bounds/softmax.hpp"
grep -q 'static_cast<real>(n > 1 ? n - 2 : 0)' "$tmp/t/src/attncheck/bounds/softmax.hpp" || { echo "the plant did not apply"; fails=1; }
expect "bound function edited ((1-u)^{n-1} -> (1-u)^{n-2})" 'SoftmaxRounding.v:[0-9]+: STALE: softmax_bound_with in src/attncheck/bounds/softmax.hpp'
# SM-BND-003's bound function: the exp argument's error u·gap_i halved in log_softmax_bound.
fresh; sed -i 's/const real B = md.u \* r.gap\[i\] + /const real B = md.u * r.gap[i] \/ 2 + /' "$tmp/t/src/attncheck/bounds/softmax.hpp"
grep -q 'md.u \* r.gap\[i\] / 2' "$tmp/t/src/attncheck/bounds/softmax.hpp" || { echo "the plant did not apply"; fails=1; }
expect "log-softmax bound function edited" 'SoftmaxRounding.v:[0-9]+: STALE: log_softmax_bound in src/attncheck/bounds/softmax.hpp'
# SM-INV-001's bound function: the enclosure's (1−u)^{n−1} becomes (1−u)^{n−2} in normalisation_bound.
fresh; sed -i '/normalisation_bound(std::size_t n/,/^}/s/static_cast<real>(n > 0 ? n - 1 : 0)/static_cast<real>(n > 1 ? n - 2 : 0)/' "$tmp/t/src/attncheck/bounds/softmax.hpp"
grep -q 'static_cast<real>(n > 1 ? n - 2 : 0)' "$tmp/t/src/attncheck/bounds/softmax.hpp" || { echo "the plant did not apply"; fails=1; }
expect "normalisation bound edited" 'SoftmaxRounding.v:[0-9]+: STALE: normalisation_bound in src/attncheck/bounds/softmax.hpp'
# LSE-BND-001's bound function (issue 47): (1+u)^n − 1 becomes (1+u)^n − 2 for the JVP's mean μ̂ in
# softmax_jvp_bound, and the test's own allowance sum (FALSIFY-LSE-004) loses its factor λ.
fresh; sed -i 's/(s2 > 0 ? (pw - 1) \* s2 : 0)/(s2 > 0 ? (pw - 2) * s2 : 0)/' "$tmp/t/src/attncheck/bounds/softmax_jvp.hpp"
grep -q '(pw - 2) \* s2' "$tmp/t/src/attncheck/bounds/softmax_jvp.hpp" || { echo "the plant did not apply"; fails=1; }
expect "JVP bound function edited ((1+u)^n - 1 -> (1+u)^n - 2)" 'SoftmaxJvpRounding.v:[0-9]+: STALE: softmax_jvp_bound in src/attncheck/bounds/softmax_jvp.hpp'
fresh; sed -i '/struct Lse004/,/^};/s/slack += lambda \* std::abs/slack += std::abs/' "$tmp/t/falsify/log_sum_exp.cpp"
grep -q 'slack += std::abs(static_cast<real>(to_double(v\[i\])))' "$tmp/t/falsify/log_sum_exp.cpp" || { echo "the plant did not apply"; fails=1; }
expect "LSE-BND-001 allowance edited" 'SoftmaxJvpRounding.v:[0-9]+: STALE: Lse004 in falsify/log_sum_exp.cpp'
# SLIP-BND-001's allowance sum in its test (FALSIFY-SLIP-003) loses its |v_i|.
fresh; sed -i '/struct Slip003/,/^};/s/slack += std::abs(to_double(v\[i\])) \* allowed\[i\]/slack += allowed[i]/' "$tmp/t/falsify/softmax_lipschitz.cpp"
grep -q 'slack += allowed\[i\]' "$tmp/t/falsify/softmax_lipschitz.cpp" || { echo "the plant did not apply"; fails=1; }
expect "SLIP-BND-001 allowance edited" 'SoftmaxJvpRounding.v:[0-9]+: STALE: Slip003 in falsify/softmax_lipschitz.cpp'
# MERGE-BND-001's bound functions: γ₆ becomes γ₅ in the LSE allowance of merge_row_error, and
# γ_{S+1} becomes γ_S in attention_merge_exact's output allowance.
fresh; sed -i '/merge_row_error(const/,/^}/s/gamma(6, u) \* (std::abs(M)/gamma(5, u) * (std::abs(M)/' "$tmp/t/src/attncheck/bounds/attention_merge.hpp"
grep -q 'gamma(5, u) \* (std::abs(M)' "$tmp/t/src/attncheck/bounds/attention_merge.hpp" || { echo "the plant did not apply"; fails=1; }
expect "merge LSE bound edited (gamma_6 -> gamma_5)" 'MergeRounding.v:[0-9]+: STALE: merge_row_error in src/attncheck/bounds/attention_merge.hpp'
fresh; sed -i 's/first + gamma(S + 1, a.u) \* second/first + gamma(S, a.u) * second/' "$tmp/t/src/attncheck/bounds/attention_merge.hpp"
grep -q 'first + gamma(S, a.u) \* second' "$tmp/t/src/attncheck/bounds/attention_merge.hpp" || { echo "the plant did not apply"; fails=1; }
expect "merge output bound edited (gamma_{S+1} -> gamma_S)" 'MergeRounding.v:[0-9]+: STALE: attention_merge_exact in src/attncheck/bounds/attention_merge.hpp'
# The error model's γ itself edited.
fresh; sed -i 's|return ku < 1 ? ku / (1 - ku)|return ku < 1 ? ku / (1 - 2 * ku)|' "$tmp/t/src/attncheck/bounds/error_model.hpp"
expect "gamma edited" 'STALE: gamma in src/attncheck/bounds/error_model.hpp'
# A bound theorem linked float: that names no bound function it concludes.
fresh; perl -0pi -e 's/\{transcribes src\/attncheck\/bounds\/softmax.hpp softmax_bound_with #[0-9a-f]+\}\n    \{transcribes src\/attncheck\/bounds\/softmax.hpp softmax_bound #[0-9a-f]+\} \*\)\nTheorem softmax_fl_element_bound /*)\nTheorem softmax_fl_element_bound /' "$tmp/t/proofs/coq/SoftmaxRounding.v"
expect "bound theorem unanchored" 'softmax_fl_element_bound \(float: for the bound SM-BND-001\) names no'
exit $fails
