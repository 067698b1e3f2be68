// read_matrix / write_matrix: .npy and text matrices (see matrix_io.hpp).
#include "fpconform/files/matrix_io.hpp"

// fast-cpp-csv-parser's LineReader: fast line splitting with file:line in its errors.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/files/convert_values.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"

namespace fpconform::files {

namespace {

// Bytes per raw code of f: the smallest of 1, 2, 4, 8 that holds its width (tf32 in 4).
int storage_bytes(const Format& f) {
  return f.width() <= 8 ? 1 : f.width() <= 16 ? 2 : f.width() <= 32 ? 4 : 8;
}

std::string raw_dtype_name(const Format& f) {
  return "uint" + std::to_string(8 * storage_bytes(f)) + " (or a " + std::to_string(storage_bytes(f)) +
         "-byte void dtype such as ml_dtypes')";
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// One cell: raw bits or an exactly representable value.
std::uint64_t cell_code(const std::string& text, const Format& f, const std::string& where,
                        bool round_values) {
  bool exact = true;
  const std::uint64_t code = code_of_value(text, f, where, "element", exact);
  if (!exact && !round_values)
    throw Error(where, "'" + text + "' is not exactly representable in " + f.name +
                           " (quantize it first, or give raw bits as 0x..)");
  return code;
}

// The line reader hands out NUL-terminated lines, so a NUL byte inside a line would silently
// end its row there: find one first and name its line (in a regular file: reading a pipe twice
// would lose its data).
void refuse_nul_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) return;  // the line reader says why it cannot open it
  char buf[1 << 16];
  long line = 1;
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) {
    const char* nul = static_cast<const char*>(std::memchr(buf, '\0', n));
    const std::size_t scan = nul ? static_cast<std::size_t>(nul - buf) : n;
    line += std::count(buf, buf + scan, '\n');
    if (nul) {
      std::fclose(in);
      throw Error(path + ":" + std::to_string(line), "a NUL byte inside the line (not a text matrix)");
    }
  }
  std::fclose(in);
}

Matrix read_text(const std::string& path, const Format& f, std::string_view what,
                 bool round_values) {
  refuse_nul_bytes(path);
  Matrix m;
  m.format = f;
  try {
    io::LineReader in(path);
    while (char* line = in.next_line()) {
      const std::string where_line = path + ":" + std::to_string(in.get_file_line());
      const char* first = line;
      while (*first == ' ' || *first == '\t') ++first;
      if (*first == '#') continue;  // a comment line, whatever it holds
      std::vector<std::string> cells;
      std::string cell;
      // A comma ends a cell; a comma with no cell since the previous one (or at the start of
      // a row), or at the end of a row, leaves an empty cell, which is an error: dropping it
      // would silently shift the row.
      bool comma_pending = false;  // a comma seen, and no cell after it yet
      for (const char* p = line;; ++p) {
        const char ch = *p;
        if (ch == ',' || ch == ' ' || ch == '\t' || ch == '\r' || ch == ';' || ch == '\0') {
          if (!cell.empty()) {
            cells.push_back(cell);
            comma_pending = false;
          }
          if (cell.empty() && (ch == ',' || ch == '\0') &&
              (comma_pending || (ch == ',' && cells.empty())))
            throw Error(where_line + ":" + std::to_string(cells.size() + 1), "empty cell");
          if (ch == ',') comma_pending = true;
          cell.clear();
          if (ch == '\0') break;
        } else {
          cell += ch;
        }
      }
      if (cells.empty()) continue;  // blank lines
      if (cells[0][0] == '#') continue;  // comments
      if (m.rows == 0) m.cols = static_cast<int>(cells.size());
      if (static_cast<int>(cells.size()) != m.cols)
        throw Error(where_line, "expected " + std::to_string(m.cols) + " cells (as on the first "
                                "row), got " + std::to_string(cells.size()));
      for (std::size_t c = 0; c < cells.size(); ++c)
        m.codes.push_back(cell_code(cells[c], f, where_line + ":" + std::to_string(c + 1), round_values));
      ++m.rows;
    }
  } catch (const io::error::can_not_open_file&) {
    throw Error(std::string(what), "cannot open '" + path + "'");
  } catch (const io::error::base& e) {
    throw Error(path, e.what());
  }
  if (m.rows == 0) throw Error(std::string(what), "'" + path + "' holds no matrix (empty)");
  return m;
}

// The .npy header's value for `key` ('descr', 'fortran_order', 'shape').
std::string header_value(const std::string& header, const std::string& key, const std::string& where) {
  const std::size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error(where, "npy header lacks '" + key + "'");
  std::size_t v = header.find(':', k);
  if (v == std::string::npos) throw Error(where, "malformed npy header");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  std::size_t end = v;
  if (v < header.size() && header[v] == '[') {
    // A structured dtype: a list of fields, possibly nested; the whole list is the value.
    int depth = 0;
    for (end = v; end < header.size(); ++end) {
      if (header[end] == '[') ++depth;
      if (header[end] == ']' && --depth == 0) break;
    }
    end = end < header.size() ? end + 1 : std::string::npos;
  } else if (v < header.size() && header[v] == '(') end = header.find(')', v) + 1;
  else if (v < header.size() && header[v] == '\'') end = header.find('\'', v + 1) + 1;
  else end = header.find_first_of(",}", v);
  if (end == std::string::npos || end <= v) throw Error(where, "malformed npy header");
  return header.substr(v, end - v);
}

Matrix read_npy(const std::string& path, const Format& f, std::string_view what,
                bool round_values) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(std::string(what), "cannot open '" + path + "'");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0)
    throw Error(path, "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(data[6]);
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(data[8]) | (static_cast<unsigned char>(data[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) throw Error(path, "truncated npy header");
    std::uint32_t n = 0;
    std::memcpy(&n, data.data() + 8, 4);
    header_len = n;
    offset = 12;
  } else {
    throw Error(path, "unsupported npy version " + std::to_string(major));
  }
  if (data.size() < offset + header_len) throw Error(path, "truncated npy header");
  const std::string header = data.substr(offset, header_len);
  const std::string descr = header_value(header, "descr", path);
  const std::string fortran = header_value(header, "fortran_order", path);
  const std::string shape = header_value(header, "shape", path);
  // shape: "(R, C)" only.
  long long r = -1, c = -1;
  char tail = 0;
  if (std::sscanf(shape.c_str(), "(%lld, %lld%c", &r, &c, &tail) != 3 || tail != ')' || r < 0 || c < 0)
    throw Error(path, "expected a 2-D array, shape is " + shape);
  if (r == 0 || c == 0)
    throw Error(path, "shape " + shape + " has an empty dimension (" + (r == 0 ? "no rows" : "no columns") +
                          "): a matrix needs at least one row and one column");
  // Rows and columns are ints, and rows * cols * size must not wrap (a header may say anything).
  if (r > INT_MAX || c > INT_MAX || r * c > (1ll << 48))
    throw Error(path, "shape " + shape + " is too large");
  if (!descr.empty() && descr[0] == '[')
    throw Error(path, "dtype " + descr + " is a structured dtype (named fields), which is not "
                      "supported: save a plain 2-D array of float16/32/64 values or raw codes");
  const std::string type = descr.size() >= 3 ? descr.substr(1, descr.size() - 2) : "";
  if (type.empty() || (type[0] != '<' && type[0] != '|'))
    throw Error(path, "dtype " + descr + ": only little-endian data is read");
  const char kind = type[1];
  const int size = std::atoi(type.c_str() + 2);
  const bool is_float = kind == 'f' && (size == 2 || size == 4 || size == 8);
  const bool is_raw = (kind == 'u' || kind == 'V') && (size == 1 || size == 2 || size == 4 || size == 8);
  if (!is_float && !is_raw)
    throw Error(path, "dtype " + descr + " is neither float16/32/64 nor raw codes (uint8..uint64)");
  // Raw codes only in the width fpconform writes them: a uint8 array given for bf16 holds
  // small integers or another format's codes, never bf16 codes, and reading it as codes would
  // turn a matrix of ones into subnormals.
  if (is_raw && size != storage_bytes(f))
    throw Error(path, "dtype " + descr + " holds " + std::to_string(size) + "-byte raw codes, but " +
                          f.name + " codes are " + std::to_string(storage_bytes(f)) +
                          " bytes wide: save " + f.name + " codes as " + raw_dtype_name(f) +
                          ", or values as float16/32/64");
  const std::size_t count = static_cast<std::size_t>(r) * static_cast<std::size_t>(c);
  const std::size_t body = offset + header_len;
  if (data.size() - body != count * size)
    throw Error(path, "holds " + std::to_string(data.size() - body) + " data bytes, shape " +
                          shape + " of " + descr + " needs " + std::to_string(count * size));
  Matrix m{static_cast<int>(r), static_cast<int>(c), f, std::vector<std::uint64_t>(count)};
  const Format value_format = parse_format(size == 2 ? "f16" : size == 4 ? "f32" : "f64");
  const bool transposed = fortran == "True";
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t raw = 0;
    std::memcpy(&raw, data.data() + body + i * size, size);
    const std::size_t row = transposed ? i % r : i / c, col = transposed ? i / r : i % c;
    const std::string where = path + ": element (" + std::to_string(row) + ", " + std::to_string(col) + ")";
    std::uint64_t code;
    if (is_raw) {
      if (raw & ~f.code_mask())
        throw Error(where, "raw code 0x" + [&] { char b[20]; std::snprintf(b, sizeof b, "%llx", (unsigned long long)raw); return std::string(b); }() +
                               " does not fit in " + std::to_string(f.width()) + "-bit " + f.name);
      code = raw;
    } else {
      const Rounded rr = convert(raw, value_format, f, Rounding{});
      if (rr.flags.bits != 0 && !f.is_nan_code(rr.bits) && !round_values)
        throw Error(where, "value is not exactly representable in " + f.name);
      code = rr.bits;
    }
    m.codes[row * c + col] = code;
  }
  return m;
}


}  // namespace

Matrix read_matrix(const std::string& path, const Format& f, std::string_view what,
                   bool round_values) {
  return ends_with(path, ".npy") ? read_npy(path, f, what, round_values)
                                 : read_text(path, f, what, round_values);
}

Matrix read_raw_matrix(const std::string& path, const Format& f, int rows, int cols,
                       std::string_view what) {
  const std::string where = std::string(what) + " " + path;
  if (rows <= 0 || cols <= 0) throw Error(std::string(what), "raw files need a positive shape (--shape)");
  const int bytes = f.width() <= 8 ? 1 : f.width() <= 16 ? 2 : f.width() <= 32 ? 4 : 8;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(where, "cannot open");
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const std::uint64_t n = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (size != n * static_cast<std::uint64_t>(bytes))
    throw Error(where, "holds " + std::to_string(size) + " bytes; " + std::to_string(rows) + "x" +
                           std::to_string(cols) + " " + f.name + " codes of " +
                           std::to_string(bytes) + " bytes need " +
                           std::to_string(n * static_cast<std::uint64_t>(bytes)));
  in.seekg(0);
  std::vector<unsigned char> raw(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(size));
  if (!in) throw Error(where, "read failed");
  Matrix m{rows, cols, f, {}};
  m.codes.resize(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t code = 0;
    for (int byte = bytes - 1; byte >= 0; --byte) code = (code << 8) | raw[i * bytes + byte];
    if (code & ~f.code_mask())
      throw Error(where + " element " + std::to_string(i) + " (row " + std::to_string(i / cols) +
                      ", column " + std::to_string(i % cols) + ")",
                  "code is wider than " + f.name);
    m.codes[i] = code;
  }
  return m;
}

void write_matrix(const std::string& path, const Matrix& m, bool hex, std::string_view what) {
  std::string bytes;
  if (ends_with(path, ".npy")) {
    const bool floats = m.format.name == "f16" || m.format.name == "f32" || m.format.name == "f64";
    const int size = m.format.width() <= 8 ? 1 : m.format.width() <= 16 ? 2 : m.format.width() <= 32 ? 4 : 8;
    const std::string descr = std::string(floats ? "<f" : (size == 1 ? "|u" : "<u")) + std::to_string(size);
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                         std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xFF);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    for (std::uint64_t code : m.codes) bytes.append(reinterpret_cast<const char*>(&code), size);
  } else {
    std::ostringstream out;
    for (int r = 0; r < m.rows; ++r) {
      for (int c = 0; c < m.cols; ++c) {
        if (c) out << ',';
        const std::uint64_t code = m.at(r, c);
        if (hex) {
          char b[24];
          std::snprintf(b, sizeof b, "0x%0*llx", m.format.hex_digits(), static_cast<unsigned long long>(code));
          out << b;
        } else {
          out << exact_decimal(decode(code, m.format));
        }
      }
      out << '\n';
    }
    bytes = out.str();
  }
  reports::write_output(path, bytes, what);
}

}  // namespace fpconform::files
