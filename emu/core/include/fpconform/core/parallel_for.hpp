// The one way fpconform spreads work over threads: body(i) for every index of [0, n), handed out
// in increasing order from a shared counter. Each index writes only its own results, so what a
// run computes does not depend on the thread count or on timing (the determinism tests compare
// 1, 2, 3 and 7 threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fpconform {

// Runs body(w, i) for i in [0, n) on min(threads, n) workers, w being the worker's own state,
// made once per worker by make() on that worker's thread (MPFR variables, scratch buffers; its
// destructor runs there too). The caller resolves --threads first (threads.hpp). After an
// exception no further index starts; once every worker has stopped, the exception of the lowest
// index is rethrown, the one a single thread would have met first.
template <class Make, class Body>
void parallel_for(std::size_t n, unsigned threads, const Make& make, const Body& body) {
  if (n == 0) return;
  if (threads <= 1 || n == 1) {
    auto w = make();
    for (std::size_t i = 0; i < n; ++i) body(w, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::exception_ptr first;
  std::size_t first_index = n;
  auto fail = [&](std::size_t i) {
    std::lock_guard<std::mutex> g(mu);
    if (i < first_index) {
      first_index = i;
      first = std::current_exception();
    }
    stop = true;
  };
  auto work = [&] {
    try {
      auto w = make();
      for (std::size_t i; !stop.load(std::memory_order_relaxed) && (i = next++) < n;) {
        try {
          body(w, i);
        } catch (...) {
          fail(i);
        }
      }
    } catch (...) {
      fail(n - 1);  // make() failed: reported unless an index failed
    }
  };
  const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(threads, n));
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

// Runs body(i) for i in [0, n), as above, with no per-worker state.
template <class Body>
void parallel_for(std::size_t n, unsigned threads, const Body& body) {
  parallel_for(n, threads, [] { return 0; }, [&](int&, std::size_t i) { body(i); });
}

}  // namespace fpconform
