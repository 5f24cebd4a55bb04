//! Per-partition processing: one [`Engine`] per assigned input partition, on its own thread, with
//! its state in `<state.path>/p<partition>`.
//!
//! On assignment the worker reconciles the state's progress `P` (next offset applied) with the
//! group's committed offset `C` ([`plan`]): equal, it resumes; state missing or behind (`P < C`:
//! a crash between the Kafka commit and the state commit, or a partition that moved here without
//! its volume), it restores the state from the changelog as of `C` before processing anything,
//! the partition paused and `/readyz` not ready meanwhile; ahead (`P > C`), at-least-once resumes
//! at `P` (those outputs were acknowledged) and exactly-once restores to `C` (nothing past the
//! committed transaction may stay in the tree).
//!
//! Order of effects for every batch, exactly-once (the Kafka Streams pattern): process it against
//! a pending state transaction → begin a Kafka transaction, produce its clean-text records, dead
//! letters and changelog records, add the consumer offset (last processed + 1), commit → commit
//! the state together with the partition's progress in one RocksDB batch. A failure aborts the
//! Kafka transaction and drops the state transaction; the batch is processed again from the
//! unchanged state (the partition is rewound to its last committed position). A crash before the
//! Kafka commit repeats the batch; a crash after it leaves `P < C`, which the restore repairs.
//!
//! At-least-once (brokers without transactions): the same, with the records produced and
//! acknowledged outside a transaction, then the state commit, then the consumer offset commit.
//! A crash may repeat a batch's outputs; records below the stored progress are never applied
//! again.
//!
//! Processing is deterministic: a record's outputs depend only on the state before it and the
//! record itself (its Kafka timestamp is the output's `processed_at` and, without `fetched_at`,
//! the page's event time; a record without a timestamp counts as time 0), so a repeated output
//! is byte-identical to the first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{mpsc as std_mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rdkafka::consumer::ConsumerGroupMetadata;
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use thiserror::Error;
use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::changelog;
use super::config::DeliveryMode;
use super::http::Readiness;
use super::metrics::Metrics;
use super::producer::{DeliveryError, OutRecord, Producer};
pub use super::progress::{plan, progress_source, Start};
use crate::config::Config;
use crate::engine::{Change, Engine, EngineError, Input, Outcome};
use crate::record::{DeadLetter, ErrorKind, Source};

/// Bytes reserved for a message's framing, headers and key beyond its value when checking it
/// against the producer's `message.max.bytes`.
const MESSAGE_OVERHEAD: usize = 1024;

/// One consumed input message.
#[derive(Clone, Debug)]
pub struct Record {
    /// The message value (`None` for a tombstone).
    pub payload: Option<Vec<u8>>,
    /// The message key.
    pub key: Option<Vec<u8>>,
    /// Its offset.
    pub offset: i64,
    /// The message timestamp in ms, when it has one.
    pub timestamp_ms: Option<i64>,
}

/// Consecutive records of one partition, handed to its worker together with the in-flight
/// permits they hold (released once the batch's offset is committed).
pub struct Batch {
    /// The records, in offset order.
    pub records: Vec<Record>,
    /// Permits of the worker-wide in-flight limit, one per record.
    pub permit: OwnedSemaphorePermit,
}

/// The consumer side a partition worker needs: offset commits, the group metadata for
/// transactions, and resuming a partition paused while it restored.
pub trait Committer: Send + Sync {
    /// Commits `next_offset` (the offset of the next record to read) for the partition,
    /// synchronously.
    fn commit(&self, topic: &str, partition: i32, next_offset: i64) -> Result<(), String>;
    /// The consumer's current group metadata (`None` once the consumer is closed).
    fn group_metadata(&self) -> Option<ConsumerGroupMetadata>;
    /// Resumes fetching the partition.
    fn resume(&self, topic: &str, partition: i32);
}

/// Bits of a partition's restore gate: the consumer paused it, the worker restored it. Whoever
/// sets the second bit resumes the partition, so it resumes exactly once and never before both.
pub const GATE_PAUSED: u8 = 1;
/// See [`GATE_PAUSED`].
pub const GATE_RESTORED: u8 = 2;

/// What every partition worker shares.
pub struct Shared {
    /// The whole configuration (state options are per partition, derived from `state.path`).
    pub config: Config,
    /// The output producer.
    pub producer: Producer,
    /// Metrics.
    pub metrics: Metrics,
    /// Offset commits, group metadata, resumption.
    pub committer: Arc<dyn Committer>,
    /// What `/readyz` reports.
    pub readiness: Arc<Readiness>,
}

/// A partition could not be opened.
#[derive(Debug, Error)]
pub enum OpenError {
    /// Its state could not be opened.
    #[error("opening the state of partition {partition} at {path}: {source}")]
    Engine {
        /// The partition.
        partition: i32,
        /// The state directory.
        path: PathBuf,
        /// Why.
        source: EngineError,
    },
    /// Its thread could not be started or died while opening.
    #[error("partition {partition} worker thread: {detail}")]
    Thread {
        /// The partition.
        partition: i32,
        /// What happened.
        detail: String,
    },
    /// The changelog topic is missing or has fewer partitions than the input, so some
    /// partitions' documents have no changelog partition to go to.
    #[error(
        "the changelog topic {changelog:?} has {found} partitions, the input topic {input:?} {needed}: \
         create the changelog with {needed} partitions (input partition N writes to changelog \
         partition N) and cleanup.policy=compact"
    )]
    Changelog {
        /// The changelog topic.
        changelog: String,
        /// Its partitions (0 when it does not exist).
        found: usize,
        /// The input topic.
        input: String,
        /// The input's partitions.
        needed: usize,
    },
}

/// A running partition worker.
pub struct PartitionWorker {
    partition: i32,
    sender: mpsc::Sender<Batch>,
    stop: Arc<AtomicBool>,
    done: std_mpsc::Receiver<()>,
    thread: JoinHandle<()>,
    start: Start,
    gate: Arc<AtomicU8>,
}

/// The state directory of a partition.
pub fn partition_state_path(config: &Config, partition: i32) -> PathBuf {
    config.state.path.join(format!("p{partition}"))
}

impl PartitionWorker {
    /// Opens the partition's state on a new thread, reconciles it with `committed` (the group's
    /// committed offset, [`plan`]) and starts processing batches sent to it, after restoring the
    /// state first when needed. Returns once the state is open; a restore counts as started
    /// (`/readyz` not ready) before it returns.
    pub fn start(
        shared: Arc<Shared>,
        partition: i32,
        queue: usize,
        committed: Option<u64>,
    ) -> Result<PartitionWorker, OpenError> {
        let (sender, receiver) = mpsc::channel(queue.max(1));
        let (opened_tx, opened_rx) = std_mpsc::channel();
        let (done_tx, done) = std_mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let gate = Arc::new(AtomicU8::new(0));
        let thread_stop = stop.clone();
        let thread_gate = gate.clone();
        let thread = std::thread::Builder::new()
            .name(format!("urltree-p{partition}"))
            .spawn(move || {
                let mut config = shared.config.clone();
                config.state.path = partition_state_path(&shared.config, partition);
                let topic = shared.config.kafka.topics.input.clone();
                let progress_name = progress_source(&topic, partition);
                let open_error = |source| OpenError::Engine {
                    partition,
                    path: config.state.path.clone(),
                    source,
                };
                let opened = Engine::open(&config)
                    .map_err(open_error)
                    .and_then(|engine| {
                        let progress = engine
                            .store()
                            .progress(&progress_name)
                            .map_err(|e| open_error(EngineError::State(e)))?;
                        Ok((engine, progress))
                    });
                let (mut engine, progress) = match opened {
                    Ok(opened) => opened,
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                let start = plan(shared.config.kafka.delivery, progress, committed);
                if let Start::Restore(_) = start {
                    shared.readiness.restore_started();
                }
                let _ = opened_tx.send(Ok(start));
                let mut applied = progress.unwrap_or(0);
                if let Start::Restore(upto) = start {
                    drop(engine);
                    let restored = restore(&shared, &config, partition, upto, &thread_stop);
                    shared.readiness.restore_finished();
                    let reopened = restored
                        .then(|| Engine::open(&config).map_err(open_error))
                        .and_then(|opened| {
                            opened
                                .map_err(|e| tracing::error!(partition, "after restore: {e}"))
                                .ok()
                        });
                    let Some(reopened) = reopened else {
                        // Stopped while restoring: whatever was queued stays uncommitted.
                        let mut receiver: mpsc::Receiver<Batch> = receiver;
                        receiver.close();
                        while let Ok(batch) = receiver.try_recv() {
                            shared.metrics.in_flight.sub(batch.records.len() as i64);
                        }
                        let _ = done_tx.send(());
                        return;
                    };
                    engine = reopened;
                    applied = upto;
                    if thread_gate.fetch_or(GATE_RESTORED, Ordering::AcqRel) & GATE_PAUSED != 0 {
                        shared.committer.resume(&topic, partition);
                    }
                }
                let mut run = PartitionRun {
                    shared,
                    engine,
                    topic,
                    partition,
                    progress_name,
                    applied,
                    stop: thread_stop,
                    transactional: None,
                };
                run.run(receiver);
                let _ = done_tx.send(());
            })
            .map_err(|e| OpenError::Thread {
                partition,
                detail: e.to_string(),
            })?;
        match opened_rx.recv() {
            Ok(Ok(start)) => Ok(PartitionWorker {
                partition,
                sender,
                stop,
                done,
                thread,
                start,
                gate,
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(OpenError::Thread {
                partition,
                detail: "exited while opening".into(),
            }),
        }
    }

    /// How the partition starts ([`plan`]).
    pub fn start_plan(&self) -> Start {
        self.start
    }

    /// Marks the partition paused by the consumer while it restores; returns true when the
    /// restore has already finished, so the caller resumes it now.
    pub fn paused(&self) -> bool {
        self.gate.fetch_or(GATE_PAUSED, Ordering::AcqRel) & GATE_RESTORED != 0
    }

    /// A handle to send batches to the worker.
    pub fn sender(&self) -> mpsc::Sender<Batch> {
        self.sender.clone()
    }

    /// Stops the worker: with `abandon_queued`, batches not yet started are dropped (their
    /// offsets stay uncommitted); otherwise every queued batch is finished. The batch in progress
    /// always finishes (delivered, state and offset committed). Waits at most `timeout`; returns
    /// whether the worker finished in time.
    pub fn stop(self, abandon_queued: bool, timeout: Duration) -> bool {
        if abandon_queued {
            self.stop.store(true, Ordering::Release);
        }
        drop(self.sender);
        match self.done.recv_timeout(timeout) {
            Ok(()) | Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                let _ = self.thread.join();
                true
            }
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                // The thread may still be delivering; stop at its next retry.
                self.stop.store(true, Ordering::Release);
                tracing::warn!(
                    partition = self.partition,
                    "partition worker did not finish within {timeout:?}"
                );
                false
            }
        }
    }
}

/// Rebuilds the partition's state at `config.state.path` from the changelog as of input offset
/// `upto`, retrying with backoff until it succeeds; false when the worker was stopped first.
fn restore(shared: &Shared, config: &Config, partition: i32, upto: u64, stop: &AtomicBool) -> bool {
    let mut backoff = Duration::from_millis(200);
    loop {
        let started = Instant::now();
        match changelog::restore_state(config, partition, upto, &shared.metrics, stop) {
            Ok(stats) => {
                tracing::info!(
                    partition,
                    upto,
                    records = stats.read,
                    ignored = stats.ignored,
                    documents = stats.documents,
                    seconds = started.elapsed().as_secs_f64(),
                    "state restored from the changelog"
                );
                return true;
            }
            Err(changelog::RestoreFailure::Stopped) => return false,
            Err(e) => {
                tracing::error!(
                    partition,
                    "restoring the state failed, retrying in {backoff:?}: {e}"
                );
            }
        }
        std::thread::sleep(backoff);
        if stop.load(Ordering::Acquire) {
            return false;
        }
        backoff = (backoff * 2).min(Duration::from_secs(10));
    }
}

struct PartitionRun {
    shared: Arc<Shared>,
    engine: Engine,
    topic: String,
    partition: i32,
    progress_name: String,
    /// The next offset not yet applied to the state.
    applied: u64,
    stop: Arc<AtomicBool>,
    /// The partition's transactional producer (exactly-once), created on first use and again
    /// after a fatal error.
    transactional: Option<Producer>,
}

impl PartitionRun {
    fn run(&mut self, mut receiver: mpsc::Receiver<Batch>) {
        let in_flight = self.shared.metrics.in_flight.clone();
        while let Some(batch) = receiver.blocking_recv() {
            let count = batch.records.len() as i64;
            let go_on = !self.stop.load(Ordering::Acquire) && self.handle(batch);
            in_flight.sub(count);
            if !go_on {
                break;
            }
        }
        // Batches never started stay uncommitted: whoever owns the partition next reads them.
        receiver.close();
        while let Ok(batch) = receiver.try_recv() {
            in_flight.sub(batch.records.len() as i64);
        }
        if let Ok(size) = self.engine.store().size_bytes() {
            tracing::debug!(partition = self.partition, size, "partition closed");
        }
    }

    /// Processes, delivers and commits one batch; false when stopped before it was committed.
    fn handle(&mut self, batch: Batch) -> bool {
        let started = Instant::now();
        let shared = self.shared.clone();
        let metrics = &shared.metrics;
        let count = batch.records.len();
        let Some(last) = batch.records.last().map(|r| r.offset) else {
            return true;
        };
        let next = (last + 1) as u64;
        let fresh: Vec<&Record> = batch
            .records
            .iter()
            .filter(|r| r.offset as u64 >= self.applied)
            .collect();
        let skipped = count - fresh.len();
        if skipped > 0 {
            tracing::info!(
                partition = self.partition,
                skipped,
                "skipping records already applied to the state"
            );
            metrics
                .pages
                .with_label_values(&["skipped"])
                .inc_by(skipped as u64);
        }
        if !fresh.is_empty() && !self.apply(&fresh, next, started) {
            return false;
        }
        let in_transaction =
            !fresh.is_empty() && shared.config.kafka.delivery == DeliveryMode::ExactlyOnce;
        self.applied = self.applied.max(next);
        let committed = if in_transaction {
            Ok(())
        } else {
            self.shared
                .committer
                .commit(&self.topic, self.partition, next as i64)
        };
        match committed {
            Ok(()) => metrics.commits.with_label_values(&["ok"]).inc(),
            Err(e) => {
                // A later batch's commit covers this one; a restart repeats nothing thanks to the
                // stored progress.
                metrics.commits.with_label_values(&["error"]).inc();
                tracing::warn!(partition = self.partition, "offset commit failed: {e}");
            }
        }
        drop(batch.permit);
        metrics
            .batch_seconds
            .with_label_values(&["total"])
            .observe(started.elapsed().as_secs_f64());
        if let Ok(size) = self.engine.store().size_bytes() {
            metrics
                .state_bytes
                .with_label_values(&[&self.partition.to_string()])
                .set(size as i64);
        }
        true
    }

    /// Applies records to the state, delivering their outputs and changelog records (in one
    /// transaction with the offset, exactly-once) before the state commits; retries until it
    /// succeeds or the worker is stopped.
    fn apply(&mut self, fresh: &[&Record], next: u64, started: Instant) -> bool {
        let shared = self.shared.clone();
        let topics = &shared.config.kafka.topics;
        let metrics = &shared.metrics;
        let inputs: Vec<Input<'_>> = fresh
            .iter()
            .map(|r| Input {
                bytes: r.payload.as_deref().unwrap_or_default(),
                source: Source {
                    topic: self.topic.clone(),
                    partition: self.partition,
                    offset: r.offset,
                },
                timestamp_ms: Some(r.timestamp_ms.unwrap_or(0)),
            })
            .collect();
        let exactly_once = shared.config.kafka.delivery == DeliveryMode::ExactlyOnce;
        let mut offsets = TopicPartitionList::new();
        if let Err(e) =
            offsets.add_partition_offset(&self.topic, self.partition, Offset::Offset(next as i64))
        {
            tracing::error!(partition = self.partition, "offset list: {e}");
            return false;
        }
        let txn_timeout = Duration::from_millis(shared.config.kafka.transaction_timeout_ms);
        let max_message = shared.config.kafka.max_message_bytes();
        let fits = max_message.saturating_sub(MESSAGE_OVERHEAD);
        let mut backoff = Duration::from_millis(100);
        loop {
            let before = self.engine.stats();
            let mut delivered = 0;
            let mut oversized = 0;
            let mut process_done = None;
            let mut logged = (0, 0);
            if exactly_once && self.transactional.is_none() {
                match Producer::transactional(
                    &shared.config.kafka,
                    self.partition,
                    shared.producer.runtime(),
                ) {
                    Ok(p) => self.transactional = Some(p),
                    Err(e) => {
                        tracing::error!(partition = self.partition, "{e}");
                        if !self.back_off(&mut backoff) {
                            return false;
                        }
                        continue;
                    }
                }
            }
            let transactional = &mut self.transactional;
            let committer = &shared.committer;
            let partition = self.partition;
            let result = self.engine.process_batch_then(
                &inputs,
                Some((self.progress_name.as_str(), next)),
                |outcomes, changes: &[Change]| {
                    process_done = Some(Instant::now());
                    let mut records = Vec::with_capacity(outcomes.len());
                    for (outcome, input) in outcomes.iter().zip(fresh) {
                        let key = input.key.as_deref();
                        let (topic, key, payload) = match outcome {
                            Outcome::Clean(clean) => {
                                let payload = serde_json::to_vec(clean).map_err(|e| e.to_string())?;
                                if payload.len() <= fits {
                                    (topics.output.as_str(), Some(clean.domain.as_bytes()), payload)
                                } else {
                                    // Never stall the partition on a record the broker refuses.
                                    oversized += 1;
                                    let dead = DeadLetter::new(
                                        ErrorKind::TooLarge,
                                        format!(
                                            "the clean-text record is {} bytes, over the producer's \
                                             message.max.bytes of {max_message}",
                                            payload.len()
                                        ),
                                        clean.source.clone(),
                                        input.payload.as_deref().unwrap_or_default(),
                                        shared.config.output.dead_letter_payload_bytes,
                                    );
                                    let payload = dead_letter_bytes(
                                        &dead,
                                        input.payload.as_deref().unwrap_or_default(),
                                        fits,
                                    )?;
                                    (topics.dead_letter.as_str(), key, payload)
                                }
                            }
                            Outcome::Rejected(dead) => (
                                topics.dead_letter.as_str(),
                                key,
                                dead_letter_bytes(
                                    dead,
                                    input.payload.as_deref().unwrap_or_default(),
                                    fits,
                                )?,
                            ),
                            Outcome::Duplicate { .. } => continue,
                        };
                        records.push(OutRecord {
                            topic,
                            key,
                            payload: Some(payload),
                            partition: None,
                            input_offset: None,
                        });
                    }
                    records.extend(changelog::records(&topics.changelog, partition, changes));
                    let tombstones = changes.iter().filter(|c| c.fingerprint.is_none()).count();
                    logged = (changes.len() - tombstones, tombstones);
                    delivered = match transactional.as_ref() {
                        Some(producer) => {
                            let group = committer
                                .group_metadata()
                                .ok_or_else(|| "the consumer is closed".to_owned())?;
                            let result = producer
                                .deliver_in_transaction(&records, &offsets, &group, txn_timeout);
                            let outcome = if result.is_ok() { "commit" } else { "abort" };
                            metrics.transactions.with_label_values(&[outcome]).inc();
                            result.map_err(|e| {
                                if e.is_fatal() {
                                    *transactional = None;
                                }
                                e.to_string()
                            })?
                        }
                        None => shared
                            .producer
                            .deliver_blocking(&records)
                            .map_err(|e: DeliveryError| e.to_string())?,
                    };
                    Ok::<(), String>(())
                },
            );
            match result {
                Ok(outcomes) => {
                    let processed = process_done.unwrap_or_else(Instant::now);
                    metrics
                        .batch_seconds
                        .with_label_values(&["process"])
                        .observe(processed.duration_since(started).as_secs_f64());
                    metrics
                        .batch_seconds
                        .with_label_values(&["deliver"])
                        .observe(processed.elapsed().as_secs_f64());
                    self.count(&outcomes, before, fresh, delivered, oversized);
                    metrics
                        .changelog_records
                        .with_label_values(&["fingerprint"])
                        .inc_by(logged.0 as u64);
                    metrics
                        .changelog_records
                        .with_label_values(&["tombstone"])
                        .inc_by(logged.1 as u64);
                    return true;
                }
                Err(e) => {
                    metrics.batch_retries.inc();
                    tracing::error!(
                        partition = self.partition,
                        "batch at offset {} not committed, retrying in {backoff:?}: {e}",
                        fresh.first().map(|r| r.offset).unwrap_or_default()
                    );
                    if !self.back_off(&mut backoff) {
                        return false;
                    }
                }
            }
        }
    }

    /// Sleeps `backoff` and doubles it (up to 10 s); false when the worker is stopped.
    fn back_off(&self, backoff: &mut Duration) -> bool {
        if self.stop.load(Ordering::Acquire) {
            return false;
        }
        std::thread::sleep(*backoff);
        *backoff = (*backoff * 2).min(Duration::from_secs(10));
        !self.stop.load(Ordering::Acquire)
    }

    fn count(
        &self,
        outcomes: &[Outcome],
        before: crate::engine::Stats,
        fresh: &[&Record],
        delivered: u64,
        oversized: u64,
    ) {
        let metrics = &self.shared.metrics;
        let after = self.engine.stats();
        let pages = |outcome: &str, n: u64| metrics.pages.with_label_values(&[outcome]).inc_by(n);
        // A clean page whose record is over the message limit became a dead letter: it counts as
        // rejected, as what the output topic's readers see.
        pages(
            "clean",
            (after.pages - before.pages).saturating_sub(oversized),
        );
        pages("duplicate", after.duplicates - before.duplicates);
        metrics.versions.inc_by(after.versions - before.versions);
        metrics
            .clamped_times
            .inc_by(after.clamped_times - before.clamped_times);
        metrics
            .dropped_fields
            .inc_by(after.dropped_fields - before.dropped_fields);
        pages("rejected", after.rejected - before.rejected + oversized);
        metrics
            .dead_letters
            .with_label_values(&[ErrorKind::TooLarge.as_str()])
            .inc_by(oversized);
        self.count_keys(outcomes, fresh);
        metrics
            .blocks
            .with_label_values(&["content"])
            .inc_by(after.content_blocks - before.content_blocks);
        metrics
            .blocks
            .with_label_values(&["boilerplate"])
            .inc_by(after.boilerplate_blocks - before.boilerplate_blocks);
        for outcome in outcomes {
            if let Outcome::Rejected(dead) = outcome {
                metrics
                    .dead_letters
                    .with_label_values(&[dead.error.kind.as_str()])
                    .inc();
            }
        }
        let input_bytes: usize = fresh
            .iter()
            .map(|r| r.payload.as_ref().map_or(0, Vec::len))
            .sum();
        metrics.input_bytes.inc_by(input_bytes as u64);
        metrics.output_bytes.inc_by(delivered);
    }
}

/// How an input record's Kafka key relates to its page's registrable domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCheck {
    /// The key is the domain (or the domain is unknown: the record was rejected).
    Agrees,
    /// The record has no key.
    Null,
    /// The key is something else.
    Mismatch,
}

impl KeyCheck {
    /// Compares `key` with the domain the engine filed the page under (`None` for a rejected
    /// record: only a missing key can be told then).
    pub fn of(key: Option<&[u8]>, domain: Option<&str>) -> KeyCheck {
        match (key, domain) {
            (None, _) => KeyCheck::Null,
            (Some(key), Some(domain)) if key != domain.as_bytes() => KeyCheck::Mismatch,
            _ => KeyCheck::Agrees,
        }
    }
}

impl PartitionRun {
    /// Counts the records keyed otherwise than by their page's domain
    /// (`urltree_input_key_mismatch_total`) and says so in the log, at most once per
    /// [`super::logs::WINDOW`] and kind.
    fn count_keys(&self, outcomes: &[Outcome], fresh: &[&Record]) {
        let (mut null, mut mismatch) = (0u64, 0u64);
        let mut example = None;
        for (outcome, record) in outcomes.iter().zip(fresh) {
            let domain = match outcome {
                Outcome::Clean(clean) => Some(clean.domain.as_str()),
                Outcome::Duplicate { domain, .. } => Some(domain.as_str()),
                _ => None,
            };
            match KeyCheck::of(record.key.as_deref(), domain) {
                KeyCheck::Agrees => continue,
                KeyCheck::Null => null += 1,
                KeyCheck::Mismatch => mismatch += 1,
            }
            example.get_or_insert((record.offset, domain.unwrap_or_default().to_owned()));
        }
        let metrics = &self.shared.metrics;
        metrics
            .key_mismatches
            .with_label_values(&["null"])
            .inc_by(null);
        metrics
            .key_mismatches
            .with_label_values(&["mismatch"])
            .inc_by(mismatch);
        if let Some((offset, domain)) = example {
            let line = format!(
                "partition {}: {null} record(s) without a key and {mismatch} keyed otherwise than \
                 by their domain in this batch (first at offset {offset}, domain {domain:?}); the \
                 producer's partitioning may send a domain's pages to several partitions, each \
                 deduplicating and learning on its own",
                self.partition
            );
            super::logs::throttled_as("input key mismatch", &line, |line| tracing::warn!("{line}"));
        }
    }
}

/// Serializes a dead letter, cutting its copy of the original record further when the message
/// would exceed `max` bytes, so the broker never refuses it and the partition never stalls.
fn dead_letter_bytes(dead: &DeadLetter, original: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut bytes = serde_json::to_vec(dead).map_err(|e| e.to_string())?;
    let mut limit = dead.payload.len();
    while bytes.len() > max && limit > 0 {
        limit = (limit as f64 * max as f64 / bytes.len() as f64 * 0.9) as usize;
        let cut = DeadLetter::new(
            dead.error.kind,
            dead.error.message.clone(),
            dead.source.clone(),
            original,
            limit,
        );
        bytes = serde_json::to_vec(&cut).map_err(|e| e.to_string())?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_against_the_domain() {
        let domain = Some("example.org");
        assert_eq!(KeyCheck::of(Some(b"example.org"), domain), KeyCheck::Agrees);
        assert_eq!(KeyCheck::of(None, domain), KeyCheck::Null);
        assert_eq!(KeyCheck::of(None, None), KeyCheck::Null);
        assert_eq!(KeyCheck::of(Some(b"other.org"), domain), KeyCheck::Mismatch);
        assert_eq!(KeyCheck::of(Some(b""), domain), KeyCheck::Mismatch);
        assert_eq!(KeyCheck::of(Some(b"anything"), None), KeyCheck::Agrees);
    }

    #[test]
    fn dead_letters_are_cut_to_the_message_limit() {
        let original = "é\u{1}x".repeat(20_000).into_bytes();
        let source = Source {
            topic: "t".into(),
            partition: 1,
            offset: 2,
        };
        let dead = DeadLetter::new(ErrorKind::InvalidJson, "bad", source, &original, 1 << 20);
        let whole = dead_letter_bytes(&dead, &original, usize::MAX).unwrap();
        assert!(whole.len() > original.len());
        for max in [50_000, 5_000, 1_000] {
            let bytes = dead_letter_bytes(&dead, &original, max).unwrap();
            assert!(bytes.len() <= max, "{} > {max}", bytes.len());
            let back: DeadLetter = serde_json::from_slice(&bytes).unwrap();
            assert!(back.payload_truncated);
            assert_eq!(back.payload_bytes, original.len());
            assert!(original.starts_with(back.payload.as_bytes()));
        }
    }
}
