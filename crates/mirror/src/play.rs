//! `mirror play` and `mirror uci`.

use std::{
    io::{BufWriter, Write},
    path::PathBuf,
    process::ExitCode,
};

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_engine::{Book, Engine, Fallback, ModelFallback};
use mirror_frontend::terminal::{PlayOptions, play as play_game};
use mirror_store::{PlayerInfo, embedded::OpenMode};
use shakmaty::Color;

use crate::{
    args::{StoreArgs, is_in_use, server_file},
    engine_cfg::{self, EngineArgs},
};

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum SideArg {
    White,
    Black,
    Random,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Your colour.
    #[arg(long, value_enum, default_value_t = SideArg::White)]
    pub color: SideArg,
    /// Where to save the game as PGN (default: DATA_DIR/games/).
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,
    /// Start after these moves from the start position ("e4 c5 Nf3"), e.g. a line of
    /// `mirror prep`.
    #[arg(long, value_name = "MOVES")]
    pub from_moves: Option<String>,
    /// A clock for both sides: seconds and increment, as PGN's TimeControl (300+2).
    #[arg(long, value_name = "SECONDS+INC")]
    pub clock: Option<mirror_engine::pace::GameClock>,
    /// The mirror answers after the time the player would take there.
    #[arg(long)]
    pub pace: bool,
}

#[derive(Args, Debug)]
pub struct UciArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Where the engine reads the player's games: the store, or, while `mirror serve` holds
/// it, that server.
enum Opened {
    Store(mirror_store::place::AnyStore),
    Server(mirror_server::client::RemoteBook),
}

impl Opened {
    /// The players there, to check the one asked for.
    fn players(&self) -> anyhow::Result<Vec<PlayerInfo>> {
        Ok(match self {
            Opened::Store(store) => store.players()?,
            Opened::Server(book) => book.players()?,
        })
    }
}

fn open_book(store_args: &StoreArgs) -> anyhow::Result<Opened> {
    match store_args.open(OpenMode::MustExist) {
        Ok(store) => Ok(Opened::Store(store)),
        Err(e) if is_in_use(&e) => {
            let Some(file) = server_file(store_args)? else {
                return Err(e);
            };
            let book = mirror_server::client::RemoteBook::new(&file)?;
            eprintln!(
                "(the store is held by mirror serve at {}: the mirror reads the games through it)",
                book.url()
            );
            Ok(Opened::Server(book))
        }
        Err(e) => Err(e),
    }
}

pub fn play(store_args: &StoreArgs, args: PlayArgs) -> anyhow::Result<ExitCode> {
    mirror_engine::endgame::warm_up();
    // A game against the mirror varies as the player's own games do.
    let cfg = engine_cfg::resolve(&args.engine, mirror_engine::EngineOptions::sampling())?;
    let opened = open_book(store_args)?;
    let player = mirror_store::find_player(&opened.players()?, &cfg.player)?;
    match opened {
        Opened::Store(store) => play_on(store_args, args, cfg, store, player),
        Opened::Server(book) => play_on(store_args, args, cfg, book, player),
    }
}

fn play_on<S: Book>(
    store_args: &StoreArgs,
    args: PlayArgs,
    cfg: mirror_engine::config::Resolved,
    store: S,
    player: String,
) -> anyhow::Result<ExitCode> {
    let seed = cfg.options.seed;
    let user_color = match args.color {
        SideArg::White => Color::White,
        SideArg::Black => Color::Black,
        SideArg::Random => Color::from_white(seed.is_multiple_of(2)),
    };
    let from = args
        .from_moves
        .as_deref()
        .map(mirror_core::notation::play_moves);
    let start = from.transpose().context("invalid --from-moves")?;
    let mut engine = Engine::new(store, player.clone(), cfg.options);
    let (model, own) = crate::train::FallbackModels::new(store_args).load(&player)?;
    engine.set_fallback(Box::new(ModelFallback::new(model)));
    let (date, stamp) =
        mirror_core::time::now_stamps().context("the system clock gives no date")?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if cfg.seed_from_clock {
        writeln!(
            out,
            "(seed {seed}: pass --seed {seed} to replay the mirror's choices)"
        )?;
    }
    if !own {
        writeln!(
            out,
            "(no trained model for {player}: outside their games the mirror plays the population base model, moves of many players; run `mirror train --user {}` to learn theirs)",
            mirror_core::command_word(&player)?
        )?;
    }
    let game = play_game(
        &mut engine,
        std::io::BufReader::new(std::io::stdin()),
        &mut out,
        &PlayOptions {
            user_color,
            date,
            start: start.map(|(_, moves)| moves).unwrap_or_default(),
            clock: args.clock,
            pace: args.pace,
        },
    )?;
    let path: PathBuf = match args.save {
        Some(p) => p,
        None => store_args
            .data_dir()?
            .join("games")
            .join(format!("play-{stamp}-{seed}.pgn")),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&path, &game.pgn).with_context(|| format!("cannot save {}", path.display()))?;
    if let Some(e) = game.stopped_by {
        // Said on standard error: standard output may be what failed.
        eprintln!("mirror: the game so far is saved to {}", path.display());
        return Err(anyhow::Error::new(e).context("the game stopped"));
    }
    writeln!(out, "game saved to {}", path.display())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn uci(store_args: &StoreArgs, args: UciArgs) -> anyhow::Result<ExitCode> {
    mirror_engine::endgame::warm_up();
    let cfg = engine_cfg::resolve(&args.engine, mirror_engine::EngineOptions::default())?;
    let opened = open_book(store_args)?;
    let player = mirror_store::find_player(&opened.players()?, &cfg.player)?;
    match opened {
        Opened::Store(store) => uci_on(store_args, cfg, store, player),
        Opened::Server(book) => uci_on(store_args, cfg, book, player),
    }
}

fn uci_on<S: Book>(
    store_args: &StoreArgs,
    cfg: mirror_engine::config::Resolved,
    store: S,
    player: String,
) -> anyhow::Result<ExitCode> {
    let mut engine = Engine::new(store, player.clone(), cfg.options);
    // Each player's own model (after `setoption name Player` too), else the population base.
    let models = crate::train::FallbackModels::new(store_args);
    let fallback_for = |player: &str| -> Result<Box<dyn Fallback>, String> {
        match models.load(player) {
            Ok((p, _)) => Ok(Box::new(ModelFallback::new(p))),
            Err(e) => Err(format!("{e:#}")),
        }
    };
    engine.set_fallback(fallback_for(&player).map_err(anyhow::Error::msg)?);
    let mut out = std::io::stdout().lock();
    mirror_frontend::uci::run(
        &mut engine,
        &fallback_for,
        std::io::BufReader::new(std::io::stdin()),
        &mut out,
    )?;
    Ok(ExitCode::SUCCESS)
}
