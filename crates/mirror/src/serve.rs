//! `mirror serve`.

use std::{net::SocketAddr, process::ExitCode, sync::Arc};

use anyhow::Context;
use clap::Args;
use mirror_engine::FallbackFactory;
use mirror_server::{AppState, client::ServerFile, serve};
use mirror_store::{
    embedded::OpenMode,
    place::{AnyStore, Backend},
};

use crate::args::StoreArgs;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, env = "MIRROR_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Store operations running at once (the rest wait).
    #[arg(long, default_value_t = 64)]
    pub blocking: usize,
    /// A file holding the secret that writes through the server need (`Authorization:
    /// Bearer TOKEN`; readable by its owner only, mode 0600), else MIRROR_SERVER_TOKEN,
    /// else a random one. Never on the command line, where `ps` shows it. Other mirror
    /// processes read it from the file next to the store; the page asks for it when the
    /// server answers beyond this machine. 16 characters at least.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub fetch: crate::ingest::FetchArgs,
}

/// Each player's model fallback, loaded on the first request that needs it and shared by
/// every request after it ([`crate::train::FallbackModels`]); every player without a model
/// gets the one population base, and one whose model cannot be loaded a random legal move
/// (after one error on stderr: the load is not tried again).
pub fn model_fallbacks(store_args: &StoreArgs) -> FallbackFactory {
    let models = crate::train::FallbackModels::new(store_args);
    mirror_engine::fallback::model_fallbacks(
        move |player| {
            models
                .load(player)
                .map(|(m, _)| m)
                .map_err(|e| format!("{e:#}"))
        },
        |player, why| {
            eprintln!("mirror: error: {why}; {player}'s moves outside their games will be random");
        },
    )
}

pub fn run(store_args: &StoreArgs, args: ServeArgs) -> anyhow::Result<ExitCode> {
    mirror_engine::endgame::warm_up();
    let addr: SocketAddr = args.bind.parse().with_context(|| {
        format!(
            "--bind {:?} is not an address like 127.0.0.1:8080",
            args.bind
        )
    })?;
    // Created when missing: a new user adds their first player on the page.
    let store: Arc<AnyStore> = Arc::new(store_args.open(OpenMode::Serve)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        if !local.ip().is_loopback() {
            eprintln!(
                "warning: listening on {local}, beyond this machine: anyone who reaches it can \
                 read every player's games and play their mirrors (writes still need the token)"
            );
        }
        // The address other mirror processes on this machine use.
        let here = if local.ip().is_unspecified() {
            SocketAddr::from(([127, 0, 0, 1], local.port()))
        } else {
            local
        };
        let token = match mirror_server::client::server_token(args.token_file.as_deref())? {
            Some(t) => t,
            None => format!("{:032x}", rand::random::<u128>()),
        };
        let place = store_args.place();
        let _file = match place.backend() {
            Backend::Embedded => Some(ServerFile::write(
                &place.path()?,
                format!("http://{here}"),
                token.clone(),
            )?),
            Backend::Neo4j => None,
        };
        let stop = mirror_server::listen::shutdown_signal();
        eprintln!(
            "mirror serving {} on http://{local}/ (Ctrl-C to stop)",
            place.describe()?,
        );
        let state = AppState::with_writes(
            store,
            args.blocking,
            Some(model_fallbacks(store_args)),
            token,
            (
                args.fetch.setup(store_args)?,
                store_args.place().describe()?,
            ),
        );
        serve(listener, state, stop).await?;
        anyhow::Ok(())
    });
    // Store work still running for a client that is gone (a report, a search) does not
    // hold the exit: the answer would go nowhere.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    eprintln!("mirror stopped");
    Ok(ExitCode::SUCCESS)
}
