// attncheck: running the cvc5 CLI on Z3's SMT-LIB2 export (cvc5_cli.hpp).
#include "attncheck/bmc/cvc5_cli.hpp"
#include "attncheck/bmc/external_tool.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {

// Top-level elements of an s-expression list "( e1 e2 ... )", each as its text.
std::vector<std::string> list_items(const std::string& s, std::size_t& pos) {
  std::vector<std::string> items;
  while (pos < s.size() && s[pos] != '(') ++pos;
  if (pos >= s.size()) return items;
  ++pos;
  for (;;) {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos >= s.size()) return items;
    if (s[pos] == ')') {
      ++pos;
      return items;
    }
    const std::size_t start = pos;
    int depth = 0;
    bool quoted = false;
    for (; pos < s.size(); ++pos) {
      const char c = s[pos];
      if (quoted) {
        if (c == '|') quoted = false;
        continue;
      }
      if (c == '|') quoted = true;
      else if (c == '(') ++depth;
      else if (c == ')') {
        if (depth == 0) break;
        if (--depth == 0) {
          ++pos;
          break;
        }
      } else if (depth == 0 && std::isspace(static_cast<unsigned char>(c))) break;
    }
    items.push_back(s.substr(start, pos - start));
  }
}

std::optional<std::uint64_t> binary_literal(const std::string& t) {
  if (t.rfind("#b", 0) == 0) {
    if (t.size() < 3 || t.size() > 66) return std::nullopt;
    std::uint64_t v = 0;
    for (std::size_t i = 2; i < t.size(); ++i) {
      if (t[i] != '0' && t[i] != '1') return std::nullopt;
      v = v << 1 | static_cast<std::uint64_t>(t[i] - '0');
    }
    return v;
  }
  if (t.rfind("#x", 0) == 0) {
    if (t.size() < 3 || t.size() > 18) return std::nullopt;
    return std::strtoull(t.c_str() + 2, nullptr, 16);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> cvc5_binary() { return find_executable("ATTNCHECK_CVC5", "cvc5"); }

std::string cvc5_version() {
  static const std::string v = [] {
    const auto bin = cvc5_binary();
    if (!bin) return std::string("cvc5 (not installed)");
    const std::string out = first_output_line(*bin + " --version 2>/dev/null");
    const auto at = out.find("version ");
    if (at == std::string::npos) return std::string("cvc5");
    return "cvc5 " + out.substr(at + 8);
  }();
  return v;
}

std::string cvc5_script(const std::string& z3_smt2, const std::vector<std::string>& names) {
  std::string s = "(set-option :produce-models true)\n(set-logic QF_FP)\n";
  std::istringstream in(z3_smt2);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("(set-info :status", 0) != 0 && line.rfind("(check-sat)", 0) != 0) s += line + "\n";
  s += "(check-sat)\n";
  if (!names.empty()) s += fmt::format("(get-value ({}))\n", fmt::join(names, " "));
  return s;
}

cvc5_run::~cvc5_run() = default;  // tool_process kills and reaps the child, removes its files

void cvc5_run::start(const std::string& script, std::size_t n_names, bool fp_exp, double timeout_seconds) {
  const auto bin = cvc5_binary();
  if (!bin) throw std::runtime_error("cvc5 not found on PATH (Debian: apt-get install cvc5)");
  proc_ = std::make_unique<tool_process>("cvc5");
  proc_->write("query.smt2", script);
  n_names_ = n_names;
  timeout_ = timeout_seconds;
  const std::string tlimit = fmt::format("--tlimit={}", static_cast<long>(std::max(1.0, timeout_seconds * 1000)));
  std::vector<std::string> args = {*bin, "--lang=smt2", tlimit};
  if (fp_exp) args.push_back("--fp-exp");
  args.push_back(proc_->path("query.smt2"));
  proc_->start(std::move(args));
}

bool cvc5_run::finished() { return !proc_ || proc_->finished(); }

void cvc5_run::kill() {
  if (proc_) proc_->kill();
}

cvc5_answer cvc5_run::wait() {
  cvc5_answer a;
  if (!proc_) {
    a.reason = "cvc5 was not started";
    return a;
  }
  // cvc5's own --tlimit stops it; the hard limit here only guards against a hung child.
  if (!proc_->wait_until(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_ + 10)))) {
    a.reason = fmt::format("timeout after {:g} s (cvc5 killed)", timeout_);
    return a;
  }
  const std::string out = proc_->out(), err = proc_->err();
  std::istringstream in(out);
  std::string first;
  in >> first;
  if (first == "sat") {
    a.result = cvc5_answer::status::sat;
    std::size_t pos = out.find("sat") + 3;
    for (const std::string& item : list_items(out, pos)) {
      std::size_t p = 0;
      const std::vector<std::string> pair = list_items(item, p);
      if (pair.size() == 2) a.value_text.push_back(pair[1]);
    }
    if (a.value_text.size() != n_names_) {
      a.result = cvc5_answer::status::unknown;
      a.reason = "cvc5 said sat but its (get-value ...) answer could not be read: " + out.substr(0, 200);
    }
    return a;
  }
  if (first == "unsat") {
    a.result = cvc5_answer::status::unsat;
    return a;
  }
  if (err.find("timeout") != std::string::npos || out.find("timeout") != std::string::npos)
    a.reason = fmt::format("timeout after {:g} s", timeout_);
  else if (first == "unknown")
    a.reason = "cvc5 answered unknown";
  else {
    std::string msg = err.empty() ? out : err;
    if (msg.size() > 300) msg = msg.substr(0, 300) + "...";
    while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back()))) msg.pop_back();
    a.reason = "cvc5 failed: " + (msg.empty() ? fmt::format("exit status {}", proc_->exit_code()) : msg);
  }
  return a;
}

std::optional<std::uint64_t> parse_fp_bits(const std::string& text, unsigned ebits, unsigned sbits) {
  std::size_t pos = 0;
  const std::vector<std::string> t = list_items(text, pos);
  const unsigned width = ebits + sbits;
  const std::uint64_t sign = 1ull << (width - 1);
  const std::uint64_t exp_all = ((1ull << ebits) - 1) << (sbits - 1);
  if (t.size() == 4 && t[0] == "fp") {
    const auto s = binary_literal(t[1]), e = binary_literal(t[2]), m = binary_literal(t[3]);
    if (!s || !e || !m || *s > 1 || *e >> ebits || *m >> (sbits - 1)) return std::nullopt;
    return (*s << (width - 1)) | (*e << (sbits - 1)) | *m;
  }
  if (t.size() == 4 && t[0] == "_") {
    if (t[2] != std::to_string(ebits) || t[3] != std::to_string(sbits)) return std::nullopt;
    if (t[1] == "+zero") return 0;
    if (t[1] == "-zero") return sign;
    if (t[1] == "+oo") return exp_all;
    if (t[1] == "-oo") return sign | exp_all;
    if (t[1] == "NaN") return exp_all | (1ull << (sbits - 2));  // the quiet NaN
  }
  return std::nullopt;
}

}  // namespace attncheck::bmc
