#include "interrupt.hpp"

#include <csignal>

namespace fpconform::cli {

namespace {
// Lock-free atomics are async-signal-safe to store from a handler.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signo{0};
struct sigaction g_old_int, g_old_term;

extern "C" void on_signal(int signo) {
  g_signo.store(signo);
  g_stop.store(true);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signo, &dfl, nullptr);  // the next one terminates at once
}
}  // namespace

InterruptGuard::InterruptGuard() {
  static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::stop_flag() { return g_stop; }
int InterruptGuard::signal_number() { return g_signo.load(); }

const char* signal_name(int signo) {
  switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace fpconform::cli
