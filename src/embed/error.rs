//! Why a page or a stream could not be processed.

use thiserror::Error;

use crate::config::ConfigError;
use crate::engine::EngineError;
use crate::record::{DeadLetter, ErrorKind};
use crate::shards::ShardError;
use crate::urlkey::RulesError;

/// A page that could not be processed, with the kind its dead letter would have (DESIGN §5).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{message} ({})", kind.as_str())]
pub struct Rejected {
    /// The dead-letter kind: `bad-url`, `too-large`, `bad-html`, ...
    pub kind: ErrorKind,
    /// What was wrong, for a person to read.
    pub message: String,
}

impl From<DeadLetter> for Rejected {
    fn from(dead: DeadLetter) -> Rejected {
        Rejected {
            kind: dead.error.kind,
            message: dead.error.message,
        }
    }
}

/// An extractor could not be built, or its state failed.
#[derive(Debug, Error)]
pub enum Error {
    /// The page was rejected.
    #[error(transparent)]
    Rejected(#[from] Rejected),
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The URL rules file could not be loaded.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The state could not be created, opened, read or written.
    #[error(transparent)]
    State(#[from] ShardError),
    /// The temporary state directory could not be created.
    #[error("creating a temporary state directory: {0}")]
    TempDir(std::io::Error),
    /// The extractor was closed.
    #[error("the extractor is closed")]
    Closed,
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Error {
        match e {
            EngineError::Rules(e) => Error::Rules(e),
            EngineError::State(source) => Error::State(ShardError::State {
                shard: 0,
                record: 0,
                source,
            }),
        }
    }
}
