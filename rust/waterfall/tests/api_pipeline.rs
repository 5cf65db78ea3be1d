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
        busy
    });
    waterfall::thread_name("synthesis");
    let mut synth = Vec::new();
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
    drop(tx);
    let busy = gpu.join().unwrap();
    let st = rec.close().expect("close");
    assert_eq!((st.recorded, st.lost, st.units), (10 * 8, 0, 10));

    let run = &common::analyze(&path)["runs"][0];
    assert_eq!((run["jobs"].as_u64(), run["units"].as_u64(), run["jobs_completed"].as_u64()), (Some(10), Some(10), Some(10)));
    for stage in ["synthesis", "handoff", "queue", "prep", "gpu"] {
        assert_eq!(run["stages"][stage]["count"], 10, "{stage}");
    }
    assert_eq!(run["devices"][0]["workers"], serde_json::json!([1]));
    let window = (busy[0].0, busy[busy.len() - 1].1);
    let b: f64 = busy.iter().map(|(a, e)| (*e - *a).as_secs_f64()).sum();
    let want = b / (window.1 - window.0).as_secs_f64();
    let got = run["utilization"].as_f64().unwrap();
    assert!((got - want).abs() < 0.02, "utilization: analyze {got}, the program {want}");
    let s_mean = synth.iter().map(Duration::as_secs_f64).sum::<f64>() / 10.0;
    let got = run["stages"]["synthesis"]["mean_s"].as_f64().unwrap();
    assert!((got - s_mean).abs() < 0.03 * s_mean, "synthesis mean: analyze {got}, the program {s_mean}");
    assert_eq!(run["phases"][0]["name"], "KERNEL");
}
