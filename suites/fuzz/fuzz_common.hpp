// What every fuzz target shares: the outcome rule (a result or fpconform::Error; anything else
// is a finding and aborts, so libFuzzer records the input), a byte reader, and a pool of formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"

namespace fpfuzz {

// Reports a finding and aborts (libFuzzer saves the input as crash-*).
[[noreturn]] void fail(const char* target, const std::string& what);

// Runs body(). Returns true if it finished, false if it threw fpconform::Error; any other
// exception is a finding.
template <class F>
bool guarded(const char* target, F&& body) {
  try {
    body();
    return true;
  } catch (const fpconform::Error&) {
    return false;
  } catch (const std::exception& e) {
    fail(target, std::string("unexpected exception ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    fail(target, "unexpected non-standard exception");
  }
}

// A property that must hold; a violation is a finding.
inline void require(bool ok, const char* target, const std::string& what) {
  if (!ok) fail(target, what);
}

// Reads the fuzz input front to back; past the end it yields zeros.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t u8() { return n_ ? (--n_, *p_++) : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(u8()) << (8 * i);
    return v;
  }
  std::string_view rest() {
    std::string_view s(reinterpret_cast<const char*>(p_), n_);
    p_ += n_;
    n_ = 0;
    return s;
  }
  // Up to the first '\n' (consumed), or the rest.
  std::string_view line() {
    std::size_t i = 0;
    while (i < n_ && p_[i] != '\n') ++i;
    std::string_view s(reinterpret_cast<const char*>(p_), i);
    const std::size_t used = i < n_ ? i + 1 : i;
    p_ += used;
    n_ -= used;
    return s;
  }
  std::size_t size() const { return n_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

// Built-in formats and a few custom and P3109 ones (an index taken modulo the count).
const fpconform::Format& pick_format(std::uint8_t index);
std::size_t format_pool_size();

}  // namespace fpfuzz
