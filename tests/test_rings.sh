#!/bin/sh
# test_rings.sh -- a killed recording's rings file, in the shapes the
# fuzzer found wrong:
#   1. rings of fewer than 256 events: every thread's ring is placed in the
#      rings file (its stride was not a page multiple, so only the first
#      thread's could be mapped), and the marks the writer never wrote are
#      read back, both threads' (seed_rings kills a recording of two);
#   2. a rings file whose ring names a thread index past the reader's bound
#      (fuzz/corpus/rings/regress-thread-index.bin): damage, counted; the
#      trace is read, not refused as "out of memory".
# Usage: test_rings.sh WATERFALL SEED_RINGS SRCDIR
W="$1" S="$2" SRC="$3"
. "$(dirname "$0")/lib.sh"

"$S" "$T" "$T/seed.bin" >/dev/null || bad "seed_rings"
"$W" dump --stats "$T/seed.wft" >"$T/stats" 2>&1
grep -q 'read: 54 events' "$T/stats" && ok || bad "small rings: not 54 events from the rings file: $(grep rings: "$T/stats")"
grep -q "could not be placed" "$T/stats" && bad "small rings: a thread's ring was not placed" || ok
grep -q '^threads: *2' "$T/stats" && ok || bad "small rings: not 2 threads: $(grep threads: "$T/stats")"

# the packed form (a 4-byte length, the trace, the rings file) unpacked
unpack() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = min(struct.unpack("<I", d[:4])[0], len(d) - 4)
open(sys.argv[2], "wb").write(d[4:4 + n])
open(sys.argv[2] + ".rings", "wb").write(d[4 + n:])
PY
}
unpack "$SRC/fuzz/corpus/rings/regress-thread-index.bin" "$T/bad.wft"
"$W" dump --stats "$T/bad.wft" >"$T/bad" 2>&1
rc=$?
grep -q "out of memory" "$T/bad" && bad "a thread index past the bound read as out of memory" || ok
[ $rc -le 4 ] && grep -q '^rings: .*read' "$T/bad" && ok || bad "damaged rings file: exit $rc: $(head -3 "$T/bad")"
unpack "$SRC/fuzz/corpus/rings/killed.bin" "$T/k.wft"
"$W" analyze --json "$T/k.wft" >"$T/k.json" 2>"$T/k.err" && grep -q '"units": 12, "in_flight": 0' "$T/k.json" && ok ||
    bad "the packed seed: $(cat "$T/k.err")"
finish test_rings
