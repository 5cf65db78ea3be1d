//! What the Layer resolves per event, cached: the unit of a (job,
//! partition), shared by all threads (so that a job's marks from the
//! synthesis thread and from a GPU worker are one unit), with the kind
//! already given to it (so that `wf_unit_detail` runs once, not per
//! event), and an event's name, per thread.
//!
//! Units: each thread keeps the units it used lately; a miss goes to the
//! shared table (a read lock), and only a unit seen for the first time
//! takes the write lock and calls `wf_unit_new`.  Both are bounded: a
//! daemon that runs for months makes millions of units.  The shared table
//! keeps two generations of YOUNG_MAX units; a unit that falls out of both
//! and is marked again gets a second handle with the same job and
//! partition, which the analysis merges (it keys units by them).  Units
//! belong to one recording: the caches are dropped when it changes.
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{OnceLock, RwLock};

use crate::recorder::GENERATION;
use crate::{Event, Unit};

const YOUNG_MAX: usize = 16384;
const LOCAL_MAX: usize = 1024;

/// A unit, and a hash of the kind given to it (0: none yet).
#[derive(Clone, Copy)]
struct Entry {
    unit: Unit,
    kind: u64,
}

#[derive(Default)]
struct Shared {
    generation: u64,
    young: HashMap<Box<[u8]>, Entry>,
    old: HashMap<Box<[u8]>, Entry>,
}

impl Shared {
    fn get(&self, k: &[u8]) -> Option<Entry> {
        self.young.get(k).or_else(|| self.old.get(k)).copied()
    }
    fn insert(&mut self, k: &[u8], e: Entry) {
        if let Some(x) = self.young.get_mut(k) {
            *x = e;
            return;
        }
        if self.young.len() >= YOUNG_MAX {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(k.into(), e);
    }
}

fn shared() -> &'static RwLock<Shared> {
    static S: OnceLock<RwLock<Shared>> = OnceLock::new();
    S.get_or_init(Default::default)
}

/// A thread's units of lately: (the recording's generation, key -> unit).
type Local = (u64, HashMap<Box<[u8]>, Entry>);

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new((0, HashMap::new()));
    static NAMES: RefCell<HashMap<Box<[u8]>, Event>> = RefCell::new(HashMap::new());
}

/// The key: the job's bytes, 0xff (never in UTF-8), the partition.
fn with_key<R>(job: &[u8], partition: i32, f: impl FnOnce(&[u8]) -> R) -> R {
    let tail = partition.to_le_bytes();
    let n = job.len() + 1 + tail.len();
    if n <= 256 {
        let mut b = [0u8; 256];
        b[..job.len()].copy_from_slice(job);
        b[job.len()] = 0xff;
        b[job.len() + 1..n].copy_from_slice(&tail);
        f(&b[..n])
    } else {
        let mut v = Vec::with_capacity(n);
        v.extend_from_slice(job);
        v.push(0xff);
        v.extend_from_slice(&tail);
        f(&v)
    }
}

fn shared_entry(key: &[u8], job: &[u8], partition: i32, generation: u64) -> Entry {
    {
        let s = shared().read().unwrap_or_else(|e| e.into_inner());
        if s.generation == generation {
            if let Some(e) = s.get(key) {
                return e;
            }
        }
    }
    let mut s = shared().write().unwrap_or_else(|e| e.into_inner());
    if s.generation != generation {
        *s = Shared { generation, ..Default::default() };
    }
    if let Some(e) = s.get(key) {
        return e;
    }
    let e = Entry { unit: Unit::from_bytes(job, partition), kind: 0 };
    if e.unit.is_recorded() {
        s.insert(key, e);
    }
    e
}

/// FNV-1a, never 0 (0 is "no kind").
fn kind_hash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf29ce484222325u64, |h, &c| (h ^ c as u64).wrapping_mul(0x100000001b3)).max(1)
}

/// Give the unit its kind (once: the cached entry remembers it).
fn give_kind(key: &[u8], e: &mut Entry, kind: &[u8], generation: u64) {
    let h = kind_hash(kind);
    if e.kind == h || !e.unit.is_recorded() {
        return;
    }
    if let Ok(kind) = std::str::from_utf8(kind) {
        let _ = e.unit.detail("kind", kind); // the first kind is the unit's; EINVAL cannot come from "kind"
    }
    e.kind = h;
    let mut s = shared().write().unwrap_or_else(|e| e.into_inner());
    if s.generation == generation {
        s.insert(key, *e);
    }
}

/// The unit of (job, partition) in the current recording (the null unit
/// when nothing records), given its `kind` the first time one comes.
pub(crate) fn unit_for(job: &[u8], partition: i32, kind: Option<&[u8]>) -> Unit {
    let generation = GENERATION.load(Ordering::Acquire);
    with_key(job, partition, |key| {
        let local = LOCAL.try_with(|l| {
            let mut l = l.borrow_mut();
            if l.0 != generation || l.1.len() >= LOCAL_MAX {
                l.1.clear();
                l.0 = generation;
            }
            if let Some(e) = l.1.get_mut(key) {
                if let Some(k) = kind {
                    give_kind(key, e, k, generation);
                }
                return e.unit;
            }
            let mut e = shared_entry(key, job, partition, generation);
            if let Some(k) = kind {
                give_kind(key, &mut e, k, generation);
            }
            if e.unit.is_recorded() {
                l.1.insert(key.into(), e);
            }
            e.unit
        });
        // During the thread's teardown its cache is gone: the shared one.
        local.unwrap_or_else(|_| {
            let mut e = shared_entry(key, job, partition, generation);
            if let Some(k) = kind {
                give_kind(key, &mut e, k, generation);
            }
            e.unit
        })
    })
}

/// The event a message names (any case; GPU_QUEUE is CHAN_SEND); None for
/// an empty one or one that is not UTF-8.
pub(crate) fn event_named(name: &[u8]) -> Option<Event> {
    const SIX: [(&[u8], Event); 7] = [
        (b"SYNTH_START", Event::SynthStart),
        (b"SYNTH_END", Event::SynthEnd),
        (b"CHAN_SEND", Event::ChanSend),
        (b"GPU_QUEUE", Event::ChanSend),
        (b"GPU_PICKUP", Event::GpuPickup),
        (b"GPU_START", Event::GpuStart),
        (b"GPU_END", Event::GpuEnd),
    ];
    if let Some(&(_, e)) = SIX.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Some(e);
    }
    let resolve = || Event::from_name(std::str::from_utf8(name).ok()?);
    NAMES
        .try_with(|m| {
            let mut m = m.borrow_mut();
            if let Some(&e) = m.get(name) {
                return Some(e);
            }
            let e = resolve()?;
            if m.len() >= LOCAL_MAX {
                m.clear();
            }
            m.insert(name.into(), e);
            Some(e)
        })
        .unwrap_or_else(|_| resolve())
}
