// attncheck CLI: plain-text table rendering.
#include "cli/table.hpp"

#include <algorithm>

namespace attncheck::cli {

namespace {
// Display width of UTF-8 text: one column per code point (IDs and numbers are ASCII anyway; this
// keeps an occasional "√" or "≤" in a cell from shifting the columns after it). ANSI colour
// sequences (ESC [ ... m) take no columns, so a coloured verdict cell stays aligned.
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033' && i + 1 < s.size() && s[i + 1] == '[') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    w += (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 ? 1 : 0;
  }
  return w;
}
}  // namespace

std::string Table::render() const {
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) widths[c] = width(header[c]);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(widths[c] - width(cell), ' ');
      const bool right = c < right_aligned.size() && right_aligned[c];
      if (c) out += "  ";
      out += right ? pad + cell : cell + pad;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };

  std::string out = line(header);
  std::vector<std::string> rule;
  for (std::size_t w : widths) rule.emplace_back(w, '-');
  out += line(rule);
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace attncheck::cli
