#!/bin/sh
# circles.sh -- no two files call each other in a circle.
# From the object files' symbols (nm), file A points to file B when A calls
# a function defined in B; calls must point one way, so any strongly
# connected set of two or more files is a failure, named with the calls
# that close it.  Only functions count (defined T or W): shared data is not
# a call.  Covers lib/ (the recorder), engine/ and src/ (the command):
# every such source file must have an object, so a file cannot slip out.
# Usage: circles.sh SOURCE_DIR OBJECT_DIR...  (the object dirs are CMake's
# CMakeFiles/<target>.dir; an object's name is its source's path under them.)
# The command's objects are LTO objects: gcc-nm reads GCC's (and plain
# ones), llvm-nm clang's; the first that reads an object is used.
ROOT=$1
shift
. "$(dirname "$0")/lib.sh"
NMS=${NM:-gcc-nm llvm-nm nm}
syms() {
    for nm in $NMS; do
        command -v "$nm" >/dev/null 2>&1 || continue
        "$nm" -P -g "$1" 2>/dev/null && return
    done
}

# Circles allowed, one a line as their sorted files (none: every circle
# fails; a circle being cut on another branch may be listed here while it is).
allowed=""

# "FILE TYPE SYMBOL" for every external symbol of every object (an object
# whose source is gone, left in the build tree, is not read).
for d in "$@"; do
    find "$d" -name '*.c.o' | sort | while read -r o; do
        src=${o#"$d"/}
        src=${src%.o}
        [ -f "$ROOT/$src" ] || continue
        echo "$src object -" # read, whatever symbols it has
        syms "$o" | awk -v f="$src" '{ print f, $2, $1 }'
    done
done >"$T/syms"

# Every source file covered has an object.
(cd "$ROOT" && ls lib/*.c engine/*.c src/*/*.c) >"$T/sources"
awk '$2 == "object" { print $1 }' "$T/syms" | sort -u >"$T/objects"
missing=$(comm -23 "$T/sources" "$T/objects")
if [ -n "$missing" ]; then
    for f in $missing; do bad "$f: no object found under $*"; done
else
    ok
fi

# The edges (A B FUNCTION), then the strongly connected sets of two or more
# files, found from the transitive closure (a few hundred files at most).
awk '
    $2 == "T" || $2 == "W" { def[$3] = $1 }
    $2 == "U" { use[++n] = $1; sym[n] = $3 }
    END {
        for (i = 1; i <= n; i++) {
            b = def[sym[i]]
            if (b == "" || b == use[i]) continue
            print use[i], b, sym[i]
        }
    }' "$T/syms" | sort >"$T/calls"
awk '
    {
        reach[$1, $2] = 1
        if (!($1 in id)) { id[$1] = ++n; name[n] = $1 }
        if (!($2 in id)) { id[$2] = ++n; name[n] = $2 }
    }
    END {
        for (k = 1; k <= n; k++)
            for (i = 1; i <= n; i++) {
                if (!((name[i], name[k]) in reach)) continue
                for (j = 1; j <= n; j++)
                    if ((name[k], name[j]) in reach) reach[name[i], name[j]] = 1
            }
        for (i = 1; i <= n; i++) {
            if (i in done) continue
            set = name[i]
            for (j = i + 1; j <= n; j++)
                if (((name[i], name[j]) in reach) && ((name[j], name[i]) in reach)) {
                    set = set " " name[j]
                    done[j] = 1
                }
            if (set != name[i]) print set
        }
    }' "$T/calls" >"$T/circles"

while read -r set; do
    sorted=$(printf '%s\n' $set | sort | tr '\n' ' ' | sed 's/ $//')
    if printf '%s\n' "$allowed" | grep -qxF "$sorted"; then
        ok
        continue
    fi
    bad "files calling each other in a circle: $sorted"
    # the calls inside the circle, one per pair of files
    for a in $set; do
        for b in $set; do
            awk -v a="$a" -v b="$b" '$1 == a && $2 == b { print "    " a " -> " b " (" $3 ")"; exit }' "$T/calls"
        done
    done >&2
done <"$T/circles"
[ -s "$T/calls" ] && ok || bad "no calls between files found: nothing was checked"
finish circles
