//! `mirror serve` as a process: binds loopback, answers, stops gracefully on SIGTERM.

mod common;

use std::io::Read;

use common::*;

#[test]
fn serve_answers_and_stops_on_sigterm() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (mut child, url, _, mut stderr) = spawn_serve(env.cmd());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let get = |query: &str| -> serde_json::Value {
        rt.block_on(async {
            reqwest::get(format!("{url}/api/v1/move?{query}"))
                .await
                .expect("request")
                .json()
                .await
                .expect("json")
        })
    };
    let body = get("user=Biskupstunga&moves=e2e4&seed=1");
    assert_eq!(body["source"]["kind"], "book", "{body}");
    // Outside the player's games the shipped model answers (loaded once, then shared):
    // the same position gives the same move whatever the seed.
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    let a = get(&format!("user=biskupstunga&fen={fen}&seed=1"));
    let b = get(&format!("user=Biskupstunga&fen={fen}&seed=2"));
    assert_eq!(a["source"]["kind"], "fallback", "{a}");
    assert!(
        a["source"]["policy"]
            .as_str()
            .is_some_and(|p| p.starts_with("model (")),
        "{a}"
    );
    assert!(
        a["source"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("score ")),
        "{a}"
    );
    assert_eq!(a["uci"], b["uci"], "the model is deterministic: {a} {b}");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exit = child.wait().expect("wait");
    assert!(exit.success(), "graceful stop exits 0: {exit:?}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("rest");
    assert!(rest.contains("mirror stopped"), "{rest}");
}

#[test]
fn serve_needs_an_existing_store_and_a_valid_address() {
    let env = Env::new();
    let err = env.fails(&["serve"]);
    assert!(err.contains("no such file"), "{err}");
    env.ingest(&first500(), &[]);
    let err = env.fails(&["serve", "--bind", "localhost"]);
    assert!(
        err.contains("--bind \"localhost\" is not an address"),
        "{err}"
    );
}
