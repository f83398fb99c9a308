// attncheck: small text helpers shared by the library's parsers and the CLI (words.hpp).
#include "attncheck/text/words.hpp"

#include <algorithm>
#include <cctype>

namespace attncheck {

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) s += separator;
    s += items[i];
  }
  return s;
}

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::toupper(static_cast<unsigned char>(a[i - 1])) ==
                        std::toupper(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string closest(std::string_view wanted, const std::vector<std::string>& candidates) {
  // A typo changes a few characters; beyond a third of the ID it is another ID, not a typo.
  const std::size_t limit = std::max<std::size_t>(2, wanted.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(wanted, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace attncheck
