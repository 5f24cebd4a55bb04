//! The tests that run `urltree run` and `urltree produce` against a real Kafka-compatible broker
//! (tansu, installed by `scripts/test`), and the deployment checks that drive a live worker: one
//! test binary, built with the `kafka` feature.

#[path = "../common/mod.rs"]
mod common;

mod deploy;
mod worker;
