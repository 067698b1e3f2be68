// Checkpoint files: a sweep's progress survives the text round trip exactly (counter-examples
// with error messages included); damaged, foreign or inconsistent files are refused naming
// path:line.
#include <gtest/gtest.h>

#include <string>

#include <unistd.h>

#include <filesystem>

#include "fpconform/files/checkpoint.hpp"
#include "fpconform/files/report_checkpoint.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/files/sweep_checkpoint.hpp"

namespace {

using namespace fpconform;
using namespace fpconform::files;

conformance::SweepProgress sample() {
  conformance::SweepProgress p;
  p.done = 300;
  p.mismatches = {0, 7, 0, 18446744073709551615ull};
  conformance::CounterExample a;
  a.index = 5;
  a.input = 0x7c01;
  a.config = 1;
  a.emu_bits = 0x7f;
  a.emu_flags = 0x11;
  a.oracle_bits = 0x7e;
  a.oracle_flags = 0x10;
  conformance::CounterExample b = a;
  b.index = 299;
  b.config = 3;
  b.error = "emu: bad\tthing \\ with\nnewline and spaces";
  p.counterexamples = {a, b};
  return p;
}

std::string expect_error(const std::string& text, const std::string& want) {
  try {
    const Checkpoint c = parse_checkpoint(text, "cp", "sweep", "a=1");
    sweep_progress_of(c, "cp", 1000, 4);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error, wanted " << want;
  return "";
}

// `text` with its checksum line recomputed (as an editor that knows the format would).
std::string resealed(std::string text) {
  text = text.substr(0, text.rfind("checksum "));
  Checkpoint d{"sweep", "a=1", {}, {}};
  std::size_t pos = 0;
  int line = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string l = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (++line <= 3) continue;
    const std::size_t sp = l.find(' ');
    d.add(l.substr(0, sp), l.substr(sp + 1));
  }
  return checkpoint_text(d);
}

TEST(Checkpoint, SweepProgressRoundTrip) {
  Checkpoint c{"sweep", "a=1", {}, {}};
  add_sweep_progress(c, sample(), 1000);
  const std::string text = checkpoint_text(c);
  const Checkpoint back = parse_checkpoint(text, "cp", "sweep", "a=1");
  const conformance::SweepProgress p = sweep_progress_of(back, "cp", 1000, 4);
  const conformance::SweepProgress want = sample();
  EXPECT_EQ(p.done, want.done);
  EXPECT_EQ(p.mismatches, want.mismatches);
  ASSERT_EQ(p.counterexamples.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto &x = p.counterexamples[i], &y = want.counterexamples[i];
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.input, y.input);
    EXPECT_EQ(x.config, y.config);
    EXPECT_EQ(x.emu_bits, y.emu_bits);
    EXPECT_EQ(x.emu_flags, y.emu_flags);
    EXPECT_EQ(x.oracle_bits, y.oracle_bits);
    EXPECT_EQ(x.oracle_flags, y.oracle_flags);
    EXPECT_EQ(x.error, y.error);
  }
  // The same text again: the format has one spelling per state.
  Checkpoint again{"sweep", "a=1", {}, {}};
  add_sweep_progress(again, p, 1000);
  EXPECT_EQ(checkpoint_text(again), text);
}

TEST(Checkpoint, EscapesRoundTrip) {
  for (const std::string s : {std::string(""), std::string("plain"), std::string("a b\\c\n\x01\x7f\xff")})
    EXPECT_EQ(unescape_field(escape_field(s), "here"), s);
  EXPECT_EQ(escape_field("a b").find(' '), std::string::npos);
  EXPECT_THROW(unescape_field("a\\x4", "here"), Error);
  EXPECT_THROW(unescape_field("a\\q41", "here"), Error);
}

TEST(Checkpoint, RefusesWhatIsNotThisRun) {
  Checkpoint c{"sweep", "a=1", {}, {}};
  add_sweep_progress(c, sample(), 1000);
  const std::string good = checkpoint_text(c);
  expect_error("hello\n", "cp:1: not an fpconform checkpoint");
  expect_error("", "cp:1: not an fpconform checkpoint");
  expect_error(good.substr(0, good.size() - 5), "cp: damaged checkpoint");
  std::string flipped = good;
  flipped[flipped.find("done 300")] = 'D';
  expect_error(flipped, "cp: damaged checkpoint");
  expect_error(checkpoint_text(Checkpoint{"probe", "a=1", c.fields, {}}),
               "cp:2: a checkpoint of 'fpconform probe', not of 'fpconform sweep'");
  expect_error(checkpoint_text(Checkpoint{"sweep", "a=2", c.fields, {}}),
               "cp:3: a checkpoint of a run with other arguments (a=2)");
  // Consistent checksum, inconsistent content: named by line.
  std::string t = good;
  t.replace(t.find("done 300"), 8, "done 3x0");
  expect_error(resealed(t), "cp:6: expected a number, got '3x0'");
  t = good;
  t.replace(t.find("inputs 1000"), 11, "inputs 999");
  expect_error(resealed(t), "cp:4: checkpoint of a sweep over 999 inputs, this one has 1000");
  t = good;
  t.replace(t.find("mismatches 0 7 0"), 16, "mismatches 0 7");
  expect_error(resealed(t), "cp:7: expected 4 mismatch counts, got 3");
  t = good;
  t.replace(t.find("cex 299 "), 8, "cex 300 ");
  expect_error(resealed(t), "a counter-example outside the sweep");
}

// A report checkpoint keeps finished sections in order and gives them back unchanged; one
// from other arguments, or with a section that is not one, is refused naming the file (and
// the line of the section).
TEST(Checkpoint, ReportSectionsRoundTrip) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fpc-report-ckpt-" + std::to_string(::getpid()))).string();
  const std::string args = report_args(true, 7, "/some dir/devices", "0.1");
  EXPECT_NE(args, report_args(false, 7, "/some dir/devices", "0.1"));
  EXPECT_NE(args, report_args(true, 8, "/some dir/devices", "0.1"));
  EXPECT_NE(args, report_args(true, 7, "/some dir/devices", "0.1", "not-run=matrix-units"));
  EXPECT_TRUE(read_report_checkpoint(path, args).empty());  // no file: nothing kept
  std::vector<reports::Section> s(2);
  s[0].id = "conversions";
  s[0].title = "Conversions with spaces\\and a backslash";
  s[0].paragraphs = {"line one\nline two"};
  s[0].results = {{"cases", 5}};
  s[1].id = "arithmetic";
  s[1].ok = false;
  s[1].tables.push_back({"t", "T", {"a"}, {{"x y"}}, "", false});
  write_report_checkpoint(path, args, s);
  const auto kept = read_report_checkpoint(path, args);
  ASSERT_EQ(kept.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(reports::section_to_json(kept[i]), reports::section_to_json(s[i]));
  try {
    read_report_checkpoint(path, report_args(true, 8, "/some dir/devices", "0.1"));
    ADD_FAILURE() << "other arguments accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  Checkpoint c{"report", args, {}, {}};
  c.add("section", escape_field("{\"id\": \"x\"}"));
  write_checkpoint(path, c);
  try {
    read_report_checkpoint(path, args);
    ADD_FAILURE() << "a malformed section accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
