// attncheck: small text helpers shared by the library's parsers and the CLI: a list joined with a
// separator, and the "did you mean" suggestion for a mistyped name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attncheck {

std::string join(const std::vector<std::string>& items, std::string_view separator);

// The candidate closest to `wanted` by (case-insensitive) edit distance, if one is close enough
// to be a plausible typo; empty otherwise.
std::string closest(std::string_view wanted, const std::vector<std::string>& candidates);

}  // namespace attncheck
