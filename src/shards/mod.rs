//! Several engines over one input, as partitions do under Kafka (DESIGN §1): each registrable
//! domain belongs to one shard, every shard has its own engine and state, and the outcomes come
//! back in input order, identical to one engine's.
//!
//! - [`route`]: the domain a record's page is filed under, read cheaply from its JSON;
//! - [`domains`]: the durable domain → shard map of a state;
//! - [`layout`]: where the shards' states live and how many shards a state holds;
//! - [`lock`]: one run at a time on a state;
//! - [`outbox`]: what `extract` keeps in the states so that a killed run loses no outcome;
//! - [`runner`]: [`Sharded`], the engines on their threads, and the reorder buffer.

pub mod domains;
pub mod layout;
pub mod lock;
pub mod outbox;
pub mod route;
pub mod runner;

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::engine::EngineError;
use crate::state::StateError;

pub use domains::DomainMap;
pub use layout::{resolve_jobs, Layout};
pub use lock::StateLock;
pub use runner::{Emitted, MarkHandle, Recovered, Sharded};

/// The shards could not be opened, or a shard failed.
#[derive(Debug, Error)]
pub enum ShardError {
    /// The state holds another number of shards than the run asked for.
    #[error("the state at {path} holds {held} shard{s} (it was written with --jobs {held}); run with --jobs {held}, or give a fresh --state: a domain's memory is never split between shards, and urltree does not move domains between shards", s = if *held == 1 { "" } else { "s" })]
    ShardCount {
        /// The state directory.
        path: PathBuf,
        /// Shards the state holds.
        held: usize,
        /// Shards asked for.
        requested: usize,
    },
    /// Another process holds the state.
    #[error("the state at {path} is in use by another urltree process (it holds {path}/urltree.lock); wait for it to finish, or give another --state")]
    Busy {
        /// The state directory.
        path: PathBuf,
    },
    /// The state directory mixes layouts or shard counts.
    #[error("the state at {path} is not a urltree state of one shard count: {detail}")]
    Inconsistent {
        /// The state directory.
        path: PathBuf,
        /// What was found.
        detail: String,
    },
    /// The domain map could not be read or written.
    #[error("domain map {path}: {source}")]
    DomainMap {
        /// The map file.
        path: PathBuf,
        /// The I/O or format error.
        source: io::Error,
    },
    /// A shard's engine could not be opened.
    #[error("opening shard {shard} at {path}: {source}")]
    Open {
        /// The shard.
        shard: usize,
        /// Its state directory.
        path: PathBuf,
        /// Why.
        source: EngineError,
    },
    /// A shard's state failed while processing: the run stops after the outcomes before the
    /// failed batch.
    #[error("shard {shard} failed at the batch starting with input record {record} (in input order, from 0): {source}")]
    State {
        /// The shard.
        shard: usize,
        /// Input sequence number (0-based) of the failed batch's first record.
        record: u64,
        /// The state error.
        source: StateError,
    },
    /// A resumed run read an input record other than the one whose outcome the interrupted run
    /// committed.
    #[error("input record {record} (in input order, from 0) is not the one the interrupted run read: it is not the same input; give that input to finish the run, or --no-resume to start a new one")]
    InputChanged {
        /// The record.
        record: u64,
    },
    /// A shard's thread ended without reporting (it panicked).
    #[error("shard {shard} stopped unexpectedly")]
    Lost {
        /// The shard.
        shard: usize,
    },
    /// A shard's thread could not be started.
    #[error("starting the thread of shard {shard}: {source}")]
    Spawn {
        /// The shard.
        shard: usize,
        /// The I/O error.
        source: io::Error,
    },
}

/// A run over shards stopped: a shard failed, or the consumer of the outcomes did.
#[derive(Debug, Error)]
pub enum RunError<E> {
    /// A shard failed (every outcome before its failed batch was delivered).
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The consumer of the outcomes returned an error.
    #[error(transparent)]
    Emit(E),
}
