// attncheck: the grammar of contract item IDs (CODE-TYP-NNN, FALSIFY-CODE-NNN, ...) and of the
// Coq names and type codes obligations carry.
#include "attncheck/contract/parser.hpp"

#include <algorithm>
#include <map>

namespace attncheck::contract::detail {

bool is_code(char c) { return is_upper(c) || is_digit(c); }

// "A-B-C" -> {"A", "B", "C"}: every ID is three dash-separated parts.
std::vector<std::string_view> parts(std::string_view id) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t dash = id.find('-', start);
    out.push_back(id.substr(start, dash - start));
    if (dash == std::string_view::npos) return out;
    start = dash + 1;
  }
}

// CODE-TYP-NNN: ^[A-Z][A-Z0-9]*-[A-Z]{3}-[0-9]{3}$
bool is_obligation_id(std::string_view id) {
  const auto p = parts(id);
  return p.size() == 3 && all_chars(p[0], is_code) && is_upper(p[0][0]) && p[1].size() == 3 &&
         all_chars(p[1], is_upper) && p[2].size() == 3 && all_chars(p[2], is_digit);
}

// PREFIX-CODE-NNN with one of the given prefixes: returns CODE, or "" when id does not match.
std::string code_of(std::string_view id, std::initializer_list<std::string_view> prefixes) {
  const auto p = parts(id);
  const bool ok = p.size() == 3 &&
                  std::find(prefixes.begin(), prefixes.end(), p[0]) != prefixes.end() &&
                  all_chars(p[1], is_code) && p[2].size() == 3 && all_chars(p[2], is_digit);
  return ok ? std::string(p[1]) : std::string();
}
std::string test_code(std::string_view id) { return code_of(id, {"FALSIFY"}); }
// KANI-/BMC-: SMT harnesses (bounded model checking); GAPPA-: rounding-error bounds proved by Gappa.
// LEM-: a lemma (one step for every value of a format) that a harness's all-d composition uses.
std::string harness_code(std::string_view id) { return code_of(id, {"KANI", "BMC", "GAPPA", "LEM"}); }
std::string gate_code(std::string_view id) { return code_of(id, {"F"}); }
// AUDIT-CODE-NNN: an obligation of `attncheck audit` (audit_properties:).
std::string audit_code(std::string_view id) {
  const auto p = parts(id);
  return p.size() == 3 && p[0] == "AUDIT" && !p[1].empty() && all_chars(p[1], is_upper) && p[2].size() == 3 &&
                 all_chars(p[2], is_digit)
             ? std::string(p[1])
             : std::string();
}


// A Coq theorem as an obligation names it: File.theorem (File.v under proofs/coq/).
bool is_coq_name(std::string_view s) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size() || !is_upper(s[0])) return false;
  auto ident = [](char c) { return is_upper(c) || is_digit(c) || (c >= 'a' && c <= 'z') || c == '_'; };
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != dot && !ident(s[i]) && !(i > dot && s[i] == '\''))
      return false;
  return true;
}

// The three-letter type code of an obligation ID: ASCL-BND-001 is a bound.
std::string type_code(const std::string& type) {
  static const std::map<std::string, std::string> known{{"invariant", "INV"},
                                                        {"bound", "BND"},
                                                        {"equivalence", "EQV"},
                                                        {"monotonicity", "MON"},
                                                        {"statistical", "STA"}};
  if (auto it = known.find(type); it != known.end()) return it->second;
  std::string code;
  for (char ch : type)
    if (code.size() < 3 && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
      code += static_cast<char>(ch & ~0x20);  // ASCII upper-case
  while (code.size() < 3) code += 'X';
  return code;
}

}  // namespace attncheck::contract::detail
