#!/usr/bin/env bash
# Installs every build and test dependency of attncheck from Debian's archive (Debian 12, as root).
# Used by the README's two commands and by .ci/run; safe to run again (apt-get is idempotent).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  ccache  # cmake/ccache.cmake: a clone in another folder reuses the objects of an earlier build
  doctest-dev librapidcheck-dev
  libboost-dev libmpfr-dev libgmp-dev libmpfi-dev
  libyaml-cpp-dev libcli11-dev libfmt-dev
  libbenchmark-dev
  texlive-latex-base texlive-latex-recommended coq libcoq-coquelicot libcoq-flocq  # proofs/: pdflatex, coqc (proofs/proofs.cmake)
  python3-numpy python3-scipy  # examples/python: the audit's exec-protocol adapter, run by the audit tests
  python3-torch  # examples/python/torch_kernels.py: PyTorch's own CPU kernels, audited by the audit tests (no false alarm)
  clang-16 libclang-rt-16-dev  # fuzz/: libFuzzer targets (clang >= 15 for _Float16 on x86), tools/fuzz.sh
  libz3-dev  # attncheck bmc: the symbolic scalar over Z3's floating-point theory (C++ API)
  gnuplot-nox  # attncheck report --html: the plots, drawn as SVG and inlined (src/cli/plot_gnuplot.cpp)
  chromium  # tests/docs/check_html.sh, tests/reports/check_failure_first.py: the HTML report in headless Chromium (tests cli.report.chromium*, reports.failure-first-html)
  python3-jsonschema  # tests/reports: real JSON reports validated against docs/report-schema.json
  cvc5  # attncheck bmc --solver cvc5|portfolio: the cvc5 CLI on the SMT-LIB2 export of the formulas
  gappa  # attncheck bmc GAPPA-* harnesses: rounding-error bounds of dot products for large d (src/attncheck/bmc/gappa.cpp)
  python3-pytest python3-setuptools python3-pip python3-wheel  # python/: the package's wheel, built offline, and its pytest suite (tests/install)
  python3-venv  # the README's pytest way in, run as written in a fresh venv (tests/install, STEP=readme-venv)
  dpkg-dev  # cpack -G DEB: dpkg-shlibdeps writes the .deb's Depends (cmake/install.cmake, tests/install)
)

# examples/node: onnxruntime-node 1.30.0 and @tensorflow/tfjs 4.22.0 from the npm registry (ONNX
# Runtime's CPU GroupQueryAttention and Softmax, TF.js's tf.grads, audited by tests/audit/node*.cmake,
# which are skipped without them; package-lock.json pins every version), installed
# with the machine's Node.js and npm. --ignore-scripts: its postinstall would fetch CUDA libraries
# from elsewhere; the CPU provider is in the package itself. About 10 s from an empty npm cache.
install_node_example() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/examples/node"
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: no npm: the Node audit tests (tests/audit/node*.cmake) will be skipped"
    return 0
  fi
  [ -f "$dir/node_modules/onnxruntime-node/package.json" ] && [ -f "$dir/node_modules/@tensorflow/tfjs/package.json" ] && return 0
  # Tried twice; a registry that cannot be reached leaves the test skipped (it says so), not the
  # whole suite failed: the download is the machine's, not attncheck's.
  (cd "$dir" && { npm ci --ignore-scripts --no-audit --no-fund || npm ci --ignore-scripts --no-audit --no-fund; }) ||
    echo "install-deps: npm ci in examples/node failed: the Node audit tests (tests/audit/node*.cmake) will be skipped"
}
install_node_example

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
