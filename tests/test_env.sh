#!/bin/sh
# test_env.sh -- WATERFALL_TRACE records an unmodified program; the text
# sink writes the same TIMELINE lines that `waterfall dump` prints.
# Usage: test_env.sh WATERFALL ENV_PROG
W="$1"
P="$2"
. "$(dirname "$0")/lib.sh"

# A monotonic clock makes the sink's and dump's arithmetic identical.
WATERFALL_CLOCK=monotonic WATERFALL_TRACE="$T/run-%p.wft" WATERFALL_TIMELINE="$T/text.log" \
    "$P" 5 || bad "env_prog failed"
set -- "$T"/run-*.wft
[ $# = 1 ] && [ -f "$1" ] && ok || bad "expected one trace run-<pid>.wft, got: $*"
TRACE="$1"
"$W" dump -p 6 "$TRACE" >"$T/dump.p6" || bad "dump failed"
"$W" dump -p 0 "$TRACE" >"$T/dump.log" 2>"$T/dump.err" || bad "dump failed" # the sink's default: whole ms
[ -s "$T/dump.err" ] && bad "dump warned: $(cat "$T/dump.err")" || ok
[ "$(wc -l <"$T/dump.log")" = 15 ] && ok || bad "15 events expected, got $(wc -l <"$T/dump.log")"
cmp -s "$T/dump.log" "$T/text.log" && ok || { bad "text sink differs from dump"; diff "$T/dump.log" "$T/text.log" >&2; }
grep -q '^TIMELINE,[0-9]*,WITNESS_READY,env-3,worker=1,partition=3,device=0$' "$T/text.log" && ok ||
    bad "user event line missing: $(head -3 "$T/text.log")"

# The same with precision: the sink honours no decimals option from the
# environment, dump does; the lines agree once both are cut to ms.
sed 's/^\(TIMELINE,[0-9]*\)\.[0-9]*,/\1,/' "$T/dump.p6" >"$T/dump.cut"
# rounding may differ from truncation by one ms; compare all but the time
cut -d, -f3- "$T/dump.cut" >"$T/a"
cut -d, -f3- "$T/text.log" >"$T/b"
cmp -s "$T/a" "$T/b" && ok || bad "precision 6 lines differ beyond the time field"

# Without the variable: nothing is recorded, nothing is written.
rm -f "$T"/*.wft
(cd "$T" && "$P" 2) && ok || bad "env_prog without recording failed"
set -- "$T"/*.wft
[ -f "$1" ] && bad "a trace appeared without WATERFALL_TRACE" || ok

# An unwritable path: the program still runs, with a message.
WATERFALL_TRACE=/nonexistent-dir/x.wft "$P" 1 2>"$T/err" && ok || bad "program failed with a bad WATERFALL_TRACE"
grep -q 'cannot record to /nonexistent-dir/x.wft' "$T/err" && ok || bad "no message for a bad path"

finish env
