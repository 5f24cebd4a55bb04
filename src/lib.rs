//! urltree turns a stream of crawled HTML pages into a stream of clean article text, learning each
//! site's template from the stream itself with the URL Tree of Sluban & Grčar (CIKM 2013).
//!
//! One page, no state ([`extract`]):
//!
//! ```
//! let html = r#"<html><head><title>Tides</title></head><body>
//!   <nav><a href="/">Home</a> <a href="/contact">Contact</a></nav>
//!   <main><h1>Why the sea has two tides a day</h1>
//!   <p>The Moon pulls the near side of the ocean towards it a little more than the Earth's
//!   centre, and the far side a little less, so the water bulges on both sides at once.</p>
//!   <p>As the Earth turns beneath the two bulges, most coasts pass through each of them once
//!   a day: two high tides, about twelve hours and twenty-five minutes apart.</p></main>
//!   <footer>© Coast Notes</footer></body></html>"#;
//! let page = urltree::extract(html, "https://coast.example.net/tides")?;
//! assert!(page.text.starts_with("Why the sea has two tides a day"));
//! assert!(!page.text.contains("Contact"));
//! # Ok::<(), urltree::embed::Rejected>(())
//! ```
//!
//! A stream of pages through the URL Tree, which learns each site's template as it goes:
//! [`embed::Extractor`] (a temporary state, or one kept on disk), or the [`engine`] itself.
//!
//! The pure algorithm, free of I/O:
//! - [`urlkey`]: the normalized URL key, registrable domain and branch of a page;
//! - [`blocks`]: the page's text blocks from one pass of an HTML lexer;
//! - [`tree`]: node ids, fingerprints, the paper's heuristics and retention;
//! - [`eval`]: word-LCS and bag-of-words scoring and evaluation reports.
//!
//! The edges:
//! - [`embed`]: urltree in a program: [`extract`] one page, [`embed::Extractor`] for a stream;
//! - [`record`]: the JSON records read and written;
//! - [`state`]: RocksDB storage of the tree, one atomic write per batch;
//! - [`engine`]: the per-page pipeline wiring the above; [`shards`]: several engines over one
//!   input, by domain, in input order;
//! - [`config`]: typed, defaulted, validated configuration;
//! - [`kafka`]: the Kafka worker of `urltree run`; `produce`: `urltree produce`, local records
//!   into the input topic keyed by registrable domain (both with the `kafka` feature, on by
//!   default; without it only the `[kafka]` configuration section is built);
//! - [`local`]: local files in and out; [`corpus`]: gold corpora and evaluation runs;
//!   [`bench`](mod@bench): the throughput benchmark.

pub mod bench;
pub mod blocks;
pub mod config;
pub mod corpus;
pub mod embed;
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

pub use embed::{extract, Extracted};
