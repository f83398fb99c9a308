// attncheck: what is wrong with the bytes of a contract file before YAML can read them (encoding),
// and the usual fix for each of yaml-cpp's syntax errors.
#include "attncheck/contract/parser.hpp"

#include <fmt/format.h>

#include <utility>

namespace attncheck::contract::detail {

std::optional<EncodingProblem> check_encoding(const std::string& s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
        return EncodingProblem{i, fmt::format("control character 0x{:02x}", c)};
      ++i;
      continue;
    }
    // Lead byte: sequence length and the smallest code point it may encode (no overlongs).
    std::size_t len = 0;
    char32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0)
      len = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
      len = 3, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
      len = 4, cp = c & 0x07, min = 0x10000;
    const auto bad = EncodingProblem{i, fmt::format("byte 0x{:02x} that is not valid UTF-8", c)};
    if (len == 0 || i + len > s.size()) return bad;
    for (std::size_t k = 1; k < len; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return bad;
      cp = (cp << 6) | (byte(i + k) & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return bad;
    i += len;
  }
  return std::nullopt;
}

// yaml-cpp's terse parser messages, each with the usual fix.
std::string syntax_hint(const std::string& msg) {
  static const std::vector<std::pair<std::string, std::string>> hints{
      {"end of sequence flow", "a '[' list is not closed: add the missing ']'"},
      {"end of map flow", "a '{' map is not closed: add the missing '}'"},
      {"illegal map value", "a ':' where no key can start: quote text that contains ': '"},
      {"end of map not found", "the indentation does not line up with the keys above"},
      {"end of sequence not found", "the indentation does not line up with the '- ' items above"},
      {"referenced anchor", "define the &anchor before using *alias"},
      {"tab", "indent with spaces, YAML forbids tabs there"},
  };
  for (const auto& [key, hint] : hints)
    if (msg.find(key) != std::string::npos) return hint;
  return "fix the YAML syntax at this position";
}

}  // namespace attncheck::contract::detail
