#!/bin/sh
# test_fleet_rules.sh -- the fleet's Prometheus files (prometheus/,
# docs/fleet.md): the rules pass `promtool check rules` and their unit
# tests (`promtool test rules`: recorded values for three hosts, per host
# and fleet-wide, and when each alert fires and when it does not); the
# example config loads them; the rules read only the metrics a watcher
# serves; every rule and alert docs/fleet.md names exists.  Skipped (exit
# 77, with a note) without promtool.
# Usage: test_fleet_rules.sh [SRCDIR]
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="${1:-$HERE/..}"
P="$SRC/prometheus"
PROMTOOL=${WF_PROMTOOL:-$(command -v promtool || true)}
if [ -z "$PROMTOOL" ]; then
    echo "test_fleet_rules: SKIPPED: no promtool (apt-get install prometheus; or set WF_PROMTOOL)"
    exit 77
fi
. "$HERE/lib.sh"

"$PROMTOOL" check rules "$P/waterfall.rules.yml" >"$T/out" 2>&1 && ok ||
    { bad "promtool check rules"; cat "$T/out" >&2; }
"$PROMTOOL" test rules "$P/waterfall.rules.test.yml" >"$T/out" 2>&1 && ok ||
    { bad "promtool test rules"; cat "$T/out" >&2; }
"$PROMTOOL" check config "$P/prometheus.example.yml" >"$T/out" 2>&1 && ok ||
    { bad "promtool check config"; cat "$T/out" >&2; }

# The metrics a watcher serves (`waterfall watch --listen`): the rules
# read these and nothing else, so a misspelt name cannot pass the unit
# tests by being misspelt in their input too.
served='waterfall_gpu_busy_seconds_total waterfall_gpu_idle_seconds_total
waterfall_gpu_kernel_seconds_total waterfall_units_completed_total
waterfall_stage_seconds_bucket waterfall_stage_seconds_sum
waterfall_stage_seconds_count waterfall_units_in_flight waterfall_bottleneck
waterfall_records_total waterfall_records_skipped_total
waterfall_records_late_total waterfall_log_seconds waterfall_settled_seconds
waterfall_last_record_timestamp_seconds'
served=" $(printf '%s' "$served" | tr '\n' ' ') "
grep -v '^ *#' "$P/waterfall.rules.yml" | grep -o '[a-z_:]*waterfall_[a-z_]*:*' |
    grep -v : | sort -u >"$T/read"
[ -s "$T/read" ] && ok || bad "no metric found in the rules"
while read -r m; do
    case "$served" in
    *" $m "*) ok ;;
    *) bad "the rules read $m, which a watcher does not serve" ;;
    esac
done <"$T/read"

# Every recorded series and alert that docs/fleet.md names is defined.
grep -o '[a-z_]*:waterfall_[a-z_]*:[a-z0-9_]*' "$SRC/docs/fleet.md" | sort -u >"$T/named"
[ -s "$T/named" ] && ok || bad "docs/fleet.md names no recorded series"
grep -o 'Waterfall[A-Za-z]*' "$SRC/docs/fleet.md" | sort -u >>"$T/named"
while read -r n; do
    grep -Eq "^ *- (record|alert): $n\$" "$P/waterfall.rules.yml" && ok ||
        bad "docs/fleet.md names $n, which waterfall.rules.yml does not define"
done <"$T/named"

# Every query in the page's promql block parses: each becomes a rule of a
# scratch rules file that `promtool check rules` reads.
awk '/^```promql/ { q = 1; next } /^```/ { q = 0 } q && !/^#/ && NF' "$SRC/docs/fleet.md" >"$T/queries"
n=$(wc -l <"$T/queries")
[ "$n" -ge 10 ] && ok || bad "docs/fleet.md: $n queries found, 10 or more expected"
{
    echo 'groups:'
    echo '  - name: docs'
    echo '    rules:'
    i=0
    while read -r q; do
        i=$((i + 1))
        echo "      - record: docs_query_$i"
        printf "        expr: '%s'\n" "$(printf '%s' "$q" | sed "s/'/''/g")"
    done <"$T/queries"
} >"$T/queries.yml"
"$PROMTOOL" check rules "$T/queries.yml" >"$T/out" 2>&1 && ok ||
    { bad "a query in docs/fleet.md does not parse"; cat "$T/out" >&2; }

finish fleet_rules
