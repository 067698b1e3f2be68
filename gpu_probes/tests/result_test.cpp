// Result files: round trip, and truncated or foreign files refused with the file named.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

using namespace fpconform::gpu;

namespace {

Result sample_result() {
  Result r;
  r.header["job"] = "sweep";
  r.header["kernel"] = "f16_hadd";
  r.header["device"] = "NVIDIA H200";
  r.header["cc"] = "90";
  auto& o = r.add_block(kBlockOutputs, 2);
  o.data = {0x3c00, 0xFFFF, 0};
  auto& d = r.add_block(kBlockDigests, 8);
  d.data = {0xFFFFFFFFFFFFFFFFull, 1};
  auto& s = r.add_block(kBlockRunStart, 4);
  s.data = {0, 0x80000000u, 0xFFFFFFFFu};
  r.add_block("empty", 1);
  return r;
}

TEST(GpuResult, RoundTripsInMemoryAndOnDisk) {
  const Result r = sample_result();
  const std::string bytes = encode_result(r);
  EXPECT_EQ(decode_result(bytes, "mem"), r);
  // magic 8 + u32 + header + u32 + blocks: the outputs block holds 3 two-byte values
  const auto path = (std::filesystem::temp_directory_path() / "fpconform_gpu_result_test.res").string();
  write_result_file(r, path);
  EXPECT_EQ(read_result_file(path), r);
  EXPECT_EQ(read_result_file(path).get("device"), "NVIDIA H200");
  std::remove(path.c_str());
}

TEST(GpuResult, BlockValuesKeepTheirWidth) {
  Result r;
  r.add_block("b", 2).data = {0x1234};
  const std::string bytes = encode_result(r);
  // the last two bytes are the value, little-endian
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 2]), 0x34);
  EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 1]), 0x12);
}

TEST(GpuResult, RefusesForeignAndTruncatedFiles) {
  const std::string bytes = encode_result(sample_result());
  EXPECT_THROW(decode_result("hello world, not a result", "x.res"), FileError);
  for (std::size_t cut : {std::size_t{4}, std::size_t{20}, bytes.size() - 1}) {
    try {
      decode_result(bytes.substr(0, cut), "x.res");
      ADD_FAILURE() << "accepted a file cut at " << cut;
    } catch (const FileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x.res:", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(decode_result(bytes + "x", "x.res"), FileError);
  EXPECT_THROW(read_result_file("/nonexistent/r.res"), FileError);
}

}  // namespace

namespace {
// add_block's reference must survive further add_block calls (the runner fills two at once).
TEST(GpuResult, BlockReferencesStayValidAsBlocksAreAdded) {
  Result r;
  auto& first = r.add_block("first", 4);
  for (int i = 0; i < 100; ++i) r.add_block("b" + std::to_string(i), 1);
  first.data.push_back(42);
  EXPECT_EQ(r.block("first")->data.at(0), 42u);
}
}  // namespace
