//! `mirror serve`.

use std::{
    collections::HashMap,
    net::SocketAddr,
    process::ExitCode,
    sync::{Arc, Mutex},
};

use anyhow::Context;
use clap::Args;
use mirror_engine::{Fallback, FallbackFactory, ModelFallback, RandomLegal};
use mirror_model::Predictor;
use mirror_server::{AppState, serve};
use mirror_store::embedded::OpenMode;

use crate::cli::StoreArgs;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, env = "MIRROR_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Store operations running at once (the rest wait).
    #[arg(long, default_value_t = 64)]
    pub blocking: usize,
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Each player's model fallback, loaded on the first request that needs it and shared by
/// every request after it; a player without a model gets a random legal move (and so does
/// one whose model cannot be loaded, after an error on stderr).
pub fn model_fallbacks(store_args: &StoreArgs) -> FallbackFactory {
    let store_args = store_args.clone();
    let cache: Mutex<HashMap<String, Option<Arc<Predictor>>>> = Mutex::new(HashMap::new());
    Arc::new(move |player: &str| -> Box<dyn Fallback> {
        let key = player.to_lowercase();
        let model = {
            let mut cache = cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            cache
                .entry(key)
                .or_insert_with(|| match crate::train::load_model(&store_args, player) {
                    Ok(model) => model.map(Arc::new),
                    Err(e) => {
                        eprintln!(
                            "mirror: error: {e:#}; {player}'s moves outside their games will be random"
                        );
                        None
                    }
                })
                .clone()
        };
        match model {
            Some(p) => Box::new(ModelFallback::new(p)),
            None => Box::new(RandomLegal),
        }
    })
}

pub fn run(store_args: &StoreArgs, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let addr: SocketAddr = args.bind.parse().with_context(|| {
        format!(
            "--bind {:?} is not an address like 127.0.0.1:8080",
            args.bind
        )
    })?;
    let store = Arc::new(store_args.open(OpenMode::MustExist)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        eprintln!(
            "mirror serving {} on http://{}/ (Ctrl-C to stop)",
            store_args.describe()?,
            listener.local_addr()?
        );
        serve(
            listener,
            AppState::with_fallbacks(store, args.blocking, Some(model_fallbacks(store_args))),
            shutdown_signal(),
        )
        .await?;
        eprintln!("mirror stopped");
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
