// attncheck audit: what an attention kernel declares it can compute (--supports, supports:), as
// data: one table of features (name, meaning, how to read it off a call) and one row per kind
// naming the features its problems can have. A call outside the declaration is never sent: it is
// counted as not drawn, per feature, and the check draws another (docs/audit.md, "Capabilities").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/audit/call.hpp"

namespace attncheck::audit {

// One feature a drawn problem may use. A flag feature is used or not (alibi); a valued feature
// takes one or more integer values (page_size, group).
struct Feature {
  std::string_view name;     // as declared: --supports NAME=...
  std::string_view meaning;  // for messages, --help and docs/audit.md
  bool valued = false;
};
const std::vector<Feature>& all_features();
const Feature* find_feature(std::string_view name);

// The features kind k's problems can have, in table order (empty: k declares none yet).
std::vector<std::string_view> features_of(Kind k);

// One declaration: for kind (none: every kind with the feature), the values of feature a kernel
// supports. Flag features: {1} yes, {} no; valued ones: the integers listed.
struct Supports {
  std::optional<Kind> kind;
  std::string feature;
  std::vector<long long> values;
  std::string text() const;  // as --supports takes it
};
// Parses [KIND:]FEATURE=VALUE[,VALUE...] (VALUE yes/no for a flag feature, integers for a valued
// one); returns an error text or "".
std::string parse_supports(const std::string& word, Supports& out);

// What one kernel declared (every Supports that applies to its kind).
struct Capabilities {
  std::vector<Supports> declared;
  bool any() const { return !declared.empty(); }
  std::string text() const;  // "non_causal=no alibi=no", "" when nothing is declared
};
// The declarations of `all` that apply to kind k (spelt kind: attention for attention_v2).
Capabilities capabilities_for(const std::vector<Supports>& all, Kind k);

// The features call c uses, as keys "alibi" and "page_size=3", in table order; empty for a kind
// without features.
std::vector<std::string> features_used(const Call& c);
// The keys of `used` the declaration excludes (empty: c is inside).
std::vector<std::string> outside(const Capabilities& caps, const std::vector<std::string>& used);

// The capabilities of each kind at the dtype being audited on this thread (runner.cpp sets it
// around a check; null: nothing declared, every problem inside).
using DeclaredKinds = std::map<Kind, Capabilities>;
const DeclaredKinds*& declared_kinds_slot();
class declared_scope {
 public:
  explicit declared_scope(const DeclaredKinds* d) : outer_(declared_kinds_slot()) { declared_kinds_slot() = d; }
  ~declared_scope() { declared_kinds_slot() = outer_; }
  declared_scope(const declared_scope&) = delete;
  declared_scope& operator=(const declared_scope&) = delete;

 private:
  const DeclaredKinds* outer_;
};

// Whether the kernel of kind k on this thread declared flag feature f unsupported (f=no): for the
// few draws that aim inside a declaration (AUDIT-NAN-001's causal masks).
bool declared_unsupported(Kind k, std::string_view f);

// Of the calls a check made: the features the declined ones had (each with its count) and the
// declaration that would exclude them (the features no accepted call used), with how many of the
// declined calls it excludes. accepted, declined: per signature (features_used joined by ' '),
// the count. "" when nothing declined.
std::string decline_hint(const std::map<std::string, int>& accepted, const std::map<std::string, int>& declined);
// "non_causal 950, alibi 12": the not-drawn counts per feature.
std::string tally_text(const std::map<std::string, int>& per_feature);

// Thrown (a failure whose message holds the marker) when a check's first draws were all outside
// the declaration: the runner makes the row N/A, never GAVE-UP.
struct NothingDeclared {
  static constexpr const char* marker = "no input inside the declared capabilities: ";
};

}  // namespace attncheck::audit
