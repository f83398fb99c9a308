// attncheck: where an audit's kernels come from: the kernel specs (KIND:DTYPE[:SYMBOL]) and the
// bindings YAML file (docs/audit.md). A parser of untrusted input (fuzz/bindings_fuzz.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attncheck/audit/library_backend.hpp"
#include "attncheck/audit/properties.hpp"

namespace attncheck::audit {

// Where the kernels come from, after `attncheck audit`'s --lib/--kernel, --bindings or --exec were read.
struct KernelSource {
  std::string library;             // --lib or the bindings file's library (resolved path)
  std::string exec;                // --exec command
  std::vector<Binding> bindings;   // for --exec the symbol is empty
  MaskedPolicy masked = MaskedPolicy::either;  // the file's top-level masked, or --masked
  // Per kernel (a kernel entry's masked:); --masked on the command line replaces them all.
  std::map<std::pair<Kind, Dtype>, MaskedPolicy> kernel_masked;
  std::string tolerance;           // the bindings file's tolerance mode ("" = not given)
  int abi = 0;                     // the declared ABI version (abi:, --abi); 0 = not declared
  // Attention of ABI version 2: whether the kernels return the LSE (lse: at the top, per kernel
  // below it; --no-lse replaces them all).
  bool lse = true;
  std::map<std::pair<Kind, Dtype>, bool> kernel_lse;
  // Attention with 16-bit storage: which intermediates the kernels store in the storage format
  // (stores: at the top, per kernel below it; --stores replaces them all). "p" (fused, the
  // default) or "scores,p" / "scores,p,dp,ds" (unfused): scalar/arithmetic.hpp, Intermediates.
  Intermediates stores = Intermediates::fused;
  std::map<std::pair<Kind, Dtype>, Intermediates> kernel_stores;
  // What the kernels' arithmetic does below the smallest normal (subnormals: at the top, for every
  // kernel; --subnormals replaces it): ieee (gradual underflow, the default) or flush.
  Subnormals subnormals = Subnormals::ieee;
  // Whether the kernels give the same bits for the same input (deterministic: at the top, per
  // kernel below it; --nondeterministic replaces them all): false for atomics or split-K sums.
  bool deterministic = true;
  std::map<std::pair<Kind, Dtype>, bool> kernel_deterministic;
  // Attention of ABI version 2: the largest num_splits the kernels read (splits: at the top;
  // --splits replaces it); 0: not declared (num_splits is 0 in every call).
  std::size_t splits = 0;
  // Attention over a paged KV cache: the kernels give the same bits whatever the page size
  // (page_size_invariant: at the top; --page-size-invariant sets it).
  bool page_size_invariant = false;
  // Attention over a packed batch: the kernels compute each sequence as the dense kernel does
  // (packing_invariant: at the top; --packing-invariant sets it).
  bool packing_invariant = false;
  // The attention kinds: what the kernels support (capabilities.hpp): supports: at the top (each
  // may name its kind, KIND:FEATURE), per kernel below it; --supports adds to them (last wins).
  std::vector<Supports> supports;
  std::map<std::pair<Kind, Dtype>, std::vector<Supports>> kernel_supports;
};

// Parses a stores declaration: "fused", or "p" (also "p,ds": the backward's dS is stored in the
// fused model too); "unfused", or a set of p, scores, dp, ds with scores or dp in it ("scores,p",
// "scores,p,dp,ds", any order); returns an error text or "".
std::string parse_stores(const std::string& s, Intermediates& out);
std::string_view stores_name(Intermediates s);

// Parses a subnormals declaration: "ieee" or "flush"; returns an error text or "".
std::string parse_subnormals(const std::string& s, Subnormals& out);
std::string_view subnormals_name(Subnormals s);

// Parses KIND:DTYPE:SYMBOL (library) or KIND:DTYPE (exec); returns an error text or "".
std::string parse_kernel_spec(const std::string& spec, bool with_symbol, Binding& out);

// A bindings file names a library and a few kernels; anything this large is not one, and is refused
// unread rather than parsed for minutes.
inline constexpr std::uintmax_t max_bindings_bytes = std::uintmax_t{1} << 20;

// Reads a bindings YAML file (docs/audit.md); returns an error text or "".
std::string read_bindings(const std::string& path, KernelSource& out);
// The same for the file's text already in memory, reported under `path` (fuzzing, tests).
std::string read_bindings_text(const std::string& text, const std::string& path, KernelSource& out);

}  // namespace attncheck::audit
