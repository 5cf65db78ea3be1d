#!/bin/sh
# test_cli.sh -- `waterfall dump` as a user meets it: exit statuses, messages
# that name the file, torn traces, garbage.  Usage: test_cli.sh WATERFALL DEMO
W="$1"
DEMO="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_status() { # want cmd...
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"; got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want: $(cat "$T/err")"; fi
}

"$DEMO" "$T/d.wft" 3 || bad "demo_record failed"
expect_status 0 "$W" dump "$T/d.wft"
[ "$(wc -l <"$T/out")" = 18 ] && ok || bad "3 jobs x 6 events: $(wc -l <"$T/out") lines"
grep -qv '^TIMELINE,' "$T/out" && bad "stdout holds non-TIMELINE lines" || ok
[ -s "$T/err" ] && bad "a clean dump wrote to stderr: $(cat "$T/err")" || ok
expect_status 0 "$W" dump -p 3 "$T/d.wft"
grep -q '^TIMELINE,[0-9]*\.[0-9][0-9][0-9],SYNTH_START,job-0,$' "$T/out" && ok || bad "--precision 3"
expect_status 0 "$W" dump --stats "$T/d.wft"
[ -s "$T/out" ] && bad "--stats wrote events to stdout" || ok
for w in 'closed: *yes' 'events: *18' 'lost: *0' 'threads: *2' 'gpu-worker-0' 'clock:'; do
    grep -q "$w" "$T/err" && ok || bad "--stats lacks '$w'"
done
expect_status 0 "$W" dump - <"$T/d.wft"
[ "$(wc -l <"$T/out")" = 18 ] && ok || bad "dump from stdin"

# Torn: cut the file mid-record.  Everything before is read; exit 0, a warning.
size=$(wc -c <"$T/d.wft")
head -c $((size - 45)) "$T/d.wft" >"$T/torn.wft"
expect_status 0 "$W" dump "$T/torn.wft"
grep -q 'torn record at byte' "$T/err" && ok || bad "torn trace: no warning"
grep -q "$T/torn.wft" "$T/err" && ok || bad "torn warning does not name the file"

# Damage in the middle: exit 4, the rest still printed.
cp "$T/d.wft" "$T/bad.wft"
printf 'GARBAGE!GARBAGE!GARBAGE!' | dd of="$T/bad.wft" bs=1 seek=400 conv=notrunc 2>/dev/null
expect_status 4 "$W" dump "$T/bad.wft"
grep -q 'damaged from byte' "$T/err" && ok || bad "damage not reported"

# Not traces.
: >"$T/empty.wft"
expect_status 3 "$W" dump "$T/empty.wft"
grep -q "empty.wft: empty file" "$T/err" && ok || bad "empty file message: $(cat "$T/err")"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$T/x.png"
expect_status 3 "$W" dump "$T/x.png"
grep -q "x.png: not a waterfall trace" "$T/err" && ok || bad "png message: $(cat "$T/err")"
expect_status 3 "$W" dump "$T/missing.wft"
grep -q "missing.wft: cannot open" "$T/err" && ok || bad "missing file message"
expect_status 3 "$W" dump "$T"
head -c 100000 /dev/urandom >"$T/rand.wft"
expect_status 3 "$W" dump "$T/rand.wft"

# Usage.
expect_status 2 "$W"
expect_status 2 "$W" frobnicate
expect_status 2 "$W" dump
expect_status 2 "$W" dump a b
expect_status 2 "$W" dump -p 9 "$T/d.wft"
expect_status 2 "$W" dump --nope "$T/d.wft"
expect_status 0 "$W" dump --help
expect_status 0 "$W" --help

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
