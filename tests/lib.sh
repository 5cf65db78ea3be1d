# lib.sh -- what the shell tests share: a scratch directory $T (removed on
# exit), ok/bad counters, and finish NAME, which prints the closing line
# "NAME: N passed, N failed" and sets the exit status.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
finish() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}
