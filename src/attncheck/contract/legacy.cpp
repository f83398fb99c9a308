// attncheck: the legacy dialect (contracts of the Rust system): its extra top-level keys, the IDs
// assigned to items written without one, and the warnings that say what to modernise.
#include "attncheck/contract/parser.hpp"

#include <fmt/format.h>

namespace attncheck::contract::detail {

// Keys of the Rust system's format that attncheck does not use: accepted, never an error.
const std::set<std::string> legacy_top_keys{"verification_summary", "kernel_structure",
                                            "simd_dispatch",        "enforcement",
                                            "type_invariants",      "coq_spec"};


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
    if (code.empty()) code = std::string("C");  // (= "C" trips GCC 12's false -Wrestrict here)
  }
  std::map<std::string, int> count;
  for (auto& o : c_.obligations) {
    const std::string typ = type_code(o.type);
    o.id = fmt::format("{}-{}-{:03}", code, typ, ++count[typ]);
    o.id_assigned = true;
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

}  // namespace attncheck::contract::detail
