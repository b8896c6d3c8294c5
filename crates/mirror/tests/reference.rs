//! Correct counts: mirror's graph equals an independent python-chess replay, edge for edge.

mod common;

use common::*;

#[test]
fn edges_equal_python_chess_on_500_real_games() {
    let env = Env::new();
    let summary = env.ingest(&first500(), &[]);
    assert_eq!(summary_value(&summary, "games read"), 500);
    let mirror = env.edges();
    let reference = reference_edges(&first500());
    assert!(reference.lines().count() > 30_000);
    assert_same_edges(&mirror, &reference);
}

#[test]
fn edges_equal_python_chess_on_all_27200_real_games() {
    let env = Env::new();
    let summary = env.ingest(&full27k(), &[]);
    assert_eq!(summary_value(&summary, "games read"), 27_200);
    let mirror = env.edges();
    let reference = reference_edges(&full27k());
    assert!(reference.lines().count() > 1_000_000);
    assert_same_edges(&mirror, &reference);
}
