//! What recording from Rust costs, side by side in one run
//! (`cd rust && cargo bench --offline`; docs/bench.md has a run):
//!
//! - `wf_mark` called directly (waterfall-sys), and `Unit::mark`;
//! - a TIMELINE event through the WaterfallLayer, in the seed's form
//!   `info!(target: "TIMELINE", job = %id, partition = 3, "synth_start")`,
//!   and the same event through tracing-subscriber's `fmt` layer writing
//!   it to a file (the daemon's log as it is);
//! - a mapped span (`prep_msm`, its job a field: two marks) through the
//!   Layer, the same span through a bare registry (tracing's own cost),
//!   and through `fmt` printing its new and close (two lines).
//!
//! As bench/bench_mark.c does: the methods take turns round by round, each
//! row is the median over the rounds (the minimum beside it); a round is
//! batches of 16384 events (a quarter of the default ring), and after
//! each batch the bench waits, outside the timing, for the writer to drain
//! the ring, so that every timed mark takes the recording path, never the
//! ring-full drop.  The fmt rows write a quarter as many events.  A
//! benchmark, never a test: the ratios it prints are results.
use std::fs::File;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::{info, info_span, Dispatch};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::prelude::*;
use waterfall::tracing::WaterfallLayer;
use waterfall::{Event, Recorder, Unit};

const BATCH: usize = 16384;
const UNITS: usize = 64;

struct Method {
    name: &'static str,
    batches: usize,
    /// Runs one batch and returns its time.
    run: Box<dyn FnMut() -> Duration>,
    ns: Vec<f64>,
}

fn env(name: &str, d: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

fn drain() {
    // The writer's period is 10 ms: after 12 ms the ring is empty.
    std::thread::sleep(Duration::from_millis(12));
}

fn main() {
    // `cargo bench` passes --bench; `cargo test` runs benches with no
    // such flag only when asked (--benches): then a single quick round.
    let quick = !std::env::args().any(|a| a == "--bench") || std::env::var_os("WF_BENCH_QUICK").is_some();
    let rounds = if quick { 1 } else { env("WF_BENCH_ROUNDS", 9) };
    let batches = if quick { 1 } else { env("WF_BENCH_BATCHES", 8) };
    let dir = std::env::temp_dir().join(format!("wf-rust-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = Recorder::open(dir.join("bench.wft")).expect("open the trace");

    let ids: Vec<String> = (0..UNITS).map(|i| format!("job-{i}")).collect();
    let units: Vec<Unit> = ids.iter().map(|id| Unit::new(id, Some(3))).collect();
    let sys_units: Vec<u64> = units.iter().map(|u| u.id()).collect();

    let layer = Dispatch::new(tracing_subscriber::registry().with(WaterfallLayer::new().map_span("prep_msm", "PREP_MSM")));
    let bare = Dispatch::new(tracing_subscriber::registry());
    let fmt_file = |name: &str, spans: FmtSpan| {
        let f = File::create(dir.join(name)).unwrap();
        Dispatch::new(tracing_subscriber::registry().with(tracing_subscriber::fmt::layer().with_span_events(spans).with_writer(Mutex::new(f))))
    };
    let fmt = fmt_file("fmt.log", FmtSpan::NONE);
    let fmt_spans = fmt_file("fmt-spans.log", FmtSpan::NEW | FmtSpan::CLOSE);

    let timed = |f: &mut dyn FnMut(usize)| {
        let t = Instant::now();
        for i in 0..BATCH {
            f(i);
        }
        t.elapsed()
    };
    let timeline_event = move |d: Dispatch, ids: Vec<String>, n: usize| -> Box<dyn FnMut() -> Duration> {
        Box::new(move || {
            tracing::dispatcher::with_default(&d, || {
                let t = Instant::now();
                for i in 0..n {
                    let id = &ids[i % UNITS];
                    info!(target: "TIMELINE", job = %id, partition = 3, "synth_start");
                }
                t.elapsed()
            })
        })
    };
    let mapped_span = move |d: Dispatch, ids: Vec<String>, n: usize| -> Box<dyn FnMut() -> Duration> {
        Box::new(move || {
            tracing::dispatcher::with_default(&d, || {
                let t = Instant::now();
                for i in 0..n {
                    let id = &ids[i % UNITS];
                    info_span!("prep_msm", job = %id, partition = 3).in_scope(|| black_box(i));
                }
                t.elapsed()
            })
        })
    };
    let (u2, s2) = (units.clone(), sys_units.clone());
    let mut methods = vec![
        Method {
            name: "wf_mark (waterfall-sys)",
            batches,
            run: Box::new(move || {
                timed(&mut |i| unsafe { waterfall::sys::wf_mark((i % 6) as i32, s2[i % UNITS]) })
            }),
            ns: vec![],
        },
        Method { name: "Unit::mark", batches, run: Box::new(move || timed(&mut |i| u2[i % UNITS].mark(SIX[i % 6]))), ns: vec![] },
        Method { name: "TIMELINE event, WaterfallLayer", batches, run: timeline_event(layer.clone(), ids.clone(), BATCH), ns: vec![] },
        Method { name: "TIMELINE event, fmt layer to a file", batches: batches.div_ceil(4), run: timeline_event(fmt, ids.clone(), BATCH), ns: vec![] },
        Method { name: "mapped span, WaterfallLayer (2 marks)", batches, run: mapped_span(layer, ids.clone(), BATCH / 2), ns: vec![] },
        Method { name: "the same span, bare registry", batches, run: mapped_span(bare, ids.clone(), BATCH / 2), ns: vec![] },
        Method { name: "the same span, fmt new+close to a file", batches: batches.div_ceil(4), run: mapped_span(fmt_spans, ids, BATCH / 2), ns: vec![] },
    ];
    let per_batch = [BATCH, BATCH, BATCH, BATCH, BATCH / 2, BATCH / 2, BATCH / 2];

    for r in 0..rounds {
        for k in 0..methods.len() {
            let m = (r + k) % methods.len(); // the starting method rotates
            let mut total = Duration::ZERO;
            for _ in 0..methods[m].batches {
                total += (methods[m].run)();
                drain();
            }
            let n = (methods[m].batches * per_batch[m]) as f64;
            methods[m].ns.push(total.as_nanos() as f64 / n);
        }
    }
    let st = rec.close().expect("close the trace");

    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| c.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap().trim().to_string())).unwrap_or_default();
    println!("waterfall Rust bench: {rounds} rounds, methods interleaved round-robin; batches of {BATCH} events (spans: {} spans)", BATCH / 2);
    println!("  {} CPUs online ({cpu}), nothing pinned; libwaterfall {}\n", std::thread::available_parallelism().map_or(0, |n| n.get()), waterfall::library_version());
    println!("  {:<42} {:>12} {:>10}", "method", "median ns", "min ns");
    let mut med = Vec::new();
    for m in &mut methods {
        m.ns.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = m.ns[m.ns.len() / 2];
        med.push(median);
        println!("  {:<42} {:>12.2} {:>10.2}   {}", m.name, median, m.ns[0], if m.name.contains("span") { "per span" } else { "per event" });
    }
    println!();
    println!("  Unit::mark / wf_mark             = {:>8.2}   (target <= 1.2)   {}", med[1] / med[0], verdict(med[1] / med[0] <= 1.2));
    println!("  fmt event / Layer event          = {:>8.2}   (target >= 10)    {}", med[3] / med[2], verdict(med[3] / med[2] >= 10.0));
    println!("  Layer event / wf_mark            = {:>8.2}", med[2] / med[0]);
    println!("  Layer span - bare registry span  = {:>8.2} ns (the Layer's own cost of a mapped span)", med[4] - med[5]);
    println!("  fmt span / Layer span            = {:>8.2}", med[6] / med[4]);
    println!("\n  recording during the rounds: marked {}, recorded {}, lost {}", st.marked, st.recorded, st.lost);
    let _ = std::fs::remove_dir_all(&dir);
}

const SIX: [Event; 6] = [Event::SynthStart, Event::SynthEnd, Event::ChanSend, Event::GpuPickup, Event::GpuStart, Event::GpuEnd];

fn verdict(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "MISS"
    }
}

