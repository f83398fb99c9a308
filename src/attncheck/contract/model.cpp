// attncheck: printing diagnostics the way compilers do, so editors can jump to them.
#include "attncheck/contract/model.hpp"

namespace attncheck::contract {

std::string to_string(const Diagnostic& d) {
  std::string out = d.where.file;
  // A file that could not be read has no line: print `file: error: ...` as gcc does.
  if (d.where.line > 0) {
    out += ':' + std::to_string(d.where.line);
    if (d.where.column > 0) out += ':' + std::to_string(d.where.column);
  }
  switch (d.severity) {
    case Severity::error:
      out += ": error: ";
      break;
    case Severity::warning:
      out += ": warning: ";
      break;
    case Severity::note:
      out += ": note: ";
      break;
  }
  return out + d.message;
}

}  // namespace attncheck::contract
