// In-memory FILE* streams for the runner tests (glibc's fmemopen / open_memstream).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fpconform::testfloat::test {

// A FILE* reading `text`; closes itself.
class InputStream {
 public:
  explicit InputStream(std::string text) : text_(std::move(text)) {
    // fmemopen refuses size 0; an empty stream is a stream at EOF.
    f_ = text_.empty() ? std::fopen("/dev/null", "r") : fmemopen(text_.data(), text_.size(), "r");
  }
  ~InputStream() { std::fclose(f_); }
  std::FILE* get() const { return f_; }

 private:
  std::string text_;
  std::FILE* f_;
};

// A FILE* collecting what is written; str() flushes and returns it.
class OutputStream {
 public:
  OutputStream() : f_(open_memstream(&buf_, &size_)) {}
  ~OutputStream() {
    std::fclose(f_);
    std::free(buf_);
  }
  std::FILE* get() const { return f_; }
  std::string str() {
    std::fflush(f_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* f_;
};

}  // namespace fpconform::testfloat::test
