#include "fpconform/gpu/plan.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "fpconform/gpu/cases.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"

namespace fpconform::gpu {

namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line.substr(0, line.find('#')));
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

struct Parser {
  const std::string& source;
  int line = 0;

  [[noreturn]] void fail(const std::string& message) const { throw FileError(source, line, message); }

  std::uint64_t number(const std::string& word, const char* what) const {
    std::uint64_t value = 0;
    const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
    const char* first = word.data() + (hex ? 2 : 0);
    const char* last = word.data() + word.size();
    auto [ptr, ec] = std::from_chars(first, last, value, hex ? 16 : 10);
    if (ec != std::errc() || ptr != last || first == last)
      fail(std::string("bad ") + what + " '" + word + "' (want a decimal or 0x number)");
    return value;
  }

  std::uint32_t code(const std::string& word, int bits) const {
    std::string digits = word;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
      digits = digits.substr(2);
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty() ||
        digits.size() > 8)
      fail("bad code '" + word + "' (want hexadecimal digits)");
    if (bits < 32 && value >> bits)
      fail("code '" + word + "' does not fit in " + std::to_string(bits) + " bits");
    return static_cast<std::uint32_t>(value);
  }

  Distribution distribution(const std::string& word) const {
    Distribution d;
    if (word == "uniform") d.kind = Distribution::Kind::uniform;
    else if (word == "finite") d.kind = Distribution::Kind::finite;
    else if (word == "zero") d.kind = Distribution::Kind::zero;
    else if (word.rfind("window:", 0) == 0) {
      d.kind = Distribution::Kind::window;
      const auto w = number(word.substr(7), "window");
      if (w > 300) fail("window " + std::to_string(w) + " is larger than any exponent range");
      d.window = static_cast<int>(w);
    } else
      fail("unknown distribution '" + word + "' (uniform, finite, zero, window:W)");
    return d;
  }
};

// Checks a complete job against the catalog; p.line points at its 'end'.
void check_job(const Job& job, const Parser& p) {
  if (job.kernel.empty()) p.fail("job '" + job.name + "' has no kernel");
  const KernelInfo* k = find_kernel(job.kernel);
  if (!k) p.fail("job '" + job.name + "': unknown kernel '" + job.kernel + "' (fpconform-gpu-run --list)");
  switch (job.input) {
    case InputMode::explicit_cases:
      if (job.cases.empty()) p.fail("job '" + job.name + "' has input explicit but no case lines");
      break;
    case InputMode::generated:
      if (job.count == 0) p.fail("job '" + job.name + "' has input generated but no count");
      if (job.count > (1ull << 32)) p.fail("job '" + job.name + "': count above 2^32");
      if (k->kind == KernelKind::convert && job.dist_a.kind == Distribution::Kind::zero)
        p.fail("job '" + job.name + "': a conversion of zeros only");
      break;
    case InputMode::sweep:
      if (k->kind == KernelKind::dot) p.fail("job '" + job.name + "': dot kernels cannot be swept");
      if (k->kind == KernelKind::scalar && k->in_bits * k->arity > 32)
        p.fail("job '" + job.name + "': a sweep of " + std::to_string(k->arity) + " " +
               std::string(k->in_format) + " operands is more than 2^32 cases; use input generated");
      break;
  }
  // Keys of another input mode would be dropped when the plan is written back (and 'case' lines
  // may come before 'input'), so a job that mixes modes is refused rather than half read.
  if (job.input != InputMode::explicit_cases && !job.cases.empty())
    p.fail("job '" + job.name + "' has case lines but input " + std::string(to_string(job.input)));
  if (job.input != InputMode::generated &&
      (job.count != 0 || job.seed != 0 || !(job.dist_a == Distribution{}) ||
       !(job.dist_b == Distribution{}) || !(job.dist_c == Distribution{})))
    p.fail("job '" + job.name + "' sets count, seed or dist_* but its input is " +
           std::string(to_string(job.input)) + ", not generated");
  if (job.chunk_log2 < 6 || job.chunk_log2 > 26)
    p.fail("job '" + job.name + "': chunk_log2 must be within 6..26");
}

}  // namespace

bool Job::operator==(const Job& o) const {
  return name == o.name && kernel == o.kernel && input == o.input && cases == o.cases &&
         count == o.count && seed == o.seed && dist_a == o.dist_a && dist_b == o.dist_b &&
         dist_c == o.dist_c && raw_count == o.raw_count && chunk_log2 == o.chunk_log2 &&
         sample_chunks == o.sample_chunks && sample_seed == o.sample_seed && max_runs == o.max_runs;
}

std::uint64_t job_case_count(const Job& job) {
  const KernelInfo* k = find_kernel(job.kernel);
  switch (job.input) {
    case InputMode::explicit_cases: return job.cases.size();
    case InputMode::generated: return job.count;
    case InputMode::sweep: {
      const int bits = k ? k->in_bits * (k->kind == KernelKind::scalar ? k->arity : 1) : 0;
      return 1ull << bits;
    }
  }
  return 0;
}

Plan parse_plan(const std::string& text, const std::string& source) {
  Plan plan;
  plan.source = source;
  Parser p{source};
  std::istringstream in(text);
  bool header = false;
  Job* job = nullptr;
  std::set<std::string> names;
  for (std::string raw; std::getline(in, raw);) {
    ++p.line;
    const auto w = split_words(raw);
    if (w.empty()) continue;
    if (!header) {
      if (w.size() != 2 || w[0] != "fpconform-gpu-plan")
        p.fail("a plan starts with 'fpconform-gpu-plan " + std::to_string(kPlanVersion) + "'");
      if (w[1] != std::to_string(kPlanVersion))
        p.fail("plan version " + w[1] + " (this runner reads version " + std::to_string(kPlanVersion) + ")");
      header = true;
      continue;
    }
    const std::string& key = w[0];
    if (!job) {
      if (key != "job" || w.size() != 2) p.fail("expected 'job NAME', got '" + key + "'");
      if (!names.insert(w[1]).second) p.fail("job name '" + w[1] + "' used twice");
      for (char c : w[1])
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
          p.fail("job name '" + w[1] + "' may hold letters, digits, '_', '-', '.' only");
      plan.jobs.push_back(Job{});
      job = &plan.jobs.back();
      job->name = w[1];
      job->line = p.line;
      continue;
    }
    auto one = [&]() -> const std::string& {
      if (w.size() != 2) p.fail("'" + key + "' takes one value");
      return w[1];
    };
    const KernelInfo* k = find_kernel(job->kernel);
    if (key == "end") {
      if (w.size() != 1) p.fail("'end' takes no value");
      check_job(*job, p);
      job = nullptr;
    } else if (key == "kernel") {
      if (!job->kernel.empty()) p.fail("job '" + job->name + "' names a second kernel");
      job->kernel = one();
      if (!find_kernel(job->kernel)) p.fail("unknown kernel '" + job->kernel + "' (fpconform-gpu-run --list)");
    } else if (key == "input") {
      const auto& v = one();
      if (v == "explicit") job->input = InputMode::explicit_cases;
      else if (v == "generated") job->input = InputMode::generated;
      else if (v == "sweep") job->input = InputMode::sweep;
      else p.fail("unknown input '" + v + "' (explicit, generated, sweep)");
    } else if (key == "case") {
      if (!k) p.fail("'case' before 'kernel'");
      if (job->input != InputMode::explicit_cases) p.fail("'case' in a job whose input is not explicit");
      const auto want = static_cast<std::size_t>(operands_per_case(*k));
      if (w.size() - 1 != want)
        p.fail("kernel " + job->kernel + " takes " + std::to_string(want) + " codes per case, got " +
               std::to_string(w.size() - 1));
      std::vector<std::uint32_t> codes;
      for (std::size_t i = 1; i < w.size(); ++i) {
        int bits = k->in_bits;
        if (k->kind == KernelKind::dot && i == w.size() - 1) bits = k->c_format == "f16" ? 16 : 32;
        codes.push_back(p.code(w[i], bits));
      }
      job->cases.push_back(std::move(codes));
    } else if (key == "count") job->count = p.number(one(), "count");
    else if (key == "seed") job->seed = p.number(one(), "seed");
    else if (key == "dist_a") job->dist_a = p.distribution(one());
    else if (key == "dist_b") job->dist_b = p.distribution(one());
    else if (key == "dist_c") job->dist_c = p.distribution(one());
    else if (key == "raw_count") job->raw_count = p.number(one(), "raw_count");
    else if (key == "chunk_log2") job->chunk_log2 = static_cast<int>(std::min<std::uint64_t>(p.number(one(), "chunk_log2"), 99));
    else if (key == "sample_chunks") job->sample_chunks = p.number(one(), "sample_chunks");
    else if (key == "sample_seed") job->sample_seed = p.number(one(), "sample_seed");
    else if (key == "max_runs") job->max_runs = p.number(one(), "max_runs");
    else p.fail("unknown key '" + key + "'");
  }
  if (!header) p.fail("empty plan (a plan starts with 'fpconform-gpu-plan 1')");
  if (job) throw FileError(source, job->line, "job '" + job->name + "' has no 'end'");
  if (plan.jobs.empty()) p.fail("plan has no jobs");
  return plan;
}

Plan read_plan_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, 0, "cannot open plan file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_plan(text.str(), path);
}

std::string to_string(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::uniform: return "uniform";
    case Distribution::Kind::finite: return "finite";
    case Distribution::Kind::zero: return "zero";
    case Distribution::Kind::window: return "window:" + std::to_string(d.window);
  }
  return "?";
}

std::string_view to_string(InputMode m) {
  switch (m) {
    case InputMode::explicit_cases: return "explicit";
    case InputMode::generated: return "generated";
    case InputMode::sweep: return "sweep";
  }
  return "?";
}

std::string write_plan(const Plan& plan) {
  std::ostringstream out;
  out << "fpconform-gpu-plan " << kPlanVersion << "\n";
  for (const Job& j : plan.jobs) {
    out << "\njob " << j.name << "\nkernel " << j.kernel << "\ninput " << to_string(j.input) << "\n";
    for (const auto& c : j.cases) {
      out << "case";
      char buf[16];
      for (auto v : c) {
        std::snprintf(buf, sizeof buf, " %x", v);
        out << buf;
      }
      out << "\n";
    }
    if (j.input == InputMode::generated)
      out << "count " << j.count << "\nseed " << j.seed << "\ndist_a " << to_string(j.dist_a)
          << "\ndist_b " << to_string(j.dist_b) << "\ndist_c " << to_string(j.dist_c) << "\n";
    out << "raw_count " << j.raw_count << "\nchunk_log2 " << j.chunk_log2 << "\nsample_chunks "
        << j.sample_chunks << "\nsample_seed " << j.sample_seed << "\nmax_runs " << j.max_runs
        << "\nend\n";
  }
  return out.str();
}

}  // namespace fpconform::gpu
