// attncheck CLI: the values of a counterexample as exact hex floats. The properties print every
// scalar as its bit pattern first (text/numbers.hpp: zero-padded to the format's width), so the
// bit patterns in the text ARE the counterexample; decoding them gives its exact values, which
// the machine-readable reports carry as C99 hex floats (%a of the value widened to double, which
// is exact for every format attncheck checks).
#include <cctype>
#include <cstdio>
#include <sstream>

#include "attncheck/text/numbers.hpp"
#include "cli/gate.hpp"

namespace attncheck::cli {

namespace {
std::string hexfloat(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

std::vector<CounterexampleValues> counterexample_values(const std::string& text, Dtype d) {
  const std::size_t digits = visit_dtype(d, []<class T>() { return static_cast<std::size_t>(scalar_traits<T>::bit_width / 4); });
  std::vector<CounterexampleValues> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string t = trimmed(line);
    // Not values of the checked format: the seed line and RapidCheck's rendering of the draws.
    if (t.rfind("Found after", 0) == 0 || t.rfind("Drawn ", 0) == 0 || t.rfind("(shrinking", 0) == 0) continue;
    CounterexampleValues v;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
      if (line[i] != '0' || line[i + 1] != 'x') continue;
      if (i > 0 && std::isalnum(static_cast<unsigned char>(line[i - 1]))) continue;
      std::size_t j = i + 2;
      while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j - i - 2 == digits) {
        const std::string token = line.substr(i, j - i);
        const std::uint64_t bits = std::stoull(token.substr(2), nullptr, 16);
        const double value = visit_dtype(d, [bits]<class T>() { return to_double(scalar_traits<T>::from_bits(bits)); });
        v.bits.push_back(token);
        v.values.push_back(hexfloat(value));
      }
      i = j - 1;
    }
    if (v.bits.empty()) continue;
    // row_bits cuts long rows in the middle: "... N more, ".
    if (const auto at = line.find("... "); at != std::string::npos) {
      std::size_t n = 0;
      if (std::sscanf(line.c_str() + at, "... %zu more", &n) == 1) v.elided = n;
    }
    const auto colon = t.find(':');
    v.label = colon == std::string::npos || t.compare(0, 2, "0x") == 0 ? std::string() : trimmed(t.substr(0, colon));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace attncheck::cli
