// The Python bindings: arrays of codes in, arrays of codes out, one library call per function.
// The Python layer (tools/python/fpconform) maps dtypes to formats and argument names to these.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/characterize/unit_json.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/splitmix.hpp"
#include "fpconform/fast_convert.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/gemm_setup.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/profile.hpp"
#include "fpconform/unit_model.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/validate/explain.hpp"
#include "fpconform/validate/summary.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::python {
namespace {

using namespace nb::literals;

Rounding rounding_of(std::string_view mode, std::string_view sat, bool ftz, bool daz,
                     int stochastic_bits) {
  Rounding r;
  r.mode = parse_rounding_mode(mode, "rounding");
  r.sat = parse_saturation(sat, "saturation");
  r.ftz = ftz;
  r.daz = daz;
  if (is_stochastic(r.mode)) {
    if (stochastic_bits < 1 || stochastic_bits > 64)
      throw Error("stochastic_bits", "must be 1..64 for a stochastic rounding, got " +
                                         std::to_string(stochastic_bits));
    r.stochastic_bits = stochastic_bits;
  }
  return r;
}

nb::dict format_dict(const Format& f) {
  nb::dict d;
  d["name"] = f.name;
  d["width"] = f.width();
  d["exp_bits"] = f.exp_bits;
  d["man_bits"] = f.man_bits;
  d["bias"] = f.bias;
  d["signed"] = f.is_signed;
  d["subnormals"] = f.subnormals;
  d["has_inf"] = f.has_inf();
  d["has_nan"] = f.has_nan();
  d["max_finite"] = to_double(f.max_finite_code(), f);
  d["layout"] = f.describe();
  return d;
}

std::vector<nb::dict> formats() {
  std::vector<nb::dict> v;
  for (const Format& f : builtin_formats()) v.push_back(format_dict(f));
  return v;
}

nb::dict format_info(std::string_view name, std::string_view what) {
  return format_dict(parse_format(name, what));
}

// Stochastic rounding draws its bits from splitmix64(seed + i) per element i.
std::uint64_t random_bits(std::uint64_t seed, std::size_t i) { return splitmix64(seed + i); }

// f32 values into `to`: the vectorized fast path where it applies (codes of 1 or 2 bytes,
// deterministic rounding) straight into a uint8/uint16 array, else convert() per element.
nb::object convert_f32(F32s x, std::string_view to, std::string_view mode, std::string_view sat,
                       bool ftz, bool daz, int stochastic_bits, std::uint64_t seed) {
  const Format target = parse_format(to, "to");
  const Rounding r = rounding_of(mode, sat, ftz, daz, stochastic_bits);
  const std::size_t n = x.shape(0);
  const float* in = x.data();
  if (target.width() <= 16 && !is_stochastic(r.mode)) {
    const F32Converter c(target, r);
    auto fill = [&](auto* codes) {
      auto out = new_numpy(n, codes);
      {
        nb::gil_scoped_release unlocked;
        c.convert(std::span<const float>(in, n), std::span(codes, n));
      }
      return nb::cast(out);
    };
    return c.code_bytes() == 1 ? fill(static_cast<std::uint8_t*>(nullptr))
                               : fill(static_cast<std::uint16_t*>(nullptr));
  }
  const Format f32 = *find_builtin("f32");
  std::vector<std::uint64_t> out(n);
  {
    nb::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, in + i, 4);
      Rounding ri = r;
      if (is_stochastic(r.mode)) ri.random = random_bits(seed, i);
      out[i] = convert(bits, f32, target, ri).bits;
    }
  }
  return nb::cast(to_numpy(std::move(out), {n}));
}

// Codes of `from` into `to` by convert(): one rounding, as the options say.
nb::ndarray<nb::numpy, std::uint64_t> convert_codes(Codes codes, std::string_view from,
                                                    std::string_view to, std::string_view mode,
                                                    std::string_view sat, bool ftz, bool daz,
                                                    int stochastic_bits, std::uint64_t seed) {
  const Format source = parse_format(from, "from_format");
  const Format target = parse_format(to, "to");
  const Rounding r = rounding_of(mode, sat, ftz, daz, stochastic_bits);
  check_codes(codes, source, "x");
  const std::size_t n = codes.shape(0);
  std::vector<std::uint64_t> out(n);
  const std::uint64_t* in = codes.data();
  nb::gil_scoped_release unlocked;
  for (std::size_t i = 0; i < n; ++i) {
    Rounding ri = r;
    if (is_stochastic(r.mode)) ri.random = random_bits(seed, i);
    out[i] = convert(in[i], source, target, ri).bits;
  }
  return to_numpy(std::move(out), {n});
}

// Codes of `from` into `to` as the profile's library converts them; the options given override
// the library's defaults where the library allows it (else ValueError, before any work).
nb::ndarray<nb::numpy, std::uint64_t> convert_profile(Codes codes, std::string_view from,
                                                      std::string_view to, std::string_view profile,
                                                      std::optional<std::string> mode,
                                                      std::optional<std::string> sat,
                                                      std::optional<bool> ftz, std::optional<bool> daz) {
  const Format source = parse_format(from, "from_format");
  const Format target = parse_format(to, "to");
  const Profile& p = find_profile(profile, "profile");
  UserOptions user;
  if (mode) user.mode = parse_rounding_mode(*mode, "rounding");
  if (sat) user.sat = parse_saturation(*sat, "saturation");
  user.ftz = ftz;
  user.daz = daz;
  (void)resolve_rounding(p, source, target, user, "profile");
  check_codes(codes, source, "x");
  const std::size_t n = codes.shape(0);
  std::vector<std::uint64_t> out(n);
  const std::uint64_t* in = codes.data();
  nb::gil_scoped_release unlocked;
  for (std::size_t i = 0; i < n; ++i) out[i] = convert_with_profile(in[i], source, target, p, user).bits;
  return to_numpy(std::move(out), {n});
}

nb::ndarray<nb::numpy, double> decode(Codes codes, std::string_view fmt) {
  const Format f = parse_format(fmt, "fmt");
  const std::size_t n = codes.shape(0);
  std::vector<double> out(n);
  const std::uint64_t* in = codes.data();
  check_codes(codes, f, "codes");
  for (std::size_t i = 0; i < n; ++i) out[i] = to_double(in[i], f);
  return to_numpy(std::move(out), {n});
}

// One scalar operation over arrays of operands (same length); codes and IEEE flags per element.
nb::tuple eval_op(std::string_view op_name, std::string_view fmt, std::vector<Codes> operands,
                  std::string_view mode, std::string_view sat, bool ftz, bool daz,
                  std::optional<std::string> nan) {
  const auto op = find_op(op_name);
  if (!op) throw Error("op", "unknown operation '" + std::string(op_name) + "'");
  const int arity = op_info(*op).arity;
  if (static_cast<int>(operands.size()) != arity)
    throw Error("operands", std::string(op_name) + " takes " + std::to_string(arity) +
                                " operands, got " + std::to_string(operands.size()));
  const Format f = parse_format(fmt, "fmt");
  OpOptions o;
  o.rounding = rounding_of(mode, sat, ftz, daz, 0);
  if (nan) o.nan = &find_nan_policy(*nan, "nan");
  const std::size_t n = operands[0].shape(0);
  for (const Codes& c : operands) {
    if (c.shape(0) != n) throw Error("operands", "arrays of different lengths");
    check_codes(c, f, "operands");
  }
  std::vector<std::uint64_t> out(n);
  std::vector<std::uint8_t> flags(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t args[3] = {0, 0, 0};
    for (int j = 0; j < arity; ++j) args[j] = operands[j].data()[i];
    const Rounded r = apply_op(*op, f, args, o);
    out[i] = r.bits;
    flags[i] = r.flags.bits;
  }
  return nb::make_tuple(to_numpy(std::move(out), {n}), to_numpy(std::move(flags), {n}));
}


using F32s2 = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

std::vector<std::uint32_t> f32_codes(const F32s2& x) {
  std::vector<std::uint32_t> v(x.shape(0) * x.shape(1));
  if (!v.empty()) std::memcpy(v.data(), x.data(), v.size() * 4);
  return v;
}

// The formats of A, B and C as keyword arguments name them; an empty one is the default (B: A's,
// C: the accumulator's).
struct OperandFormats {
  std::string a, b, c;
};

nb::ndarray<nb::numpy, std::uint64_t> gemm_codes(Codes2 a, Codes2 b, std::optional<Codes2> c,
                                                 const GemmSetup& setup,
                                                 const OperandFormats& formats,
                                                 std::string_view out) {
  const Format fin = parse_format(formats.a, "in_format");
  const Format fin_b = formats.b.empty() ? fin : parse_format(formats.b, "b_format");
  const Format fout = parse_format(out, "out_format");
  const GemmOptions g = gemm_options(setup, fin, fin_b, fout, kKeywordGemmNames);
  const Matrix ma = matrix_of(a, fin), mb = matrix_of(b, fin_b);
  std::optional<Matrix> mc;
  if (c) mc = matrix_of(*c, formats.c.empty() ? g.acc : parse_format(formats.c, "c_format"));
  Matrix d;
  {
    nb::gil_scoped_release unlocked;
    d = gemm(g, ma, mb, mc ? &*mc : nullptr, kKeywordGemmNames);
  }
  const std::size_t rows = static_cast<std::size_t>(d.rows), cols = static_cast<std::size_t>(d.cols);
  return to_numpy(std::move(d.codes), {rows, cols});
}

// What validate and explain share: the kernel's D, its inputs, and the expectations.
struct Check {
  std::string in, out;
  std::string in_b, c_format;  // empty: A's format, the accumulator's
  std::optional<GemmSetup> model;
  std::string acc = "f32";  // C's format when there is no model
  bool exact = true;
  std::string rounding = "rne";
  double max_ulp = -1, max_rel = -1;
  bool model_bound = false;
  int worst = 10;
  unsigned threads = 0;
};

validate::ValidateRequest request_of(Codes2 d, Codes2 a, Codes2 b, std::optional<Codes2> c,
                                     const Check& k) {
  const Format fin = parse_format(k.in, "in_format");
  const Format fin_b = k.in_b.empty() ? fin : parse_format(k.in_b, "b_format");
  const Format fout = parse_format(k.out, "out_format");
  validate::ValidateRequest q;
  q.a = matrix_of(a, fin);
  q.b = matrix_of(b, fin_b);
  q.d = matrix_of(d, fout);
  if (k.model) {
    q.model = gemm_options(*k.model, fin, fin_b, fout, kKeywordGemmNames);
    q.model_name = k.model->model;
  }
  if (c)
    q.c = matrix_of(*c, !k.c_format.empty() ? parse_format(k.c_format, "c_format")
                        : q.model           ? q.model->acc
                                            : parse_format(k.acc, "acc_format"));
  q.exact = k.exact;
  q.exact_rounding.mode = parse_rounding_mode(k.rounding, "rounding");
  q.max_ulp = k.max_ulp;
  q.max_rel = k.max_rel;
  q.model_bound = k.model_bound;
  if (q.model_bound && !q.model) throw Error("tolerance", "'model' needs model=");
  if (k.worst < 0) throw Error("worst", "must be 0 or more");
  q.worst = k.worst;
  q.threads = resolve_threads(k.threads, "threads");
  return q;
}

// (summary as JSON text, the CLI's summary text, pass)
nb::tuple validate_codes(Codes2 d, Codes2 a, Codes2 b, std::optional<Codes2> c, const Check& k,
                         std::string_view repro) {
  const validate::ValidateRequest q = request_of(d, a, b, c, k);
  validate::ValidateReport rep;
  {
    nb::gil_scoped_release unlocked;
    rep = validate::validate_kernel(q);
  }
  return nb::make_tuple(validate::summary_json(rep).dump(),
                        validate::summary_text(rep, q.d.format, std::string(repro)), rep.pass);
}

std::string explain_codes(Codes2 d, Codes2 a, Codes2 b, std::optional<Codes2> c, const Check& k,
                          int row, int col) {
  const validate::ValidateRequest q = request_of(d, a, b, c, k);
  return validate::element_text(validate::explain_element(q, row, col), q);
}

std::vector<nb::dict> models() {
  std::vector<nb::dict> v;
  const nb::object loads = nb::module_::import_("json").attr("loads");
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    nb::dict d;
    d["model"] = std::string(e.preset);
    d["input"] = std::string(e.input);
    d["source"] = std::string(e.source);
    d["unit"] = unit_text(raise(e.params));
    d["stages"] = loads(characterize::unit_stages_json(raise(e.params)).dump());
    v.push_back(d);
  }
  return v;
}

void bind_module(nb::module_& m) {
  m.attr("__version__") = FPCONFORM_VERSION;
  m.doc() = "fpconform's C++ library: bit-exact models of low-precision formats (internal; use fpconform)";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("formats", &formats);
  m.def("format_info", &format_info, "fmt"_a, "what"_a = "fmt");
  m.def("convert_f32", &convert_f32, "x"_a, "to"_a, "mode"_a, "sat"_a, "ftz"_a, "daz"_a,
        "stochastic_bits"_a, "seed"_a);
  m.def("convert_codes", &convert_codes, "codes"_a, "from_format"_a, "to"_a, "mode"_a, "sat"_a,
        "ftz"_a, "daz"_a, "stochastic_bits"_a, "seed"_a);
  m.def("convert_profile", &convert_profile, "codes"_a, "from_format"_a, "to"_a, "profile"_a,
        "mode"_a.none(), "sat"_a.none(), "ftz"_a.none(), "daz"_a.none());
  m.def("decode", &decode, "codes"_a, "fmt"_a);
  m.def("eval_op", &eval_op, "op"_a, "fmt"_a, "operands"_a, "mode"_a, "sat"_a, "ftz"_a, "daz"_a,
        "nan"_a.none());
  nb::class_<GemmSetup>(m, "GemmSetup")
      .def(nb::init<>())
      .def_rw("model", &GemmSetup::model)
      .def_rw("acc_format", &GemmSetup::acc)
      .def_rw("promote_every", &GemmSetup::promote_every)
      .def_rw("split_k", &GemmSetup::split_k)
      .def_rw("reduction", &GemmSetup::reduction)
      .def_rw("reverse_k", &GemmSetup::reverse_k)
      .def_rw("c_in_epilogue", &GemmSetup::c_in_epilogue)
      .def_rw("scale_b_block_cols", &GemmSetup::scale_b_block_cols)
      .def_rw("block_scale_format", &GemmSetup::block_scale_format)
      .def("set_scales", [](GemmSetup& s, F32s2 a, F32s2 b) {
        s.scale_a = f32_codes(a);
        s.scale_b = f32_codes(b);
      })
      .def("set_block_scales", [](GemmSetup& s, Codes2 a, Codes2 b) {
        s.block_scale_a.assign(a.data(), a.data() + a.shape(0) * a.shape(1));
        s.block_scale_b.assign(b.data(), b.data() + b.shape(0) * b.shape(1));
      });
  nb::class_<OperandFormats>(m, "OperandFormats")
      .def(nb::init<>())
      .def_rw("a", &OperandFormats::a)
      .def_rw("b", &OperandFormats::b)
      .def_rw("c", &OperandFormats::c);
  m.def("gemm", &gemm_codes, "a"_a, "b"_a, "c"_a.none(), "setup"_a, "formats"_a, "out_format"_a);
  m.def("models", &models);
  nb::class_<Check>(m, "Check")
      .def(nb::init<>())
      .def_rw("in_format", &Check::in)
      .def_rw("out_format", &Check::out)
      .def_rw("b_format", &Check::in_b)
      .def_rw("c_format", &Check::c_format)
      .def_rw("model", &Check::model)
      .def_rw("acc_format", &Check::acc)
      .def_rw("exact", &Check::exact)
      .def_rw("rounding", &Check::rounding)
      .def_rw("max_ulp", &Check::max_ulp)
      .def_rw("max_rel", &Check::max_rel)
      .def_rw("model_bound", &Check::model_bound)
      .def_rw("worst", &Check::worst)
      .def_rw("threads", &Check::threads);
  m.def("validate", &validate_codes, "d"_a, "a"_a, "b"_a, "c"_a.none(), "check"_a, "repro"_a);
  m.def("explain", &explain_codes, "d"_a, "a"_a, "b"_a, "c"_a.none(), "check"_a, "row"_a, "col"_a);
  bind_quantize(m);
  bind_probe(m);
  bind_bench(m);
}

}  // namespace
}  // namespace fpconform::python

NB_MODULE(_fpconform, m) { fpconform::python::bind_module(m); }
