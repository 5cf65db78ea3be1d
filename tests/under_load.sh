#!/bin/sh
# tests/under_load.sh [N] -- the default suite (`make test`) while N
# CPU-bound processes (default 2) run beside it, as on a shared machine.
#
# The suite is built first, without the load, so that the load falls on the
# tests.  Each load process is bounded in time by timeout(1) (LOAD_LIMIT
# seconds, default 1800) and is ended by its own pid when the suite ends,
# whatever its outcome.  The exit status is the suite's.
#
#   bash tests/under_load.sh          # 2 CPU-bound processes
#   bash tests/under_load.sh 4        # 4
#   BUILD=build-asan bash tests/under_load.sh   # another build tree
set -u
cd "$(dirname "$0")/.." || exit 2
n=${1:-2}
limit=${LOAD_LIMIT:-1800}
BUILD=${BUILD:-build}
case $n in
'' | *[!0-9]*) echo "under_load.sh: N must be a number of processes, got '$n'" >&2; exit 2 ;;
esac
command -v timeout >/dev/null 2>&1 || { echo "under_load.sh: timeout(1) (coreutils) is needed" >&2; exit 2; }

make --no-print-directory all BUILD="$BUILD" || { echo "under_load.sh: the build failed" >&2; exit 1; }

pids=
stop_load() {
    [ -n "$pids" ] && kill $pids 2>/dev/null
    [ -n "$pids" ] && wait $pids 2>/dev/null
    pids=
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM
i=0
while [ "$i" -lt "$n" ]; do
    timeout "$limit" sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
echo "under_load.sh: $n CPU-bound processes beside the suite (pids$pids, at most $limit s)"
before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)

make --no-print-directory test BUILD="$BUILD"
rc=$?

echo "under_load.sh: load average before the suite $before, after $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
stop_load
if [ "$rc" -ne 0 ]; then
    echo "under_load.sh: the suite failed with $n CPU-bound processes beside it (exit $rc)" >&2
fi
exit "$rc"
