// attncheck audit: the registered kernel kinds. The built-in ones are listed in registry.cpp, one
// line each; a test may register a kind of its own (register_kind) to exercise the generic code.
#pragma once

#include <optional>
#include <vector>

#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

// The descriptor of a registered kind; throws std::logic_error for a kind nobody registered.
const KindDescriptor& descriptor_of(Kind k);
// The descriptor of exec kind number `code`, if one is registered (decoding a CALL).
const KindDescriptor* find_kind(std::uint8_t code);
// Every registered kind, in registration order (the built-in ones in the order of abi.h).
const std::vector<Kind>& registered_kinds();
// Adds a kind (for tests: the built-in kinds are registered in registry.cpp). Throws
// std::logic_error if its number or its spelt name is taken. Not thread-safe: register before any audit.
void register_kind(const KindDescriptor& d);

}  // namespace attncheck::audit
