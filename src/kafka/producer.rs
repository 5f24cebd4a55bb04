//! The output side: an idempotent producer (shared by all partition workers in at-least-once mode,
//! one transactional producer per input partition in exactly-once mode) sending a batch's
//! clean-text records, dead letters and changelog records and waiting until the broker has
//! acknowledged every one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rdkafka::consumer::ConsumerGroupMetadata;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer as _};
use rdkafka::ClientContext;
use rdkafka::TopicPartitionList;
use thiserror::Error;
use tokio::runtime::Handle;

use super::config::KafkaConfig;

/// A record to produce.
#[derive(Clone, Debug)]
pub struct OutRecord<'a> {
    /// Destination topic.
    pub topic: &'a str,
    /// Message key (the domain for clean text, the input's key for dead letters, the document
    /// identity for the changelog).
    pub key: Option<&'a [u8]>,
    /// Message value (`None` for a changelog tombstone).
    pub payload: Option<Vec<u8>>,
    /// Explicit partition (the changelog is co-partitioned with the input); `None`: by key.
    pub partition: Option<i32>,
    /// Input offset carried in the [`OFFSET_HEADER`] header (changelog records).
    pub input_offset: Option<i64>,
}

/// Header of a changelog record holding the input offset that produced it (8 bytes, big-endian).
pub const OFFSET_HEADER: &str = "urltree.offset";

/// Records were not all acknowledged.
#[derive(Debug, Error)]
pub enum DeliveryError {
    /// The broker or librdkafka refused or failed a record.
    #[error("delivery to {topic} failed: {source}")]
    Failed {
        /// The record's topic.
        topic: String,
        /// The Kafka error.
        source: KafkaError,
    },
    /// The producer was closed while a delivery was pending.
    #[error("the producer dropped a pending delivery")]
    Canceled,
    /// A transactional call failed.
    #[error("transaction {step}: {source}")]
    Transaction {
        /// The call.
        step: &'static str,
        /// The Kafka error.
        source: KafkaError,
    },
}

impl DeliveryError {
    /// Whether the producer is unusable (fenced by a newer instance of its transactional id, or
    /// another fatal error) and must be created again.
    pub fn is_fatal(&self) -> bool {
        match self {
            DeliveryError::Transaction {
                source: KafkaError::Transaction(e),
                ..
            } => e.is_fatal(),
            DeliveryError::Failed { source, .. } | DeliveryError::Transaction { source, .. } => {
                matches!(
                    source.rdkafka_error_code(),
                    Some(RDKafkaErrorCode::Fatal | RDKafkaErrorCode::ProducerFenced)
                )
            }
            DeliveryError::Canceled => false,
        }
    }
}

/// Forwards librdkafka's log lines and errors to `tracing`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TracingContext;

impl ClientContext for TracingContext {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        log_to_tracing(level, fac, message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        if matches!(
            error,
            KafkaError::PartitionEOF(_) | KafkaError::Global(RDKafkaErrorCode::PartitionEOF)
        ) {
            // The changelog reader asks for end-of-partition events.
            tracing::debug!(target: "librdkafka", "{error}: {reason}");
        } else {
            log_error(&error, reason);
        }
    }
}

/// Logs a librdkafka error, each kind at most once per [`super::logs::WINDOW`]: an unreachable
/// broker reports the same failure many times a second.
pub fn log_error(error: &KafkaError, reason: &str) {
    super::logs::throttled(
        &format!("{error}: {reason}"),
        |line| tracing::error!(target: "librdkafka", "{line}"),
    );
}

/// Emits one librdkafka log line as a `tracing` event of the matching level; above debug, each
/// kind of line at most once per [`super::logs::WINDOW`].
pub fn log_to_tracing(level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
    use rdkafka::config::RDKafkaLogLevel as L;
    if matches!(level, L::Debug) {
        tracing::debug!(target: "librdkafka", "{fac} {message}");
        return;
    }
    super::logs::throttled(&format!("{fac} {message}"), |line| match level {
        L::Emerg | L::Alert | L::Critical | L::Error => {
            tracing::error!(target: "librdkafka", "{line}")
        }
        L::Warning => tracing::warn!(target: "librdkafka", "{line}"),
        _ => tracing::info!(target: "librdkafka", "{line}"),
    });
}

/// A producer of output, dead-letter and changelog records.
pub struct Producer {
    inner: FutureProducer<TracingContext>,
    runtime: Handle,
    /// An abort that timed out (broker unreachable) and must be resumed, by calling
    /// `abort_transaction` again, before the next transaction can begin.
    abort_pending: AtomicBool,
}

impl Producer {
    /// Creates the shared, non-transactional producer; `runtime` drives the delivery futures when
    /// a blocking worker thread waits on them.
    pub fn new(config: &KafkaConfig, runtime: Handle) -> Result<Producer, KafkaError> {
        let inner = config
            .producer_config()
            .create_with_context(TracingContext)
            .map_err(super::config::without_value)?;
        Ok(Producer {
            inner,
            runtime,
            abort_pending: AtomicBool::new(false),
        })
    }

    /// Creates the transactional producer of input partition `partition` and initializes its
    /// transactions, which fences any earlier producer of the same `transactional.id` and aborts
    /// the transaction it left open. Blocking: call it from a partition thread.
    pub fn transactional(
        config: &KafkaConfig,
        partition: i32,
        runtime: Handle,
    ) -> Result<Producer, DeliveryError> {
        let inner: FutureProducer<TracingContext> = config
            .transactional_producer_config(partition)
            .create_with_context(TracingContext)
            .map_err(|source| DeliveryError::Transaction {
                step: "create",
                source: super::config::without_value(source),
            })?;
        inner
            .init_transactions(txn_timeout(config))
            .map_err(|source| DeliveryError::Transaction {
                step: "init",
                source,
            })?;
        Ok(Producer {
            inner,
            runtime,
            abort_pending: AtomicBool::new(false),
        })
    }

    /// Runs one transaction: begins it, sends `records` and waits for their acknowledgement, adds
    /// the consumer offsets `offsets` for the group `group`, and commits. On any failure the
    /// transaction is aborted (when the producer still can) and the error returned: none of the
    /// records become visible to `read_committed` readers and the offsets are not committed.
    /// Returns the payload bytes delivered. Blocking.
    pub fn deliver_in_transaction(
        &self,
        records: &[OutRecord<'_>],
        offsets: &TopicPartitionList,
        group: &ConsumerGroupMetadata,
        timeout: Duration,
    ) -> Result<u64, DeliveryError> {
        let step = |step: &'static str| move |source| DeliveryError::Transaction { step, source };
        if self.abort_pending.load(Ordering::Acquire) {
            // librdkafka keeps a timed-out abort open until it is called again; until then every
            // begin fails ("conflicting abort_transaction API call already in progress").
            self.inner
                .abort_transaction(timeout)
                .map_err(step("resume abort"))?;
            self.abort_pending.store(false, Ordering::Release);
        }
        self.inner.begin_transaction().map_err(step("begin"))?;
        let result = self.deliver_blocking(records).and_then(|bytes| {
            self.inner
                .send_offsets_to_transaction(offsets, group, timeout)
                .map_err(step("send offsets"))?;
            self.inner
                .commit_transaction(timeout)
                .map_err(step("commit"))?;
            Ok(bytes)
        });
        if result.is_err() {
            if let Err(e) = self.inner.abort_transaction(timeout) {
                let retriable = matches!(&e, KafkaError::Transaction(t) if t.is_retriable());
                if retriable {
                    self.abort_pending.store(true, Ordering::Release);
                }
                tracing::warn!(retriable, "aborting the transaction failed: {e}");
            }
        }
        result
    }

    /// Sends `records` and blocks until the broker has acknowledged all of them (or one failed).
    /// Returns the payload bytes delivered. Must not be called from an async task.
    pub fn deliver_blocking(&self, records: &[OutRecord<'_>]) -> Result<u64, DeliveryError> {
        let mut pending = Vec::with_capacity(records.len());
        for record in records {
            let mut message = FutureRecord::<[u8], [u8]>::to(record.topic);
            if let Some(payload) = &record.payload {
                message = message.payload(payload);
            }
            if let Some(key) = record.key {
                message = message.key(key);
            }
            if let Some(partition) = record.partition {
                message = message.partition(partition);
            }
            if let Some(offset) = record.input_offset {
                message = message.headers(OwnedHeaders::new().insert(Header {
                    key: OFFSET_HEADER,
                    value: Some(&offset.to_be_bytes()[..]),
                }));
            }
            loop {
                match self.inner.send_result(message) {
                    Ok(future) => {
                        pending.push((record.topic, future));
                        break;
                    }
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        // The local queue is full: wait for deliveries to drain it.
                        message = back;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err((source, _)) => {
                        return Err(DeliveryError::Failed {
                            topic: record.topic.to_owned(),
                            source,
                        })
                    }
                }
            }
        }
        let bytes = records
            .iter()
            .map(|r| r.payload.as_ref().map_or(0, Vec::len) as u64)
            .sum();
        self.runtime.block_on(async move {
            for (topic, future) in pending {
                match future.await {
                    Ok(Ok(_)) => {}
                    Ok(Err((source, _))) => {
                        return Err(DeliveryError::Failed {
                            topic: topic.to_owned(),
                            source,
                        })
                    }
                    Err(_) => return Err(DeliveryError::Canceled),
                }
            }
            Ok(bytes)
        })
    }

    /// The runtime that drives delivery futures.
    pub fn runtime(&self) -> Handle {
        self.runtime.clone()
    }

    /// Waits up to `timeout` for every queued record to be delivered.
    ///
    /// (`flush` of a transactional producer outside a transaction has nothing to deliver.)
    pub fn flush(&self, timeout: Duration) -> Result<(), KafkaError> {
        self.inner.flush(timeout)
    }
}

fn txn_timeout(config: &KafkaConfig) -> Duration {
    Duration::from_millis(config.transaction_timeout_ms)
}
