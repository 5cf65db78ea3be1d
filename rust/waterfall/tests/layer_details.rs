//! The Layer's rules one by one, read back by `waterfall dump`: how the
//! job, partition, worker, device and kind are read (fields of every kind,
//! words in the message), the thread's declared role coming back after an
//! event that named a worker, a span whose job is recorded after its
//! creation, inheritance of an enclosing span's unit, another target, and
//! what is skipped and counted.
mod common;

use tracing::{info, info_span};
use tracing_subscriber::prelude::*;
use waterfall::tracing::WaterfallLayer;
use waterfall::Event;

#[test]
fn the_layers_rules() {
    let _l = common::lock();
    let dir = common::scratch("layer");
    let path = dir.join("layer.wft");
    let layer = WaterfallLayer::open(&path).expect("open").map_span("late", "LATE").map_span("never", "NEVER").map_span("outer", Event::SynthStart);
    let skipped = waterfall::tracing::skipped();
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        waterfall::thread_worker(5, 2); // declared: later marks without fields carry it
        let id = String::from("j-debug");
        info!(target: "TIMELINE", job = ?id, partition = 1u8, kind = "porep", "Synth_Start"); // ?id: quotes removed; kind: the unit's
        info!(target: "TIMELINE", job = ?id, partition = 1u8, kind = %"snap", "synth_end"); // the first kind stays
        info!(target: "TIMELINE", job = 77, "synth_start"); // an integer job
        info!(target: "TIMELINE", "GPU_START job=j-msg worker=3 partition=2"); // words of the message
        info!(target: "TIMELINE", job = "j-gpu", gpu = 4, "gpu_end"); // a device without a worker
        info!(target: "TIMELINE", job = "j-back", "gpu_queue"); // the declared role again; CHAN_SEND
        info!(target: "OTHER", job = "j-x", "gpu_end"); // another target: ignored
        info!(target: "TIMELINE", job = "j-x"); // no name: skipped
        {
            let s = info_span!("late", job = tracing::field::Empty);
            let _e = s.enter();
            s.record("job", "j-late"); // LATE_START now
        } // LATE_END
        drop(info_span!("never")); // mapped, never a job: skipped
        {
            let _o = info_span!("outer", job = "j-outer", partition = 9).entered();
            info!(target: "TIMELINE", "custom_mark"); // the enclosing span's unit
        }
    });
    assert_eq!(waterfall::tracing::skipped() - skipped, 2);
    drop(tracing_subscriber::registry().with(WaterfallLayer::new().target("MINE"))); // builds; marks nothing here
    // The recording closed with the subscriber (the Layer owned it).
    let lines: Vec<String> = common::dump(&path).into_iter().map(|l| l[1..].join(",")).collect();
    let want = [
        "SYNTH_START,j-debug,worker=5,partition=1,device=2,kind=porep",
        "SYNTH_END,j-debug,worker=5,partition=1,device=2,kind=porep",
        "SYNTH_START,77,worker=5,device=2",
        "GPU_START,j-msg,worker=3,partition=2,device=0",
        "GPU_END,j-gpu,worker=0,device=4",
        "CHAN_SEND,j-back,worker=5,device=2",
        "LATE_START,j-late,worker=5,device=2",
        "LATE_END,j-late,worker=5,device=2",
        "SYNTH_START,j-outer,worker=5,partition=9,device=2",
        "CUSTOM_MARK,j-outer,worker=5,partition=9,device=2",
        "SYNTH_END,j-outer,worker=5,partition=9,device=2",
    ];
    assert_eq!(lines, want);
}
