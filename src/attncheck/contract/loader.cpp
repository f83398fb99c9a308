// attncheck: loading contract YAML files into the model, with file:line:col diagnostics.
// The format is documented in docs/contract-format.md; keep the two in step.
#include "attncheck/contract/loader.hpp"
#include "attncheck/contract/parser.hpp"
#include "attncheck/contract/yaml_documents.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace attncheck::contract {

bool LoadResult::ok() const {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Severity::error; });
}

namespace {

using namespace detail;

namespace fs = std::filesystem;

// One file into a contract plus the facts the directory checks need.
struct Loaded {
  std::optional<Contract> contract;
  Extras extras;
};

// The first line at or before `last` (1-based) with an odd number of unescaped double quotes
// outside single-quoted text and comments: a quoted string opened there and not closed on its
// line. yaml-cpp reports such a string where the parse finally fails, lines later, as an
// indentation problem ("end of map not found"). 0 if there is none. A legal multi-line quoted
// scalar matches too: the caller says "probably".
std::size_t unclosed_quote_line(const std::string& bytes, std::size_t last) {
  std::size_t line = 1, start = 0;
  while (start <= bytes.size() && line <= last) {
    const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
    bool in_double = false, in_single = false;
    for (std::size_t i = start; i < end; ++i) {
      const char c = bytes[i];
      if (in_double) {
        if (c == '\\') ++i;
        else if (c == '"') in_double = false;
      } else if (in_single) {
        if (c == '\'') in_single = false;
      } else if (c == '#' && (i == start || bytes[i - 1] == ' ')) {
        break;
      } else if (c == '"') {
        in_double = true;
      } else if (c == '\'' && (i == start || bytes[i - 1] == ' ' || bytes[i - 1] == '[')) {
        in_single = true;
      }
    }
    if (in_double) return line;
    start = end + 1;
    ++line;
  }
  return 0;
}

// Parses the bytes of one contract file (already read, or handed in by load_text) into result.
void parse_bytes(const std::string& path, const std::string& bytes, Parser& parser, Loaded& result) {
  const auto fail = [&](Location where, std::string message) {
    parser.report(Severity::error, std::move(where), std::move(message));
  };
  if (const auto bad = check_encoding(bytes)) {
    // Report the offending byte where an editor shows it (byte columns, as yaml-cpp counts).
    const auto before = std::string_view(bytes).substr(0, bad->offset);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto nl = before.rfind('\n');
    const auto column = bad->offset - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
    const bool utf16 = bytes.size() >= 2 && (bytes.compare(0, 2, "\xff\xfe") == 0 ||
                                             bytes.compare(0, 2, "\xfe\xff") == 0);
    fail({path, static_cast<int>(line), static_cast<int>(column)},
         fmt::format("the file is not YAML text: {}{}; save it as UTF-8 text (or remove the "
                     "junk)",
                     bad->what, utf16 ? " (it looks like UTF-16)" : ""));
    return;
  }
  // Not YAML::LoadAll itself: on some inputs it loops forever (yaml_documents.hpp).
  const YamlDocuments loaded = load_yaml_documents(bytes);
  if (loaded.stuck) {
    fail({path, loaded.stuck->line + 1, loaded.stuck->column + 1},
         stuck_message(bytes, *loaded.stuck));
    return;
  }
  const std::vector<YAML::Node>& docs = loaded.documents;
  if (docs.empty() || docs[0].IsNull()) {
    fail({path, 1, 1},
         "the file is empty (no YAML document): a contract needs at least metadata with "
         "version and description");
  } else if (!docs[0].IsMap()) {
    fail(parser.at(docs[0]),
         fmt::format("the document root is {}: a contract file is a map with the keys {}",
                     kind_name(docs[0]), top_keys));
  } else {
    if (docs.size() > 1)
      fail(parser.at(docs[1]),
           fmt::format("the file holds {} YAML documents (separated by ---): a contract "
                       "file holds one; move the others to their own files",
                       docs.size()));
    result.contract = parser.parse(docs[0]);
    result.extras = std::move(parser.extras);
  }
}

// One file, from disk (text == nullptr) or from memory, with every failure as a diagnostic.
Loaded load_one(const std::string& path, std::vector<Diagnostic>& out,
                const std::string* text = nullptr) {
  Loaded result;
  std::vector<Diagnostic> diags;
  Parser parser(path, diags);
  const auto fail = [&](Location where, std::string message) {
    parser.report(Severity::error, std::move(where), std::move(message));
  };
  try {
    std::error_code ec;
    const auto status = text ? fs::file_status(fs::file_type::regular) : fs::status(path, ec);
    std::uintmax_t size = text ? text->size() : 0;
    if (!text && fs::is_regular_file(status)) {
      size = fs::file_size(path, ec);
      if (ec) size = 0;  // unreadable: the open below says so
    }
    if (!fs::exists(status)) {
      fail({path, 0, 0}, "no such file: check the path (contracts are <dir>/<stem>.yaml)");
    } else if (fs::is_directory(status)) {
      fail({path, 0, 0}, "is a directory, not a contract file: load it as a directory");
    } else if (!fs::is_regular_file(status)) {
      fail({path, 0, 0}, "is not a regular file: name a .yaml contract file");
    } else if (size > max_file_bytes) {
      // Refused before reading: a YAML tree costs tens of bytes per input byte, so a file this
      // large would take minutes and gigabytes before any diagnostic could appear.
      fail({path, 0, 0},
           fmt::format("the file has {} bytes, more than the {} MiB a contract file may have "
                       "(the bundled contracts have under 16 KiB): check that this is the file "
                       "you meant",
                       size, max_file_bytes >> 20));
    } else if (text) {
      parse_bytes(path, *text, parser, result);
    } else if (std::ifstream in(path, std::ios::binary); !in) {
      fail({path, 0, 0}, "cannot be opened: check its permissions");
    } else {
      std::ostringstream buffer;
      buffer << in.rdbuf();
      parse_bytes(path, buffer.str(), parser, result);
    }
  } catch (const YAML::DeepRecursion& e) {
    fail({path, e.mark.line + 1, e.mark.column + 1},
         fmt::format("nesting deeper than {} levels: no contract is shaped like this; check that "
                     "this is the file you meant",
                     e.depth()));
  } catch (const YAML::ParserException& e) {
    const Location where = e.mark.is_null() ? Location{path, 1, 1}
                                            : Location{path, e.mark.line + 1, e.mark.column + 1};
    // An unclosed quote is the likelier cause of a late "end of map not found": read the bytes again
    // (the file was read whole above, or handed in) to look for one.
    std::string bytes;
    if (text) {
      bytes = *text;
    } else if (std::ifstream in(path, std::ios::binary); in) {
      std::ostringstream b;
      b << in.rdbuf();
      bytes = b.str();
    }
    const std::size_t quote = unclosed_quote_line(bytes, static_cast<std::size_t>(std::max(where.line, 0)));
    if (quote != 0)
      fail({path, static_cast<int>(quote), 1}, fmt::format("YAML syntax error ({}, reported at line {}): a quoted string probably opens on line {} "
                                         "and is not closed: add the closing '\"'",
                                         e.msg, where.line, quote));
    else
      fail(where, fmt::format("YAML syntax error ({}): {}", e.msg, syntax_hint(e.msg)));
  } catch (const std::exception& e) {
    // Not expected; a diagnostic still beats an escaped exception in a linter.
    fail({path, 1, 1},
         fmt::format("internal error while loading ({}): please report it", e.what()));
  }
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.where.line, a.where.column) < std::pair(b.where.line, b.where.column);
  });
  out.insert(out.end(), diags.begin(), diags.end());
  return result;
}

}  // namespace

LoadResult load_file(const std::string& path) {
  LoadResult r;
  Loaded one = load_one(path, r.diagnostics);
  if (one.contract) r.contracts.push_back(std::move(*one.contract));
  return r;
}

LoadResult load_text(const std::string& bytes, const std::string& name) {
  LoadResult r;
  Loaded one = load_one(name, r.diagnostics, &bytes);
  if (one.contract) r.contracts.push_back(std::move(*one.contract));
  return r;
}

LoadResult load_directory(const std::string& dir) {
  LoadResult r;
  const auto whole_dir = [&](Severity s, std::string message) {
    add(r.diagnostics, {dir, 0, 0}, s, std::move(message));
  };
  try {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      whole_dir(Severity::error, fs::exists(dir, ec)
                                     ? "is not a directory: load it as a file"
                                     : "no such directory: check the path (contracts/ by default)");
      return r;
    }
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code kind_ec;
      if (!it->is_regular_file(kind_ec)) continue;
      if (p.extension() == ".yaml")
        files.push_back(p);
      else if (p.extension() == ".yml")
        add(r.diagnostics, {p.string(), 0, 0}, Severity::warning,
            "is not loaded: contract files end in .yaml; rename it");
    }
    if (ec) whole_dir(Severity::error, "cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
    if (files.empty() && !ec)
      whole_dir(Severity::warning, "holds no *.yaml contract files: nothing was checked");
    std::vector<Extras> extras;
    std::vector<std::string> unloaded;  // stems of the files that did not load (their errors are above)
    for (const fs::path& f : files) {
      Loaded one = load_one(f.string(), r.diagnostics);
      if (!one.contract) {
        unloaded.push_back(f.stem().string());
        continue;
      }
      r.contracts.push_back(std::move(*one.contract));
      extras.push_back(std::move(one.extras));
    }
    check_directory(dir, r.contracts, extras, r.diagnostics, unloaded);
  } catch (const std::exception& e) {
    whole_dir(Severity::error,
              fmt::format("internal error while loading ({}): please report it", e.what()));
  }
  return r;
}

}  // namespace attncheck::contract
