//! Sends keyed raw-html records to a topic and accounts for every one: a record counts as
//! delivered only once the broker has acknowledged it (`acks=all`, idempotent producer); a record
//! the broker refused or never acknowledged within `message.timeout.ms` comes back as a dead
//! letter with the reason and its bytes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::ClientContext;
use thiserror::Error;

use crate::kafka::producer::{log_error, log_to_tracing};
use crate::kafka::KafkaConfig;
use crate::record::{DeadLetter, ErrorKind, Source};

/// Longest wait for the brokers to answer before anything is sent (or `message.timeout.ms` when
/// shorter): a bridge run by hand or by a crawler's job should fail fast when no broker is up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The sender could not start or finish.
#[derive(Debug, Error)]
pub enum ProduceError {
    /// librdkafka refused the configuration.
    #[error("creating the producer: {0}")]
    Create(KafkaError),
    /// No broker answered a metadata request in time.
    #[error("no broker of {brokers} answered within {timeout:?}: {error}")]
    Unreachable {
        /// The bootstrap brokers.
        brokers: String,
        /// How long the request waited.
        timeout: Duration,
        /// The Kafka error (in the message, not as a source: its own chain repeats itself).
        error: KafkaError,
    },
    /// The topic does not exist (or has no partitions).
    #[error("topic {topic:?} does not exist on {brokers}: {reason}")]
    NoTopic {
        /// The topic.
        topic: String,
        /// The bootstrap brokers.
        brokers: String,
        /// What the broker said.
        reason: String,
    },
}

/// Counts of a sender's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records queued for the broker.
    pub sent: u64,
    /// Queued records the broker acknowledged.
    pub delivered: u64,
    /// Payload bytes of the acknowledged records.
    pub delivered_bytes: u64,
    /// Queued records whose delivery report said they failed.
    pub failed: u64,
    /// Records the producer refused at once (never queued).
    pub refused: u64,
}

impl Tally {
    /// Queued records neither acknowledged nor reported failed (yet).
    pub fn in_flight(&self) -> u64 {
        self.sent.saturating_sub(self.delivered + self.failed)
    }
}

/// What [`Sender::finish`] leaves: the final counts and the last failures' dead letters.
#[derive(Debug)]
pub struct Finished {
    /// The final counts; `tally.in_flight()` records were still unacknowledged when the wait
    /// ended (none unless the wait outlasted `message.timeout.ms` and its margin).
    pub tally: Tally,
    /// Dead letters of the failures not yet taken with [`Sender::take_failures`].
    pub failures: Vec<DeadLetter>,
}

/// What the delivery reports (on the producer's polling thread) leave for the sending thread.
#[derive(Default)]
struct Shared {
    delivered: AtomicU64,
    delivered_bytes: AtomicU64,
    /// Records sent whose delivery report said they failed.
    reported_failed: AtomicU64,
    failures: Mutex<Vec<DeadLetter>>,
    topic: String,
    payload_bytes: usize,
}

/// The producer's context: delivery accounting and librdkafka's logs through `tracing`.
struct Deliveries(Arc<Shared>);

impl ClientContext for Deliveries {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        log_to_tracing(level, fac, message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        log_error(&error, reason);
    }
}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = Box<Source>;

    fn delivery(&self, result: &DeliveryResult<'_>, source: Box<Source>) {
        let shared = &self.0;
        match result {
            Ok(message) => {
                shared.delivered.fetch_add(1, Ordering::Relaxed);
                shared
                    .delivered_bytes
                    .fetch_add(message.payload_len() as u64, Ordering::Relaxed);
            }
            Err((error, message)) => {
                let dead = DeadLetter::new(
                    ErrorKind::Undelivered,
                    format!("not delivered to {}: {error}", shared.topic),
                    *source,
                    message.payload().unwrap_or_default(),
                    shared.payload_bytes,
                );
                shared
                    .failures
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(dead);
                shared.reported_failed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// An idempotent producer (`acks=all`, the Java clients' murmur2 partitioner, the `[kafka]`
/// section's brokers and pass-through properties) sending to one topic, with its delivery
/// accounting.
///
/// Guarantees: every record given to [`Sender::send`] ends up exactly one of delivered
/// (acknowledged by the broker), a dead letter (returned by `send`, or by
/// [`Sender::take_failures`] once its delivery report says it failed), or counted as
/// unacknowledged by [`Sender::finish`].
pub struct Sender {
    producer: ThreadedProducer<Deliveries>,
    shared: Arc<Shared>,
    partitions: i32,
    sent: u64,
    refused: u64,
    brokers: String,
    max_message_bytes: usize,
    message_timeout: Duration,
}

impl Sender {
    /// Creates the producer and checks that `topic` exists, waiting at most `message.timeout.ms`
    /// for the brokers. Dead letters keep at most `payload_bytes` of a record.
    pub fn connect(
        config: &KafkaConfig,
        topic: &str,
        payload_bytes: usize,
    ) -> Result<Sender, ProduceError> {
        let shared = Arc::new(Shared {
            topic: topic.to_owned(),
            payload_bytes,
            ..Shared::default()
        });
        let producer: ThreadedProducer<Deliveries> = config
            .input_producer_config()
            .create_with_context(Deliveries(Arc::clone(&shared)))
            .map_err(|e| ProduceError::Create(crate::kafka::config::without_value(e)))?;
        let timeout = config.message_timeout();
        let connect = timeout.min(CONNECT_TIMEOUT);
        let metadata = producer
            .client()
            .fetch_metadata(Some(topic), connect)
            .map_err(|error| ProduceError::Unreachable {
                brokers: config.brokers.clone(),
                timeout: connect,
                error,
            })?;
        let no_topic = |reason: String| ProduceError::NoTopic {
            topic: topic.to_owned(),
            brokers: config.brokers.clone(),
            reason,
        };
        let found = metadata
            .topics()
            .iter()
            .find(|t| t.name() == topic)
            .ok_or_else(|| no_topic("not in the metadata".into()))?;
        if let Some(error) = found.error() {
            return Err(no_topic(RDKafkaErrorCode::from(error).to_string()));
        }
        let partitions = found.partitions().len() as i32;
        if partitions == 0 {
            return Err(no_topic("no partitions".into()));
        }
        Ok(Sender {
            producer,
            shared,
            partitions,
            sent: 0,
            refused: 0,
            brokers: config.brokers.clone(),
            max_message_bytes: config.max_message_bytes(),
            message_timeout: timeout,
        })
    }

    /// The topic's partition count when the sender connected.
    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Bytes of a record kept in its dead letter.
    pub fn payload_bytes(&self) -> usize {
        self.shared.payload_bytes
    }

    /// The bootstrap brokers.
    pub fn brokers(&self) -> &str {
        &self.brokers
    }

    /// Queues `bytes` keyed `key`; its delivery is reported later. Waits while the local queue
    /// is full. A record the producer refuses at once (over `message.max.bytes` with its key,
    /// or any other local refusal) comes back as a dead letter.
    pub fn send(&mut self, key: &str, bytes: &[u8], source: Source) -> Result<(), DeadLetter> {
        let topic = self.shared.topic.clone();
        let mut record = BaseRecord::with_opaque_to(&topic, Box::new(source))
            .key(key)
            .payload(bytes);
        loop {
            match self.producer.send(record) {
                Ok(()) => {
                    self.sent += 1;
                    return Ok(());
                }
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    // Deliveries drain the queue; the polling thread serves their reports.
                    record = back;
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err((error, back)) => {
                    self.refused += 1;
                    let source = *back.delivery_opaque;
                    let (kind, message) = match error {
                        KafkaError::MessageProduction(RDKafkaErrorCode::MessageSizeTooLarge) => (
                            ErrorKind::TooLarge,
                            format!(
                                "record of {} bytes (key {} bytes) is over message.max.bytes ({}) \
                                 with its framing",
                                bytes.len(),
                                key.len(),
                                self.max_message_bytes
                            ),
                        ),
                        other => (
                            ErrorKind::Undelivered,
                            format!("the producer refused the record for {topic}: {other}"),
                        ),
                    };
                    return Err(DeadLetter::new(
                        kind,
                        message,
                        source,
                        bytes,
                        self.shared.payload_bytes,
                    ));
                }
            }
        }
    }

    /// The dead letters of records whose delivery failed since the last call.
    pub fn take_failures(&self) -> Vec<DeadLetter> {
        std::mem::take(
            &mut *self
                .shared
                .failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The counts so far.
    pub fn tally(&self) -> Tally {
        tally(self.sent, self.refused, &self.shared)
    }

    /// Waits until every queued record has been acknowledged or reported failed (librdkafka
    /// reports a record failed at the latest `message.timeout.ms` after it was queued; the wait
    /// ends 5 s after that), then stops the producer.
    pub fn finish(self) -> Finished {
        let timeout = self.message_timeout + Duration::from_secs(5);
        if let Err(e) = self.producer.flush(timeout) {
            tracing::warn!("waiting for delivery reports: {e}");
        }
        // Dropping the producer stops its polling thread: every report served is counted.
        drop(self.producer);
        let failures = std::mem::take(
            &mut *self
                .shared
                .failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        Finished {
            tally: tally(self.sent, self.refused, &self.shared),
            failures,
        }
    }
}

fn tally(sent: u64, refused: u64, shared: &Shared) -> Tally {
    Tally {
        sent,
        delivered: shared.delivered.load(Ordering::Relaxed),
        delivered_bytes: shared.delivered_bytes.load(Ordering::Relaxed),
        failed: shared.reported_failed.load(Ordering::Relaxed),
        refused,
    }
}
