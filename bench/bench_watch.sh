#!/bin/sh
# bench_watch.sh -- `waterfall watch` (docs/live.md):
#   1. catching up: `watch --once` against `analyze --json` on the 1 GiB
#      log of bench_analyze.sh (70% noise), then on a dense one (--noise 0,
#      every line a record): wall time and peak memory, interleaved rounds;
#   2. following: a writer appends 10,000 TIMELINE records/s for 60 s to a
#      file that `watch --json-lines --interval 1` follows: watch's CPU time
#      as a share of one core;
#   3. latency: a log written live (log time = the writer's elapsed time),
#      `watch --listen 127.0.0.1:PORT --interval 0.1`: the time from writing
#      a unit's GPU_END to /metrics counting it, at --slack 2 and 0.
# Figures are measurements on whatever machine runs this (shared, often
# busy), not pass/fail gates: each is printed with the machine and its load
# and the input's shape.  The exit status is 0 unless the bench could not run.
#
# Usage: bench_watch.sh BUILD_DIR
# Environment: WATCH_BENCH_ROUNDS (catching up, default 7),
# WATCH_BENCH_SECONDS (following, default 60), WATCH_BENCH_RATE (records/s,
# default 10000), WATCH_BENCH_SAMPLES (latency samples per slack, default
# 20), WF_BENCH_LOG_BYTES (default 1073741824), TMPDIR.
B=${1:-build}
W="$B/waterfall"
GEN="$B/bench/gen_log"
ROUNDS=${WATCH_BENCH_ROUNDS:-7}
SECS=${WATCH_BENCH_SECONDS:-60}
RATE=${WATCH_BENCH_RATE:-10000}
SAMPLES=${WATCH_BENCH_SAMPLES:-20}
SIZE=${WF_BENCH_LOG_BYTES:-1073741824}
DIR=${TMPDIR:-/tmp}
SHARED="$DIR/waterfall-bench-v2-$SIZE.log" # bench_analyze.sh's: reused, left in place

echo
if [ ! -x /usr/bin/time ] || ! command -v python3 >/dev/null 2>&1; then
    echo "watch bench: skipped: needs GNU time (/usr/bin/time) and python3"
    exit 0
fi
T=$(mktemp -d "$DIR/wf-bench-watch.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP
# Copies of the programs: BUILD_DIR may be rebuilt while this runs.
cp "$W" "$T/waterfall" && cp "$GEN" "$T/gen_log" || exit 1
W="$T/waterfall"
GEN="$T/gen_log"
if ! "$W" watch --help >/dev/null 2>&1; then
    echo "watch bench: $B/waterfall does not run (being rebuilt? run it again)"
    exit 1
fi
echo "watch bench: $B/waterfall of $(date -r "$B/waterfall" '+%Y-%m-%d %H:%M'), tree at $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"

machine() {
    printf "machine: %s cores, %s, load average %s" "$(nproc)" \
        "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
        "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# One timed command: prints "wall_s maxrss_kb cpu_s" (user+sys; -1 when it
# failed).
timed() {
    if /usr/bin/time -f "%e %M %U %S" -o "$T/time" "$@" >/dev/null 2>&1; then
        awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$T/time"
    else
        echo "-1 0 -1"
    fi
}

# The median of column $1 of file $2.
median() {
    sort -g -k"$1" "$2" | awk -v c="$1" '{a[NR]=$c} END{print a[int((NR+1)/2)]}'
}

# ---- 1. catching up ----
catch_up() { # LOG LABEL
    log=$1
    cat "$log" >/dev/null # warm the page cache
    "$W" watch --once "$log" >"$T/once.json" 2>/dev/null
    rec=$(sed -n 's/.*"records":\([0-9]*\).*/\1/p' "$T/once.json")
    wu=$(sed -n 's/.*"units_completed":\([0-9]*\).*/\1/p' "$T/once.json")
    # analyze's units completed: those that reached GPU_END (the gpu stage's count)
    au=$("$W" analyze --json --no-progress "$log" | python3 -c '
import json, sys
print(sum(r["stages"]["gpu"]["count"] for r in json.load(sys.stdin)["runs"]))')
    bytes=$(wc -c <"$log")
    lines=$(wc -l <"$log")
    echo
    echo "watch bench, catching up: $2"
    echo "  $(machine)"
    echo "  input: $bytes bytes, $lines lines, $rec TIMELINE records, $wu units completed (analyze: $au)"
    echo "  $ROUNDS rounds, the two commands interleaved (the first of them alternating), page cache warm"
    echo "  wall time, its ratio, and CPU time (user+sys: analyze reads and analyses on two threads)"
    printf "  %-5s %10s %12s %7s %12s %14s\n" round "watch (s)" "analyze (s)" ratio "watch CPU s" "analyze CPU s"
    : >"$T/rounds"
    i=1
    while [ $i -le "$ROUNDS" ]; do
        if [ $((i % 2)) = 1 ]; then
            set -- $(timed "$W" watch --once "$log") $(timed "$W" analyze --json --no-progress "$log")
        else
            set -- $(timed "$W" analyze --json --no-progress "$log")
            set -- $(timed "$W" watch --once "$log") "$1" "$2" "$3"
        fi
        # $1 $2 $3: watch's wall, RSS, CPU; $4 $5 $6: analyze's
        r=$(echo "$1 $4" | awk '{printf "%.2f", ($2 > 0 && $1 > 0) ? $1 / $2 : -1}')
        echo "$1 $4 $r $2 $5 $3 $6" >>"$T/rounds"
        printf "  %-5s %10s %12s %7s %12s %14s\n" "$i" "$1" "$4" "$r" "$3" "$6"
        i=$((i + 1))
    done
    mw=$(median 1 "$T/rounds")
    ma=$(median 2 "$T/rounds")
    mr=$(median 3 "$T/rounds")
    pw=$(sort -n -k4 "$T/rounds" | tail -1 | cut -d' ' -f4)
    pa=$(sort -n -k5 "$T/rounds" | tail -1 | cut -d' ' -f5)
    echo "  median wall time: watch --once $mw s, analyze --json $ma s;" \
        "median CPU time: watch $(median 6 "$T/rounds") s, analyze $(median 7 "$T/rounds") s"
    echo "  watch / analyze (median of the rounds' ratios) = $mr   (goal <= 1.0)"
    echo "  peak RSS (largest of the rounds): watch $((pw / 1024)) MiB, analyze $((pa / 1024)) MiB"
    [ "$wu" = "$au" ] || echo "  NOTE: watch --once counted $wu units, analyze $au"
}

if [ -s "$SHARED" ] && [ "$(wc -c <"$SHARED")" -ge "$SIZE" ]; then
    SPARSE=$SHARED
else
    SPARSE="$T/sparse.log"
    echo "generating $SPARSE ($SIZE bytes, 70% noise)..."
    "$GEN" --bytes "$SIZE" --noise 0.7 >"$SPARSE" || exit 1
fi
catch_up "$SPARSE" "gen_log --bytes $SIZE (70% of the bytes noise: bench_analyze.sh's log)"
[ "$SPARSE" = "$SHARED" ] || rm -f "$SPARSE"
echo "generating $T/dense.log ($SIZE bytes, no noise)..."
"$GEN" --bytes "$SIZE" --noise 0 >"$T/dense.log" || exit 1
catch_up "$T/dense.log" "gen_log --bytes $SIZE --noise 0 (every line a record)"
rm -f "$T/dense.log"

# ---- 2. following, 3. latency: a writer and pollers in Python ----
cat >"$T/live.py" <<'EOF'
import os, re, signal, socket, statistics, subprocess, sys, threading, time, urllib.request

# A unit is six records; step s writes the last event of unit s-5 first and
# the first event of unit s last, so units overlap in the pipeline
# (one synthesis and one GPU phase at a time) and the log is in time order.
EVENTS = ("SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END")


def step_text(s, ms):
    out = []
    for k in range(5, -1, -1):
        u = s - k
        if u >= 0:
            out.append("TIMELINE,%d,%s,%08d-0000-4000-8000-000000000000,partition=%d\n"
                       % (ms, EVENTS[k], u // 10, u % 10))
    return "".join(out).encode(), len(out)


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def hwm_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def on_term(sig, frame):
    raise SystemExit(1)


def follow(W, log, seconds, rate):
    open(log, "w").close()
    out = open(log + ".jsonl", "w")
    p = subprocess.Popen([W, "watch", "--json-lines", "--interval", "1", log],
                         stdout=out, stderr=subprocess.DEVNULL)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        time.sleep(0.5)
        if p.poll() is not None:
            print("  watch exited at once (status %d)" % p.returncode)
            return 1
        c0, t0 = cpu_s(p.pid), time.monotonic()
        w0 = os.times()
        start = time.monotonic()
        s = records = writes = 0
        behind = 0.0  # how far the writer fell behind its schedule, at worst (s)
        while True:
            el = time.monotonic() - start
            if el >= seconds:
                break
            target = int(el * rate)
            if target - records > 0:
                behind = max(behind, (target - records) / rate)
            ms = int(el * 1000)
            buf = []
            while records < target:
                text, n = step_text(s, ms)
                buf.append(text)
                records += n
                s += 1
            if buf:
                os.write(fd, b"".join(buf))
                writes += 1
            time.sleep(0.005)
        elapsed = time.monotonic() - start
        w1 = os.times()
        time.sleep(1.0)  # watch's interval: it reads the last lines
        c1, t1 = cpu_s(p.pid), time.monotonic()
        hwm = hwm_kb(p.pid)
        stop(p)
        out.close()
        last = open(log + ".jsonl").read().strip().splitlines()[-1:] or [""]
        m = re.search(r'"records":(\d+)', last[0])
        u = re.search(r'"units_completed":(\d+)', last[0])
        wcpu = (w1.user + w1.system) - (w0.user + w0.system)
        print("  writer: %d records (%d units) in %.2f s = %.0f records/s (asked %d/s)"
              % (records, max(0, s - 5), elapsed, records / elapsed, rate))
        print("    in %d writes (%.0f a second: it sleeps 5 ms between them); at worst %.0f ms behind"
              " its schedule; its own CPU %.0f%% of a core"
              % (writes, writes / elapsed, behind * 1000, 100 * wcpu / elapsed))
        print("  watch read %s records, %s units completed (its last JSON line)"
              % (m.group(1) if m else "?", u.group(1) if u else "?"))
        print("  watch's CPU (user+sys, /proc/PID/stat) over %.1f s of wall time "
              "(the writing, and 1 s after): %.2f s = %.1f%% of one core   (goal < 5%%)"
              % (t1 - t0, c1 - c0, 100 * (c1 - c0) / (t1 - t0)))
        print("  watch's peak RSS: %d MiB" % (hwm // 1024))
        return 0
    finally:
        os.close(fd)
        stop(p)


def scrape(url):
    with urllib.request.urlopen(url, timeout=2) as r:
        body = r.read().decode()
    def val(name):
        m = re.search(r"^%s (\S+)$" % name, body, re.M)
        return float(m.group(1)) if m else None
    return val


def latency(W, log, slack, samples):
    hz = 100  # steps a second: 600 records/s, log time = the writer's clock
    open(log, "w").close()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    args = [W, "watch", "--listen", "127.0.0.1:%d" % port, "--interval", "0.1"]
    if slack is not None:
        args += ["--slack", slack]
    p = subprocess.Popen(args + [log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d/metrics" % port
    halt = threading.Event()
    written = {}  # unit -> time its GPU_END was written (monotonic)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)

    def writer():
        start = time.monotonic()
        s = 0
        while not halt.is_set():
            text, _ = step_text(s, int((time.monotonic() - start) * 1000))
            os.write(fd, text)
            if s >= 5:
                written[s - 5] = time.monotonic()
            s += 1
            delay = start + s / hz - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    th = threading.Thread(target=writer, daemon=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                scrape(url)
                break
            except OSError:
                if p.poll() is not None or time.monotonic() > deadline:
                    print("  watch --listen did not answer (status %s)" % p.poll())
                    return 1
                time.sleep(0.05)
        th.start()
        warm, stride = 3 * hz, hz // 2  # a sample every 0.5 s after 3 s
        pending = [warm + k * stride for k in range(samples)]
        lat = []
        deadline = time.monotonic() + 3 + samples * 0.5 + 30
        late = None
        while pending and time.monotonic() < deadline:
            val = scrape(url)
            t = time.monotonic()
            done = val("waterfall_units_completed_total") or 0
            late = val("waterfall_records_late_total")
            while pending and done >= pending[0] + 1 and pending[0] in written:
                lat.append(t - written[pending.pop(0)])
            time.sleep(0.005)
        halt.set()
        th.join(5)
        if not lat:
            print("  no sample counted in time")
            return 1
        print("  --slack %-7s %2d samples: median %6.3f s, max %6.3f s, min %6.3f s   (late records: %s)"
              % ("2 (def)" if slack is None else slack, len(lat), statistics.median(lat),
                 max(lat), min(lat), "?" if late is None else "%d" % late))
        return 0
    finally:
        halt.set()
        os.close(fd)
        stop(p)


signal.signal(signal.SIGTERM, on_term)
mode, W, log = sys.argv[1:4]
if mode == "follow":
    sys.exit(follow(W, log, float(sys.argv[4]), int(sys.argv[5])))
sys.exit(latency(W, log, None if sys.argv[4] == "default" else sys.argv[4], int(sys.argv[5])))
EOF

echo
echo "watch bench, following: a writer appends TIMELINE records at $RATE/s for $SECS s,"
echo "  watch --json-lines --interval 1 follows the file from its start"
echo "  input: TIMELINE,<ms>,<EVENT>,<job>,partition=<p>, six events a unit in time order, no noise"
echo "  $(machine)"
timeout --foreground -k 10 $((SECS + 60)) python3 "$T/live.py" follow "$W" "$T/follow.log" "$SECS" "$RATE" ||
    echo "  following: failed or timed out"
echo "  (after: load average $(cut -d' ' -f1-3 /proc/loadavg))"
rm -f "$T/follow.log" "$T/follow.log.jsonl"

echo
echo "watch bench, latency: a log written live (100 units/s, 600 records/s, each stamped with the"
echo "  writer's elapsed time, so log time tracks wall time); watch --listen 127.0.0.1:PORT --interval 0.1"
echo "  [--slack S]; from writing a unit's GPU_END to waterfall_units_completed_total counting it"
echo "  (/metrics polled every 5 ms), one sample every 0.5 s after 3 s; --quiet default (5 s)"
echo "  $(machine)"
for s in default 0; do
    timeout --foreground -k 10 $((SAMPLES + 60)) python3 "$T/live.py" latency "$W" "$T/lat.log" "$s" "$SAMPLES" ||
        echo "  latency at --slack $s: failed or timed out"
    rm -f "$T/lat.log"
done
echo "  By design (docs/live.md) a unit is counted once its GPU_END is behind the settled horizon,"
echo "  which trails the latest record read by the slack; so the latency is about the slack plus"
echo "  up to one --interval (when /metrics is refreshed), plus a step of the writer (the next unit"
echo "  must end on the device). --slack 0 trades that wait for the risk of late records."
exit 0
