// The command line itself, in-process (fpconform::cli::run, tools/fpconform/app.hpp): a verb,
// then options and values drawn from the real option table (the CLI11 App walked at run time,
// so a new option is fuzzed the day it is added), run in a scratch directory. The outcome rule:
// exit 0 or 1; or exit 2 with a message on stderr; (probe alone: 4, a round of GPU plans to run);
// any other status, a crash, an exception other than fpconform::Error escaping run(), or a
// sanitizer report is a finding. So is an output that replaced what it must not: the symlinks in
// the scratch directory must stay symlinks, and their targets (outside the directory the commands
// run in) must stay as they were.
//
// Input layout: byte 0 picks the verb (255: none, the raw tokens go first); then one byte per
// token: its low 3 bits choose an option of the verb (0-3, its value drawn next), a value (4), an
// option of another verb (5), --name=value (6), or a raw token (7, up to the next '\n' or NUL);
// bit 3 set on an option: its value is left out.
//
// Kept cheap (each input runs in well under a second):
//  * not fuzzed (each covered by its own CLI tests and the README's hostile-input rows, which
//    check their outputs before any work): `report` (minutes of sweeps per run), `bench`
//    (timings of seconds to minutes; runs --python), `fit` (enumerates the whole matrix-unit
//    family: over a minute of CPU even for two rows) and `probe` (a characterization: seconds
//    per run, more under the sanitizers, near libFuzzer's 10 s limit);
//  * cpu: targets are refused in this build (cpu_targets_stub.cpp: clang 14 lacks the
//    AVX512-FP16 intrinsics, and they run the machine's units rather than parse anything);
//  * options dropped: probe --runner (runs the named program through the shell) and gen
//    --exhaustive (every operand pair: up to 2^32 cases);
//  * work sizes capped (kCaps: a larger number is taken modulo the cap plus one), and the
//    large defaults replaced (kSmallDefaults) when the input does not give the option;
//  * paths stay in the scratch directory: a token with "..", or a path starting with '/' or
//    '~', is replaced; FPCONFORM_THREADS=1; stdin and stdout are /dev/null; stderr of each run
//    is kept in a file (its size is the check), and sanitizer reports go to the real stderr.
// The scratch directory is emptied and refilled with the fixtures before each input, so no state
// carries over from one input to the next (the App and its option storage are made afresh by
// run() each time).
#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app.hpp"
#include "fpconform/testfloat/run.hpp"
#include "fuzz_common.hpp"

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kExcludedVerbs = {"report", "bench", "fit", "probe"};
const std::set<std::string> kExcludedOptions = {"--runner", "--exhaustive", "--python"};

const std::map<std::string, unsigned long long> kCaps = {
    {"--inputs", 16},   {"--cases", 32},       {"-n", 64},        {"--max-k", 16},
    {"--order-k", 8},   {"--probes", 64},      {"--run-samples", 64}, {"--digest-chunks", 4},
    {"--fit-rows", 64}, {"--threads", 2},      {"--unit-cases", 16},  {"--worst", 16},
    {"--max-counterexamples", 8}, {"--split-k", 8}, {"--promote", 64}, {"--level", 2},
    {"--sr-bits", 64},  {"--checkpoint-every", 5}};

const std::map<std::string, std::vector<std::string>> kSmallDefaults = {
    {"sweep", {"--inputs", "16"}},
    {"probe", {"--cases", "32", "--max-k", "8", "--order-k", "4"}},
    {"fit", {"--probes", "64"}},
    {"gpu-analyze", {"--run-samples", "64", "--digest-chunks", "2", "--fit-rows", "64"}},
    {"gen", {"-n", "64"}},
};

const char* const kPaths[] = {"a.csv", "b.csv", "c.csv", "d.csv", "a.npy", "out.csv", "out.npy",
                              "out.json", "-", "link", "devnull", "dangling", "dir", "dir/x.csv",
                              "newdir", "newdir/sub", "agree.res", "rows.txt", "tf.txt", "ckpt",
                              "", "x.bin", "out"};
const char* const kWords[] = {
    "bf16", "f16", "f32", "f64", "e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "ue8m0", "tf32",
    "binary8p3se", "custom:e=4,m=3", "all", "deterministic", "rne", "rtz", "rna", "up", "down",
    "odd", "sr-a", "sr", "none", "finite", "propagate", "plain", "ftz", "pairwise", "full", "add",
    "mul", "div", "sqrt", "mulAdd", "f32_to_bf16", "bf16_add", "f16_mulAdd", "emu:h100-fp8",
    "emu:a100-bf16", "emu:custom:in=bf16", "cpu:fp32-fma", "cuda:mma_sync_bf16", "nvidia",
    "ml_dtypes", "ocp", "mxfp8", "mxfp4", "nvfp4", "tile:2x2", "rows", "cols", "sequential",
    "exact", "0x3f80", "1.5", "-2", "nan", "inf", "1,2,2", "0,0", "2,3,2"};

struct Scratch {
  fs::path root, work, fixtures;
  int real_stderr = -1, err_fd = -1, start_dir = -1;
  std::string err_path;
};
Scratch* scratch = nullptr;

// The fixtures: the CLI tests' data, a GPU result, and links that no output may replace.
void fill_work_dir() {
  const Scratch& s = *scratch;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(s.work, ec)) fs::remove_all(e.path(), ec);
  for (const auto& e : fs::directory_iterator(s.fixtures, ec))
    if (e.is_regular_file()) fs::copy_file(e.path(), s.work / e.path().filename(), ec);
  fs::create_directory(s.work / "dir", ec);
  fs::create_symlink("../fixtures/a.csv", s.work / "link", ec);
  fs::create_symlink("/dev/null", s.work / "devnull", ec);
  fs::create_symlink("../fixtures/never-created", s.work / "dangling", ec);
}

void init_scratch() {
  scratch = new Scratch;
  char tmpl[] = "/tmp/fpconform-fuzz-cli-XXXXXX";
  if (!::mkdtemp(tmpl)) fpfuzz::fail("cli", "cannot create a scratch directory");
  scratch->root = tmpl;
  scratch->work = scratch->root / "work";
  scratch->fixtures = scratch->root / "fixtures";
  fs::create_directories(scratch->work);
  fs::create_directories(scratch->fixtures);
  const fs::path data = fs::path(FPCONFORM_ROOT) / "tools/fpconform/tests/data";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data, ec))
    if (e.is_regular_file()) fs::copy_file(e.path(), scratch->fixtures / e.path().filename(), ec);
  fs::copy_file(fs::path(FPCONFORM_ROOT) / "suites/fuzz/corpus/gpu_files/result-agree",
                scratch->fixtures / "agree.res", ec);
  // libFuzzer reads and writes its corpus and artifacts by relative paths: the commands run in
  // the scratch directory, libFuzzer in the directory it started in.
  scratch->start_dir = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::setenv("FPCONFORM_THREADS", "1", 1);
  ::unsetenv("FPCONFORM_GPU_RUNNER");
  ::unsetenv("FPCONFORM_PYTHON");
  const int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(null_fd, STDOUT_FILENO);
  ::close(null_fd);
  scratch->real_stderr = ::dup(STDERR_FILENO);
  __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(scratch->real_stderr)));
  scratch->err_path = (scratch->root / "stderr").string();  // the last input's, after a hang
  scratch->err_fd = ::open(scratch->err_path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
}

[[noreturn]] void finding(const std::vector<std::string>& args, const std::string& what) {
  ::dup2(scratch->real_stderr, STDERR_FILENO);
  std::string line = "fpconform";
  for (const auto& a : args) line += " '" + a + "'";
  fpfuzz::fail("cli", what + "\n  command: " + line + "\n  scratch: " + scratch->root.string());
}

class Tokens {
 public:
  Tokens(const std::uint8_t* data, std::size_t size) : in_(data, size) {}
  bool more() const { return in_.size() > 0; }
  std::uint8_t byte() { return in_.u8(); }
  std::string raw() {
    std::string s;
    for (std::size_t n = 0; in_.size() > 0 && n < 64; ++n) {
      const char c = static_cast<char>(in_.u8());
      if (c == '\n' || c == '\0') break;
      s += c;
    }
    return s;
  }
  std::string value() {
    const std::uint8_t b = in_.u8();
    switch (b % 8) {
      case 0: return std::to_string(in_.u8() % 17);
      case 1: return b & 8 ? "-1" : "-" + std::to_string(in_.u8());
      case 2: {
        static const char* big[] = {"18446744073709551616", "4294967296", "2147483648", "99999999999999999999999",
                                    "1e400", "0x10000000000000000"};
        return big[in_.u8() % std::size(big)];
      }
      case 3: {
        static const char* num[] = {"0.5", "1e308", "nan", "inf", "-0", "0", " 3", "3 ", "+7", "1e-400", "0x1p-3"};
        return num[in_.u8() % std::size(num)];
      }
      case 4:
      case 5: return kPaths[in_.u8() % std::size(kPaths)];
      case 6: return kWords[in_.u8() % std::size(kWords)];
      default: return raw();
    }
  }

 private:
  fpfuzz::Bytes in_;
};

std::vector<const CLI::Option*> options_of(const CLI::App& sub) {
  std::vector<const CLI::Option*> v;
  for (const CLI::Option* o : sub.get_options()) v.push_back(o);
  return v;
}

// An option's spelling: one of its long or short names; empty for a positional.
std::string spelling(const CLI::Option& o, std::uint8_t pick) {
  std::vector<std::string> names;
  for (const auto& l : o.get_lnames()) names.push_back("--" + l);
  for (const auto& s : o.get_snames()) names.push_back("-" + s);
  return names.empty() ? std::string() : names[pick % names.size()];
}

bool takes_value(const CLI::Option& o) { return o.get_expected_max() != 0; }

std::string cap_number(const std::string& option, const std::string& value) {
  const auto it = kCaps.find(option);
  if (it == kCaps.end()) return value;
  if (option == "--inputs" && value == "all") return "16";  // every code: hours for f32
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) return value;
  unsigned long long v = 0;
  for (char c : value) v = (v * 10 + static_cast<unsigned>(c - '0')) % (it->second + 1);
  return std::to_string(v);
}

bool unsafe_path(std::string_view v) {
  return !v.empty() && (v[0] == '/' || v[0] == '~' || v.find("..") != std::string_view::npos);
}

// Paths out of the scratch directory replaced, excluded options dropped, work sizes capped.
std::vector<std::string> sanitize(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  std::string pending_cap;  // the capped option whose value comes next
  for (std::string t : in) {
    if (t.find("..") != std::string::npos || unsafe_path(t)) t = "x";
    if (!pending_cap.empty()) {
      out.push_back(cap_number(pending_cap, t));
      pending_cap.clear();
      continue;
    }
    if (t.size() >= 2 && t[0] == '-' && t != "--") {
      std::string name, value;
      bool attached = false;
      if (t[1] == '-') {
        const auto eq = t.find('=');
        name = t.substr(0, eq);
        if (eq != std::string::npos) value = t.substr(eq + 1), attached = true;
      } else {
        name = t.substr(0, 2);
        if (t.size() > 2) value = t.substr(t[2] == '=' ? 3 : 2), attached = true;
      }
      if (kExcludedOptions.count(name)) continue;
      if (attached && unsafe_path(value)) value = "x";
      if (attached) {
        t = name + (t[1] == '-' ? "=" : "") + cap_number(name, value);
      } else if (kCaps.count(name)) {
        pending_cap = name;
      }
    }
    out.push_back(t);
  }
  return out;
}

bool mentions(const std::vector<std::string>& args, const std::string& option) {
  for (const auto& a : args)
    if (a == option || a.rfind(option + "=", 0) == 0 || (option.size() == 2 && a.rfind(option, 0) == 0))
      return true;
  return false;
}

// What the links stand for: still links, their targets as they were.
struct Guard {
  std::uintmax_t fixture_size = 0;
  fs::file_time_type fixture_time;
};

void check_links(const std::vector<std::string>& args, const Guard& g) {
  const Scratch& s = *scratch;
  std::error_code ec;
  for (const char* link : {"link", "devnull", "dangling"}) {
    const auto st = fs::symlink_status(s.work / link, ec);
    if (fs::exists(st) && !fs::is_symlink(st)) finding(args, std::string("'") + link + "' was replaced by a file");
  }
  if (fs::exists(s.fixtures / "never-created", ec)) finding(args, "an output was written through 'dangling'");
  if (fs::file_size(s.fixtures / "a.csv", ec) != g.fixture_size ||
      fs::last_write_time(s.fixtures / "a.csv", ec) != g.fixture_time)
    finding(args, "an output was written through 'link' into its target");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fpconform::cli::CliApp table = fpconform::cli::make_app();  // only read
  if (!scratch) init_scratch();
  std::vector<const CLI::App*> verbs;
  for (const CLI::App* sub : table.app->get_subcommands([](CLI::App*) { return true; }))
    if (!kExcludedVerbs.count(sub->get_name())) verbs.push_back(sub);

  Tokens in(data, size);
  std::vector<std::string> args;
  const std::uint8_t v = in.byte();
  const CLI::App* verb = v == 255 || verbs.empty() ? nullptr : verbs[v % verbs.size()];
  if (verb) args.push_back(verb->get_name());
  const auto own = verb ? options_of(*verb) : std::vector<const CLI::Option*>{};
  for (int n = 0; n < 24 && in.more(); ++n) {
    const std::uint8_t op = in.byte();
    const int kind = op & 7;
    if (kind <= 3 || kind == 5 || kind == 6) {
      const CLI::App* from = kind == 5 ? verbs[in.byte() % verbs.size()] : verb;
      if (!from) {
        args.push_back(in.raw());
        continue;
      }
      const auto opts = from == verb ? own : options_of(*from);
      if (opts.empty()) continue;
      const CLI::Option& o = *opts[in.byte() % opts.size()];
      const std::string name = spelling(o, op >> 4);
      if (name.empty()) {  // a positional
        args.push_back(in.value());
      } else if (kind == 6 && name.rfind("--", 0) == 0) {
        args.push_back(name + "=" + in.value());
      } else {
        args.push_back(name);
        if (takes_value(o) && !(op & 8)) args.push_back(in.value());
      }
    } else if (kind == 4) {
      args.push_back(in.value());
    } else {
      args.push_back(in.raw());
    }
  }
  // The verb run() will take: the first word naming a command (a raw token may name one too).
  for (auto& a : args)
    if (kExcludedVerbs.count(a)) a = "x";
  std::size_t at = args.size();
  std::string verb_name;
  for (std::size_t i = 0; i < args.size() && at == args.size(); ++i) {
    if (args[i] == "--") break;
    for (const CLI::App* sub : verbs)
      if (sub->get_name() == args[i]) at = i;
  }
  if (at < args.size()) {
    std::vector<std::string> tail(args.begin() + static_cast<std::ptrdiff_t>(at) + 1, args.end());
    const std::string name = args[at];
    verb_name = name;
    if (name == "gen" || name == "ver" || name == "eval") tail = fpconform::testfloat::rewrite_testfloat_args(tail);
    tail = sanitize(tail);
    if (const auto it = kSmallDefaults.find(name); it != kSmallDefaults.end())
      for (std::size_t i = 0; i < it->second.size(); i += 2)
        if (!mentions(tail, it->second[i])) tail.insert(tail.begin(), {it->second[i], it->second[i + 1]});
    std::vector<std::string> head = sanitize({args.begin(), args.begin() + static_cast<std::ptrdiff_t>(at)});
    head.push_back(name);
    head.insert(head.end(), tail.begin(), tail.end());
    args = std::move(head);
  } else {
    args = sanitize(args);
  }

  fill_work_dir();
  Guard g;
  std::error_code ec;
  g.fixture_size = fs::file_size(scratch->fixtures / "a.csv", ec);
  g.fixture_time = fs::last_write_time(scratch->fixtures / "a.csv", ec);

  // This run's stderr into the file, for its size.
  if (::ftruncate(scratch->err_fd, 0) != 0 || ::lseek(scratch->err_fd, 0, SEEK_SET) != 0)
    finding(args, "cannot reset the stderr file");
  std::fflush(stderr);
  ::dup2(scratch->err_fd, STDERR_FILENO);
  if (::chdir(scratch->work.c_str()) != 0) finding(args, "cannot enter the scratch directory");
  int rc = -1;
  try {
    rc = fpconform::cli::run(args);
  } catch (const std::exception& e) {
    finding(args, std::string("exception escaped run(): ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    finding(args, "non-standard exception escaped run()");
  }
  std::fflush(stdout);
  std::cout.flush();
  std::fflush(stderr);
  std::cerr.flush();
  ::dup2(scratch->real_stderr, STDERR_FILENO);
  if (::fchdir(scratch->start_dir) != 0) finding(args, "cannot return to the start directory");
  struct stat st {};
  ::fstat(scratch->err_fd, &st);

  const bool probe = verb_name == "probe";
  if (rc == 2 && st.st_size == 0) finding(args, "exit 2 without a message on stderr");
  if (rc != 0 && rc != 1 && rc != 2 && !(probe && rc == 4))
    finding(args, "exit status " + std::to_string(rc) + " (0, 1 or 2 expected)");
  check_links(args, g);
  return 0;
}
