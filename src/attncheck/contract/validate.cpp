// attncheck: the checks after parsing: IDs present and unique, links between tests, harnesses and
// obligations, and across the files of a directory (contract and item IDs, depends_on, cycles).
#include "attncheck/contract/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "attncheck/contract/cycles.hpp"

namespace attncheck::contract::detail {

void Parser::finish() {
  const auto& has_id = extras.obligation_has_id;
  // A file whose obligations carry no id at all was written for the Rust system.
  c_.legacy_dialect = !c_.obligations.empty() &&
                     std::none_of(has_id.begin(), has_id.end(), [](bool b) { return b; });
  if (c_.legacy_dialect)
    assign_legacy_ids();
  else
    require_ids();
  check_duplicates();
  check_links();
  if (c_.legacy_dialect) legacy_warnings();
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
  for (const auto& a : c_.audit_properties) claim(a.id, a.where, "audit property");
  if (c_.gate) claim(c_.gate->id, c_.gate->where, "qa_gate");
}

void Parser::check_links() {
  std::set<std::string> defined;
  std::vector<std::string> listed;
  for (const auto& o : c_.obligations)
    if (!o.id.empty() && defined.insert(o.id).second) listed.push_back(o.id);
  // Legacy links were written against positions we can only guess: a warning, not an error.
  const Severity severity = c_.legacy_dialect ? Severity::warning : Severity::error;
  const std::string why = c_.legacy_dialect ? " (IDs here were assigned by position)" : "";
  for (std::size_t i = 0; i < c_.tests.size(); ++i) {
    const auto& t = c_.tests[i];
    if (t.obligations.empty() && !c_.legacy_dialect)
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


// Checks across the files of a directory: contract and item IDs, depends_on, cycles.
void check_directory(const std::string& dir, const std::vector<Contract>& cs,
                     const std::vector<Extras>& extras, std::vector<Diagnostic>& out,
                     const std::vector<std::string>& unloaded) {
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
    for (const auto& a : c.audit_properties) claim(a.id, a.where);
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
      else if (std::find(unloaded.begin(), unloaded.end(), name) != unloaded.end())
        add(out, where, Severity::error,
            fmt::format("depends_on names {}, whose file {}.yaml did not load (its error is reported above): fix that file",
                        name, name));
      else
        // Legacy files come from a larger collection: a missing neighbour is expected there.
        add(out, where, cs[i].legacy_dialect ? Severity::warning : Severity::error,
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

}  // namespace attncheck::contract::detail
