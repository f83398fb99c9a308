// attncheck: the dependency cycles among contracts (metadata.depends_on), found one way for the
// loader's diagnostics and for `attncheck graph`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attncheck::contract {

// The cycles of a directed graph over nodes 0 .. n-1 (edges[i]: the nodes i depends on, in the
// order written), found by a depth-first search from each unvisited node in index order: a
// dependency on a node still on the search's stack closes a cycle. Each cycle is returned once,
// as the nodes along it starting at its smallest index, in the order the search meets them.
std::vector<std::vector<std::size_t>> find_cycles(const std::vector<std::vector<std::size_t>>& edges);

// "dependency cycle: a -> b -> a; ..." for the cycle through the named contracts (names[k] for
// each node k of the cycle, which is closed by repeating the first).
std::string cycle_message(const std::vector<std::size_t>& cycle, const std::vector<std::string>& names);

}  // namespace attncheck::contract
