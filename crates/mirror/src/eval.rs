//! `mirror eval`: split the player's games by date, build their book from the training
//! games only, and measure every predictor on the test games (see `mirror_eval`).

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    sync::Arc,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use mirror_core::{GameRecord, batch::Batch};
use mirror_engine::{EngineOptions, Guard};
use mirror_eval::{EvalConfig, Phase, evaluate, report::SplitInfo};
use mirror_model::Predictor;
use mirror_store::{
    GraphStore,
    embedded::{EmbeddedStore, OpenMode},
};
use shakmaty::Color;

use crate::{
    cli::{EvalArgs, EvalOn, StoreArgs},
    play::require_player,
    train::{Fit, date_text, fit, load_model, model_dir},
};

/// The player's training games as a throwaway embedded store: the book the engine sees.
fn book_store(
    player: &str,
    games: &[(GameRecord, Color)],
    dir: &Path,
) -> anyhow::Result<EmbeddedStore> {
    let store = EmbeddedStore::open(&dir.join("book.redb"), OpenMode::CreateIfMissing)?;
    for chunk in games.chunks(2_000) {
        let mut batch = Batch::new();
        for (g, c) in chunk {
            batch
                .add_game(g.clone(), *c)
                .with_context(|| format!("stored game {} does not replay", g.id))?;
        }
        store.write_batch(player, &batch)?;
    }
    Ok(store)
}

/// Stockfish: the given path, else `stockfish` on PATH, else Debian's `/usr/games/stockfish`.
fn find_stockfish(args: &EvalArgs) -> anyhow::Result<Option<PathBuf>> {
    if args.no_stockfish {
        return Ok(None);
    }
    if let Some(p) = &args.stockfish {
        anyhow::ensure!(
            p.exists() || p.components().count() == 1,
            "--stockfish {}: no such file",
            p.display()
        );
        return Ok(Some(p.clone()));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("stockfish"))
            .find(|p| p.is_file())
    });
    Ok(on_path.or_else(|| {
        let debian = PathBuf::from("/usr/games/stockfish");
        debian.is_file().then_some(debian)
    }))
}

fn check_model(p: &Predictor, dir: &Path, player: &str, info: &SplitInfo) -> anyhow::Result<()> {
    let m = &p.meta;
    let same = m.player.eq_ignore_ascii_case(player)
        && (m.train_games, m.val_games, m.test_games)
            == (info.train_games, info.val_games, info.test_games)
        && m.train_dates == info.train_dates;
    anyhow::ensure!(
        same,
        "the model in {} was trained on {}'s games {}/{}/{} (training {} .. {}), but this split is {}/{}/{} (training {} .. {}): pass --train to train one on this split, or --no-model",
        dir.display(),
        m.player,
        m.train_games,
        m.val_games,
        m.test_games,
        m.train_dates.0,
        m.train_dates.1,
        info.train_games,
        info.val_games,
        info.test_games,
        info.train_dates.0,
        info.train_dates.1
    );
    Ok(())
}

pub fn run(store_args: &StoreArgs, args: EvalArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = require_player(&store, &args.user)?;
    let games = store.games(&player)?;
    let sp = args.split.split(games.len());
    anyhow::ensure!(
        !sp.train.is_empty() && !sp.test.is_empty(),
        "{player} has {} games: too few to split {} into training and test games",
        games.len(),
        args.split
    );
    let measured = match args.on {
        EvalOn::Test => sp.test.clone(),
        EvalOn::Validation => sp.val.clone(),
    };
    anyhow::ensure!(
        !measured.is_empty(),
        "the split {} leaves no validation games to evaluate",
        args.split
    );
    let (train_g, test_g) = (&games[sp.train.clone()], &games[measured]);
    let info = SplitInfo {
        fractions: args.split.to_string(),
        train_games: sp.train.len(),
        val_games: sp.val.len(),
        test_games: sp.test.len(),
        train_dates: (date_text(train_g.first()), date_text(train_g.last())),
        test_dates: (
            date_text(games[sp.test.clone()].first()),
            date_text(games[sp.test.clone()].last()),
        ),
        evaluated: match args.on {
            EvalOn::Test => "test",
            EvalOn::Validation => "validation",
        }
        .to_string(),
    };
    let dir = match &args.model {
        Some(d) => d.clone(),
        None => model_dir(store_args, &player)?,
    };
    let model = if args.no_model {
        None
    } else if args.train {
        let p = fit(&Fit {
            player: &player,
            games: &games,
            split: args.split,
            opts: &args.opts,
            max_positions: args.train_positions,
            seed: args.seed,
            dir: &dir,
            report_to_stderr: args.json,
        })?;
        Some(p)
    } else {
        let p = if args.model.is_some() {
            Predictor::load(&dir)
                .with_context(|| format!("cannot load the model in {}", dir.display()))?
        } else {
            load_model(store_args, &player)?.with_context(|| {
                format!(
                    "no model for {player} in {}: pass --train (or --no-model)",
                    dir.display()
                )
            })?
        };
        check_model(&p, &dir, &player, &info)?;
        Some(p)
    };
    let stockfish = find_stockfish(&args)?;
    let tmp = tempfile::tempdir().context("cannot create a temporary directory for the book")?;
    eprintln!(
        "building {player}'s book from {} training games",
        train_g.len()
    );
    let book = book_store(&player, train_g, tmp.path())?;
    let cfg = EvalConfig {
        seed: args.seed,
        max_positions: args.max_positions,
        stockfish,
        judge_depth: args.judge_depth,
        judge_positions: args.judge_positions,
        judge_threads: args.judge_threads,
        guard: (!args.no_guard).then_some(Guard {
            top: args.guard_top.max(1),
            margin: args.guard_margin,
        }),
        engine: EngineOptions {
            policy: args.policy.unwrap_or_default(),
            tiers: args.tiers.clone().unwrap_or_default(),
            min_games: args.min_games,
            recent_months: args.recent_months,
            recent_weight: args.recent_weight,
            ..EngineOptions::default()
        },
    };
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} positions ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = |phase: Phase, done: usize, total: usize| {
        bar.set_message(match phase {
            Phase::Predict => "predicting",
            Phase::Judge => "stockfish judging",
        });
        if bar.length() != Some(total as u64) {
            bar.set_length(total as u64);
            bar.reset_eta();
        }
        bar.set_position(done as u64);
    };
    let mut report = evaluate(&book, &player, test_g, model.map(Arc::new), &cfg, &progress)?;
    bar.finish_and_clear();
    report.split = Some(info);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
        if report.stockfish.is_none() {
            println!(
                "\n(no Stockfish: pass --stockfish PATH for the depth-1 baseline and the mistake judge)"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
