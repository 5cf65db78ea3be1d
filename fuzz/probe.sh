#!/bin/sh
# probe.sh -- can this toolchain build a libFuzzer target?  Compiles and
# links a one-line fuzzer with clang -fsanitize=fuzzer,address,undefined.
# Exit 0: yes; 77: no, with a line naming what is missing (the only
# reason fuzzing may be skipped: a target that does not build is a
# failure, reported by `make fuzz`, never a skip).
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: skipped: clang is not installed (apt-get install clang)"
    exit 77
fi
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)(n & 0); }' >"$d/p.c"
if ! clang -fsanitize=fuzzer,address,undefined "$d/p.c" -o "$d/p" 2>"$d/err"; then
    v=$(clang -dumpversion | cut -d. -f1)
    echo "fuzz: skipped: clang cannot link a libFuzzer target (apt-get install libclang-rt-$v-dev): $(head -1 "$d/err")"
    exit 77
fi
exit 0
