//! The integration tests, as one test binary: every file under `tests/` beside `main.rs` would
//! be a binary of its own, each linking the library, RocksDB and their dependencies again, so the
//! tests are modules here instead. The tests that need a Kafka broker and the `kafka` feature
//! are the other binary, `tests/kafka/`.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod corpus;
mod dockerfile;
mod engine;
mod extract_delivery;
mod first_hour;
mod lang;
mod metadata;
mod noscript;
mod repository;
mod schemas;
mod shards;
mod state_props;
mod structure;
mod warc;
