#!/usr/bin/env bash
# attncheck: `attncheck show SM-INV-001` prints, under Where:, file:line of each artefact, and the
# line it names holds that artefact. Usage: tests/show_where.sh ATTNCHECK ROOT
set -uo pipefail
cli="$1"; cd "$2" || exit 2
out="$("$cli" --contracts contracts show SM-INV-001)" || exit 1
echo "$out" | sed -n '/^Where:/,$p'
ok=1
# kind, file, text the named line must contain
while read -r kind file text; do
  loc="$(echo "$out" | sed -n '/^Where:/,$p' | grep -E "^  $kind +$file:[0-9]+" | grep -F "$text" | head -1 | awk '{print $2}')"
  if [ -z "$loc" ]; then echo "FAIL: no $kind line at $file"; ok=0; continue; fi
  line="${loc##*:}"
  sed -n "${line}p" "$file" | grep -qF "$text" || { echo "FAIL: $loc does not hold $text"; ok=0; }
done <<'LIST'
yaml contracts/softmax-kernel-v1.yaml SM-INV-001
property falsify/softmax_kernel.cpp FALSIFY-SM-001
harness harnesses/softmax_kernel.cpp KANI-SM-001
harness harnesses/softmax_kernel_gappa.cpp GAPPA-SM-001
proof proofs/softmax_kernel.tex SM-INV-001
coq proofs/coq/SoftmaxKernel.v softmax_sum_1
mutant falsify/mutants/softmax_kernel.cpp softmax_no_max_subtraction
mutant harnesses/mutants.cpp softmax_no_max_subtraction
LIST
[ $ok = 1 ] && echo "show: every artefact of SM-INV-001 at the line it names"
