#!/bin/sh
# golden.sh -- every output of the command, byte for byte, on a fixed corpus:
# analyze (text, JSON, CSV), diff, render (SVG, HTML, Chrome) and simulate.
# A change of layout or of shared code must not change a byte; a change of
# output is made on purpose, by regenerating the expected files:
#   sh tests/golden.sh build/waterfall --update     (then review `git diff tests/golden`)
# Usage: golden.sh WATERFALL [--update]
W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
UPDATE="$2"
HERE=$(cd "$(dirname "$0")" && pwd)
G="$HERE/golden"
. "$HERE/lib.sh"
# Where an input does not say how many cores recorded it, the advice's
# simulation takes this machine's: the expected files were made on 2.
if [ "$(getconf _NPROCESSORS_ONLN)" != 2 ] && [ "$UPDATE" != --update ]; then
    echo "golden: skipped: the expected outputs were made on a 2-core machine, this one has $(getconf _NPROCESSORS_ONLN)"
    exit 0
fi
IN="$HERE/../fuzz/corpus"
# The corpus: text logs of both forms, JSON-wrapped lines, sub-phases and
# kinds, and native traces (with and without CPU samples).
inputs="text/cuzk.log text/design.log text/dump.log wft/demo.wft wft/cpu.wft wft/engine.wft"
# The inputs are copied under their own names, and read from where they
# are, so that the names the outputs show do not depend on a path.
mkdir -p "$T/in"
for i in $inputs; do cp "$IN/$i" "$T/in/$(echo "$i" | tr '/' '-')"; done
python3 "$HERE/gen_phases.py" "$T/in/phases.log" 30 7 >/dev/null || bad "gen_phases.py"
rm -f "$T/in/phases.log.plain"
cd "$T/in" || exit 1

# An HTML page is the view (src/render/html/, the same in every page) and
# its data: the expected file keeps the data, readable in a diff, and the
# SHA-256 of the page without it, so that any other byte still counts.
html_digest() {
    python3 -c '
import hashlib, re, sys
page = open(sys.argv[1], "rb").read()
m = re.search(rb"(<script type=\"application/json\" id=\"wf-data\">)(.*?)(</script>)", page, flags=re.S)
data = m.group(2) if m else b""
rest = page[:m.start(2)] + page[m.end(2):] if m else page
sys.stdout.buffer.write(b"page without its data: sha256:" + hashlib.sha256(rest).hexdigest().encode() + b"\n" + data + b"\n")' "$1"
}

one() { # name command...: run it, compare its stdout with the expected file
    name=$1; shift
    COLUMNS=100 NO_COLOR=1 "$@" >"$T/out" 2>/dev/null
    case $name in *.html) html_digest "$T/out" >"$T/out.d" && mv "$T/out.d" "$T/out" ;; esac
    if [ "$UPDATE" = --update ]; then
        mkdir -p "$G"
        cp "$T/out" "$G/$name"
        ok
    elif cmp -s "$T/out" "$G/$name"; then
        ok
    else
        bad "$name differs from tests/golden/$name: $(diff "$G/$name" "$T/out" 2>&1 | head -5)"
    fi
}

for f in *; do
    n=$f
    one "$n.txt" "$W" analyze --no-progress --gaps=5 --chart=8 --color=never --trace-cores=2 "$f"
    one "$n.json" "$W" analyze --json --gaps --trace-cores=2 "$f"
    one "$n.csv" "$W" analyze --csv "$f"
    one "$n.svg" "$W" render "$f" -o -  --format svg
    one "$n.html" "$W" render "$f" -o - --format html
    one "$n.chrome.json" "$W" render "$f" -o - --format chrome
done
one "diff.txt" "$W" diff --color=never wft-demo.wft wft-engine.wft
one "diff.json" "$W" diff --json wft-demo.wft wft-engine.wft
one "simulate.txt" "$W" simulate --from wft-engine.wft --trace-cores 2 --sweep synth-concurrency=1:3
one "simulate.json" "$W" simulate --from wft-engine.wft --trace-cores 2 --json
finish golden
