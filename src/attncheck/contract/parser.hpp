// attncheck: the parts of the contract loader (loader.cpp) that its files share: the ID grammar
// (ids.cpp), encoding checks (encoding.cpp), the schema walk (schema.cpp), validation
// (validate.cpp) and the legacy dialect (legacy.cpp). Internal to src/attncheck/contract/.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/contract/loader.hpp"

namespace attncheck::contract::detail {

// IDs (ids.cpp).
// By hand rather than std::regex (whose GCC 12 headers warn under some -O levels).
inline bool all_chars(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_obligation_id(std::string_view id);
std::string test_code(std::string_view id);
std::string harness_code(std::string_view id);
std::string gate_code(std::string_view id);
std::string audit_code(std::string_view id);
bool is_coq_name(std::string_view s);
std::string type_code(const std::string& type);

// The top-level keys (schema.cpp), and those of the legacy dialect accepted unused (legacy.cpp).
extern const char* const top_keys;
extern const std::set<std::string> legacy_top_keys;

inline void add(std::vector<Diagnostic>& out, Location where, Severity s, std::string message) {
  out.push_back(Diagnostic{std::move(where), s, std::move(message)});
}

inline std::string join(const std::vector<std::string>& items, std::size_t max = 12) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += fmt::format(", ... ({} more)", items.size() - max);
  return out.empty() ? "none" : out;
}


const char* kind_name(const YAML::Node& n);  // "a map", "a list", "text", ...

// Where the bytes stop being YAML text: invalid UTF-8 or a control character YAML forbids.
struct EncodingProblem {
  std::size_t offset;
  std::string what;
};

std::optional<EncodingProblem> check_encoding(const std::string& s);
// yaml-cpp's terse parser messages, each with the usual fix.
std::string syntax_hint(const std::string& msg);

// How the checks after parsing name an item: by id, or as one without.
std::string who(std::string_view kind, const std::string& id);

// Facts the checks after parsing need and the model does not keep.
struct Extras {
  Location metadata_where, obligations_where, tests_where;
  std::vector<bool> obligation_has_id;                  // per obligation: an `id:` was written
  std::vector<std::vector<Location>> test_links_where;  // per test, per `obligations` entry
  std::vector<Location> harness_link_where;             // per harness: its `obligation:`
  std::vector<Location> depends_on_where;               // per metadata.depends_on entry
};

class Parser {
 public:
  Parser(std::string path, std::vector<Diagnostic>& out) : path_(std::move(path)), out_(out) {
    extras.metadata_where = extras.obligations_where = extras.tests_where = {path_, 1, 1};
  }

  Contract parse(const YAML::Node& root);
  Extras extras;

  Location at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return {path_, 1, 1};
    return {path_, m.line + 1, m.column + 1};
  }
  void report(Severity s, Location where, std::string message) {
    out_.push_back({std::move(where), s, std::move(message)});
  }
  void error(const YAML::Node& n, std::string m) { report(Severity::error, at(n), std::move(m)); }
  void warning(const YAML::Node& n, std::string m) {
    report(Severity::warning, at(n), std::move(m));
  }

 private:
  template <class F>
  void entries(const YAML::Node& map, std::string_view what, F&& f);
  template <class F>
  void items(const YAML::Node& list, std::string_view section, F&& f);
  std::string text(const YAML::Node& v, std::string_view what);
  std::vector<std::string> texts(const YAML::Node& v, std::string_view what,
                                 std::vector<Location>* where = nullptr);
  void unknown(const YAML::Node& key, std::string_view what, std::string_view known);
  void check_id(const YAML::Node& v, const std::string& id, std::string_view kind, bool valid,
                std::string_view form);

  void metadata(const YAML::Node& v);
  void equations(const YAML::Node& v);
  void obligation(const YAML::Node& item, int index);
  void test(const YAML::Node& item, int index);
  void harness(const YAML::Node& item, int index);
  void gate(const YAML::Node& v);
  void absent(const YAML::Node& v);
  void audit_property(const YAML::Node& item, int index);

  void finish();
  void assign_legacy_ids();
  void require_ids();
  void check_duplicates();
  void check_links();
  void legacy_warnings();

  std::string path_;
  std::vector<Diagnostic>& out_;
  Contract c_;
};

// Checks across the files of a directory: contract and item IDs, depends_on, cycles (validate.cpp).
// `unloaded`: the stems of the directory's files that did not load (a depends_on naming one is
// reported as that file's failure, not as a missing contract).
void check_directory(const std::string& dir, const std::vector<Contract>& cs, const std::vector<Extras>& extras,
                     std::vector<Diagnostic>& out, const std::vector<std::string>& unloaded = {});

}  // namespace attncheck::contract::detail
