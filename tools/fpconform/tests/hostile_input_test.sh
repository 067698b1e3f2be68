#!/usr/bin/env bash
# Hostile input, table-driven: every command of the CLI against malformed, truncated, oversized
# (a 10^6-character line), binary (random bytes) and empty inputs, wrong shapes and dtypes, NaN
# payloads and unknown names.
#
# The interface (README, DESIGN): an input the command cannot use ends with a message on stderr
# naming the place (the argument, the file, file:line or line N, the element) and exit status 2;
# 1 is reserved for "checked, and it failed". So for every case here:
#   - the exit status is 2 (never 0 or 1, never a signal: >= 128, never a hang: 60 s);
#   - stderr holds the case's PLACE (a fixed string) and is a message, not a dump (<= 2000 bytes);
#   - stdout holds no result: it is empty, except for the stream commands (dot, eval), which
#     answer line by line: there, exactly the lines before the first bad one have answers
#     (column KEEP; `-` means none).
# A case known to fail is marked KNOWN with the reason; it is reported but does not fail the
# test (and is reported as fixed if it passes).
#
# Usage: hostile_input_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2
command -v python3 >/dev/null || { echo "hostile_input_test: python3 is needed"; exit 2; }

# ---- inputs ---------------------------------------------------------------------------------
python3 - <<'PY'
import os, random, struct
random.seed(9)
def npy(descr, shape, data, fortran=False, version=1, header_len=None):
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape)
    while (10 + len(h) + 1) % 64: h += " "
    h += "\n"
    n = len(h) if header_len is None else header_len
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", n) + h.encode() + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", n) + h.encode() + data
def put(name, data):
    open(name, "wb").write(data if isinstance(data, bytes) else data.encode())
rand = bytes(random.randrange(256) for _ in range(4096))
for name in ("empty.txt", "empty.csv", "empty.npy", "empty.rows"): put(name, b"")
for name in ("rand.bin", "rand.csv", "rand.npy", "rand.txt", "rand.rows"): put(name, rand)
put("huge_line.csv", "1" * 1000000 + "\n")
put("huge_line.txt", "3F80 " + "0" * 1000000 + "\n")
put("huge_hex.txt", "38 " * 333334 + "\n")
# Matrices: A 2x3, B 3x2 (f32 values exact in e4m3), and wrong ones.
put("A.csv", "1,2,0.5\n-1,0.25,4\n")
put("A32.csv", "".join(",".join(str(0.25 * (1 + (i * 7 + j) % 9)) for j in range(32)) + "\n" for i in range(2)))
put("B.csv", "1,0\n0,1\n2,2\n")
put("B23.csv", "1,0,1\n0,1,1\n")
put("C33.csv", "0,0,0\n0,0,0\n0,0,0\n")
put("ragged.csv", "1,2,3\n4,5\n")
put("empty_cell.csv", "1,,3\n4,5,6\n")
put("inexact.csv", "0.1,1,1\n1,1,1\n")
put("words.csv", "1,two,3\n4,5,6\n")
put("nan_payload.csv", "nan(0x123),1,1\n1,1,1\n")
put("bad_payload.csv", "nan(0xzz),1,1\n1,1,1\n")
put("wide_code.csv", "0x1ff,0x38,0x38\n0x38,0x38,0x38\n")
put("comment_only.csv", "# nothing here\n\n")
put("A.npy", npy("<f4", "(2, 3)", struct.pack("<6f", 1, 2, 0.5, -1, 0.25, 4)))
put("trunc.npy", npy("<f4", "(2, 3)", struct.pack("<4f", 1, 2, 3, 4)))
put("extra.npy", npy("<f4", "(2, 3)", struct.pack("<8f", *range(8))))
put("shape1d.npy", npy("<f4", "(6,)", struct.pack("<6f", *range(6))))
put("shape3d.npy", npy("<f4", "(1, 2, 3)", struct.pack("<6f", *range(6))))
put("shape0.npy", npy("<f4", "(0, 3)", b""))
put("int32.npy", npy("<i4", "(2, 3)", struct.pack("<6i", *range(6))))
put("bigendian.npy", npy(">f4", "(2, 3)", struct.pack(">6f", *range(6))))
put("complex.npy", npy("<c8", "(2, 3)", bytes(48)))
put("object.npy", npy("|O", "(2, 3)", bytes(48)))
put("huge_shape.npy", npy("<f4", "(4611686018427387904, 4)", b""))
put("wrap_shape.npy", npy("|u1", "(2305843009213693953, 8)", bytes(8)))
put("header_past_end.npy", npy("<f4", "(2, 3)", b"", header_len=60000))
put("version9.npy", npy("<f4", "(2, 3)", bytes(24), version=9))
put("magic_only.npy", b"\x93NUMPY")
put("nan_f32.npy", npy("<f4", "(2, 3)", struct.pack("<6I", 0x7fc01234, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000)))
put("u8_wide.npy", npy("|u1", "(2, 3)", bytes([0xff] * 6)))
put("f64_1d.npy", npy("<f8", "(64,)", struct.pack("<64d", *([1.0] * 64))))
# TestFloat lines (bf16_add) and dot rows (e4m3 -> f32).
put("tf_ok.txt", "3F80 3F80 4000 00\n")
put("tf_trunc.txt", "3F80 3F80 4000 00\n3F80 3F")
put("tf_fields.txt", "3F80 3F80\n")
put("tf_nonhex.txt", "3F80 3G80 4000 00\n")
put("tf_wide.txt", "3F80 13F80 4000 00\n")
put("tf_flags.txt", "3F80 3F80 4000 FF\n")
put("tf_sep.txt", "3F80,3F80,4000,00\n")
put("tf_nul.txt", "3F80 3F80\x00 4000 00\n")
put("dot_trunc.txt", "38 38 00000000\n38 3")
put("dot_words.txt", "38 38 38 00000000\n")
put("dot_wide.txt", "138 38 00000000\n")
put("dot_nonhex.txt", "38 zz 00000000\n")
put("dot_check_missing.txt", "38 38 00000000\n")
# Recorded rows (fit --rows).
put("rows_ragged.rows", "# in=e4m3 out=f32\n38 40 | 38 | 00000000 | 3f800000\n")
put("rows_noformat.rows", "38 | 38 | 00000000 | 3f800000\n")
os.mkdir("emptydir")
PY
binary_arg=$(head -c 300 rand.bin | tr -d '\000\n' | head -c 200)
long_arg=$(printf '9%.0s' $(seq 1 100000))

# ---- the checker ----------------------------------------------------------------------------
pass=0 fail=0 known=0 fixed=0 total=0
# run_case STATUS NAME PLACE STDIN KEEP -- ARGS...
#   STATUS: ok (must hold) or KNOWN:<reason>; STDIN: a file or - (none); KEEP: - or a count.
run_case() {
  local status=$1 name=$2 place=$3 input=$4 keep=$5
  shift 6
  total=$((total + 1))
  local rc
  if [[ $input == - ]]; then
    timeout 60 "$bin" "$@" </dev/null >out.txt 2>err.txt
  else
    timeout 60 "$bin" "$@" <"$input" >out.txt 2>err.txt
  fi
  rc=$?
  local why=""
  local want_lines=0
  [[ $keep != - ]] && want_lines=$keep
  local out_lines
  out_lines=$(wc -l <out.txt)
  [[ -s out.txt && $(tail -c 1 out.txt | od -An -c | tr -d ' ') != '\n' ]] && out_lines=$((out_lines + 1))
  if ((rc == 124)); then why="timed out (60 s)"
  elif ((rc >= 128)); then why="killed by signal $((rc - 128))"
  elif ((rc != 2)); then why="exit $rc, want 2"
  elif ! grep -qF -- "$place" err.txt; then why="stderr does not name [$place]"
  elif (($(wc -c <err.txt) > 2000)); then why="stderr is $(wc -c <err.txt) bytes, not a message"
  elif ((out_lines != want_lines)); then why="$out_lines line(s) on stdout, want $want_lines"
  fi
  local msg
  msg=$(head -c 300 err.txt | tr '\n' ' ')
  if [[ $status == ok ]]; then
    if [[ -z $why ]]; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAIL $name: $why | stderr: $msg | stdout: $(head -c 200 out.txt | tr '\n' ' ')"; fi
  else
    if [[ -z $why ]]; then fixed=$((fixed + 1)); echo "FIXED (known failure now passes) $name"
    else known=$((known + 1)); echo "KNOWN $name: $why (${status#KNOWN:})"; fi
  fi
}
# c NAME PLACE STDIN -- ARGS: stdout must stay empty.
c() { run_case ok "$1" "$2" "$3" - "${@:4}"; }
# s NAME PLACE STDIN KEEP -- ARGS: a stream command; KEEP lines answered before the bad one.
s() { run_case ok "$1" "$2" "$3" "$4" "${@:5}"; }
# k REASON NAME PLACE STDIN -- ARGS: a known failure.
k() { run_case "KNOWN:$1" "$2" "$3" "$4" - "${@:5}"; }

# A correct D for the validate cases that need one.
"$bin" gemm --model hopper --in e4m3 --out f32 --a A.csv --b B.csv -o D.csv >/dev/null ||
  { echo "hostile_input_test: cannot make D.csv with gemm"; exit 2; }

dot=(dot --model hopper --in e4m3 --out f32)
gemm=(gemm --model hopper --in e4m3 --out f32)
val=(validate --model hopper --in e4m3 --out f32)

# ---- the table ------------------------------------------------------------------------------
# name                         place                  stdin              -- arguments
# no command, unknown command
c top_none                     "subcommand"           -                  --
c top_unknown                  "nosuch"               -                  -- nosuch
c top_binary                   "unknown command"      -                  -- "x$binary_arg"
# formats
c formats_extra                "bogus"                -                  -- formats bogus
c formats_option               "--nosuch"             -                  -- formats --nosuch
# convert
c convert_no_to                "--to"                 -                  -- convert 1
c convert_no_values            "VALUE"                -                  -- convert --to e4m3
c convert_unknown_to           "--to"                 -                  -- convert --to nosuch 1
c convert_unknown_from         "--from"               -                  -- convert --to e4m3 --from nosuch 0x38
c convert_bad_custom           "--to"                 -                  -- convert --to custom:e=16,m=3 1
c convert_malformed            "1.2.3"                -                  -- convert --to e4m3 1.2.3
c convert_empty_value          "value ''"             -                  -- convert --to e4m3 ""
c convert_binary_value         "malformed number"     -                  -- convert --to e4m3 "x$binary_arg"
c convert_long_value           "malformed number"     -                  -- convert --to e4m3 "${long_arg}x"
c convert_nan_bad_payload      "nan(0xzz)"            -                  -- convert --to f32 "nan(0xzz)"
c convert_nan_huge_payload     "nan(0x1ffff"          -                  -- convert --to f32 "nan(0x1ffffffffffffffff)"
c convert_nan_dec_payload      "nan(99999"            -                  -- convert --to f32 "nan(99999999999999999999999)"
c convert_raw_too_wide         "0x1ff"                -                  -- convert --to e4m3 --from e4m3 0x1ff
c convert_raw_no_digits        "0x"                   -                  -- convert --to e4m3 --from e4m3 0x
c convert_unknown_round        "--round"              -                  -- convert --to e4m3 --round nosuch 1
c convert_unknown_sat          "--sat"                -                  -- convert --to e4m3 --sat nosuch 1
c convert_unknown_tininess     "--tininess"           -                  -- convert --to e4m3 --tininess nosuch 1
c convert_unknown_profile      "--profile"            -                  -- convert --to e4m3 --profile nosuch 1
c convert_bad_random           "--random"             -                  -- convert --to e4m3 --round sr-a --random zz 1
c convert_sr_bits_0            "--sr-bits"            -                  -- convert --to e4m3 --round sr-a --sr-bits 0 1
c convert_sr_bits_65           "--sr-bits"            -                  -- convert --to e4m3 --round sr-a --sr-bits 65 1
c convert_sr_bits_text         "--sr-bits"            -                  -- convert --to e4m3 --round sr-a --sr-bits many 1
# gen
c gen_unknown_function         "nosuch_func"          -                  -- gen nosuch_func
c gen_unknown_op               "f16_frobnicate"       -                  -- gen f16_frobnicate
c gen_bad_format               "custom:e=99"          -                  -- gen custom:e=99,m=1_add
c gen_binary_name              "FUNCTION"             -                  -- gen "x$binary_arg"
c gen_long_name                "FUNCTION"             -                  -- gen "${long_arg}_add"
c gen_level                    "--level"              -                  -- gen bf16_add --level 3
c gen_exhaustive_too_big       "--exhaustive"         -                  -- gen f32_add --exhaustive
c gen_unknown_nan              "--nan"                -                  -- gen bf16_add --nan nosuch
c gen_profile_op               "--profile"            -                  -- gen bf16_add --profile nvidia
c gen_count_negative           "-n"                   -                  -- gen bf16_add -n -5
# ver (stdin and --file)
c ver_empty                    "empty input"           empty.txt          -- ver bf16_add
c ver_binary                   "line 1"               rand.bin           -- ver bf16_add
c ver_huge_line                "line 1"               huge_line.txt      -- ver bf16_add
c ver_truncated                "line 2"               tf_trunc.txt       -- ver bf16_add
c ver_fields                   "line 1"               tf_fields.txt      -- ver bf16_add
c ver_nonhex                   "line 1"               tf_nonhex.txt      -- ver bf16_add
c ver_wide_code                "line 1"               tf_wide.txt        -- ver bf16_add
c ver_flags                    "line 1"               tf_flags.txt       -- ver bf16_add
c ver_separators               "line 1"               tf_sep.txt         -- ver bf16_add
c ver_nul                      "line 1"               tf_nul.txt         -- ver bf16_add
c ver_missing_file             "--file"               -                  -- ver bf16_add --file missing.txt
c ver_directory                "emptydir"             -                  -- ver bf16_add --file emptydir
c ver_unknown_function         "nosuch_func"          tf_fields.txt      -- ver nosuch_func
c ver_profile_op               "--profile"            tf_ok.txt          -- ver bf16_add --profile nvidia
# eval (stream, and one-off)
c eval_empty                   "empty input"           empty.txt          -- eval bf16_add
c eval_binary                  "line 1"               rand.bin           -- eval bf16_add
c eval_huge_line               "line 1"               huge_line.txt      -- eval bf16_add
s eval_truncated               "line 2"               tf_trunc.txt  1    -- eval bf16_add
c eval_nonhex                  "line 1"               tf_nonhex.txt      -- eval bf16_add
c eval_missing_file            "--file"               -                  -- eval bf16_add --file missing.txt
c eval_once_missing_operand    "OPERAND"              -                  -- eval add --format bf16 1
c eval_once_extra_operand      "OPERAND"              -                  -- eval add --format bf16 1 2 3
c eval_once_unknown_op         "frobnicate"           -                  -- eval frobnicate --format bf16 1 2
c eval_once_unknown_format     "--format"             -                  -- eval add --format nosuch 1 2
c eval_once_malformed          "1.2.3"                -                  -- eval add --format bf16 1.2.3 1
c eval_once_raw_too_wide       "0x1ffff"              -                  -- eval add --format bf16 0x1ffff 1
c eval_once_nan_payload        "nan(0xzz)"            -                  -- eval add --format bf16 "nan(0xzz)" 1
c eval_once_binary             "operand a"            -                  -- eval add --format bf16 "x$binary_arg" 1
# report
c report_out_unwritable "/dev/null/report"              -                  -- report --out /dev/null/report
c report_threads_text          "--threads"            -                  -- report --threads many
c report_threads_negative      "--threads"            -                  -- report --threads -1
# sweep (resumable conversion sweeps)
c sweep_unknown_from           "--from"               -                  -- sweep --from nosuch --to e4m3
c sweep_wide_source            "--from"               -                  -- sweep --from f64 --to e4m3
c sweep_unknown_mode           "--modes"              -                  -- sweep --from f16 --to e4m3 --modes nosuch
c sweep_inputs_negative        "--inputs"             -                  -- sweep --from f16 --to e4m3 --inputs -3
c sweep_resume_nothing         "--resume"             -                  -- sweep --from f16 --to e4m3 --resume
c sweep_checkpoint_binary      "rand.bin"             -                  -- sweep --from f16 --to e4m3 --checkpoint rand.bin --resume
c sweep_checkpoint_empty       "empty.txt"            -                  -- sweep --from f16 --to e4m3 --checkpoint empty.txt --resume
c sweep_threads_negative       "--threads"            -                  -- sweep --from f16 --to e4m3 --threads -1
# bench
c bench_option                 "--nosuch"             -                  -- bench --nosuch
c bench_threads_negative       "--threads"            -                  -- bench --threads -2
# gpu-analyze (result files of the GPU probes)
c gpu_analyze_none             "results"              -                  -- gpu-analyze
c gpu_analyze_binary           "rand.bin"             -                  -- gpu-analyze rand.bin
c gpu_analyze_empty_file       "empty.txt"            -                  -- gpu-analyze empty.txt
c gpu_analyze_empty_dir        "no .res files"        -                  -- gpu-analyze emptydir
c gpu_analyze_missing          "missing.res"          -                  -- gpu-analyze missing.res
# probe: cuda targets, offline rounds, journals
c probe_cuda_unknown           "--target"             -                  -- probe --target cuda:nosuch
c probe_cuda_results_binary    "rand.bin"             -                  -- probe --target cuda:mma_m16n8k16_f32_f16 --results rand.bin
c probe_journal_binary         "rand.bin"             -                  -- probe --target emu:hopper --in e4m3 --out f32 --checkpoint rand.bin --resume
# models, scale-rules
c models_extra                 "bogus"                -                  -- models bogus
c scale_rules_option           "--nosuch"             -                  -- scale-rules --nosuch
# dot (stdin rows)
c dot_unknown_model            "--model"              dot_words.txt      -- dot --model nosuch --in e4m3 --out f32
c dot_unknown_in               "--in"                 dot_words.txt      -- dot --model hopper --in nosuch --out f32
c dot_unknown_out              "--out"                dot_words.txt      -- dot --model hopper --in e4m3 --out nosuch
c dot_no_preset_for_in         "e2m1"                 dot_words.txt      -- dot --model hopper --in e2m1 --out f32
c dot_custom_unknown_key       "frob"                 dot_words.txt      -- dot --model custom:frob=1 --in e4m3 --out f32
c dot_custom_bad_value         "block"                dot_words.txt      -- dot --model custom:block=x --in e4m3 --out f32
c dot_custom_block_range       "block"                dot_words.txt      -- dot --model custom:block=99999 --in e4m3 --out f32
c dot_custom_base_late         "base"                 dot_words.txt      -- dot --model custom:block=4,base=volta --in f16 --out f32
c dot_custom_binary            "--model"              dot_words.txt      -- dot --model "custom:$binary_arg" --in e4m3 --out f32
c dot_empty                    "empty input"            empty.txt          -- "${dot[@]}"
c dot_binary                   "line 1"               rand.bin           -- "${dot[@]}"
c dot_huge_line                "line 1"               huge_hex.txt       -- "${dot[@]}"
s dot_truncated                "line 2"               dot_trunc.txt 1    -- "${dot[@]}"
c dot_odd_words                "line 1"               dot_words.txt      -- "${dot[@]}"
c dot_code_too_wide            "line 1"               dot_wide.txt       -- "${dot[@]}"
c dot_nonhex                   "line 1"               dot_nonhex.txt     -- "${dot[@]}"
c dot_check_missing_d          "line 1"               dot_check_missing.txt -- "${dot[@]}" --check
# gemm (matrix files)
c gemm_missing_a               "missing.csv"          -                  -- "${gemm[@]}" --a missing.csv --b B.csv -o D.csv
c gemm_empty_a                 "empty.csv"            -                  -- "${gemm[@]}" --a empty.csv --b B.csv -o D.csv
c gemm_comment_only_a          "comment_only.csv"     -                  -- "${gemm[@]}" --a comment_only.csv --b B.csv -o D.csv
c gemm_empty_npy               "empty.npy"            -                  -- "${gemm[@]}" --a empty.npy --b B.csv -o D.csv
c gemm_binary_csv              "rand.csv"             -                  -- "${gemm[@]}" --a rand.csv --b B.csv -o D.csv
c gemm_binary_npy              "rand.npy"             -                  -- "${gemm[@]}" --a rand.npy --b B.csv -o D.csv
c gemm_huge_line               "huge_line.csv"        -                  -- "${gemm[@]}" --a huge_line.csv --b B.csv -o D.csv
c gemm_ragged                  "ragged.csv:2"         -                  -- "${gemm[@]}" --a ragged.csv --b B.csv -o D.csv
c gemm_empty_cell              "empty_cell.csv:1"     -                  -- "${gemm[@]}" --a empty_cell.csv --b B.csv -o D.csv
c gemm_inexact                 "inexact.csv:1:1"      -                  -- "${gemm[@]}" --a inexact.csv --b B.csv -o D.csv
c gemm_word_cell               "words.csv:1:2"        -                  -- "${gemm[@]}" --a words.csv --b B.csv -o D.csv
c gemm_bad_nan_payload         "bad_payload.csv:1:1"  -                  -- "${gemm[@]}" --a bad_payload.csv --b B.csv -o D.csv
c gemm_wide_code               "wide_code.csv:1:1"    -                  -- "${gemm[@]}" --a wide_code.csv --b B.csv -o D.csv
c gemm_k_mismatch              "--b"                  -                  -- "${gemm[@]}" --a A.csv --b B23.csv -o D.csv
c gemm_c_shape                 "--c"                  -                  -- "${gemm[@]}" --a A.csv --b B.csv --c C33.csv -o D.csv
c gemm_npy_truncated           "trunc.npy"            -                  -- "${gemm[@]}" --a trunc.npy --b B.csv -o D.csv
c gemm_npy_extra               "extra.npy"            -                  -- "${gemm[@]}" --a extra.npy --b B.csv -o D.csv
c gemm_npy_1d                  "shape1d.npy"          -                  -- "${gemm[@]}" --a shape1d.npy --b B.csv -o D.csv
c gemm_npy_3d                  "shape3d.npy"          -                  -- "${gemm[@]}" --a shape3d.npy --b B.csv -o D.csv
c gemm_npy_0rows               "shape0.npy"           -                  -- "${gemm[@]}" --a shape0.npy --b B.csv -o D.csv
c gemm_npy_int32               "int32.npy"            -                  -- "${gemm[@]}" --a int32.npy --b B.csv -o D.csv
c gemm_npy_big_endian          "bigendian.npy"        -                  -- "${gemm[@]}" --a bigendian.npy --b B.csv -o D.csv
c gemm_npy_complex             "complex.npy"          -                  -- "${gemm[@]}" --a complex.npy --b B.csv -o D.csv
c gemm_npy_object              "object.npy"           -                  -- "${gemm[@]}" --a object.npy --b B.csv -o D.csv
c gemm_npy_huge_shape          "huge_shape.npy"       -                  -- "${gemm[@]}" --a huge_shape.npy --b B.csv -o D.csv
c gemm_npy_wrapping_shape      "wrap_shape.npy"       -                  -- "${gemm[@]}" --a wrap_shape.npy --b B.csv -o D.csv
c gemm_npy_header_past_end     "header_past_end.npy"  -                  -- "${gemm[@]}" --a header_past_end.npy --b B.csv -o D.csv
c gemm_npy_version             "version9.npy"         -                  -- "${gemm[@]}" --a version9.npy --b B.csv -o D.csv
c gemm_npy_magic_only          "magic_only.npy"       -                  -- "${gemm[@]}" --a magic_only.npy --b B.csv -o D.csv
c gemm_npy_raw_too_wide        "u8_wide.npy"          -                  -- gemm --model custom: --in e2m1 --out f32 --a u8_wide.npy --b B.csv -o D.csv
c gemm_unknown_model           "--model"              -                  -- gemm --model nosuch --in e4m3 --out f32 --a A.csv --b B.csv -o D.csv
c gemm_unknown_in              "--in"                 -                  -- gemm --model hopper --in nosuch --out f32 --a A.csv --b B.csv -o D.csv
c gemm_unwritable_out          "-o"                   -                  -- "${gemm[@]}" --a A.csv --b B.csv -o /dev/null/D.csv
c gemm_out_directory           "emptydir"             -                  -- "${gemm[@]}" --a A.csv --b B.csv -o emptydir
c gemm_reduction               "--reduction"          -                  -- "${gemm[@]}" --a A.csv --b B.csv -o D.csv --split-k 2 --reduction nosuch
c gemm_split_k_zero            "--split-k"            -                  -- "${gemm[@]}" --a A.csv --b B.csv -o D.csv --split-k 0
c gemm_promote_negative        "--promote"            -                  -- "${gemm[@]}" --a A.csv --b B.csv -o D.csv --promote -4
c gemm_scale_missing           "missing.csv"          -                  -- "${gemm[@]}" --a A.csv --b B.csv -o D.csv --promote 1 --scale-a missing.csv
c gemm_block_scale_format      "--block-scale-format" -                  -- "${gemm[@]}" --a A.csv --b B.csv -o D.csv --block-scale-format nosuch
# quantize
c quantize_unknown_block       "--block"              -                  -- quantize --block nosuch -i A.csv -o Q.csv
c quantize_bad_tile            "--block"              -                  -- quantize --block tile:0x0 -i A.csv -o Q.csv
c quantize_bad_tile_text       "--block"              -                  -- quantize --block tile:axb -i A.csv -o Q.csv
c quantize_unknown_rule        "--rule"               -                  -- quantize --block mxfp8 --rule nosuch -i A.csv -o Q.csv
c quantize_unknown_axis        "--axis"               -                  -- quantize --block mxfp8 --axis diagonal -i A.csv -o Q.csv
c quantize_unknown_compare     "--compare"            -                  -- quantize --block mxfp8 -i A32.csv --compare ocp,nosuch
c quantize_missing_input       "missing.csv"          -                  -- quantize --block mxfp8 -i missing.csv -o Q.csv
c quantize_empty_input         "empty.csv"            -                  -- quantize --block mxfp8 -i empty.csv -o Q.csv
c quantize_binary_input        "rand.npy"             -                  -- quantize --block mxfp8 -i rand.npy -o Q.csv
c quantize_words               "words.csv:1:2"        -                  -- quantize --block mxfp8 -i words.csv -o Q.csv
c quantize_npy_1d              "f64_1d.npy"           -                  -- quantize --block mxfp8 -i f64_1d.npy -o Q.csv
c quantize_npy_complex         "complex.npy"          -                  -- quantize --block mxfp8 -i complex.npy -o Q.csv
c quantize_unwritable          "-o"                   -                  -- quantize --block mxfp8 -i A32.csv -o /dev/null/Q.csv
# validate
c validate_missing_d           "missing.csv"          -                  -- "${val[@]}" --a A.csv --b B.csv --d missing.csv
c validate_d_shape             "--d"                  -                  -- "${val[@]}" --a A.csv --b B.csv --d C33.csv
c validate_d_binary            "rand.csv"             -                  -- "${val[@]}" --a A.csv --b B.csv --d rand.csv
c validate_d_empty             "empty.csv"            -                  -- "${val[@]}" --a A.csv --b B.csv --d empty.csv
c validate_k_mismatch          "--b"                  -                  -- "${val[@]}" --a A.csv --b B23.csv --d C33.csv
c validate_nan_operand         "nan_f32.npy"          -                  -- "${val[@]}" --a nan_f32.npy --b B.csv --d C33.csv
c validate_shape_text          "--shape"              -                  -- "${val[@]}" --a rand.bin --b rand.bin --d rand.bin --shape a,b,c
c validate_shape_size          "rand.bin"             -                  -- "${val[@]}" --a rand.bin --b rand.bin --d rand.bin --shape 3,3,3
c validate_element_text        "--element"            -                  -- "${val[@]}" --a A.csv --b B.csv --d B.csv --element x
c validate_unknown_reference   "--reference"          -                  -- "${val[@]}" --a A.csv --b B.csv --d B.csv --reference nosuch
c validate_unknown_rounding    "--rounding"           -                  -- "${val[@]}" --a A.csv --b B.csv --d B.csv --reference exact --rounding nosuch
c validate_nothing_to_check    "--d"                  -                  -- "${val[@]}" --a A.csv --b B.csv
c validate_json_unwritable "--json"               -                  -- "${val[@]}" --a A.csv --b B.csv --d D.csv --json /dev/null/r.json
# probe and fit (new commands; the cases that must hold whatever else they grow)
c probe_unknown_target         "nosuch-target"        -                  -- probe --target nosuch-target
c fit_rows_missing             "missing.rows"             -                  -- fit --rows missing.rows
c fit_rows_empty               "empty.rows"           -                  -- fit --rows empty.rows
c fit_rows_binary              "rand.rows"            -                  -- fit --rows rand.rows
c fit_rows_ragged              "rows_ragged.rows:2"   -                  -- fit --rows rows_ragged.rows
c fit_rows_no_format           "rows_noformat.rows"   -                  -- fit --rows rows_noformat.rows
c fit_rows_empty_dir           "emptydir"             -                  -- fit --rows emptydir
c fit_unknown_in               "--in"                 -                  -- fit --rows rows_noformat.rows --in nosuch --out f32

echo "hostile input: $total cases, $pass passed, $fail failed, $known known failures, $fixed known failures now passing"
((fail == 0))
