#include "fpconform/files/probe_journal.hpp"

#include <cinttypes>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"

namespace fpconform::files {

namespace {

constexpr const char* kMagic = "fpconform-checkpoint 1";

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
std::uint64_t fnv1a(const std::string& s) { return fnv1a(s.data(), s.size()); }

// A question's identity: k and every code, so a replay detects a run that asks differently.
std::uint64_t question_hash(const characterize::DotBatch& b) {
  std::uint64_t h = fnv1a(&b.k, sizeof b.k);
  for (const auto* v : {&b.a, &b.b, &b.c}) {
    const std::uint64_t n = v->size();
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(v->data(), v->size() * sizeof(std::uint64_t), h);
  }
  return h;
}

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

JournalTarget::JournalTarget(characterize::Target& inner, const std::string& path,
                             const std::string& args, bool resume, const std::atomic<bool>* stop)
    : inner_(inner), path_(path), stop_(stop) {
  reports::check_output_file(path, "--checkpoint");  // appended to, so never a link or a device
  const std::string header = std::string(kMagic) + "\ncommand probe\nargs " + args + "\n";
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (exists && std::filesystem::is_directory(path, ec))
    throw Error("--checkpoint", "'" + path + "' is a directory");
  if (exists && !resume)
    throw Error("--checkpoint", "'" + path + "' exists (an earlier run's checkpoint): add --resume "
                                "to continue that run, or delete it to start again");
  if (exists) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error("--checkpoint", "cannot read '" + path + "'");
    std::string line;
    std::uint64_t good_bytes = 0;  // through the last whole, checked record
    int n = 0;
    while (std::getline(f, line)) {
      ++n;
      const std::string at = path + ":" + std::to_string(n);
      const bool whole = !f.eof();  // a last line without its newline was cut short
      if (n == 1 && line != kMagic)
        throw Error(at, std::string("not an fpconform checkpoint (it should start with '") + kMagic + "')");
      if (n == 2 && line != "command probe")
        throw Error(at, "a checkpoint of 'fpconform " + (line.rfind("command ", 0) == 0 ? line.substr(8) : line) +
                            "', not of 'fpconform probe'");
      if (n == 3 && line != "args " + args)
        throw Error(at, "a checkpoint of a run with other arguments (" + line.substr(line.find(' ') + 1) +
                            "), not of this one (" + args + "): rerun with those arguments, or delete the checkpoint");
      if (n <= 3) {
        good_bytes += line.size() + 1;
        continue;
      }
      const std::size_t sp = line.rfind(' ');
      const bool sum_ok = sp != std::string::npos && line.rfind("answer ", 0) == 0 &&
                          line.substr(sp + 1) == hex16(fnv1a(line.substr(0, sp)));
      if (!sum_ok || !whole) {
        // A torn last record (kill -9 during the append) is dropped; damage elsewhere is not.
        if (f.peek() == EOF) break;
        throw Error(at, "damaged checkpoint (a record's checksum does not match): delete it to start again");
      }
      std::istringstream in(line.substr(7, sp - 7));
      Record r;
      std::string h;
      std::size_t rows = 0;
      in >> h >> rows;
      r.hash = std::strtoull(h.c_str(), nullptr, 16);
      for (std::uint64_t d; r.d.size() < rows && in >> d;) r.d.push_back(d);
      if (r.d.size() != rows) throw Error(at, "a record with fewer answers than it says");
      records_.push_back(std::move(r));
      good_bytes += line.size() + 1;
    }
    if (n < 3) throw Error(path + ":" + std::to_string(n + 1), "checkpoint header cut short: delete it to start again");
    f.close();
    std::filesystem::resize_file(path, good_bytes, ec);  // drop a torn tail before appending
    if (ec) throw Error("--checkpoint", "cannot truncate '" + path + "': " + ec.message());
    file_ = std::fopen(path.c_str(), "ab");
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_) std::fputs(header.c_str(), file_);
  }
  if (!file_ || std::fflush(file_) != 0) throw Error("--checkpoint", "cannot write '" + path + "'");
}

JournalTarget::~JournalTarget() {
  if (file_) std::fclose(file_);
}

void JournalTarget::append(std::uint64_t hash, const std::vector<std::uint64_t>& d) {
  std::string line = "answer ";  // (built by appending: GCC 12 warns on "literal" + string&&)
  line += hex16(hash);
  line += ' ';
  line += std::to_string(d.size());
  for (std::uint64_t x : d) {
    line += ' ';
    line += std::to_string(x);
  }
  const std::string sum = hex16(fnv1a(line));
  line += ' ';
  line += sum;
  line += '\n';
  // Flushed per batch: after a kill -9 the journal holds every answer the run had received.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw JournalError{"--checkpoint: write to '" + path_ + "' failed"};
}

std::vector<std::uint64_t> JournalTarget::run(const characterize::DotBatch& batch) {
  if (stop_ && stop_->load()) throw ProbeInterrupted{};
  const std::uint64_t h = question_hash(batch);
  count(batch.rows());
  if (next_ < records_.size()) {
    const Record& r = records_[next_];
    if (r.hash != h || r.d.size() != batch.rows())
      throw JournalError{path_ + ": the run asks other questions than the checkpoint recorded (question " +
                         std::to_string(next_ + 1) + "): it is not this run's; delete it to start again"};
    ++next_;
    return r.d;
  }
  std::vector<std::uint64_t> d = inner_.run(batch);
  append(h, d);
  ++next_;
  return d;
}

void JournalTarget::remove() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

}  // namespace fpconform::files
