//! The recording: one per process (libwaterfall's session is global), open
//! while a `Recorder` lives.
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use waterfall_sys as sys;

use crate::error::libc_errno::EINVAL;
use crate::Error;

/// `wf_open` and `wf_close` must not race each other (docs/api.md): every
/// open and close of this crate holds this lock.
static OPEN_CLOSE: Mutex<()> = Mutex::new(());

/// Bumped at every open and close by this crate: units made in one
/// recording mean nothing in the next, and the tracing Layer's cache of
/// units is dropped when it changes.
pub(crate) static GENERATION: AtomicU64 = AtomicU64::new(0);

/// An open recording to a trace file; `wf_close` when dropped (or
/// [`Recorder::close`], which says whether everything was written).
///
/// One per process: a second `open` while one is alive is an error
/// (`EALREADY`).  If the program was started with `WATERFALL_TRACE=path`,
/// the environment's recording wins: `open` succeeds and records there.
#[derive(Debug)]
#[must_use = "the recording closes when the Recorder is dropped"]
pub struct Recorder {
    path: PathBuf,
    open: bool,
}

/// Options of a recording (`wf_config`).  Every field's default (0, false,
/// None) is the library's default, which the environment may set
/// (`WATERFALL_RING`, `WATERFALL_FLUSH_MS`, ...; docs/api.md).  Set fields
/// directly or chain the methods of the same names:
/// `Config::default().flush_ms(5).sample_cpu(false)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Events per thread ring (a power of two, at least 64; 0: 65536).
    pub ring_events: usize,
    /// The writer's period in milliseconds (0: 10).
    pub flush_ms: u32,
    /// A mark waits for room in a full ring instead of being dropped.
    pub block_when_full: bool,
    /// Also write TIMELINE text lines to this path, or to `"stderr"` / `"stdout"`.
    pub timeline: Option<PathBuf>,
    /// Digits after the millisecond point in those lines (0-6).
    pub timeline_decimals: u8,
    /// Sample the threads' CPU time (None: `WATERFALL_CPU`, else yes).
    pub sample_cpu: Option<bool>,
    /// Sample the GPUs through NVML when it loads (None: `WATERFALL_GPU`, else yes).
    pub sample_gpu: Option<bool>,
}

impl Config {
    /// The defaults.
    pub fn new() -> Config {
        Config::default()
    }
    /// Sets `ring_events`.
    pub fn ring_events(mut self, n: usize) -> Config {
        self.ring_events = n;
        self
    }
    /// Sets `flush_ms`.
    pub fn flush_ms(mut self, ms: u32) -> Config {
        self.flush_ms = ms;
        self
    }
    /// Sets `block_when_full`.
    pub fn block_when_full(mut self, on: bool) -> Config {
        self.block_when_full = on;
        self
    }
    /// Sets `timeline`: a path, `"stderr"` or `"stdout"`.
    pub fn timeline(mut self, dest: impl Into<PathBuf>) -> Config {
        self.timeline = Some(dest.into());
        self
    }
    /// Sets `timeline_decimals`.
    pub fn timeline_decimals(mut self, digits: u8) -> Config {
        self.timeline_decimals = digits;
        self
    }
    /// Sets `sample_cpu`.
    pub fn sample_cpu(mut self, on: bool) -> Config {
        self.sample_cpu = Some(on);
        self
    }
    /// Sets `sample_gpu`.
    pub fn sample_gpu(mut self, on: bool) -> Config {
        self.sample_gpu = Some(on);
        self
    }
}

/// A recording's counters (`wf_stats_ex`): estimates while it runs, exact
/// once closed, when `marked == recorded + lost`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Marks taken by the rings, plus marks dropped.
    pub marked: u64,
    /// Events handed to the file.
    pub recorded: u64,
    /// Events dropped: a ring full, or a write error.
    pub lost: u64,
    /// Threads that marked.
    pub threads: u32,
    /// Units created.
    pub units: u32,
}

fn bool_opt(v: Option<bool>) -> i32 {
    match v {
        None => 0,
        Some(true) => 1,
        Some(false) => -1,
    }
}

fn cpath(p: &OsStr) -> Result<Vec<u8>, ()> {
    let b = p.as_bytes();
    if b.contains(&0) {
        return Err(());
    }
    let mut v = b.to_vec();
    v.push(0);
    Ok(v)
}

impl Recorder {
    /// Start recording to `path` (created or truncated), with the defaults.
    pub fn open(path: impl AsRef<Path>) -> Result<Recorder, Error> {
        Recorder::with_config(path, Config::default())
    }

    /// Start recording to `path` with options (a `Config` or a `&Config`).
    pub fn with_config(path: impl AsRef<Path>, config: impl std::borrow::Borrow<Config>) -> Result<Recorder, Error> {
        let (path, config) = (path.as_ref(), config.borrow());
        let op = || format!("record to {}", path.display());
        let p = cpath(path.as_os_str()).map_err(|_| Error::from_rc(op(), -EINVAL))?;
        let timeline = match &config.timeline {
            Some(t) => Some(cpath(t.as_os_str()).map_err(|_| Error::from_rc(op(), -EINVAL))?),
            None => None,
        };
        let mut c = unsafe { std::mem::zeroed::<sys::wf_config>() };
        unsafe { sys::wf_config_init(&mut c) };
        c.ring_events = config.ring_events;
        c.flush_ms = config.flush_ms;
        c.block_when_full = config.block_when_full as i32;
        c.timeline = timeline.as_ref().map_or(std::ptr::null(), |t| t.as_ptr().cast());
        c.timeline_decimals = config.timeline_decimals.into();
        c.sample_cpu = bool_opt(config.sample_cpu);
        c.sample_gpu = bool_opt(config.sample_gpu);
        let _g = OPEN_CLOSE.lock().unwrap_or_else(|e| e.into_inner());
        let rc = unsafe { sys::wf_open_config(p.as_ptr().cast(), &c) };
        if rc != 0 {
            return Err(Error::from_rc(op(), rc));
        }
        GENERATION.fetch_add(1, Ordering::Release);
        Ok(Recorder { path: path.to_path_buf(), open: true })
    }

    /// The path given to `open`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The counters so far (estimates while recording).
    pub fn stats(&self) -> Stats {
        stats()
    }

    /// Drain every ring, finish and `fsync` the file: the exact counters,
    /// or the first write error of the recording.  Marks made by other
    /// threads while it closes may or may not be recorded; none is a crash.
    pub fn close(mut self) -> Result<Stats, Error> {
        self.open = false;
        close(&self.path)
    }
}

fn close(path: &Path) -> Result<Stats, Error> {
    let rc = {
        let _g = OPEN_CLOSE.lock().unwrap_or_else(|e| e.into_inner());
        let rc = unsafe { sys::wf_close() };
        GENERATION.fetch_add(1, Ordering::Release);
        rc
    };
    if rc != 0 {
        return Err(Error::from_rc(format!("finish {}", path.display()), rc));
    }
    Ok(stats())
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if self.open {
            // A write error cannot be returned from drop: close() says it.
            let _ = close(&self.path);
        }
    }
}

/// The counters of the current recording, or of the last one closed.
pub fn stats() -> Stats {
    let mut st = sys::wf_stats_ex { size: std::mem::size_of::<sys::wf_stats_ex>(), ..Default::default() };
    unsafe { sys::wf_get_stats_ex(&mut st) };
    Stats { marked: st.marked, recorded: st.recorded, lost: st.lost, threads: st.threads, units: st.units }
}

