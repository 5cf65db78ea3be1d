//! A multi-threaded pipeline instrumented only with `tracing` (spans and
//! TIMELINE events, through WaterfallLayer): `waterfall analyze --json` of
//! its trace gives the jobs, units, stages, phases and utilization that the
//! program measured itself, with its own clock, around the same spans.
mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use tracing::{info, info_span};
use tracing_subscriber::prelude::*;
use waterfall::tracing::WaterfallLayer;
use waterfall::Event;

const JOBS: usize = 16;
const PARTS: u32 = 2;
const SYNTH: Duration = Duration::from_millis(6);
const PREP: Duration = Duration::from_micros(500);
const KERNEL: Duration = Duration::from_millis(2);

/// What the program measured: intervals on its own clock.
#[derive(Default)]
struct Truth {
    synth: Vec<(Instant, Instant)>,
    gpu: Vec<(Instant, Instant)>,
    kernel: Vec<(Instant, Instant)>,
    synth_threads_s: f64, // the synthesis threads' lives, together
    gpu_thread_s: f64,    // the GPU worker's life
}

fn synthesis(rx: std::sync::Arc<std::sync::Mutex<mpsc::Receiver<(usize, u32)>>>, tx: mpsc::SyncSender<(String, u32)>) -> (Vec<(Instant, Instant)>, f64) {
    let life = Instant::now();
    let mut spans = Vec::new();
    loop {
        let Ok((j, p)) = rx.lock().unwrap().recv() else { return (spans, life.elapsed().as_secs_f64()) };
        let id = format!("job-{j}");
        {
            let kind = if p == 0 { "porep" } else { "snap" };
            let _s = info_span!("synthesize", job = %id, partition = p, kind).entered();
            let t0 = Instant::now();
            std::thread::sleep(SYNTH);
            spans.push((t0, Instant::now()));
        }
        info!(target: "TIMELINE", job = %id, partition = p, "chan_send");
        tx.send((id, p)).unwrap();
    }
}

fn gpu_worker(rx: mpsc::Receiver<(String, u32)>) -> Truth {
    let life = Instant::now();
    let mut t = Truth::default();
    for (id, p) in rx {
        info!(target: "TIMELINE", job = id.as_str(), partition = p, worker = 0, "GPU_PICKUP");
        let _prove = info_span!("prove", job = %id, partition = p, worker = 0, gpu = 0).entered();
        let g0 = Instant::now();
        {
            let _prep = info_span!("prep_msm").entered(); // the unit is the enclosing span's
            std::thread::sleep(PREP);
        }
        {
            let _k = info_span!("kernel").entered();
            let k0 = Instant::now();
            std::thread::sleep(KERNEL);
            t.kernel.push((k0, Instant::now()));
        }
        info!(target: "TIMELINE", "msm_done"); // a mark, on the span's unit
        info!("not a TIMELINE event: ignored");
        t.gpu.push((g0, Instant::now()));
    }
    t.gpu_thread_s = life.elapsed().as_secs_f64();
    t
}

#[test]
fn analyze_reads_what_the_program_did() {
    let _l = common::lock();
    let dir = common::scratch("tracing");
    let path = dir.join("pipeline.wft");
    let layer = WaterfallLayer::open(&path)
        .expect("open")
        .map_span("synthesize", Event::SynthStart)
        .map_span("prove", Event::GpuStart)
        .map_span("prep_msm", "PREP_MSM")
        .map_span("kernel", "KERNEL_START");
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    let skipped_before = waterfall::tracing::skipped();

    let (job_tx, job_rx) = mpsc::channel();
    let job_rx = std::sync::Arc::new(std::sync::Mutex::new(job_rx));
    let (gpu_tx, gpu_rx) = mpsc::sync_channel(2);
    let synth: Vec<_> = (0..2)
        .map(|_| {
            let (d, rx, tx) = (dispatch.clone(), job_rx.clone(), gpu_tx.clone());
            std::thread::spawn(move || tracing::dispatcher::with_default(&d, || synthesis(rx, tx)))
        })
        .collect();
    drop(gpu_tx);
    let d = dispatch.clone();
    let gpu = std::thread::spawn(move || tracing::dispatcher::with_default(&d, || gpu_worker(gpu_rx)));
    for j in 0..JOBS {
        for p in 0..PARTS {
            job_tx.send((j, p)).unwrap();
        }
    }
    drop(job_tx);
    let mut truth = gpu.join().unwrap();
    for s in synth {
        let (spans, life) = s.join().unwrap();
        truth.synth.extend(spans);
        truth.synth_threads_s += life;
    }
    tracing::dispatcher::with_default(&dispatch, || info!(target: "TIMELINE", "orphan")); // no job: skipped, counted
    assert_eq!(waterfall::tracing::skipped() - skipped_before, 1);
    drop(dispatch); // the last handle on the Layer: the recording closes

    let units = JOBS * PARTS as usize;
    let json = common::analyze(&path);
    let run = &json["runs"][0];
    assert_eq!(json["runs"].as_array().unwrap().len(), 1);
    assert_eq!(run["format"], "native");
    assert_eq!(run["jobs"], JOBS);
    assert_eq!(run["units"], units);
    assert_eq!(run["jobs_completed"], JOBS);
    assert_eq!(run["in_flight"], 0);
    assert_eq!(run["lost_events"], 0);
    assert_eq!(run["events"], units * 11, "6 events, 2 phases and a mark a unit");
    for stage in ["synthesis", "handoff", "queue", "prep", "gpu"] {
        assert_eq!(run["stages"][stage]["count"], units, "{stage}");
    }
    assert_eq!(run["devices"][0]["workers"], serde_json::json!([0]));
    assert_eq!(run["marks"]["MSM_DONE"], units);
    for kind in ["porep", "snap"] {
        // the span's `kind` field: a detail of the unit, as kind= in a text line
        assert_eq!(run["by_kind"][kind]["units"], units / 2, "{kind}: {}", run["by_kind"]);
        assert_eq!(run["by_kind"][kind]["stages"]["gpu"]["count"], units / 2);
    }
    for (name, count) in [("PREP_MSM", units), ("KERNEL", units)] {
        let ph = run["phases"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("phase {name}: {}", run["phases"]));
        assert_eq!((ph["within"].as_str(), ph["count"].as_u64()), (Some("gpu"), Some(count as u64)));
    }

    // The figures, against the program's own clock: exact bounds, which
    // hold however busy the machine is (its load only stretches the gaps
    // between the clocks).  The program read its clock inside each span, so
    // the trace's spans enclose its intervals; and they lie within the
    // lives of the threads that made them.  The two clocks may differ in
    // rate by a little.
    let tol = |x: f64| 1e-4 * x + 1e-6;
    let sum = |v: &[(Instant, Instant)]| v.iter().map(|(a, b)| (*b - *a).as_secs_f64()).sum::<f64>();
    let within = |what: &str, got: f64, lo: f64, hi: f64| {
        assert!(got >= lo - tol(lo) && got <= hi + tol(hi), "{what}: analyze says {got} s, the program bounds it to [{lo}, {hi}] s")
    };
    let n = units as f64;
    within("synthesis, all units", n * run["stages"]["synthesis"]["mean_s"].as_f64().unwrap(), sum(&truth.synth), truth.synth_threads_s);
    within("GPU phase, all units", n * run["stages"]["gpu"]["mean_s"].as_f64().unwrap(), sum(&truth.gpu), truth.gpu_thread_s);
    let busy = run["busy_s"].as_f64().unwrap();
    within("busy", busy, sum(&truth.gpu), truth.gpu_thread_s);
    within("kernel busy", run["devices"][0]["kernel_busy_s"].as_f64().unwrap(), sum(&truth.kernel), busy);
}
