//! [`WaterfallLayer`]: a `tracing_subscriber::Layer` that turns a program's
//! `tracing` instrumentation into libwaterfall marks (feature `tracing`).
//!
//! One line on an existing registry:
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//! # fn main() -> Result<(), waterfall::Error> {
//! tracing_subscriber::registry()
//!     .with(waterfall::tracing::WaterfallLayer::open("trace.wft")?)
//!     .init();
//! # Ok(()) }
//! ```
//!
//! **Events.** Every event whose target is `TIMELINE` becomes a mark, as
//! the seed's daemon writes them:
//! `info!(target: "TIMELINE", job = %id, partition = 3, "synth_start")`.
//! The message's first word names the event, in any case (`GPU_QUEUE` is
//! CHAN_SEND); a name that is not one of the six is a user event (upper
//! case; `PREP_MSM_START`/`PREP_MSM_END` make a phase).  The fields:
//!
//! | field | becomes |
//! |---|---|
//! | `job` | the unit's job id (`%id`, `?id`, a string or an integer) |
//! | `partition` | the unit's partition |
//! | `worker` | the thread's worker for this mark (device 0 unless given) |
//! | `gpu` or `device` | the thread's device for this mark |
//! | `kind` | a detail of the unit (`Unit::detail`), given once per unit |
//!
//! `key=value` words after the name in the message count as those fields
//! when they are not given as fields.  An event without `job` takes the
//! unit of the nearest enclosing span that has one.  Other fields
//! (`synth_ms`, ...) are not recorded.
//!
//! **Spans.** [`WaterfallLayer::map_span`] makes a span a stage or a phase:
//! `map_span("prep_msm", "PREP_MSM")` marks PREP_MSM_START when a span named
//! `prep_msm` is created and PREP_MSM_END when it closes;
//! `map_span("synthesize", Event::SynthStart)` marks SYNTH_START and
//! SYNTH_END.  The span's unit is its `job` (and `partition`) field, or
//! its nearest ancestor's.
//!
//! **Cost.** No allocation and no formatting beyond the message and any
//! `%`/`?` field, into stack buffers; the unit of a (job, partition) and
//! an event's name are cached (`cache.rs`).  docs/bench.md has the figures.
mod cache;
mod fields;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing_core::span::{Attributes, Id, Record};
use tracing_core::{Event as TracingEvent, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::{LookupSpan, SpanRef};

use crate::thread::use_role;
use crate::{Config, Error, Event, Recorder, Unit};
use fields::Fields;

static SKIPPED: AtomicU64 = AtomicU64::new(0);

/// TIMELINE events and mapped spans the Layer could not mark, since the
/// program started: no event name in the message, or no job (neither a
/// field nor an enclosing span's).  Never silently dropped: counted here.
pub fn skipped() -> u64 {
    SKIPPED.load(Ordering::Relaxed)
}

fn skip() {
    SKIPPED.fetch_add(1, Ordering::Relaxed);
}

/// A `tracing_subscriber::Layer` that records TIMELINE events and mapped
/// spans into libwaterfall (module docs).  It records into the process's
/// recording: the one it opened ([`WaterfallLayer::open`]), closed when
/// the Layer (the subscriber) is dropped or at exit, or one opened
/// elsewhere ([`WaterfallLayer::new`]: a `Recorder`, `WATERFALL_TRACE`).
#[derive(Debug)]
pub struct WaterfallLayer {
    target: Cow<'static, str>,
    spans: HashMap<Cow<'static, str>, Event>,
    recorder: Option<Recorder>,
}

/// What a span with a unit keeps (in the registry's extensions).
struct SpanUnit {
    unit: Unit,
    /// The id to mark when it closes (< 0: none, an unmapped span).
    end: i32,
    role: Option<(i32, i32)>,
}

impl Default for WaterfallLayer {
    fn default() -> Self {
        WaterfallLayer::new()
    }
}

impl WaterfallLayer {
    /// A Layer that marks into whatever recording is open (none: its
    /// marks are ignored, at little cost).
    pub fn new() -> WaterfallLayer {
        WaterfallLayer { target: Cow::Borrowed("TIMELINE"), spans: HashMap::new(), recorder: None }
    }

    /// A Layer that records to `path` (`Recorder::open`); the recording
    /// closes when the Layer is dropped, or at the program's exit.
    pub fn open(path: impl AsRef<Path>) -> Result<WaterfallLayer, Error> {
        Ok(WaterfallLayer::new().recorder(Recorder::open(path)?))
    }

    /// As [`WaterfallLayer::open`], with options.
    pub fn with_config(path: impl AsRef<Path>, config: impl std::borrow::Borrow<Config>) -> Result<WaterfallLayer, Error> {
        Ok(WaterfallLayer::new().recorder(Recorder::with_config(path, config)?))
    }

    /// The Layer owns `rec`: the recording closes when the Layer drops.
    pub fn recorder(mut self, rec: Recorder) -> WaterfallLayer {
        self.recorder = Some(rec);
        self
    }

    /// A span named `span_name` is the stage or phase `event` begins: its
    /// creation marks the start and its close the end, as
    /// [`Unit::span`](crate::Unit::span) marks them.  `event` is an
    /// [`Event`], or a name: `"PREP_MSM"` (or `"PREP_MSM_START"`) gives
    /// PREP_MSM_START .. PREP_MSM_END.  A later mapping of the same name wins.
    pub fn map_span(mut self, span_name: impl Into<Cow<'static, str>>, event: impl Into<Event>) -> WaterfallLayer {
        self.spans.insert(span_name.into(), event.into());
        self
    }

    /// Read events of this target instead of `TIMELINE`.
    pub fn target(mut self, target: impl Into<Cow<'static, str>>) -> WaterfallLayer {
        self.target = target.into();
        self
    }

    fn unit_of(fields: &Fields) -> Option<Unit> {
        fields.job().map(|job| cache::unit_for(job, fields.partition(), fields.kind()))
    }
}

impl<S> Layer<S> for WaterfallLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        let mapped = self.spans.get(meta.name()).copied();
        // Unrelated spans cost a lookup and a field scan, nothing more.
        if mapped.is_none() && meta.fields().field("job").is_none() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut f = Fields::new();
        attrs.record(&mut f);
        let unit = match WaterfallLayer::unit_of(&f) {
            Some(u) => u,
            None => match span.scope().skip(1).find_map(|s| s.extensions().get::<SpanUnit>().map(|x| x.unit)) {
                Some(u) => u,
                None => {
                    // A mapped span whose job may come later (on_record).
                    if mapped.is_none() {
                        return;
                    }
                    span.extensions_mut().insert(Pending);
                    return;
                }
            },
        };
        self.begin(&span, unit, mapped, f.role());
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if span.extensions().get::<Pending>().is_none() {
            return; // a unit is fixed when the span begins, or never
        }
        let mut f = Fields::new();
        values.record(&mut f);
        if let Some(unit) = WaterfallLayer::unit_of(&f) {
            span.extensions_mut().remove::<Pending>();
            let mapped = self.spans.get(span.metadata().name()).copied();
            self.begin(&span, unit, mapped, f.role());
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let ext = span.extensions();
        if let Some(s) = ext.get::<SpanUnit>() {
            if s.end >= 0 {
                use_role(s.role);
                unsafe { waterfall_sys::wf_mark(s.end, s.unit.id()) };
            }
        } else if ext.get::<Pending>().is_some() {
            skip(); // a mapped span that never got a job
        }
    }

    fn on_event(&self, event: &TracingEvent<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != self.target {
            return;
        }
        let mut f = Fields::new();
        event.record(&mut f);
        let name = f.take_name();
        let Some(ev) = cache::event_named(&f.message()[name]) else { return skip() };
        let unit = match WaterfallLayer::unit_of(&f) {
            Some(u) => u,
            None => match ctx.event_scope(event).and_then(|mut s| s.find_map(|x| x.extensions().get::<SpanUnit>().map(|x| x.unit))) {
                Some(u) => u,
                None => return skip(),
            },
        };
        use_role(f.role());
        unit.mark(ev);
    }
}

/// A mapped span created without a job, nor an ancestor with one: it
/// begins when a `job` is recorded into it (`span.record("job", ..)`).
struct Pending;

impl WaterfallLayer {
    fn begin<R: for<'a> LookupSpan<'a>>(&self, span: &SpanRef<'_, R>, unit: Unit, mapped: Option<Event>, role: Option<(i32, i32)>) {
        let end = match mapped {
            Some(ev) => {
                let (start, end) = ev.span_ids();
                use_role(role);
                unsafe { waterfall_sys::wf_mark(start, unit.id()) };
                end
            }
            None => -1,
        };
        span.extensions_mut().insert(SpanUnit { unit, end, role });
    }
}
