// Resumable characterizations (`fpconform probe --checkpoint PATH [--resume]`).
//
// characterize() is deterministic for a seed: a rerun asks the target the same questions in
// the same order. So the checkpoint is a journal of the target's answers: JournalTarget wraps
// the target, appends each batch's answers (with a hash of the question and a checksum per
// record) and flushes; on --resume it replays the journaled answers, checking every question
// against its hash, and goes on asking the real target where the journal ends. The final
// result is the uninterrupted run's, and nothing is asked of the unit (a GPU, a slow CPU
// path) twice. The journal is appended, not rewritten, because it grows with every query; a
// kill -9 can only tear its last record, which the next --resume drops.
//
//   fpconform-checkpoint 1
//   command probe
//   args target=emu:hopper in=e4m3 out=f32 cases=100000 seed=1 max-k=64 order-k=32
//   answer <question hash> <rows> <d0> <d1> ... <record checksum>    (one per batch)
#pragma once

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "fpconform/characterize/target.hpp"

namespace fpconform::files {

// Thrown by JournalTarget::run once the stop flag is set (SIGINT/SIGTERM); the journal holds
// every answer received before it.
struct ProbeInterrupted {};
// Thrown by JournalTarget::run when the journal cannot be written or the run asks other
// questions than the journal recorded. Not an fpconform::Error, which the probes catch from
// targets that refuse a question; the CLI reports it (exit 2).
struct JournalError {
  std::string message;  // "place: what"
};

class JournalTarget final : public characterize::Target {
 public:
  // resume: read `path` (absent: start a new journal), refusing a damaged file or one of
  // another command or other arguments (Error naming path:line). Otherwise create it,
  // refusing an existing file.
  JournalTarget(characterize::Target& inner, const std::string& path, const std::string& args,
                bool resume, const std::atomic<bool>* stop);
  ~JournalTarget() override;
  JournalTarget(const JournalTarget&) = delete;
  JournalTarget& operator=(const JournalTarget&) = delete;

  std::string name() const override { return inner_.name(); }
  std::string unavailable() const override { return inner_.unavailable(); }
  const Format& in() const override { return inner_.in(); }
  const Format& in_b() const override { return inner_.in_b(); }
  const Format& out() const override { return inner_.out(); }
  bool supports_k(int k) const override { return inner_.supports_k(k); }
  std::vector<std::uint64_t> run(const characterize::DotBatch& batch) override;

  std::size_t journaled() const { return records_.size(); }  // batches read on resume
  std::size_t answered() const { return next_; }             // batches answered so far
  // The run finished: the journal is no longer needed.
  void remove();

 private:
  struct Record {
    std::uint64_t hash = 0;
    std::vector<std::uint64_t> d;
  };
  void append(std::uint64_t hash, const std::vector<std::uint64_t>& d);

  characterize::Target& inner_;
  std::string path_;
  const std::atomic<bool>* stop_;
  std::vector<Record> records_;
  std::size_t next_ = 0;
  std::FILE* file_ = nullptr;
};

}  // namespace fpconform::files
