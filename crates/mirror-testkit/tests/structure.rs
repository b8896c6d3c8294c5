//! The crates' structure: no module of any crate imports, through other modules, itself
//! (a child module's use of its parent's items is the parent's own business and counts as
//! the parent). Read from the sources: `crate::NAME` paths and `use crate::{...}` groups
//! outside comments and test modules.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read the sources") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules `text` names with `crate::`.
fn used_modules(text: &str) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut used = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b, c::{D, E}}`: the first name of each top-level item.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_ascii_alphanumeric() || c == '_') => {
                        used.insert(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            used.insert(ident(rest));
        }
    }
    used
}

/// A cycle among `graph`'s nodes, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let from = path.iter().position(|p| p == next).unwrap_or(0);
                    let mut found = path[from..].to_vec();
                    found.push(next.clone());
                    return Some(found);
                }
                Some(_) => {}
                None => {
                    if let Some(found) = visit(next, graph, state, path) {
                        return Some(found);
                    }
                }
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node)
            && let Some(found) = visit(node, graph, &mut state, &mut Vec::new())
        {
            return Some(found);
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_circle() {
    let crates = mirror_testkit::repo().join("crates");
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).expect("crates/") {
        let src = entry.expect("a crate").path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            let rel = file.strip_prefix(&src).expect("under src");
            let top = rel
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .unwrap_or("")
                .trim_end_matches(".rs")
                .to_string();
            if top == "lib" || top == "main" || top == "bin" {
                continue;
            }
            let text = std::fs::read_to_string(file).expect("a source file");
            let mut used = used_modules(&text);
            used.remove(&top);
            graph.entry(top).or_default().extend(used);
        }
        let known: BTreeSet<String> = graph.keys().cloned().collect();
        for used in graph.values_mut() {
            used.retain(|m| known.contains(m));
        }
        assert_eq!(
            cycle(&graph),
            None,
            "an import circle among the modules of {}",
            src.display()
        );
        checked += 1;
    }
    assert!(checked >= 10, "every crate was read ({checked})");
}

#[test]
fn the_circle_finder_finds_one() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        used_modules(
            "use crate::{draw::X, fallback::{A, B}, guard};\n// crate::nope\nfn f() { crate::search::go() }"
        ),
        ["draw", "fallback", "guard", "search"]
            .map(String::from)
            .into()
    );
}

/// The mirror crates a `Cargo.toml` lists under `[dependencies]`, by short name
/// (`mirror-store` is `store`).
fn mirror_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_deps = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && let Some(rest) = line.strip_prefix("mirror-") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            out.insert(name);
        }
    }
    out
}

/// ARCHITECTURE.md's table of dependencies names, for each crate, exactly the mirror
/// crates its `Cargo.toml` depends on, and its list of homes names every fuzz target.
#[test]
fn the_architecture_map_is_true() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let short = [
        "core", "store", "online", "model", "ingest", "engine", "frontend", "server", "eval",
        "drill", "testkit",
    ];
    let mut rows = 0;
    for line in map.lines() {
        let Some(rest) = line.strip_prefix("| `mirror") else {
            continue;
        };
        let Some((name, said)) = rest.split_once("` |") else {
            continue;
        };
        if name.contains(' ') || !(name.is_empty() || name.starts_with('-')) {
            continue;
        }
        let manifest =
            std::fs::read_to_string(root.join(format!("crates/mirror{name}/Cargo.toml")))
                .expect("the crate's manifest");
        let actual = mirror_dependencies(&manifest);
        let named: BTreeSet<String> = said
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| short.contains(w))
            .map(str::to_string)
            .collect();
        if said.contains("all of the above") {
            assert!(actual.len() >= short.len() - 2, "mirror: {actual:?}");
        } else {
            assert_eq!(named, actual, "ARCHITECTURE.md's row of mirror{name}");
        }
        rows += 1;
    }
    let crates = std::fs::read_dir(root.join("crates"))
        .expect("crates")
        .count();
    assert_eq!(rows, crates, "a row per crate");
    let fuzz = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).expect("fuzz manifest");
    let diagram = map
        .lines()
        .find(|l| l.starts_with("fuzz/"))
        .expect("the fuzz crate's arrow");
    for dep in mirror_dependencies(&fuzz) {
        assert!(
            diagram.contains(&format!("mirror-{dep}")),
            "the fuzz crate's arrow names mirror-{dep}: {diagram}"
        );
    }
    for target in std::fs::read_dir(root.join("fuzz/fuzz_targets")).expect("fuzz targets") {
        let path = target.expect("an entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        assert!(
            map.contains(&format!("`{name}`")),
            "ARCHITECTURE.md names the fuzz target `{name}`"
        );
    }
}
