//! Events: the six points of a unit's life, and user events by name.
//!
//! A user event is interned once per name (a global table, a lock), like
//! `wf_event_define`, which it calls: make it once and reuse it, as a
//! `wf_unit`.  After that an `Event` is a `Copy` word, and marking it costs
//! what `wf_mark` costs.
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use waterfall_sys as sys;

use crate::cbuf::with_cstr;
use crate::Error;

/// One point of a unit's life.  The six built-in ones are those the
/// analysis reads (docs/api.md); any other is a user event, named:
/// `<NAME>_START` / `<NAME>_END` pairs are phases (`KERNEL` phases are the
/// device's real work), a lone name is a mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// CPU synthesis of the unit begins.
    SynthStart,
    /// Synthesis finished.
    SynthEnd,
    /// Pushed to the GPU channel (also called GPU_QUEUE).
    ChanSend,
    /// A GPU worker received it from the channel.
    GpuPickup,
    /// GPU proving begins.
    GpuStart,
    /// GPU proving completes.
    GpuEnd,
    /// A user event: [`Event::user`].
    User(UserEvent),
}

/// A named user event (from [`Event::user`]); compares equal by name.
#[derive(Clone, Copy)]
pub struct UserEvent(&'static UserDef);

struct UserDef {
    name: &'static str,
    /// wf_event_define's id, or its negative errno (which wf_mark ignores).
    id: i32,
    /// The ids of NAME_START and NAME_END, made the first time a span needs them.
    span: OnceLock<(i32, i32)>,
}

impl PartialEq for UserEvent {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.0, o.0)
    }
}
impl Eq for UserEvent {}
impl std::hash::Hash for UserEvent {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.0 as *const UserDef).hash(h)
    }
}
impl std::fmt::Debug for UserEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0.name)
    }
}

const BUILTIN: [(Event, &str); 6] = [
    (Event::SynthStart, "SYNTH_START"),
    (Event::SynthEnd, "SYNTH_END"),
    (Event::ChanSend, "CHAN_SEND"),
    (Event::GpuPickup, "GPU_PICKUP"),
    (Event::GpuStart, "GPU_START"),
    (Event::GpuEnd, "GPU_END"),
];

/// More names than the C table holds (4080 user events) are not interned:
/// they would never get an id, and each would leak.
const MAX_NAMES: usize = 8192;

fn table() -> &'static Mutex<HashMap<&'static str, &'static UserDef>> {
    static T: OnceLock<Mutex<HashMap<&'static str, &'static UserDef>>> = OnceLock::new();
    T.get_or_init(Default::default)
}

fn define(name: &str) -> i32 {
    with_cstr(name.as_bytes(), |p| unsafe { sys::wf_event_define(p) })
}

impl Event {
    /// The user event `name` (case kept; up to 47 bytes are kept by the
    /// trace).  A built-in name (`"GPU_END"`) gives the built-in event.
    /// When the library's table is full, or `name` is empty, the event is
    /// one that marks nothing (see [`Event::try_user`] to know).
    pub fn user(name: &str) -> Event {
        if let Some(&(e, _)) = BUILTIN.iter().find(|(_, n)| *n == name) {
            return e;
        }
        // A thread's names of lately first: `u.mark(Event::user("X"))` in
        // a loop then takes no lock.
        thread_local! {
            static SEEN: std::cell::RefCell<HashMap<&'static str, &'static UserDef>> = std::cell::RefCell::new(HashMap::new());
        }
        if let Ok(Some(d)) = SEEN.try_with(|m| m.borrow().get(name).copied()) {
            return Event::User(UserEvent(d));
        }
        let e = Event::intern(name);
        if let Event::User(UserEvent(d)) = e {
            let _ = SEEN.try_with(|m| {
                let mut m = m.borrow_mut();
                if m.len() < 1024 && !d.name.is_empty() {
                    m.insert(d.name, d);
                }
            });
        }
        e
    }

    fn intern(name: &str) -> Event {
        let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = t.get(name) {
            return Event::User(UserEvent(d));
        }
        let id = define(name);
        if t.len() >= MAX_NAMES {
            static FULL: UserDef = UserDef { name: "", id: -28, span: OnceLock::new() };
            return Event::User(UserEvent(&FULL));
        }
        let name: &'static str = Box::leak(name.into());
        let d: &'static UserDef = Box::leak(Box::new(UserDef { name, id, span: OnceLock::new() }));
        t.insert(name, d);
        Event::User(UserEvent(d))
    }

    /// As [`Event::user`], but an error when the library cannot define it
    /// (`EINVAL`: an empty name; `ENOSPC`: 4080 user events already).
    pub fn try_user(name: &str) -> Result<Event, Error> {
        let e = Event::user(name);
        match e.id() {
            id if id < 0 => Err(Error::from_rc(format!("define the event {name:?}"), id)),
            _ => Ok(e),
        }
    }

    /// The event a TIMELINE record names, as the analyzer reads it: any
    /// case, GPU_QUEUE is CHAN_SEND; another name is a user event (upper
    /// case, as the analyzer shows it).  None for an empty name.
    pub fn from_name(name: &str) -> Option<Event> {
        if name.is_empty() {
            return None;
        }
        if name.eq_ignore_ascii_case("GPU_QUEUE") {
            return Some(Event::ChanSend);
        }
        if let Some(&(e, _)) = BUILTIN.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)) {
            return Some(e);
        }
        Some(Event::user(&name.to_ascii_uppercase()))
    }

    /// The id `wf_mark` takes (a negative errno for a user event the
    /// library could not define: it marks nothing).
    #[inline]
    pub fn id(self) -> i32 {
        match self {
            Event::SynthStart => sys::WF_SYNTH_START,
            Event::SynthEnd => sys::WF_SYNTH_END,
            Event::ChanSend => sys::WF_CHAN_SEND,
            Event::GpuPickup => sys::WF_GPU_PICKUP,
            Event::GpuStart => sys::WF_GPU_START,
            Event::GpuEnd => sys::WF_GPU_END,
            Event::User(u) => u.0.id,
        }
    }

    /// The name, as `waterfall dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Event::User(u) => u.0.name,
            e => BUILTIN.iter().find(|(b, _)| *b == e).map(|(_, n)| *n).unwrap(),
        }
    }

    /// The ids a span of this event marks when it begins and when it ends
    /// (`Unit::span`, the Layer's mapped spans): SynthStart..SynthEnd,
    /// GpuStart..GpuEnd; a user event NAME or NAME_START gives
    /// NAME_START..NAME_END.  The other four built-ins begin no stage
    /// of their own: the span marks them when it begins, nothing at its end
    /// (end id -1).
    pub(crate) fn span_ids(self) -> (i32, i32) {
        match self {
            Event::SynthStart => (sys::WF_SYNTH_START, sys::WF_SYNTH_END),
            Event::GpuStart => (sys::WF_GPU_START, sys::WF_GPU_END),
            Event::User(u) => *u.0.span.get_or_init(|| {
                let n = u.0.name;
                let base = match n.len().checked_sub(6) {
                    Some(b) if n.is_char_boundary(b) && n[b..].eq_ignore_ascii_case("_START") => &n[..b],
                    _ => n,
                };
                if n.is_empty() {
                    return (u.0.id, -1);
                }
                // The suffixes in the name's case (the analyzer reads any case).
                let lower = base.bytes().any(|c| c.is_ascii_lowercase()) && !base.bytes().any(|c| c.is_ascii_uppercase());
                let (s, e) = if lower { ("_start", "_end") } else { ("_START", "_END") };
                (define(&format!("{base}{s}")), define(&format!("{base}{e}")))
            }),
            e => (e.id(), -1),
        }
    }
}

impl From<&str> for Event {
    /// [`Event::user`]: a built-in name gives the built-in event.
    fn from(name: &str) -> Event {
        Event::user(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(id: i32) -> String {
        let p = unsafe { sys::wf_event_name(id) };
        unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap().to_string()
    }

    #[test]
    fn spans_of_user_events_are_phases() {
        for (given, start, end) in [("PREP_MSM", "PREP_MSM_START", "PREP_MSM_END"), ("KERNEL_START", "KERNEL_START", "KERNEL_END"), ("lock_wait_start", "lock_wait_start", "lock_wait_end"), ("Msm", "Msm_START", "Msm_END")] {
            let (s, e) = Event::user(given).span_ids();
            assert_eq!((name(s), name(e)), (start.to_string(), end.to_string()), "{given}");
        }
        assert_eq!(Event::SynthStart.span_ids(), (0, 1));
        assert_eq!(Event::GpuStart.span_ids(), (4, 5));
        assert_eq!(Event::ChanSend.span_ids(), (2, -1));
    }

    #[test]
    fn names() {
        assert_eq!(Event::from_name("gpu_queue"), Some(Event::ChanSend));
        assert_eq!(Event::from_name("Synth_End"), Some(Event::SynthEnd));
        assert_eq!(Event::from_name("msm_done").map(Event::name), Some("MSM_DONE"));
        assert_eq!(Event::from_name(""), None);
        assert_eq!(Event::user("X").name(), "X");
        assert_eq!(Event::GpuPickup.name(), "GPU_PICKUP");
        assert_eq!(Event::from("CHAN_SEND"), Event::ChanSend);
        assert_ne!(Event::user("a"), Event::user("A"));
    }
}
