#include "fpconform/validate/explain.hpp"

#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "fpconform/core/error.hpp"
#include "fpconform/validate/mismatch.hpp"

namespace fpconform::validate {
namespace {

std::string hex(const Format& f, std::uint64_t code) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*" PRIx64, f.hex_digits(), code);
  return buf;
}

template <class... Args>
std::string format(const char* fmt, Args... args) {
  const int n = std::snprintf(nullptr, 0, fmt, args...);
  std::string s(static_cast<std::size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, args...);
  return s;
}

}  // namespace

Matrix row_of(const Matrix& m, int r) {
  const auto first = m.codes.begin() + static_cast<long>(r) * m.cols;
  return Matrix{1, m.cols, m.format, {first, first + m.cols}};
}

Matrix column_of(const Matrix& m, int c) {
  Matrix out{m.rows, 1, m.format, {}};
  for (int r = 0; r < m.rows; ++r) out.codes.push_back(m.at(r, c));
  return out;
}

ElementExplanation explain_element(const ValidateRequest& q, int row, int col) {
  if (row < 0 || col < 0 || row >= q.d.rows || col >= q.d.cols)
    throw Error("--element", std::to_string(row) + "," + std::to_string(col) + " is not inside " +
                                 std::to_string(q.d.rows) + "x" + std::to_string(q.d.cols));
  const Format& out = q.d.format;
  const Matrix* c = q.c ? &*q.c : nullptr;
  ElementExplanation e;
  e.row = row;
  e.col = col;
  e.k = q.a.cols;
  e.kernel = q.d.at(row, col);
  for (int kk = 0; kk < q.a.cols; ++kk) e.operands += hex(q.a.format, q.a.at(row, kk)) + " ";
  for (int kk = 0; kk < q.a.cols; ++kk) e.operands += hex(q.b.format, q.b.at(kk, col)) + " ";
  const std::uint64_t cv = c ? c->at(row, col) : 0;
  e.operands += hex(c ? c->format : q.model ? q.model->acc : out, cv);
  const Matrix ar = row_of(q.a, row), bc = column_of(q.b, col);
  const Matrix cc{1, 1, c ? c->format : out, {cv}};
  if (q.model) {
    const GemmOptions& g = *q.model;
    e.model = gemm(g, ar, bc, c ? &cc : nullptr).codes[0];
    e.model_is_dot = g.split_k == 1 && g.promote_every == 0 && !g.reverse_k && g.scale_a.empty() &&
                     g.block_scale_a.empty() && g.acc == out;
  }
  const ExactResult ex = exact_gemm(ar, bc, c ? &cc : nullptr, out, q.exact_rounding, 1);
  e.exact = ex.value[0];
  e.exact_rounded = ex.rounded.codes[0];
  return e;
}

std::string element_text(const ElementExplanation& e, const ValidateRequest& q) {
  const Format& out = q.d.format;
  std::string s = format("D[%d][%d] = sum_k A[%d][k] * B[k][%d] + C, K = %d\n", e.row, e.col,
                         e.row, e.col, e.k);
  s += format("kernel:   %s (%.9g)\n", hex(out, e.kernel).c_str(), code_value(out, e.kernel));
  if (e.model) {
    s += format("model:    %s (%.9g)\n", hex(out, *e.model).c_str(), code_value(out, *e.model));
    if (e.model_is_dot) {
      std::string formats = "--in " + q.a.format.name + " --out " + out.name;
      if (!(q.b.format == q.a.format)) formats += " --b-format " + q.b.format.name;
      if (q.c && !(q.c->format == out)) formats += " --c-format " + q.c->format.name;
      s += format("the model's working: echo '%s' | fpconform dot --model '%s' %s\n",
                  e.operands.c_str(), q.model_name.c_str(), formats.c_str());
    }
  }
  s += format("exact:    %.21Lg, correctly rounded %s (%.9g)\n", e.exact,
              hex(out, e.exact_rounded).c_str(), code_value(out, e.exact_rounded));
  s += format("operands (a..., b..., c; hex codes): %s\n", e.operands.c_str());
  return s;
}

BatchInvariance model_batch_invariance(const GemmOptions& model, const Matrix& a, const Matrix& b,
                                       const Matrix* c, int split_k_alone) {
  const Matrix batch = gemm(model, a, b, c);
  GemmOptions alone_opt = model;
  alone_opt.split_k = split_k_alone;
  Matrix alone{batch.rows, batch.cols, batch.format, {}};
  for (int i = 0; i < a.rows; ++i) {
    const Matrix crow = c ? row_of(*c, i) : Matrix{};
    const Matrix r = gemm(alone_opt, row_of(a, i), b, c ? &crow : nullptr);
    alone.codes.insert(alone.codes.end(), r.codes.begin(), r.codes.end());
  }
  return {rows_not_invariant(batch, alone), batch.rows};
}

std::vector<int> read_token_ids(const std::string& path, const std::string& what) {
  std::ifstream t(path);
  if (!t) throw Error(what, "cannot open '" + path + "'");
  std::vector<int> tokens;
  std::string line;
  for (int ln = 1; std::getline(t, line); ++ln) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(line, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || line.find_first_not_of(" \t\r", used) != std::string::npos)
      throw Error(path + ":" + std::to_string(ln), "not a token id: '" + line + "'");
    tokens.push_back(v);
  }
  return tokens;
}

}  // namespace fpconform::validate
