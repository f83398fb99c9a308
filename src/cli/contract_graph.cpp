// attncheck CLI: the contract dependency DAG, checked for unknown names and cycles, and printed.
#include "cli/contract_graph.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "attncheck/contract/cycles.hpp"
#include "cli/cli.hpp"

namespace attncheck::cli {

std::optional<ContractGraph> build_graph(const std::vector<contract::Contract>& contracts, std::string* error) {
  std::map<std::string, const contract::Contract*> by_id;  // sorted: ties in the order break by id
  for (const auto& c : contracts) by_id.emplace(c.id, &c);
  for (const auto& c : contracts)
    for (const auto& d : c.depends_on)
      if (!by_id.count(d)) {
        std::vector<std::string> ids;
        for (const auto& [id, _] : by_id) ids.push_back(id);
        const std::string guess = closest(d, ids);
        *error = "contract " + c.id + " (" + c.file + ") depends on '" + d + "', which is not loaded" +
                 (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " (contracts: " + join(ids, ", ") +
                 "); add " + d + ".yaml to the contracts directory or remove the entry";
        return std::nullopt;
      }

  // Kahn's algorithm, taking the smallest ready id each time, so the order is deterministic.
  std::map<std::string, int> pending;  // dependencies not yet placed
  for (const auto& [id, c] : by_id) {
    std::set<std::string> distinct(c->depends_on.begin(), c->depends_on.end());
    pending[id] = static_cast<int>(distinct.size());
  }
  ContractGraph g;
  std::set<std::string> ready;
  for (const auto& [id, n] : pending)
    if (n == 0) ready.insert(id);
  while (!ready.empty()) {
    const std::string id = *ready.begin();
    ready.erase(ready.begin());
    g.order.push_back(id);
    for (const auto& [other, c] : by_id) {
      std::set<std::string> distinct(c->depends_on.begin(), c->depends_on.end());
      if (distinct.count(id) && --pending[other] == 0) ready.insert(other);
    }
  }
  if (g.order.size() != by_id.size()) {
    // What is left holds a cycle: the first one the loader's search finds (contracts by id).
    std::vector<std::string> names;
    std::map<std::string, std::size_t> index;
    for (const auto& [id, c] : by_id) {
      index[id] = names.size();
      names.push_back(id);
    }
    std::vector<std::vector<std::size_t>> edges;
    for (const auto& [id, c] : by_id) {
      edges.emplace_back();
      for (const auto& d : c->depends_on) edges.back().push_back(index.at(d));
    }
    *error = contract::cycle_message(contract::find_cycles(edges).at(0), names);
    return std::nullopt;
  }
  for (const auto& id : g.order) {
    std::set<std::string> seen;
    for (const auto& d : by_id[id]->depends_on)
      if (seen.insert(d).second) g.edges.emplace_back(id, d);
  }
  return g;
}

std::string graph_text(const ContractGraph& g) {
  std::string s;
  for (const auto& id : g.order) {
    std::vector<std::string> deps;
    for (const auto& [from, to] : g.edges)
      if (from == id) deps.push_back(to);
    s += id + (deps.empty() ? "" : " -> " + join(deps, ", ")) + "\n";
  }
  return s;
}

std::string graph_dot(const ContractGraph& g) {
  // Contract ids are [a-z0-9-] (file stems) but a legacy stem may hold anything: quote them.
  const auto quoted = [](const std::string& id) {
    std::string s = "\"";
    for (char c : id) s += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return s + "\"";
  };
  std::string s = "digraph contracts {\n  rankdir=LR;\n  node [shape=box];\n";
  for (const auto& id : g.order) s += "  " + quoted(id) + ";\n";
  for (const auto& [from, to] : g.edges) s += "  " + quoted(from) + " -> " + quoted(to) + ";\n";
  return s + "}\n";
}

namespace {
std::string mermaid_node(const std::string& id) {
  std::string name;
  for (char c : id) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string label;
  for (char c : id) label += c == '"' ? std::string("#quot;") : std::string(1, c);
  return name + "[\"" + label + "\"]";
}

std::string mermaid(const ContractGraph& g, const std::string* around) {
  std::string s = "graph LR\n";
  std::set<std::string> drawn;
  for (const auto& [from, to] : g.edges)
    if (!around || from == *around || to == *around) {
      s += "    " + mermaid_node(from) + " --> " + mermaid_node(to) + "\n";
      drawn.insert(from);
      drawn.insert(to);
    }
  // A contract with no edge still appears, so the picture lists every contract it is about.
  for (const auto& id : g.order)
    if (!drawn.count(id) && (!around || id == *around)) s += "    " + mermaid_node(id) + "\n";
  return s;
}
}  // namespace

std::string graph_mermaid(const ContractGraph& g) { return mermaid(g, nullptr); }
std::string graph_mermaid_around(const ContractGraph& g, const std::string& id) { return mermaid(g, &id); }

}  // namespace attncheck::cli
