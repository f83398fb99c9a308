// attncheck: the kernel specs of an audit (KIND:DTYPE[:SYMBOL], as `attncheck audit --kernel` takes
// them) and the bindings YAML file (docs/audit.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

#include "attncheck/audit/bindings.hpp"
#include "attncheck/audit/kinds/registry.hpp"

#include "attncheck/property/tolerance.hpp"
#include "attncheck/contract/yaml_documents.hpp"
#include "attncheck/text/parse_number.hpp"
#include "attncheck/text/words.hpp"

namespace attncheck::audit {

// The checks of the parsed tree; yaml-cpp throws on a value of the wrong shape (caught by the caller).
static std::string parse_bindings(const YAML::Node& root, const std::string& path, KernelSource& out);

namespace {

std::vector<std::string> kind_names() {
  std::vector<std::string> v;
  for (Kind k : registered_kinds())
    if (descriptor_of(k).spelt) v.emplace_back(kind_name(k));  // not attention_v2, spelt `attention` (call.hpp, abi_kind)
  return v;
}

// A true/false key (yes and no accepted): "" and out set, or the message naming the key and what
// it declares.
std::string parse_flag(const std::string& key, const std::string& s, const char* meaning, bool& out) {
  if (s == "true" || s == "yes" || s == "false" || s == "no") {
    out = s == "true" || s == "yes";
    return "";
  }
  return key + ": '" + s + "' is not true or false (" + meaning + ")";
}

std::string parse_lse(const std::string& s, bool& out) {
  return parse_flag("lse", s, "whether the attention kernel returns the log-sum-exp", out);
}

std::string parse_deterministic(const std::string& s, bool& out) {
  return parse_flag("deterministic", s, "whether the kernel gives the same bits for the same input", out);
}

// supports: a map {FEATURE: VALUE} (a list VALUE of numbers for a valued feature) or a list of
// FEATURE=VALUE words (capabilities.hpp); appends to out.
std::string parse_supports_node(const YAML::Node& n, std::vector<Supports>& out) {
  std::vector<std::string> words;
  if (n.IsMap()) {
    for (const auto& kv : n) {
      std::string v;
      if (kv.second.IsSequence())
        for (const auto& x : kv.second) v += (v.empty() ? "" : ",") + x.as<std::string>();
      else
        v = kv.second.as<std::string>();
      words.push_back(kv.first.as<std::string>() + "=" + v);
    }
  } else if (n.IsSequence()) {
    for (const auto& x : n) words.push_back(x.as<std::string>());
  } else {
    return "supports: must be a map {FEATURE: VALUE} or a list of FEATURE=VALUE (docs/audit.md)";
  }
  for (const auto& w : words) {
    Supports s;
    if (auto e = parse_supports(w, s); !e.empty()) return e;
    out.push_back(s);
  }
  return "";
}

}  // namespace

std::string parse_stores(const std::string& s, Intermediates& out) {
  // A named recipe, or the set of intermediates stored (any order): p (fused: P, and in the backward
  // dS, as FlashAttention's tensor-core operands) or one with scores or dp (unfused: a graph of
  // separate ops, every op's output stored; the backward's dP, dS and products too).
  if (s == "fused" || s == "unfused") {
    out = s == "fused" ? Intermediates::fused : Intermediates::unfused;
    return "";
  }
  bool p = false, scores = false, dp = false, ds = false, known = !s.empty();
  for (std::size_t at = 0; known && at <= s.size();) {
    const std::size_t end = std::min(s.find(',', at), s.size());
    const std::string w = s.substr(at, end - at);
    bool* seen = w == "p" ? &p : w == "scores" ? &scores : w == "dp" ? &dp : w == "ds" ? &ds : nullptr;
    known = seen != nullptr && !*seen;
    if (known) *seen = true;
    at = end + 1;
  }
  if (known && p) {
    out = scores || dp ? Intermediates::unfused : Intermediates::fused;
    return "";
  }
  return "stores: '" + s +
         "' is not a set of stored intermediates this attncheck knows: 'p' or 'fused' (fused: scores and O in the "
         "arithmetic, the weights P rounded to storage, and in the backward dS; the default) or 'scores,p', "
         "'scores,p,dp,ds' or 'unfused' (unfused, a graph of separate ops: the scores stored too, and in the backward "
         "dP, dS and every product; docs/formats.md)";
}

std::string_view stores_name(Intermediates s) { return s == Intermediates::unfused ? "scores,p,dp,ds" : "p"; }

std::string parse_subnormals(const std::string& s, Subnormals& out) {
  if (s == "ieee") {
    out = Subnormals::ieee;
    return "";
  }
  if (s == "flush") {
    out = Subnormals::flush;
    return "";
  }
  return "subnormals: '" + s +
         "' is not a subnormal arithmetic this attncheck knows: 'ieee' (gradual underflow, the default) or 'flush' (results below "
         "the smallest normal may be 0: flush-to-zero; docs/formats.md)";
}

std::string_view subnormals_name(Subnormals s) { return s == Subnormals::flush ? "flush" : "ieee"; }

namespace {

std::string parse_masked(const std::string& s, MaskedPolicy& out) {
  if (const auto p = parse_masked_policy(s)) {
    out = *p;
    return "";
  }
  return "unknown masked-row policy '" + s + "'; use zeros, nan or either";
}
}  // namespace

std::string parse_kernel_spec(const std::string& spec, bool with_symbol, Binding& out) {
  const std::string form = with_symbol ? "KIND:DTYPE:SYMBOL (e.g. softmax:f32:my_softmax)" : "KIND:DTYPE (e.g. softmax:f32)";
  const auto a = spec.find(':');
  const auto b = a == std::string::npos ? std::string::npos : spec.find(':', a + 1);
  if (a == std::string::npos || (with_symbol ? b == std::string::npos : b != std::string::npos))
    return "--kernel '" + spec + "' is not of the form " + form;
  const std::string kind = spec.substr(0, a), dtype = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  const auto k = parse_kind(kind);
  if (!k) {
    const std::string guess = closest(kind, kind_names());
    return "unknown kernel kind '" + kind + "'" + (guess.empty() ? "" : " (did you mean '" + guess + "'?)") + "; kinds: " +
           join(kind_names(), ", ");
  }
  const auto d = parse_dtype(dtype);
  if (!d)
    return "unknown dtype '" + dtype + "' in --kernel '" + spec +
           "'; use f32, f64, or a 16-bit storage format with its arithmetic: f16, bf16 (f32 arithmetic, as f16@f32 and "
           "bf16@f32) or f16@f16, bf16@bf16 (every operation rounded to 16 bits)";
  out.kind = *k;
  out.dtype = *d;
  out.symbol = with_symbol ? spec.substr(b + 1) : "";
  if (with_symbol && out.symbol.empty()) return "--kernel '" + spec + "' names no symbol";
  return "";
}

std::string read_bindings(const std::string& path, KernelSource& out) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return path + ": no such file: check the --bindings path";
  if (!std::filesystem::is_regular_file(path, ec)) return path + ": is not a regular file: name a bindings YAML file";
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bindings_bytes)
    return path + ": the file has " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bindings_bytes >> 20) +
           " MiB a bindings file may have: check that this is the file you meant";
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": cannot be opened: check its permissions";
  std::ostringstream text;
  text << in.rdbuf();
  return read_bindings_text(text.str(), path, out);
}

std::string read_bindings_text(const std::string& text, const std::string& path, KernelSource& out) {
  if (text.size() > max_bindings_bytes)
    return path + ": the text has " + std::to_string(text.size()) + " bytes, more than the " +
           std::to_string(max_bindings_bytes >> 20) + " MiB a bindings file may have";
  try {
    // The contract loader's reading of a YAML stream (never loops, as YAML::LoadAll can), so that
    // a second document is refused and not silently ignored as YAML::Load would.
    const auto loaded = contract::load_yaml_documents(text);
    if (loaded.stuck)
      return path + ":" + std::to_string(loaded.stuck->line + 1) + ":" + std::to_string(loaded.stuck->column + 1) + ": " +
             contract::stuck_message(text, *loaded.stuck);
    if (loaded.documents.size() > 1)
      return path + ": the file holds " + std::to_string(loaded.documents.size()) +
             " YAML documents (separated by ---): a bindings file holds one";
    return parse_bindings(loaded.documents.empty() ? YAML::Node() : loaded.documents[0], path, out);
  } catch (const YAML::ParserException& e) {
    return path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg;
  } catch (const YAML::Exception& e) {
    // A value of the wrong shape (a list where a name belongs, nesting too deep, ...).
    const std::string where = e.mark.is_null() ? path : path + ":" + std::to_string(e.mark.line + 1);
    return where + ": " + e.msg + " (see docs/audit.md for the bindings format)";
  }
}

static std::string parse_bindings(const YAML::Node& root, const std::string& path, KernelSource& out) {
  if (!root.IsMap())
    return path + ": expected a map with keys library, kernels (and optionally masked, tolerance, abi, lse, stores, subnormals, deterministic, "
                  "splits, page_size_invariant, packing_invariant, supports)";
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    if (key != "library" && key != "kernels" && key != "masked" && key != "tolerance" && key != "abi" && key != "lse" &&
        key != "stores" && key != "subnormals" && key != "deterministic" && key != "splits" && key != "page_size_invariant" &&
        key != "packing_invariant" && key != "supports")
      return path + ":" + std::to_string(kv.first.Mark().line + 1) + ": unknown key '" + key +
             "' (known: library, kernels, masked, tolerance, abi, lse, stores, subnormals, deterministic, splits, page_size_invariant, "
             "packing_invariant, supports)";
  }
  if (root["abi"]) {
    const std::string a = root["abi"].as<std::string>();
    const std::string at = path + ":" + std::to_string(root["abi"].Mark().line + 1);
    if (a.size() != 1 || a[0] < '0' + min_abi_version || a[0] > '0' + max_abi_version)
      return at + ": abi: '" + a + "' is not an ABI version this attncheck speaks (" + std::to_string(min_abi_version) + " to " +
             std::to_string(max_abi_version) + ", include/attncheck/abi.h)";
    out.abi = a[0] - '0';
  }
  if (root["lse"])
    if (auto e = parse_lse(root["lse"].as<std::string>(), out.lse); !e.empty())
      return path + ":" + std::to_string(root["lse"].Mark().line + 1) + ": " + e;
  if (root["stores"])
    if (auto e = parse_stores(root["stores"].as<std::string>(), out.stores); !e.empty())
      return path + ":" + std::to_string(root["stores"].Mark().line + 1) + ": " + e;
  if (root["subnormals"])
    if (auto e = parse_subnormals(root["subnormals"].as<std::string>(), out.subnormals); !e.empty())
      return path + ":" + std::to_string(root["subnormals"].Mark().line + 1) + ": " + e;
  if (root["deterministic"])
    if (auto e = parse_deterministic(root["deterministic"].as<std::string>(), out.deterministic); !e.empty())
      return path + ":" + std::to_string(root["deterministic"].Mark().line + 1) + ": " + e;
  if (root["supports"])
    if (auto e = parse_supports_node(root["supports"], out.supports); !e.empty())
      return path + ":" + std::to_string(root["supports"].Mark().line + 1) + ": " + e;
  if (root["splits"]) {  // split-KV decoding (--splits S): the library's attention and paged kernels read num_splits
    const std::string t = root["splits"].as<std::string>();
    const std::string at = path + ":" + std::to_string(root["splits"].Mark().line + 1);
    std::size_t v = 0;
    if (!parse_whole(t, v) || v < 1 || v > 65535)
      return at + ": splits: '" + t + "' is not a number of splits from 1 to 65535 (the most a kernel is told to split each row's keys into)";
    out.splits = v;
  }
  // The library's claims that --page-size-invariant and --packing-invariant also make.
  const auto top_flag = [&](const char* key, const char* meaning, bool& flag) -> std::string {
    if (!root[key]) return "";
    const std::string e = parse_flag(key, root[key].as<std::string>(), meaning, flag);
    return e.empty() ? e : path + ":" + std::to_string(root[key].Mark().line + 1) + ": " + e;
  };
  if (auto e = top_flag("page_size_invariant", "whether the paged kernels give the same bits whatever the page size",
                        out.page_size_invariant);
      !e.empty())
    return e;
  if (auto e = top_flag("packing_invariant", "whether the varlen kernels compute each sequence as the dense kernel does",
                        out.packing_invariant);
      !e.empty())
    return e;
  if (!root["library"] || !root["library"].IsScalar()) return path + ": 'library' (the shared library's path) is missing";
  std::filesystem::path lib = root["library"].as<std::string>();
  if (lib.is_relative()) lib = std::filesystem::path(path).parent_path() / lib;  // relative to the bindings file
  out.library = lib.string();
  if (root["masked"]) {
    if (auto e = parse_masked(root["masked"].as<std::string>(), out.masked); !e.empty())
      return path + ":" + std::to_string(root["masked"].Mark().line + 1) + ": " + e;
  }
  // One tolerance mode per audit (property/tolerance.hpp): at the top, or on kernels, all the same.
  auto take_tolerance = [&](const std::string& at, const std::string& t) -> std::string {
    std::string why;
    if (!property::parse_tolerance(t, why)) return at + ": " + why;
    if (!out.tolerance.empty() && out.tolerance != t)
      return at + ": tolerance '" + t + "' differs from '" + out.tolerance +
             "' given before; one audit judges every kernel with one tolerance mode (run separate audits)";
    out.tolerance = t;
    return "";
  };
  if (root["tolerance"])
    if (auto e = take_tolerance(path + ":" + std::to_string(root["tolerance"].Mark().line + 1), root["tolerance"].as<std::string>());
        !e.empty())
      return e;
  const auto ks = root["kernels"];
  if (!ks || !ks.IsSequence() || ks.size() == 0) return path + ": 'kernels' must be a non-empty list of {kind, dtype, symbol}";
  for (const auto& k : ks) {
    const std::string at = path + ":" + std::to_string(k.Mark().line + 1);
    if (!k.IsMap()) return at + ": a kernel entry must be a map with kind, dtype, symbol";
    for (const auto& kv : k) {
      const auto key = kv.first.as<std::string>();
      if (key == "tolerance") {
        if (auto e = take_tolerance(at, kv.second.as<std::string>()); !e.empty()) return e;
      } else if (key != "kind" && key != "dtype" && key != "symbol" && key != "masked" && key != "compute" && key != "lse" &&
                 key != "stores" && key != "deterministic" && key != "supports") {
        return at + ": unknown key '" + key + "' (known: kind, dtype, compute, symbol, masked, lse, stores, deterministic, supports, tolerance)";
      }
    }
    if (!k["kind"] || !k["dtype"] || !k["symbol"]) return at + ": a kernel entry needs kind, dtype and symbol";
    Binding b;
    // compute: the arithmetic format, the same as dtype's '@' part (dtype: bf16, compute: bf16 is
    // bf16@bf16); given twice, the two must agree.
    std::string dtype = k["dtype"].as<std::string>();
    if (k["compute"]) {
      const std::string compute = k["compute"].as<std::string>();
      const auto at_sign = dtype.find('@');
      if (at_sign != std::string::npos && dtype.substr(at_sign + 1) != compute)
        return at + ": dtype '" + dtype + "' and compute '" + compute + "' name different arithmetic formats";
      dtype = dtype.substr(0, at_sign) + "@" + compute;
    }
    const std::string spec = k["kind"].as<std::string>() + ":" + dtype + ":" + k["symbol"].as<std::string>();
    if (auto e = parse_kernel_spec(spec, true, b); !e.empty()) return at + ": " + e;
    if (k["masked"]) {
      MaskedPolicy p{};
      if (auto e = parse_masked(k["masked"].as<std::string>(), p); !e.empty()) return at + ": " + e;
      out.kernel_masked[{b.kind, b.dtype}] = p;
    }
    if (k["lse"]) {
      bool l = true;
      if (auto e = parse_lse(k["lse"].as<std::string>(), l); !e.empty()) return at + ": " + e;
      out.kernel_lse[{b.kind, b.dtype}] = l;
    }
    if (k["deterministic"]) {
      bool det = true;
      if (auto e = parse_deterministic(k["deterministic"].as<std::string>(), det); !e.empty()) return at + ": " + e;
      out.kernel_deterministic[{b.kind, b.dtype}] = det;
    }
    if (k["stores"]) {
      Intermediates st{};
      if (auto e = parse_stores(k["stores"].as<std::string>(), st); !e.empty()) return at + ": " + e;
      out.kernel_stores[{b.kind, b.dtype}] = st;
    }
    if (k["supports"]) {
      std::vector<Supports> own;
      if (auto e = parse_supports_node(k["supports"], own); !e.empty()) return at + ": " + e;
      for (Supports& s : own) {
        if (s.kind && *s.kind != b.kind) return at + ": supports '" + s.text() + "' names another kind than the kernel's";
        s.kind = b.kind;
      }
      out.kernel_supports[{b.kind, b.dtype}] = own;
    }
    out.bindings.push_back(b);
  }
  return "";
}

}  // namespace attncheck::audit
