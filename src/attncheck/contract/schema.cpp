// attncheck: the walk over one contract's YAML tree into the model (docs/contract-format.md): every
// key, value and item, with a file:line:col diagnostic for each problem.
#include "attncheck/contract/parser.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>
#include <map>

namespace attncheck::contract::detail {

namespace fs = std::filesystem;

const char* const top_keys =
    "metadata, equations, proof_obligations, falsification_tests, harnesses (or kani_harnesses), "
    "qa_gate, audit_properties, absent";


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
        } else if (k == "audit_properties") {
          items(v, k, [&](const YAML::Node& item, int i) { audit_property(item, i); });
        } else if (k == "absent") {
          absent(v);
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

// absent: {kind: "reason", ...}: stem files the contract does not have, and why.
void Parser::absent(const YAML::Node& v) {
  if (!v.IsMap()) {
    error(v, fmt::format("absent must be a map of a file kind to the reason it is absent, e.g. "
                         "{{coq: \"a statistical test\"}}, not {}", kind_name(v)));
    return;
  }
  entries(v, "absent", [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    const auto& kinds = stem_file_kinds;
    if (std::find(std::begin(kinds), std::end(kinds), k) == std::end(kinds)) {
      error(key, fmt::format("absent: unknown file kind '{}' (falsify, mutants, proof, coq, harnesses)", k));
      return;
    }
    const std::string why = text(x, "absent." + k);
    if (why.empty())
      error(key, fmt::format("absent.{} needs the reason the file is absent (text)", k));
    else
      c_.absent[k] = why;
  });
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
      if (x.IsMap()) {  // {exact: [File.theorem, ...], float: [...]}: what each link proves
        for (const auto& kv : x) {
          const std::string kind = kv.first.Scalar();
          if (kind != "exact" && kind != "float") {
            error(kv.first, fmt::format("coq of {}: unknown key '{}': write coq: {{exact: [File.theorem, ...]}} for "
                                        "an exact-arithmetic statement, {{float: [...]}} for one about the rounded "
                                        "computation",
                                        name, kind));
            continue;
          }
          for (auto& t : texts(kv.second, "coq." + kind + " of " + name, &at_each)) {
            o.coq.push_back(std::move(t));
            o.coq_proves.push_back(kind == "exact" ? Obligation::CoqProves::exact
                                                   : Obligation::CoqProves::floating_point);
          }
        }
      } else {
        o.coq = texts(x, "coq of " + name, &at_each);
        o.coq_proves.assign(o.coq.size(), Obligation::CoqProves::unstated);
      }
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
  o.allowance = allowance.empty() ? tolerance_text : allowance;
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
    else if (k == "catches")
      t.catches = texts(x, "catches of " + name);
    else
      unknown(key, name, "id, obligations, rule, prediction, test, if_fails, catches");
  });
  if (!has_id)
    error(item,
          fmt::format("{} has no id: add id: FALSIFY-CODE-NNN (the gate runs tests by id)", name));
  extras.test_links_where.push_back(std::move(links));
  c_.tests.push_back(std::move(t));
}

// An audit_properties item: id (AUDIT-CODE-NNN), rule (the property), obligations (of any contract).
void Parser::audit_property(const YAML::Node& item, int index) {
  FalsificationTest t;
  t.where = at(item);
  const std::string name = label(item, "audit property", "audit_properties", index);
  entries(item, name, [&](const std::string& k, const YAML::Node& key, const YAML::Node& x) {
    if (k == "id") {
      t.id = text(x, "id of " + name);
      if (x.IsScalar() || x.IsNull())
        check_id(x.IsNull() ? key : x, t.id, "audit property", !audit_code(t.id).empty(), "AUDIT-CODE-NNN");
    } else if (k == "rule")
      t.rule = text(x, "rule of " + name);
    else if (k == "obligations")
      t.obligations = texts(x, "obligations of " + name);
    else if (k == "test")
      t.test = text(x, "test of " + name);
    else if (k == "if_fails")
      t.if_fails = text(x, "if_fails of " + name);
    else
      unknown(key, name, "id, rule, obligations, test, if_fails");
  });
  if (t.id.empty()) error(item, fmt::format("{} has no id: add id: AUDIT-CODE-NNN", name));
  c_.audit_properties.push_back(std::move(t));
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
    else if (k == "catches")
      h.catches = texts(x, "catches of " + name);
    else if (k == "lift") {
      h.lift = text(x, "lift of " + name);
      if (!is_coq_name(h.lift))
        error(x, fmt::format("lift of {} is not a Coq theorem name: write File.theorem (the theorem of "
                             "proofs/coq/File.v that lifts its step lemmas to every d)",
                             name));
    } else
      unknown(key, name, "id, obligation, property, bound, reached, strategy, solver, harness, catches, lift");
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

}  // namespace attncheck::contract::detail
