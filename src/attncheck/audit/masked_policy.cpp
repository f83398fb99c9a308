// attncheck audit: the spellings of MaskedPolicy (properties.hpp). In a file of their own so that
// the bindings parser, and its fuzzer (fuzz/fuzz.cmake), need none of the properties' code.
#include "attncheck/audit/properties.hpp"

namespace attncheck::audit {

std::string_view masked_policy_name(MaskedPolicy p) {
  switch (p) {
    case MaskedPolicy::zeros: return "zeros";
    case MaskedPolicy::nan: return "nan";
    case MaskedPolicy::either: return "either";
  }
  return "?";
}

std::optional<MaskedPolicy> parse_masked_policy(std::string_view s) {
  for (auto p : {MaskedPolicy::zeros, MaskedPolicy::nan, MaskedPolicy::either})
    if (masked_policy_name(p) == s) return p;
  return std::nullopt;
}

}  // namespace attncheck::audit
