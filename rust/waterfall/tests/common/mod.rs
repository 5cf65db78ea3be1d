//! What the integration tests share: the `waterfall` command that reads
//! their traces back, scratch files, and a lock (the recording is the
//! process's, and the tests of one file run on several threads).
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Held by every test that records.
pub fn lock() -> MutexGuard<'static, ()> {
    static L: Mutex<()> = Mutex::new(());
    L.lock().unwrap_or_else(|e| e.into_inner())
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `waterfall` command: WATERFALL_BIN, else the repository's
/// build/waterfall (`make`), else one built here with CMake (a fresh clone).
pub fn waterfall_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(b) = std::env::var_os("WATERFALL_BIN") {
            let b = PathBuf::from(b);
            assert!(b.is_file(), "WATERFALL_BIN={} is not a file", b.display());
            return b;
        }
        let built = repo().join("build/waterfall");
        if built.is_file() {
            return built;
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("waterfall-cmake");
        eprintln!("no build/waterfall: building it with CMake into {} (or run `make`, or set WATERFALL_BIN)", dir.display());
        let run = |args: &[&str]| {
            let st = Command::new("cmake").args(args).status().unwrap_or_else(|e| {
                panic!("cannot run cmake ({e}): the tests read their traces with the `waterfall` command; run `make` in the repository, or set WATERFALL_BIN")
            });
            assert!(st.success(), "cmake {args:?} failed");
        };
        let (src, b) = (repo().display().to_string(), dir.display().to_string());
        run(&["-S", &src, "-B", &b]);
        run(&["--build", &b, "--target", "waterfall", "-j", "2"]);
        dir.join("waterfall")
    })
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `waterfall ARGS...`'s stdout; panics with its stderr when it fails.
pub fn waterfall(args: &[&str]) -> String {
    let out = Command::new(waterfall_bin()).args(args).output().expect("run waterfall");
    assert!(out.status.success(), "waterfall {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// `waterfall dump --stats`'s stderr (the recording's counters).
pub fn dump_stats(trace: &Path) -> String {
    let out = Command::new(waterfall_bin()).args(["dump", "--stats"]).arg(trace).output().expect("run waterfall");
    assert!(out.status.success(), "waterfall dump --stats: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The TIMELINE lines of `waterfall dump TRACE`, split at commas:
/// [ms, EVENT, job, detail...].
pub fn dump(trace: &Path) -> Vec<Vec<String>> {
    waterfall(&["dump", trace.to_str().unwrap()])
        .lines()
        .filter_map(|l| l.strip_prefix("TIMELINE,"))
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// `waterfall analyze --json TRACE`, parsed.
pub fn analyze(trace: &Path) -> serde_json::Value {
    serde_json::from_str(&waterfall(&["analyze", "--json", trace.to_str().unwrap()])).expect("analyze --json is JSON")
}
