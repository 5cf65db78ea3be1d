// main.rs -- recording from Rust through libwaterfall's C ABI, no crates.
//
// Build against the static library (from the repository root, after `make`):
//   rustc -O examples/rust/main.rs -o build/wf_rust -L build -l static=waterfall
//   build/wf_rust /tmp/rust.wft && build/waterfall dump /tmp/rust.wft
use std::ffi::CString;
use std::os::raw::{c_char, c_int};

// The six events, as in include/waterfall.h.
const WF_SYNTH_START: c_int = 0;
const WF_SYNTH_END: c_int = 1;
const WF_CHAN_SEND: c_int = 2;
const WF_GPU_PICKUP: c_int = 3;
const WF_GPU_START: c_int = 4;
const WF_GPU_END: c_int = 5;

extern "C" {
    fn wf_open(path: *const c_char) -> c_int;
    fn wf_close() -> c_int;
    fn wf_unit_new(job_id: *const c_char, partition: c_int) -> u64;
    fn wf_mark(ev: c_int, unit: u64);
    fn wf_thread_worker(worker: c_int, device: c_int);
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "rust.wft".to_string());
    let cpath = CString::new(path.clone()).expect("path without NUL");
    if unsafe { wf_open(cpath.as_ptr()) } != 0 {
        eprintln!("cannot record to {}", path);
        std::process::exit(1);
    }
    let (tx, rx) = std::sync::mpsc::sync_channel::<u64>(1);
    let gpu = std::thread::spawn(move || {
        unsafe { wf_thread_worker(0, 0) };
        for unit in rx {
            unsafe {
                wf_mark(WF_GPU_PICKUP, unit);
                wf_mark(WF_GPU_START, unit);
                wf_mark(WF_GPU_END, unit);
            }
        }
    });
    for job in 0..3 {
        let id = CString::new(format!("rust-{}", job)).unwrap();
        let unit = unsafe { wf_unit_new(id.as_ptr(), -1) };
        unsafe {
            wf_mark(WF_SYNTH_START, unit);
            wf_mark(WF_SYNTH_END, unit);
            wf_mark(WF_CHAN_SEND, unit);
        }
        tx.send(unit).unwrap();
    }
    drop(tx);
    gpu.join().unwrap();
    std::process::exit(if unsafe { wf_close() } == 0 { 0 } else { 1 });
}
