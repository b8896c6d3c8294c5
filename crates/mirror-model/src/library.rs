//! Where a player's model lives: `MODELS/PLAYER_KEY`, trained there by `mirror train`, or
//! the model shipped in `models/` for the shared player, installed there on first use
//! (Burn reads weights lazily from the file, so it must stay on disk); and the population
//! base model shipped in `models/population/` (`mirror pretrain`), installed in
//! `MODELS/.population` ([`BASE_DIR`]).

use std::path::{Path, PathBuf};

use crate::{ModelError, Predictor, inference::read_meta};

/// The models of one data directory (`DATA/models`): where each player's model lives
/// (its directory named by the player's key, never by the raw name) and its load.
#[derive(Clone, Debug)]
pub struct Models {
    root: PathBuf,
}

impl Models {
    /// The models under the data directory `data_dir`.
    pub fn under(data_dir: &Path) -> Models {
        Models {
            root: data_dir.join("models"),
        }
    }

    /// The directory of `player`'s model.
    pub fn dir_of(&self, player: &str) -> Result<PathBuf, ModelError> {
        Ok(mirror_core::PlayerKey::new(player)?.dir_under(&self.root))
    }

    /// `player`'s model (trained, or the shipped one installed on first use); `Ok(None)`
    /// when they have none. An error names the model's directory.
    pub fn load(&self, player: &str) -> Result<Option<Predictor>, ModelError> {
        let dir = self.dir_of(player)?;
        load_or_install(&dir, player).map_err(|e| ModelError::Unloadable {
            what: format!("{player}'s model from {}", dir.display()),
            source: Box::new(e),
        })
    }

    /// A cache of these models, each loaded once and shared ([`ModelCache`]).
    pub fn cache(&self) -> ModelCache {
        ModelCache::new(self.root.clone())
    }
}

/// The player's model in `dir` (their directory under the models root), installing the
/// shipped one first if `player` has one and `dir` holds none, or holds one of an older
/// encoding that this build cannot read (that one is moved aside to `DIR.encoding-N`, not
/// deleted). `Ok(None)` when the player has no model; a model that is there but cannot be
/// installed or loaded is an error.
pub fn load_or_install(dir: &Path, player: &str) -> Result<Option<Predictor>, ModelError> {
    install_and_load(dir, shipped(player))
}

/// The `player` of a population model's metadata (`mirror pretrain`).
pub const POPULATION: &str = "population";

/// The directory under the models root where the shipped population base is installed.
/// Player keys are account names, which do not start with a dot.
pub const BASE_DIR: &str = ".population";

/// The population base model shipped in `models/population/` (trained by `mirror
/// pretrain` on many players' games), installed under `models_root` on first use: what
/// plays for a player without a model of their own, and where `mirror train --base`
/// starts from.
pub fn load_or_install_base(models_root: &Path) -> Result<Predictor, ModelError> {
    Predictor::load(&install_base(models_root)?)
}

/// Installs the shipped population base under `models_root` if it is not there yet (or is
/// of an older encoding), without loading its weights; returns its directory (for `mirror
/// train`, which loads it onto the training device itself).
pub fn install_base(models_root: &Path) -> Result<PathBuf, ModelError> {
    let dir = models_root.join(BASE_DIR);
    install(&dir, Some(SHIPPED_BASE))?;
    Ok(dir)
}

/// The shipped population base: weights and meta.json.
const SHIPPED_BASE: (&[u8], &str) = (
    include_bytes!("../../../models/population/model.bpk"),
    include_str!("../../../models/population/meta.json"),
);

/// The model in `dir`, installing `shipped` there first if `dir` holds none, or holds one
/// of an older encoding (moved aside to `DIR.encoding-N`).
fn install_and_load(
    dir: &Path,
    shipped: Option<(&[u8], &str)>,
) -> Result<Option<Predictor>, ModelError> {
    if !install(dir, shipped)? {
        return Ok(None);
    }
    Predictor::load(dir).map(Some)
}

/// The file beside an installed shipped model that holds the meta.json it was installed
/// with: while meta.json still says the same, the model is the shipped one, untouched (a
/// model trained there since has other metadata), so a newer build may replace it.
pub const SHIPPED_MARK: &str = "shipped-meta.json";

/// Installs `shipped` in `dir` if `dir` holds no model, holds one of an older encoding
/// (moved aside to `DIR.encoding-N`), or holds an older shipped model that nobody replaced
/// (an upgrade brings the newer one); reads the metadata only, not the weights. Whether
/// `dir` now holds a model.
fn install(dir: &Path, shipped: Option<(&[u8], &str)>) -> Result<bool, ModelError> {
    if let (Err(ModelError::Encoding { found, .. }), Some(_)) = (read_meta(dir), shipped) {
        let mut aside = dir.as_os_str().to_owned();
        aside.push(format!(".encoding-{found}"));
        std::fs::rename(dir, &aside).map_err(|source| ModelError::File {
            path: dir.to_path_buf(),
            source: Box::new(source),
        })?;
    }
    let stale_shipped = shipped.is_some_and(|(_, meta)| {
        let installed = std::fs::read_to_string(dir.join("meta.json")).ok();
        let mark = std::fs::read_to_string(dir.join(SHIPPED_MARK)).ok();
        installed.is_some() && installed == mark && installed.as_deref() != Some(meta)
    });
    if stale_shipped || !dir.join("meta.json").exists() {
        let Some((weights, meta)) = shipped else {
            return Ok(false);
        };
        install_shipped(weights, meta, dir).map_err(|source| ModelError::File {
            path: dir.to_path_buf(),
            source: Box::new(source),
        })?;
    }
    Ok(true)
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

/// Writes a shipped model into `dir`, each file through a temporary one renamed over it
/// (a process still reading the old weights keeps its file).
fn install_shipped(weights: &[u8], meta: &str, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    crate::inference::private(dir)?;
    let put = |name: &str, bytes: &[u8]| {
        let tmp = dir.join(format!("{name}.tmp"));
        std::fs::write(&tmp, bytes)?;
        crate::inference::private(&tmp)?;
        std::fs::rename(&tmp, dir.join(name))
    };
    // The weights first: meta.json's presence marks a complete model, and until it is
    // rewritten an interrupted reinstall still finds the old one marked as shipped. The
    // mark last: cut off before it, the new model stays, as if trained there.
    put("model.bpk", weights)?;
    put("meta.json", meta.as_bytes())?;
    put(SHIPPED_MARK, meta.as_bytes())
}

/// Where a training starts: `None` from scratch, else the model in `base`, or the
/// population base (installed under `models_root` first if it is not yet) when `base` is
/// absent or `population`.
pub fn start_dir(
    models_root: &Path,
    base: Option<&Path>,
    from_scratch: bool,
) -> Result<Option<PathBuf>, ModelError> {
    if from_scratch {
        return Ok(None);
    }
    match base {
        Some(dir) if dir.as_os_str() != POPULATION => Ok(Some(dir.to_path_buf())),
        _ => install_base(models_root).map(Some),
    }
}

/// The models that play for players outside their book, under one models root: each
/// player's own (trained, or the shipped one), else the shipped population base; each
/// loaded once per process (a player's own on first use, kept for the next time:
/// `setoption name Player` switching back, a server's next request), the base shared by
/// every player without a model (one copy, one ranking cache).
#[derive(Debug)]
pub struct ModelCache {
    root: PathBuf,
    own: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<Predictor>>>,
    base: std::sync::Mutex<Option<std::sync::Arc<Predictor>>>,
}

/// Where a model was loaded from, for the error that names it.
#[derive(Debug)]
pub enum Whose {
    /// The player's own model directory.
    Player(PathBuf),
    /// The population base under the models root.
    Base(PathBuf),
}

impl ModelCache {
    /// Nothing loaded yet; models under `root` (the data directory's `models`).
    pub fn new(root: PathBuf) -> ModelCache {
        ModelCache {
            root,
            own: std::sync::Mutex::new(std::collections::HashMap::new()),
            base: std::sync::Mutex::new(None),
        }
    }

    /// The directory of the player whose key is `key`.
    pub fn player_dir(&self, key: &mirror_core::PlayerKey) -> PathBuf {
        key.dir_under(&self.root)
    }

    /// The model that plays for `player` (their key checked here), the flag saying whether
    /// it is their own; an error names the model ([`ModelCache::load_named`]).
    pub fn load_player(
        &self,
        player: &str,
    ) -> Result<(std::sync::Arc<Predictor>, bool), ModelError> {
        self.load_named(player, &mirror_core::PlayerKey::new(player)?)
    }

    /// [`ModelCache::load`] with an error that names the model
    /// ([`ModelError::Unloadable`]).
    pub fn load_named(
        &self,
        player: &str,
        key: &mirror_core::PlayerKey,
    ) -> Result<(std::sync::Arc<Predictor>, bool), ModelError> {
        self.load(player, key)
            .map_err(|(whose, e)| ModelError::Unloadable {
                what: match whose {
                    Whose::Player(dir) => format!("{player}'s model from {}", dir.display()),
                    Whose::Base(root) => {
                        format!("the population base model from {}", root.display())
                    }
                },
                source: Box::new(e),
            })
    }

    /// The model that plays for `player` (directory name `key`); the flag says whether it
    /// is their own. An error says which model failed to load.
    pub fn load(
        &self,
        player: &str,
        key: &mirror_core::PlayerKey,
    ) -> Result<(std::sync::Arc<Predictor>, bool), (Whose, ModelError)> {
        let dir = self.player_dir(key);
        let mut own = self
            .own
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = own.get(&dir) {
            return Ok((std::sync::Arc::clone(p), true));
        }
        match load_or_install(&dir, player) {
            Ok(Some(p)) => {
                let p = std::sync::Arc::new(p);
                own.insert(dir, std::sync::Arc::clone(&p));
                return Ok((p, true));
            }
            Ok(None) => {}
            Err(e) => return Err((Whose::Player(dir), e)),
        }
        drop(own);
        let mut base = self
            .base
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(b) = base.as_ref() {
            return Ok((std::sync::Arc::clone(b), false));
        }
        let loaded = std::sync::Arc::new(
            load_or_install_base(&self.root).map_err(|e| (Whose::Base(self.root.clone()), e))?,
        );
        *base = Some(std::sync::Arc::clone(&loaded));
        Ok((loaded, false))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Players without a model share one loaded base; a player with one gets their own.
    #[test]
    fn players_without_a_model_share_one_base() {
        let dir = tempfile::tempdir().expect("temp dir");
        let models = ModelCache::new(dir.path().join("models"));
        let key = |p: &str| mirror_core::PlayerKey::new(p).expect("a name");
        let (a, own_a) = models
            .load_named("Karpov, Anatoly", &key("Karpov, Anatoly"))
            .expect("the base");
        let (b, own_b) = models
            .load_named("someone-else", &key("someone-else"))
            .expect("the base");
        assert!(!own_a && !own_b);
        assert_eq!(a.meta.player, POPULATION);
        assert!(Arc::ptr_eq(&a, &b), "one copy of the base");
        let (own, is_own) = models
            .load_named("Biskupstunga", &key("Biskupstunga"))
            .expect("the shipped model");
        assert!(is_own);
        assert_eq!(own.meta.player, "Biskupstunga");
        // A player's own model is loaded once: switching back (UCI `setoption name
        // Player`, the server's next request) gets the same copy, whatever the case.
        let (again, _) = models
            .load_named("biskupstunga", &key("biskupstunga"))
            .expect("the shipped model");
        assert!(
            Arc::ptr_eq(&own, &again),
            "one copy of a player's own model"
        );
        // The base is installed without being loaded for training to load it itself,
        // and a base of another encoding is moved aside and installed again.
        let root = dir.path().join("models");
        let base = install_base(&root).expect("installed");
        assert_eq!(base, root.join(BASE_DIR));
        let meta = base.join("meta.json");
        let text = std::fs::read_to_string(&meta).expect("meta.json");
        let old = text.replacen(
            &format!(
                "\"encoding_version\": {}",
                crate::encoding::ENCODING_VERSION
            ),
            "\"encoding_version\": 1",
            1,
        );
        assert_ne!(old, text, "meta.json names its encoding");
        std::fs::write(&meta, old).expect("write");
        install_base(&root).expect("installed again");
        assert!(
            root.join(".population.encoding-1")
                .join("meta.json")
                .exists()
        );
        assert_eq!(std::fs::read_to_string(&meta).expect("meta.json"), text);
    }
}
