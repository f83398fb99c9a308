// attncheck CLI: Unicode formula → LaTeX math, for the equation blocks of `attncheck docs`.
// The contracts write formulas in Unicode so they read well in YAML, terminals and --help; the
// pages render them with GitHub's MathJax, which needs commands for anything beyond ASCII.
#include "cli/docs_latex.hpp"

#include <cstdint>
#include <map>
#include <vector>

namespace attncheck::cli {

namespace {

std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    char32_t c = n == 1 ? b : b & (0x7f >> n);
    for (int k = 1; k < n && i + k < s.size(); ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out.push_back(c);
    i += n;
  }
  return out;
}

std::string encode(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xc0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

const std::map<char32_t, std::string>& symbols() {
  static const std::map<char32_t, std::string> m = {
      {U'α', "\\alpha"}, {U'β', "\\beta"}, {U'γ', "\\gamma"}, {U'δ', "\\delta"}, {U'ε', "\\varepsilon"},
      {U'η', "\\eta"}, {U'θ', "\\theta"}, {U'λ', "\\lambda"}, {U'μ', "\\mu"}, {U'π', "\\pi"},
      {U'ρ', "\\rho"}, {U'σ', "\\sigma"}, {U'τ', "\\tau"}, {U'φ', "\\varphi"}, {U'ω', "\\omega"},
      {U'Γ', "\\Gamma"}, {U'Δ', "\\Delta"}, {U'Λ', "\\Lambda"}, {U'Π', "\\prod"}, {U'Σ', "\\sum"},
      {U'Φ', "\\Phi"}, {U'Ω', "\\Omega"}, {U'∑', "\\sum"}, {U'∏', "\\prod"},
      {U'−', "-"}, {U'·', "\\cdot"}, {U'×', "\\times"}, {U'≤', "\\le"}, {U'≥', "\\ge"}, {U'≠', "\\ne"},
      {U'≈', "\\approx"}, {U'∈', "\\in"}, {U'∉', "\\notin"}, {U'→', "\\to"}, {U'⇒', "\\Rightarrow"},
      {U'⇔', "\\iff"}, {U'⟺', "\\iff"}, {U'∀', "\\forall"}, {U'∃', "\\exists"}, {U'∞', "\\infty"},
      {U'‖', "\\|"}, {U'⟨', "\\langle"}, {U'⟩', "\\rangle"}, {U'∂', "\\partial"}, {U'∇', "\\nabla"},
      {U'ℝ', "\\mathbb{R}"}, {U'∘', "\\circ"}, {U'⊙', "\\odot"}, {U'⊗', "\\otimes"}, {U'…', "\\dots"},
      {U'±', "\\pm"}, {U'∪', "\\cup"}, {U'∩', "\\cap"}, {U'⊆', "\\subseteq"}, {U'∧', "\\wedge"},
      {U'∨', "\\vee"}, {U'¬', "\\neg"}, {U'½', "\\tfrac12"}, {U'∝', "\\propto"}, {U'⌊', "\\lfloor"},
      {U'⌋', "\\rfloor"}, {U'⌈', "\\lceil"}, {U'⌉', "\\rceil"}, {U'ᵀ', "^{\\top}"},
  };
  return m;
}

// Precomposed letters with a dot or a hat above (ṡ, Ŝ): the accent command and the base letter.
const std::map<char32_t, std::pair<const char*, char>>& accented() {
  static const std::map<char32_t, std::pair<const char*, char>> m = {
      {U'ṡ', {"\\dot", 's'}}, {U'Ṡ', {"\\dot", 'S'}}, {U'ṗ', {"\\dot", 'p'}}, {U'Ṗ', {"\\dot", 'P'}},
      {U'ȯ', {"\\dot", 'o'}}, {U'Ȯ', {"\\dot", 'O'}}, {U'ẋ', {"\\dot", 'x'}}, {U'ẏ', {"\\dot", 'y'}},
      {U'ŷ', {"\\hat", 'y'}}, {U'Ŷ', {"\\hat", 'Y'}}, {U'Ŝ', {"\\hat", 'S'}}, {U'ŝ', {"\\hat", 's'}},
      {U'Ĥ', {"\\hat", 'H'}}, {U'ĥ', {"\\hat", 'h'}}, {U'ĉ', {"\\hat", 'c'}}, {U'ĝ', {"\\hat", 'g'}},
  };
  return m;
}

constexpr char32_t combining_dot = 0x0307, combining_hat = 0x0302;

bool letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char32_t c) { return c >= '0' && c <= '9'; }
bool subscript_digit(char32_t c) { return c >= 0x2080 && c <= 0x2089; }
bool superscript_digit(char32_t c) { return c == 0x00b2 || c == 0x00b3 || c == 0x00b9 || (c >= 0x2070 && c <= 0x2079); }
char superscript_value(char32_t c) {
  return c == 0x00b2 ? '2' : c == 0x00b3 ? '3' : c == 0x00b9 ? '1' : static_cast<char>('0' + (c - 0x2070));
}

bool is_function(const std::string& w) {
  static const char* names[] = {"ln", "log", "exp", "max", "min", "sup", "inf", "det", "lim", "sin", "cos", "tan"};
  for (const char* n : names)
    if (w == n) return true;
  return false;
}

class Converter {
 public:
  explicit Converter(std::vector<char32_t> text) : s_(std::move(text)) {
    int depth = 0;
    for (char32_t c : s_) {
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth < 0) break;
    }
    balanced_ = depth == 0;
  }

  std::string run() { return convert(0, s_.size()); }

 private:
  // Converts s_[from, to).
  std::string convert(std::size_t from, std::size_t to) {
    std::string out;
    bool last_was_text = false;  // the previous token was a word set as \text{...}
    char32_t prev = 0;           // the previous non-space character of the source
    std::size_t i = from;
    while (i < to) {
      const char32_t c = s_[i];
      if (c == ' ') {
        std::size_t j = i;
        while (j < to && s_[j] == ' ') ++j;
        // Prose keeps its spaces ("for every c" must not run together); around an operator, math
        // spacing is already right.
        static const std::u32string binds_left = U"=+-−<>≤≥([∈·×/≈⇒→|‖";
        static const std::u32string binds_right = U",;:)]=+-−<>≤≥∈·×/≈⇒→(|‖";
        const bool next_text = j < to && starts_text_word(j, to);
        const bool next_binds = j < to && binds_right.find(s_[j]) != std::u32string::npos;
        const bool prev_binds = binds_left.find(prev) != std::u32string::npos;
        if (j - i >= 2 && i != from && j != to)
          out += "\\quad ";
        else if (j < to && ((last_was_text && !next_binds) || (next_text && !prev_binds)))
          out += "\\ ";
        i = j;
        continue;
      }
      last_was_text = false;
      prev = c;
      if (letter(c)) {
        std::size_t j = i;
        while (j < to && letter(s_[j])) ++j;
        if (j < to && (s_[j] == combining_dot || s_[j] == combining_hat)) {
          // tQ̇: the accent belongs to the last letter only.
          if (j - 1 > i) out += convert(i, j - 1);
          out += std::string(s_[j] == combining_dot ? "\\dot{" : "\\hat{") + static_cast<char>(s_[j - 1]) + "}";
          i = j + 1;
          continue;
        }
        std::string word;
        for (std::size_t k = i; k < j; ++k) word += static_cast<char>(s_[k]);
        // An identifier such as log_softmax or softmax_rows is one name, not a word with a subscript.
        if (word.size() >= 2 && j + 1 < to && s_[j] == '_') {
          std::size_t k = j + 1;
          while (k < to && letter(s_[k])) ++k;
          if (k - (j + 1) >= 3) {
            std::string name = word + "\\_";
            for (std::size_t m = j + 1; m < k; ++m) name += static_cast<char>(s_[m]);
            out += "\\text{" + name + "}";
            last_was_text = true;
            i = k;
            continue;
          }
        }
        if (is_function(word)) {
          out += "\\" + word + " ";
        } else if (is_text(word)) {
          out += "\\text{" + word + "}";
          last_was_text = true;
        } else {
          out += word;  // single letters and products of symbols: QK, PV, pp, dx
        }
        i = j;
        continue;
      }
      if (c == '-' && i > from && i + 1 < to && letter(s_[i - 1]) && letter(s_[i + 1])) {
        out += "\\text{-}";  // row-wise: a hyphen, not a minus
        ++i;
        continue;
      }
      if (c == U'Σ' && sigma_is_matrix(i, from, to)) {
        out += "\\Sigma ";
        ++i;
        continue;
      }
      if (c == '_' || c == '^') {
        out += static_cast<char>(c);
        i = script(i + 1, to, out);
        continue;
      }
      if (subscript_digit(c) || superscript_digit(c)) {
        const bool sub = subscript_digit(c);
        std::string digits;
        while (i < to && (sub ? subscript_digit(s_[i]) : superscript_digit(s_[i]))) {
          digits += sub ? static_cast<char>('0' + (s_[i] - 0x2080)) : superscript_value(s_[i]);
          ++i;
        }
        out += std::string(sub ? "_{" : "^{") + digits + "}";
        continue;
      }
      if (c == U'√') {
        i = root(i + 1, to, out);
        continue;
      }
      if (c == '<' && i + 1 < to && s_[i + 1] == '=') {
        out += "\\le ";
        i += 2;
        continue;
      }
      if (c == '>' && i + 1 < to && s_[i + 1] == '=') {
        out += "\\ge ";
        i += 2;
        continue;
      }
      out += single(c);
      ++i;
    }
    return out;
  }

  // Σ between two capital letters (A = U Σ Vᵀ) is the matrix of singular values; elsewhere a sum.
  bool sigma_is_matrix(std::size_t i, std::size_t from, std::size_t to) const {
    std::size_t a = i, b = i + 1;
    while (a > from && s_[a - 1] == ' ') --a;
    while (b < to && s_[b] == ' ') ++b;
    const auto capital = [](char32_t c) { return c >= 'A' && c <= 'Z'; };
    return a > from && capital(s_[a - 1]) && b < to && capital(s_[b]);
  }

  // Upright prose or a named operator (softmax, Var, Diag, "for every"); products of symbols such
  // as QK, PV, pp or dx stay italic.
  static bool is_text(const std::string& w) {
    static const char* short_words[] = {"as", "at", "of", "in", "to", "is", "or", "if", "by", "on", "be", "no", "an", "so"};
    if (w.size() == 2) {
      for (const char* s : short_words)
        if (w == s) return true;
      return false;
    }
    if (w.size() < 2) return false;
    bool upper = true;
    for (char c : w) upper = upper && c >= 'A' && c <= 'Z';
    return !(upper && w.size() <= 3);
  }

  bool starts_text_word(std::size_t j, std::size_t to) const {
    std::size_t k = j;
    while (k < to && letter(s_[k])) ++k;
    if (k - j < 2) return false;
    std::string w;
    for (std::size_t m = j; m < k; ++m) w += static_cast<char>(s_[m]);
    return !is_function(w);
  }

  // The sub/superscript starting at i: a {group}, else a run of letters and digits, else one symbol.
  std::size_t script(std::size_t i, std::size_t to, std::string& out) {
    if (i >= to) return i;
    if (s_[i] == '{' && balanced_) {
      const std::size_t close = matching(i, to, '{', '}');
      out += "{" + convert(i + 1, close) + "}";
      return close + 1;
    }
    std::size_t j = i;
    while (j < to && (letter(s_[j]) || digit(s_[j]))) ++j;
    if (j == i) j = i + 1;
    std::string inner;
    for (std::size_t k = i; k < j; ++k) inner += letter(s_[k]) || digit(s_[k]) ? std::string(1, static_cast<char>(s_[k])) : single(s_[k]);
    out += "{" + inner + "}";
    return j;
  }

  // The operand of √: a (group) or {group} (its delimiters dropped), else an identifier with its
  // subscript (√d_k), else the next symbol.
  std::size_t root(std::size_t i, std::size_t to, std::string& out) {
    if (i < to && (s_[i] == '(' || (s_[i] == '{' && balanced_))) {
      const std::size_t close = matching(i, to, s_[i], s_[i] == '(' ? ')' : '}');
      out += "\\sqrt{" + convert(i + 1, close) + "}";
      return std::min(close + 1, to);
    }
    std::size_t j = i;
    while (j < to && (letter(s_[j]) || digit(s_[j]))) ++j;
    if (j < to && s_[j] == '_') {
      ++j;
      if (j < to && s_[j] == '{' && balanced_)
        j = matching(j, to, '{', '}') + 1;
      else
        while (j < to && (letter(s_[j]) || digit(s_[j]))) ++j;
    }
    if (j == i && i < to) j = i + 1;
    out += "\\sqrt{" + convert(i, std::min(j, to)) + "}";
    return std::min(j, to);
  }

  std::size_t matching(std::size_t open, std::size_t to, char32_t o, char32_t c) const {
    int depth = 0;
    for (std::size_t k = open; k < to; ++k) {
      depth += s_[k] == o ? 1 : s_[k] == c ? -1 : 0;
      if (depth == 0) return k;
    }
    return to;  // unclosed: the group runs to the end
  }

  std::string single(char32_t c) const {
    switch (c) {
      case '~': return "\\sim ";
      case '%': return "\\%";
      case '#': return "\\#";
      case '&': return "\\&";
      case '$': return "\\$";
      case '\\': return "\\backslash ";
      case '{': return balanced_ ? "{" : "\\{";
      case '}': return balanced_ ? "}" : "\\}";
      default: break;
    }
    if (c < 0x80) return std::string(1, static_cast<char>(c));
    if (const auto it = symbols().find(c); it != symbols().end()) {
      const std::string& v = it->second;
      return letter(static_cast<unsigned char>(v.back())) ? v + " " : v;
    }
    if (const auto it = accented().find(c); it != accented().end())
      return std::string(it->second.first) + "{" + it->second.second + "}";
    return "\\text{" + encode(c) + "}";
  }

  std::vector<char32_t> s_;
  bool balanced_ = true;
};

}  // namespace

std::string formula_to_latex(std::string_view formula) {
  std::string out = Converter(decode(formula)).run();
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace attncheck::cli
