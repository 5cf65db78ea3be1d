#!/bin/sh
# test_render.sh -- the views `waterfall render` writes: the SVG is
# well-formed XML with untrusted job ids escaped; the HTML page holds no
# raw </script> or tag from a hostile log; the Chrome trace is valid
# JSON that obeys the rules (process and thread names, complete events
# never overlapping on one track, queue waits as async pairs, idle tracks
# named by cause, microsecond times).  Usage: test_render.sh WATERFALL
W="$1"
. "$(dirname "$0")/lib.sh"

"$W" run --jobs 12 --partitions 2 --synth-concurrency 2 --size 4096 --synth-rounds 2 --out "$T/r.wft" --quiet || bad "run"
cat >"$T/evil.log" <<'EOL'
TIMELINE,0,SYNTH_START,</script><script>alert(1)</script>,
TIMELINE,5,SYNTH_END,</script><script>alert(1)</script>,
TIMELINE,6,GPU_START,</script><script>alert(1)</script>,worker=0
TIMELINE,9,GPU_END,</script><script>alert(1)</script>,worker=0
TIMELINE,1,SYNTH_START,"quote&amp;<img src=x onerror=alert(2)>,
TIMELINE,7,SYNTH_END,"quote&amp;<img src=x onerror=alert(2)>,
TIMELINE,9,GPU_START,"quote&amp;<img src=x onerror=alert(2)>,worker=0
TIMELINE,12,GPU_END,"quote&amp;<img src=x onerror=alert(2)>,worker=0
EOL

for input in "$T/r.wft" "$T/evil.log"; do
    "$W" render "$input" -o "$T/v.svg" && ok || bad "render svg of $input"
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$T/v.svg" && ok || bad "SVG of $input is not well-formed"
    else
        echo "render: xmllint missing (apt-get install libxml2-utils): well-formedness not checked"
    fi
    grep -q '<script' "$T/v.svg" && bad "SVG of $input holds a raw <script" || ok
    grep -q '<img' "$T/v.svg" && bad "SVG of $input holds a raw <img" || ok
    "$W" render "$input" -o "$T/v.json" && ok || bad "render chrome of $input"
done
grep -q '&lt;/script&gt;' "$T/v.svg" && ok || bad "the evil job id is not in the SVG, escaped"

"$W" render "$T/r.wft" -o "$T/c.json" && ok || bad "render chrome"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$T/c.json" <<'PY' && ok || bad "the Chrome trace breaks a rule"
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
procs = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
assert procs, "no process_name"
tracks = {}
for e in ev:
    if e["ph"] == "X":
        assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0
        assert (e["pid"], e["tid"]) in names, "an unnamed track"
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
for k, v in tracks.items():
    v.sort()
    for a, b in zip(v, v[1:]):
        # exact: back-to-back slices share their boundary to the bit in
        # double precision (speedscope's stack breaks on the least overlap)
        assert b[0] >= a[1], "overlap on %s: %r %r" % (names[k], a, b)
kinds = set(n for v in tracks.values() for (_, _, n) in v)
assert {"synthesis", "gpu"} <= kinds, kinds
assert any(n.startswith("GPU 0 worker") for n in names.values())
assert any(n.startswith("synthesis slot") for n in names.values())
assert any("idle" in n for n in names.values())
b = [e for e in ev if e["ph"] == "b"]
e_ = [e for e in ev if e["ph"] == "e"]
# async ids scoped to their run's process (Perfetto merges plain ids)
assert all("id" not in x and "local" in x["id2"] for x in b + e_)
assert len(b) == len(e_) and {x["id2"]["local"] for x in b} == {x["id2"]["local"] for x in e_}
gpu = [d for v in tracks.values() for (s, e2, n) in v if n == "gpu" for d in [e2 - s]]
assert len(gpu) == 24, len(gpu)
assert all(1 < d < 10e6 for d in gpu), "microseconds"
PY
    # a unit that never finished is drawn, named so; a log without worker=
    # names its track without "-1"
    printf 'TIMELINE,0,SYNTH_START,done,\nTIMELINE,5,SYNTH_END,done,\nTIMELINE,6,GPU_START,done,\nTIMELINE,9,GPU_END,done,\nTIMELINE,2,SYNTH_START,failed,\nTIMELINE,7,GPU_START,stuck,\n' >"$T/open.log"
    "$W" render "$T/open.log" -o "$T/open.json" 2>/dev/null
    python3 - "$T/open.json" <<'PY' && ok || bad "the Chrome trace loses an unfinished unit, or names a track worker -1"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = {(e["name"], e["args"]["job"]) for e in ev if e["ph"] == "X" and "args" in e}
assert ("synthesis (unfinished: no SYNTH_END)", "failed") in x, x
assert ("gpu (unfinished: no GPU_END)", "stuck") in x, x
names = [e["args"]["name"] for e in ev if e["ph"] == "M"]
assert not any("-1" in n for n in names), names
PY
else
    echo "render: python3 missing: Chrome trace rules not checked"
fi
# The HTML view: one self-contained page; a hostile log's ids cannot end
# the page's script (the browser side is tests/test_html.sh).
"$W" render "$T/r.wft" -o "$T/x.html" && ok || bad "render html"
"$W" render "$T/evil.log" -o "$T/evil.html" && ok || bad "render html of the hostile log"
for h in "$T/x.html" "$T/evil.html"; do
    [ "$(grep -o -i '</script' "$h" | wc -l)" = 2 ] && ok || bad "$h: a </script beyond the page's own two"
    grep -q -i '<img' "$h" && bad "$h holds a raw <img" || ok
    grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$h" && ok || bad "$h: no CSP forbidding fetches"
    grep -q -i -e 'src=["'"'"']*http' -e 'href=["'"'"']*http' -e '@import' "$h" && bad "$h refers to the network" || ok
done
grep -q 'u003c/script' "$T/evil.html" && ok || bad "the hostile id is not in the page, escaped"
# U+2028 and U+2029 (line separators to old JavaScript) escaped, bytes that
# are not UTF-8 replaced.
printf 'TIMELINE,0,GPU_START,a\342\200\250b\342\200\251c\377,\nTIMELINE,5,GPU_END,a\342\200\250b\342\200\251c\377,\n' >"$T/sep.log"
"$W" render "$T/sep.log" -o "$T/sep.html" && ok || bad "render html of ids with U+2028"
grep -q '"a\\u2028b\\u2029c\\ufffd"' "$T/sep.html" && ok || bad "U+2028/2029 or a bad byte not escaped in the HTML"
LC_ALL=C grep -q "$(printf '\342\200\250')" "$T/sep.html" && bad "a raw U+2028 in the HTML" || ok
"$W" render "$T/r.wft" -f html -o - | head -c 15 | grep -q '<!DOCTYPE html>' && ok || bad "html to stdout"
"$W" render "$T/r.wft" -o "$T/x.txt" 2>/dev/null
[ $? = 2 ] && ok || bad "unknown extension should be a usage error"
"$W" render "$T/r.wft" -f svg -o - | head -c 5 | grep -q '<?xml' && ok || bad "svg to stdout"

finish render
