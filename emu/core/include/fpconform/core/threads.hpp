// Worker-thread counts: one rule for every --threads option and for FPCONFORM_THREADS, so a
// count that one command refuses is refused by all of them (and none of them asks the system
// for 100000 threads and dies of std::system_error).
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "fpconform/core/error.hpp"

namespace fpconform {

// The most worker threads any command starts; more than the machine has is allowed (the
// determinism tests compare 1, 2, 3 and 7 threads on any machine), far more is a typo.
inline constexpr unsigned kMaxThreads = 1024;

// The machine's cores (at least 1).
inline unsigned hardware_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return h ? h : 1;
}

// Strict parse of a thread count: decimal digits only, 0..kMaxThreads. Throws Error(place, ...)
// with the range and the text otherwise.
inline unsigned parse_thread_count(std::string_view text, std::string_view place) {
  unsigned long v = 0;
  bool ok = !text.empty() && text.size() <= 9;
  for (char c : text) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (!ok || v > kMaxThreads)
    throw Error(std::string(place), "must be an integer in 0.." + std::to_string(kMaxThreads) + " (0: all cores), got " +
                                        std::string(text));
  return static_cast<unsigned>(v);
}

// FPCONFORM_THREADS when set and not empty (0 there means all cores too), else all cores. A value
// that is not a count in 0..kMaxThreads is an Error naming the variable, never ignored.
inline unsigned default_thread_count() {
  const char* e = std::getenv("FPCONFORM_THREADS");
  if (e && *e) {
    const unsigned v = parse_thread_count(e, "FPCONFORM_THREADS");
    if (v > 0) return v;
  }
  return hardware_threads();
}

// What a --threads value means: 0 is default_thread_count(); more than kMaxThreads is an Error.
inline unsigned resolve_threads(unsigned requested, std::string_view place = "--threads") {
  if (requested > kMaxThreads)
    throw Error(std::string(place), "must be an integer in 0.." + std::to_string(kMaxThreads) +
                                        " (0: all cores), got " + std::to_string(requested));
  return requested ? requested : default_thread_count();
}

}  // namespace fpconform
