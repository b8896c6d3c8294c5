//! Where a command's store is: the backend, mirror's data directory and the embedded
//! store's file, as the command line or the environment name them, and opening it. The
//! binary parses the flags into a [`Place`]; every rule of which store that means is here.

use std::path::PathBuf;

use crate::{GraphStore, StoreError, embedded::EmbeddedStore, embedded::OpenMode};

/// Which backend holds the graph.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// One redb file (the default).
    Embedded,
    /// Neo4j over Bolt (`MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`, `MIRROR_NEO4J_PASSWORD`).
    Neo4j,
}

impl Backend {
    /// Games per write transaction when none is asked for. Neo4j holds a transaction's
    /// changes in its heap, so its batches are smaller.
    pub fn default_batch(self) -> usize {
        match self {
            Backend::Embedded => 50_000,
            Backend::Neo4j => 1_000,
        }
    }
}

/// A store of either backend.
pub type AnyStore = Box<dyn GraphStore + Send + Sync>;

/// Where the store is, as asked for: each part `None` when not given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The backend asked for (`--store`, `MIRROR_STORE`).
    pub backend: Option<Backend>,
    /// mirror's data directory (`--data-dir`, `MIRROR_DATA_DIR`).
    pub data_dir: Option<PathBuf>,
    /// The embedded store's file (`--db`, `MIRROR_DB`).
    pub db: Option<PathBuf>,
}

/// The Neo4j URI of the environment, if one is set and not empty.
fn neo4j_uri() -> Option<String> {
    std::env::var("MIRROR_NEO4J_URI")
        .ok()
        .filter(|u| !u.is_empty())
}

impl Place {
    /// mirror's data directory: the one given, else the platform's user data directory
    /// and `mirror`.
    pub fn data_dir(&self) -> Result<PathBuf, StoreError> {
        match &self.data_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(dirs::data_dir()
                .ok_or(StoreError::NoDataDir)?
                .join("mirror")),
        }
    }

    /// The embedded store's file: the one given, else `mirror.redb` in the data directory.
    pub fn path(&self) -> Result<PathBuf, StoreError> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => Ok(self.data_dir()?.join("mirror.redb")),
        }
    }

    /// The backend meant: the one asked for; else a store file given is the embedded
    /// store, whatever the environment says of Neo4j; else Neo4j when `MIRROR_NEO4J_URI`
    /// is set; else the embedded store.
    pub fn backend(&self) -> Backend {
        self.backend
            .unwrap_or(if self.db.is_none() && neo4j_uri().is_some() {
                Backend::Neo4j
            } else {
                Backend::Embedded
            })
    }

    /// Games per write transaction: `given`, else the backend's default.
    pub fn batch_size(&self, given: Option<u32>) -> usize {
        given.map_or(self.backend().default_batch(), |n| n as usize)
    }

    /// Which store and where, for messages: `the embedded store FILE` or `Neo4j at URI`
    /// (never the password).
    pub fn describe(&self) -> Result<String, StoreError> {
        Ok(match self.backend() {
            Backend::Embedded => format!("the embedded store {}", self.path()?.display()),
            Backend::Neo4j => format!("Neo4j at {}", neo4j_uri().unwrap_or_default()),
        })
    }

    /// Opens the embedded store's file.
    pub fn open_embedded(&self, mode: OpenMode) -> Result<EmbeddedStore, StoreError> {
        EmbeddedStore::open(&self.path()?, mode)
    }

    /// Opens the store meant. A store file given beside Neo4j asked for is refused: one
    /// of them is a mistake.
    pub fn open(&self, mode: OpenMode) -> Result<AnyStore, StoreError> {
        if let (Some(Backend::Neo4j), Some(db)) = (self.backend, &self.db) {
            return Err(StoreError::TwoStores { db: db.clone() });
        }
        match self.backend() {
            Backend::Embedded => Ok(Box::new(self.open_embedded(mode)?)),
            Backend::Neo4j => Ok(Box::new(open_neo4j()?)),
        }
    }
}

/// Connects to the Neo4j of the environment (`MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`,
/// `MIRROR_NEO4J_PASSWORD`).
#[cfg(feature = "neo4j")]
pub fn open_neo4j() -> Result<crate::neo4j::Neo4jStore, StoreError> {
    let cfg = crate::neo4j::Neo4jConfig::from_env().ok_or(StoreError::NoNeo4j)?;
    crate::neo4j::Neo4jStore::connect(cfg)
}

/// Without the `neo4j` feature there is no Neo4j to connect to.
#[cfg(not(feature = "neo4j"))]
fn open_neo4j() -> Result<EmbeddedStore, StoreError> {
    Err(StoreError::NoNeo4j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_file_given_is_the_embedded_store_and_neo4j_beside_it_is_refused() {
        let place = Place {
            db: Some("x.redb".into()),
            ..Place::default()
        };
        assert_eq!(place.backend(), Backend::Embedded);
        assert_eq!(place.path().ok(), Some(PathBuf::from("x.redb")));
        assert_eq!(place.batch_size(None), 50_000);
        assert_eq!(place.batch_size(Some(7)), 7);
        let both = Place {
            backend: Some(Backend::Neo4j),
            ..place
        };
        assert_eq!(both.batch_size(None), 1_000);
        assert!(matches!(
            both.open(OpenMode::MustExist),
            Err(StoreError::TwoStores { db }) if db.as_path() == std::path::Path::new("x.redb")
        ));
    }

    #[test]
    fn the_file_is_in_the_data_directory_unless_given() {
        let place = Place {
            backend: Some(Backend::Embedded),
            data_dir: Some("/nowhere/d".into()),
            db: None,
        };
        assert_eq!(
            place.path().ok(),
            Some(PathBuf::from("/nowhere/d/mirror.redb"))
        );
        assert!(matches!(
            place.open(OpenMode::MustExist),
            Err(StoreError::Missing { path }) if path.as_path() == std::path::Path::new("/nowhere/d/mirror.redb")
        ));
    }
}
