//! A pipeline recorded with the safe API alone, in the pinned form
//! (`Recorder::open`, `Unit::new`, `mark`, `span`, `thread_worker`,
//! `thread_name`): `waterfall analyze --json` gives the jobs, units,
//! stages and utilization the program measured with its own clock.
mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use waterfall::{Event, Recorder, Unit};

#[test]
fn analyze_reads_what_the_api_recorded() {
    let _l = common::lock();
    let dir = common::scratch("api");
    let path = dir.join("api.wft");
    let rec = Recorder::open(&path).expect("open");
    let (tx, rx) = mpsc::sync_channel::<Unit>(1);
    let gpu = std::thread::spawn(move || {
        let t_all = Instant::now();
        waterfall::thread_worker(1, 0);
        waterfall::thread_name(String::from("gpu-worker-1"));
        let mut busy = Vec::new();
        for u in rx {
            u.mark(Event::GpuPickup);
            std::thread::sleep(Duration::from_micros(300)); // prep
            let _g = u.span(Event::GpuStart);
            let t0 = Instant::now();
            {
                let _k = u.span(Event::user("KERNEL"));
                std::thread::sleep(Duration::from_millis(3));
            }
            busy.push((t0, Instant::now()));
        }
        (busy, t_all.elapsed())
    });
    waterfall::thread_name("synthesis");
    let mut synth = Vec::new();
    let t_loop = Instant::now();
    for job in 0..10 {
        let u = Unit::new(&format!("job-{job}"), None);
        // The program's clock is read inside the marks: a thread's first
        // mark also sets up its ring, which takes a while.
        u.mark(Event::SynthStart);
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        synth.push(t0.elapsed());
        u.mark(Event::SynthEnd);
        u.mark(Event::ChanSend);
        tx.send(u).unwrap();
    }
    let loop_s = t_loop.elapsed().as_secs_f64();
    drop(tx);
    let (busy, gpu_s) = gpu.join().unwrap();
    let gpu_s = gpu_s.as_secs_f64();
    let st = rec.close().expect("close");
    assert_eq!((st.recorded, st.lost, st.units), (10 * 8, 0, 10));

    let run = &common::analyze(&path)["runs"][0];
    assert_eq!((run["jobs"].as_u64(), run["units"].as_u64(), run["jobs_completed"].as_u64()), (Some(10), Some(10), Some(10)));
    for stage in ["synthesis", "handoff", "queue", "prep", "gpu"] {
        assert_eq!(run["stages"][stage]["count"], 10, "{stage}");
    }
    assert_eq!(run["devices"][0]["workers"], serde_json::json!([1]));
    // Exact bounds, which hold however busy the machine is (its load only
    // stretches the gaps between the clocks): the marks enclose what the
    // program timed, and lie within the loops that made them.  The two
    // clocks (the trace's, the program's) may differ in rate by a little.
    let tol = |x: f64| 1e-4 * x + 1e-6;
    let b: f64 = busy.iter().map(|(a, e)| (*e - *a).as_secs_f64()).sum();
    let got = run["busy_s"].as_f64().unwrap();
    assert!(got >= b - tol(b), "busy: analyze {got} s, less than the program's kernels {b} s");
    assert!(got <= gpu_s + tol(gpu_s), "busy: analyze {got} s, more than the GPU thread's life {gpu_s} s");
    let s_sum: f64 = synth.iter().map(Duration::as_secs_f64).sum();
    let got = 10.0 * run["stages"]["synthesis"]["mean_s"].as_f64().unwrap();
    assert!(got >= s_sum - tol(s_sum), "synthesis: analyze {got} s in all, less than the program's {s_sum} s");
    assert!(got <= loop_s + tol(loop_s), "synthesis: analyze {got} s in all, more than the loop's {loop_s} s");
    assert_eq!(run["phases"][0]["name"], "KERNEL");
}
