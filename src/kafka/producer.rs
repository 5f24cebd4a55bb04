//! The output side: one idempotent producer shared by all partition workers, sending a batch's
//! clean-text records and dead letters and waiting until the broker has acknowledged every one.

use std::time::Duration;

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer as _};
use rdkafka::ClientContext;
use thiserror::Error;
use tokio::runtime::Handle;

use super::config::KafkaConfig;

/// A record to produce.
#[derive(Clone, Debug)]
pub struct OutRecord<'a> {
    /// Destination topic.
    pub topic: &'a str,
    /// Message key (the domain for clean text, the input's key for dead letters).
    pub key: Option<&'a [u8]>,
    /// Message value.
    pub payload: Vec<u8>,
}

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
}

/// Forwards librdkafka's log lines and errors to `tracing`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TracingContext;

impl ClientContext for TracingContext {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        log_to_tracing(level, fac, message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::error!(target: "librdkafka", "{error}: {reason}");
    }
}

/// Emits one librdkafka log line as a `tracing` event of the matching level.
pub fn log_to_tracing(level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
    use rdkafka::config::RDKafkaLogLevel as L;
    match level {
        L::Emerg | L::Alert | L::Critical | L::Error => {
            tracing::error!(target: "librdkafka", "{fac} {message}")
        }
        L::Warning => tracing::warn!(target: "librdkafka", "{fac} {message}"),
        L::Notice | L::Info => tracing::info!(target: "librdkafka", "{fac} {message}"),
        L::Debug => tracing::debug!(target: "librdkafka", "{fac} {message}"),
    }
}

/// The shared producer.
pub struct Producer {
    inner: FutureProducer<TracingContext>,
    runtime: Handle,
}

impl Producer {
    /// Creates the producer; `runtime` drives the delivery futures when a blocking worker thread
    /// waits on them.
    pub fn new(config: &KafkaConfig, runtime: Handle) -> Result<Producer, KafkaError> {
        let inner = config
            .producer_config()
            .create_with_context(TracingContext)?;
        Ok(Producer { inner, runtime })
    }

    /// Sends `records` and blocks until the broker has acknowledged all of them (or one failed).
    /// Returns the payload bytes delivered. Must not be called from an async task.
    pub fn deliver_blocking(&self, records: &[OutRecord<'_>]) -> Result<u64, DeliveryError> {
        let mut pending = Vec::with_capacity(records.len());
        for record in records {
            let mut message = FutureRecord::<[u8], [u8]>::to(record.topic).payload(&record.payload);
            if let Some(key) = record.key {
                message = message.key(key);
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
        let bytes = records.iter().map(|r| r.payload.len() as u64).sum();
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

    /// Waits up to `timeout` for every queued record to be delivered.
    pub fn flush(&self, timeout: Duration) -> Result<(), KafkaError> {
        self.inner.flush(timeout)
    }
}
