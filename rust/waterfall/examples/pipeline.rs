//! A CPU -> GPU pipeline recorded with the safe API alone: one synthesis
//! thread, one GPU worker, a channel between them.
//!
//!   cd rust && cargo run --example pipeline -- /tmp/rust.wft
//!   ../build/waterfall analyze /tmp/rust.wft
use std::sync::mpsc;
use std::time::Duration;

use waterfall::{Event, Recorder, Unit};

fn main() -> Result<(), waterfall::Error> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "rust.wft".into());
    let rec = Recorder::open(&path)?;

    let (tx, rx) = mpsc::sync_channel::<Unit>(2);
    let gpu = std::thread::spawn(move || {
        waterfall::thread_worker(0, 0); // the GPU worker's role, once
        waterfall::thread_name("gpu-worker-0");
        for u in rx {
            u.mark(Event::GpuPickup);
            let _gpu = u.span(Event::GpuStart); // GPU_START now, GPU_END at the end of the block
            {
                let _prep = u.span(Event::user("PREP_MSM")); // PREP_MSM_START .. PREP_MSM_END
                std::thread::sleep(Duration::from_millis(1));
            }
            let _k = u.span(Event::user("KERNEL")); // KERNEL_START .. KERNEL_END
            std::thread::sleep(Duration::from_millis(4));
        }
    });

    waterfall::thread_name("synthesis");
    for job in 0..8 {
        for partition in 0..2 {
            let u = Unit::new(&format!("job-{job}"), Some(partition)); // once per unit: it takes a lock
            {
                let _s = u.span(Event::SynthStart); // SYNTH_START .. SYNTH_END
                std::thread::sleep(Duration::from_millis(6));
            }
            u.mark(Event::ChanSend);
            tx.send(u).expect("the GPU worker is gone");
        }
    }
    drop(tx);
    gpu.join().expect("the GPU worker panicked");
    let st = rec.close()?;
    eprintln!("{path}: {} events recorded, {} lost, {} units", st.recorded, st.lost, st.units);
    Ok(())
}
