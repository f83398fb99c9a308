// attncheck: YAML::LoadAll without its endless loop (see yaml_documents.hpp).
#include "attncheck/contract/yaml_documents.hpp"

#include <cctype>
#include <cstdio>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

namespace attncheck::contract {
namespace {

// Notes where each document starts and nothing else: no nodes are built, so this pass allocates
// nothing per event.
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

YamlDocuments load_yaml_documents(const std::string& text) {
  YamlDocuments out;
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (parser.HandleNextDocument(starts)) {
      const auto n = starts.starts.size();
      // Every document that makes progress consumes at least one token, so the next one starts
      // later; equal positions mean nothing was consumed, and yaml-cpp would repeat it forever.
      if (n >= 2 && starts.starts[n - 1].pos == starts.starts[n - 2].pos) {
        out.stuck = starts.starts[n - 1];
        return out;
      }
    }
  }
  out.documents = YAML::LoadAll(text);
  return out;
}

std::string stuck_message(const std::string& text, const YAML::Mark& stuck) {
  const auto pos = static_cast<std::size_t>(stuck.pos);
  if (pos < text.size() && text[pos] == ',')
    return "the YAML parser cannot go past this ',': a comma separates entries only inside "
           "[...] or {...}; join it to the entry before it, or quote the text that holds it";
  std::string what = "the end of the text";
  if (pos < text.size()) {
    const auto c = static_cast<unsigned char>(text[pos]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    what = std::isprint(c) ? std::string("'") + text[pos] + "'" : std::string("the byte ") + hex;
  }
  return "the YAML parser cannot go past " + what + " here: check the syntax of this line";
}

}  // namespace attncheck::contract
