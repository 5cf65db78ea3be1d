#!/bin/sh
# test_rust_crate.sh -- the Rust crates in rust/ (docs/rust.md): their own
# tests (`cargo test --offline`: the FFI against include/waterfall.h, the
# safe API read back by `waterfall dump`, a pipeline instrumented with
# tracing analysed by `waterfall analyze`, SIGKILL, closing while threads
# mark), the benchmark's quick run, and the `system` build mode: linking
# the library installed from this build tree through pkg-config.
# Skipped only where cargo is missing; anything else that fails fails.
# Usage: test_rust_crate.sh SRCDIR BUILDDIR
SRC="$1"
B="$2"
PKGS="cargo rustc librust-tracing-dev librust-tracing-subscriber-dev librust-cc-dev librust-pkg-config-dev librust-libc-dev librust-serde-json-dev"
if ! command -v cargo >/dev/null 2>&1; then
    echo "rust_crate: skipped: cargo is not installed (Debian: apt-get install $PKGS)"
    exit 77 # ctest's SKIP_RETURN_CODE: shown as skipped, not passed
fi
. "$(dirname "$0")/lib.sh"
# The build tree's command reads the traces; cargo builds into the build
# tree, not into the sources.
export WATERFALL_BIN="$B/waterfall" CARGO_TARGET_DIR="$B/rust-target"
hint="the crates come from Debian's packages ($PKGS), through rust/.cargo/config.toml"
cd "$SRC/rust" || exit 1

if cargo test --offline --quiet 2>"$T/err"; then ok; else
    cat "$T/err" >&2; bad "cargo test --offline ($hint)"; fi
if cargo test --offline --quiet --benches >"$T/bench" 2>"$T/err" && grep -q 'fmt event / Layer event' "$T/bench"; then ok; else
    cat "$T/err" "$T/bench" >&2; bad "the benchmark's quick run"; fi

# The system mode: libwaterfall installed from this build, found by pkg-config.
if command -v pkg-config >/dev/null 2>&1; then
    cmake --install "$B" --prefix "$T/prefix" >/dev/null
    export PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig:$T/prefix/lib/x86_64-linux-gnu/pkgconfig"
    libdir=$(pkg-config --variable=libdir waterfall)
    if cargo build --offline --quiet --features system --example pipeline 2>"$T/err" &&
        LD_LIBRARY_PATH="$libdir" "$CARGO_TARGET_DIR/debug/examples/pipeline" "$T/sys.wft" 2>/dev/null &&
        LD_LIBRARY_PATH="$libdir" ldd "$CARGO_TARGET_DIR/debug/examples/pipeline" | grep -q "$libdir/libwaterfall.so" &&
        [ "$("$B/waterfall" dump "$T/sys.wft" | grep -c ',GPU_END,')" = 16 ]; then ok; else
        cat "$T/err" >&2; bad "the system mode (--features system, pkg-config)"; fi
else
    bad "the system mode needs pkg-config (apt-get install pkg-config)"
fi
finish rust_crate
