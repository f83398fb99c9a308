// attncheck CLI end-to-end tests: run the real binary (ATTNCHECK_CLI_PATH) and check exit codes
// and output, since exit codes and the summary line are what CI scripts depend on.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "tests/run_command.hpp"
#include "tests/test_paths.hpp"

namespace {

namespace fs = std::filesystem;

struct Run {
  int status = -1;  // exit status, -1 if the process died from a signal
  std::string output;  // stdout and stderr, merged
};

// Runs `attncheck ARGS` through the shell with the bundled contracts unless args name others.
Run attncheck(const std::string& args) {
  const std::string command = std::string("'") + ATTNCHECK_CLI_PATH + "' " + args + " 2>&1";
  const attncheck_tests::CommandOutput out = attncheck_tests::run_command(command);
  return {out.status, out.output};
}

// The bundled contracts, named explicitly so an ATTNCHECK_CONTRACTS in the environment cannot
// change what these tests see.
const std::string bundled = std::string("--contracts '") + ATTNCHECK_SOURCE_DIR + "/contracts' ";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("attncheck-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last line of every gate and audit run; CI scripts parse it.
const std::regex summary_line(R"((^|\n)(\d+) passed, (\d+) failed, (\d+) skipped\n$)");

}  // namespace

TEST_CASE("CLI: --help exits 0 and names every subcommand") {
  const Run r = attncheck("--help");
  CHECK(r.status == 0);
  for (const char* sub : {"gate", "list", "show", "lint"}) CHECK_MESSAGE(contains(r.output, sub), sub);
}

TEST_CASE("CLI: every subcommand has --help and --version prints the version") {
  for (const char* sub : {"gate", "list", "show", "lint"}) {
    const Run r = attncheck(std::string(sub) + " --help");
    CHECK_MESSAGE(r.status == 0, sub);
  }
  const Run v = attncheck("--version");
  CHECK(v.status == 0);
  CHECK(contains(v.output, ATTNCHECK_VERSION));
}

TEST_CASE("CLI: usage errors exit 2 and name the fix") {
  const Run seed = attncheck(bundled + "gate --seed 0xZZ");
  CHECK(seed.status == 2);
  CHECK(contains(seed.output, "--seed"));
  const Run dtype = attncheck(bundled + "gate --dtype f8");
  CHECK(dtype.status == 2);
  CHECK(contains(dtype.output, "f32, f64, f16, bf16 (f32 arithmetic), f16@f16, bf16@bf16"));
  CHECK(attncheck("gate --no-such-option").status == 2);
  CHECK(attncheck("").status == 2);  // a subcommand is required
  const Run mutant = attncheck(bundled + "gate --mutant no-such-mutant");
  CHECK(mutant.status == 2);
  CHECK(contains(mutant.output, "unknown mutant 'no-such-mutant'"));
}

TEST_CASE("CLI: gate on the reference kernels passes every check") {
  // Fails (ERROR rows, exit 1) while falsify/ registers no properties: no silent passes.
  const Run r = attncheck(bundled + "gate --cases 20");
  CHECK_MESSAGE(r.status == 0, r.output);
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(r.output, m, summary_line), r.output);
  CHECK(m[3] == "0");
  CHECK(m[4] == "0");
  CHECK(std::stoi(m[2]) > 0);
}

TEST_CASE("CLI: gate against the first mutant fails and prints how to replay it") {
  const Run list = attncheck("gate --list-mutants");
  REQUIRE(list.status == 0);
  const std::string first = list.output.substr(0, list.output.find('\n'));
  REQUIRE_MESSAGE(!contains(first, "no mutants"), "this build registers no mutants");
  const Run r = attncheck(bundled + "gate --mutant " + first + " --cases 50");
  CHECK(r.status == 1);
  CHECK(contains(r.output, "FAIL"));
  CHECK(contains(r.output, "Replay: attncheck gate --test "));
  CHECK(contains(r.output, "--mutant " + first));
  CHECK(std::regex_search(r.output, summary_line));
}

TEST_CASE("CLI: gate reports where the reference values came from: tiered oracle counts") {
  TempDir dir;
  const Run r = attncheck(bundled + "gate --cases 20 --no-timings --contract softmax-kernel-v1 --json '" + dir.file("g.json") + "'");
  CHECK_MESSAGE(r.status == 0, r.output);
  const std::regex line(R"(Reference values: (\d+) from the tiered oracle, (\d+) certified correctly rounded \(double [^,]+, dd [^,]+, mpfr [^,]+, mpfi [^)]+\), (\d+) uncertified)");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(r.output, m, line), r.output);
  CHECK(std::stoull(m[1]) > 0);
  CHECK(std::stoull(m[1]) == std::stoull(m[2]) + std::stoull(m[3]));
  CHECK(contains(read(dir.file("g.json")), "\"certified\": {\"double\": "));
}

TEST_CASE("CLI: tolerance modes: a fixed ULP budget fails the reference softmax, baseline:1 passes it, baseline:2 catches a mutant") {
  // Long rows with a wide spread legitimately err by more than 4 ULP: the derived bound is right.
  const Run ulp = attncheck(bundled + "gate --cases 200 --no-timings --test FALSIFY-SM-004 --dtype f32 --tolerance ulp:4");
  CHECK(ulp.status == 1);
  CHECK(contains(ulp.output, "ULP error:"));
  CHECK(contains(ulp.output, "RN_f32 of the exact value, certified by the"));
  CHECK(contains(ulp.output, "--tolerance ulp:4"));  // the replay line keeps the mode
  // The reference kernel against itself: never worse than its own error.
  const Run same = attncheck(bundled + "gate --cases 50 --no-timings --test FALSIFY-SM-004,FALSIFY-SM-009,FALSIFY-QKN-005,FALSIFY-ASCL-006,FALSIFY-SLIP-001 --tolerance baseline:1");
  CHECK_MESSAGE(same.status == 0, same.output);
  CHECK(contains(same.output, "tolerance baseline:1"));
  const Run mutant = attncheck(bundled + "gate --cases 50 --no-timings --test FALSIFY-SM-004 --tolerance baseline:2 --mutant softmax_no_max_subtraction");
  CHECK(mutant.status == 1);
  const Run bad = attncheck(bundled + "gate --tolerance ulp:-1");
  CHECK(bad.status == 2);
  CHECK(contains(bad.output, "invalid tolerance mode"));
}

TEST_CASE("CLI: gate with an unknown contract exits 2 and lists the known ones") {
  const Run r = attncheck(bundled + "gate --contract nope");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "unknown contract 'nope'"));
  CHECK(contains(r.output, "attention-scaling-v1"));
}

TEST_CASE("CLI: gate with an unknown test ID exits 2 and points to list") {
  const Run r = attncheck(bundled + "gate --test FALSIFY-ASCL-099");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "unknown test ID FALSIFY-ASCL-099"));
  CHECK(contains(r.output, "attncheck list"));
}

TEST_CASE("CLI: show prints a falsification test and does not invent a verdict") {
  const Run r = attncheck(bundled + "show FALSIFY-ASCL-004");
  CHECK(r.status == 0);
  CHECK(contains(r.output, "ASCL-INV-001"));  // the obligation it attacks
  CHECK(contains(r.output, "status: not run in this invocation"));
  CHECK_FALSE(contains(r.output, "PASS"));
}

TEST_CASE("CLI: show of a harness says how to run it, or that the model checker does not have it") {
  const Run r = attncheck(bundled + "show KANI-ASCL-002");
  CHECK(r.status == 0);
  CHECK(contains(r.output, "reached (recorded): "));
  CHECK(contains(r.output, "status: not run by show; run it with: attncheck bmc --harness KANI-ASCL-002"));
  CHECK(contains(attncheck(bundled + "show GAPPA-ASCL-001").output, "attncheck bmc --harness GAPPA-ASCL-001"));
  // The Rust system's fixture declares KANI-SM-003, which attncheck's engine does not implement.
  const Run legacy = attncheck(std::string("--contracts '") + ATTNCHECK_SOURCE_DIR + "/tests/fixtures/interop' show KANI-SM-003");
  CHECK(legacy.status == 0);
  CHECK(contains(legacy.output, "status: declared only: attncheck's model checker has no harness KANI-SM-003"));
}

TEST_CASE("CLI: show suggests the closest ID for a typo") {
  const Run r = attncheck(bundled + "show FALSIFY-ASCL-04");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "did you mean FALSIFY-ASCL-004"));
}

TEST_CASE("CLI: list shows contracts, obligations and tests") {
  const Run r = attncheck(bundled + "list --contract attention-scaling-v1");
  CHECK(r.status == 0);
  CHECK(contains(r.output, "ASCL-BND-001"));
  CHECK(contains(r.output, "FALSIFY-ASCL-007"));
  CHECK(contains(r.output, "KANI-ASCL-002"));
}

TEST_CASE("CLI: lint passes on the bundled contracts") {
  const Run r = attncheck(bundled + "lint");
  CHECK_MESSAGE(r.status == 0, r.output);
  CHECK(std::regex_search(r.output, std::regex(R"(\n?0 errors, \d+ warnings\n$)")));
}

TEST_CASE("CLI: a malformed contract file exits 2 with file:line:col") {
  TempDir dir;
  // A YAML syntax error (an unclosed flow sequence), not just a missing field.
  std::ofstream(dir.file("broken-v1.yaml")) << "metadata:\n  id: broken-v1\n  version: \"1.0.0\"\n"
                                               "  description: [unclosed\nproof_obligations:\n  - id: X-1\n";
  const std::string contracts = "--contracts '" + dir.path.string() + "' ";
  const std::regex located(R"(broken-v1\.yaml:\d+:\d+: error: )");
  for (const char* sub : {"gate", "lint", "list"}) {
    const Run r = attncheck(contracts + sub);
    CHECK_MESSAGE(r.status == 2, (std::string(sub) + "\n" + r.output));
    CHECK_MESSAGE(std::regex_search(r.output, located), (std::string(sub) + "\n" + r.output));
  }
}

TEST_CASE("CLI: the JSON report is byte-identical for the same seed") {
  TempDir dir;
  const std::string args = bundled + "gate --cases 10 --seed 12345 --no-timings --junit '" + dir.file("a.xml") +
                           "' --json ";
  const Run a = attncheck(args + "'" + dir.file("a.json") + "'");
  const Run b = attncheck(args + "'" + dir.file("b.json") + "'");
  CHECK(a.status == b.status);
  CHECK(a.output == b.output);  // the table too, with no time column
  const std::string ja = read(dir.file("a.json"));
  CHECK(ja == read(dir.file("b.json")));
  CHECK(contains(ja, "\"schema\": \"attncheck-gate/1\""));
  CHECK(contains(ja, "\"seed\": \"0x3039\""));
  CHECK_FALSE(fs::exists(dir.file("a.json.tmp")));  // written atomically, no leftovers
  const std::string junit = read(dir.file("a.xml"));
  CHECK(contains(junit, "<testcase classname=\"attention-scaling-v1\" name=\"FALSIFY-ASCL-004["));
}

TEST_CASE("CLI: gate -j N gives the same text and JSON as -j 1") {
  TempDir dir;
  const std::string args = bundled + "gate --contract softmax-kernel-v1 --contract qk-norm-v1 --cases 20 --no-timings --json ";
  const Run one = attncheck(args + "'" + dir.file("one.json") + "' -j 1");
  const Run three = attncheck(args + "'" + dir.file("three.json") + "' -j 3");
  CHECK(one.status == 0);
  CHECK(one.status == three.status);
  CHECK(one.output == three.output);
  CHECK(read(dir.file("one.json")) == read(dir.file("three.json")));
  CHECK(contains(read(dir.file("one.json")), "{\"series\": \"error-vs-gap\", \"subject\": \"softmax\""));
}

TEST_CASE("CLI: gate -j 2 carries every sample series across the worker pipe, as -j 1 records them") {
  TempDir dir;
  const std::string args = bundled + "gate --test FALSIFY-SLIP-004,FALSIFY-ASCL-005,FALSIFY-SFB-001,FALSIFY-SM-004 --dtype f32,f64 "
                                     "--cases 25 --no-timings --json ";
  const Run one = attncheck(args + "'" + dir.file("one.json") + "' -j 1");
  const Run two = attncheck(args + "'" + dir.file("two.json") + "' -j 2");
  CHECK(one.status == 0);
  CHECK(one.status == two.status);
  const std::string json = read(dir.file("one.json"));
  CHECK(json == read(dir.file("two.json")));
  for (const char* series : {"lipschitz", "entropy-vs-beta", "tightness", "error-vs-gap"})
    CHECK_MESSAGE(contains(json, std::string("{\"series\": \"") + series + "\""), series);
  CHECK(contains(json, "\"points\": [["));
}

TEST_CASE("CLI: gate --coverage prints each check's input regions, the JSON has them always, and -j 2 carries them") {
  TempDir dir;
  const std::string args = bundled + "gate --test FALSIFY-SM-001,FALSIFY-SM-008 --dtype f32 --cases 60 --no-timings --json ";
  const Run shown = attncheck(args + "'" + dir.file("one.json") + "' -j 1 --coverage");
  CHECK(shown.status == 0);
  CHECK(contains(shown.output, "Generator coverage:"));
  CHECK(std::regex_search(shown.output, std::regex(R"(FALSIFY-SM-001 \[f32\] row, [0-9]+ drawn: length 1 [0-9]+,)")));
  for (const char* region : {"length 257-4096", "spread >1e3", "max in [-104,-5] (needs max subtraction)", "subnormal entry",
                             "tie at the max", "near overflow (max > max_finite/4)",
                             "spans -max to +max (min < -max_finite/2, max > max_finite/4)"})
    CHECK_MESSAGE(contains(shown.output, region), region);
  CHECK(contains(shown.output, "FALSIFY-SM-008 [f32] row with a non-finite entry, 60 drawn:"));
  CHECK(contains(shown.output, "masked (-inf) entry"));
  // Without --coverage the text has no figure; the JSON has it either way, identical under -j 2.
  const Run plain = attncheck(args + "'" + dir.file("two.json") + "' -j 2");
  CHECK(plain.status == 0);
  CHECK_FALSE(contains(plain.output, "Generator coverage:"));
  const std::string json = read(dir.file("one.json"));
  CHECK(json == read(dir.file("two.json")));
  CHECK(contains(json, "\"coverage\": [{\"generator\": \"row\", \"draws\": "));
  CHECK(contains(json, "{\"region\": \"max in [-104,-5] (needs max subtraction)\", \"count\": "));
  CHECK(contains(json, "\"schema_version\": 7"));
}

TEST_CASE("CLI: gate --shard i/N: the shards together run every check exactly once") {
  TempDir dir;
  const std::string base = bundled + "gate --contract softmax-kernel-v1 --cases 5 --no-timings -j 1 --json ";
  const std::regex row(R"re("test": "([^"]+)", "dtype": "([^"]+)")re");
  const auto checks = [&](const std::string& json) {
    std::multiset<std::string> s;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), row); it != std::sregex_iterator(); ++it)
      s.insert((*it)[1].str() + "[" + (*it)[2].str() + "]");
    return s;
  };
  const Run all = attncheck(base + "'" + dir.file("all.json") + "'");
  REQUIRE(all.status == 0);
  const auto expected = checks(read(dir.file("all.json")));
  REQUIRE(expected.size() > 3);
  std::multiset<std::string> together;
  for (int i = 1; i <= 3; ++i) {
    const std::string file = dir.file("shard" + std::to_string(i) + ".json");
    const Run r = attncheck(base + "'" + file + "' --shard " + std::to_string(i) + "/3");
    CHECK(r.status == 0);
    CHECK(contains(r.output, "shard " + std::to_string(i) + "/3: "));
    const auto mine = checks(read(file));
    together.insert(mine.begin(), mine.end());
  }
  CHECK(together == expected);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0"}) {
    const Run r = attncheck(base + "'" + dir.file("x.json") + "' --shard " + bad);
    CHECK_MESSAGE(r.status == 2, bad);
    CHECK(contains(r.output, "--shard"));
  }
}
