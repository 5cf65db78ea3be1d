//! Dropping the Recorder while other threads still mark is safe: no crash,
//! the trace is finished and readable, what the rings could not take is
//! counted as lost, and the marks after the close are ignored.  Threads
//! mark through `Unit::mark`, `Unit::span` and the tracing Layer.
mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tracing_subscriber::prelude::*;
use waterfall::{Config, Event, Recorder, Unit};

const THREADS: usize = 4;

#[test]
fn drop_while_marking() {
    let _l = common::lock();
    let dir = common::scratch("drop");
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(waterfall::tracing::WaterfallLayer::new()));
    for round in 0..5 {
        let path = dir.join(format!("drop-{round}.wft"));
        // A small ring and a slow writer: the markers outrun it, and the
        // rings drop marks, which must be counted.
        let rec = Recorder::with_config(&path, Config::new().ring_events(64).flush_ms(20)).expect("open");
        let stop = Arc::new(AtomicBool::new(false));
        let attempts = Arc::new(AtomicU64::new(0));
        let progress = Arc::new(AtomicU64::new(0)); // attempts so far, all threads
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let (stop, attempts, progress, d) = (stop.clone(), attempts.clone(), progress.clone(), dispatch.clone());
                std::thread::spawn(move || {
                    tracing::dispatcher::with_default(&d, || {
                        let u = Unit::new(&format!("drop-{t}"), Some(t as u32));
                        let kernel = Event::user("KERNEL");
                        let mut n = 0u64;
                        while !stop.load(Ordering::Relaxed) {
                            match n % 3 {
                                0 => u.mark(Event::GpuStart),
                                1 => drop(u.span(kernel)),
                                _ => tracing::info!(target: "TIMELINE", job = "drop-tracing", partition = t, "gpu_end"),
                            }
                            n += 1;
                            progress.fetch_add(if n % 3 == 2 { 2 } else { 1 }, Ordering::Relaxed); // a span is two marks
                        }
                        attempts.fetch_add(n, Ordering::Relaxed);
                    })
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(30));
        let st = rec.close().expect("close while marking"); // the threads go on marking
        // until they have marked some more after the close, whatever the load
        // (a bounded wait: on a loaded machine 20 ms could pass with none)
        let after = progress.load(Ordering::Relaxed) + 100;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while progress.load(Ordering::Relaxed) < after && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().expect("a marking thread panicked");
        }
        // Nothing recorded after the close: the counters are those of close.
        assert_eq!(waterfall::stats(), st);
        assert!(st.lost > 0, "round {round}: a 64-slot ring outrun by {THREADS} threads dropped nothing? {st:?}");
        assert!(st.marked < progress.load(Ordering::Relaxed), "marks after the close were taken: {st:?}");
        assert_eq!(st.marked, st.recorded + st.lost, "round {round}: every mark is recorded or counted lost: {st:?}");
        let lines = common::dump(&path);
        assert_eq!(lines.len() as u64, st.recorded, "round {round}");
        let stats = common::dump_stats(&path);
        assert!(stats.contains("closed:    yes"), "{stats}");
        assert!(stats.contains(&format!("lost:      {}", st.lost)), "{stats}");
    }
}
