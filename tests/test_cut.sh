#!/bin/sh
# test_cut.sh -- a file that changes while it is read, every time, mapped
# (the default) and read with pread() (WATERFALL_MMAP=0): cut_shim.c,
# preloaded, truncates or appends at a chosen moment.
#   - cut within its last page, where a mapping raises no SIGBUS (the bytes
#     past the new end read as zeros), and cut by half (SIGBUS): an error
#     naming the file, exit status 3, never a shorter answer;
#   - a last line still being written when the file is opened (no newline
#     yet; the rest comes while it is read): read whole, as pread() reads on
#     to the line's end;
#   - a line of 4 MiB or more that holds a duration line's tag and no
#     TIMELINE: skipped whole and not counted, mapped or read.
#   test_cut.sh WATERFALL CUT_SHIM
W=$1
SHIM=$2
. "$(dirname "$0")/lib.sh"
# a sanitizer's runtime wants to be first; the shim only wraps libc calls
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
run() { # MMAP FILE: analyze it with the shim, status in $rc
    LD_PRELOAD="$SHIM" WATERFALL_MMAP=$1 "$W" analyze --json --no-progress "$2" >"$T/out" 2>"$T/err"
    rc=$?
}
printf 'TIMELINE,1,SYNTH_START,j1,partition=1\nTIMELINE,2,SYNTH_START,j1,partition=12\nTIMELINE,3,GPU_END,j1,partition=12\n' >"$T/p12.log"
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "TIMELINE,%d,SYNTH_START,job-%d,partition=0\nTIMELINE,%d,SYNTH_END,job-%d,partition=0\n", i, i, i + 1, i }' >"$T/big.log"
for mm in 1 0; do
    case $mm in 1) at=mmap how=mapped ;; *) at=pread how=read ;; esac
    for c in "p12.log -2" "p12.log -60" "big.log -2" "big.log 1000000"; do
        set -- $c
        cp "$T/$1" "$T/cut.log"
        WF_CUT_AT=$at WF_CUT_TO=$2 run $mm "$T/cut.log"
        [ $rc = 3 ] && grep -q "cut.log: read failed: the file shrank while it was being read" "$T/err" && ok ||
            bad "$how, $1 cut to $2 while read: status $rc, $(head -c 300 "$T/err")"
    done
    # the last record still being written: its rest comes while it is read
    cp "$T/big.log" "$T/live.log"
    printf 'TIMELINE,99999,SYNTH_STA' >>"$T/live.log"
    WF_CUT_AT=pread WF_CUT_APPEND='RT,job-live,partition=0
' run $mm "$T/live.log"
    [ $rc = 0 ] && grep -q "\"units\": 40001," "$T/out" && ! grep -q "\"skipped_lines\": [1-9]" "$T/out" && ok ||
        bad "$how: a last line finished while read is not read whole (status $rc): $(grep -o "\"units\": [0-9]*" "$T/out") $(head -c 300 "$T/err")"
done
# a duration line of 4 MiB or more, no TIMELINE in it
python3 -c "import sys; sys.stdout.write('TIMELINE,1,SYNTH_START,j1,partition=0\nCUZK_TIMING: prep_msm_ms=5 ' + 'y' * (4 << 20) + '\nTIMELINE,2,SYNTH_END,j1,partition=0\n')" >"$T/long.log" ||
    bad "python3 failed"
for mm in 1 0; do
    WATERFALL_MMAP=$mm "$W" analyze --json --no-progress "$T/long.log" >"$T/long.$mm" 2>"$T/long.$mm.err"
    rc=$?
    [ $rc = 0 ] && grep -q "\"skipped_lines\": 0," "$T/long.$mm" && ok ||
        bad "WATERFALL_MMAP=$mm: a long duration line counted as a skipped record (status $rc)"
done
cmp -s "$T/long.1" "$T/long.0" && ok || bad "a long duration line: mapped and read differ"
# files smaller than their ranges: a range that ends at byte 0 holds no line
# (it read the byte before the mapping: a crash, a reviewer found)
printf '\n' >"$T/t1.log"
printf 'ab\n' >"$T/t3.log"
printf 'TIMELINE,1,SYNTH_START,a,\n' >"$T/t4.log"
for f in t1 t3 t4; do
    for mm in 1 0; do
        for n in 2 3 8; do
            WATERFALL_MMAP=$mm WATERFALL_READ_THREADS=$n "$W" analyze --json --no-progress "$T/$f.log" >"$T/$f.$mm$n" 2>/dev/null
            rc=$?
            [ $rc -lt 128 ] && { [ $f != t4 ] || { [ $rc = 0 ] && cmp -s "$T/t4.12" "$T/$f.$mm$n"; }; } && ok ||
                bad "$f.log ($(wc -c <"$T/$f.log") bytes) in $n ranges, WATERFALL_MMAP=$mm: status $rc"
        done
    done
done
finish cut
