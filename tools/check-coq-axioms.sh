#!/usr/bin/env bash
# attncheck: fails if a Coq source counts something unproved as proved. Flags, outside comments:
# `Admitted`, the tactics `admit`/`give_up`, and a top-level (outside any Section) `Axiom`,
# `Parameter`, `Hypothesis`, `Conjecture`, `Variable`, `Context` (or their plurals). Inside a Section,
# `Variable`/`Hypothesis` are premises that every theorem of the section takes as arguments,
# so they are allowed there. Usage: tools/check-coq-axioms.sh FILE.v|DIR ...   Exit: 0 clean,
# 1 something found (each printed as file:line: message), 2 usage error.
set -euo pipefail

if [ $# -eq 0 ]; then echo "usage: $0 FILE.v|DIR ..." >&2; exit 2; fi

files=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$a" -name '*.v' | sort)
  elif [ -f "$a" ]; then
    files+=("$a")
  else
    echo "$0: no such file or directory: $a" >&2; exit 2
  fi
done
if [ ${#files[@]} -eq 0 ]; then echo "$0: no .v files under $*" >&2; exit 2; fi

found=0
for f in "${files[@]}"; do
  # Blank out (possibly nested, multi-line) comments and string literals, keeping line numbers,
  # then scan the remaining tokens with the Section/End depth.
  if ! awk -v file="$f" '
    BEGIN { depth = 0; instr = 0; bad = 0; sec = 0 }
    {
      line = $0; out = ""; i = 1; L = length(line)
      while (i <= L) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (instr) { if (c == "\"") instr = 0; out = out " "; i++; continue }
        if (c2 == "(*") { depth++; out = out "  "; i += 2; continue }
        if (depth > 0 && c2 == "*)") { depth--; out = out "  "; i += 2; continue }
        if (depth > 0) { out = out " "; i++; continue }
        if (c == "\"") { instr = 1; out = out " "; i++; continue }
        out = out c; i++
      }
      n = split(out, tok, /[^A-Za-z0-9_'\''.]+/)
      for (k = 1; k <= n; k++) {
        t = tok[k]; sub(/\.$/, "", t)
        if (t == "") continue
        if (t == "Section") { sec++; continue }
        if (t == "End" && sec > 0) { sec--; continue }
        if (t == "Admitted" || t == "admit" || t == "give_up") {
          printf "%s:%d: %s: an unfinished proof is not a proof\n", file, NR, t; bad = 1
        }
        if (t ~ /^(Axiom|Axioms|Parameter|Parameters|Conjecture|Conjectures)$/ ||
            (sec == 0 && t ~ /^(Hypothesis|Hypotheses|Variable|Variables|Context)$/)) {
          printf "%s:%d: %s (a global assumption): every later theorem may silently depend on it\n", file, NR, t; bad = 1
        }
      }
    }
    END { exit bad }' "$f"; then
    found=1
  fi
done

if [ $found -ne 0 ]; then exit 1; fi
echo "check-coq-axioms: ${#files[@]} files, no Admitted, admit or top-level assumption"
