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
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"], e.get("cat")))
for k, v in tracks.items():
    # the units' own slices never overlap on a track; exact: back-to-back
    # slices share their boundary to the bit in double precision
    # (speedscope's stack breaks on the least overlap)
    top = sorted(x for x in v if x[3] != "phase")
    for a, b in zip(top, top[1:]):
        assert b[0] >= a[1], "overlap on %s: %r %r" % (names[k], a, b)
    # with the phases nested in them: every pair nests or is disjoint
    stack = []
    for x in sorted(v, key=lambda x: (x[0], -x[1], x[3] == "phase")):
        while stack and stack[-1][1] <= x[0] and not (x[0] == x[1] == stack[-1][1]):
            stack.pop()
        assert not stack or x[1] <= stack[-1][1], "not nested on %s: %r in %r" % (names[k], x, stack[-1])
        assert x[3] != "phase" or stack, "a phase outside any slice on %s: %r" % (names[k], x)
        stack.append(x)
kinds = set(n for v in tracks.values() for (_, _, n, _) in v)
assert {"synthesis", "gpu"} <= kinds, kinds
assert any(n.startswith("GPU 0 worker") for n in names.values())
assert any(n.startswith("synthesis slot") for n in names.values())
assert any("idle" in n for n in names.values())
b = [e for e in ev if e["ph"] == "b"]
e_ = [e for e in ev if e["ph"] == "e"]
# async ids scoped to their run's process (Perfetto merges plain ids)
assert all("id" not in x and "local" in x["id2"] for x in b + e_)
assert len(b) == len(e_) and {x["id2"]["local"] for x in b} == {x["id2"]["local"] for x in e_}
gpu = [d for v in tracks.values() for (s, e2, n, _) in v if n == "gpu" for d in [e2 - s]]
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

# Phases, kernels, marks, kinds and GPU_QUEUE in the three views.  Two
# workers share device 0 and their kernels are serialized (a's KERNEL
# 20-60 ms, b's 60-100, while both GPU phases run); c's LOAD overlaps its
# KERNEL without holding it; a has a LOAD in its synthesis and a mark in
# its GPU phase, b a mark after its GPU_END; a and c wrote GPU_QUEUE, b
# CHAN_SEND.  The device's kernels: [20, 100] and [110, 120] ms, 90 ms of
# its 115 ms window (the analysis' kernel_busy).
cp "$(dirname "$0")/data/kern.log" "$T/kern.log"
if command -v python3 >/dev/null 2>&1; then
    "$W" render "$T/kern.log" -o "$T/kern.json" && "$W" render "$T/kern.log" -o "$T/kern.svg" &&
        "$W" render "$T/kern.log" -o "$T/kern.html" && "$W" analyze --json "$T/kern.log" >"$T/kern.a.json" &&
        ok || bad "render the kernel log"
    # the Chrome trace: phases nested in their unit's slice on its track
    python3 - "$T/kern.json" <<'PY' && ok || bad "the Chrome trace's phases, marks, kinds or GPU_QUEUE (above)"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
X = [e for e in ev if e["ph"] == "X"]
ph = [e for e in X if e.get("cat") == "phase"]
def parent(c):
    # the unit's own slice holding it, on the same process and track
    for p in X:
        if (p is not c and p.get("cat") != "phase" and p["pid"] == c["pid"] and p["tid"] == c["tid"] and
                p.get("args", {}).get("job") == c["args"]["job"] and p["ts"] <= c["ts"] and
                c["ts"] + c["dur"] <= p["ts"] + p["dur"]):
            return p["name"]
got = sorted((c["args"]["job"], c["name"], parent(c)) for c in ph)
want = sorted([("a", "LOAD", "synthesis"), ("a", "HOST_MSM", "gpu"), ("a", "KERNEL", "gpu"),
               ("b", "HOST_MSM", "gpu"), ("b", "KERNEL", "gpu"), ("c", "KERNEL", "gpu")])
assert got == want, got
k = {c["args"]["job"]: (c["ts"], c["dur"]) for c in ph if c["name"] == "KERNEL"}
assert k == {"a": (20000, 40000), "b": (60000, 40000), "c": (110000, 10000)}, k  # us from the run's start
# c's LOAD cannot nest (it overlaps c's KERNEL): an async slice on c's track
ab = [e for e in ev if e["ph"] in "be" and e.get("cat") == "phase"]
assert [(e["ph"], e["name"], e["ts"]) for e in ab] == [("b", "LOAD", 115000), ("e", "LOAD", 125000)], ab
kt = [c["tid"] for c in ph if c["args"]["job"] == "c" and c["name"] == "KERNEL"]
assert ab[0]["tid"] == kt[0] and ab[0]["id2"]["local"] == ab[1]["id2"]["local"], ab
marks = {e["name"]: e for e in ev if e["ph"] == "i"}
assert set(marks) == {"GPU_FINALIZE", "PROOF_SENT"}, marks
assert marks["GPU_FINALIZE"]["s"] == "t" and marks["GPU_FINALIZE"]["ts"] == 70000
assert [e["tid"] for e in X if e["name"] == "gpu" and e["args"]["job"] == "a"] == [marks["GPU_FINALIZE"]["tid"]]
assert marks["PROOF_SENT"]["s"] == "p", marks  # after b's last slice: on the process
kinds = {e["args"]["job"]: e["args"].get("kind") for e in X if "args" in e}
assert kinds == {"a": "porep-c2", "b": "winning-post", "c": None}, kinds
q = {e["args"]["job"]: e["args"]["from"] for e in ev if e["ph"] == "b" and e.get("cat") == "queue"}
assert q == {"a": "GPU_QUEUE", "b": "CHAN_SEND", "c": "GPU_QUEUE"}, q
PY
    # the SVG: sub-phases inside their GPU bars, a kernel lane of the
    # analysis' kernel time, tooltips with kind, GPU_QUEUE, phases, marks
    python3 - "$T/kern.svg" "$T/kern.a.json" <<'PY' && ok || bad "the SVG's sub-phases, kernel lane or tooltips (above)"
import json, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
an = json.load(open(sys.argv[2]))["runs"][0]
f = lambda r, k: float(r.get(k))
lanes = root.findall(NS + "g[@class='kernel-lane']")
assert [g.get("data-device") for g in lanes] == ["0"], lanes
kr = [r for r in lanes[0].findall(NS + "rect") if r.get("fill") == "#D55E00"]
assert len([r for r in kr if "fill-opacity" not in r.attrib]) == 2, len(kr)  # [20, 100] and [110, 120] ms
# the plot is 1030 px for the run's 130 ms: the kernels' 90 ms (a pixel
# column partly covered, shaded by how much)
width = sum(f(r, "width") * float(r.get("fill-opacity", 1)) for r in kr)
assert abs(width - an["devices"][0]["kernel_busy_s"] / 0.130 * 1030) < 0.2, width
gpu = [r for r in root.iter(NS + "rect") if r.get("fill") == "#009E73" and f(r, "height") == 5]
subs = [r for g in root.iter(NS + "g") if g.get("class") == "subphases" for r in g.findall(NS + "rect")]
assert len(subs) == 6, len(subs)  # a: HOST_MSM, KERNEL; b: HOST_MSM, KERNEL; c: KERNEL, LOAD
for s in subs:
    x0, x1, y0, y1 = f(s, "x"), f(s, "x") + f(s, "width"), f(s, "y"), f(s, "y") + f(s, "height")
    assert any(f(g, "x") - 0.15 <= x0 and x1 <= f(g, "x") + f(g, "width") + 0.15 and f(g, "y") <= y0 and
               y1 <= f(g, "y") + 5 for g in gpu), "a sub-phase outside its GPU bar: %r" % (s.attrib,)
assert {s.get("fill") for s in subs} == {"#D55E00", "#332288", "#882255"}  # KERNEL; HOST_MSM, LOAD by name
titles = {t.text.split()[0]: t.text for t in root.iter(NS + "title")}
a, b, c = titles["a"], titles["b"], titles["c"]
assert "kind porep-c2" in a and "GPU_QUEUE 11 ms" in a and "CHAN_SEND" not in a, a
assert "HOST_MSM 5.0 ms" in a and "KERNEL 40.0 ms" in a and "LOAD 6.0 ms (in synthesis)" in a, a
assert "GPU_FINALIZE at 70 ms" in a, a
assert "kind winning-post" in b and "CHAN_SEND 13 ms" in b and "GPU_QUEUE" not in b and "PROOF_SENT at 140 ms" in b, b
assert "kind" not in c and "GPU_QUEUE 31 ms" in c, c
text = "".join(root.itertext())
assert "kernel utilization 78.3%" in text and "kernels (78.3%)" in text and "KERNEL (kernel)" in text, text
PY
    # the HTML's data: what the analysis found, compact
    python3 - "$T/kern.html" "$T/kern.a.json" <<'PY' && ok || bad "the HTML's phases, kernels, kinds or GPU_QUEUE (above)"
import base64, json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="wf-data">(.*?)</script>', page, re.S).group(1))
an = json.load(open(sys.argv[2]))["runs"][0]
def col(c):
    raw = base64.b64decode(c["d"])
    if c["w"] == 0:
        return [c["o"]] * c["n"]
    return [int.from_bytes(raw[i * c["w"]:(i + 1) * c["w"]], "little") + c["o"] for i in range(c["n"])]
r = d["runs"][0]
names = d["names"]
assert sorted(names) == ["GPU_FINALIZE", "HOST_MSM", "KERNEL", "LOAD", "PROOF_SENT"], names
assert [names[i] for i in d["kernels"]] == ["KERNEL"] and d["kernel_phase"] == "KERNEL", d["kernels"]
assert d["subphases"] == ["HOST_MSM", "LOAD"], d["subphases"]
# units in row order: a, b, c
assert col(r["queue"]) == [1, 0, 1], col(r["queue"])
assert [r["kinds"][k] if k >= 0 else None for k in col(r["kind"])] == ["porep-c2", "winning-post", None]
rows = []
at = 0
for step in col(r["ph"]["r"]):
    at += step
    rows.append(at)
ph = sorted(zip(rows, [names[n] for n in col(r["ph"]["nm"])], col(r["ph"]["w"]), col(r["ph"]["d"])))
q = r["q"] / 1e6  # ms
assert [(u, n, w, x * q) for (u, n, w, x) in ph] == [
    (0, "HOST_MSM", 0, 5), (0, "KERNEL", 0, 40), (0, "LOAD", 1, 6), (1, "HOST_MSM", 0, 14), (1, "KERNEL", 0, 40),
    (2, "KERNEL", 0, 10), (2, "LOAD", 0, 10)], ph
mk = sorted(zip(col(r["mk"]["r"]), [names[n] for n in col(r["mk"]["nm"])]))
assert mk == [(0, "GPU_FINALIZE"), (1, "PROOF_SENT")], mk  # row steps: a, then b
dev = r["devices"][0]
kern = sum(col(dev["kern"]["len"])) * r["q"] / 1e9
assert abs(kern - an["devices"][0]["kernel_busy_s"]) < 1e-9 and len(col(dev["kern"]["len"])) == 2, kern
assert abs(dev["kutil"] - an["devices"][0]["kernel_utilization"]) < 1e-6, dev["kutil"]
s = r["summary"]
assert abs(s["kutil"] - an["kernel_utilization"]) < 1e-6, s
assert s["fill_text"].startswith("HOST_MSM 10.9%, LOAD 5.7%, unaccounted 34.5%"), s["fill_text"]
assert "KERNEL phases busy 90.0 ms" in s["kernel_text"], s["kernel_text"]
PY
    # none of it without phases: no kernel lane, no sub-phase, no figure
    "$W" render "$T/evil.log" -o "$T/plain.svg" 2>/dev/null
    python3 - "$T/evil.html" "$T/plain.svg" <<'PY' && ok || bad "kernels or phases drawn for a log without any"
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="wf-data">(.*?)</script>', page, re.S).group(1))
r = d["runs"][0]
assert not any(k in r for k in ("ph", "mk", "more", "queue", "kinds")), sorted(r)
assert "kutil" not in r["summary"] and not any("kern" in dv for dv in r["devices"])
assert d["names"] == [] and d["kernels"] == [] and d["subphases"] == []
svg = open(sys.argv[2]).read()
assert "kernel-lane" not in svg and "subphases" not in svg and "inside gpu" not in svg and "kernel" not in svg
PY
    # a hostile kind= is text in every view
    printf 'TIMELINE,0,GPU_START,k,kind="</script><img/src=x>&amp;\nTIMELINE,1,KERNEL_START,k,\nTIMELINE,2,KERNEL_END,k,\nTIMELINE,3,GPU_END,k,\n' >"$T/hk.log"
    "$W" render "$T/hk.log" -o "$T/hk.svg" && "$W" render "$T/hk.log" -o "$T/hk.html" &&
        "$W" render "$T/hk.log" -o "$T/hk.json" && ok || bad "render a hostile kind"
    if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$T/hk.svg" && ok || bad "SVG with a hostile kind"; fi
    grep -q 'kind &quot;&lt;/script&gt;&lt;img/src=x&gt;&amp;amp;' "$T/hk.svg" && ok || bad "the hostile kind not escaped in the SVG"
    [ "$(grep -o -i '</script' "$T/hk.html" | wc -l)" = 2 ] && ! grep -q -i '<img' "$T/hk.html" && ok ||
        bad "a hostile kind is markup in the page"
    python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); assert any(e.get("args", {}).get("kind") == "\"</script><img/src=x>&amp;" for e in t["traceEvents"])' "$T/hk.json" &&
        ok || bad "the hostile kind in the Chrome trace"
    # a chatty unit: at most 32 phases and 16 marks of a unit go in the
    # page, the rest counted
    {
        echo 'TIMELINE,0,SYNTH_START,chatty,'
        echo 'TIMELINE,1,SYNTH_END,chatty,'
        echo 'TIMELINE,2,GPU_START,chatty,worker=0'
        i=0
        while [ $i -lt 40 ]; do
            echo "TIMELINE,3.$i,STEP${i}_START,chatty,"
            echo "TIMELINE,3.${i}5,STEP${i}_END,chatty,"
            echo "TIMELINE,4.$i,TICK,chatty,"
            i=$((i + 1))
        done
        echo 'TIMELINE,9,GPU_END,chatty,worker=0'
    } >"$T/chatty.log"
    "$W" render "$T/chatty.log" -o "$T/chatty.html" && ok || bad "render the chatty log"
    # 3000 units, each with two sub-phases and a mark: the SVG stays as
    # small as its pixels, the page at a few bytes a unit more
    awk 'BEGIN { for (i = 0; i < 3000; i++) { s = i * 40; w = i % 2;
        printf "TIMELINE,%d,SYNTH_START,j%d,kind=k%d\nTIMELINE,%d,SYNTH_END,j%d,\nTIMELINE,%d,GPU_QUEUE,j%d,\n", s, i, i % 3, s + 30, i, s + 31, i;
        printf "TIMELINE,%d,GPU_START,j%d,worker=%d\nTIMELINE,%d,HOST_MSM_START,j%d,\nTIMELINE,%d,HOST_MSM_END,j%d,\n", s + 33, i, w, s + 33, i, s + 43, i;
        printf "TIMELINE,%d,KERNEL_START,j%d,\nTIMELINE,%d,KERNEL_END,j%d,\nTIMELINE,%d,GPU_FINALIZE,j%d,\n", s + 43, i, s + 68, i, s + 72, i;
        printf "TIMELINE,%d,GPU_END,j%d,worker=%d\n", s + 73, i, w } }' >"$T/many.log"
    "$W" render "$T/many.log" -o "$T/many.svg" && "$W" render "$T/many.log" -o "$T/many.html" && ok || bad "render 3000 units"
    svg=$(wc -c <"$T/many.svg") html=$(wc -c <"$T/many.html") one=$(wc -c <"$T/sep.html")
    [ "$svg" -lt 100000 ] && ok || bad "the SVG of 3000 units with phases is $svg bytes"
    [ $(((html - one) / 3000)) -lt 40 ] && ok || bad "the page of 3000 units with phases: $(((html - one) / 3000)) bytes a unit"
    python3 - "$T/chatty.html" <<'PY' && ok || bad "the HTML's limits on a unit's phases and marks"
import json, re, sys
d = json.loads(re.search(r'id="wf-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
r = d["runs"][0]
assert r["ph"]["r"]["n"] == 32 and r["mk"]["r"]["n"] == 16, (r["ph"]["r"]["n"], r["mk"]["r"]["n"])
assert r["more"]["p"]["o"] == 8 and r["more"]["m"]["o"] == 24 and r["more"]["p"]["n"] == 1, r["more"]
PY
fi

# A job id that is not UTF-8 (byte 0xFF) still gives valid JSON in every
# JSON output: the byte becomes U+FFFD.
printf 'TIMELINE,0,SYNTH_START,a\377b,\nTIMELINE,1,GPU_START,a\377b,\nTIMELINE,2,GPU_END,a\377b,\n' >"$T/ff.log"
"$W" render "$T/ff.log" -o "$T/ff.json" && "$W" analyze --json "$T/ff.log" >"$T/ffa.json" || bad "0xFF: a command failed"
python3 - "$T/ff.json" <<'PY' && ok || bad "render: invalid JSON, or the 0xFF byte is not U+FFFD"
import json, sys
sys.exit(0 if "a\ufffdb" in json.dumps(json.load(open(sys.argv[1])), ensure_ascii=False) else 1)
PY
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/ffa.json" && ok || bad "analyze --json: invalid JSON"

# One advice in every view: the HTML summary's advice is analyze's, the
# same computation (the simulator's where analyze's default takes it, and
# with --advise as analyze has it).  On the demo's traces the page said
# "formula ... 100% predicted" where analyze said "97% simulated, CPU
# contention measured", and render had no --advise.
same_advice() { # INPUT [ARGS...]: the page's advice lines are analyze's text's
    input=$1
    shift
    "$W" analyze --no-progress "$@" "$input" >"$T/adv.txt" 2>/dev/null
    "$W" render "$@" "$input" -o "$T/adv.html" 2>"$T/adv.err" || { bad "render $* $input: $(cat "$T/adv.err")"; return; }
    python3 - "$T/adv.txt" "$T/adv.html" <<'PY' && ok || bad "render $* $input: the HTML's advice is not analyze's"
import json, sys
text = open(sys.argv[1]).read().split("\n")
want = []
for i, l in enumerate(text):
    if l.startswith("  advice "):
        want.append(l[17:])
        if i + 1 < len(text) and text[i + 1].startswith(" " * 17) and text[i + 1][17:18] != " ":
            want.append(text[i + 1][17:])
        break
page = open(sys.argv[2]).read()
at = page.index('"advice":') + len('"advice":')
got = [x for x in json.JSONDecoder().raw_decode(page[at:])[0] if x]
if not want or got != want:
    print("analyze: %r\nhtml:    %r" % (want, got))
    sys.exit(1)
PY
}
C="$(dirname "$0")/../fuzz/corpus/wft"
same_advice "$T/r.wft"
same_advice "$T/r.wft" --advise sim
grep -q SIMULATED "$T/adv.html" && ok || bad "render --advise sim: the page's advice is not the simulator's"
same_advice "$T/r.wft" --advise formula
same_advice "$C/cpu.wft" --advise sim --trace-cores 2
same_advice "$C/engine.wft"
# diff --json gives each run the advice analyze --json gives it
"$W" analyze --json "$T/r.wft" >"$T/adv-a.json" 2>/dev/null
"$W" diff --json "$T/r.wft" "$T/r.wft" >"$T/adv-d.json" 2>/dev/null
python3 - "$T/adv-a.json" "$T/adv-d.json" <<'PY' && ok || bad "diff --json: the runs' advice is not analyze's"
import json, sys
a, d = json.load(open(sys.argv[1]))["runs"][0]["advice"], json.load(open(sys.argv[2]))
sys.exit(0 if d["a"]["advice"] == a and d["b"]["advice"] == a else 1)
PY
"$W" render --advise guess "$T/r.wft" -o "$T/x.html" 2>"$T/e"
[ $? = 2 ] && grep -q "advise" "$T/e" && ok || bad "render --advise guess: not refused with the reason"

finish render
