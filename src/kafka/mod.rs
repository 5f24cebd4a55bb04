//! `urltree run`: the Kafka worker (DESIGN §1, §4, §6).
//!
//! - [`config`]: the `[kafka]` section (brokers, group, topics, delivery mode, pass-through
//!   librdkafka properties);
//! - [`consumer`]: the stream driver ([`Worker`]): consumer group membership with cooperative-sticky
//!   assignment and static membership, per-partition batching, bounded in-flight work,
//!   rebalances and graceful shutdown;
//! - [`worker`]: per-partition processing, one [`crate::engine::Engine`] and RocksDB state per
//!   assigned partition, restore on assignment, and the order of effects that makes delivery
//!   exactly-once (or at-least-once) without ever applying a page twice to the tree;
//! - [`producer`]: output, dead-letter and changelog delivery with broker acknowledgement, in one
//!   Kafka transaction per batch in exactly-once mode;
//! - [`changelog`]: the changelog records and the restore of a partition's state from them;
//! - [`http`]: `/metrics`, `/healthz`, `/readyz`; [`metrics`]: the Prometheus metrics.

pub mod changelog;
pub mod config;
pub mod consumer;
pub mod http;
pub mod metrics;
pub mod producer;
pub mod worker;

pub use config::{DeliveryMode, KafkaConfig, Topics};
pub use consumer::{RunError, Worker};
pub use metrics::Metrics;
