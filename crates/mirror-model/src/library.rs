//! Where a player's model lives: `MODELS/PLAYER_KEY`, trained there by `mirror train`, or
//! the model shipped in `models/` for the shared player, installed there on first use
//! (Burn reads weights lazily from the file, so it must stay on disk).

use std::path::Path;

use crate::{ModelError, Predictor};

/// The player's model in `dir` (their directory under the models root), installing the
/// shipped one first if `player` has one and `dir` holds none, or holds one of an older
/// encoding that this build cannot read (that one is moved aside to `DIR.encoding-N`, not
/// deleted). `Ok(None)` when the player has no model; a model that is there but cannot be
/// installed or loaded is an error.
pub fn load_or_install(dir: &Path, player: &str) -> Result<Option<Predictor>, ModelError> {
    if let (Err(ModelError::Encoding { found, .. }), Some(_)) =
        (Predictor::load(dir), shipped(player))
    {
        let mut aside = dir.as_os_str().to_owned();
        aside.push(format!(".encoding-{found}"));
        std::fs::rename(dir, &aside).map_err(|source| ModelError::File {
            path: dir.to_path_buf(),
            source: Box::new(source),
        })?;
    }
    if !dir.join("meta.json").exists() {
        let Some((weights, meta)) = shipped(player) else {
            return Ok(None);
        };
        install_shipped(weights, meta, dir).map_err(|source| ModelError::File {
            path: dir.to_path_buf(),
            source: Box::new(source),
        })?;
    }
    Predictor::load(dir).map(Some)
}

/// The model shipped for `player` (weights, meta.json), if there is one.
pub fn shipped(player: &str) -> Option<(&'static [u8], &'static str)> {
    const SHIPPED: &[(&str, &[u8], &str)] = &[(
        "Biskupstunga",
        include_bytes!("../../../models/biskupstunga/model.bpk"),
        include_str!("../../../models/biskupstunga/meta.json"),
    )];
    SHIPPED
        .iter()
        .find(|(p, _, _)| p.eq_ignore_ascii_case(player))
        .map(|(_, w, m)| (*w, *m))
}

/// Writes a shipped model into `dir`.
fn install_shipped(weights: &[u8], meta: &str, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("model.bpk"), weights)?;
    // meta.json last: its presence marks a complete model.
    std::fs::write(dir.join("meta.json"), meta)
}
