// SIGINT / SIGTERM for long runs: the first one asks the run to stop (it flushes a checkpoint
// and exits 128 + signal); a second one kills the process the default way, for a run that
// does not stop soon enough.
#pragma once

#include <atomic>

namespace fpconform::cli {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static const std::atomic<bool>& stop_flag();
  static int signal_number();  // 0 until a signal arrived
};

// "SIGINT", "SIGTERM", or "signal N".
const char* signal_name(int signo);

}  // namespace fpconform::cli
