#!/bin/sh
# skip_notes.sh CTEST_OUTPUT LAST_TEST_LOG -- after `make test`, why each
# skipped test was skipped.  ctest lists a skipped test by name only ("17 -
# test_html (Skipped)"), and its console shows no output of a test that
# did not fail; the test's note ("test_html: SKIPPED: no chromium ...") is
# in Testing/Temporary/LastTest.log, in the test's Output block: its lines
# that say skipped, or its first line.
out=$1
log=$2
names=$(sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$out" 2>/dev/null)
[ -n "$names" ] || exit 0
echo
echo "Skipped, and why:"
for n in $names; do
    note=$(awk -v n="$n" '
        /^[0-9]+\/[0-9]+ Test: / { mine = ($NF == n); next }
        mine && $0 == "Output:" { getline; inside = 1; next }
        inside && $0 == "<end of output>" { exit }
        inside { if (first == "") first = $0; if (tolower($0) ~ /skip/) { print; shown = 1 } }
        END { if (!shown && first != "") print first }' "$log" 2>/dev/null)
    [ -n "$note" ] || note="(no note in $log)"
    note=${note#"$n: "} # most notes begin with the test's name
    printf '  %s: %s\n' "$n" "$note"
done
