// gen / ver / eval over stdio streams, with large buffers and no per-line allocation.
#include "fpconform/testfloat/run.hpp"

#include <cstring>
#include <map>

#include "fpconform/core/error.hpp"

namespace fpconform::testfloat {

namespace {

class OutBuf {
 public:
  explicit OutBuf(std::FILE* f) : file_(f), buf_(1 << 20) {}
  ~OutBuf() {
    try {
      flush();
    } catch (...) {
    }
  }
  char* reserve(std::size_t n) {
    if (buf_.size() - used_ < n) {
      flush();
      if (buf_.size() < n) buf_.resize(n);
    }
    return buf_.data() + used_;
  }
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buf_.data()); }
  void write(std::string_view s) {
    char* p = reserve(s.size());
    std::memcpy(p, s.data(), s.size());
    commit(p + s.size());
  }
  void flush() {
    if (used_ && std::fwrite(buf_.data(), 1, used_, file_) != used_)
      throw Error("output", "write failed");
    used_ = 0;
    std::fflush(file_);
  }

 private:
  std::FILE* file_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

class LineReader {
 public:
  explicit LineReader(std::FILE* f) : file_(f), buf_(1 << 20) {}
  bool next(std::string_view& line) {
    for (;;) {
      if (begin_ < end_) {
        const char* start = buf_.data() + begin_;
        const void* nl = std::memchr(start, '\n', end_ - begin_);
        if (nl) {
          const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
          line = std::string_view(start, len);
          begin_ += len + 1;
          return true;
        }
      }
      if (eof_) {
        if (begin_ < end_) {
          line = std::string_view(buf_.data() + begin_, end_ - begin_);
          begin_ = end_;
          return true;
        }
        return false;
      }
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
      const std::size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
      if (got == 0) {
        if (std::ferror(file_)) throw Error("input", "read failed");
        eof_ = true;
      }
      end_ += got;
    }
  }

 private:
  std::FILE* file_;
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
};

std::string_view trimmed(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace

void check_gen(const Function& f, const Options& options, const GenOptions& gen) {
  if (options.profile)
    throw Error("--profile", "gen computes results with the MPFR oracle, which models "
                             "emu/SEMANTICS.md, not a library; use eval --profile for a "
                             "profile's results");
  if (gen.level != 1 && gen.level != 2)
    throw Error("--level", "must be 1 or 2, got " + std::to_string(gen.level));
  if (gen.exhaustive) {
    int bits = 0;
    for (const auto& op : f.signature().operands) bits += op.width();
    if (bits > kMaxExhaustiveBits)
      throw Error("--exhaustive", f.name() + " has " + std::to_string(bits) +
                                      " operand bits; at most " +
                                      std::to_string(kMaxExhaustiveBits) + " can be enumerated");
  }
}

std::uint64_t run_gen(const Function& f, const Options& options, const GenOptions& gen,
                      std::FILE* out) {
  check_gen(f, options, gen);
  OutBuf buf(out);
  const Signature& sig = f.signature();
  const std::size_t cap = format_capacity(sig) + 1;
  std::uint64_t count = 0;
  generate(f, gen, [&](const std::uint64_t* ops) {
    const Result r = f.oracle(ops, options);
    char* p = buf.reserve(cap);
    p = format_line(p, sig, ops, r.bits, r.flags);
    *p++ = '\n';
    buf.commit(p);
    ++count;
  });
  buf.flush();
  return count;
}

VerSummary run_ver(const Function& f, const Options& options, std::FILE* in, std::FILE* out) {
  OutBuf buf(out);
  LineReader reader(in);
  const Signature& sig = f.signature();
  VerSummary sum;
  std::string_view text;
  std::uint64_t number = 0;
  Line line;
  while (reader.next(text)) {
    ++number;
    const std::string err = parse_line(text, sig, LineKind::complete, line);
    if (!err.empty()) {
      buf.flush();
      throw Error("line " + std::to_string(number), err);
    }
    const Result ours = f.emu(line.operands.data(), options);
    if (f.matches(Result{line.result, line.flags}, ours, options.exact_nan)) {
      ++sum.passed;
      continue;
    }
    ++sum.failed;
    buf.write("line " + std::to_string(number) + ": " + std::string(trimmed(text)) +
              " expected " + to_hex(ours.bits, sig.result_hex_digits()) + " " +
              to_hex(ours.flags, kFlagDigits) + "\n");
  }
  buf.write(std::to_string(sum.passed) + " passed, " + std::to_string(sum.failed) + " failed\n");
  buf.flush();
  return sum;
}

std::uint64_t run_eval(const Function& f, const Options& options, std::FILE* in,
                       std::FILE* out) {
  OutBuf buf(out);
  LineReader reader(in);
  const Signature& sig = f.signature();
  const std::size_t cap = format_capacity(sig) + 1;
  std::string_view text;
  std::uint64_t number = 0;
  Line line;
  while (reader.next(text)) {
    ++number;
    const std::string err = parse_line(text, sig, LineKind::operands_or_complete, line);
    if (!err.empty()) {
      buf.flush();
      throw Error("line " + std::to_string(number), err);
    }
    const Result r = f.emu(line.operands.data(), options);
    char* p = buf.reserve(cap);
    p = format_line(p, sig, line.operands.data(), r.bits, r.flags);
    *p++ = '\n';
    buf.commit(p);
  }
  buf.flush();
  return number;
}

std::vector<std::string> rewrite_testfloat_args(const std::vector<std::string>& args) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kMap = {
      {"-rnear_even", {"--round", "rne"}},
      {"-rnear_maxMag", {"--round", "rna"}},
      {"-rminMag", {"--round", "rtz"}},
      {"-rmin", {"--round", "down"}},
      {"-rmax", {"--round", "up"}},
      {"-rodd", {"--round", "odd"}},
      {"-tininessbefore", {"--tininess", "before"}},
      {"-tininessafter", {"--tininess", "after"}},
      {"-level", {"--level"}},
      {"-seed", {"--seed"}},
      {"-checkNaNs", {"--exact-nan"}},
      {"-exhaustive", {"--exhaustive"}},
      {"-exact", {"--exact"}},
      {"-notexact", {"--notexact"}},
  };
  std::vector<std::string> out;
  out.reserve(args.size() + 4);
  bool rest_positional = false;
  for (const auto& a : args) {
    if (rest_positional) {
      out.push_back(a);
      continue;
    }
    if (a == "--") rest_positional = true;
    const auto it = kMap.find(a);
    if (it == kMap.end()) {
      out.push_back(a);
    } else {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

}  // namespace fpconform::testfloat
