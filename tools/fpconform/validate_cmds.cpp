// fpconform validate: a kernel's D against a hardware model and/or the correctly rounded result,
// two implementations against each other (--against, --logits), and batch invariance.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/validate/explain.hpp"
#include "fpconform/validate/summary.hpp"
#include "gemm_args.hpp"
#include "fpconform/files/matrix_io.hpp"

namespace fpconform::cli {
using namespace fpconform::files;
namespace {

struct ValidateArgs {
  GemmArgs g;
  std::string in, out, a, b, c, d, against, reference, rounding = "rne", element, shape, json;
  std::string b_format, c_format;
  std::string tokens;
  double max_ulp = -1, max_rel = -1, max_kl = -1;
  int worst = 10, split_k_alone = 1;
  bool logits = false, batch_invariance = false;
  std::uint64_t seed = 1;
  bool allow_nan = false;
  std::string tolerance;  // "model": within the model's derived bound (tools/engines/tolerance)
  std::vector<std::string> argv;  // to print commands that reproduce an element
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// M, K, N from --shape "M,K,N".
std::array<int, 3> parse_shape(const std::string& text) {
  std::array<int, 3> v{};
  std::istringstream in(text);
  char comma1 = 0, comma2 = 0;
  if (!(in >> v[0] >> comma1 >> v[1] >> comma2 >> v[2]) || comma1 != ',' || comma2 != ',' ||
      !in.eof() || v[0] <= 0 || v[1] <= 0 || v[2] <= 0)
    throw Error("--shape", "'" + text + "' is not M,K,N (three positive integers)");
  return v;
}

Matrix load(const ValidateArgs& o, const std::string& path, const Format& f, const char* what,
            int rows, int cols) {
  if (ends_with(path, ".bin") || ends_with(path, ".raw")) {
    if (o.shape.empty()) throw Error(what, "raw file '" + path + "' needs --shape M,K,N");
    return read_raw_matrix(path, f, rows, cols, what);
  }
  return read_matrix(path, f, what);
}

// A NaN among a kernel's operands is almost always a bug upstream: refuse it, naming the element,
// unless --allow-nan asks to validate NaN propagation.
void refuse_nan(const ValidateArgs& o, const Matrix& m, const char* what, const std::string& path) {
  if (o.allow_nan) return;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      if (m.format.is_nan_code(m.at(r, c)))
        throw Error(std::string(what) + " " + path + " row " + std::to_string(r) + " column " +
                        std::to_string(c),
                    "NaN input (--allow-nan validates NaN propagation)");
}

void write_json(const std::string& path, const nlohmann::json& j) {
  if (!path.empty()) reports::write_output(path, j.dump(2) + "\n", "--json");
}

int run_validate(const ValidateArgs& o) {
  const unsigned threads = default_thread_count();  // a bad FPCONFORM_THREADS before any work
  if (!o.json.empty() && o.json != "-") reports::check_output_file(o.json, "--json");
  const Format in = parse_format(o.in, "--in");
  const Format out = parse_format(o.out, "--out");
  std::array<int, 3> mkn{0, 0, 0};
  if (!o.shape.empty()) mkn = parse_shape(o.shape);
  const auto [m, k, n] = mkn;
  const bool use_model = !o.g.model.empty();

  if (!o.against.empty()) {
    if (o.d.empty()) throw Error("--d", "--against compares --d with it: give --d");
    const Matrix d = load(o, o.d, out, "--d", m, n);
    const Matrix d2 = load(o, o.against, out, "--against", m, n);
    if (o.logits) {
      const std::vector<int> tokens = o.tokens.empty() ? std::vector<int>{} : validate::read_token_ids(o.tokens);
      const auto mm = validate::logit_mismatch(d, d2, tokens, o.seed);
      if (o.tokens.empty()) std::printf("tokens sampled from --d's distribution, seed %" PRIu64 "\n", o.seed);
      write_json(o.json, validate::mismatch_json(mm));  // before any result: it may fail
      std::fputs(validate::mismatch_text(mm).c_str(), stdout);
      const bool pass = o.max_kl < 0 || mm.mean_kl <= o.max_kl;
      if (o.max_kl >= 0)
        std::printf("verdict: %s (mean KL %.4e, --max-kl %.4e)\n", pass ? "PASS" : "FAIL", mm.mean_kl, o.max_kl);
      return pass ? 0 : 1;
    }
    if (o.batch_invariance) {
      const auto rows = validate::rows_not_invariant(d, d2);
      write_json(o.json, {{"rows", d.rows}, {"differing_rows", rows}});
      std::printf("batch invariance: %zu of %d rows differ bitwise\n", rows.size(), d.rows);
      for (std::size_t i = 0; i < rows.size() && i < 20; ++i) std::printf("  row %d\n", rows[i]);
      return rows.empty() ? 0 : 1;
    }
    const auto c = validate::compare_outputs(d, d2, "--against " + o.against, o.worst);
    validate::ValidateReport rep;
    rep.comparisons.push_back(c);
    rep.pass = validate::within(c, o.max_ulp, o.max_rel);
    rep.tolerance = o.max_ulp < 0 && o.max_rel < 0 ? "bit-exact" : "the given tolerance";
    write_json(o.json, validate::summary_json(rep));
    std::fputs(validate::summary_text(rep, out, "fpconform validate ...").c_str(), stdout);
    return rep.pass ? 0 : 1;
  }

  if (o.a.empty() || o.b.empty()) throw Error("--a", "give --a and --b (or --against)");
  const Matrix a = load(o, o.a, in, "--a", m, k);
  const Format in_b = o.b_format.empty() ? in : parse_format(o.b_format, "--b-format");
  const Matrix b = load(o, o.b, in_b, "--b", k, n);
  refuse_nan(o, a, "--a", o.a);
  refuse_nan(o, b, "--b", o.b);
  std::optional<GemmOptions> model;
  if (use_model) model = make_gemm_options(o.g, in, in_b, out);
  std::optional<Matrix> c;
  if (!o.c.empty()) {
    const Format c_format = !o.c_format.empty() ? parse_format(o.c_format, "--c-format")
                            : model             ? model->acc
                                                : out;
    c = load(o, o.c, c_format, "--c", m, n);
  }
  if (c) refuse_nan(o, *c, "--c", o.c);

  if (o.batch_invariance) {
    if (!model) throw Error("--batch-invariance", "needs --model (or --against with two outputs)");
    const auto bi = validate::model_batch_invariance(*model, a, b, c ? &*c : nullptr, o.split_k_alone);
    const auto& rows = bi.differing_rows;
    write_json(o.json, {{"rows", bi.rows}, {"differing_rows", rows}});
    std::printf("batch invariance: %zu of %d rows differ between the batch (split-k %d) and "
                "rows alone (split-k %d)\n", rows.size(), bi.rows, model->split_k, o.split_k_alone);
    for (std::size_t i = 0; i < rows.size() && i < 20; ++i) std::printf("  row %d\n", rows[i]);
    return rows.empty() ? 0 : 1;
  }

  if (o.d.empty()) throw Error("--d", "give the kernel's output --d");
  validate::ValidateRequest q;
  q.a = a;
  q.b = b;
  q.c = c;
  q.d = load(o, o.d, out, "--d", m, n);
  q.model = model;
  q.model_name = o.g.model;
  if (!o.reference.empty() && o.reference != "exact")
    throw Error("--reference", "'" + o.reference + "' is not exact");
  q.exact = o.reference == "exact";
  q.exact_rounding.mode = parse_rounding_mode(o.rounding, "--rounding");
  q.max_ulp = o.max_ulp;
  q.max_rel = o.max_rel;
  if (!o.tolerance.empty() && o.tolerance != "model")
    throw Error("--tolerance", "'" + o.tolerance + "' is not model");
  q.model_bound = o.tolerance == "model";
  q.worst = o.worst;
  q.threads = threads;

  if (!o.element.empty()) {
    int r = -1, col = -1;
    char comma = 0;
    std::istringstream e(o.element);
    if (!(e >> r >> comma >> col) || comma != ',' || r < 0 || col < 0 || r >= q.d.rows || col >= q.d.cols)
      throw Error("--element", "'" + o.element + "' is not R,C inside " + std::to_string(q.d.rows) +
                                   "x" + std::to_string(q.d.cols));
    std::fputs(validate::element_text(validate::explain_element(q, r, col), q).c_str(), stdout);
    return 0;
  }

  const auto rep = validate::validate_kernel(q);
  std::string repro = "fpconform";
  for (const auto& w : o.argv) repro += " " + w;
  write_json(o.json, validate::summary_json(rep));  // before any result: writing may fail
  std::printf("validate: D is %dx%d %s, K = %d, inputs %s\n", q.d.rows, q.d.cols, out.name.c_str(),
              a.cols, (in == in_b ? in.name : in.name + " x " + in_b.name).c_str());
  std::fputs(validate::summary_text(rep, out, repro).c_str(), stdout);
  return rep.pass ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "validate", "Check a kernel's D = A.B + C against a hardware model and/or the exact result");
  auto o = std::make_shared<ValidateArgs>();
  add_gemm_options(sub, o->g, false);
  sub->add_option("--in", o->in, "format of A and B")->required();
  sub->add_option("--out", o->out, "format of D")->required();
  sub->add_option("--b-format", o->b_format, "format of B, when it is not --in (e4m3 x e5m2)");
  sub->add_option("--c-format", o->c_format, "format of C, when it is not the accumulator's");
  sub->add_option("--a", o->a, "A (M x K): .npy (float16/32/64 values, or raw codes as uint8/16/32/64 of exactly the "
                                 "format's width), CSV (decimal or hex), or .bin/.raw with --shape");
  sub->add_option("--b", o->b, "B (K x N)");
  sub->add_option("--c", o->c, "C (M x N)");
  sub->add_option("--d", o->d, "the kernel's D (M x N)");
  sub->add_option("--reference", o->reference, "exact: the correctly rounded result (MPFR/GMP)");
  sub->add_option("--rounding", o->rounding, "rounding of the exact reference (rne)");
  sub->add_option("--max-ulp", o->max_ulp, "tolerance: ulp distance to the first expectation")
      ->check(real_in(0, kMaxTolerance));
  sub->add_option("--max-rel", o->max_rel, "tolerance: relative error")->check(real_in(0, kMaxTolerance));
  sub->add_option("--tolerance", o->tolerance,
                  "model: bit-exact to --model, else within the bound its model implies per element");
  sub->add_option("--worst", o->worst, "how many of the worst elements to list")
      ->capture_default_str()
      ->check(integer_in(0, 1000000));
  sub->add_option("--element", o->element, "R,C: show one element's operands and results");
  sub->add_option("--shape", o->shape, "M,K,N for raw little-endian .bin/.raw files");
  sub->add_option("--against", o->against, "a second implementation's D to compare with");
  sub->add_flag("--logits", o->logits, "with --against: D (mu) and D2 (pi) are logits");
  sub->add_option("--tokens", o->tokens, "with --logits: token ids, one per row (else sampled)");
  sub->add_option("--max-kl", o->max_kl, "with --logits: fail when the mean KL(mu||pi) exceeds this")
      ->check(real_in(0, kMaxTolerance));
  sub->add_option("--seed", o->seed, "seed for sampled tokens")->capture_default_str()->check(unsigned_in(0, std::numeric_limits<std::uint64_t>::max()));
  sub->add_flag("--batch-invariance", o->batch_invariance,
                "rows alone vs in the batch: --against D_ALONE, or --model with --split-k-alone");
  sub->add_option("--split-k-alone", o->split_k_alone, "split-K a kernel uses for a single row")
      ->check(integer_in(1, kMaxLength));
  sub->add_option("--json", o->json, "write the results as JSON (atomically; -: stdout)");
  sub->add_flag("--allow-nan", o->allow_nan, "accept NaN operands (validate NaN propagation)");
  commands.push_back({sub, [o, sub] {
                        o->argv.clear();
                        o->argv.push_back("validate");
                        for (const auto* opt : sub->get_options())
                          for (const auto& r : opt->results())
                            if (opt->get_name() != "--help" && opt->get_name() != "--element")
                              o->argv.push_back(opt->get_name() + (opt->get_type_size() == 0 ? "" : " " + r));
                        return run_validate(*o);
                      }});
}

}  // namespace fpconform::cli
