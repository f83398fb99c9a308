// attncheck: every document of a YAML text, as YAML::LoadAll gives them, but never looping forever.
//
// yaml-cpp 0.7 (Debian 12) has a parser state in which a document consumes no input: a ',' where
// a document's root node should start (",a", "!tag ,x", "&a ,", or after "..."). YAML::Load
// returns a null node there; YAML::LoadAll asks for the next document again, gets the same null
// at the same place, and appends it forever (5.6 GB in 20 s; fixed upstream after 0.8, yaml-cpp
// PR #1319). Two fuzzers found two shapes of it (fuzz/regressions/fuzz_contract/). A guess at the
// shapes (refusing lines that start with ',') missed the second and refused valid flow lists, so
// this reads the stream once with yaml-cpp's own parser and an event handler that only notes
// where each document starts: a document that starts where the previous one did has consumed
// nothing, and that is exactly the loop. Only a stream shown to be free of it is then built into
// nodes by YAML::LoadAll.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/mark.h>
#include <yaml-cpp/node/node.h>

namespace attncheck::contract {

struct YamlDocuments {
  std::vector<YAML::Node> documents;  // empty when stuck is set
  // Where yaml-cpp's parser stops making progress, when it does: the text cannot be read as YAML
  // there. 0-based, as yaml-cpp's marks.
  std::optional<YAML::Mark> stuck;
};

// Throws what YAML::LoadAll throws (YAML::ParserException, YAML::DeepRecursion, ...).
YamlDocuments load_yaml_documents(const std::string& text);

// A one-line explanation of a stuck parse at `stuck`, naming the character found there.
std::string stuck_message(const std::string& text, const YAML::Mark& stuck);

}  // namespace attncheck::contract
