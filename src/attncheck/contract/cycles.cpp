// attncheck: the dependency cycles among contracts (cycles.hpp).
#include "attncheck/contract/cycles.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace attncheck::contract {

std::vector<std::vector<std::size_t>> find_cycles(const std::vector<std::vector<std::size_t>>& edges) {
  std::vector<std::vector<std::size_t>> cycles;
  std::vector<int> state(edges.size(), 0);  // 0 unvisited, 1 on the stack, 2 done
  std::vector<std::size_t> stack;
  std::set<std::vector<std::size_t>> reported;
  std::function<void(std::size_t)> visit = [&](std::size_t i) {
    state[i] = 1;
    stack.push_back(i);
    for (std::size_t to : edges[i]) {
      if (state[to] == 0) {
        visit(to);
      } else if (state[to] == 1) {
        std::vector<std::size_t> cycle(std::find(stack.begin(), stack.end(), to), stack.end());
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        if (reported.insert(cycle).second) cycles.push_back(std::move(cycle));
      }
    }
    stack.pop_back();
    state[i] = 2;
  };
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (state[i] == 0) visit(i);
  return cycles;
}

std::string cycle_message(const std::vector<std::size_t>& cycle, const std::vector<std::string>& names) {
  std::string path;
  for (std::size_t k : cycle) path += names[k] + " -> ";
  if (!cycle.empty()) path += names[cycle[0]];
  return "dependency cycle: " + path +
         "; a contract cannot build on itself, even through others: remove one of these depends_on entries";
}

}  // namespace attncheck::contract
