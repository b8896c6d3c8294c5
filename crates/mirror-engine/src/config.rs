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
    /// A flag's value is refused (or the flag is no option).
    #[error("--{}", name.replace('_', "-"))]
    Flag {
        /// The option's name.
        name: String,
        /// Why.
        #[source]
        source: OptionError,
    },
    /// Neither the flags nor the file name the player.
    #[error("which player? pass --user NAME (or player = \"NAME\" in --config)")]
    NoPlayer,
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
/// What a command was given for the engine, in the order it counts: the defaults, then
/// the file, then the flags.
#[derive(Clone, Debug, Default)]
pub struct Given<'a> {
    /// The player named on the command line.
    pub player: Option<String>,
    /// The config file.
    pub config: Option<&'a Path>,
    /// The options given as flags, by name, each set through [`EngineOptions::set`].
    pub flags: Vec<(&'static str, String)>,
    /// The seed given as a flag.
    pub seed: Option<u64>,
}

/// The engine's player and options, as given.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The player.
    pub player: String,
    /// The options.
    pub options: EngineOptions,
    /// Whether the seed came from the clock (no flag or file set it), so the command can
    /// say how to replay its choices.
    pub seed_from_clock: bool,
}

/// Sets the options given as flags (by name) over `options`, each through
/// [`EngineOptions::set`].
pub fn set_flags(
    options: &mut EngineOptions,
    flags: &[(&'static str, String)],
) -> Result<(), ConfigError> {
    for (name, value) in flags {
        options
            .set(name, value)
            .map_err(|source| ConfigError::Flag {
                name: name.to_string(),
                source,
            })?;
    }
    Ok(())
}

/// `defaults`, then the file, then the flags; the seed from the clock when neither the
/// flags nor the file set it.
pub fn resolve(defaults: EngineOptions, given: Given<'_>) -> Result<Resolved, ConfigError> {
    let mut options = defaults;
    let file = match given.config {
        Some(p) => read_config(p, &mut options)?,
        None => ConfigFile::default(),
    };
    set_flags(&mut options, &given.flags)?;
    let player = given.player.or(file.player).ok_or(ConfigError::NoPlayer)?;
    let seed_from_clock = match given.seed {
        Some(s) => {
            options.seed = s;
            false
        }
        None if file.seed_given => false,
        None => {
            options.seed = crate::options::clock_seed();
            true
        }
    };
    Ok(Resolved {
        player,
        options,
        seed_from_clock,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().expect("a temporary file");
        std::fs::write(f.path(), text).expect("written");
        f
    }

    #[test]
    fn flags_win_over_the_file_and_the_file_over_the_defaults() {
        let f = file("player = \"Ann\"\nmin_games = 7\nseed = 3\n");
        let plain = resolve(
            EngineOptions::default(),
            Given {
                config: Some(f.path()),
                ..Given::default()
            },
        )
        .expect("resolved");
        assert_eq!(
            (
                plain.player.as_str(),
                plain.options.min_games,
                plain.options.seed
            ),
            ("Ann", 7, 3)
        );
        assert!(!plain.seed_from_clock);
        let flagged = resolve(
            EngineOptions::default(),
            Given {
                player: Some("Bob".into()),
                config: Some(f.path()),
                flags: vec![("min_games", "9".into())],
                seed: Some(11),
            },
        )
        .expect("resolved");
        assert_eq!(
            (
                flagged.player.as_str(),
                flagged.options.min_games,
                flagged.options.seed
            ),
            ("Bob", 9, 11)
        );
    }

    #[test]
    fn no_seed_given_is_the_clocks_and_no_player_is_refused() {
        let given = || Given {
            player: Some("Ann".into()),
            ..Given::default()
        };
        assert!(
            resolve(EngineOptions::default(), given())
                .expect("resolved")
                .seed_from_clock
        );
        assert!(matches!(
            resolve(EngineOptions::default(), Given::default()),
            Err(ConfigError::NoPlayer)
        ));
        let refused = resolve(
            EngineOptions::default(),
            Given {
                flags: vec![("min_games", "many".into())],
                ..given()
            },
        );
        assert!(matches!(refused, Err(ConfigError::Flag { name, .. }) if name == "min_games"));
    }
}
