#!/bin/sh
# cpu_validate.sh -- the cpu bottleneck against measured runs on this
# machine.  Usage: cpu_validate.sh WATERFALL [CONTENTION_PROG]
#
# The same workload (the synthesis rounds of the first run) with the proofs
# on this CPU (--device cpu) at synthesis concurrency 1, 2 and 4, and the
# emulated device (no CPU in the device) at 2.  What `analyze` must say:
#   cpu 1: synthesis (one synthesis and one proof on two cores: nothing waits)
#   cpu 2: cpu wherever the GPU workers' starvation is 0.2 or more, else gpu
#   cpu 4: cpu
#   emulated 2: gpu
# A measurement: on a machine busy with other work the syntheses wait for a
# core at 1 too, and `analyze` rightly says cpu; run it on a quiet machine
# (`make validate` runs it).  With more than two cores the runs are held to
# two (taskset), the shape of the story.
#
# Then the kinds of contention (docs/cli.md), on contention_prog's three
# pipelines, contended by construction (tests/contention_prog.c):
#   cores    twice as many syntheses as cores: cpu, kind cores
#   memory   CPU work per unit = base x syntheses running: memory
#   waiting  half of each unit asleep under one shared mutex: waiting
#   alloc    48 MiB held by each unit: memory per synthesis within 15%
# and, for memory and waiting, the advice: simulated with the work per unit
# by concurrency as its model (advice.work_by_concurrency), never more
# syntheses than ran, and at or below the concurrency measured fastest
# (the k of synthesis_by_concurrency, 3 units or more, with the most k /
# mean_s).
# Exits 1 when a verdict misses.
W="$1"
CP="$2"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
PIN=
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -gt 2 ]; then
    PIN="taskset -c 0,1"
fi
field() { # file key: the first number after "key":
    sed -n "s/.*\"$2\": \\([0-9.e+-]*\\).*/\\1/p" "$1" | head -1
}
# file: the advice of a memory or waiting run holds (above); says why not
advice_holds() {
    need=$(sed -n 's/.*"advice": {"synthesis_concurrency": \([0-9]*\).*/\1/p' "$1")
    now=$(sed -n 's/.*"advice": {.*"current_concurrency": \([0-9]*\).*/\1/p' "$1")
    fast=$(sed -n 's/.*"synthesis_by_concurrency": \[\([^]]*\)\].*/\1/p' "$1" | tr '}' '\n' |
        sed -n 's/.*"concurrency": \([0-9]*\), "units": \([0-9]*\), "mean_s": \([0-9.e+-]*\).*/\1 \2 \3/p' |
        awk '$2 >= 3 && $3 > 0 && $1 / $3 > r { r = $1 / $3; k = $1 } END { print k + 0 }')
    grep -q '"work_by_concurrency": {' "$1" || { echo "  advice: not simulated with the work per unit by concurrency"; return 1; }
    [ "${need:-99}" -le "${now:-0}" ] && [ "${need:-99}" -le "$fast" ] && {
        echo "  advice: $need syntheses at once (ran $now, fastest measured $fast)"; return 0; }
    echo "  advice: $need syntheses at once, above what ran ($now) or the fastest measured ($fast)"
    return 1
}
verdict() { # file: the run's bottleneck
    sed -n 's/.*"bottleneck": "\([a-z]*\)".*/\1/p' "$1" | head -1
}
$PIN "$W" run --device cpu --jobs 30 --synth-concurrency 1 --out "$T/c1.wft" --truth "$T/c1.json" --quiet || exit 1
R=$(field "$T/c1.json" synth_rounds)
for c in 2 4; do
    $PIN "$W" run --device cpu --jobs 30 --synth-concurrency $c --synth-rounds "$R" --out "$T/c$c.wft" --quiet || exit 1
done
$PIN "$W" run --jobs 30 --synth-concurrency 2 --out "$T/e2.wft" --quiet || exit 1
fail=0
echo "cpu validation: $(nproc) CPUs${PIN:+, the runs held to 2}, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
printf '%-12s %8s %10s %22s %22s %-10s %-10s %s\n' run util "s/job" "synthesis used/wanted" "workers used/wanted" says wants ok
for r in c1 c2 c4 e2; do
    "$W" analyze --json "$T/$r.wft" >"$T/$r.out" 2>/dev/null
    got=$(verdict "$T/$r.out")
    syn=$(sed -n 's/.*"cpu": {"source": "samples", "synthesis": {"used": \([0-9.e-]*\), "wanted": \([0-9.e-]*\).*/\1 \2/p' "$T/$r.out")
    gpu=$(sed -n 's/.*"gpu_workers": {"used": \([0-9.e-]*\), "wanted": \([0-9.e-]*\), "starvation": \([0-9.e-]*\|null\)}.*/\1 \2 \3/p' "$T/$r.out")
    set -- $gpu
    starv=${3:-null}
    case $r in
    c1) want=synthesis ;;
    c2) want=$(awk -v s="$starv" 'BEGIN { print (s != "null" && s + 0 >= 0.2) ? "cpu" : "gpu" }') ;;
    c4) want=cpu ;;
    e2) want=gpu ;;
    esac
    ok=yes
    [ "$got" = "$want" ] || { ok=NO; fail=1; }
    printf '%-12s %8s %10s %22s %22s %-10s %-10s %s\n' "$r" "$(field "$T/$r.out" utilization | awk '{printf "%.1f%%", 100 * $1}')" \
        "$(field "$T/$r.out" s_per_job | awk '{printf "%.1f ms", 1000 * $1}')" "$(echo $syn | awk '{printf "%.2f / %.2f", $1, $2}')" \
        "$(echo $gpu | awk '{printf "%.2f / %.2f", $1, $2}')" "$got" "$want" "$ok"
done
if [ -n "$CP" ]; then
    printf '%-12s %10s %14s %14s %-10s %-10s %s\n' program "s/job" "cpu/unit alone" "beside others" says wants ok
    for m in cores memory waiting; do
        $PIN "$CP" $m "$T/p-$m.wft" || { echo "contention_prog $m failed"; fail=1; continue; }
        "$W" analyze --json "$T/p-$m.wft" >"$T/p-$m.out" 2>/dev/null
        got=$(verdict "$T/p-$m.out")
        kind=$(sed -n 's/.*"kind": "\([a-z]*\)".*/\1/p' "$T/p-$m.out")
        cpu=$(sed -n 's/.*"synthesis_cpu_by_concurrency": \[\([^]]*\)\].*/\1/p' "$T/p-$m.out" | tr '}' '\n' |
            sed -n 's/.*"concurrency": \([0-9]*\), "units": \([0-9]*\), "cpu_s": \([0-9.e+-]*\).*/\1 \3 \2/p' |
            awk '$1 == 1 { a = $2 } $1 >= 2 { b += $2 * $3; n += $3 } END { printf "%.1f %.1f", 1000 * a, n ? 1000 * b / n : 0 }')
        case $m in
        cores) want=cpu ;;
        *) want=$m ;;
        esac
        ok=yes
        [ "$got" = "$want" ] || { ok=NO; fail=1; }
        [ "$m" != cores ] || [ "$kind" = cores ] || { ok=NO; fail=1; }
        adv=
        if [ "$m" != cores ] && [ "$got" = "$m" ]; then
            adv=$(advice_holds "$T/p-$m.out") || { ok=NO; fail=1; }
        fi
        set -- $cpu
        printf '%-12s %10s %14s %14s %-10s %-10s %s\n' "$m" "$(field "$T/p-$m.out" s_per_job | awk '{printf "%.1f ms", 1000 * $1}')" \
            "$1 ms" "$2 ms" "$got${kind:+ ($kind)}" "$want" "$ok"
        [ -z "$adv" ] || echo "$adv"
    done
    $PIN "$CP" alloc "$T/p-alloc.wft" || { echo "contention_prog alloc failed"; fail=1; }
    "$W" analyze --json "$T/p-alloc.wft" >"$T/p-alloc.out" 2>/dev/null
    per=$(sed -n 's/.*"per_synthesis_bytes": \([0-9]*\).*/\1/p' "$T/p-alloc.out")
    ok=yes
    awk -v p="${per:-0}" 'BEGIN { m = 48 * 1048576; exit !(p >= 0.85 * m && p <= 1.15 * m) }' || { ok=NO; fail=1; }
    echo "alloc: memory per synthesis in flight $(awk -v p="${per:-0}" 'BEGIN { printf "%.1f MiB", p / 1048576 }') (48 MiB built, within 15%: $ok)"
fi
[ "$fail" = 0 ] && echo "cpu validation: every verdict as expected" || echo "cpu validation: a verdict missed (a busy machine makes the syntheses wait at 1 too)"
exit $fail
