// attncheck CLI: plain-text tables with aligned columns (no box drawing, so logs stay greppable).
#pragma once

#include <string>
#include <vector>

namespace attncheck::cli {

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right_aligned;  // per column; missing entries mean left-aligned
  std::vector<std::vector<std::string>> rows;

  // The header, a dashed rule and the rows, columns separated by two spaces, no trailing blanks.
  std::string render() const;
};

}  // namespace attncheck::cli
