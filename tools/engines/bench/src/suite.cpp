// The order of the groups: the short in-cache ones first, the long stream and sweep last.
#include "fpconform/bench/suite.hpp"
#include "fpconform/core/threads.hpp"

#include <thread>

#include "cases.hpp"

namespace fpconform::bench {

int run_suite(const Options& options, std::ostream& out, std::ostream& notes) {
  Settings s;
  s.level = options.level;
  // Many short rounds, best of each: on a shared machine the load of other processes comes and
  // goes within seconds, and best-of-many finds a quiet moment for ours and its baseline alike.
  s.min_time = options.level == Level::full ? 0.1 : options.level == Level::quick ? 0.04 : 0.002;
  s.rounds = options.level == Level::smoke ? 1 : options.level == Level::quick ? 7 : 11;
  s.python = options.python;
  s.threads = resolve_threads(options.threads, "--threads");
  s.notes = &notes;
#if defined(__x86_64__) || defined(__i386__)
  s.note(std::string("cpu: avx2 ") + (__builtin_cpu_supports("avx2") ? "yes" : "no") +
         ", f16c " + (__builtin_cpu_supports("f16c") ? "yes" : "no") + ", avx512f " +
         (__builtin_cpu_supports("avx512f") ? "yes" : "no") + "; " + std::to_string(s.threads) +
         " threads for the sweep; rates are per CPU-second, best of " + std::to_string(s.rounds) +
         " rounds");
#endif
  Sink sink{&out, {}};
  convert_cases(s, sink);
  mma_cases(s, sink);
  exact_dot_cases(s, sink);
  stream_cases(s, sink);
  sweep_cases(s, sink);
  out << format_summary(sink.all) << '\n' << std::flush;
  int shortfall = 0;
  for (const Comparison& c : sink.all) shortfall += c.ok() ? 0 : 1;
  return shortfall;
}

}  // namespace fpconform::bench
