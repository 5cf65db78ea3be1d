//! Reading an event's or a span's fields without formatting what need not
//! be formatted: integers are taken as integers, strings copied into stack
//! buffers, and only `%value`/`?value` fields (and the message, a
//! `fmt::Arguments`) go through their `Display`, into those buffers too.
use std::fmt::{self, Write};

use tracing_core::field::{Field, Visit};

/// Bytes written through `fmt::Write`: on the stack up to N, then on the
/// heap (a job id longer than N is rare).
pub(crate) struct Buf<const N: usize> {
    stack: [u8; N],
    len: usize,
    heap: Vec<u8>,
}

impl<const N: usize> Buf<N> {
    pub(crate) const fn new() -> Self {
        Buf { stack: [0; N], len: 0, heap: Vec::new() }
    }
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.heap.clear();
    }
    pub(crate) fn push(&mut self, b: &[u8]) {
        if self.heap.is_empty() && self.len + b.len() <= N {
            self.stack[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        } else {
            if self.heap.is_empty() {
                self.heap.extend_from_slice(&self.stack[..self.len]);
            }
            self.heap.extend_from_slice(b);
        }
    }
    pub(crate) fn bytes(&self) -> &[u8] {
        if self.heap.is_empty() {
            &self.stack[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<const N: usize> Write for Buf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

/// A value as written, without one pair of surrounding double quotes
/// (`job = ?id` of a String is `"abc"`; the analyzer reads quoted values too).
fn unquote(b: &[u8]) -> &[u8] {
    match b {
        [b'"', inner @ .., b'"'] => inner,
        _ => b,
    }
}

fn parse_int(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(unquote(b)).ok()?.trim().parse().ok()
}

#[derive(Clone, Copy)]
enum Key {
    Message,
    Job,
    Partition,
    Worker,
    Device,
    Kind,
    Other,
}

fn key(name: &str) -> Key {
    match name {
        "message" => Key::Message,
        "job" => Key::Job,
        "partition" => Key::Partition,
        "worker" => Key::Worker,
        "gpu" | "device" => Key::Device,
        "kind" => Key::Kind,
        _ => Key::Other,
    }
}

/// The fields the Layer reads: the message (the event's name), job,
/// partition, worker, gpu or device, kind.
pub(crate) struct Fields {
    msg: Buf<128>,
    job: Buf<128>,
    has_job: bool,
    kind: Buf<64>,
    has_kind: bool,
    partition: Option<i64>,
    worker: Option<i64>,
    device: Option<i64>,
}

impl Fields {
    pub(crate) fn new() -> Fields {
        Fields { msg: Buf::new(), job: Buf::new(), has_job: false, kind: Buf::new(), has_kind: false, partition: None, worker: None, device: None }
    }

    fn set_int(&mut self, k: Key, v: i64) {
        match k {
            Key::Partition => self.partition = Some(v),
            Key::Worker => self.worker = Some(v),
            Key::Device => self.device = Some(v),
            Key::Job => {
                self.job.clear();
                let _ = write!(self.job, "{v}");
                self.has_job = true;
            }
            Key::Kind => {
                self.kind.clear();
                let _ = write!(self.kind, "{v}");
                self.has_kind = true;
            }
            Key::Message | Key::Other => {}
        }
    }

    fn set_bytes(&mut self, k: Key, b: &[u8]) {
        match k {
            Key::Job => {
                self.job.clear();
                self.job.push(unquote(b));
                self.has_job = true;
            }
            Key::Kind => {
                self.kind.clear();
                self.kind.push(unquote(b));
                self.has_kind = true;
            }
            Key::Message => self.msg.push(b),
            Key::Partition | Key::Worker | Key::Device => {
                if let Some(v) = parse_int(b) {
                    self.set_int(k, v)
                }
            }
            Key::Other => {}
        }
    }

    /// The event's name: the message's first word.  The words after it
    /// that read `key=value` give the fields not given as fields, so that
    /// `info!(target: "TIMELINE", "GPU_START job={} worker=1", id)` reads
    /// as the analyzer reads that line.
    pub(crate) fn take_name(&mut self) -> std::ops::Range<usize> {
        let sep = |c: &u8| c.is_ascii_whitespace() || *c == b',';
        let msg = self.msg.bytes();
        let start = msg.iter().position(|c| !sep(c)).unwrap_or(msg.len());
        let end = msg[start..].iter().position(sep).map_or(msg.len(), |n| start + n);
        if end < msg.len() {
            let rest = msg[end..].to_vec(); // rare: a record written into the message
            for word in rest.split(sep) {
                if let Some(eq) = word.iter().position(|&c| c == b'=') {
                    let k = key(std::str::from_utf8(&word[..eq]).unwrap_or(""));
                    let given = match k {
                        Key::Job => self.has_job,
                        Key::Partition => self.partition.is_some(),
                        Key::Worker => self.worker.is_some(),
                        Key::Device => self.device.is_some(),
                        Key::Kind => self.has_kind,
                        Key::Message | Key::Other => true,
                    };
                    if !given {
                        self.set_bytes(k, &word[eq + 1..]);
                    }
                }
            }
        }
        start..end
    }

    pub(crate) fn message(&self) -> &[u8] {
        self.msg.bytes()
    }

    pub(crate) fn job(&self) -> Option<&[u8]> {
        self.has_job.then(|| self.job.bytes())
    }

    /// The unit's kind (a detail of the unit, `wf_unit_detail`), if given.
    pub(crate) fn kind(&self) -> Option<&[u8]> {
        self.has_kind.then(|| self.kind.bytes())
    }

    /// The partition as the library takes it: < 0 none.
    pub(crate) fn partition(&self) -> i32 {
        match self.partition {
            Some(p) if p >= 0 => p.min(i32::MAX as i64) as i32,
            _ => -1,
        }
    }

    /// The worker and device the fields give, if any.  A worker without a
    /// device is on device 0, as the analyzer reads it from text; a device
    /// without a worker is recorded as its worker 0 (a thread's role in a
    /// trace has both).
    pub(crate) fn role(&self) -> Option<(i32, i32)> {
        if self.worker.is_none() && self.device.is_none() {
            return None;
        }
        let clamp = |v: Option<i64>| v.unwrap_or(0).clamp(-1, i32::MAX as i64) as i32;
        Some((clamp(self.worker), clamp(self.device)))
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match key(field.name()) {
            Key::Other => {}
            Key::Message => {
                let _ = write!(self.msg, "{value:?}");
            }
            k => {
                let mut b = Buf::<64>::new();
                let _ = write!(b, "{value:?}");
                self.set_bytes(k, b.bytes());
            }
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set_bytes(key(field.name()), value.as_bytes())
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set_int(key(field.name()), value)
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.set_int(key(field.name()), value.min(i64::MAX as u64) as i64)
    }
    fn record_bool(&mut self, _: &Field, _: bool) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(m: &str) -> Fields {
        let mut f = Fields::new();
        f.set_bytes(Key::Message, m.as_bytes());
        f
    }

    #[test]
    fn the_name_is_the_first_word_and_the_rest_are_fields() {
        let mut f = msg("  GPU_START job=\"j 1\"x worker=2,partition=7 gpu=1 other=3 kind=snap");
        let r = f.take_name();
        assert_eq!(&f.message()[r], b"GPU_START");
        assert_eq!(f.kind(), Some(&b"snap"[..]));
        // A quoted value with a space is cut at the space, as a word.
        assert_eq!(f.job(), Some(&b"\"j"[..]));
        assert_eq!((f.partition(), f.role()), (7, Some((2, 1))));
    }

    #[test]
    fn fields_given_as_fields_win_over_the_message() {
        let mut f = msg("synth_start job=from-msg partition=1");
        f.set_bytes(Key::Job, b"\"from-field\"");
        f.set_int(Key::Partition, 4);
        let r = f.take_name();
        assert_eq!(&f.message()[r], b"synth_start");
        assert_eq!((f.job(), f.partition()), (Some(&b"from-field"[..]), 4));
    }

    #[test]
    fn roles_and_partitions() {
        let mut f = Fields::new();
        assert_eq!((f.role(), f.partition(), f.job()), (None, -1, None));
        f.set_bytes(Key::Worker, b"3");
        assert_eq!(f.role(), Some((3, 0)), "a worker without a device is on device 0");
        let mut f = Fields::new();
        f.set_int(Key::Device, 2);
        assert_eq!(f.role(), Some((0, 2)));
        f.set_int(Key::Partition, -5);
        assert_eq!(f.partition(), -1);
        f.set_int(Key::Partition, i64::MAX);
        assert_eq!(f.partition(), i32::MAX);
        f.set_int(Key::Job, 42);
        assert_eq!(f.job(), Some(&b"42"[..]));
    }

    #[test]
    fn long_values_spill_to_the_heap() {
        let mut b = Buf::<8>::new();
        let _ = write!(b, "0123");
        let _ = write!(b, "456789abc");
        assert_eq!(b.bytes(), b"0123456789abc");
        b.clear();
        b.push(b"x");
        assert_eq!(b.bytes(), b"x");
    }
}
