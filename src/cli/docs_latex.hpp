// attncheck CLI: the contracts' Unicode formulas (S = Q Kᵀ / √d_k) spelled as LaTeX math for the
// $$…$$ blocks of `attncheck docs`.
#pragma once

#include <string>
#include <string_view>

namespace attncheck::cli {

// Maps symbols to LaTeX commands (≤ → \le, ‖ → \|, Σ → \sum, ᵀ → ^{\top}, ṡ → \dot{s}), takes
// the operand of √ into \sqrt{…}, braces multi-character sub/superscripts (S_ij → S_{ij}),
// sets words of two or more letters upright (\text{softmax}, \ln), keeps the source's word
// spacing in prose, and turns a gap of two spaces into \quad. A character it has no spelling for
// goes into \text{…}, which MathJax and KaTeX render as is, so nothing is lost.
std::string formula_to_latex(std::string_view formula);

}  // namespace attncheck::cli
