//! The calling thread's role (GPU worker of a device) and name.
//!
//! The role is the library's (`wf_thread_worker`: later marks of the thread
//! carry it).  This module also remembers it, so that the tracing Layer
//! can give one event the worker and device of its fields and then give
//! the thread back the role it declared.
use std::cell::Cell;

use waterfall_sys as sys;

use crate::cbuf::with_cstr;

thread_local! {
    /// [declared worker, declared device, current worker, current device].
    static ROLE: Cell<[i32; 4]> = const { Cell::new([-1; 4]) };
}

fn id(v: impl TryInto<i32>) -> i32 {
    v.try_into().ok().filter(|&v| v >= 0).unwrap_or(-1)
}

/// The calling thread is GPU worker `worker` of device `device`: its later
/// marks carry both (what the analysis's per-device figures read).  Any
/// integer type; a negative or out-of-range value on either clears the
/// role.
pub fn thread_worker(worker: impl TryInto<i32>, device: impl TryInto<i32>) {
    let (w, d) = (id(worker), id(device));
    let (w, d) = if w < 0 || d < 0 { (-1, -1) } else { (w, d) };
    unsafe { sys::wf_thread_worker(w, d) };
    let _ = ROLE.try_with(|r| r.set([w, d, w, d]));
}

/// Names the calling thread in the trace (31 bytes are kept): a `&str`
/// or a `String`.
pub fn thread_name(name: impl AsRef<str>) {
    with_cstr(name.as_ref().as_bytes(), |p| unsafe { sys::wf_thread_name(p) })
}

/// Give the calling thread's next marks this role (None: the one it
/// declared with `thread_worker`), calling the library only on a change.
#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn use_role(want: Option<(i32, i32)>) {
    let _ = ROLE.try_with(|r| {
        let mut v = r.get();
        let (w, d) = want.unwrap_or((v[0], v[1]));
        if (w, d) != (v[2], v[3]) {
            unsafe { sys::wf_thread_worker(w, d) };
            v[2] = w;
            v[3] = d;
            r.set(v);
        }
    });
}
