//! The worker's Prometheus metrics (DESIGN §6): `urltree_*`, base units, `_total` counters,
//! `_seconds` histograms, no per-domain or per-URL labels.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

use crate::record::ErrorKind;

/// Every metric of the worker, registered in one [`Registry`].
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    /// Input records by outcome (`clean`, `duplicate`, `rejected`, `skipped` = already applied).
    pub pages: IntCounterVec,
    /// Pages accepted as a new version of a URL key already held, its content changed (also
    /// counted as `clean` in `pages`).
    pub versions: IntCounter,
    /// Pages whose event time lay more than a day ahead of the record's time, clamped.
    pub clamped_times: IntCounter,
    /// Optional fields dropped from accepted pages for their type or value.
    pub dropped_fields: IntCounter,
    /// Classified blocks by label (`content`, `boilerplate`).
    pub blocks: IntCounterVec,
    /// Seconds from a batch's hand-off to processing until its offset is committed, by stage
    /// (`process` = tree update and classification, `deliver` = output acknowledgement,
    /// `total`).
    pub batch_seconds: HistogramVec,
    /// Bytes of input record payloads consumed.
    pub input_bytes: IntCounter,
    /// Bytes of output and dead-letter payloads acknowledged by the broker.
    pub output_bytes: IntCounter,
    /// Dead letters produced, by kind.
    pub dead_letters: IntCounterVec,
    /// Consumer lag per assigned partition, in records (from librdkafka statistics).
    pub consumer_lag: IntGaugeVec,
    /// Input records fetched and not yet committed.
    pub in_flight: IntGauge,
    /// RocksDB state size per assigned partition, in bytes.
    pub state_bytes: IntGaugeVec,
    /// Partitions currently assigned and opened.
    pub assigned_partitions: IntGauge,
    /// Offset commits by result (`ok`, `error`).
    pub commits: IntCounterVec,
    /// Batches that failed (state or delivery error) and were retried.
    pub batch_retries: IntCounter,
    /// Kafka transactions by outcome (`commit`, `abort`); stays at zero in at-least-once mode.
    pub transactions: IntCounterVec,
    /// Records written to the changelog topic, by kind (`fingerprint`, `tombstone`).
    pub changelog_records: IntCounterVec,
    /// Changelog records applied while restoring partitions' state.
    pub restore_records: IntCounter,
    /// Changelog records still to apply, per partition being restored.
    pub restore_remaining: IntGaugeVec,
    /// Partitions assigned and still restoring their state from the changelog.
    pub restoring_partitions: IntGauge,
    /// 1 when every assigned partition is restored and processing (what `/readyz` reports), else 0.
    pub ready: IntGauge,
    /// Input records whose Kafka key is not their page's registrable domain, by kind (`null`: no
    /// key; `mismatch`: another key). Such a record may land on a partition that does not hold
    /// its domain's tree.
    pub key_mismatches: IntCounterVec,
}

/// A metric could not be registered (a programming error: duplicate name or bad label).
pub type MetricsError = prometheus::Error;

impl Metrics {
    /// Creates and registers every metric, pre-creating the fixed label values so each series is
    /// present from the start.
    pub fn new() -> Result<Metrics, MetricsError> {
        let registry = Registry::new();
        let counter_vec = |name: &str, help: &str, label: &str| {
            IntCounterVec::new(Opts::new(name, help), &[label])
        };
        let m = Metrics {
            pages: counter_vec(
                "urltree_pages_total",
                "Input records by outcome.",
                "outcome",
            )?,
            versions: IntCounter::new(
                "urltree_page_versions_total",
                "Pages accepted as a new version of a URL already held (also counted as clean).",
            )?,
            clamped_times: IntCounter::new(
                "urltree_event_time_clamped_total",
                "Pages whose event time lay more than a day ahead of the record's time, clamped.",
            )?,
            dropped_fields: IntCounter::new(
                "urltree_dropped_fields_total",
                "Optional fields dropped from accepted pages for their type or value.",
            )?,
            blocks: counter_vec(
                "urltree_blocks_total",
                "Classified text blocks by label.",
                "label",
            )?,
            batch_seconds: HistogramVec::new(
                HistogramOpts::new(
                    "urltree_batch_seconds",
                    "Seconds a batch spends in each stage until its offset is committed.",
                )
                .buckets(prometheus::exponential_buckets(0.001, 2.0, 16)?),
                &["stage"],
            )?,
            input_bytes: IntCounter::new(
                "urltree_input_bytes_total",
                "Bytes of input record payloads consumed.",
            )?,
            output_bytes: IntCounter::new(
                "urltree_output_bytes_total",
                "Bytes of output and dead-letter payloads acknowledged by the broker.",
            )?,
            dead_letters: counter_vec(
                "urltree_dead_letters_total",
                "Dead letters produced, by kind.",
                "kind",
            )?,
            consumer_lag: IntGaugeVec::new(
                Opts::new(
                    "urltree_consumer_lag_records",
                    "Consumer lag per assigned input partition, in records.",
                ),
                &["partition"],
            )?,
            in_flight: IntGauge::new(
                "urltree_records_in_flight",
                "Input records fetched and not yet committed.",
            )?,
            state_bytes: IntGaugeVec::new(
                Opts::new(
                    "urltree_state_bytes",
                    "RocksDB state size per assigned partition, in bytes.",
                ),
                &["partition"],
            )?,
            assigned_partitions: IntGauge::new(
                "urltree_assigned_partitions",
                "Input partitions assigned to this worker and opened.",
            )?,
            commits: counter_vec(
                "urltree_offset_commits_total",
                "Consumer offset commits by result.",
                "result",
            )?,
            batch_retries: IntCounter::new(
                "urltree_batch_retries_total",
                "Batches that failed to process or deliver and were retried.",
            )?,
            transactions: counter_vec(
                "urltree_transactions_total",
                "Kafka transactions by outcome.",
                "outcome",
            )?,
            changelog_records: counter_vec(
                "urltree_changelog_records_total",
                "Records written to the changelog topic, by kind.",
                "kind",
            )?,
            restore_records: IntCounter::new(
                "urltree_restore_records_total",
                "Changelog records applied while restoring partition state.",
            )?,
            restore_remaining: IntGaugeVec::new(
                Opts::new(
                    "urltree_restore_remaining_records",
                    "Changelog records still to apply, per partition being restored.",
                ),
                &["partition"],
            )?,
            restoring_partitions: IntGauge::new(
                "urltree_restoring_partitions",
                "Assigned partitions still restoring their state from the changelog.",
            )?,
            ready: IntGauge::new(
                "urltree_ready",
                "1 when every assigned partition is restored and processing, else 0.",
            )?,
            key_mismatches: counter_vec(
                "urltree_input_key_mismatch_total",
                "Input records keyed otherwise than by their page's registrable domain, by kind.",
                "kind",
            )?,
            registry,
        };
        for outcome in ["clean", "duplicate", "rejected", "skipped"] {
            m.pages.with_label_values(&[outcome]);
        }
        for label in ["content", "boilerplate"] {
            m.blocks.with_label_values(&[label]);
        }
        for stage in ["process", "deliver", "total"] {
            m.batch_seconds.with_label_values(&[stage]);
        }
        for kind in ErrorKind::ALL {
            m.dead_letters.with_label_values(&[kind.as_str()]);
        }
        for result in ["ok", "error"] {
            m.commits.with_label_values(&[result]);
        }
        for outcome in ["commit", "abort"] {
            m.transactions.with_label_values(&[outcome]);
        }
        for kind in ["fingerprint", "tombstone"] {
            m.changelog_records.with_label_values(&[kind]);
        }
        for kind in ["null", "mismatch"] {
            m.key_mismatches.with_label_values(&[kind]);
        }
        let r = &m.registry;
        r.register(Box::new(m.pages.clone()))?;
        r.register(Box::new(m.versions.clone()))?;
        r.register(Box::new(m.clamped_times.clone()))?;
        r.register(Box::new(m.dropped_fields.clone()))?;
        r.register(Box::new(m.blocks.clone()))?;
        r.register(Box::new(m.batch_seconds.clone()))?;
        r.register(Box::new(m.input_bytes.clone()))?;
        r.register(Box::new(m.output_bytes.clone()))?;
        r.register(Box::new(m.dead_letters.clone()))?;
        r.register(Box::new(m.consumer_lag.clone()))?;
        r.register(Box::new(m.in_flight.clone()))?;
        r.register(Box::new(m.state_bytes.clone()))?;
        r.register(Box::new(m.assigned_partitions.clone()))?;
        r.register(Box::new(m.commits.clone()))?;
        r.register(Box::new(m.batch_retries.clone()))?;
        r.register(Box::new(m.transactions.clone()))?;
        r.register(Box::new(m.changelog_records.clone()))?;
        r.register(Box::new(m.restore_records.clone()))?;
        r.register(Box::new(m.restore_remaining.clone()))?;
        r.register(Box::new(m.restoring_partitions.clone()))?;
        r.register(Box::new(m.ready.clone()))?;
        r.register(Box::new(m.key_mismatches.clone()))?;
        #[cfg(target_os = "linux")]
        r.register(Box::new(super::process::ProcessCollector::for_self()?))?;
        Ok(m)
    }

    /// Forgets the per-partition series of a partition that is no longer assigned.
    pub fn forget_partition(&self, partition: i32) {
        let label = partition.to_string();
        let _ = self.consumer_lag.remove_label_values(&[&label]);
        let _ = self.state_bytes.remove_label_values(&[&label]);
        let _ = self.restore_remaining.remove_label_values(&[&label]);
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut buf) {
            tracing::warn!("encoding metrics: {e}");
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_conventions() {
        let m = Metrics::new().unwrap();
        m.consumer_lag.with_label_values(&["3"]).set(7);
        let text = m.render();
        for name in [
            "urltree_pages_total{outcome=\"clean\"} 0",
            "urltree_blocks_total{label=\"content\"} 0",
            "urltree_page_versions_total 0",
            "urltree_event_time_clamped_total 0",
            "urltree_dropped_fields_total 0",
            "urltree_batch_seconds_bucket{stage=\"total\"",
            "urltree_dead_letters_total{kind=\"bad-url\"} 0",
            "urltree_consumer_lag_records{partition=\"3\"} 7",
            "urltree_input_bytes_total 0",
            "urltree_records_in_flight 0",
            "urltree_transactions_total{outcome=\"abort\"} 0",
            "urltree_changelog_records_total{kind=\"tombstone\"} 0",
            "urltree_ready 0",
            "urltree_input_key_mismatch_total{kind=\"null\"} 0",
            #[cfg(target_os = "linux")]
            "process_resident_memory_bytes",
        ] {
            assert!(text.contains(name), "{name} missing in\n{text}");
        }
        m.forget_partition(3);
        assert!(!m.render().contains("partition=\"3\""));
    }
}
