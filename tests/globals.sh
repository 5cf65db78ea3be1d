#!/bin/sh
# globals.sh -- no writable data in src/ outside cmd/main.c: an option is
# passed down in a struct, state lives in a call or a context, so nothing
# of one run is left for the next.  Reads the symbols of the tool's
# objects built without link-time optimization (ARCHIVE: the wf_tool
# library, src/ less cmd/main.c) and rejects every object in a writable
# section (nm's D, d, B, b, C, and G, g, S, s: small data elsewhere).
# Read-only data that the loader relocates (.data.rel.ro: a const array of
# pointers in position-independent code) is read-only once loaded, and
# passes.  Usage: globals.sh ARCHIVE (wf_tool's; or the objects of
# libwaterfall-analysis, the library itself, with the same rule)
AR=$1
. "$(dirname "$0")/lib.sh"
# What must stay, by object and name, each with why:
#   read_text.c bus_jmp: a SIGBUS handler can reach only static state; it
#     is per thread, set and cleared around each read of a mapped range
#   read_text.c once: installs that handler once per process (pthread_once)
#   read_text.c bus_prev: the SIGBUS handler before it, to which a SIGBUS
#     that is not a mapped read's goes (the library may live in a program
#     that has one)
#   scan.c have_avx2: the CPU's AVX2, found once; the same for every
#     thread and every run
#   cmd_watch.c stop_flag: what the SIGINT/SIGTERM handler sets for
#     watch's loop
#   wf_crc.c crc_table, crc_once, crc_hw (lib/common/, in the library):
#     the CRC-32C table, built once per process (pthread_once), and the
#     CPU's CRC instruction: the same for every thread and every run
ALLOWED="read_text.c.o:bus_jmp read_text.c.o:once read_text.c.o:bus_prev scan.c.o:have_avx2 cmd_watch.c.o:stop_flag
wf_crc.c.o:crc_table wf_crc.c.o:crc_once wf_crc.c.o:crc_hw"
allowed() {
    for a in $ALLOWED; do [ "$a" = "$1" ] && return 0; done
    return 1
}
[ -f "$AR" ] || { bad "$AR: no such archive"; finish globals; exit; }
# member|name|class|section, one line per data symbol
nm -f sysv "$AR" >"$T/nm" 2>"$T/err" || bad "nm $AR: $(cat "$T/err")"
awk -F'|' '
    /^Symbols from / { m = $0; sub(/.*\[/, "", m); sub(/\].*/, "", m); next }
    NF >= 7 {
        n = $1; c = $3; s = $7
        gsub(/ /, "", n); gsub(/ /, "", c); gsub(/ /, "", s)
        print m "|" n "|" c "|" s
    }' "$T/nm" >"$T/syms"
# the archive holds the analysis, as real objects (not LTO bytecode)
grep -q '^analyze\.c\.o|analyze_run|T|' "$T/syms" && ok || bad "$AR: no analyze_run in analyze.c.o (not the tool's objects, or LTO)"
grep -q '^main\.c\.o|' "$T/syms" && bad "$AR holds cmd/main.c" || ok
while IFS='|' read -r m n c s; do
    case "$c" in D | d | B | b | C | G | g | S | s) ;; *) continue ;; esac
    case "$s" in .data.rel.ro | .data.rel.ro.*) continue ;; esac
    if allowed "$m:${n%%.[0-9]*}"; then
        ok
    else
        bad "$m: $n ($c, in $s): writable data; pass it down in a struct or keep it in a call"
    fi
done <"$T/syms"
# an entry of the list that is gone is taken off it, not left to excuse
# another (an entry of an object this archive does not hold is not its)
for a in $ALLOWED; do
    grep -q "^${a%%:*}|" "$T/syms" || continue
    if grep -q "^${a%%:*}|${a#*:}\(\.[0-9]*\)\{0,1\}|" "$T/syms"; then ok; else bad "$a is allowed but gone: take it off the list"; fi
done
finish globals
