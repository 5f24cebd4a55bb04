//! The stream driver: the consumer group member that fetches input, batches it per partition,
//! hands batches to the partition workers under a bound on records in flight, reacts to
//! rebalances, and shuts down gracefully.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, ConsumerGroupMetadata, RebalanceProtocol,
};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::statistics::Statistics;
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use rdkafka::types::RDKafkaRespErr;
use rdkafka::ClientContext;
use thiserror::Error;
use tokio::sync::{watch, Semaphore};

use super::http::{self, Readiness, Status};
use super::metrics::{Metrics, MetricsError};
use super::producer::{log_error, log_to_tracing, Producer};
use super::progress::Start;
use super::worker::{Batch, Committer, OpenError, PartitionWorker, Record, Shared};
use crate::config::Config;

type StreamConsumer = rdkafka::consumer::StreamConsumer<DriverContext>;

/// Batches queued per partition worker beyond the one in progress.
const QUEUED_BATCHES: usize = 2;

/// The worker could not start or stopped on an error.
#[derive(Debug, Error)]
pub enum RunError {
    /// A Kafka client could not be created or subscribed.
    #[error("kafka: {0}")]
    Kafka(#[from] KafkaError),
    /// The HTTP listener could not be bound or served.
    #[error("binding the HTTP server on {addr}: {source}")]
    Http {
        /// The configured address.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The metrics could not be registered.
    #[error("metrics: {0}")]
    Metrics(#[from] MetricsError),
    /// An assigned partition could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
}

/// Commits offsets through the consumer, once it exists.
struct ConsumerCommitter {
    consumer: OnceLock<Weak<StreamConsumer>>,
}

impl Committer for ConsumerCommitter {
    fn commit(&self, topic: &str, partition: i32, next_offset: i64) -> Result<(), String> {
        let consumer = self
            .consumer
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| "the consumer is closed".to_owned())?;
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, Offset::Offset(next_offset))
            .map_err(|e| e.to_string())?;
        consumer
            .commit(&tpl, CommitMode::Sync)
            .map_err(|e| e.to_string())
    }

    fn group_metadata(&self) -> Option<ConsumerGroupMetadata> {
        self.consumer
            .get()
            .and_then(Weak::upgrade)?
            .group_metadata()
    }

    fn resume(&self, topic: &str, partition: i32) {
        let Some(consumer) = self.consumer.get().and_then(Weak::upgrade) else {
            return;
        };
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition(topic, partition);
        match consumer.resume(&tpl) {
            Ok(()) => tracing::info!(partition, "partition restored; fetching resumed"),
            Err(e) => tracing::error!(partition, "resuming the restored partition: {e}"),
        }
    }
}

/// The consumer's context: opens and closes partition workers on rebalances, forwards logs and
/// statistics.
pub struct DriverContext {
    shared: Arc<Shared>,
    workers: Mutex<HashMap<i32, PartitionWorker>>,
    fatal: Mutex<Option<OpenError>>,
}

impl DriverContext {
    fn workers(&self) -> std::sync::MutexGuard<'_, HashMap<i32, PartitionWorker>> {
        self.workers.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn input(&self) -> &str {
        &self.shared.config.kafka.topics.input
    }

    /// Opens a worker for every newly assigned partition, reconciling its state with the group's
    /// committed offset ([`super::progress::plan`]): points the fetch position at the state's
    /// progress when it is ahead, and returns the partitions that restore their state first (to
    /// be paused until they have).
    fn assign(&self, consumer: &BaseConsumer<Self>, tpl: &mut TopicPartitionList) -> Vec<i32> {
        let readiness = &self.shared.readiness;
        readiness.set_assigned(false);
        let input = self.input().to_owned();
        let partitions: Vec<i32> = tpl
            .elements_for_topic(&input)
            .iter()
            .map(|e| e.partition())
            .filter(|p| !self.workers().contains_key(p))
            .collect();
        let mut restoring = Vec::new();
        if partitions.is_empty() {
            readiness.set_assigned(true);
            return restoring;
        }
        match topic_partitions(consumer, &self.shared.config) {
            Ok(counts) => {
                if let Err(e) = check_copartitioned(&self.shared.config, counts) {
                    tracing::error!("{e}");
                    let mut fatal = self.fatal.lock().unwrap_or_else(|e| e.into_inner());
                    fatal.get_or_insert(e);
                    return restoring;
                }
            }
            Err(e) => tracing::warn!("cannot read the topics' partition counts: {e}"),
        }
        let mut wanted = TopicPartitionList::new();
        for &partition in &partitions {
            wanted.add_partition(&input, partition);
        }
        let mut attempt = 0;
        let committed = loop {
            attempt += 1;
            match consumer.committed_offsets(wanted.clone(), Duration::from_secs(20)) {
                Err(e) if attempt < 3 => {
                    tracing::warn!("reading committed offsets (attempt {attempt}): {e}");
                    std::thread::sleep(Duration::from_secs(1));
                }
                result => break result,
            }
        };
        let committed = match committed {
            Ok(committed) => committed,
            Err(e) => {
                // Without the committed position the state cannot be reconciled safely.
                tracing::error!("cannot read committed offsets: {e}");
                let mut fatal = self.fatal.lock().unwrap_or_else(|e| e.into_inner());
                fatal.get_or_insert(OpenError::Thread {
                    partition: partitions[0],
                    detail: format!("reading committed offsets: {e}"),
                });
                return restoring;
            }
        };
        for &partition in &partitions {
            let committed = match committed
                .find_partition(&input, partition)
                .map(|e| e.offset())
            {
                Some(Offset::Offset(o)) if o >= 0 => Some(o as u64),
                _ => None,
            };
            match PartitionWorker::start(self.shared.clone(), partition, QUEUED_BATCHES, committed)
            {
                Ok(worker) => {
                    match worker.start_plan() {
                        Start::SeekTo(stored) => {
                            tracing::info!(
                                partition,
                                stored,
                                ?committed,
                                "resuming at the state's progress"
                            );
                            if let Err(e) = tpl.set_partition_offset(
                                &input,
                                partition,
                                Offset::Offset(stored as i64),
                            ) {
                                tracing::warn!(partition, "cannot set the start offset: {e}");
                            }
                        }
                        Start::Restore(upto) => {
                            tracing::info!(partition, upto, "state missing or stale: restoring");
                            restoring.push(partition);
                        }
                        Start::Resume => {}
                    }
                    self.workers().insert(partition, worker);
                }
                Err(e) => {
                    tracing::error!("{e}");
                    let mut fatal = self.fatal.lock().unwrap_or_else(|e| e.into_inner());
                    fatal.get_or_insert(e);
                    return restoring;
                }
            }
        }
        let assigned = self.workers().len();
        self.shared.metrics.assigned_partitions.set(assigned as i64);
        tracing::info!(?partitions, assigned, "partitions assigned");
        readiness.set_assigned(true);
        restoring
    }

    /// Pauses the partitions that restore their state; one whose restore already finished is
    /// resumed at once.
    fn pause_restoring(&self, consumer: &BaseConsumer<Self>, restoring: &[i32]) {
        let input = self.input().to_owned();
        for &partition in restoring {
            let mut tpl = TopicPartitionList::new();
            tpl.add_partition(&input, partition);
            if let Err(e) = consumer.pause(&tpl) {
                tracing::warn!(partition, "cannot pause the restoring partition: {e}");
            }
            let restored = self
                .workers()
                .get(&partition)
                .is_some_and(PartitionWorker::paused);
            if restored {
                if let Err(e) = consumer.resume(&tpl) {
                    tracing::error!(partition, "resuming the restored partition: {e}");
                }
            }
        }
    }

    /// Finishes the batch in progress of every revoked partition (its outputs delivered, state
    /// and offset committed) and closes it; batches not started are left to the next owner.
    fn revoke(&self, tpl: &TopicPartitionList) {
        let input = self.input().to_owned();
        let timeout = Duration::from_secs(self.shared.config.kafka.shutdown_timeout_secs);
        let mut revoked = Vec::new();
        for element in tpl.elements_for_topic(&input) {
            let partition = element.partition();
            let worker = self.workers().remove(&partition);
            if let Some(worker) = worker {
                worker.stop(true, timeout);
                self.shared.metrics.forget_partition(partition);
                revoked.push(partition);
            }
        }
        let assigned = self.workers().len();
        self.shared.metrics.assigned_partitions.set(assigned as i64);
        tracing::info!(?revoked, assigned, "partitions revoked");
    }

    fn take_fatal(&self) -> Option<OpenError> {
        self.fatal.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl ClientContext for DriverContext {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        log_to_tracing(level, fac, message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        if matches!(error, KafkaError::Global(RDKafkaErrorCode::AllBrokersDown)) {
            self.shared
                .readiness
                .set_unreachable(Some(reason.to_owned()));
        }
        log_error(&error, reason);
    }

    fn stats(&self, statistics: Statistics) {
        if statistics.brokers.values().any(|b| b.state == "UP") {
            self.shared.readiness.set_unreachable(None);
        }
        let Some(topic) = statistics.topics.get(self.input()) else {
            return;
        };
        let assigned: Vec<i32> = self.workers().keys().copied().collect();
        for (partition, stats) in &topic.partitions {
            // read_committed lag is measured against the last stable offset; a broker that does
            // not report one leaves it at -1, so fall back to the high watermark.
            let position = stats.app_offset.max(stats.committed_offset);
            let lag = if stats.consumer_lag >= 0 {
                stats.consumer_lag
            } else if stats.hi_offset >= 0 && position >= 0 {
                (stats.hi_offset - position).max(0)
            } else {
                -1
            };
            if *partition >= 0 && lag >= 0 && assigned.contains(partition) {
                self.shared
                    .metrics
                    .consumer_lag
                    .with_label_values(&[&partition.to_string()])
                    .set(lag);
            }
        }
    }
}

impl ConsumerContext for DriverContext {
    fn rebalance(
        &self,
        consumer: &BaseConsumer<Self>,
        err: RDKafkaRespErr,
        tpl: &mut TopicPartitionList,
    ) {
        let cooperative = matches!(
            consumer.rebalance_protocol(),
            RebalanceProtocol::Cooperative
        );
        let result = match err {
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => {
                let restoring = self.assign(consumer, tpl);
                let assigned = if cooperative {
                    consumer.incremental_assign(tpl)
                } else {
                    consumer.assign(tpl)
                };
                self.pause_restoring(consumer, &restoring);
                assigned
            }
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS => {
                self.revoke(tpl);
                if cooperative {
                    consumer.incremental_unassign(tpl)
                } else {
                    consumer.unassign()
                }
            }
            other => {
                tracing::error!("rebalance error: {other:?}");
                Ok(())
            }
        };
        if let Err(e) = result {
            tracing::error!("applying the rebalance: {e}");
        }
    }
}

/// The partition counts of the input and the changelog topic as the broker reports them, `None`
/// for a topic it does not know.
fn topic_partitions<C: ConsumerContext, K: Consumer<C>>(
    consumer: &K,
    config: &Config,
) -> Result<(Option<usize>, Option<usize>), KafkaError> {
    let topics = &config.kafka.topics;
    let count = |topic: &str| -> Result<Option<usize>, KafkaError> {
        let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        Ok(metadata
            .topics()
            .iter()
            .find(|t| t.name() == topic && t.error().is_none())
            .map(|t| t.partitions().len())
            .filter(|&n| n > 0))
    };
    Ok((count(&topics.input)?, count(&topics.changelog)?))
}

/// Checks the topics' partition counts once the HTTP endpoints answer; they are checked again on
/// every assignment, so an unreachable broker only postpones the check.
async fn check_at_start(consumer: &Arc<StreamConsumer>, shared: &Shared) -> Result<(), OpenError> {
    let consumer = consumer.clone();
    let config = shared.config.clone();
    let counts = tokio::task::spawn_blocking(move || {
        topic_partitions(consumer.as_ref(), &config).map(|counts| (counts, config))
    })
    .await;
    match counts {
        Ok(Ok((counts, config))) => check_copartitioned(&config, counts),
        Ok(Err(e)) => {
            tracing::info!("partition counts not checked yet: {e}");
            Ok(())
        }
        Err(e) => {
            tracing::warn!("partition counts not checked: {e}");
            Ok(())
        }
    }
}

/// Refuses a changelog that cannot be co-partitioned with the input: input partition N's
/// documents go to changelog partition N, so the changelog needs at least as many partitions.
fn check_copartitioned(
    config: &Config,
    (input, changelog): (Option<usize>, Option<usize>),
) -> Result<(), OpenError> {
    let topics = &config.kafka.topics;
    let Some(input) = input else {
        return Ok(());
    };
    match changelog {
        Some(changelog) if changelog >= input => Ok(()),
        found => Err(OpenError::Changelog {
            changelog: topics.changelog.clone(),
            found: found.unwrap_or(0),
            input: topics.input.clone(),
            needed: input,
        }),
    }
}

/// The `urltree run` worker: a consumer group member that turns raw-html input into clean-text
/// output, dead letters and changelog records, exactly-once or at-least-once per
/// `kafka.delivery` (see the module [`super::worker`] for the order of effects and the restore).
pub struct Worker {
    consumer: Arc<StreamConsumer>,
    context: Arc<DriverContext>,
    shared: Arc<Shared>,
    http_addr: SocketAddr,
    listener: tokio::net::TcpListener,
}

impl Worker {
    /// Binds the HTTP server, creates the producer and the consumer and subscribes to the input
    /// topic. Must run inside a multi-threaded tokio runtime.
    pub async fn new(config: Config) -> Result<Worker, RunError> {
        let kafka = &config.kafka;
        let (http_addr, listener) =
            http::bind(&kafka.http_listen)
                .await
                .map_err(|source| RunError::Http {
                    addr: kafka.http_listen.clone(),
                    source,
                })?;
        let producer = Producer::new(kafka, tokio::runtime::Handle::current())?;
        let committer = Arc::new(ConsumerCommitter {
            consumer: OnceLock::new(),
        });
        let metrics = Metrics::new()?;
        let shared = Arc::new(Shared {
            producer,
            readiness: Arc::new(Readiness::new(metrics.clone())),
            metrics,
            committer: committer.clone(),
            config,
        });
        let context = DriverContext {
            shared: shared.clone(),
            workers: Mutex::new(HashMap::new()),
            fatal: Mutex::new(None),
        };
        let consumer: StreamConsumer = shared
            .config
            .kafka
            .consumer_config()
            .create_with_context(context)
            .map_err(super::config::without_value)?;
        let consumer = Arc::new(consumer);
        let _ = committer.consumer.set(Arc::downgrade(&consumer));
        consumer.subscribe(&[&shared.config.kafka.topics.input])?;
        let context = consumer.context().clone();
        Ok(Worker {
            consumer,
            context,
            shared,
            http_addr,
            listener,
        })
    }

    /// The address the HTTP server listens on.
    pub fn http_addr(&self) -> SocketAddr {
        self.http_addr
    }

    /// The worker's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// Runs until `shutdown` completes (or a partition cannot be opened), then shuts down
    /// gracefully within `kafka.shutdown_timeout_secs`: stops fetching, finishes the queued
    /// batches (delivered, state and offsets committed), flushes the producer and closes the
    /// consumer.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), RunError> {
        let Worker {
            consumer,
            context,
            shared,
            listener,
            ..
        } = self;
        let (stop_http, stop_http_rx) = watch::channel(false);
        let status = Status {
            metrics: shared.metrics.clone(),
            ready: shared.readiness.clone(),
        };
        let server =
            http::spawn(listener, status, stop_http_rx).map_err(|source| RunError::Http {
                addr: shared.config.kafka.http_listen.clone(),
                source,
            })?;

        let result = match check_at_start(&consumer, &shared).await {
            Ok(()) => drive(&consumer, &context, &shared, shutdown).await,
            Err(e) => Err(e.into()),
        };

        let timeout = Duration::from_secs(shared.config.kafka.shutdown_timeout_secs);
        let deadline = Instant::now() + timeout;
        shared.readiness.set_assigned(false);
        let workers: Vec<PartitionWorker> = context.workers().drain().map(|(_, w)| w).collect();
        let closing = tokio::task::spawn_blocking(move || {
            let mut clean = true;
            for worker in workers {
                let left = deadline.saturating_duration_since(Instant::now());
                clean &= worker.stop(false, left);
            }
            clean
        });
        let clean = closing.await.unwrap_or(false);
        let left = deadline.saturating_duration_since(Instant::now());
        let flush_shared = shared.clone();
        let flushed = tokio::task::spawn_blocking(move || flush_shared.producer.flush(left)).await;
        if !matches!(flushed, Ok(Ok(()))) {
            tracing::warn!("the producer did not flush within the shutdown deadline");
        }
        if !clean {
            tracing::warn!(
                "shutdown deadline of {timeout:?} passed; unfinished batches stay uncommitted \
                 and will be read again"
            );
        }
        let _ = tokio::task::spawn_blocking(move || drop(consumer)).await;
        let _ = stop_http.send(true);
        let _ = tokio::task::spawn_blocking(move || server.join()).await;
        tracing::info!("worker stopped");
        result
    }
}

/// The fetch loop: per-partition batches of up to `input.batch_size` records, handed over when
/// full or `kafka.batch_linger_ms` old, each holding one in-flight permit per record.
async fn drive(
    consumer: &StreamConsumer,
    context: &DriverContext,
    shared: &Shared,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let config = &shared.config;
    let batch_size = config.input.batch_size;
    let linger = Duration::from_millis(config.kafka.batch_linger_ms.max(1));
    let limit = Arc::new(Semaphore::new(config.kafka.max_in_flight));
    let mut pending: HashMap<i32, (Instant, Vec<Record>)> = HashMap::new();
    tokio::pin!(shutdown);
    tracing::info!(
        input = %config.kafka.topics.input,
        group = %config.kafka.group_id,
        "worker started"
    );
    loop {
        if let Some(fatal) = context.take_fatal() {
            return Err(fatal.into());
        }
        let received = tokio::select! {
            _ = &mut shutdown => break,
            received = tokio::time::timeout(linger, consumer.recv()) => received,
        };
        let mut full = None;
        match received {
            Err(_) => {}
            Ok(Err(e)) => {
                super::logs::throttled(&format!("consumer: {e}"), |line| tracing::warn!("{line}"))
            }
            Ok(Ok(message)) => {
                shared.readiness.set_unreachable(None);
                if message.topic() == config.kafka.topics.input {
                    let record = Record {
                        payload: message.payload().map(<[u8]>::to_vec),
                        key: message.key().map(<[u8]>::to_vec),
                        offset: message.offset(),
                        timestamp_ms: message.timestamp().to_millis(),
                    };
                    let partition = message.partition();
                    let entry = pending
                        .entry(partition)
                        .or_insert_with(|| (Instant::now(), Vec::with_capacity(batch_size)));
                    entry.1.push(record);
                    if entry.1.len() >= batch_size {
                        full = Some(partition);
                    }
                }
            }
        }
        let due: Vec<i32> = pending
            .iter()
            .filter(|(p, (since, _))| Some(**p) == full || since.elapsed() >= linger)
            .map(|(p, _)| *p)
            .collect();
        for partition in due {
            if let Some((_, records)) = pending.remove(&partition) {
                dispatch(context, shared, &limit, partition, records).await;
            }
        }
    }
    // Records fetched but not handed over are not committed: they are read again next time.
    tracing::info!("shutting down: fetching stopped");
    Ok(())
}

/// Hands a batch to its partition's worker, waiting for in-flight room first (backpressure).
/// Records of a partition no longer assigned are dropped: the new owner reads them.
async fn dispatch(
    context: &DriverContext,
    shared: &Shared,
    limit: &Arc<Semaphore>,
    partition: i32,
    records: Vec<Record>,
) {
    let Some(sender) = context.workers().get(&partition).map(|w| w.sender()) else {
        return;
    };
    let count = records.len();
    let Ok(permit) = limit.clone().acquire_many_owned(count as u32).await else {
        return;
    };
    shared.metrics.in_flight.add(count as i64);
    if let Err(unsent) = sender.send(Batch { records, permit }).await {
        shared.metrics.in_flight.sub(unsent.0.records.len() as i64);
    }
}
