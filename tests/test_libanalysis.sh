#!/bin/sh
# test_libanalysis.sh -- libwaterfall-analysis as a client meets it: installed
# from this build, found by pkg-config, linked alone (shared, and static),
# its JSON equal byte for byte to `waterfall analyze --json` on text logs
# and native traces, from a file and from memory; its messages the
# command's; and a reader that is not in src/ (a CSV, tests/libanalysis/
# csv_reader.c) getting the whole analysis through the builder.
# Usage: test_libanalysis.sh SRC_DIR BUILD_DIR
SRC=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
HERE="$SRC/tests"
. "$HERE/lib.sh"
W="$B/waterfall"
command -v pkg-config >/dev/null || { echo "libanalysis: skipped: pkg-config is not installed (apt-get install pkg-config)"; exit 77; }
CC=${CC:-cc}
# a sanitizer build's library needs its runtime in the client too
SAN=${WF_SANITIZE:+-fsanitize=$WF_SANITIZE}

cmake --install "$B" --prefix "$T/prefix" >/dev/null || { bad "cmake --install"; finish libanalysis; exit; }
PC="$T/prefix/lib/pkgconfig"
[ -d "$PC" ] || PC=$(dirname "$(find "$T/prefix" -name waterfall-analysis.pc | head -1)")
export PKG_CONFIG_PATH="$PC"
pkg-config --exists waterfall-analysis && ok || bad "pkg-config does not find waterfall-analysis"
LIBDIR=$(pkg-config --variable=libdir waterfall-analysis)
# shared: only what pkg-config says
$CC $SAN -Wall -Werror -o "$T/client" "$HERE/libanalysis/client.c" $(pkg-config --cflags --libs waterfall-analysis) &&
    ok || bad "the client does not build against the shared library"
# static: the archive, and the private libraries pkg-config --static names
$CC $SAN -Wall -Werror -o "$T/client-static" "$HERE/libanalysis/client.c" $(pkg-config --cflags waterfall-analysis) \
    "$LIBDIR/libwaterfall-analysis.a" $(pkg-config --static --libs waterfall-analysis | sed 's/-lwaterfall-analysis//') &&
    ok || bad "the client does not build against the static library"
# the static library's inside is its own: a program with functions of the
# same names builds against it and keeps them (clash.c)
$CC $SAN -Wall -Werror -o "$T/clash" "$HERE/libanalysis/clash.c" $(pkg-config --cflags waterfall-analysis) \
    "$LIBDIR/libwaterfall-analysis.a" $(pkg-config --static --libs waterfall-analysis | sed 's/-lwaterfall-analysis//') &&
    ok || bad "a program with its own model_free, hash_bytes, ... does not build against the static library"
# a program's own SIGBUS handler is kept for every SIGBUS that is not a
# mapped read's (sigbus.c)
$CC $SAN -Wall -Werror -o "$T/sigbus" "$HERE/libanalysis/sigbus.c" $(pkg-config --cflags --libs waterfall-analysis) &&
    ok || bad "the SIGBUS client does not build"
$CC $SAN -Wall -Werror -o "$T/csv_reader" "$HERE/libanalysis/csv_reader.c" $(pkg-config --cflags --libs waterfall-analysis) &&
    ok || bad "the CSV reader does not build"
# the shared client depends on the library, and on nothing of the recorder
ldd "$T/client" 2>/dev/null | grep -q 'libwaterfall-analysis.so.0' && ok || bad "the client is not linked to libwaterfall-analysis.so.0"
ldd "$T/client" 2>/dev/null | grep -q 'libwaterfall\.so' && bad "the client pulls in the recorder" || ok
export LD_LIBRARY_PATH="$LIBDIR"

# The inputs: text logs of both forms, several runs, skipped lines, a gzip
# log, native traces with and without CPU samples.
IN="$SRC/fuzz/corpus"
mkdir -p "$T/in"
for i in text/cuzk.log text/design.log text/dump.log wft/demo.wft wft/cpu.wft wft/engine.wft; do
    cp "$IN/$i" "$T/in/$(echo "$i" | tr '/' '-')"
done
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,x,SYNTH_END,a,\nTIMELINE,5,SYNTH_END,a,\nTIMELINE,6,GPU_START,a,\nTIMELINE,9,GPU_END,a,\n' \
    >"$T/in/skipped.log"
gzip -c "$T/in/text-cuzk.log" >"$T/in/cuzk.log.gz"
# a PyTorch trace (tests/kineto/gen_small.py's), plain and gzip'd
mkdir -p "$T/k" && python3 "$HERE/kineto/gen_small.py" "$T/k" >/dev/null && cp "$T/k/obj.json" "$T/in/kineto.json" &&
    gzip -c "$T/k/arr.json" >"$T/in/kineto-arr.json.gz" || bad "gen_small.py failed"
cd "$T/in" || exit 1
for f in *; do
    "$W" analyze --json --no-progress "$f" >"$T/cmd.json" 2>"$T/cmd.err"
    crc=$?
    for c in client client-static; do
        "$T/$c" "$f" >"$T/lib.json" 2>"$T/lib.err"
        lrc=$?
        [ $lrc = $crc ] && ok || bad "$c $f: status $lrc, the command's $crc"
        cmp -s "$T/cmd.json" "$T/lib.json" && ok || bad "$c $f: the JSON differs from analyze --json's"
        sed 's/^waterfall-analysis: /waterfall analyze: /' "$T/lib.err" | cmp -s - "$T/cmd.err" &&
            ok || bad "$c $f: the messages differ: $(cat "$T/lib.err")"
    done
    "$T/client" --buffer "$f" >"$T/buf.json" 2>/dev/null
    cmp -s "$T/cmd.json" "$T/buf.json" && ok || bad "client --buffer $f: the JSON differs from analyze --json's"
done
grep -q 'waterfall-analysis: exit status 4, the analysis is partial: 1 line skipped' "$T/lib.err" 2>/dev/null ||
    "$T/client" skipped.log 2>&1 >/dev/null | grep -q '1 line skipped' && ok || bad "a partial analysis is not said"
# the options reach the analysis: HTA's threshold, as --consecutive-kernel-delay
"$W" analyze --json --no-progress --consecutive-kernel-delay=1 kineto.json >"$T/kd.cmd.json" 2>/dev/null
"$T/client" --kernel-delay 1 kineto.json >"$T/kd.lib.json" 2>/dev/null
"$T/client" kineto.json >"$T/kd.def.json" 2>/dev/null
cmp -s "$T/kd.cmd.json" "$T/kd.lib.json" && ! cmp -s "$T/kd.lib.json" "$T/kd.def.json" && ok ||
    bad "consecutive_kernel_delay_us: the library's JSON is not analyze --consecutive-kernel-delay=1's"
# ... and the stages of a PyTorch trace's CPU ranges, as --stage; a bad
# rule is refused as the command refuses it (a usage error)
python3 "$HERE/kineto/gen_stage.py" stage.json || bad "gen_stage.py failed"
"$W" analyze --json --no-progress --stage 'synthesis=enumerate(DataLoader)*' --stage prep=aten::to stage.json \
    >"$T/st.cmd.json" 2>/dev/null
"$T/client" --stage 'synthesis=enumerate(DataLoader)*' --stage prep=aten::to stage.json >"$T/st.lib.json" 2>/dev/null
"$T/client" stage.json >"$T/st.def.json" 2>/dev/null
cmp -s "$T/st.cmd.json" "$T/st.lib.json" && ! cmp -s "$T/st.lib.json" "$T/st.def.json" && ok ||
    bad "stages: the library's JSON is not analyze --stage's"
"$T/client" --stage 'gpu=x' stage.json >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "stages\[0\] is STAGE=GLOB" "$T/err" && ok || bad "a bad stage rule: $(cat "$T/err")"
"$T/sigbus" text-cuzk.log >"$T/sigbus.out" 2>&1
printf 'runs 1 own-handler 1\nagain 1\n' | cmp -s - "$T/sigbus.out" && ok ||
    bad "a program's SIGBUS handler after a mapped read: $(cat "$T/sigbus.out")"
"$T/clash" text-cuzk.log >"$T/clash.out" 2>&1
grep -qx 'own 42 runs 1' "$T/clash.out" && ok || bad "the program's own functions, or the analysis beside them: $(cat "$T/clash.out")"
"$T/client" --summary text-cuzk.log >"$T/sum" 2>/dev/null
grep -q '^run 1: units 6 busy 5.523000 s window 6.382000 s utilization 0.8654 bottleneck ' "$T/sum" &&
    ok || bad "the headline figures: $(cat "$T/sum")"
"$T/client" nosuch.log >/dev/null 2>"$T/err"
[ $? = 3 ] && grep -q 'nosuch.log: cannot open' "$T/err" && ok || bad "a missing file: $(cat "$T/err")"

# A reader that is not in src/: the same events as a CSV and as TIMELINE
# lines, line for line (the CSV's header is a line the log does not
# count), two runs.  The JSON must be the same but for the input's name
# and format.
python3 - "$T/ev.csv" "$T/ev.log" <<'PY' || bad "writing the CSV"
import random, sys
random.seed(7)
csv = open(sys.argv[1], "w"); log = open(sys.argv[2], "w")
csv.write("t_ms,job,partition,event,worker,device\n"); log.write("daemon starting\n")
for run in range(2):
    if run:
        csv.write("restart\n"); log.write("daemon restarting\n")
    t = 0.0
    rows = []
    for j in range(12):
        for p in range(2):
            s = t + j * 40 + p * 3
            e = s + random.randint(60, 120)
            g = e + random.randint(1, 30)
            ge = g + random.randint(20, 45)
            job = "job-%d-%d" % (run, j)
            rows += [(s, job, p, "SYNTH_START", "", ""), (e, job, p, "SYNTH_END", "", ""),
                     (e + 1, job, p, "CHAN_SEND", "", ""), (g, job, p, "GPU_PICKUP", p % 2, ""),
                     (g + 1, job, p, "GPU_START", p % 2, 0), (g + 5, job, p, "MSM_START", "", ""),
                     (ge - 2, job, p, "MSM_END", "", ""), (ge, job, p, "GPU_END", p % 2, 0)]
    rows.sort(key=lambda r: r[0])
    for t, job, p, ev, w, d in rows:
        csv.write("%s,%s,%s,%s,%s,%s\n" % (t, job, p, ev, w, d))
        kv = ",".join(x for x in ["partition=%d" % p, "worker=%s" % w if w != "" else "", "gpu=%s" % d if d != "" else ""] if x)
        log.write("TIMELINE,%s,%s,%s,%s\n" % (t, ev, job, kv))
PY
"$T/csv_reader" "$T/ev.csv" >"$T/csv.json" 2>"$T/csv.err" && ok || bad "csv_reader: $(cat "$T/csv.err")"
"$W" analyze --json --no-progress "$T/ev.log" >"$T/log.json" 2>/dev/null
grep -c '"source"' "$T/csv.json" | grep -q '^2$' && ok || bad "the CSV's two runs: $(grep -c '"source"' "$T/csv.json")"
sed 's|"source": "[^"]*ev.csv", \(.*\)"format": "csv"|"source": "X", \1"format": "F"|' "$T/csv.json" >"$T/a"
sed 's|"source": "[^"]*ev.log", \(.*\)"format": "text"|"source": "X", \1"format": "F"|' "$T/log.json" >"$T/b"
cmp -s "$T/a" "$T/b" && ok || { bad "the CSV's analysis differs from the log's:"; diff "$T/a" "$T/b" | head -5 >&2; }
grep -q '"phases": \[{"name": "MSM"' "$T/csv.json" && ok || bad "the CSV's phases (MSM) are not in its analysis"
printf 't_ms,job,partition,event,worker,device\n1,,0,SYNTH_START,,\n' >"$T/bad.csv"
"$T/csv_reader" "$T/bad.csv" >/dev/null 2>"$T/err"
[ $? != 0 ] && grep -q 'bad.csv:2:' "$T/err" && ok || bad "a bad CSV line is not named: $(cat "$T/err")"
finish libanalysis
