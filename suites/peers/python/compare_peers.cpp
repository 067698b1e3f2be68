// Compares the dumps written by dump_peers.py with convert_with_profile.
//   compare_peers PROFILE DIR
// PROFILE: a profile name; LIBRARY@VERSION ("ml_dtypes@0.7.0", as run_peer.sh passes it): the
// profile that models that release of the library (run_peer.sh reads the version from the
// DIR/version.txt dump_peers.py wrote). A release no profile models: SKIPPED with the reason,
// exit 77.
// DIR/manifest.txt: "<source> <target> <count> <input file> <output file>" per line. Prints one
// line per cast ("ml_dtypes f32->e4m3: N/N match") and exits 1 on any mismatch.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"
#include "peer_inputs.hpp"

using namespace fpconform;

namespace {

int bytes_of(const Format& f) {
  const int w = f.width();
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

std::vector<std::uint64_t> read_codes(const std::string& path, const Format& f, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot open");
  const int b = bytes_of(f);
  std::vector<unsigned char> raw(n * b);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (static_cast<std::size_t>(in.gcount()) != raw.size())
    throw Error(path, "short file: expected " + std::to_string(raw.size()) + " bytes");
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t c = 0;
    for (int k = 0; k < b; ++k) c |= std::uint64_t(raw[i * b + k]) << (8 * k);
    v[i] = c;
  }
  return v;
}

constexpr int kSkip = 77;  // suites/peers/CMakeLists.txt PEERS_SKIP

// "0.7.0" -> {0, 7}; "2.15.0+cpu" -> {2, 15}; nullopt when it does not start with N.N.
std::optional<std::pair<int, int>> major_minor(const std::string& v) {
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(v);
  if (!(in >> major >> dot >> minor) || dot != '.') return std::nullopt;
  return std::pair{major, minor};
}

// The profile that models `library` at `version`, or nullopt with the reason in `why`.
// Each profile names the release it models (emu/src/profile.cpp): a release none of them was
// checked against is not assumed to behave like the nearest one.
std::optional<std::string> profile_for(const std::string& library, const std::string& version,
                                       std::string& why) {
  const auto mm = major_minor(version);
  if (!mm) {
    why = library + " version '" + version + "' is not MAJOR.MINOR[...]";
    return std::nullopt;
  }
  if (library == "ml_dtypes") {
    if (*mm == std::pair{0, 7}) return "ml_dtypes";
    if (*mm == std::pair{0, 6}) return "ml_dtypes-0.6";
    why = "no profile models ml_dtypes " + version +
          " (ml_dtypes: 0.7.x, ml_dtypes-0.6: 0.6.x); observe what changed and add one "
          "(emu/src/profile.cpp), or install the pinned version (tools/install-deps.sh)";
    return std::nullopt;
  }
  if (library == "torch") {
    // pytorch/pytorch PR #178817 (e4m3fn casts saturate) is in 2.12 and later.
    return *mm >= std::pair{2, 12} ? "torch" : "torch-2.11";
  }
  why = "no profiles for library '" + library + "'";
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PROFILE DIR\n", argv[0]);
    return 2;
  }
  try {
    const std::string dir = argv[2];
    std::string name = argv[1];
    if (const auto at = name.find('@'); at != std::string::npos) {
      const std::string library = name.substr(0, at);
      const std::string version = name.substr(at + 1);
      std::string why;
      const auto chosen = profile_for(library, version, why);
      if (!chosen) {
        std::printf("SKIPPED: %s\n", why.c_str());
        return kSkip;
      }
      std::printf("%s %s: profile %s\n", library.c_str(), version.c_str(), chosen->c_str());
      name = *chosen;
    }
    const Profile& p = find_profile(name);
    std::ifstream manifest(dir + "/manifest.txt");
    if (!manifest) throw Error(dir, "no manifest.txt (run dump_peers.py first)");
    std::string line;
    int cases = 0, failures = 0;
    std::uint64_t all = 0, all_match = 0;
    while (std::getline(manifest, line)) {
      if (line.empty()) continue;
      if (line[0] == '#') {
        std::printf("peer:%s\n", line.substr(1).c_str());
        continue;
      }
      std::istringstream ls(line);
      std::string src, dst, in_file, out_file;
      std::size_t n = 0;
      ls >> src >> dst >> n >> in_file >> out_file;
      const Format from = parse_format(src), to = parse_format(dst);
      const auto in = read_codes(dir + "/" + in_file, from, n);
      const auto want = read_codes(dir + "/" + out_file, to, n);
      std::atomic<std::uint64_t> match{0};
      std::mutex mu;
      peers::FirstLines first;
      bool refused = false;
      std::string refusal;
      std::uint64_t refusal_at = ~std::uint64_t{0};
      peers::parallel_for(n, [&](std::uint64_t b, std::uint64_t e) {
        std::uint64_t m = 0;
        for (std::uint64_t i = b; i < e; ++i) {
          std::uint64_t got;
          try {
            got = convert_with_profile(in[i], from, to, p, {}).bits;
          } catch (const Error& err) {
            std::lock_guard<std::mutex> lock(mu);
            refused = true;
            if (i < refusal_at) {  // the first refused input's message, whatever the timing
              refusal_at = i;
              refusal = err.what();
            }
            return;
          }
          if (got == want[i]) {
            ++m;
            continue;
          }
          char buf[160];
          std::snprintf(buf, sizeof buf, "  input 0x%llx: %s 0x%llx, emu 0x%llx",
                        (unsigned long long)in[i], p.name.c_str(),
                        (unsigned long long)want[i], (unsigned long long)got);
          std::lock_guard<std::mutex> lock(mu);
          peers::keep_first(first, 10, i, buf);
        }
        match += m;
      });
      ++cases;
      all += n;
      all_match += match;
      if (refused) {
        std::printf("%s %s->%s: profile refuses: %s\n", p.name.c_str(), src.c_str(),
                    dst.c_str(), refusal.c_str());
        ++failures;
        continue;
      }
      const bool ok = match == n;
      std::printf("%s %s->%s: %llu/%llu match%s\n", p.name.c_str(), src.c_str(), dst.c_str(),
                  (unsigned long long)match.load(), (unsigned long long)n,
                  ok ? "" : "  MISMATCH");
      for (const auto& l : first) std::printf("%s\n", l.second.c_str());
      if (!ok) ++failures;
    }
    std::printf("%d casts, %d with mismatches; %llu/%llu conversions match\n", cases, failures,
                (unsigned long long)all_match, (unsigned long long)all);
    if (cases == 0) return 2;
    return failures ? 1 : 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "compare_peers: %s\n", e.what());
    return 2;
  }
}
