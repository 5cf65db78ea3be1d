//! Record why the GPU idles in a CPU -> GPU pipeline: the six points of
//! every unit of work, at the cost of reading the clock, into a trace that
//! `waterfall analyze` reads (utilization, idle causes, bottleneck,
//! advice).  A safe API over libwaterfall (the `waterfall-sys` crate), and
//! [`tracing::WaterfallLayer`] for programs instrumented with `tracing`.
//!
//! ```no_run
//! # fn main() -> Result<(), waterfall::Error> {
//! let _rec = waterfall::Recorder::open("trace.wft")?;   // wf_close on drop
//! let u = waterfall::Unit::new("job-1", Some(0));       // a job's partition 0
//! u.mark(waterfall::Event::SynthStart);
//! u.mark(waterfall::Event::SynthEnd);
//! u.mark(waterfall::Event::ChanSend);
//! // on the GPU worker's thread:
//! waterfall::thread_worker(0, 0);
//! waterfall::thread_name("gpu-worker-0");
//! u.mark(waterfall::Event::GpuPickup);
//! {
//!     let _gpu = u.span(waterfall::Event::GpuStart);              // GPU_START .. GPU_END
//!     let _k = u.span(waterfall::Event::user("KERNEL"));          // KERNEL_START .. KERNEL_END
//! }
//! # Ok(()) }
//! ```
//!
//! The recording is the process's (libwaterfall keeps one session): one
//! [`Recorder`] at a time, and `Unit`s are only meaningful while it is
//! open.  Marks never block (by default) and never fail: a full ring drops
//! the mark and counts it ([`Stats::lost`]).  docs/rust.md has the rest.
#![warn(missing_docs)]

mod cbuf;
mod error;
mod event;
mod recorder;
mod thread;
#[cfg(feature = "tracing")]
pub mod tracing;
mod unit;

pub use error::Error;
pub use event::{Event, UserEvent};
pub use recorder::{stats, Config, Recorder, Stats};
pub use thread::{thread_name, thread_worker};
pub use unit::{SpanGuard, Unit};

/// The raw bindings, for what this API does not cover.
pub use waterfall_sys as sys;

/// The version of the library linked at run time, as `"0.2.0"`.
pub fn library_version() -> &'static str {
    let p = unsafe { sys::wf_version_string() };
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap_or("?")
}
