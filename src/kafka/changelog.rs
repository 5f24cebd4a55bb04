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
use crate::engine::Change;
use crate::state::Rebuild;

impl ConsumerContext for TracingContext {}

/// How long a restore waits for the next changelog record before it gives up.
const STALL: Duration = Duration::from_secs(30);

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
        .map_err(kafka)?;
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
    while next < high {
        if stop.load(Ordering::Acquire) {
            return Err(RestoreError::Stopped);
        }
        match consumer.poll(Duration::from_millis(100)) {
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
            }
            Some(Err(KafkaError::PartitionEOF(_))) => break,
            Some(Err(e)) => tracing::warn!(partition, "changelog restore: {e}"),
            None => {}
        }
        if last_record.elapsed() > STALL {
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
