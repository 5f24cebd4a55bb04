//! urltree turns a stream of crawled HTML pages into a stream of clean article text, learning each
//! site's template from the stream itself with the URL Tree of Sluban & Grčar (CIKM 2013).
//!
//! The pure algorithm, free of I/O:
//! - [`urlkey`]: the normalized URL key, registrable domain and branch of a page;
//! - [`blocks`]: the page's text blocks from one pass of an HTML lexer;
//! - [`tree`]: node ids, fingerprints, the paper's heuristics and retention;
//! - [`eval`]: word-LCS and bag-of-words scoring and evaluation reports.
//!
//! The edges:
//! - [`record`]: the JSON records read and written;
//! - [`state`]: RocksDB storage of the tree, one atomic write per batch;
//! - [`engine`]: the per-page pipeline wiring the above; [`shards`]: several engines over one
//!   input, by domain, in input order;
//! - [`config`]: typed, defaulted, validated configuration;
//! - [`kafka`]: the Kafka worker of `urltree run`; `produce`: `urltree produce`, local records
//!   into the input topic keyed by registrable domain (both with the `kafka` feature, on by
//!   default; without it only the `[kafka]` configuration section is built);
//! - [`local`]: local files in and out; [`corpus`]: gold corpora and evaluation runs;
//!   [`bench`]: the throughput benchmark.

pub mod bench;
pub mod blocks;
pub mod config;
pub mod corpus;
pub mod engine;
pub mod eval;
pub mod kafka;
pub mod lang;
pub mod local;
pub mod markdown;
#[cfg(feature = "kafka")]
pub mod produce;
pub mod record;
pub mod shards;
pub mod state;
pub mod tree;
pub mod urlkey;
