//! Units and marks: the hot path.
use waterfall_sys as sys;

use crate::cbuf::with_cstr;
use crate::{Error, Event};

/// A job, or one partition of it, in the current recording: a `u64`
/// handle, `Copy`, and safe to mark from any thread.
///
/// Made once per unit (it takes a lock in the library); marking it is the
/// hot path and costs what `wf_mark` costs.  A unit made while nothing
/// records is the null unit, whose marks are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit(sys::wf_unit);

impl Unit {
    /// A unit for `job` (its id, copied; at most 4096 bytes are kept; a
    /// NUL ends it), or for one partition of it.  Partitions above
    /// `i32::MAX` are recorded as `i32::MAX`.
    pub fn new(job: &str, partition: Option<u32>) -> Unit {
        let part = match partition {
            Some(p) => p.min(i32::MAX as u32) as i32,
            None => -1,
        };
        Unit::from_bytes(job.as_bytes(), part)
    }

    pub(crate) fn from_bytes(job: &[u8], partition: i32) -> Unit {
        Unit(with_cstr(job, |p| unsafe { sys::wf_unit_new(p, partition) }))
    }

    /// Timestamp `ev` for this unit on the calling thread's ring.
    #[inline]
    pub fn mark(&self, ev: Event) {
        unsafe { sys::wf_mark(ev.id(), self.0) }
    }

    /// Marks the start of `ev`'s stage now and its end when the guard
    /// drops: `Event::SynthStart` marks SYNTH_START then SYNTH_END,
    /// `Event::GpuStart` GPU_START then GPU_END, and a user event NAME
    /// (or NAME_START) marks NAME_START then NAME_END, a phase.  The four
    /// other built-ins begin no stage: the span marks them now and nothing
    /// at its end.
    #[inline]
    pub fn span(&self, ev: Event) -> SpanGuard {
        let (start, end) = ev.span_ids();
        unsafe { sys::wf_mark(start, self.0) };
        SpanGuard { unit: *self, end }
    }

    /// A detail `key=value` of the unit, as a TIMELINE line's detail
    /// carries `kind=porep` (`waterfall analyze` breaks stage times down by
    /// `kind`): `wf_unit_detail`.  Once per unit and key: the first value
    /// of a key is the unit's.  The key is letters, digits, `_`, `-`, `.`
    /// (up to 64 bytes) and not one of the unit's own (job, partition,
    /// worker, device, gpu): `EINVAL` otherwise.  The value is cut at 256
    /// bytes.  Ignored (`Ok`) for the null unit.
    pub fn detail(&self, key: &str, value: &str) -> Result<(), Error> {
        let rc = with_cstr(key.as_bytes(), |k| with_cstr(value.as_bytes(), |v| unsafe { sys::wf_unit_detail(self.0, k, v) }));
        match rc {
            0 => Ok(()),
            rc => Err(Error::from_rc(format!("set the detail {key:?} of a unit"), rc)),
        }
    }

    /// The `wf_unit` handle (0: the null unit).
    pub fn id(&self) -> u64 {
        self.0
    }

    /// Whether the unit belongs to a recording (it was made while one was open).
    pub fn is_recorded(&self) -> bool {
        self.0 != 0
    }
}

/// The end of a [`Unit::span`]: marked when this drops.
#[must_use = "the span ends when the guard is dropped: bind it (`let _g = ...`)"]
#[derive(Debug)]
pub struct SpanGuard {
    unit: Unit,
    end: i32,
}

impl SpanGuard {
    /// End the span now (the same as dropping it).
    pub fn end(self) {}
}

impl Drop for SpanGuard {
    #[inline]
    fn drop(&mut self) {
        if self.end >= 0 {
            unsafe { sys::wf_mark(self.end, self.unit.0) }
        }
    }
}
