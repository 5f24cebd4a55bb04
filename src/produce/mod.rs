//! `urltree produce`: the crawler-side bridge that sends local raw-html records into the input
//! topic, keyed by registrable domain, so a domain's pages land on one partition whoever
//! produced them (DESIGN §6).
//!
//! - [`partitioner`]: the Java clients' partitioner for keyed records (murmur2), pure;
//! - [`route`]: a record's key, the registrable domain the engine would file it under, or why
//!   the engine would reject it;
//! - [`sender`]: the idempotent producer, delivery acknowledgements and the dead letters of
//!   records the broker refused or never acknowledged.

pub mod partitioner;
pub mod route;
pub mod sender;

pub use partitioner::{murmur2, partition_for};
pub use route::Router;
pub use sender::{Finished, ProduceError, Sender, Tally};
