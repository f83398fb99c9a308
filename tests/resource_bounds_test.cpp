// Resource bounds: inputs far larger than any real one — a 100 MB contract or bindings
// file, a row of 10^7 elements on the exec protocol, d = 10^6 for the model checker, a kernel that
// allocates without bound — each get a clear message or verdict within a stated time, never an
// exhausted machine. Each case also states the limit that makes it so.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "tests/run_command.hpp"

#include "attncheck/audit/protocol.hpp"
#include "attncheck/contract/loader.hpp"
#include "tests/test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

struct Run {
  int status = -1;
  std::string output;
  double seconds = 0;
};

Run cli(const std::string& args) {
  const std::string command = std::string("'") + ATTNCHECK_CLI_PATH + "' " + args + " 2>&1";
  Run r;
  const auto t0 = clock_type::now();
  const attncheck_tests::CommandOutput out = attncheck_tests::run_command(command);
  r.status = out.status;
  r.output = out.output;
  r.seconds = seconds_since(t0);
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A private scratch directory, removed at the end of the test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("attncheck-bounds-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // A file of `bytes` bytes that starts with `head`; sparse, so 100 MB cost no disk or time.
  std::string big_file(const std::string& name, const std::string& head, std::uintmax_t bytes) const {
    const fs::path p = dir / name;
    std::ofstream(p) << head;
    fs::resize_file(p, bytes);
    return p.string();
  }
};

constexpr std::uintmax_t hundred_mb = 100'000'000;

}  // namespace

TEST_CASE("a 100 MB contract file is refused unread with its size and the limit, in well under a second") {
  Scratch s;
  const std::string path = s.big_file("huge.yaml", "metadata:\n  version: \"1.0.0\"\n", hundred_mb);
  const auto t0 = clock_type::now();
  const auto r = attncheck::contract::load_file(path);
  CHECK(seconds_since(t0) < 1.0);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(contains(r.diagnostics[0].message, "has 100000000 bytes, more than the 4 MiB"));
  // The limit is not a guess at the bundled files: the largest of them is far below it.
  for (const auto& e : fs::directory_iterator(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts"))
    CHECK(fs::file_size(e.path()) < attncheck::contract::max_file_bytes / 64);
  // Through the CLI: a usage error (exit 2) naming the file.
  const Run lint = cli("--contracts '" + s.dir.string() + "' lint");
  CHECK(lint.status == 2);
  CHECK(contains(lint.output, "huge.yaml"));
  CHECK(contains(lint.output, "more than the 4 MiB"));
  CHECK(lint.seconds < 10);
}

TEST_CASE("a 100 MB bindings file is refused unread by attncheck audit (exit 2), in seconds") {
  Scratch s;
  const std::string path = s.big_file("huge-bindings.yaml", "library: x.so\nkernels:\n", hundred_mb);
  const Run r = cli("audit --bindings '" + path + "'");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(contains(r.output, "has 100000000 bytes, more than the 1 MiB a bindings file may have"));
  CHECK(r.seconds < 10);
}

TEST_CASE("exec protocol: a row of 10^7 elements is decoded within the 64 MiB frame limit, or refused before allocation") {
  namespace p = attncheck::audit::protocol;
  using attncheck::Dtype;
  constexpr std::uint64_t n = 10'000'000;
  // 10^7 f32 elements (40 MB) fit in one frame: a CALL carrying them round-trips intact.
  attncheck::audit::Call c;
  c.kind = attncheck::audit::Kind::softmax;
  c.dtype = Dtype::f32;
  c.n = n;
  c.output_count = n;
  c.inputs = {std::vector<unsigned char>(n * 4, 0x3f)};
  const auto t0 = clock_type::now();
  const auto frame = p::encode_call(c);
  const auto back = p::decode_call(std::vector<unsigned char>(frame.begin() + p::header_bytes, frame.end()));
  CHECK(back.n == n);
  CHECK(back.inputs == c.inputs);
  CHECK(seconds_since(t0) < 10);
  // A peer answering a 3-element call with 10^7 elements: a protocol error naming both counts.
  std::vector<unsigned char> result(16 + n * 4, 0);
  std::memcpy(&result[8], &n, 8);  // little-endian hosts only, as the protocol itself
  CHECK_THROWS_WITH_AS(p::decode_result(result, Dtype::f32, 3), "result holds 10000000 elements, the call expects 3",
                       p::ProtocolError);
  // 10^7 f64 elements (80 MB) exceed the frame limit: attncheck refuses to send such a case, and a
  // peer's header announcing such a frame is refused before its payload is read or allocated.
  c.dtype = Dtype::f64;
  c.inputs = {std::vector<unsigned char>(n * 8, 0)};
  CHECK_THROWS_AS(p::encode_call(c), p::ProtocolError);
  const auto header = p::encode_header(p::Type::result, static_cast<std::uint32_t>(16 + n * 8));
  unsigned char h[p::header_bytes];
  std::memcpy(h, header.data(), sizeof h);
  CHECK_THROWS_WITH_AS(p::decode_header(h), "frame of 80000016 bytes exceeds the limit of 67108864 bytes", p::ProtocolError);
}

TEST_CASE("attncheck bmc refuses d = 10^6 at once (exit 2) instead of building a formula that exhausts memory") {
  const Run r = cli("bmc --harness KANI-SM-001 --format f16 --bound 1000000");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(contains(r.output, "--bound 1000000 is larger than 64"));
  CHECK(r.seconds < 10);
}

TEST_CASE("an exec kernel that allocates without bound is stopped by the memory limit: a FAIL verdict within seconds") {
  // HELLO, then a shell doubling a string forever. Under --memory 64 the address-space limit
  // (RLIMIT_AS in the child) makes it die at 64 MiB; without the limit it would eat the machine.
  const std::string hog = "--exec \"printf 'ATCK\\002\\001\\000\\000\\004\\000\\000\\000\\002\\000\\000\\000'; "
                          "x=y; while :; do x=\\$x\\$x; done\" --kernel softmax:f32";
  const fs::path json = fs::temp_directory_path() / ("attncheck-bounds-" + std::to_string(::getpid()) + ".json");
  const Run r = cli("--contracts '" + std::string(ATTNCHECK_SOURCE_DIR) + "/contracts' audit " + hog +
                    " --memory 64 --timeout 20 --cases 3 --test AUDIT-SAFE-001 --json '" + json.string() + "'");
  INFO(r.output);
  std::ifstream in(json);
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(json);
  INFO(report);
  CHECK(r.status == 1);
  CHECK(contains(report, "\"verdict\": \"FAIL\""));
  CHECK((contains(report, "program crashed") || contains(report, "program exited with status")));
  CHECK(r.seconds < 120);
}

TEST_CASE("a ',' where yaml-cpp's LoadAll would loop forever is refused at its place, within 1 s") {
  // Found by fuzz/contract_fuzz.cpp (fuzz/regressions/fuzz_contract/yaml-cpp-hang-*): yaml-cpp 0.7
  // grew to 5.6 GB in 20 s on the first shape; the tag shape came later from tools/fuzz-long.sh.
  struct Case {
    std::string text;
    int line, column;
  };
  for (const Case& c : {Case{",a", 1, 1}, Case{",etadata2\n  decriptIon: \"Mssiine\"\np", 1, 1},
                        Case{"# c\n  ,a", 2, 3}, Case{"[a]\n,b", 2, 1},
                        Case{"#fl)\n!tessirPtionn_tez,si", 2, 18}, Case{"!t ,x", 1, 4},
                        Case{"&a ,", 1, 4}, Case{"a: 1\n...\n,", 3, 1}}) {
    INFO(c.text);
    const auto t0 = clock_type::now();
    const auto r = attncheck::contract::load_text(c.text, "comma.yaml");
    CHECK(seconds_since(t0) < 1.0);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(contains(r.diagnostics[0].message, "the YAML parser cannot go past this ','"));
    CHECK(r.diagnostics[0].where.line == c.line);
    CHECK(r.diagnostics[0].where.column == c.column);
  }
}

TEST_CASE("a flow list continued on a line that starts with ',' is valid YAML and is read") {
  // The earlier guard refused every line starting with ',': a false alarm on this valid file.
  const auto r = attncheck::contract::load_text("metadata:\n  version: 1.0.0\n  description: x\n"
                                                "  references: [a\n    , b]\n",
                                                "flow.yaml");
  for (const auto& d : r.diagnostics) {
    INFO(d.message);
    CHECK_FALSE(contains(d.message, "cannot go past"));
    CHECK_FALSE(contains(d.message, "syntax error"));
  }
}

TEST_CASE("a bindings file with a stray ',' or two documents is refused (exit 2), never hanging yaml-cpp") {
  Scratch s;
  const fs::path p = s.dir / "comma.yaml";
  for (const auto& [text, expected] :
       {std::pair<std::string, std::string>{"library: x.so\n,kernels: []\n", "comma.yaml:2:"},
        {"!t ,x\n", "comma.yaml:1:4: the YAML parser cannot go past this ','"},
        {"library: x.so\n---\nlibrary: y.so\n", "the file holds 2 YAML documents"}}) {
    std::ofstream(p) << text;
    const Run r = cli("audit --bindings '" + p.string() + "'");
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(contains(r.output, expected));
    CHECK(r.seconds < 10);
  }
}
