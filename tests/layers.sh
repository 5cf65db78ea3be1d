#!/bin/sh
# layers.sh -- imports only point down the flow:
#   common -> model -> read -> analyze -> sim -> report | render -> api -> live -> cmd
# Each folder of src/ is a stage; a file may include headers of its own
# stage and of the stages below it, and the library's shared headers
# (include/, lib/common/: the vocabulary and the trace format),
# never one above it, and report and render never each other.  The model
# (model/) holds the analysis's vocabulary and its one way in (build.h):
# readers include it, and the analysis after them never includes a
# reader (read/ is for api/, live/ and cmd/ only).  The engine (engine/) is for
# the commands only.  Usage: layers.sh [SRC_DIR]
SRC=${1:-$(dirname "$0")/../src}
. "$(dirname "$0")/lib.sh"
rank() {
    case $1 in
    common) echo 0 ;; model) echo 1 ;; read) echo 2 ;; analyze) echo 3 ;; sim) echo 4 ;; api) echo 6 ;;
    report | render) echo 5 ;; live) echo 7 ;; cmd) echo 8 ;; *) echo 99 ;;
    esac
}
# where a header lives: its stage's folder, "lib", "engine", or nothing
where() {
    for d in "$SRC"/*/; do
        [ -f "$d$1" ] && { basename "$d"; return; }
    done
    [ -f "$SRC/../lib/common/$1" ] || [ -f "$SRC/../include/$1" ] || [ -f "$SRC/../include/$1.in" ] && { echo lib; return; }
    [ -f "$SRC/../engine/$1" ] && { echo engine; return; }
    echo "?"
}
for f in "$SRC"/*/*.[ch]; do
    stage=$(basename "$(dirname "$f")")
    r=$(rank "$stage")
    [ "$r" = 99 ] && { bad "$f: not in a stage's folder"; continue; }
    for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        at=$(where "$h")
        case $at in
        lib) ok ;;
        engine) [ "$stage" = cmd ] && ok || bad "$f includes $h: the engine is for the commands only" ;;
        read)
            case $stage in
            read | api | live | cmd) ok ;;
            *) bad "$f ($stage) includes $h (read): the analysis reads the model, never a reader" ;;
            esac
            ;;
        "?") bad "$f includes $h, found nowhere" ;;
        *)
            ra=$(rank "$at")
            if [ "$ra" -gt "$r" ]; then
                bad "$f ($stage) includes $h ($at): an import pointing up the flow"
            elif [ "$ra" = "$r" ] && [ "$at" != "$stage" ]; then
                bad "$f ($stage) includes $h ($at): report and render do not import each other"
            else
                ok
            fi
            ;;
        esac
    done
done
# No branch on where data came from outside the readers: the reports read
# a run's provenance (model.h), never a reader's flag.  Code only: the
# comments and strings are taken out first.
for f in "$SRC"/*/*.[ch]; do
    case $f in */read/*) continue ;; esac
    hits=$(python3 -c '
import re, sys
src = open(sys.argv[1]).read()
src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
src = re.sub(r"//[^\n]*", "", src)
src = re.sub(r"\"(\\.|[^\"\\\n])*\"", "\"\"", src)
for n, line in enumerate(src.split("\n"), 1):
    if re.search(r"\bnative\b", line):
        print("%d: %s" % (n, line.strip()))
' "$f")
    [ -z "$hits" ] && ok || bad "$f: a branch on a native flag outside read/: $hits"
done
# nothing left flat in src/ but the stages
for f in "$SRC"/*.[ch]; do [ -e "$f" ] && bad "$f: outside the stages' folders"; done
finish layers
