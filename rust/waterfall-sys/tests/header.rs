//! The declarations of src/lib.rs are those of include/waterfall.h: every
//! prototype with the same parameter and return types, every constant with
//! its value, every struct with the same members in the same order, and the
//! same layout as the C compiler gives it (layout.c, compiled by build.rs).
//! A prototype added to the header and not here fails this test, and so
//! does one declared here that the header lacks.
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::path::PathBuf;

use waterfall_sys::*;

fn repo_file(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// The text without C comments.
fn strip_c_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            rest = &r[r.find("*/").expect("unterminated comment") + 2..];
            out.push(' ');
        } else if let Some(r) = rest.strip_prefix("//") {
            rest = &r[r.find('\n').unwrap_or(r.len())..];
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A C type as this crate spells it: `const char *` is `*const c_char`.
fn c_to_rust(ty: &str) -> String {
    let ty = squash(ty);
    if let Some(base) = ty.strip_suffix('*') {
        let base = base.trim();
        return match base.strip_prefix("const ") {
            Some(inner) => format!("*const {}", c_to_rust(inner)),
            None => format!("*mut {}", c_to_rust(base)),
        };
    }
    match ty.as_str() {
        "void" => "()".into(),
        "int" => "c_int".into(),
        "unsigned" | "unsigned int" => "c_uint".into(),
        "char" => "c_char".into(),
        "size_t" => "usize".into(),
        "int32_t" => "i32".into(),
        "uint32_t" => "u32".into(),
        "uint64_t" => "u64".into(),
        other => other.into(), // wf_unit, wf_event, wf_config, ...
    }
}

/// `const char *path` -> `const char *` (the name dropped).
fn c_param_type(p: &str) -> String {
    let p = p.trim();
    if p == "void" {
        return String::new();
    }
    let name_start = p.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    p[..name_start].trim().to_string()
}

type Protos = BTreeMap<String, (Vec<String>, String)>;

fn header_protos(h: &str) -> Protos {
    let mut out = Protos::new();
    // Declarations start a line with WF_API (the #defines of it do not).
    for decl in h.split("\nWF_API ").skip(1) {
        let decl = squash(&decl[..decl.find(';').expect("prototype without ;")]);
        let open = decl.find('(').unwrap();
        let head = decl[..open].trim();
        let name_at = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap() + 1;
        let (ret, name) = (head[..name_at].trim(), &head[name_at..]);
        let params = decl[open + 1..decl.rfind(')').unwrap()]
            .split(',')
            .map(c_param_type)
            .filter(|t| !t.is_empty())
            .map(|t| c_to_rust(&t))
            .collect();
        assert!(out.insert(name.to_string(), (params, c_to_rust(ret))).is_none(), "{name} twice");
    }
    out
}

fn rust_protos(src: &str) -> Protos {
    let block = &src[src.find("extern \"C\" {").expect("no extern block")..];
    let block = &block[..block.find("\n}").unwrap()];
    let mut out = Protos::new();
    for decl in block.split("pub fn ").skip(1) {
        let decl = squash(&decl[..decl.find(';').unwrap()]);
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let params = decl[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.split_once(':').expect("param without type").1.trim().to_string())
            .collect();
        let ret = decl[close + 1..].trim().strip_prefix("->").map_or("()".to_string(), |r| r.trim().to_string());
        out.insert(decl[..open].trim().to_string(), (params, ret));
    }
    out
}

/// `enum { WF_X = 0, ... }` constants.
fn header_consts(h: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let mut rest = h;
    while let Some(at) = rest.find("enum {") {
        let body = &rest[at + 6..];
        let end = body.find('}').unwrap();
        for item in body[..end].split(',') {
            if let Some((k, v)) = item.split_once('=') {
                out.insert(k.trim().to_string(), v.trim().parse().expect("enum value"));
            }
        }
        rest = &body[end..];
    }
    out
}

/// Members of each `typedef struct [tag] { ... } name;`, as (name, rust type).
fn header_structs(h: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    for part in h.split("typedef struct").skip(1) {
        let open = part.find('{').unwrap();
        let close = part.find('}').unwrap();
        let name = part[close + 1..].split(';').next().unwrap().trim();
        let mut members = Vec::new();
        for decl in part[open + 1..close].split(';').map(squash).filter(|d| !d.is_empty()) {
            // `uint64_t marked, recorded, lost` declares three.
            let mut names = decl.split(',').map(str::trim).collect::<Vec<_>>();
            let first = names.remove(0);
            let ty = c_param_type(first);
            let first_name = first[ty.len()..].trim();
            for n in std::iter::once(first_name).chain(names) {
                members.push((n.trim_start_matches('*').to_string(), c_to_rust(&ty)));
            }
        }
        out.insert(name.to_string(), members);
    }
    out
}

fn rust_structs(src: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    for part in src.split("pub struct ").skip(1) {
        let name = part[..part.find('{').unwrap()].trim().to_string();
        let body = &part[part.find('{').unwrap() + 1..part.find('}').unwrap()];
        let members = body
            .split(',')
            .filter_map(|m| m.trim().strip_prefix("pub "))
            .map(|m| {
                let (n, t) = m.split_once(':').unwrap();
                (n.trim().to_string(), t.trim().to_string())
            })
            .collect();
        out.insert(name, members);
    }
    out
}

#[test]
fn prototypes_match_the_header() {
    let h = strip_c_comments(&repo_file("../../include/waterfall.h"));
    let rs = repo_file("src/lib.rs");
    let (c, r) = (header_protos(&h), rust_protos(&rs));
    assert!(c.len() >= 15, "only {} prototypes parsed from the header", c.len());
    for (name, sig) in &c {
        assert_eq!(r.get(name), Some(sig), "{name}: the header has {sig:?}, src/lib.rs {:?}", r.get(name));
    }
    for name in r.keys() {
        assert!(c.contains_key(name), "src/lib.rs declares {name}, which include/waterfall.h does not");
    }
}

#[test]
fn constants_match_the_header() {
    let h = strip_c_comments(&repo_file("../../include/waterfall.h"));
    let c = header_consts(&h);
    let rust: BTreeMap<&str, i64> = [
        ("WF_SYNTH_START", WF_SYNTH_START),
        ("WF_SYNTH_END", WF_SYNTH_END),
        ("WF_CHAN_SEND", WF_CHAN_SEND),
        ("WF_GPU_PICKUP", WF_GPU_PICKUP),
        ("WF_GPU_START", WF_GPU_START),
        ("WF_GPU_END", WF_GPU_END),
        ("WF_EVENT_USER_FIRST", WF_EVENT_USER_FIRST),
        ("WF_EVENT_MAX", WF_EVENT_MAX),
    ]
    .into_iter()
    .map(|(k, v)| (k, v as i64))
    .collect();
    assert_eq!(c.len(), rust.len(), "header constants {c:?}");
    for (k, v) in &c {
        assert_eq!(rust.get(k.as_str()), Some(v), "{k}");
    }
    // And the declared constants in src/lib.rs are exactly those.
    let declared = repo_file("src/lib.rs").matches("pub const WF_").count();
    assert_eq!(declared, c.len());
}

#[test]
fn structs_match_the_header() {
    let h = strip_c_comments(&repo_file("../../include/waterfall.h"));
    let (c, r) = (header_structs(&h), rust_structs(&repo_file("src/lib.rs")));
    assert_eq!(c.keys().collect::<Vec<_>>(), ["wf_config", "wf_options", "wf_stats", "wf_stats_ex"]);
    for (name, members) in &c {
        assert_eq!(r.get(name), Some(members), "struct {name}");
    }
}

/// (size, then offset and size of each member) as layout.c lays them out.
macro_rules! layout {
    ($t:ty; $($m:ident),*) => {{
        let mut v = vec![size_of::<$t>()];
        $( v.push(offset_of!($t, $m)); v.push(size_of_val(&unsafe { std::mem::zeroed::<$t>() }.$m)); )*
        v
    }};
}

#[test]
fn layouts_match_the_c_compiler() {
    use waterfall_sys::layout::*;
    let h = header_structs(&strip_c_comments(&repo_file("../../include/waterfall.h")));
    // Reading an extern static is unsafe; these are immutable C arrays.
    let cases: [(&str, &[usize], Vec<usize>); 4] = [
        ("wf_config", unsafe { &waterfall_sys_layout_config[..] }, layout!(wf_config; size, ring_events, flush_ms, block_when_full, timeline, timeline_decimals, sample_cpu, sample_gpu)),
        ("wf_stats_ex", unsafe { &waterfall_sys_layout_stats_ex[..] }, layout!(wf_stats_ex; size, marked, recorded, lost, threads, units)),
        ("wf_options", unsafe { &waterfall_sys_layout_options[..] }, layout!(wf_options; ring_events, flush_ms, block_when_full, timeline, timeline_decimals)),
        ("wf_stats", unsafe { &waterfall_sys_layout_stats[..] }, layout!(wf_stats; marked, recorded, lost, threads, units)),
    ];
    for (name, c, rust) in cases {
        // layout.c lists the members by hand: it must list them all.
        assert_eq!(c.len(), 1 + 2 * h[name].len(), "layout.c lists {} members of {name}, the header has {}", (c.len() - 1) / 2, h[name].len());
        assert_eq!(c, &rust[..], "{name}: C layout (size, offset, size, ...) against Rust's");
    }
}

#[test]
fn the_library_is_the_headers_version() {
    let header = unsafe { waterfall_sys::layout::waterfall_sys_header_version };
    let lib = unsafe { wf_version() };
    assert!(lib >= header, "library {lib} older than its header {header}");
    let s = unsafe { std::ffi::CStr::from_ptr(wf_version_string()) }.to_str().unwrap();
    assert_eq!(s.split('.').map(|p| p.parse::<i32>().unwrap()).fold(0, |a, p| a * 100 + p), lib);
    let mut c = unsafe { std::mem::zeroed::<wf_config>() };
    assert_eq!(unsafe { wf_config_init(&mut c) }, 0);
    assert_eq!(c.size, size_of::<wf_config>());
}
