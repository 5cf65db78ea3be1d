//! A daemon instrumented with `tracing` only, as cuzk is: TIMELINE events
//! in the seed's form, and spans.  Its existing registry (here a `fmt`
//! layer on stderr) gains one line: the WaterfallLayer.
//!
//!   cd rust && cargo run --example tracing_pipeline -- /tmp/tracing.wft
//!   ../build/waterfall analyze /tmp/tracing.wft
use std::sync::mpsc;
use std::time::Duration;

use tracing::{info, info_span};
use tracing_subscriber::prelude::*;
use waterfall::tracing::WaterfallLayer;
use waterfall::Event;

fn main() -> Result<(), waterfall::Error> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "tracing.wft".into());
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        // The one line: TIMELINE events become marks; the `prove` span is
        // the GPU stage, `msm` a phase inside it.
        .with(WaterfallLayer::open(&path)?.map_span("prove", Event::GpuStart).map_span("msm", "MSM"))
        .init();

    let (tx, rx) = mpsc::sync_channel::<(String, u32)>(2);
    let gpu = std::thread::spawn(move || {
        for (id, partition) in rx {
            info!(target: "TIMELINE", job = %id, partition, worker = 0, "gpu_pickup");
            let _prove = info_span!("prove", job = %id, partition, worker = 0, gpu = 0).entered();
            {
                let _msm = info_span!("msm").entered(); // the unit is the enclosing span's
                std::thread::sleep(Duration::from_millis(1));
            }
            let _kernel = info_span!("kernel").entered(); // not mapped: no mark
            std::thread::sleep(Duration::from_millis(4));
        }
    });
    for job in 0..6 {
        let id = format!("sector-{job}");
        for partition in 0..2u32 {
            info!(target: "TIMELINE", job = %id, partition, "synth_start");
            std::thread::sleep(Duration::from_millis(6));
            info!(target: "TIMELINE", job = %id, partition, "synth_end");
            info!(target: "TIMELINE", job = %id, partition, "GPU_QUEUE"); // = CHAN_SEND
            tx.send((id.clone(), partition)).expect("the GPU worker is gone");
        }
    }
    drop(tx);
    gpu.join().expect("the GPU worker panicked");
    // The global subscriber is never dropped: libwaterfall closes the
    // trace at exit.
    Ok(())
}
