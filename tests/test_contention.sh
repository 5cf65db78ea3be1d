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
    grep -q '"memory": null' "$T/$m.json" && ok || bad "$m: no runs[].memory"
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
# a log of the same run (timing alone): the kind cannot be told
"$W" dump "$T/memory.wft" >"$T/memory.log" 2>/dev/null || bad "dump failed"
"$W" analyze --json "$T/memory.log" >"$T/log.json" || bad "analyze of the log failed"
grep -q '"kind": null' "$T/log.json" && grep -q '"synthesis_cpu_by_concurrency": \[\]' "$T/log.json" && ok ||
    bad "a log has a kind or CPU time per unit"
"$W" analyze "$T/memory.log" | grep -q 'slower beside others; its kind .* cannot be told without samples' ||
    grep -q '"contention": false' "$T/log.json" && ok || bad "a contended log does not say the kind needs samples"
finish contention
