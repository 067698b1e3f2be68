#include "mldtypes.hpp"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace fpconform::bench {

namespace {

// ml_dtypes has one cast per type: overflow gives NaN (float8_e4m3fn), inf (float8_e5m2) or the
// largest value (float4_e2m1fn, which has neither); so both of ours, satfinite and none, are
// compared with the same cast. On these inputs (|x| < 6 sigma) nothing overflows anyway.
constexpr const char* kScript = R"PY(
import sys, time
try:
    import numpy as np
    import ml_dtypes
except Exception as e:
    print("skip", (type(e).__name__ + ": " + str(e)).replace("\n", " "))
    sys.exit(0)
x = np.fromfile(sys.argv[1], dtype=np.float32)
min_time, rounds = float(sys.argv[2]), int(sys.argv[3])
print("version", ml_dtypes.__version__, np.__version__)
for label, name in [("e4m3_satfinite", "float8_e4m3fn"), ("e4m3_none", "float8_e4m3fn"),
                    ("e5m2_satfinite", "float8_e5m2"), ("e5m2_none", "float8_e5m2"),
                    ("e2m1", "float4_e2m1fn")]:
    dt = getattr(ml_dtypes, name, None)
    if dt is None:
        print("missing", label, name)
        continue
    x.astype(dt)
    best = 0.0
    for r in range(rounds):
        n, t0 = 0, time.process_time()
        while True:
            x.astype(dt)
            n += 1
            t = time.process_time() - t0
            if t >= min_time:
                break
        best = max(best, n * x.size / t)
    print("rate", label, name, best)
)PY";

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

MlDtypesRates mldtypes_rates(const Settings& s, const std::vector<float>& in) {
  MlDtypesRates res;
  std::string python = s.python;
  if (const char* e = std::getenv("FPCONFORM_PYTHON"); e && *e) python = e;
  // A private directory (mode 0700) holds both files, so no other user can plant a link at
  // either name between their creation and their use.
  char dir_path[] = "/tmp/fpconform-bench-XXXXXX";
  if (!mkdtemp(dir_path)) {
    s.note("ml_dtypes baselines skipped: cannot create a temporary directory");
    return res;
  }
  const std::string data_path = std::string(dir_path) + "/inputs.f32";
  const std::string script_path = std::string(dir_path) + "/baseline.py";
  {
    std::ofstream(data_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(in.data()),
               static_cast<std::streamsize>(in.size() * sizeof(float)));
    std::ofstream(script_path) << kScript;
  }
  const std::string cmd = shell_quote(python) + " " + shell_quote(script_path) + " " +
                          shell_quote(data_path) + " " + std::to_string(s.min_time) + " " +
                          std::to_string(s.rounds) + " 2>&1";
  std::string text;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) text += buf;
    const int st = pclose(p);
    if (st != 0 && text.find("rate ") == std::string::npos)
      text = "skip " + python + " failed (status " + std::to_string(st) + "): " + text;
  }
  unlink(data_path.c_str());
  unlink(script_path.c_str());
  rmdir(dir_path);
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    std::istringstream w(l);
    std::string kind;
    w >> kind;
    if (kind == "rate") {
      std::string label, name;
      double r = 0;
      if (w >> label >> name >> r && r > 0) res.rate[label] = r, res.dtype[label] = name;
    } else if (kind == "version") {
      std::string v, npv;
      w >> v >> npv;
      s.note("ml_dtypes " + v + " (numpy " + npv + ") via " + python + ": astype from fp32, " +
             "CPU time, one cast per type for both saturation modes of ours");
    } else if (kind == "missing") {
      std::string label, name;
      w >> label >> name;
      s.note("f32_to_" + label + " vs ml_dtypes skipped: this ml_dtypes has no " + name);
    } else if (kind == "skip") {
      std::string rest;
      std::getline(w, rest);
      s.note("ml_dtypes baselines skipped: " + (rest.empty() ? std::string("?") : rest.substr(1)));
    }
  }
  if (text.empty()) s.note("ml_dtypes baselines skipped: " + python + " printed nothing");
  return res;
}

}  // namespace fpconform::bench
