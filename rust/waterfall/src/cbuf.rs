//! NUL-terminated copies of Rust strings for the C calls, on the stack when
//! they are short: `Unit::new` and the tracing Layer pass job ids without
//! allocating.  A string is cut at its first NUL, as C would read it.
use std::ffi::c_char;

const STACK: usize = 256;

/// Calls `f` with `s` as a C string.
pub(crate) fn with_cstr<R>(s: &[u8], f: impl FnOnce(*const c_char) -> R) -> R {
    let s = match s.iter().position(|&b| b == 0) {
        Some(n) => &s[..n],
        None => s,
    };
    if s.len() < STACK {
        let mut buf = [0u8; STACK];
        buf[..s.len()].copy_from_slice(s);
        f(buf.as_ptr().cast())
    } else {
        let mut v = Vec::with_capacity(s.len() + 1);
        v.extend_from_slice(s);
        v.push(0);
        f(v.as_ptr().cast())
    }
}
