//! The per-page pipeline over the URL Tree (DESIGN §1–2), as named stages:
//!
//! 1. `admit`: **decode** the record, compute its **key** (URL key, domain, branch), check for a
//!    **dup**licate, split the page into **blocks**;
//! 2. `learn`: build the page's fingerprint, insert it into the tree and **forget** what
//!    retention says;
//! 3. `lookup`: **look up** the deciding node and the counts the classifier reads there (and,
//!    for `link-template`, the held pages the page links to: `links`);
//! 4. `classify`: **classify** every block with the configured [`Classifier`];
//! 5. `assemble`: **assemble** the clean-text record.
//!
//! [`Engine`] owns the state and runs batches; `page` runs one record through the stages. Every
//! input source (local files, Kafka) hands the engine batches of raw records and gets one
//! [`Outcome`] per record back, in order. [`Stateless`] runs the same stages for one page at a
//! time without a state (the cold-start path of `urltree::extract` and of `extract` on one page).

mod admit;
mod assemble;
mod classify;
mod learn;
mod links;
mod lookup;
mod page;
mod stateless;

#[cfg(test)]
mod tests;

use thiserror::Error;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::blocks::Tokenizer;
use crate::config::{Config, DomainCheck, OutputOptions};
use crate::record::{CleanRecord, DeadLetter, ErrorKind, RawPage, Source};
use crate::state::{StateError, Store};
use crate::tree::{classifier, Classifier, Heuristic, Retention, TemplateClusters};
use crate::urlkey::{QueryRules, RulesError, UrlKeyer};
use page::PageContext;
pub use stateless::Stateless;

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
    /// Accepted, inserted and classified: a new page, or a new version of a held one (its old
    /// version forgotten first).
    Clean(Box<CleanRecord>),
    /// Its URL key is already held in its domain with the same content (the same distinct block
    /// texts and element paths): counted, not inserted, not classified.
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
    /// The encoded [`Fingerprint`](crate::tree::Fingerprint) for an insertion, `None` for a tombstone.
    pub fingerprint: Option<Vec<u8>>,
    /// Offset (`source.offset`) of the input record that caused the change.
    pub offset: i64,
}

/// Running totals of an engine, for summaries and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Records seen.
    pub records: u64,
    /// Pages accepted and classified, new versions included.
    pub pages: u64,
    /// Pages accepted as a new version of a held URL key whose content changed (also in `pages`).
    pub versions: u64,
    /// Duplicates skipped: a held URL key fetched again with the same content.
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
    /// Pages whose event time lay more than a day ahead of the record's time and was clamped.
    pub clamped_times: u64,
    /// Optional fields dropped from accepted pages for their type or value (named in the
    /// output's `warnings`).
    pub dropped_fields: u64,
}

impl Stats {
    /// Adds another engine's totals to these (the totals of engines over disjoint shards).
    pub fn add(&mut self, other: &Stats) {
        self.records += other.records;
        self.pages += other.pages;
        self.versions += other.versions;
        self.duplicates += other.duplicates;
        self.rejected += other.rejected;
        self.content_blocks += other.content_blocks;
        self.boilerplate_blocks += other.boilerplate_blocks;
        self.html_bytes += other.html_bytes;
        self.forgotten += other.forgotten;
        self.clamped_times += other.clamped_times;
        self.dropped_fields += other.dropped_fields;
    }
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

/// The URL keyer `config` describes: its `[rules]` file (the paper's Table 1 set when none) and
/// its `[url]` options. The engine keys pages with it; `urltree produce` keys records by the
/// domain it gives.
pub fn keyer(config: &Config) -> Result<UrlKeyer, RulesError> {
    let rules = match &config.rules.file {
        Some(path) => QueryRules::load(path)?,
        None => QueryRules::paper_default(),
    };
    Ok(UrlKeyer::new(rules, config.url.clone()))
}

/// The registrable domain the engine files a record under, or why it would reject the record
/// before that: the record decoded within `max_record_bytes` (`invalid-json`, `missing-field`,
/// `too-large`, ...), its URL keyed (`bad-url`, which includes a host without a registrable
/// domain), and a `domain` the record claims checked against the URL's as `domain_check` says
/// (`domain-mismatch`). Returns `(kind, message)` for a rejection, with the engine's messages.
pub fn record_domain(
    keyer: &UrlKeyer,
    domain_check: DomainCheck,
    bytes: &[u8],
    max_record_bytes: usize,
) -> Result<String, (ErrorKind, String)> {
    let page: RawPage = admit::decode(bytes, max_record_bytes).map_err(|r| (r.kind, r.message))?;
    let (key, _) = admit::key(keyer, domain_check, &page).map_err(|r| (r.kind, r.message))?;
    Ok(key.domain)
}

/// The URL Tree pipeline over one RocksDB state.
pub struct Engine {
    keyer: UrlKeyer,
    tokenizer: Tokenizer,
    classifier: Box<dyn Classifier>,
    links: links::LinkIndex,
    retention: Retention,
    template_clusters: TemplateClusters,
    max_record_bytes: usize,
    domain_check: DomainCheck,
    output: OutputOptions,
    store: Store,
    stats: Stats,
}

impl Engine {
    /// Opens the state and builds the pipeline described by `config` (already validated).
    pub fn open(config: &Config) -> Result<Engine, EngineError> {
        let classifier = classifier(
            config.tree.heuristic,
            config.tree.rules,
            config.tree.prefs(),
        );
        let mut tokenizer = Tokenizer::with_capture(config.parse.clone(), config.output.capture());
        tokenizer.record_links(classifier.reads_links());
        Ok(Engine {
            keyer: keyer(config)?,
            tokenizer,
            classifier,
            links: links::LinkIndex::default(),
            retention: config.retention,
            template_clusters: config.tree.template_clusters,
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
        self.classifier.heuristic()
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
        self.run_batch(inputs, progress, |outcomes, changes, _| {
            before_commit(outcomes, changes)
        })
    }

    /// Like [`Engine::process_batch`], with the delivery records `deliver` makes of the outcomes
    /// (keys and values of [`crate::state::delivery`], `None` deleting a key) written in the
    /// batch's atomic commit: `urltree extract` keeps a batch's outcomes in the state with its
    /// pages, so that none is lost when the process dies before they reach the output.
    pub fn process_batch_delivering(
        &mut self,
        inputs: &[Input<'_>],
        deliver: impl FnOnce(&[Outcome]) -> Vec<(Vec<u8>, Option<Vec<u8>>)>,
    ) -> Result<Vec<Outcome>, StateError> {
        self.run_batch(inputs, None, |outcomes, _, txn| {
            for (key, value) in deliver(outcomes) {
                txn.deliver(key, value);
            }
            Ok::<(), std::convert::Infallible>(())
        })
        .map_err(|e| match e {
            BatchError::State(e) => e,
            BatchError::Aborted(never) => match never {},
        })
    }

    fn run_batch<E>(
        &mut self,
        inputs: &[Input<'_>],
        progress: Option<(&str, u64)>,
        before_commit: impl FnOnce(&[Outcome], &[Change], &mut crate::state::Txn<'_>) -> Result<(), E>,
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
            classifier: self.classifier.as_ref(),
            links: &mut self.links,
            retention: self.retention,
            template_clusters: self.template_clusters,
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
        before_commit(&outcomes, &changes, &mut txn).map_err(BatchError::Aborted)?;
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
