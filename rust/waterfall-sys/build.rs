//! Build script: compile libwaterfall from this repository's C sources
//! (the default), or link an installed one through pkg-config (feature
//! `system`, or WATERFALL_SYSTEM=1).
//!
//! The source list and the version are read from the top-level
//! CMakeLists.txt, the one place they are written, so that a new file in
//! lib/ or a new version needs no change here.  Either way a small C file,
//! layout.c, is compiled against the header in use: it exports the sizes
//! and offsets of the header's structs, which tests/header.rs compares with
//! this crate's declarations.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=WATERFALL_SYSTEM");
    println!("cargo:rerun-if-env-changed=WATERFALL_SRC");
    let system = env::var_os("CARGO_FEATURE_SYSTEM").is_some()
        || env::var("WATERFALL_SYSTEM").map(|v| v == "1").unwrap_or(false);
    let include = if system { link_system() } else { build_from_source() };
    let mut layout = cc::Build::new();
    layout.file("layout.c").warnings(true);
    for dir in &include {
        layout.include(dir);
    }
    layout.compile("waterfall_sys_layout");
    println!("cargo:rerun-if-changed=layout.c");
}

/// The repository root: two levels above this crate, or WATERFALL_SRC.
fn source_root() -> PathBuf {
    if let Some(dir) = env::var_os("WATERFALL_SRC") {
        return PathBuf::from(dir);
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    manifest.join("../..")
}

fn fail(msg: String) -> ! {
    // A build script's panic shows its message; this makes it one line.
    eprintln!("waterfall-sys: {msg}");
    panic!("waterfall-sys: {msg}");
}

fn build_from_source() -> Vec<PathBuf> {
    let root = source_root();
    let cmake_path = root.join("CMakeLists.txt");
    let cmake = fs::read_to_string(&cmake_path).unwrap_or_else(|e| {
        fail(format!(
            "cannot read {} ({e}): the crate builds libwaterfall from the repository it sits in; \
             set WATERFALL_SRC to the repository, or use the `system` feature",
            cmake_path.display()
        ))
    });
    println!("cargo:rerun-if-changed={}", cmake_path.display());
    let version = cmake_version(&cmake).unwrap_or_else(|| fail(format!("no `project(waterfall VERSION x.y.z` in {}", cmake_path.display())));
    let sources = cmake_list(&cmake, "WF_LIB_SOURCES").unwrap_or_else(|| fail(format!("no `set(WF_LIB_SOURCES ...)` in {}", cmake_path.display())));

    // waterfall_version.h, as CMake's configure_file makes it.
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let gen = out.join("include");
    fs::create_dir_all(&gen).unwrap();
    let tmpl_path = root.join("include/waterfall_version.h.in");
    let tmpl = fs::read_to_string(&tmpl_path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", tmpl_path.display())));
    println!("cargo:rerun-if-changed={}", tmpl_path.display());
    let parts: Vec<&str> = version.split('.').collect();
    let header = tmpl
        .replace("@PROJECT_VERSION_MAJOR@", parts[0])
        .replace("@PROJECT_VERSION_MINOR@", parts[1])
        .replace("@PROJECT_VERSION_PATCH@", parts[2])
        .replace("@PROJECT_VERSION@", &version);
    fs::write(gen.join("waterfall_version.h"), header).unwrap();

    let mut build = cc::Build::new();
    // As CMakeLists.txt compiles them: C11, _GNU_SOURCE, hidden symbols
    // except the API's (WF_API), optimized even in a debug build (the
    // recorder's cost is what it is measured at).
    build
        .flag_if_supported("-std=c11")
        .define("_GNU_SOURCE", None)
        .flag_if_supported("-fvisibility=hidden")
        .opt_level(2)
        .warnings(true)
        .include(root.join("include"))
        .include(&gen)
        .include(root.join("lib/common"))
        .include(root.join("lib"));
    for src in &sources {
        let path = root.join(src);
        println!("cargo:rerun-if-changed={}", path.display());
        build.file(path);
    }
    for dir in ["include", "lib", "lib/common"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    build.compile("waterfall");
    // The recorder's writer is a pthread, and it dlopens NVML when present.
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=dl");
    println!("cargo:root={}", root.display());
    vec![root.join("include"), gen]
}

fn link_system() -> Vec<PathBuf> {
    match pkg_config::Config::new().atleast_version("0.3.0").probe("waterfall") {
        Ok(lib) => lib.include_paths,
        Err(e) => fail(format!(
            "the `system` feature (or WATERFALL_SYSTEM=1) links an installed libwaterfall, \
             and pkg-config did not find it: {e}; install it (`make install PREFIX=...`) and set \
             PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, or build without the feature"
        )),
    }
}

/// "0.3.0" from `project(waterfall VERSION 0.3.0 LANGUAGES C)`.
fn cmake_version(cmake: &str) -> Option<String> {
    let at = cmake.find("project(waterfall VERSION ")? + "project(waterfall VERSION ".len();
    let v: String = cmake[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (v.split('.').count() == 3).then_some(v)
}

/// The items of `set(NAME a b c)`, which may span lines.
fn cmake_list(cmake: &str, name: &str) -> Option<Vec<String>> {
    let at = cmake.find(&format!("set({name} "))? + name.len() + 5;
    let end = cmake[at..].find(')')? + at;
    let items: Vec<String> = cmake[at..end].split_whitespace().map(str::to_string).collect();
    (!items.is_empty() && items.iter().all(|s| Path::new(s).extension().is_some_and(|e| e == "c"))).then_some(items)
}
