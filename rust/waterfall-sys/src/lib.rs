//! Raw bindings to libwaterfall, the C recorder of
//! [waterfall](../../../README.md): one declaration per prototype and
//! constant of `include/waterfall.h`, nothing more.  The safe API is the
//! `waterfall` crate; use this one only for what it does not cover.
//!
//! `tests/header.rs` keeps these declarations in step with the header: it
//! parses the header's prototypes, constants and structs and compares
//! them with this file, and compares the structs' layouts with those the C
//! compiler gives (`layout.c`).
//!
//! How the library is found (docs/rust.md): by default `build.rs` compiles
//! it from the repository's `lib/` with `cc` and links it statically; with
//! the feature `system` (or `WATERFALL_SYSTEM=1`) it links the installed
//! one that `pkg-config waterfall` names.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_uint};

/// An event id: one of the six `WF_*` points, or a user event.
pub type wf_event = i32;
/// A unit (a job, or one partition of it); 0 is "no unit".
pub type wf_unit = u64;

pub const WF_SYNTH_START: wf_event = 0;
pub const WF_SYNTH_END: wf_event = 1;
pub const WF_CHAN_SEND: wf_event = 2;
pub const WF_GPU_PICKUP: wf_event = 3;
pub const WF_GPU_START: wf_event = 4;
pub const WF_GPU_END: wf_event = 5;
pub const WF_EVENT_USER_FIRST: wf_event = 16;
pub const WF_EVENT_MAX: wf_event = 4095;

/// Options of a recording; `size` first, every other member's 0 is its default.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct wf_config {
    pub size: usize,
    pub ring_events: usize,
    pub flush_ms: c_uint,
    pub block_when_full: c_int,
    pub timeline: *const c_char,
    pub timeline_decimals: c_int,
    pub sample_cpu: c_int,
    pub sample_gpu: c_int,
}

/// A recording's counters, in a struct that can grow: set `size` first.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct wf_stats_ex {
    pub size: usize,
    pub marked: u64,
    pub recorded: u64,
    pub lost: u64,
    pub threads: u32,
    pub units: u32,
}

/// Version 0.1's options (fixed).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct wf_options {
    pub ring_events: usize,
    pub flush_ms: c_uint,
    pub block_when_full: c_int,
    pub timeline: *const c_char,
    pub timeline_decimals: c_int,
}

/// Version 0.1's counters (fixed).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct wf_stats {
    pub marked: u64,
    pub recorded: u64,
    pub lost: u64,
    pub threads: u32,
    pub units: u32,
}

extern "C" {
    pub fn wf_open(path: *const c_char) -> c_int;
    pub fn wf_close() -> c_int;
    pub fn wf_unit_new(job_id: *const c_char, partition: c_int) -> wf_unit;
    pub fn wf_unit_detail(unit: wf_unit, key: *const c_char, value: *const c_char) -> c_int;
    pub fn wf_mark(ev: wf_event, unit: wf_unit);
    pub fn wf_thread_worker(worker: c_int, device: c_int);
    pub fn wf_thread_name(name: *const c_char);
    pub fn wf_event_define(name: *const c_char) -> wf_event;
    pub fn wf_event_name(ev: wf_event) -> *const c_char;
    pub fn wf_version() -> c_int;
    pub fn wf_version_string() -> *const c_char;
    pub fn wf_config_init_size(c: *mut wf_config, size: usize) -> c_int;
    pub fn wf_open_config(path: *const c_char, c: *const wf_config) -> c_int;
    pub fn wf_get_stats_ex(st: *mut wf_stats_ex) -> c_int;
    pub fn wf_open_opts(path: *const c_char, opts: *const wf_options) -> c_int;
    pub fn wf_get_stats(st: *mut wf_stats);
}

/// The header's `static inline wf_config_init`: the defaults, and `size`.
///
/// # Safety
/// `c` must point to a writable `wf_config`.
#[inline]
pub unsafe fn wf_config_init(c: *mut wf_config) -> c_int {
    wf_config_init_size(c, core::mem::size_of::<wf_config>())
}

/// The struct layouts the C compiler gave the header in use (layout.c):
/// each array holds the struct's size, then each member's offset and size
/// in order.  For tests/header.rs.
#[doc(hidden)]
pub mod layout {
    extern "C" {
        pub static waterfall_sys_layout_config: [usize; 17];
        pub static waterfall_sys_layout_stats_ex: [usize; 13];
        pub static waterfall_sys_layout_options: [usize; 11];
        pub static waterfall_sys_layout_stats: [usize; 11];
        pub static waterfall_sys_header_version: core::ffi::c_int;
    }
}
