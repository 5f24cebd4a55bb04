//! The per-page pipeline over the URL Tree (DESIGN §1–2): decode → URL key → duplicate check →
//! blocks → insert → forget → classify → clean-text record.
//!
//! [`Engine`] is the one place these steps are wired; every input source (local files, Kafka)
//! hands it batches of raw records and gets one [`Outcome`] per record back, in order.

use std::collections::HashMap;

use thiserror::Error;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::blocks::{Block, Tokenizer};
use crate::config::{Config, DomainCheck, OutputOptions};
use crate::record::{BlockDetail, CleanRecord, DeadLetter, ErrorKind, ModelInfo, RawPage, Source};
use crate::state::keys::seen_key;
use crate::state::{StateError, Store, Txn};
use crate::tree::hybrid::{self, BlockFacts, NodeFacts, Reason};
use crate::tree::{
    block_key, path_key, BlockKey, Branch, Fingerprint, Heuristic, Label, Retention,
};
use crate::urlkey::{QueryRules, RulesError, UrlKey, UrlKeyer};

/// One raw input record and where it came from.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// The record's bytes (one JSON object).
    pub bytes: &'a [u8],
    /// Source coordinates, copied to the output.
    pub source: Source,
    /// The record's own timestamp (ms since the epoch, e.g. the Kafka record time): the output's
    /// `processed_at`, and the page's event time when it has no `fetched_at`.
    pub timestamp_ms: Option<i64>,
}

impl<'a> Input<'a> {
    /// A record with its coordinates and no timestamp of its own.
    pub fn new(bytes: &'a [u8], source: Source) -> Input<'a> {
        Input {
            bytes,
            source,
            timestamp_ms: None,
        }
    }
}

/// What became of one input record.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Accepted, inserted and classified.
    Clean(Box<CleanRecord>),
    /// Its URL key is already held in its domain: counted, not inserted, not classified.
    Duplicate {
        /// The duplicate URL key.
        url_key: String,
        /// The registrable domain.
        domain: String,
    },
    /// Not processable; the dead-letter record says why.
    Rejected(Box<DeadLetter>),
}

/// A change to the retained documents, as written to a changelog: a fingerprint inserted, or one
/// forgotten by retention (a tombstone). Every accepted page yields one insertion, in input order,
/// followed by the tombstones of the documents its insertion evicted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The document's identity: its domain node and the MD5 of its URL key
    /// ([`crate::state::keys::seen_key`]).
    pub key: [u8; 24],
    /// The encoded [`Fingerprint`] for an insertion, `None` for a tombstone.
    pub fingerprint: Option<Vec<u8>>,
    /// Offset (`source.offset`) of the input record that caused the change.
    pub offset: i64,
}

/// Running totals of an engine, for summaries and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Records seen.
    pub records: u64,
    /// Pages accepted and classified.
    pub pages: u64,
    /// Duplicates skipped.
    pub duplicates: u64,
    /// Records rejected.
    pub rejected: u64,
    /// Blocks labelled content.
    pub content_blocks: u64,
    /// Blocks labelled boilerplate.
    pub boilerplate_blocks: u64,
    /// HTML bytes of accepted pages.
    pub html_bytes: u64,
    /// Documents forgotten by retention.
    pub forgotten: u64,
}

/// The engine could not be built from its configuration.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The URL rules file could not be loaded.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The state could not be opened.
    #[error(transparent)]
    State(#[from] StateError),
}

/// The URL Tree pipeline over one RocksDB state.
pub struct Engine {
    keyer: UrlKeyer,
    tokenizer: Tokenizer,
    heuristic: Heuristic,
    retention: Retention,
    max_record_bytes: usize,
    domain_check: DomainCheck,
    output: OutputOptions,
    store: Store,
    stats: Stats,
}

impl Engine {
    /// Opens the state and builds the pipeline described by `config` (already validated).
    pub fn open(config: &Config) -> Result<Engine, EngineError> {
        let rules = match &config.rules.file {
            Some(path) => QueryRules::load(path)?,
            None => QueryRules::paper_default(),
        };
        Ok(Engine {
            keyer: UrlKeyer::new(rules, config.url.clone()),
            tokenizer: Tokenizer::new(config.parse.clone()),
            heuristic: config.tree.heuristic,
            retention: config.retention,
            max_record_bytes: config.input.max_record_bytes,
            domain_check: config.input.domain_check,
            output: config.output.clone(),
            store: Store::open(&config.state)?,
            stats: Stats::default(),
        })
    }

    /// The state store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Totals since the engine was opened.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The heuristic in use.
    pub fn heuristic(&self) -> Heuristic {
        self.heuristic
    }

    /// Processes a batch in order and commits all its state changes in one atomic write, together
    /// with `progress` (source name, next offset) when given. Returns one outcome per input.
    ///
    /// Bad records never fail the batch: they come back as [`Outcome::Rejected`]. Only a state
    /// error fails it, and then nothing of the batch is written.
    pub fn process_batch(
        &mut self,
        inputs: &[Input<'_>],
        progress: Option<(&str, u64)>,
    ) -> Result<Vec<Outcome>, StateError> {
        self.process_batch_then(inputs, progress, |_, _| {
            Ok::<(), std::convert::Infallible>(())
        })
        .map_err(|e| match e {
            BatchError::State(e) => e,
            BatchError::Aborted(never) => match never {},
        })
    }

    /// Like [`Engine::process_batch`], but calls `before_commit` with the outcomes and the
    /// changes to the retained documents (in the order they happened) after the batch is
    /// processed and before its state is written. When it fails, nothing of the batch is
    /// written (the tree and the progress stay as they were) and its error is returned.
    ///
    /// A Kafka worker delivers the outputs here, so the state never runs ahead of what readers
    /// have received.
    pub fn process_batch_then<E>(
        &mut self,
        inputs: &[Input<'_>],
        progress: Option<(&str, u64)>,
        before_commit: impl FnOnce(&[Outcome], &[Change]) -> Result<(), E>,
    ) -> Result<Vec<Outcome>, BatchError<E>> {
        let batch_started = OffsetDateTime::now_utc()
            .format(&Rfc3339)
            .unwrap_or_default();
        let mut changes = Vec::new();
        let store = &self.store;
        let mut txn = store.begin();
        let mut stats = self.stats;
        let mut ctx = PageContext {
            keyer: &self.keyer,
            tokenizer: &mut self.tokenizer,
            heuristic: self.heuristic,
            retention: self.retention,
            max_record_bytes: self.max_record_bytes,
            domain_check: self.domain_check,
            output: &self.output,
            batch_started: &batch_started,
            stats: &mut stats,
            changes: &mut changes,
        };
        let mut outcomes = Vec::with_capacity(inputs.len());
        for input in inputs {
            outcomes.push(ctx.process(&mut txn, input).map_err(BatchError::State)?);
        }
        if let Some((source, next_offset)) = progress {
            txn.set_progress(source, next_offset);
        }
        before_commit(&outcomes, &changes).map_err(BatchError::Aborted)?;
        txn.commit().map_err(BatchError::State)?;
        self.stats = stats;
        Ok(outcomes)
    }
}

/// A batch was not committed.
#[derive(Debug, Error)]
pub enum BatchError<E> {
    /// The state could not be read or written.
    #[error(transparent)]
    State(StateError),
    /// The `before_commit` step failed.
    #[error("batch aborted before commit: {0}")]
    Aborted(E),
}

struct PageContext<'e> {
    keyer: &'e UrlKeyer,
    tokenizer: &'e mut Tokenizer,
    heuristic: Heuristic,
    retention: Retention,
    max_record_bytes: usize,
    domain_check: DomainCheck,
    output: &'e OutputOptions,
    batch_started: &'e str,
    stats: &'e mut Stats,
    changes: &'e mut Vec<Change>,
}

impl PageContext<'_> {
    fn process(&mut self, txn: &mut Txn<'_>, input: &Input<'_>) -> Result<Outcome, StateError> {
        self.stats.records += 1;
        let outcome = self.process_page(txn, input);
        match &outcome {
            Ok(Outcome::Clean(_)) => self.stats.pages += 1,
            Ok(Outcome::Duplicate { .. }) => self.stats.duplicates += 1,
            Ok(Outcome::Rejected(_)) => self.stats.rejected += 1,
            Err(_) => {}
        }
        outcome
    }

    fn reject(&self, input: &Input<'_>, kind: ErrorKind, message: String) -> Outcome {
        Outcome::Rejected(Box::new(DeadLetter::new(
            kind,
            message,
            input.source.clone(),
            input.bytes,
            self.output.dead_letter_payload_bytes,
        )))
    }

    fn process_page(
        &mut self,
        txn: &mut Txn<'_>,
        input: &Input<'_>,
    ) -> Result<Outcome, StateError> {
        let page = match RawPage::decode(input.bytes, self.max_record_bytes) {
            Ok(page) => page,
            Err(e) => return Ok(self.reject(input, e.kind(), e.to_string())),
        };
        let mut key = match self.keyer.key(page.effective_url(), page.title.as_deref()) {
            Ok(key) => key,
            Err(e) => return Ok(self.reject(input, ErrorKind::BadUrl, e.to_string())),
        };
        if let Some(claimed) = page.domain.as_deref() {
            let claimed = claimed.trim().trim_end_matches('.').to_ascii_lowercase();
            if claimed != key.domain {
                match self.domain_check {
                    DomainCheck::Verify => {
                        let message = format!(
                            "record domain {claimed:?} disagrees with the URL's registrable domain {:?}",
                            key.domain
                        );
                        return Ok(self.reject(input, ErrorKind::DomainMismatch, message));
                    }
                    DomainCheck::TrustRecord => rehome(&mut key, claimed),
                }
            }
        }
        let branch = Branch::of(&key);
        let domain = branch.root();
        if txn.seen(domain, &key.key)? {
            return Ok(Outcome::Duplicate {
                url_key: key.key,
                domain: key.domain,
            });
        }
        let blocks = match self.tokenizer.blocks(page.html.as_bytes()) {
            Ok(blocks) => blocks,
            Err(e) => return Ok(self.reject(input, ErrorKind::BadHtml, e.to_string())),
        };
        let time_ms = page
            .fetched_at
            .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
            .or(input.timestamp_ms)
            .unwrap_or_else(|| {
                (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
            });
        // Path keys of the blocks with letters, in block order (`None` for the others). A page
        // repeats few paths over many blocks: each distinct path is hashed once.
        let mut path_keys: HashMap<&str, BlockKey> = HashMap::with_capacity(blocks.len() / 4);
        let block_paths: Vec<Option<BlockKey>> = blocks
            .iter()
            .map(|b| {
                b.hash.as_ref().map(|_| {
                    *path_keys
                        .entry(b.path.as_str())
                        .or_insert_with(|| path_key(&b.path))
                })
            })
            .collect();
        let fp = Fingerprint::new(
            time_ms,
            key.key.clone(),
            branch.stored().to_vec(),
            blocks
                .iter()
                .filter_map(|b| b.hash.as_ref().map(block_key))
                .collect(),
        )
        .with_paths(block_paths.iter().flatten().copied().collect());
        txn.insert(domain, &fp)?;
        self.changes.push(Change {
            key: seen_key(domain, &fp.url_key),
            fingerprint: Some(fp.encode()),
            offset: input.source.offset,
        });
        self.forget(txn, domain, input.source.offset)?;

        // The leaf holds this page alone (see `Branch`): support 1, every block counted once.
        let mut supports = txn.supports(branch.stored())?;
        supports.push(1);
        let choice = self.heuristic.choose(&supports);
        let hybrid = self.heuristic == Heuristic::Hybrid;
        let params = hybrid::Params::default();
        // The path counts the classifier asks for: those of short blocks at a trusted node.
        let mut paths: Vec<BlockKey> = Vec::new();
        if hybrid {
            paths.extend(
                blocks
                    .iter()
                    .zip(&block_paths)
                    .filter(|(b, _)| hybrid::uses_path_count(b.chars, choice.support, &params))
                    .filter_map(|(_, path)| *path),
            );
            paths.sort_unstable();
            paths.dedup();
        }
        let wanted = fp.blocks.len() + paths.len();
        let counts = if choice.depth == branch.leaf_depth() {
            vec![1; wanted]
        } else if paths.is_empty() {
            txn.counts(branch.ids[choice.depth], &fp.blocks)?
        } else {
            let mut keys = Vec::with_capacity(wanted);
            keys.extend_from_slice(&fp.blocks);
            keys.extend_from_slice(&paths);
            txn.counts(branch.ids[choice.depth], &keys)?
        };
        let (text_counts, path_counts) = counts.split_at(fp.blocks.len().min(counts.len()));
        let count_of = |key: BlockKey| -> u64 {
            fp.blocks
                .binary_search(&key)
                .map(|i| text_counts[i])
                .unwrap_or(0)
        };
        let path_count_of = |key: BlockKey| -> u64 {
            paths
                .binary_search(&key)
                .ok()
                .and_then(|i| path_counts.get(i).copied())
                .unwrap_or(0)
        };
        let block_counts: Vec<Option<u64>> = blocks
            .iter()
            .map(|b| b.hash.as_ref().map(|h| count_of(block_key(h))))
            .collect();
        let reasons: Vec<Reason> = if hybrid {
            let facts: Vec<BlockFacts<'_>> = blocks
                .iter()
                .zip(&block_counts)
                .zip(&block_paths)
                .map(|((b, &count), path)| BlockFacts {
                    chars: b.chars,
                    link_chars: b.link_chars,
                    ancestors: &b.ancestors,
                    count,
                    path_count: path.map(path_count_of).unwrap_or(0),
                    hint: b.hint,
                    h1: b.path == "h1" || b.path.ends_with("/h1"),
                })
                .collect();
            let mut reasons = Vec::with_capacity(facts.len());
            hybrid::classify(
                &facts,
                NodeFacts {
                    support: choice.support,
                    c_max: choice.c_max,
                },
                &params,
                &mut reasons,
            );
            reasons
        } else {
            block_counts
                .iter()
                .map(|&count| match (count, choice.label(count)) {
                    (None, _) => Reason::NoLetters,
                    (Some(_), Label::Content) => Reason::Unique,
                    (Some(_), Label::Boilerplate) => Reason::Repeated,
                })
                .collect()
        };

        let mut text = String::with_capacity(page.html.len() / 8);
        let mut details = self.output.blocks.then(|| Vec::with_capacity(blocks.len()));
        for ((block, &count), &reason) in blocks.iter().zip(&block_counts).zip(&reasons) {
            let label = reason.label();
            match label {
                Label::Content => {
                    self.stats.content_blocks += 1;
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(&block.text);
                }
                Label::Boilerplate => self.stats.boilerplate_blocks += 1,
            }
            if let Some(details) = details.as_mut() {
                details.push(detail(block, reason, count));
            }
        }
        self.stats.html_bytes += page.html.len() as u64;

        Ok(Outcome::Clean(Box::new(CleanRecord {
            url: page.url,
            response_url: page.response_url,
            url_key: key.key,
            domain: key.domain,
            title: page.title,
            text,
            blocks: details,
            model: ModelInfo {
                node: branch.path_to(choice.depth),
                support: choice.support,
                heuristic: self.heuristic.to_string(),
                cold_start: choice.cold_start,
            },
            fetched_at: page.fetched_at.and_then(|t| t.format(&Rfc3339).ok()),
            processed_at: processed_at(input.timestamp_ms, page.fetched_at, self.batch_started),
            source: input.source.clone(),
        })))
    }

    /// Forgets the domain's oldest documents while retention says so.
    fn forget(
        &mut self,
        txn: &mut Txn<'_>,
        domain: crate::tree::NodeId,
        offset: i64,
    ) -> Result<(), StateError> {
        loop {
            let meta = txn.domain(domain)?;
            let held = meta.held();
            if held <= self.retention.min_keep && held <= self.retention.max_docs {
                return Ok(());
            }
            let Some(oldest) = txn.oldest(domain)? else {
                return Ok(());
            };
            if !self.retention.evicts(held, oldest.time_ms, meta.newest_ms) {
                return Ok(());
            }
            if let Some(gone) = txn.forget_oldest(domain)? {
                self.changes.push(Change {
                    key: seen_key(domain, &gone.url_key),
                    fingerprint: None,
                    offset,
                });
            }
            self.stats.forgotten += 1;
        }
    }
}

/// The output's `processed_at`: the input record's own timestamp (the Kafka record time), else
/// the page's `fetched_at`, else the wall clock when the batch started (local input without
/// times). A replayed record therefore gets the same `processed_at` as the first time, the way
/// Kafka Streams propagates the input record's timestamp to its outputs.
fn processed_at(
    timestamp_ms: Option<i64>,
    fetched_at: Option<OffsetDateTime>,
    batch_started: &str,
) -> String {
    timestamp_ms
        .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok())
        .or(fetched_at)
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| batch_started.to_owned())
}

/// Puts a page whose record names another registrable domain under that domain: the URL's host
/// becomes the first branch segment, so its pages still group by host.
fn rehome(key: &mut UrlKey, domain: String) {
    if key.segments.first() != Some(&key.host) {
        key.segments.insert(0, key.host.clone());
    }
    key.domain = domain;
}

fn detail(block: &Block, reason: Reason, count: Option<u64>) -> BlockDetail {
    BlockDetail {
        text: block.text.clone(),
        label: reason.label(),
        count: count.unwrap_or(0),
        reason: reason.as_str().to_owned(),
        path: block.path.clone(),
    }
}
