#!/usr/bin/env bash
# attncheck: reads the output of Coq's `Print Assumptions` commands (stdin) and fails if any
# theorem rests on an axiom outside the standard ones of Coq's classical real numbers, or if no
# assumption report is found at all. Usage: coqc ... All.v | tools/check-coq-assumptions.sh
set -euo pipefail

# Coq 8.16's Reals are built on these (Rdefinitions, ClassicalDedekindReals); Coquelicot and
# Flocq add none. Anything else is a new assumption and fails the check.
allowed='^(FunctionalExtensionality\.functional_extensionality_dep|ClassicalDedekindReals\.sig_forall_dec|ClassicalDedekindReals\.sig_not_dec|Classical_Prop\.classic)$'

out="$(cat)"
reports=$(grep -cE '^(Axioms:|Closed under the global context)$' <<<"$out" || true)
if [ "$reports" -eq 0 ]; then echo "check-coq-assumptions: no Print Assumptions output" >&2; exit 1; fi

# Axiom names start in column 0 (their types are indented or follow " : ").
names=$(grep -vE '^( |Axioms:$|Closed under the global context$)' <<<"$out" | sed 's/ :.*//' | grep -v '^$' | sort -u || true)
bad=$(grep -vE "$allowed" <<<"$names" || true)
if [ -n "$bad" ]; then
  echo "check-coq-assumptions: theorems rest on assumptions that are not standard axioms:" >&2
  echo "$bad" | sed 's/^/  /' >&2
  exit 1
fi
echo "check-coq-assumptions: $reports assumption report(s); axioms used: $(echo $names | tr ' ' ',' )"
