// attncheck audit: the feature table of declared capabilities (capabilities.hpp) and the row of
// each kind that has features.
#include "attncheck/audit/capabilities.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "attncheck/text/parse_number.hpp"

namespace attncheck::audit {

namespace {

// What the features are read from: the problem as the kernel is told it, and each sequence's
// (n_b, m_b) (a dense batch: B equal ones; a packed or paged batch: its offsets).
struct View {
  kernels::AttentionProblem p;
  std::vector<std::pair<std::size_t, std::size_t>> seqs;
  std::size_t page_size = 0;
};

std::vector<std::int32_t> int32s(const std::vector<unsigned char>& raw) {
  std::vector<std::int32_t> v(raw.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), raw.data(), v.size() * 4);
  return v;
}

View dense_view(const Call& c) {
  View w{c.problem, {}, 0};
  for (std::size_t b = 0; b < c.problem.shape.batch; ++b) w.seqs.emplace_back(c.problem.shape.n, c.problem.shape.m);
  return w;
}
// ABI version 1: one head of one sequence; causal is top-left (abi.h: j <= i).
View v1_view(const Call& c) {
  View w;
  w.p.shape = {.batch = 1, .heads = 1, .kv_heads = 1, .n = c.n, .m = c.m, .d = c.d, .dv = c.dv};
  w.p.mask.causal = c.causal;
  w.seqs = {{c.n, c.m}};
  return w;
}
// Offsets travel as inputs (call.hpp): varlen cu_seqlens_q, cu_seqlens_k ([3], [4]).
View varlen_view(const Call& c) {
  View w{c.problem, {}, 0};
  if (c.inputs.size() < 5) return w;
  const auto cq = int32s(c.inputs[3]), ck = int32s(c.inputs[4]);
  for (std::size_t b = 0; b + 1 < cq.size() && b + 1 < ck.size(); ++b)
    w.seqs.emplace_back(static_cast<std::size_t>(std::max(0, cq[b + 1] - cq[b])), static_cast<std::size_t>(std::max(0, ck[b + 1] - ck[b])));
  return w;
}
// paged: cu_seqlens_q ([3]) and seqused_k ([4]), the page size in Call::paging.
View paged_view(const Call& c) {
  View w{c.problem, {}, static_cast<std::size_t>(c.paging.page_size)};
  if (c.inputs.size() < 5) return w;
  const auto cq = int32s(c.inputs[3]), used = int32s(c.inputs[4]);
  for (std::size_t b = 0; b + 1 < cq.size() && b < used.size(); ++b)
    w.seqs.emplace_back(static_cast<std::size_t>(std::max(0, cq[b + 1] - cq[b])), static_cast<std::size_t>(std::max(0, used[b])));
  return w;
}

using Values = std::vector<long long>;
Values flag(bool used) { return used ? Values{1} : Values{}; }

bool alignment_matters(const View& w) {
  if (!w.p.mask.masks_anything()) return false;
  return std::any_of(w.seqs.begin(), w.seqs.end(), [](const auto& s) { return s.first > 0 && s.first != s.second; });
}

struct FeatureRow {
  Feature f;
  Values (*uses)(const View&);
};

// The table. A new feature is one row here and its name in the kinds' rows below.
const std::vector<FeatureRow>& feature_rows() {
  static const std::vector<FeatureRow> rows = {
      {{"causal", "the causal mask", false}, [](const View& w) { return flag(w.p.mask.causal); }},
      {{"non_causal", "no causal mask (every key visible but for a window)", false}, [](const View& w) { return flag(!w.p.mask.causal); }},
      {{"top_left", "a causal mask or window aligned top-left where it matters (some n_b != m_b)", false},
       [](const View& w) { return flag(w.p.mask.alignment == kernels::Alignment::top_left && alignment_matters(w)); }},
      {{"bottom_right", "a causal mask or window aligned bottom-right where it matters (some n_b != m_b)", false},
       [](const View& w) { return flag(w.p.mask.alignment == kernels::Alignment::bottom_right && alignment_matters(w)); }},
      {{"window", "a sliding window (window_left or window_right >= 0)", false},
       [](const View& w) { return flag(w.p.mask.window_left >= 0 || w.p.mask.window_right >= 0); }},
      {{"softcap", "a logit soft-cap", false}, [](const View& w) { return flag(w.p.softcap > 0); }},
      {{"alibi", "ALiBi slopes", false}, [](const View& w) { return flag(!w.p.alibi_slopes.empty()); }},
      {{"n_gt_m", "a sequence with more queries than keys (n_b > m_b, m_b = 0 included)", false},
       [](const View& w) { return flag(std::any_of(w.seqs.begin(), w.seqs.end(), [](const auto& s) { return s.first > s.second; })); }},
      {{"keyless_rows", "a query row that sees no key (m_b = 0, the mask, a window)", false},
       [](const View& w) {
         for (const auto& [n, m] : w.seqs)
           for (std::size_t i = 0; i < n; ++i)
             if (w.p.mask.visible(i, n, m).empty()) return flag(true);
         return flag(false);
       }},
      {{"empty_sequences", "a sequence without queries or without keys (n_b = 0 or m_b = 0)", false},
       [](const View& w) { return flag(std::any_of(w.seqs.begin(), w.seqs.end(), [](const auto& s) { return s.first == 0 || s.second == 0; })); }},
      {{"group", "the query heads per key/value head, H / H_kv (1: multi-head; H: multi-query)", true},
       [](const View& w) { return Values{static_cast<long long>(w.p.shape.kv_heads ? w.p.shape.heads / w.p.shape.kv_heads : 0)}; }},
      {{"dv_ne_d", "a value head size other than the key head size (dv != d)", false}, [](const View& w) { return flag(w.p.shape.dv != w.p.shape.d); }},
      {{"d", "the key head size d", true}, [](const View& w) { return Values{static_cast<long long>(w.p.shape.d)}; }},
      {{"page_size", "the tokens per page of the KV cache", true},
       [](const View& w) { return w.page_size ? Values{static_cast<long long>(w.page_size)} : Values{}; }},
  };
  return rows;
}

struct KindRow {
  Kind kind;
  std::vector<std::string_view> features;
  View (*view)(const Call&);
};

// The kinds that declare capabilities, each with the features its problems can have.
const std::vector<KindRow>& kind_rows() {
  static const std::vector<std::string_view> problem = {"causal", "non_causal", "top_left", "bottom_right", "window", "softcap", "alibi",
                                                        "n_gt_m", "keyless_rows", "empty_sequences", "group", "dv_ne_d", "d"};
  static const std::vector<KindRow> rows = [] {
    std::vector<std::string_view> paged = problem;
    paged.push_back("page_size");
    return std::vector<KindRow>{
        {Kind::attention, {"causal", "non_causal", "n_gt_m", "keyless_rows", "dv_ne_d", "d"}, v1_view},
        {Kind::attention_v2, problem, dense_view},
        {Kind::attention_varlen, problem, varlen_view},
        {Kind::attention_paged, paged, paged_view},
        // The backward pass and the FP8-cache read take attention_v2's dense problem.
        {Kind::attention_backward, problem, dense_view},
        {Kind::attention_fp8kv, problem, dense_view},
    };
  }();
  return rows;
}

const KindRow* kind_row(Kind k) {
  for (const auto& r : kind_rows())
    if (r.kind == k) return &r;
  return nullptr;
}

const FeatureRow* feature_row(std::string_view name) {
  for (const auto& r : feature_rows())
    if (r.f.name == name) return &r;
  return nullptr;
}

std::string join_values(const std::vector<long long>& v) {
  std::string s;
  for (long long x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

}  // namespace

const std::vector<Feature>& all_features() {
  static const std::vector<Feature> v = [] {
    std::vector<Feature> f;
    for (const auto& r : feature_rows()) f.push_back(r.f);
    return f;
  }();
  return v;
}

const Feature* find_feature(std::string_view name) {
  const FeatureRow* r = feature_row(name);
  return r ? &r->f : nullptr;
}

std::vector<std::string_view> features_of(Kind k) {
  const KindRow* r = kind_row(k);
  return r ? r->features : std::vector<std::string_view>{};
}

std::string Supports::text() const {
  const Feature* f = find_feature(feature);
  const std::string v = f && !f->valued ? (values.empty() ? "no" : "yes") : join_values(values);
  return (kind ? std::string(kind_name(*kind)) + ":" : std::string()) + feature + "=" + v;
}

std::string parse_supports(const std::string& word, Supports& out) {
  const auto eq = word.find('=');
  if (eq == std::string::npos) return "supports '" + word + "' is not FEATURE=VALUE (e.g. alibi=no, page_size=16,32)";
  std::string name = word.substr(0, eq);
  const std::string value = word.substr(eq + 1);
  out = {};
  if (const auto colon = name.find(':'); colon != std::string::npos) {
    const auto k = parse_kind(name.substr(0, colon));
    if (!k || features_of(*k == Kind::attention ? Kind::attention_v2 : *k).empty())
      return "supports '" + word + "': '" + name.substr(0, colon) +
             "' is not a kind that declares capabilities (attention, attention_varlen, attention_paged)";
    out.kind = *k;
    name = name.substr(colon + 1);
  }
  const Feature* f = find_feature(name);
  if (!f) {
    std::string known;
    for (const auto& x : all_features()) known += (known.empty() ? "" : ", ") + std::string(x.name);
    return "supports '" + word + "': unknown feature '" + name + "' (known: " + known + ")";
  }
  if (out.kind) {
    const auto own = features_of(*out.kind == Kind::attention ? Kind::attention_v2 : *out.kind);
    if (std::find(own.begin(), own.end(), name) == own.end())
      return "supports '" + word + "': " + std::string(kind_name(*out.kind)) + " problems have no feature " + name;
  }
  out.feature = name;
  if (!f->valued) {
    if (value == "yes" || value == "true") out.values = {1};
    else if (value != "no" && value != "false") return "supports '" + word + "': " + name + " takes yes or no";
    return "";
  }
  std::size_t at = 0;
  while (at <= value.size()) {
    const auto comma = std::min(value.find(',', at), value.size());
    std::size_t v = 0;
    if (!parse_whole(value.substr(at, comma - at), v) || v > 1000000)
      return "supports '" + word + "': " + name + " takes a list of whole numbers (e.g. " + name + "=1,2,4)";
    out.values.push_back(static_cast<long long>(v));
    at = comma + 1;
  }
  return "";
}

std::string Capabilities::text() const {
  std::string s;
  for (const auto& d : declared) {
    Supports u = d;
    u.kind.reset();
    s += (s.empty() ? "" : " ") + u.text();
  }
  return s;
}

Capabilities capabilities_for(const std::vector<Supports>& all, Kind k) {
  Capabilities c;
  const Kind spelt = spelt_kind(k);
  const auto features = features_of(k);
  for (const auto& s : all)
    if ((!s.kind || *s.kind == spelt) && std::find(features.begin(), features.end(), s.feature) != features.end()) c.declared.push_back(s);
  return c;
}

std::vector<std::string> features_used(const Call& c) {
  const KindRow* k = kind_row(c.kind);
  if (!k) return {};
  const View w = k->view(c);
  std::vector<std::string> keys;
  for (std::string_view name : k->features) {
    const FeatureRow* f = feature_row(name);
    for (long long v : f->uses(w)) keys.push_back(f->f.valued ? std::string(name) + "=" + std::to_string(v) : std::string(name));
  }
  return keys;
}

std::vector<std::string> outside(const Capabilities& caps, const std::vector<std::string>& used) {
  std::vector<std::string> out;
  for (const auto& key : used) {
    const auto eq = key.find('=');
    const std::string name = key.substr(0, eq);
    const long long v = eq == std::string::npos ? 1 : std::stoll(key.substr(eq + 1));
    // The last declaration of a feature wins (a kernel's own over the file's top level).
    const Supports* last = nullptr;
    for (const auto& s : caps.declared)
      if (s.feature == name) last = &s;
    if (last && std::find(last->values.begin(), last->values.end(), v) == last->values.end()) out.push_back(key);
  }
  return out;
}

const DeclaredKinds*& declared_kinds_slot() {
  thread_local const DeclaredKinds* d = nullptr;
  return d;
}

bool declared_unsupported(Kind k, std::string_view f) {
  const DeclaredKinds* d = declared_kinds_slot();
  const auto it = d ? d->find(k) : DeclaredKinds::const_iterator{};
  return d && it != d->end() && !outside(it->second, {std::string(f)}).empty();
}

namespace {
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> v;
  std::size_t at = 0;
  while (at < s.size()) {
    const auto sp = std::min(s.find(' ', at), s.size());
    if (sp > at) v.push_back(s.substr(at, sp - at));
    at = sp + 1;
  }
  return v;
}
}  // namespace

std::string tally_text(const std::map<std::string, int>& per_feature) {
  std::vector<std::pair<int, std::string>> v;
  for (const auto& [k, n] : per_feature) v.emplace_back(-n, k);
  std::sort(v.begin(), v.end());
  std::string s;
  for (const auto& [n, k] : v) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(-n);
  return s;
}

std::string decline_hint(const std::map<std::string, int>& accepted, const std::map<std::string, int>& declined) {
  int total = 0, sent = 0;
  std::map<std::string, int> in_declined, in_accepted;
  for (const auto& [sig, n] : declined) {
    total += n;
    for (const auto& k : words(sig)) in_declined[k] += n;
  }
  for (const auto& [sig, n] : accepted) {
    sent += n;
    for (const auto& k : words(sig)) in_accepted[k] += n;
  }
  if (total == 0) return "";
  // Flag features: "=no" when no accepted call used them. Valued ones: the values accepted calls
  // used, when some declined call used another.
  std::set<std::string> excluded;
  std::map<std::string, std::set<long long>> accepted_values, declined_values;
  for (const auto& [k, n] : in_accepted)
    if (const auto eq = k.find('='); eq != std::string::npos) accepted_values[k.substr(0, eq)].insert(std::stoll(k.substr(eq + 1)));
  std::vector<std::string> declaration;
  for (const auto& [k, n] : in_declined) {
    if (in_accepted.count(k) || sent == 0) continue;
    const auto eq = k.find('=');
    if (eq == std::string::npos) {
      excluded.insert(k);
      declaration.push_back(k + "=no");
    } else if (accepted_values.count(k.substr(0, eq))) {
      excluded.insert(k);
      declined_values[k.substr(0, eq)].insert(std::stoll(k.substr(eq + 1)));
    }
  }
  for (const auto& [name, vals] : declined_values) {
    (void)vals;
    const auto& a = accepted_values[name];
    declaration.push_back(name + "=" + join_values({a.begin(), a.end()}));
  }
  int covered = 0;
  for (const auto& [sig, n] : declined) {
    const auto w = words(sig);
    if (std::any_of(w.begin(), w.end(), [&](const std::string& k) { return excluded.count(k) != 0; })) covered += n;
  }
  // Named: the flag features, and the values of valued ones that no accepted call had (the other
  // values, d=5 and the like, say nothing).
  std::map<std::string, int> named;
  for (const auto& [k, n] : in_declined)
    if (k.find('=') == std::string::npos || excluded.count(k)) named[k] = n;
  std::string s = "the declined calls had: " + tally_text(named) + " (of " + std::to_string(total) + ")";
  if (sent == 0) {
    std::string all;  // the flag features every declined call had
    for (const auto& [k, n] : named)
      if (n == total) all += (all.empty() ? "" : " --supports ") + k + "=no";
    return s + "; no call was accepted, so no feature tells them apart" +
           (all.empty() ? std::string() : "; each had what --supports " + all + " declares unsupported, if the kernel cannot compute it");
  }
  if (declaration.empty()) return s + "; every feature they had was also in an accepted call";
  std::string flags;
  for (const auto& d : declaration) flags += " --supports " + d;
  return s + "; no accepted call had " + (excluded.size() > 1 ? "these" : "this") + ": declaring" + flags + " (bindings: supports:) excludes " +
         std::to_string(covered) + " of the " + std::to_string(total) + " declined";
}

}  // namespace attncheck::audit
