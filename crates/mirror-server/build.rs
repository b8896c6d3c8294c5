//! Embeds the web page's built files (`web/dist/`, committed; built by `web/build.mjs`)
//! in the binary: one table of names, bytes and their gzip and brotli forms.

use std::{
    collections::hash_map::DefaultHasher,
    fmt::Write as _,
    hash::{Hash, Hasher},
    path::PathBuf,
};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dist = manifest.join("../../web/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut names: Vec<String> = std::fs::read_dir(&dist)
        .unwrap_or_else(|e| {
            panic!(
                "{} cannot be read ({e}): the web page is built by `npm ci && npm run build` in web/",
                dist.display()
            )
        })
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".gz") && !n.ends_with(".br") && !n.starts_with('.'))
        .collect();
    names.sort();
    assert!(
        names.iter().any(|n| n == "index.html"),
        "{} has no index.html: build the web page (npm run build in web/)",
        dist.display()
    );
    let mut out = String::from(
        "/// The web page's files, built from `web/`.\npub(crate) static ASSETS: &[Asset] = &[\n",
    );
    for name in &names {
        let path = dist.join(name);
        let bytes = std::fs::read(&path).expect("a built file");
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        let variant = |ext: &str| {
            let p = dist.join(format!("{name}.{ext}"));
            assert!(
                p.exists(),
                "{} is missing: rebuild the web page",
                p.display()
            );
            println!("cargo:rerun-if-changed={}", p.display());
            format!("include_bytes!({:?})", p.display().to_string())
        };
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    Asset {{ name: {name:?}, etag: \"\\\"{:016x}\\\"\", identity: include_bytes!({:?}), gzip: {}, brotli: {} }},",
            h.finish(),
            path.display().to_string(),
            variant("gz"),
            variant("br"),
        )
        .expect("writing to a string");
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("assets.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
