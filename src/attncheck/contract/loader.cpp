// attncheck: loading contract YAML files into the model, with file:line:col diagnostics.
// The format is documented in docs/contract-format.md; keep the two in step.
#include "attncheck/contract/loader.hpp"
#include "attncheck/contract/cycles.hpp"
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

namespace fs = std::filesystem;

// ID syntax, by hand rather than std::regex (whose GCC 12 headers warn under some -O levels).
bool all_chars(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
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
std::string harness_code(std::string_view id) { return code_of(id, {"KANI", "BMC", "GAPPA"}); }
std::string gate_code(std::string_view id) { return code_of(id, {"F"}); }

constexpr const char* top_keys =
    "metadata, equations, proof_obligations, falsification_tests, harnesses (or kani_harnesses), "
    "qa_gate";

// Keys of the Rust system's format that attncheck does not use: accepted, never an error.
const std::set<std::string> legacy_top_keys{"verification_summary", "kernel_structure",
                                            "simd_dispatch",        "enforcement",
                                            "type_invariants",      "coq_spec"};

void add(std::vector<Diagnostic>& out, Location where, Severity s, std::string message) {
  out.push_back(Diagnostic{std::move(where), s, std::move(message)});
}

std::string join(const std::vector<std::string>& items, std::size_t max = 12) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += fmt::format(", ... ({} more)", items.size() - max);
  return out.empty() ? "none" : out;
}

const char* kind_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "text";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "undefined";
  }
}

bool is_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars rejects a leading '+'
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
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

// Where the bytes stop being YAML text: invalid UTF-8 or a control character YAML forbids.
struct EncodingProblem {
  std::size_t offset;
  std::string what;
};

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

// Calls f(name, key, value) for each entry of a map; reports non-text and duplicate keys.
template <class F>
void Parser::entries(const YAML::Node& map, std::string_view what, F&& f) {
  std::map<std::string, int> seen;  // key -> line of its first occurrence
  for (const auto& kv : map) {
    const YAML::Node key = kv.first, value = kv.second;
    if (!key.IsScalar()) {
      error(key, fmt::format("a key of {} is {}: keys are plain names such as id or type", what,
                             kind_name(key)));
      continue;
    }
    const auto [it, fresh] = seen.emplace(key.Scalar(), at(key).line);
    if (!fresh) {
      error(key, fmt::format("duplicate key '{}' in {} (first at line {}): only the first is "
                             "read; merge the two or delete one",
                             key.Scalar(), what, it->second));
      continue;
    }
    f(key.Scalar(), key, value);
  }
}

// Calls f(item, 1-based index) for each map in a list section.
template <class F>
void Parser::items(const YAML::Node& list, std::string_view section, F&& f) {
  if (list.IsNull()) return;
  if (!list.IsSequence()) {
    error(list,
          fmt::format("{} must be a list (one '- ' item each), not {}", section, kind_name(list)));
    return;
  }
  int index = 0;
  for (const YAML::Node& item : list) {
    ++index;
    if (item.IsMap())
      f(item, index);
    else
      error(item, fmt::format("{} item {} is {}: each item is a map of 'key: value' lines", section,
                              index, kind_name(item)));
  }
}

std::string Parser::text(const YAML::Node& v, std::string_view what) {
  if (v.IsScalar()) return v.Scalar();
  if (!v.IsNull())
    error(v, fmt::format("{} must be text, not {}: write it as one quoted string", what,
                         kind_name(v)));
  return {};
}

std::vector<std::string> Parser::texts(const YAML::Node& v, std::string_view what,
                                       std::vector<Location>* where) {
  std::vector<std::string> out;
  if (v.IsNull()) return out;
  if (!v.IsSequence()) {
    error(v, v.IsScalar() ? fmt::format("{} must be a list, not a single value: write [{}]", what,
                                        v.Scalar())
                          : fmt::format("{} must be a list of text, not {}", what, kind_name(v)));
    return out;
  }
  for (const YAML::Node& e : v) {
    if (!e.IsScalar()) {
      error(e, fmt::format("an entry of {} is {}: each entry is one piece of text", what,
                           kind_name(e)));
      continue;
    }
    out.push_back(e.Scalar());
    if (where) where->push_back(at(e));
  }
  return out;
}

void Parser::unknown(const YAML::Node& key, std::string_view what, std::string_view known) {
  warning(key, fmt::format("unknown key '{}' in {} is ignored: check the spelling (known: {})",
                           key.Scalar(), what, known));
}

void Parser::check_id(const YAML::Node& v, const std::string& id, std::string_view kind, bool valid,
                      std::string_view form) {
  if (id.empty())
    error(v, fmt::format("{} id is empty: write one of the form {}", kind, form));
  else if (!valid)
    error(v, fmt::format("{} id '{}' does not match {}: rename it", kind, id, form));
}

Contract Parser::parse(const YAML::Node& root) {
  c_.file = path_;
  c_.id = fs::path(path_).stem().string();
  c_.where = at(root);
  bool saw_metadata = false, saw_harnesses = false;
  entries(
      root, "the document root",
      [&](const std::string& k, const YAML::Node& key, const YAML::Node& v) {
        if (k == "metadata") {
          saw_metadata = true;
          extras.metadata_where = at(key);
          metadata(v);
        } else if (k == "equations") {
          equations(v);
        } else if (k == "proof_obligations") {
          extras.obligations_where = at(key);
          items(v, k, [&](const YAML::Node& item, int i) { obligation(item, i); });
        } else if (k == "falsification_tests") {
          extras.tests_where = at(key);
          items(v, k, [&](const YAML::Node& item, int i) { test(item, i); });
        } else if (k == "harnesses" || k == "kani_harnesses") {
          if (saw_harnesses)
            warning(key, "both harnesses and kani_harnesses are present: both are read; keep one");
          saw_harnesses = true;
          items(v, k, [&](const YAML::Node& item, int i) { harness(item, i); });
        } else if (k == "qa_gate") {
          gate(v);
        } else if (legacy_top_keys.count(k)) {
          report(Severity::note, at(key),
                 fmt::format("'{}' belongs to the Rust system's format: accepted and ignored", k));
        } else {
          warning(key, fmt::format("unknown top-level key '{}' is ignored: check the spelling "
                                   "(known: {})",
                                   k, top_keys));
        }
      });
  if (!saw_metadata)
    report(Severity::error, {path_, 1, 1},
           "the file has no metadata: add a 'metadata:' map with at least version and "
           "description");
  finish();
  return c_;
}

void Parser::metadata(const YAML::Node& v) {
  if (!v.IsMap()) {
    error(v, fmt::format("metadata must be a map (version:, description:, ...), not {}",
                         kind_name(v)));
    return;
  }
  entries(v, "metadata", [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      const std::string id = text(x, "metadata.id");
      if (!id.empty() && id != c_.id)
        warning(x, fmt::format("metadata.id '{}' differs from the file name '{}': depends_on "
                               "and reports use the id; make the two agree",
                               id, fs::path(path_).filename().string()));
      if (!id.empty()) c_.id = id;
    } else if (k == "version")
      c_.version = text(x, "metadata.version");
    else if (k == "description")
      c_.description = text(x, "metadata.description");
    else if (k == "references")
      c_.references = texts(x, "metadata.references");
    else if (k == "depends_on")
      c_.depends_on = texts(x, "metadata.depends_on", &extras.depends_on_where);
    else if (k == "created" || k == "author")
      text(x, "metadata." + k);
    else if (k == "corrections")
      c_.corrections = texts(x, "metadata.corrections");
    else if (k == "registry" || k == "enforcement_level" || k == "locked_level") {
      // Rust-format metadata: accepted, unused.
    } else
      unknown(key, "metadata",
              "id, version, created, author, description, references, depends_on, corrections");
  });
  if (c_.version.empty())
    report(Severity::error, extras.metadata_where,
           "metadata has no version: add version: \"1.0.0\" (the contract's semantic version)");
  if (c_.description.empty())
    report(Severity::error, extras.metadata_where,
           "metadata has no description: add description: \"<one line: what it states>\"");
}

void Parser::equations(const YAML::Node& v) {
  if (v.IsNull()) return;
  if (!v.IsMap()) {
    error(v, fmt::format("equations must be a map from equation name to its formula, domain, "
                         "codomain and invariants, not {}",
                         kind_name(v)));
    return;
  }
  entries(
      v, "equations", [&](const std::string& name, const YAML::Node& key, const YAML::Node& body) {
        if (!body.IsMap()) {
          error(body, fmt::format("equation {} must be a map (formula:, domain:, ...), not {}",
                                  name, kind_name(body)));
          return;
        }
        Equation e;
        e.name = name;
        e.where = at(key);
        const std::string what = "equation " + name;
        entries(body, what, [&](const std::string& k, const YAML::Node& kk, const YAML::Node& x) {
          if (k == "formula")
            e.formula = text(x, "formula of " + what);
          else if (k == "domain")
            e.domain = text(x, "domain of " + what);
          else if (k == "codomain")
            e.codomain = text(x, "codomain of " + what);
          else if (k == "invariants")
            e.invariants = texts(x, "invariants of " + what);
          else if (k == "preconditions" || k == "postconditions" || k == "lean_theorem") {
            // Rust-format equation keys: accepted, unused.
          } else
            unknown(kk, what, "formula, domain, codomain, invariants");
        });
        if (e.formula.empty())
          warning(key, fmt::format("equation {} has no formula: add formula: \"...\"", name));
        c_.equations.push_back(std::move(e));
      });
}

// How messages name an item before its id is checked: by its id if written, else by position.
std::string label(const YAML::Node& item, std::string_view kind, std::string_view section,
                  int index) {
  // Iterate rather than item["id"]: a missing key yields a node that throws when inspected.
  for (const auto& kv : item)
    if (kv.first.IsScalar() && kv.first.Scalar() == "id" && kv.second.IsScalar() &&
        !kv.second.Scalar().empty())
      return fmt::format("{} {}", kind, kv.second.Scalar());
  return fmt::format("{} item {}", section, index);
}

// How the checks after parsing name an item: by id, or as one without.
std::string who(std::string_view kind, const std::string& id) {
  return id.empty() ? fmt::format("{} without id", kind) : fmt::format("{} {}", kind, id);
}

void Parser::obligation(const YAML::Node& item, int index) {
  Obligation o;
  o.where = at(item);
  const std::string name = label(item, "obligation", "proof_obligations", index);
  bool has_id = false;
  std::string allowance, tolerance_text;
  entries(item, name, [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      has_id = true;
      o.id = text(x, "id of " + name);
      if (x.IsScalar() || x.IsNull())
        check_id(x.IsNull() ? key : x, o.id, "obligation", is_obligation_id(o.id),
                 "CODE-TYP-NNN (e.g. ASCL-BND-001)");
    } else if (k == "type")
      o.type = text(x, "type of " + name);
    else if (k == "property")
      o.property = text(x, "property of " + name);
    else if (k == "formal")
      o.formal = text(x, "formal of " + name);
    else if (k == "domain")
      o.domain = text(x, "domain of " + name);
    else if (k == "applies_to") {
      // The Rust format writes one word (all, simd); a list of targets reads as well.
      o.applies_to = x.IsSequence() ? join(texts(x, "applies_to of " + name), 1000)
                                    : text(x, "applies_to of " + name);
    } else if (k == "allowance")
      allowance = text(x, "allowance of " + name);
    else if (k == "tolerance") {
      const std::string t = text(x, "tolerance of " + name);
      if (is_number(t))
        o.legacy_tolerance = t;
      else
        tolerance_text = t;
    } else if (k == "proof")
      o.proof = text(x, "proof of " + name);
    else if (k == "coq") {
      std::vector<Location> at_each;
      o.coq = texts(x, "coq of " + name, &at_each);
      for (std::size_t i = 0; i < o.coq.size(); ++i)
        if (!is_coq_name(o.coq[i]))
          report(Severity::warning, i < at_each.size() ? at_each[i] : at(x),
                 fmt::format("coq entry '{}' of {} is not a Coq theorem name: write File.theorem "
                             "(the theorem `theorem` of proofs/coq/File.v)",
                             o.coq[i], name));
    }
    else if (k == "lean" || k == "requires" || k == "applies_to_phase" || k == "parent_contract") {
      // Rust-format obligation keys: accepted, unused.
    } else
      unknown(key, name,
              "id, type, property, formal, domain, applies_to, allowance, proof, coq, tolerance");
  });
  o.tolerance = allowance.empty() ? tolerance_text : allowance;
  if (o.type.empty())
    warning(item, fmt::format("{} has no type: add type: invariant, bound, equivalence, "
                              "monotonicity or statistical",
                              name));
  extras.obligation_has_id.push_back(has_id);
  c_.obligations.push_back(std::move(o));
}

void Parser::test(const YAML::Node& item, int index) {
  FalsificationTest t;
  t.where = at(item);
  const std::string name = label(item, "falsification test", "falsification_tests", index);
  bool has_id = false;
  std::vector<Location> links;
  entries(item, name, [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      has_id = true;
      t.id = text(x, "id of " + name);
      if (x.IsScalar() || x.IsNull())
        check_id(x.IsNull() ? key : x, t.id, "falsification test", !test_code(t.id).empty(),
                 "FALSIFY-CODE-NNN");
    } else if (k == "obligations")
      t.obligations = texts(x, "obligations of " + name, &links);
    else if (k == "rule")
      t.rule = text(x, "rule of " + name);
    else if (k == "prediction")
      t.prediction = text(x, "prediction of " + name);
    else if (k == "test")
      t.test = text(x, "test of " + name);
    else if (k == "if_fails")
      t.if_fails = text(x, "if_fails of " + name);
    else
      unknown(key, name, "id, obligations, rule, prediction, test, if_fails");
  });
  if (!has_id)
    error(item,
          fmt::format("{} has no id: add id: FALSIFY-CODE-NNN (the gate runs tests by id)", name));
  extras.test_links_where.push_back(std::move(links));
  c_.tests.push_back(std::move(t));
}

void Parser::harness(const YAML::Node& item, int index) {
  Harness h;
  h.where = at(item);
  const std::string name = label(item, "harness", "harnesses", index);
  bool has_id = false;
  Location link = h.where;
  entries(item, name, [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      has_id = true;
      h.id = text(x, "id of " + name);
      if (x.IsScalar() || x.IsNull())
        check_id(x.IsNull() ? key : x, h.id, "harness", !harness_code(h.id).empty(),
                 "KANI-CODE-NNN, BMC-CODE-NNN or GAPPA-CODE-NNN");
    } else if (k == "obligation") {
      h.obligation = text(x, "obligation of " + name);
      link = at(x);
    } else if (k == "bound") {
      const std::string b = x.IsScalar() ? x.Scalar() : "";
      const auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), h.bound);
      if (!x.IsNull() &&
          (b.empty() || ec != std::errc{} || end != b.data() + b.size() || h.bound <= 0)) {
        h.bound = 0;
        error(x, fmt::format("bound of {} must be a positive whole number (the unwinding bound, "
                             "e.g. 8), not {}",
                             name, x.IsScalar() ? "'" + b + "'" : kind_name(x)));
      }
    } else if (k == "reached") {
      if (!x.IsMap()) {
        error(x, fmt::format("reached of {} must map a format to a bound, e.g. {{f16: 8, f32: 4}}", name));
      } else {
        for (const auto& kv : x) {
          const std::string f = kv.first.IsScalar() ? kv.first.Scalar() : "";
          const std::string b = kv.second.IsScalar() ? kv.second.Scalar() : "";
          int n = 0;
          const auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), n);
          if (f != "f16" && f != "bf16" && f != "f32" && f != "f64" && f != "e4m3" && f != "e4m3sat" && f != "e5m2")
            error(kv.first,
                  fmt::format("reached of {}: unknown format '{}' (f16, bf16, f32, f64, e4m3, e4m3sat, e5m2)", name, f));
          // "all-d" (stored as 0): no whole-vector bound was reached in time at this format; the
          // harness is claimed there only for every d by its composition of lemmas.
          else if (b == "all-d")
            h.reached[f] = 0;
          else if (b.empty() || ec != std::errc{} || end != b.data() + b.size() || n <= 0)
            error(kv.second,
                  fmt::format("reached of {}: the bound for {} must be a positive whole number or all-d", name, f));
          else
            h.reached[f] = n;
        }
      }
    } else if (k == "property")
      h.property = text(x, "property of " + name);
    else if (k == "strategy")
      h.strategy = text(x, "strategy of " + name);
    else if (k == "solver")
      h.solver = text(x, "solver of " + name);
    else if (k == "harness")
      h.harness = text(x, "harness of " + name);
    else
      unknown(key, name, "id, obligation, property, bound, reached, strategy, solver, harness");
  });
  if (!has_id)
    error(item, fmt::format("{} has no id: add id: KANI-CODE-NNN, BMC-CODE-NNN or GAPPA-CODE-NNN", name));
  extras.harness_link_where.push_back(link);
  c_.harnesses.push_back(std::move(h));
}

void Parser::gate(const YAML::Node& v) {
  if (v.IsNull()) return;
  if (!v.IsMap()) {
    error(v, fmt::format("qa_gate must be a map (id:, name:, checks:, ...), not {}", kind_name(v)));
    return;
  }
  QaGate g;
  g.where = at(v);
  bool has_id = false;
  entries(v, "qa_gate", [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      has_id = true;
      g.id = text(x, "qa_gate.id");
      if (x.IsScalar() || x.IsNull())
        check_id(x.IsNull() ? key : x, g.id, "qa_gate", !gate_code(g.id).empty(), "F-CODE-NNN");
    } else if (k == "name")
      g.name = text(x, "qa_gate.name");
    else if (k == "description")
      g.description = text(x, "qa_gate.description");
    else if (k == "checks")
      g.checks = texts(x, "qa_gate.checks");
    else if (k == "pass_criteria")
      g.pass_criteria = text(x, "qa_gate.pass_criteria");
    else if (k == "falsification")
      g.falsification = text(x, "qa_gate.falsification");
    else
      unknown(key, "qa_gate", "id, name, description, checks, pass_criteria, falsification");
  });
  if (!has_id) error(v, "qa_gate has no id: add id: F-CODE-NNN");
  c_.gate = std::move(g);
}

void Parser::finish() {
  const auto& has_id = extras.obligation_has_id;
  // A file whose obligations carry no id at all was written for the Rust system.
  c_.legacy_format = !c_.obligations.empty() &&
                     std::none_of(has_id.begin(), has_id.end(), [](bool b) { return b; });
  if (c_.legacy_format)
    assign_legacy_ids();
  else
    require_ids();
  check_duplicates();
  check_links();
  if (c_.legacy_format) legacy_warnings();
}

void Parser::assign_legacy_ids() {
  // CODE comes from the file's own test, harness or gate IDs (FALSIFY-SM-001 -> SM).
  std::string code;
  for (const auto& t : c_.tests)
    if (code.empty()) code = test_code(t.id);
  for (const auto& h : c_.harnesses)
    if (code.empty()) code = harness_code(h.id);
  if (code.empty() && c_.gate) code = gate_code(c_.gate->id);
  if (code.empty()) {
    // No IDs at all: the initials of the stem's words (softmax-kernel-v1 -> SK).
    std::stringstream words(c_.id);
    for (std::string w; std::getline(words, w, '-');)
      if (!w.empty() && w[0] >= 'a' && w[0] <= 'z' &&
          !(w[0] == 'v' && all_chars(w.substr(1), is_digit)))
        code += static_cast<char>(w[0] & ~0x20);
    if (code.empty()) code = "C";
  }
  std::map<std::string, int> count;
  for (auto& o : c_.obligations) {
    const std::string typ = type_code(o.type);
    o.id = fmt::format("{}-{}-{:03}", code, typ, ++count[typ]);
    o.id_assigned = true;
  }
}

void Parser::require_ids() {
  // Suggest the next free number per CODE-TYP, so the fix can be pasted.
  std::string code;
  std::map<std::string, int> highest;
  for (const auto& o : c_.obligations) {
    if (!is_obligation_id(o.id)) continue;
    const auto dash = o.id.find('-');
    if (code.empty()) code = o.id.substr(0, dash);
    auto& n = highest[o.id.substr(0, o.id.rfind('-'))];
    n = std::max(n, std::stoi(o.id.substr(o.id.rfind('-') + 1)));
  }
  if (code.empty()) code = "CODE";
  for (std::size_t i = 0; i < c_.obligations.size(); ++i) {
    if (extras.obligation_has_id[i]) continue;
    const Obligation& o = c_.obligations[i];
    const std::string prefix = code + "-" + type_code(o.type);
    report(
        Severity::error, o.where,
        fmt::format("obligation '{}' has no id, while other obligations of this file have one: "
                    "add id: {}-{:03}",
                    o.property.empty() ? "(no property)" : o.property, prefix, ++highest[prefix]));
  }
}

void Parser::check_duplicates() {
  std::map<std::string, int> seen;  // id -> line of its first definition
  const auto claim = [&](const std::string& id, const Location& where, std::string_view kind) {
    if (id.empty()) return;
    const auto [it, fresh] = seen.emplace(id, where.line);
    if (!fresh)
      report(Severity::error, where,
             fmt::format("duplicate ID {}: this {} reuses the ID defined at line {}; IDs must be "
                         "unique, rename one",
                         id, kind, it->second));
  };
  for (const auto& o : c_.obligations) claim(o.id, o.where, "obligation");
  for (const auto& t : c_.tests) claim(t.id, t.where, "falsification test");
  for (const auto& h : c_.harnesses) claim(h.id, h.where, "harness");
  if (c_.gate) claim(c_.gate->id, c_.gate->where, "qa_gate");
}

void Parser::check_links() {
  std::set<std::string> defined;
  std::vector<std::string> listed;
  for (const auto& o : c_.obligations)
    if (!o.id.empty() && defined.insert(o.id).second) listed.push_back(o.id);
  // Legacy links were written against positions we can only guess: a warning, not an error.
  const Severity severity = c_.legacy_format ? Severity::warning : Severity::error;
  const std::string why = c_.legacy_format ? " (IDs here were assigned by position)" : "";
  for (std::size_t i = 0; i < c_.tests.size(); ++i) {
    const auto& t = c_.tests[i];
    if (t.obligations.empty() && !c_.legacy_format)
      report(Severity::warning, t.where,
             fmt::format("{} names no obligations: add obligations: [<ID>] so lint can tell "
                         "what it attacks",
                         who("falsification test", t.id)));
    for (std::size_t j = 0; j < t.obligations.size(); ++j)
      if (!defined.count(t.obligations[j]))
        report(severity, extras.test_links_where[i][j],
               fmt::format("{} names obligation {}, which this contract does not define "
                           "(defined: {}){}; correct the ID or add the obligation",
                           who("falsification test", t.id), t.obligations[j], join(listed), why));
  }
  for (std::size_t i = 0; i < c_.harnesses.size(); ++i) {
    const auto& h = c_.harnesses[i];
    if (h.obligation.empty())
      report(Severity::warning, h.where,
             fmt::format("{} names no obligation: add obligation: <ID>", who("harness", h.id)));
    else if (!defined.count(h.obligation))
      report(severity, extras.harness_link_where[i],
             fmt::format("{} names obligation {}, which this contract does not define "
                         "(defined: {}){}; correct the ID or add the obligation",
                         who("harness", h.id), h.obligation, join(listed), why));
  }
}

void Parser::legacy_warnings() {
  std::vector<std::string> assigned, bare;
  std::size_t without_proof = 0;
  for (const auto& o : c_.obligations) {
    assigned.push_back(fmt::format("{} (line {})", o.id, o.where.line));
    if (!o.legacy_tolerance.empty()) bare.push_back(o.id + ": " + o.legacy_tolerance);
    if (o.proof.empty()) ++without_proof;
  }
  const Location& obligations = extras.obligations_where;
  report(Severity::warning, obligations,
         fmt::format("legacy format (Rust provable-contracts): the obligations have no ids; "
                     "assigned by position: {}. These shift when obligations move: add id: to "
                     "each obligation",
                     join(assigned, 1000)));
  const auto unlinked = std::count_if(c_.tests.begin(), c_.tests.end(),
                                      [](const auto& t) { return t.obligations.empty(); });
  if (unlinked > 0)
    report(Severity::warning, c_.tests.empty() ? obligations : extras.tests_where,
           fmt::format("legacy format: {} of {} falsification tests have no obligations links, so "
                       "nothing says which obligation a test attacks; add obligations: [<ID>] to "
                       "each test",
                       unlinked, c_.tests.size()));
  if (c_.tests.empty())
    report(Severity::warning, obligations,
           "legacy format: the file has no falsification tests: nothing attacks its obligations");
  if (without_proof > 0)
    report(Severity::warning, obligations,
           fmt::format("legacy format: {} of {} obligations name no proof location; add proof: "
                       "proofs/<file>.tex#<ID> to each",
                       without_proof, c_.obligations.size()));
  if (!bare.empty())
    report(Severity::warning, obligations,
           fmt::format("legacy format: {} obligations give a bare tolerance number ({}) instead of "
                       "a derived allowance; replace each with allowance: text that derives it",
                       bare.size(), join(bare)));
}

// One file into a contract plus the facts the directory checks need.
struct Loaded {
  std::optional<Contract> contract;
  Extras extras;
};

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

// Checks across the files of a directory: contract and item IDs, depends_on, cycles.
void check_directory(const std::string& dir, const std::vector<Contract>& cs,
                     const std::vector<Extras>& extras, std::vector<Diagnostic>& out) {
  std::map<std::string, std::size_t> by_id;
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const auto [it, fresh] = by_id.emplace(cs[i].id, i);
    if (fresh)
      ids.push_back(cs[i].id);
    else
      add(out, extras[i].metadata_where, Severity::error,
          fmt::format("contract id {} is also the id of {}: each contract needs its own "
                      "id; rename one",
                      cs[i].id, cs[it->second].file));
  }

  std::map<std::string, Location> items;  // item ID -> where first defined, over all files
  const auto claim = [&](const std::string& id, const Location& where) {
    if (id.empty()) return;
    const auto [it, fresh] = items.emplace(id, where);
    if (!fresh && it->second.file != where.file)
      add(out, where, Severity::error,
          fmt::format("ID {} is already defined in {}:{}: IDs are global across "
                      "contracts; rename one",
                      id, it->second.file, it->second.line));
  };
  for (const auto& c : cs) {
    for (const auto& o : c.obligations) claim(o.id, o.where);
    for (const auto& t : c.tests) claim(t.id, t.where);
    for (const auto& h : c.harnesses) claim(h.id, h.where);
    if (c.gate) claim(c.gate->id, c.gate->where);
  }

  struct Edge {
    std::size_t to;
    Location where;
  };
  std::vector<std::vector<Edge>> deps(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i)
    for (std::size_t j = 0; j < cs[i].depends_on.size(); ++j) {
      const std::string& name = cs[i].depends_on[j];
      const Location where = j < extras[i].depends_on_where.size() ? extras[i].depends_on_where[j]
                                                                   : extras[i].metadata_where;
      if (auto it = by_id.find(name); it != by_id.end())
        deps[i].push_back({it->second, where});
      else
        // Legacy files come from a larger collection: a missing neighbour is expected there.
        add(out, where, cs[i].legacy_format ? Severity::warning : Severity::error,
            fmt::format("depends_on names {}, which is not in {} (contracts there: {}); "
                        "add {}.yaml or remove the entry",
                        name, dir, join(ids), name));
    }

  std::vector<std::vector<std::size_t>> edges(cs.size());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    for (const Edge& e : deps[i]) edges[i].push_back(e.to);
    names.push_back(cs[i].id);
  }
  for (const auto& cycle : find_cycles(edges)) {
    // Reported at the depends_on entry that leaves the cycle's first contract along the cycle.
    const std::size_t next = cycle.size() > 1 ? cycle[1] : cycle[0];
    Location where = extras[cycle[0]].metadata_where;
    for (const Edge& back : deps[cycle[0]])
      if (back.to == next) where = back.where;
    add(out, where, Severity::error, cycle_message(cycle, names));
  }
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
    for (const fs::path& f : files) {
      Loaded one = load_one(f.string(), r.diagnostics);
      if (!one.contract) continue;
      r.contracts.push_back(std::move(*one.contract));
      extras.push_back(std::move(one.extras));
    }
    check_directory(dir, r.contracts, extras, r.diagnostics);
  } catch (const std::exception& e) {
    whole_dir(Severity::error,
              fmt::format("internal error while loading ({}): please report it", e.what()));
  }
  return r;
}

}  // namespace attncheck::contract
