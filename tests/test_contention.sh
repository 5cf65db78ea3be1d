#!/bin/sh
# test_contention.sh -- the kinds of CPU contention, on programs recorded
# with libwaterfall whose contention is known by construction
# (contention_prog.c).  Which kind `analyze` names depends on the machine's
# load (a busy machine makes every unit wait for a core too), so the exact
# verdicts are `make validate`'s (cpu_validate.sh); here what holds
# regardless: the fields exist and agree, and CPU time per unit by
# concurrency follows the construction (a fixed count of loop iterations
# per unit costs the same CPU time on a busy machine as on a quiet one).
# Usage: test_contention.sh WATERFALL CONTENTION_PROG
W="$1"
P="$2"
. "$(dirname "$0")/lib.sh"

# rows "k cpu_s units" of a JSON array named $2 in file $1
rows() {
    sed -n "s/.*\"$2\": \\[\\([^]]*\\)\\].*/\\1/p" "$1" | tr '}' '\n' |
        sed -n 's/.*"concurrency": \([0-9]*\), "units": \([0-9]*\), "cpu_s": \([0-9.e+-]*\).*/\1 \3 \2/p'
}
# CPU time per unit beside others (k >= 2, weighted) over alone (k = 1)
grows() {
    rows "$1" synthesis_cpu_by_concurrency | awk '$1 == 1 { a = $2 } $1 >= 2 { b += $2 * $3; n += $3 }
        END { if (a > 0 && n > 0) printf "%.3f", b / n / a; else print "none" }'
}

for m in cores memory waiting; do
    "$P" $m "$T/$m.wft" || bad "$m: contention_prog failed"
    "$W" analyze --json "$T/$m.wft" >"$T/$m.json" || bad "$m: analyze failed"
    grep -q '"kind": \("cores"\|"memory"\|"waiting"\|null\)' "$T/$m.json" && ok || bad "$m: no cpu.kind"
    grep -q '"memory": {"source": "samples"' "$T/$m.json" && ok || bad "$m: no runs[].memory"
    grep -q '"source": "samples"' "$T/$m.json" && ok || bad "$m: no CPU samples"
    # a kind only with contention, and the bottleneck names it
    kind=$(sed -n 's/.*"kind": "\([a-z]*\)".*/\1/p' "$T/$m.json")
    bn=$(sed -n 's/.*"bottleneck": "\([a-z_]*\)".*/\1/p' "$T/$m.json")
    if [ -n "$kind" ]; then
        grep -q '"contention": true' "$T/$m.json" && ok || bad "$m: kind $kind without contention"
        case "$kind:$bn" in
        cores:memory | cores:waiting | memory:cpu | memory:waiting | waiting:cpu | waiting:memory)
            bad "$m: kind $kind but bottleneck $bn" ;;
        *) ok ;;
        esac
    fi
    # memory, waiting: never more syntheses than ran, whatever the load;
    # a simulation that had the work per unit by concurrency says so
    case $bn in
    memory | waiting)
        need=$(sed -n 's/.*"advice": {"synthesis_concurrency": \([0-9]*\).*/\1/p' "$T/$m.json")
        now=$(sed -n 's/.*"advice": {.*"current_concurrency": \([0-9]*\).*/\1/p' "$T/$m.json")
        [ "${need:-99}" -le "${now:-0}" ] && ok || bad "$m: advice $need syntheses, more than the $now that ran"
        if grep -q '"work_by_concurrency": {' "$T/$m.json"; then
            "$W" analyze "$T/$m.wft" | grep -q 'SIMULATED with .* by concurrency as its contention model' && ok ||
                bad "$m: the advice does not name its model"
            # simulate uses it too, and says so
            "$W" simulate --from "$T/$m.wft" --sweep synth-concurrency=1:4 >"$T/$m.sim" || bad "$m: simulate failed"
            grep -q '^  work growth   .* by concurrency, measured' "$T/$m.sim" && ok ||
                bad "$m: simulate does not name the work growth: $(cat "$T/$m.sim")"
        fi ;;
    esac
    # units alone and beside others, each with CPU time
    n1=$(rows "$T/$m.json" synthesis_cpu_by_concurrency | awk '$1 == 1 { print $3 }')
    n2=$(rows "$T/$m.json" synthesis_cpu_by_concurrency | awk '$1 >= 2 { n += $3 } END { print n + 0 }')
    [ "${n1:-0}" -ge 3 ] && [ "$n2" -ge 3 ] && ok || bad "$m: units alone ${n1:-0}, beside others $n2: expected 3 or more each"
    g=$(grows "$T/$m.json")
    echo "$m: kind ${kind:-null}, bottleneck $bn, CPU time per unit beside others ${g}x alone"
    # by construction: memory does twice the work per unit beside another,
    # cores and waiting the same work (generous bounds: the interpolation
    # between samples smears the idle time next to a unit into it)
    case $m in
    memory) awk -v g="$g" 'BEGIN { exit !(g != "none" && g >= 1.3 && g <= 2.6) }' && ok || bad "$m: CPU time grows ${g}x, expected about 2" ;;
    *) awk -v g="$g" 'BEGIN { exit !(g != "none" && g >= 0.75 && g <= 1.25) }' && ok || bad "$m: CPU time grows ${g}x, expected about 1" ;;
    esac
done
# memory per synthesis in flight: 48 MiB held by each unit, by
# construction (what is resident does not depend on the load)
"$P" alloc "$T/alloc.wft" || bad "alloc: contention_prog failed"
"$W" analyze --json "$T/alloc.wft" >"$T/alloc.json" || bad "alloc: analyze failed"
per=$(sed -n 's/.*"memory": {"source": "samples", .*"per_synthesis_bytes": \([0-9]*\).*/\1/p' "$T/alloc.json")
echo "alloc: memory per synthesis ${per:-none} bytes (48 MiB built)"
# (under a sanitizer the process's resident memory is its shadow's too,
# and the figure is not the program's: there only its presence is checked)
if [ -n "$WF_SANITIZE" ]; then
    echo "alloc: built with -fsanitize=$WF_SANITIZE: the 15% check is left to the plain build"
    [ -n "$per" ] && ok || bad "alloc: no memory per synthesis"
else
    awk -v p="${per:-0}" 'BEGIN { m = 48 * 1048576; exit !(p >= 0.85 * m && p <= 1.15 * m) }' && ok ||
        bad "alloc: memory per synthesis ${per:-none}, expected 48 MiB within 15%"
fi
grep -q '"peak_bytes": [0-9]*, "base_bytes": [0-9]*' "$T/alloc.json" && ok || bad "alloc: no peak or base"
"$W" analyze "$T/alloc.wft" | grep -q '^  memory .* per synthesis in flight' && ok || bad "alloc: no memory line"
# --memory: room for the base and two syntheses caps three at two; the
# sweep marks 3 and 4 and ranks neither
base=$(sed -n 's/.*"base_bytes": \([0-9]*\).*/\1/p' "$T/alloc.json")
budget=$(awk -v b="${base:-0}" -v p="${per:-1}" 'BEGIN { printf "%.0f", b + 2.5 * p }')
"$W" simulate --from "$T/alloc.wft" --memory "$budget" --json >"$T/simmem.json" || bad "simulate --memory failed"
grep -q '"synth_concurrency": 2,' "$T/simmem.json" && grep -q '"max_concurrency": 2, "asked_concurrency": 3' "$T/simmem.json" &&
    ok || bad "simulate --memory did not cap 3 at 2: $(grep -o '"memory": {[^}]*}' "$T/simmem.json")"
"$W" simulate --from "$T/alloc.wft" --memory "$budget" --sweep synth-concurrency=1:4 >"$T/sweep.txt" || bad "sweep failed"
[ "$(grep -c 'does not fit in memory' "$T/sweep.txt")" = 2 ] && ok || bad "the sweep does not mark 3 and 4: $(cat "$T/sweep.txt")"
grep -q '^ *[34] \*' "$T/sweep.txt" && bad "a point that does not fit ranked best" || ok
"$W" simulate --from "$T/alloc.wft" --memory 1k 2>"$T/err" >/dev/null
[ $? = 2 ] && grep -q 'not even one synthesis fits' "$T/err" && ok || bad "--memory 1k: $(cat "$T/err")"
"$W" simulate --synth-s 1 --gpu-s 1 --memory 1G 2>/dev/null >/dev/null
[ $? = 2 ] && ok || bad "--memory without a trace accepted"

# watch exports resident memory while it follows a native trace being
# recorded with memory samples (python3 scrapes; skipped without it)
if command -v python3 >/dev/null 2>&1; then
    port=$((20000 + $$ % 20000))
    timeout 60 "$W" watch --listen "127.0.0.1:$port" --interval 0.1 --json-lines "$T/live.wft" >/dev/null 2>"$T/watch.err" &
    wpid=$!
    python3 - "$port" >"$T/scrape" <<'PY' &
import sys, time, urllib.request
for _ in range(300):
    try:
        body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=2).read().decode()
        rss = [l for l in body.splitlines() if l.startswith("waterfall_resident_memory_bytes ")]
        if rss and 'waterfall_bottleneck{bottleneck="memory"}' in body and 'bottleneck="waiting"' in body:
            print(rss[0])
            break
    except Exception:
        pass
    time.sleep(0.1)
PY
    spid=$!
    sleep 0.5
    "$P" alloc "$T/live.wft" || bad "alloc (watched): contention_prog failed"
    wait "$spid"
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    val=$(sed -n 's/^waterfall_resident_memory_bytes \([0-9]*\)$/\1/p' "$T/scrape")
    [ "${val:-0}" -gt 0 ] && ok || bad "watch: no waterfall_resident_memory_bytes, or no memory and waiting bottleneck values: $(cat "$T/watch.err")"
fi

# a log of the same run (timing alone): the kind cannot be told
"$W" dump "$T/memory.wft" >"$T/memory.log" 2>/dev/null || bad "dump failed"
"$W" analyze --json "$T/memory.log" >"$T/log.json" || bad "analyze of the log failed"
grep -q '"kind": null' "$T/log.json" && grep -q '"synthesis_cpu_by_concurrency": \[\]' "$T/log.json" &&
    grep -q '"memory": null' "$T/log.json" && ok || bad "a log has a kind, CPU time per unit or memory"
"$W" analyze "$T/memory.log" | grep -q 'slower beside others; its kind .* cannot be told without samples' ||
    grep -q '"contention": false' "$T/log.json" && ok || bad "a contended log does not say the kind needs samples"
finish contention
