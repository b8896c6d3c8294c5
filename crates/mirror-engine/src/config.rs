//! The engine's config file (`--config FILE`, TOML): `player` and any engine option by
//! its name in [`crate::KNOBS`], each set through [`EngineOptions::set`] as UCI's
//! `setoption` and the HTTP parameters are. Lists are arrays of strings.

use std::path::{Path, PathBuf};

use crate::{EngineOptions, options::OptionError};

/// What a config file said besides the engine's options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigFile {
    /// Its `player`.
    pub player: Option<String>,
    /// Whether it set the seed.
    pub seed_given: bool,
}

/// Why a config file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not TOML.
    #[error("invalid config {}", path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: toml::de::Error,
    },
    /// A key's value is refused (or the key is no option).
    #[error("invalid config {}: {key}", path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// Why.
        #[source]
        source: OptionError,
    },
    /// A value of a type no option takes (a table, a date, a list of numbers).
    #[error("invalid config {}: {key}: {what}", path.display())]
    Type {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// What it was.
        what: String,
    },
}

/// Reads the config file at `path` into `opts`.
pub fn read_config(path: &Path, opts: &mut EngineOptions) -> Result<ConfigFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let table: toml::Table = toml::from_str(&text).map_err(|source| ConfigError::Toml {
        path: path.to_path_buf(),
        source,
    })?;
    let mut file = ConfigFile {
        player: None,
        seed_given: table.contains_key("seed"),
    };
    for (key, value) in table {
        let refuse = |what: String| ConfigError::Type {
            path: path.to_path_buf(),
            key: key.clone(),
            what,
        };
        let text = match &value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    toml::Value::String(s) => Ok(s.clone()),
                    other => Err(refuse(format!("list items must be strings, not {other}"))),
                })
                .collect::<Result<Vec<_>, _>>()?
                .join(","),
            other => {
                return Err(refuse(format!(
                    "{} values are not accepted",
                    other.type_str()
                )));
            }
        };
        if key == "player" {
            file.player = Some(text);
        } else {
            opts.set(&key, &text).map_err(|source| ConfigError::Key {
                path: path.to_path_buf(),
                key,
                source,
            })?;
        }
    }
    Ok(file)
}
