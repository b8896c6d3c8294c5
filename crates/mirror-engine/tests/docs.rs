//! The knob table of `docs/commands.md` is made from the engine's table
//! ([`mirror_engine::KNOBS`]): one row per knob, its spelling in each front end. Run with
//! `MIRROR_BLESS=1` to write it after a knob changes.

use std::path::PathBuf;

use mirror_engine::{KNOBS, KnobGroup};

const BEGIN: &str = "<!-- knobs: made from mirror_engine::KNOBS by crates/mirror-engine/tests/docs.rs (MIRROR_BLESS=1 writes it) -->";
const END: &str = "<!-- /knobs -->";

/// The table: the engine's knobs and the seed (the filters are spelled by each front end's
/// filter group, below the table in the docs).
fn table() -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = String::from(
        "| knob | flag (`play`, `uci`, `eval`) | `--config` key | UCI `setoption name` | HTTP `/api/v1/move` |\n|---|---|---|---|---|\n",
    );
    for k in KNOBS
        .iter()
        .filter(|k| matches!(k.group, KnobGroup::Engine | KnobGroup::Seed))
    {
        out.push_str(&format!(
            "| {} | `--{}` | `{}` | `{}` | `{}` |\n",
            cell(k.doc),
            k.flag(),
            k.name,
            k.uci_name(),
            k.http_name()
        ));
    }
    out
}

#[test]
fn the_docs_knob_table_is_made_from_the_engines_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/commands.md");
    let text = std::fs::read_to_string(&path).expect("docs/commands.md");
    let start = text.find(BEGIN).expect("the table's start marker") + BEGIN.len() + 1;
    let end = start + text[start..].find(END).expect("the table's end marker");
    let want = table();
    if std::env::var_os("MIRROR_BLESS").is_some() {
        let new = format!("{}{want}{}", &text[..start], &text[end..]);
        std::fs::write(&path, new).expect("written");
        return;
    }
    assert_eq!(
        &text[start..end],
        want,
        "docs/commands.md's knob table is not the engine's: MIRROR_BLESS=1 cargo test -p mirror-engine --test docs"
    );
}
