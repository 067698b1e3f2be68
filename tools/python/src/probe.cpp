// fpconform.probe: the characterization engine on a Python callable (the engine asks batches of
// dot products, the callable answers) or on a target it knows (emu:..., cpu:...).
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "arrays.hpp"
#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/device_profile.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform::python {
namespace {

using namespace nb::literals;

// Thrown through the engine when the callable raised; the Python exception is kept to re-raise.
struct CallbackFailed : std::exception {
  const char* what() const noexcept override { return "the probed callable raised"; }
};

// The callable as a target. `answer(a, b, c)` takes codes (rows x k, rows x k, rows) and
// returns rows codes of `out`; the Python layer turns them into the user's dtypes and back.
class CallableTarget final : public characterize::Target {
 public:
  CallableTarget(nb::callable answer, std::string name, const Format& in, const Format& in_b,
                 const Format& out)
      : answer_(std::move(answer)), name_(std::move(name)), in_(in), in_b_(in_b), out_(out) {}
  std::string name() const override { return name_; }
  const Format& in() const override { return in_; }
  const Format& in_b() const override { return in_b_; }
  const Format& out() const override { return out_; }

  std::vector<std::uint64_t> run(const characterize::DotBatch& batch) override {
    check_batch(batch);
    count(batch.rows());
    const std::size_t rows = batch.rows(), k = static_cast<std::size_t>(batch.k);
    nb::gil_scoped_acquire gil;
    try {
      std::vector<std::uint64_t> a = batch.a, b = batch.b, c = batch.c;
      nb::object d = answer_(to_numpy(std::move(a), {rows, k}), to_numpy(std::move(b), {rows, k}),
                             to_numpy(std::move(c), {rows}));
      const auto codes = nb::cast<Codes>(d);
      if (codes.shape(0) != rows)
        return fail(PyExc_ValueError, "fn: answered " + std::to_string(codes.shape(0)) + " values for " +
                                          std::to_string(rows) + " dot products");
      for (std::size_t i = 0; i < rows; ++i)
        if ((codes.data()[i] & ~out_.code_mask()) != 0)
          return fail(PyExc_ValueError, "fn: answer " + std::to_string(i) + " is not a code of " + out_.name);
      return std::vector<std::uint64_t>(codes.data(), codes.data() + rows);
    } catch (nb::python_error& e) {
      failure_ = std::make_unique<nb::python_error>(std::move(e));
    } catch (const nb::cast_error&) {
      return fail(PyExc_TypeError, "fn: the answer is not a one-dimensional array of codes");
    }
    throw CallbackFailed{};
  }

  // Keeps a Python exception of `type` to re-raise and leaves the engine (GIL held).
  std::vector<std::uint64_t> fail(PyObject* type, const std::string& message) {
    PyErr_SetString(type, message.c_str());
    failure_ = std::make_unique<nb::python_error>();
    throw CallbackFailed{};
  }

  // Re-raises what the callable raised, if it did (with the GIL held).
  void rethrow_failure() {
    if (failure_) throw nb::python_error(std::move(*failure_));
  }

 private:
  nb::callable answer_;
  std::string name_;
  Format in_, in_b_, out_;
  std::unique_ptr<nb::python_error> failure_;
};

struct ProbeOptions {
  std::uint64_t cases = 100000, seed = 1;
  int max_k = 64, order_k = 32;
};

characterize::Characterization characterize_target(characterize::Target& t, const ProbeOptions& p,
                                                   std::optional<nb::callable> progress,
                                                   CallableTarget* callable) {
  if (p.max_k < characterize::kMinProbeK || p.max_k > 4096)
    throw Error("max_k", "must be " + std::to_string(characterize::kMinProbeK) +
                             "..4096 (the block-size probe must reach the family's largest block)");
  if (p.order_k < 2 || p.order_k > 256) throw Error("order_k", "must be 2..256");
  if (p.cases < 1) throw Error("cases", "must be at least 1");
  if (const std::string why = t.unavailable(); !why.empty())
    throw Error("fn", t.name() + " cannot run here: " + why);
  characterize::CharacterizeOptions o;
  o.seed = p.seed;
  o.validation_cases = p.cases;
  o.max_k = p.max_k;
  if (progress)
    o.progress = [&progress](std::string_view stage, std::string_view detail) {
      nb::gil_scoped_acquire gil;
      (*progress)(std::string(stage), std::string(detail));
    };
  characterize::Characterization c;
  try {
    nb::gil_scoped_release unlocked;
    c = characterize::characterize(t, o);
    if (auto order = characterize::order_evidence(t, p.order_k)) c.evidence.push_back(std::move(*order));
    c.queries = t.queries();
  } catch (const CallbackFailed&) {
  }
  if (callable) callable->rethrow_failure();
  return c;
}

characterize::Characterization probe_callable(nb::callable answer, std::string name, std::string_view in,
                                              std::string_view in_b, std::string_view out,
                                              const ProbeOptions& p,
                                              std::optional<nb::callable> progress) {
  CallableTarget t(std::move(answer), std::move(name), parse_format(in, "in_format"),
                   parse_format(in_b, "b_format"), parse_format(out, "out_format"));
  return characterize_target(t, p, std::move(progress), &t);
}

characterize::Characterization probe_spec(std::string_view spec, std::optional<std::string> in,
                                          std::optional<std::string> in_b,
                                          std::optional<std::string> out, const ProbeOptions& p,
                                          std::optional<nb::callable> progress) {
  std::optional<Format> fi, fb, fo;
  if (in) fi = parse_format(*in, "in_format");
  if (in_b) fb = parse_format(*in_b, "b_format");
  if (out) fo = parse_format(*out, "out_format");
  auto t = characterize::make_target(spec, fi ? &*fi : nullptr, fo ? &*fo : nullptr, "fn",
                                     fb ? &*fb : nullptr);
  return characterize_target(*t, p, std::move(progress), nullptr);
}

nb::dict case_dict(const characterize::DotCase& c) {
  nb::dict d;
  d["a"] = c.a;
  d["b"] = c.b;
  d["c"] = c.c;
  d["d"] = c.d;
  return d;
}

}  // namespace

void bind_probe(nb::module_& m) {
  using characterize::Characterization;
  nb::class_<ProbeOptions>(m, "ProbeOptions")
      .def(nb::init<>())
      .def_rw("cases", &ProbeOptions::cases)
      .def_rw("seed", &ProbeOptions::seed)
      .def_rw("max_k", &ProbeOptions::max_k)
      .def_rw("order_k", &ProbeOptions::order_k);
  nb::class_<Characterization>(m, "Characterization")
      .def_ro("target", &Characterization::target)
      .def_prop_ro("in_format", [](const Characterization& c) { return c.in.name; })
      .def_prop_ro("b_format", [](const Characterization& c) { return c.b_format().name; })
      .def_prop_ro("out_format", [](const Characterization& c) { return c.out.name; })
      .def_ro("model", &Characterization::model_spec)
      .def_ro("verdict", &Characterization::verdict)
      .def_ro("validated", &Characterization::validated)
      .def_ro("agreed", &Characterization::agreed)
      .def_ro("expressible", &Characterization::expressible)
      .def_ro("deterministic", &Characterization::deterministic)
      .def_ro("queries", &Characterization::queries)
      .def_ro("seconds", &Characterization::seconds)
      .def_prop_ro("evidence",
                   [](const Characterization& c) {
                     std::vector<nb::dict> v;
                     for (const auto& e : c.evidence) {
                       nb::dict d;
                       d["probe"] = e.probe;
                       d["finding"] = e.finding;
                       d["proves"] = e.proves;
                       nb::list cases;
                       for (const auto& x : e.cases) cases.append(case_dict(x));
                       d["cases"] = cases;
                       v.push_back(d);
                     }
                     return v;
                   })
      .def_prop_ro("counterexamples",
                   [](const Characterization& c) {
                     nb::list l;
                     for (const auto& x : c.counterexamples) l.append(case_dict(x));
                     return l;
                   })
      .def("profile_json",
           [](const Characterization& c, std::string_view version) {
             return characterize::device_profile_json(c, version).dump();
           })
      .def("markdown", [](const Characterization& c, std::string_view version) {
        return characterize::device_profile_markdown(c, version);
      })
      .def("write", [](const Characterization& c, const std::string& dir, std::string_view version) {
        return characterize::write_device_profile(c, dir, version);
      });
  m.def("probe_callable", &probe_callable, "answer"_a, "name"_a, "in_format"_a, "b_format"_a,
        "out_format"_a, "options"_a, "progress"_a.none());
  m.def("probe_spec", &probe_spec, "spec"_a, "in_format"_a.none(), "b_format"_a.none(),
        "out_format"_a.none(), "options"_a, "progress"_a.none());
}

}  // namespace fpconform::python
