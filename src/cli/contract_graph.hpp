// attncheck CLI: the contract dependency DAG (metadata.depends_on) and its text, DOT and Mermaid
// spellings, shared by `attncheck graph` and the index page of `attncheck docs`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attncheck/contract/model.hpp"

namespace attncheck::cli {

struct ContractGraph {
  std::vector<std::string> order;                      // every contract, dependencies before dependents
  std::vector<std::pair<std::string, std::string>> edges;  // (dependent, dependency), in `order`
};

// The DAG of the contracts, or nullopt with *error set when a depends_on entry names a contract
// that is not loaded or when the dependencies form a cycle (the message holds the cycle's path).
// The loader rejects both for attncheck files, but only warns about unknown dependencies of
// legacy files: a graph with a dangling edge would be a wrong picture, so it is refused here too.
std::optional<ContractGraph> build_graph(const std::vector<contract::Contract>& contracts, std::string* error);

// One line per contract in `order`: "id" or "id -> dep, dep".
std::string graph_text(const ContractGraph& g);
// A Graphviz digraph, edges from dependent to dependency.
std::string graph_dot(const ContractGraph& g);
// A Mermaid `graph LR` block body (no ``` fence), node names with '-' and '.' mapped to '_'.
std::string graph_mermaid(const ContractGraph& g);
// Only the edges touching `id` (as the per-contract pages of `attncheck docs` show them).
std::string graph_mermaid_around(const ContractGraph& g, const std::string& id);

}  // namespace attncheck::cli
