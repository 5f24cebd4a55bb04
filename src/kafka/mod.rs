//! `urltree run`: the Kafka worker (DESIGN §1, §4, §6).
//!
//! - [`config`]: the `[kafka]` section (brokers, group, topics, delivery mode, pass-through
//!   librdkafka properties).

pub mod config;

pub use config::{DeliveryMode, KafkaConfig, Topics};
