// read_rows / read_plain_rows / write_plain_rows (see rows.hpp).
#include "fpconform/characterize/rows.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// A word of digits in `base` (16 with an optional 0x, or 2), at most `max_bits` wide.
std::uint64_t parse_word(std::string w, int base, int max_bits, const std::string& where) {
  const std::string original = w;
  if (base == 16 && w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.erase(0, 2);
  const auto digit_ok = [base](char ch) {
    return base == 16 ? std::isxdigit(static_cast<unsigned char>(ch)) != 0 : ch == '0' || ch == '1';
  };
  const std::size_t bits_per_digit = base == 16 ? 4 : 1;
  if (w.empty() || !std::all_of(w.begin(), w.end(), digit_ok))
    throw Error(where, "'" + original + "' is not a " + (base == 16 ? "hex" : "binary") + " word");
  std::uint64_t v = 0;
  for (char ch : w) {
    const int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0'
                                                               : std::tolower(ch) - 'a' + 10;
    if (v >> (64 - bits_per_digit)) throw Error(where, "'" + original + "' is wider than 64 bits");
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  if (max_bits < 64 && (v >> max_bits) != 0)
    throw Error(where, "'" + original + "' is wider than " + std::to_string(max_bits) + " bits");
  return v;
}

std::uint64_t parse_code(const std::string& w, const Format& f, const std::string& where) {
  const std::uint64_t v = parse_word(w, 16, 64, where);
  if (v & ~f.code_mask())
    throw Error(where, "0x" + w + " does not fit in " + std::to_string(f.width()) + "-bit " + f.name);
  return v;
}

// ---------------------------------------------------------------- tensor-core dumps

std::string hex8(std::uint64_t x) {
  std::ostringstream s;
  s << std::hex << std::setw(8) << std::setfill('0') << x;
  return s.str();
}

struct WordFile {
  std::string path;
  std::vector<std::vector<std::uint64_t>> rows;
};

WordFile read_word_file(const fs::path& path, int base) {
  WordFile f;
  f.path = path.string();
  std::ifstream in(path);
  if (!in) throw Error(f.path, "cannot open");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = f.path + ":" + std::to_string(n);
    const std::vector<std::string> words = split_words(line);
    if (words.empty()) {
      // A blank last line is a trailing newline; a blank line inside is a missing row.
      std::string rest;
      while (std::getline(in, rest))
        if (!split_words(rest).empty()) throw Error(where, "empty line inside the rows");
      break;
    }
    std::vector<std::uint64_t> row;
    for (const std::string& w : words) row.push_back(parse_word(w, base, 32, where));
    if (!f.rows.empty() && row.size() != f.rows.front().size())
      throw Error(where, "ragged rows: " + std::to_string(row.size()) + " words, line 1 has " +
                             std::to_string(f.rows.front().size()));
    f.rows.push_back(std::move(row));
  }
  if (f.rows.empty()) throw Error(f.path, "no rows");
  return f;
}

// The one file in `dir` whose name starts with `prefix` and ends with `suffix` (empty path when
// none; an error when several).
fs::path find_one(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  fs::path found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    if (!found.empty())
      throw Error(dir.string(), "two files match " + prefix + "*" + suffix + ": " +
                                    found.filename().string() + ", " + name);
    found = entry.path();
  }
  return found;
}

// "f32" -> "fp32", "f16" -> "fp16": the tags the dumps' file names use.
std::string dump_tag(const std::string& format_name) {
  if (format_name.size() > 1 && format_name[0] == 'f' && std::isdigit(static_cast<unsigned char>(format_name[1])))
    return "fp" + format_name.substr(1);
  return format_name;
}

RecordedRows read_tensorcore_dump(const fs::path& dir, const RowsOptions& options) {
  const std::string d = dir.string();
  RecordedRows rows;
  rows.layout = "tensorcore-dumps";
  // Input format: given, or the folder's name (fp16, bf16, tf32, E4M3, E5M2).
  std::string in_name = options.in;
  if (in_name.empty()) {
    in_name = dir.filename().string();
    if (in_name.empty()) in_name = dir.parent_path().filename().string();
    std::transform(in_name.begin(), in_name.end(), in_name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  }
  rows.in = parse_format(in_name, options.in.empty() ? d + " (input format from the folder name; give --in)" : "--in");
  if (!options.in_b.empty() && parse_format(options.in_b, "--b-format") != rows.in)
    throw Error("--b-format", "a tensor-core dump holds a and b in one format (" + rows.in.name + ")");
  const fs::path a_path = find_one(dir, "a_", ".txt"), b_path = find_one(dir, "b_", ".txt");
  const fs::path c_path = find_one(dir, "c_", "_fp32.txt");
  if (a_path.empty() || b_path.empty() || c_path.empty())
    throw Error(d, "not a tensor-core dump: needs a_*.txt, b_*.txt and c_*_fp32.txt");
  // Output format: given, or the one d file there is.
  std::vector<std::string> outs;
  for (const char* tag : {"f32", "f16", "bf16"})
    if (!find_one(dir, "d_", "_" + dump_tag(tag) + ".txt").empty()) outs.push_back(tag);
  std::string out_name = options.out;
  if (out_name.empty()) {
    if (outs.size() != 1)
      throw Error(d, outs.empty() ? std::string("no d_*_fp32.txt or d_*_fp16.txt")
                                  : "results recorded for several outputs (" + outs[0] + ", " +
                                        outs[1] + "): choose one with --out");
    out_name = outs[0];
  }
  rows.out = parse_format(out_name, "--out");
  const fs::path d_path = find_one(dir, "d_", "_" + dump_tag(rows.out.name) + ".txt");
  if (d_path.empty())
    throw Error(d, "no d_*_" + dump_tag(rows.out.name) + ".txt for " + rows.out.name + " output");

  const WordFile a = read_word_file(a_path, 16), b = read_word_file(b_path, 16);
  const WordFile c = read_word_file(c_path, 2), want = read_word_file(d_path, 2);
  for (const WordFile* f : {&b, &c, &want})
    if (f->rows.size() != a.rows.size())
      throw Error(f->path, std::to_string(f->rows.size()) + " rows, " + a.path + " has " +
                               std::to_string(a.rows.size()));
  if (b.rows.front().size() != a.rows.front().size())
    throw Error(b.path + ":1", "ragged rows: " + std::to_string(b.rows.front().size()) +
                                   " words, " + a.path + ":1 has " + std::to_string(a.rows.front().size()));
  if (c.rows.front().size() != 1 || want.rows.front().size() != 1)
    throw Error((c.rows.front().size() != 1 ? c.path : want.path) + ":1", "one word per line expected");

  const Format f32 = parse_format("f32");
  Rounding rz, rne;
  rz.mode = RoundingMode::rtz;
  // tf32 rows hold fp32 values the hardware truncates to tf32 (README); other inputs must be
  // values of the input format.
  const bool truncate_inputs = rows.in.name == "tf32";
  const auto input = [&](std::uint64_t x, const std::string& where) {
    const Rounded r = convert(x, f32, rows.in, rz);
    if (!truncate_inputs && r.flags.has(Flags::inexact))
      throw Error(where, "fp32 0x" + hex8(x) + " is not a value of " + rows.in.name);
    return r.bits;
  };
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const std::string line = ":" + std::to_string(i + 1);
    DotCase dc;
    for (std::uint64_t x : a.rows[i]) dc.a.push_back(input(x, a.path + line));
    for (std::uint64_t x : b.rows[i]) dc.b.push_back(input(x, b.path + line));
    // fp16-output rows used C rounded to fp16 (RNE) before the MMA (README).
    dc.c = options.c_zero ? 0 : convert(c.rows[i][0], f32, rows.out, rne).bits;
    const Rounded d_out = convert(want.rows[i][0], f32, rows.out, rz);
    if (d_out.flags.has(Flags::inexact)) throw Error(want.path + line, "the result is not a value of " + rows.out.name);
    dc.d = d_out.bits;
    rows.cases.push_back(std::move(dc));
    rows.where.push_back(a.path + line);
  }
  return rows;
}

}  // namespace

// ---------------------------------------------------------------- plain layout

RecordedRows read_plain_rows(std::istream& text, const std::string& name, const RowsOptions& options) {
  RecordedRows rows;
  rows.layout = "plain";
  // The formats: a header word (key=FMT) or the option, which must agree where both name one.
  struct Named {
    std::string key, value, where;
    bool from_option;
  };
  Named named[] = {{"in=", options.in, "--in", true},
                   {"b=", options.in_b, "--b-format", true},
                   {"out=", options.out, "--out", true}};
  bool have_formats = false;
  std::string line;
  for (int n = 1; std::getline(text, line); ++n) {
    const std::string where = name + ":" + std::to_string(n);
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) {
      // A comment; `in=`, `b=` and `out=` words in it, before the first row, name the formats.
      for (const std::string& w : split_words(line.substr(hash + 1))) {
        Named* f = nullptr;
        for (Named& x : named)
          if (w.rfind(x.key, 0) == 0) f = &x;
        if (!f) continue;
        if (have_formats) throw Error(where, "'" + w + "' after the first row");
        const std::string v = w.substr(f->key.size());
        if (f->from_option && !f->value.empty() &&
            parse_format(f->value, f->where).name != parse_format(v, where).name)
          throw Error(where, "'" + w + "' but " + f->where + " says " + f->value);
        f->value = v;
        f->where = where;
        f->from_option = false;
      }
      line.erase(hash);
    }
    // Fields: a | b | c | d, or (without bars) the `fpconform dot --check` line a.. b.. c d.
    std::vector<std::vector<std::string>> fields;
    if (line.find('|') != std::string::npos) {
      std::string field;
      std::istringstream parts(line);
      while (std::getline(parts, field, '|')) fields.push_back(split_words(field));
      if (line.back() == '|') fields.emplace_back();  // getline drops a last empty piece
    } else {
      const std::vector<std::string> words = split_words(line);
      if (words.empty()) continue;
      if (words.size() < 4 || words.size() % 2 != 0)
        throw Error(where, std::to_string(words.size()) +
                               " words: a row is a_0..a_{K-1} | b_0..b_{K-1} | c | d (or 2K + 2 words)");
      const std::size_t k = (words.size() - 2) / 2;
      fields = {{words.begin(), words.begin() + static_cast<long>(k)},
                {words.begin() + static_cast<long>(k), words.begin() + static_cast<long>(2 * k)},
                {words[2 * k]},
                {words[2 * k + 1]}};
    }
    if (fields.size() != 4)
      throw Error(where, std::to_string(fields.size()) + " fields: a row is a_0..a_{K-1} | b_0..b_{K-1} | c | d");
    if (!have_formats) {
      const Named &in = named[0], &b = named[1], &out = named[2];
      if (in.value.empty() || out.value.empty())
        throw Error(where, "no formats: put `# in=FMT out=FMT` before the rows, or give --in/--out");
      rows.in = parse_format(in.value, in.where);
      if (!b.value.empty())
        if (Format fb = parse_format(b.value, b.where); fb != rows.in) rows.b = fb;
      rows.out = parse_format(out.value, out.where);
      have_formats = true;
    }
    if (fields[0].empty()) throw Error(where, "no a values");
    if (fields[0].size() != fields[1].size())
      throw Error(where, "ragged row: " + std::to_string(fields[0].size()) + " a values, " +
                             std::to_string(fields[1].size()) + " b values");
    if (fields[2].size() != 1 || fields[3].size() != 1)
      throw Error(where, "c and d are one code each");
    DotCase dc;
    for (const std::string& w : fields[0]) dc.a.push_back(parse_code(w, rows.in, where));
    for (const std::string& w : fields[1]) dc.b.push_back(parse_code(w, rows.b_format(), where));
    dc.c = options.c_zero ? 0 : parse_code(fields[2][0], rows.out, where);
    dc.d = parse_code(fields[3][0], rows.out, where);
    rows.cases.push_back(std::move(dc));
    rows.where.push_back(where);
  }
  if (rows.cases.empty()) throw Error(name, "no rows");
  return rows;
}

RecordedRows read_rows(const std::string& path, const RowsOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_tensorcore_dump(fs::path(path), options);
  std::ifstream in(path);
  if (!in) throw Error(path, "cannot open");
  return read_plain_rows(in, path, options);
}

void write_plain_rows(std::ostream& text, const FdpaFormats& f, std::span<const DotCase> cases) {
  const Format &in = f.a, &out = f.d;
  text << "# in=" << in.name << (f.b == f.a ? "" : " b=" + f.b.name) << " out=" << out.name << "\n"
       << "# a_0 .. a_{K-1} | b_0 .. b_{K-1} | c | d   (hex codes; tools/engines/characterize/ROWS.md)\n";
  const auto hex = [&text](std::uint64_t v, int digits) {
    text << std::hex << std::setw(digits) << std::setfill('0') << v << std::dec;
  };
  for (const DotCase& dc : cases) {
    for (std::size_t i = 0; i < dc.a.size(); ++i) {
      hex(dc.a[i], in.hex_digits());
      text << ' ';
    }
    text << '|';
    for (std::uint64_t x : dc.b) {
      text << ' ';
      hex(x, f.b.hex_digits());
    }
    text << " | ";
    hex(dc.c, out.hex_digits());
    text << " | ";
    hex(dc.d, out.hex_digits());
    text << '\n';
  }
}

}  // namespace fpconform::characterize
