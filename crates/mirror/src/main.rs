//! `mirror`: learns how one chess player plays from their own games and plays back like them.

mod analyse;
mod args;
mod bench;
mod bench_serve;
mod cli;
mod drill;
mod engine_cfg;
mod eval;
mod explore;
mod export;
mod ingest;
mod play;
mod pretrain;
mod report;
mod serve;
mod train;
mod values;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: fewer page faults and faster small allocations than the system allocator
/// (measured on ingest and the HTTP benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Diagnostics on stderr, off unless asked for: RUST_LOG=mirror_ingest=info,
    // RUST_LOG=debug (every store write, engine choice and HTTP request), ...
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("off")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = cli::Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // Each cause once, however the libraries word their messages.
            eprintln!(
                "mirror: error: {}",
                mirror_core::errors::error_text(err.as_ref())
            );
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        cli::Command::Ingest(args) => ingest::run(&cli.store, args),
        cli::Command::Explore(args) => explore::run(&cli.store, args),
        cli::Command::Edges(args) => explore::edges(&cli.store, args),
        cli::Command::Players(args) => explore::players(&cli.store, &args),
        cli::Command::Prep(args) => explore::prep(&cli.store, &args),
        cli::Command::Bench(args) => bench::run(&cli.store, args),
        cli::Command::Serve(args) => serve::run(&cli.store, args),
        cli::Command::Values(args) => values::run(&cli.store, args),
        cli::Command::Play(args) => play::play(&cli.store, args),
        cli::Command::Export(args) => export::run(&cli.store, args),
        cli::Command::Train(args) => train::run(&cli.store, args),
        cli::Command::Pretrain(args) => pretrain::run(args),
        cli::Command::Eval(args) => eval::run(&cli.store, args),
        cli::Command::Uci(args) => play::uci(&cli.store, args),
        cli::Command::Report(args) => report::run(&cli.store, args),
        cli::Command::Analyse(args) => analyse::run(&cli.store, args),
        cli::Command::Drill(args) => drill::run(&cli.store, args),
    }
}
