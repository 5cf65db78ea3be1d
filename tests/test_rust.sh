#!/bin/sh
# test_rust.sh -- the Rust FFI example (examples/rust/main.rs, shown in
# docs/ffi.md) builds against libwaterfall.a and records a readable trace.
# Usage: test_rust.sh SRCDIR BUILDDIR
SRC="$1"
B="$2"
if ! command -v rustc >/dev/null 2>&1; then
    echo "rust: skipped: rustc is not installed (apt-get install rustc)"
    exit 77 # ctest's SKIP_RETURN_CODE: shown as skipped, not passed
fi
. "$(dirname "$0")/lib.sh"
rustc -O "$SRC/examples/rust/main.rs" -o "$T/wf_rust" -L "$B" -l static=waterfall || {
    echo "rust: 0 passed, 1 failed (rustc)"; exit 1; }
"$T/wf_rust" "$T/r.wft" || { echo "rust: 0 passed, 1 failed (run)"; exit 1; }
n=$("$B/waterfall" dump "$T/r.wft" | grep -c ',worker=0,device=0$')
[ "$n" = 9 ] || { echo "rust: 0 passed, 1 failed: $n GPU lines, want 9"; exit 1; }
echo "rust: 1 passed, 0 failed"
