//! A process killed with SIGKILL keeps every mark that returned, through
//! the rings file (docs/format.md, "The rings file"), as tests/test_crash.c
//! checks for C: marks made through `Unit::mark` and through the tracing
//! Layer alike, since neither holds a mark back from the library.
//!
//! The test runs itself as the child (argument `child`): it marks unit i
//! (job `crash-i`, one event each, every other one through `tracing`) and
//! after each mark reports in a shared file how many have returned.  The
//! parent kills it at a moment that varies from round to round, then reads
//! the trace with `waterfall dump`, which takes what the trace lacks from
//! `TRACE.rings`.  One round stops the writer for good first
//! (WATERFALL_TEST_STALL, test-only): its later marks are in the rings
//! file alone.
mod common;

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use waterfall::{Event, Recorder, Unit};

const STALL_AFTER: u64 = 5000; // the stall round: marks before the writer stops...
const STALL_MARKS: u64 = 20000; // ...and after it (fewer than a ring holds)

/// [marks returned, stalled flag], in a file both processes map.
struct Progress(&'static [AtomicU64; 2]);

impl Progress {
    fn map(path: &Path) -> Progress {
        let f = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).unwrap();
        f.set_len(4096).unwrap();
        let p = unsafe { libc::mmap(std::ptr::null_mut(), 4096, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, f.as_raw_fd(), 0) };
        assert_ne!(p, libc::MAP_FAILED, "mmap {}", path.display());
        Progress(unsafe { &*(p as *const [AtomicU64; 2]) })
    }
}

fn child() {
    let trace = PathBuf::from(std::env::var_os("WF_CRASH_TRACE").unwrap());
    let progress = Progress::map(Path::new(&std::env::var_os("WF_CRASH_PROGRESS").unwrap()));
    let stall = std::env::var_os("WATERFALL_TEST_STALL").map(PathBuf::from);
    use tracing_subscriber::prelude::*;
    tracing_subscriber::registry().with(waterfall::tracing::WaterfallLayer::new()).init();
    let _rec = Recorder::open(&trace).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    for i in 0u64.. {
        if let (Some(stall), STALL_AFTER) = (&stall, i) {
            std::fs::write(stall, b"").unwrap(); // the writer stops at its next pass
            std::thread::sleep(Duration::from_millis(30)); // three of its periods: it has stopped
        }
        if stall.is_some() && i == STALL_AFTER + STALL_MARKS {
            progress.0[1].store(1, Ordering::Release);
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        let job = format!("crash-{i}");
        if i % 2 == 0 {
            let u = Unit::new(&job, None);
            u.detail("kind", "even").unwrap(); // a definition: from the journal when the writer did not run
            u.mark(Event::GpuStart);
        } else {
            tracing::info!(target: "TIMELINE", job = job.as_str(), "gpu_start");
        }
        progress.0[0].store(i + 1, Ordering::Release);
        if i % 100 == 99 {
            std::thread::sleep(Duration::from_micros(100)); // pace it: ~1M marks/s would fill the disk
        }
    }
}

/// One round: start the child, kill it once it has made `kill_after`
/// marks (or has stalled), check the trace.  Returns the marks checked.
fn round(dir: &Path, r: usize, kill_after: u64, stalling: bool) -> u64 {
    let trace = dir.join(format!("crash-{r}.wft"));
    let prog_path = dir.join(format!("progress-{r}"));
    let progress = Progress::map(&prog_path);
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.arg("child").env("WF_CRASH_TRACE", &trace).env("WF_CRASH_PROGRESS", &prog_path).stdout(Stdio::null());
    cmd.env_remove("WATERFALL_TRACE");
    if stalling {
        cmd.env("WATERFALL_TEST_STALL", dir.join(format!("stall-{r}")));
    }
    let mut child = cmd.spawn().expect("spawn the child");
    let t0 = Instant::now();
    loop {
        let done = if stalling { progress.0[1].load(Ordering::Acquire) == 1 } else { progress.0[0].load(Ordering::Acquire) >= kill_after };
        if done {
            break;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!("round {r}: the child exited by itself: {st}");
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "round {r}: the child made no progress");
        std::thread::sleep(Duration::from_micros(200));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let n = progress.0[0].load(Ordering::Acquire); // every mark that returned
    assert!(trace.with_extension("wft.rings").exists(), "round {r}: no rings file beside the unfinished trace");

    let mut seen: HashMap<u64, u32> = HashMap::new();
    for l in common::dump(&trace) {
        assert_eq!(l[1], "GPU_START", "{l:?}");
        let i: u64 = l[2].strip_prefix("crash-").and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{l:?}"));
        assert_eq!(l.last().map(String::as_str) == Some("kind=even"), i % 2 == 0, "round {r}: {l:?}");
        *seen.entry(i).or_default() += 1;
    }
    let missing: Vec<u64> = (0..n).filter(|i| !seen.contains_key(i)).take(5).collect();
    assert!(missing.is_empty(), "round {r}: {} of {n} returned marks missing, first {missing:?}", (0..n).filter(|i| !seen.contains_key(i)).count());
    let twice: Vec<_> = seen.iter().filter(|(_, &c)| c > 1).take(5).collect();
    assert!(twice.is_empty(), "round {r}: marks read twice: {twice:?}");
    if stalling {
        let stats = common::dump_stats(&trace);
        assert!(stats.contains("rings:"), "{stats}");
    }
    eprintln!("crash round {r}: killed after {n} marks{}, all {n} in the trace", if stalling { " (writer stopped)" } else { "" });
    n
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("child") {
        return child();
    }
    // `cargo test -- --list` and filters: this is one test, named crash.
    if std::env::args().any(|a| a == "--list") {
        println!("crash: test");
        return;
    }
    let dir = common::scratch("crash");
    let mut total = 0;
    for (r, kill_after) in [1u64, 777, 5000, 20011].into_iter().enumerate() {
        total += round(&dir, r, kill_after, false);
    }
    total += round(&dir, 4, 0, true);
    assert!(total > STALL_AFTER + STALL_MARKS);
    let _ = std::fs::remove_dir_all(&dir);
    println!("test crash ... ok ({total} marks checked over 5 rounds)");
}
