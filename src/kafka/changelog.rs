//! The changelog topic (DESIGN §3): every inserted fingerprint and every eviction (a tombstone),
//! co-partitioned with the input, keyed by the document's identity (domain node · MD5 of the URL
//! key, 24 bytes), the value the fingerprint's stored encoding, and the input offset that produced
//! it in the [`OFFSET_HEADER`] header. Reading a partition of it back restores that partition's
//! state.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::message::{Headers, Message};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use thiserror::Error;

use super::config::KafkaConfig;
use super::metrics::Metrics;
use super::producer::{OutRecord, TracingContext, OFFSET_HEADER};
use crate::config::Config;
use crate::engine::Change;
use crate::state::{Rebuild, RebuildStats, StateError, Store};

impl ConsumerContext for TracingContext {}

/// How long a restore waits for the next changelog record before it gives up.
const STALL: Duration = Duration::from_secs(30);

/// How long a restore keeps reading after it reached the end, for records past a lagging high
/// watermark.
const SETTLE: Duration = Duration::from_millis(300);

/// The changelog records of a batch's changes, for input partition `partition`.
pub fn records<'a>(
    topic: &'a str,
    partition: i32,
    changes: &'a [Change],
) -> impl Iterator<Item = OutRecord<'a>> + 'a {
    changes.iter().map(move |change| OutRecord {
        topic,
        key: Some(&change.key[..]),
        payload: change.fingerprint.clone(),
        partition: Some(partition),
        input_offset: Some(change.offset),
    })
}

/// A partition's changelog could not be read.
#[derive(Debug, Error)]
pub enum RestoreError {
    /// The reader could not be created or the broker failed.
    #[error("reading changelog {topic} partition {partition}: {source}")]
    Kafka {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The Kafka error.
        source: KafkaError,
    },
    /// No record arrived for a long time before the end was reached.
    #[error("changelog {topic} partition {partition} stalled at offset {at} of {end}")]
    Stalled {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The next offset expected.
        at: i64,
        /// The end offset.
        end: i64,
    },
    /// The worker was stopped (partition revoked or shutdown).
    #[error("restore stopped")]
    Stopped,
}

/// Reads changelog partition `partition` from its beginning to its end (as of the start) into
/// `rebuild` (`read_committed`; records of aborted transactions a broker still returns are sorted
/// out by their input offsets there). Updates `restore_records` and
/// `restore_remaining{partition}`. Returns the records read.
pub fn read(
    config: &KafkaConfig,
    partition: i32,
    rebuild: &mut Rebuild,
    metrics: &Metrics,
    stop: &AtomicBool,
) -> Result<u64, RestoreError> {
    let topic = config.topics.changelog.as_str();
    let kafka = |source| RestoreError::Kafka {
        topic: topic.to_owned(),
        partition,
        source,
    };
    let consumer: BaseConsumer<TracingContext> = config
        .restore_consumer_config()
        .create_with_context(TracingContext)
        .map_err(|e| kafka(super::config::without_value(e)))?;
    let (low, high) = consumer
        .fetch_watermarks(topic, partition, Duration::from_secs(30))
        .map_err(kafka)?;
    let remaining = metrics
        .restore_remaining
        .with_label_values(&[&partition.to_string()]);
    remaining.set((high - low).max(0));
    if high <= low {
        return Ok(0);
    }
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, partition, Offset::Beginning)
        .map_err(kafka)?;
    consumer.assign(&tpl).map_err(kafka)?;
    let mut read = 0u64;
    let mut next = low;
    let mut last_record = Instant::now();
    // The end is where the broker says it is (the high watermark, or an end-of-partition event),
    // confirmed by a quiet moment: a broker whose watermark lags its last record batch still
    // hands that batch out when asked, and it is read here.
    let mut end_seen: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Acquire) {
            return Err(RestoreError::Stopped);
        }
        if end_seen.is_some_and(|at| at.elapsed() >= SETTLE && last_record.elapsed() >= SETTLE) {
            break;
        }
        match consumer.poll(Duration::from_millis(50)) {
            Some(Ok(message)) => {
                let offset = message
                    .headers()
                    .and_then(|h| h.iter().find(|h| h.key == OFFSET_HEADER))
                    .and_then(|h| h.value)
                    .and_then(|v| v.try_into().ok())
                    .map(i64::from_be_bytes)
                    .unwrap_or(-1);
                rebuild.push(message.key().unwrap_or_default(), message.payload(), offset);
                read += 1;
                next = message.offset() + 1;
                last_record = Instant::now();
                if read.is_multiple_of(1024) {
                    metrics.restore_records.inc_by(1024);
                    remaining.set((high - next).max(0));
                }
                if next >= high && end_seen.is_none() {
                    end_seen = Some(Instant::now());
                }
            }
            Some(Err(KafkaError::PartitionEOF(_))) => {
                end_seen.get_or_insert_with(Instant::now);
            }
            Some(Err(e)) => tracing::warn!(partition, "changelog restore: {e}"),
            None => {}
        }
        if end_seen.is_none() && last_record.elapsed() > STALL {
            return Err(RestoreError::Stalled {
                topic: topic.to_owned(),
                partition,
                at: next,
                end: high,
            });
        }
    }
    metrics.restore_records.inc_by(read % 1024);
    remaining.set(0);
    Ok(read)
}

/// A partition's state could not be restored.
#[derive(Debug, Error)]
pub enum RestoreFailure {
    /// The changelog could not be read.
    #[error(transparent)]
    Changelog(RestoreError),
    /// The new state could not be written.
    #[error(transparent)]
    State(#[from] StateError),
    /// The stale state could not be removed.
    #[error("removing the stale state: {0}")]
    Remove(std::io::Error),
    /// The worker was stopped.
    #[error("restore stopped")]
    Stopped,
}

/// Rebuilds the state of input partition `partition` at `config.state.path` as of input offset
/// `upto`: reads the partition's changelog to its end, then replaces whatever state was there by
/// the retained documents, in batches of `kafka.restore_batch_size`, with the progress `upto` in
/// the last batch (a restore cut short leaves no progress, so it runs again).
pub fn restore_state(
    config: &Config,
    partition: i32,
    upto: u64,
    metrics: &Metrics,
    stop: &AtomicBool,
) -> Result<RebuildStats, RestoreFailure> {
    tracing::info!(partition, upto, "restoring the state from the changelog");
    let started = Instant::now();
    let mut rebuild = Rebuild::new(upto);
    read(&config.kafka, partition, &mut rebuild, metrics, stop).map_err(|e| match e {
        RestoreError::Stopped => RestoreFailure::Stopped,
        e => RestoreFailure::Changelog(e),
    })?;
    // Moved aside first (atomic), so a crash while deleting never leaves a half-deleted database
    // where the state belongs.
    let path = &config.state.path;
    let stale = path.with_extension("stale");
    if stale.exists() {
        std::fs::remove_dir_all(&stale).map_err(RestoreFailure::Remove)?;
    }
    if path.exists() {
        std::fs::rename(path, &stale).map_err(RestoreFailure::Remove)?;
        std::fs::remove_dir_all(&stale).map_err(RestoreFailure::Remove)?;
    }
    let read_seconds = started.elapsed().as_secs_f64();
    let store = Store::open(&config.state)?;
    let progress = super::progress::progress_source(&config.kafka.topics.input, partition);
    let stats = rebuild.apply(&store, &progress, config.kafka.restore_batch_size)?;
    tracing::info!(
        partition,
        read_seconds,
        write_seconds = started.elapsed().as_secs_f64() - read_seconds,
        documents = stats.documents,
        "changelog read and state rebuilt"
    );
    Ok(stats)
}
