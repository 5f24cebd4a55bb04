//! `urltree run`: the Kafka worker (DESIGN §1, §4, §6).
//!
//! Only [`config`] is built without the `kafka` feature (so a configuration file reads the same
//! either way); the rest needs librdkafka, tokio and hyper, and comes with the feature.
//!
//! - [`config`]: the `[kafka]` section (brokers, group, topics, delivery mode, pass-through
//!   librdkafka properties); `clients`: the librdkafka configurations built from it;
//! - [`consumer`]: the stream driver ([`Worker`]): consumer group membership with cooperative-sticky
//!   assignment and static membership, per-partition batching, bounded in-flight work,
//!   rebalances and graceful shutdown;
//! - [`worker`]: per-partition processing, one [`crate::engine::Engine`] and RocksDB state per
//!   assigned partition, restore on assignment, and the order of effects that makes delivery
//!   exactly-once (or at-least-once) without ever applying a page twice to the tree;
//! - [`producer`]: output, dead-letter and changelog delivery with broker acknowledgement, in one
//!   Kafka transaction per batch in exactly-once mode;
//! - [`changelog`]: the changelog records and the restore of a partition's state from them;
//! - [`progress`]: a partition's stored progress and its reconciliation with the committed offset,
//!   used by both [`worker`] and [`changelog`] (the worker depends on the changelog, never the
//!   reverse);
//! - [`http`]: `/metrics`, `/healthz`, `/readyz` (with the reasons for not being ready);
//!   [`metrics`]: the Prometheus metrics (with `process`, the standard `process_*` ones read from
//!   `/proc`); [`logs`]: repeated log lines written once per window.

#[cfg(feature = "kafka")]
pub mod changelog;
#[cfg(feature = "kafka")]
mod clients;
pub mod config;
#[cfg(feature = "kafka")]
pub mod consumer;
#[cfg(feature = "kafka")]
pub mod http;
#[cfg(feature = "kafka")]
pub mod logs;
#[cfg(feature = "kafka")]
pub mod metrics;
#[cfg(all(feature = "kafka", target_os = "linux"))]
mod process;
#[cfg(feature = "kafka")]
pub mod producer;
#[cfg(feature = "kafka")]
pub mod progress;
#[cfg(feature = "kafka")]
pub mod worker;

pub use config::{DeliveryMode, KafkaConfig, Topics};
#[cfg(feature = "kafka")]
pub use consumer::{RunError, Worker};
#[cfg(feature = "kafka")]
pub use metrics::Metrics;

#[cfg(all(test, feature = "kafka"))]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    /// The modules of `kafka` and the sibling modules each one's code names (`super::name`;
    /// comments and doc links aside).
    fn dependencies() -> BTreeMap<&'static str, BTreeSet<String>> {
        let sources = [
            ("changelog", include_str!("changelog.rs")),
            ("clients", include_str!("clients.rs")),
            ("config", include_str!("config.rs")),
            ("consumer", include_str!("consumer.rs")),
            ("http", include_str!("http.rs")),
            ("logs", include_str!("logs.rs")),
            ("metrics", include_str!("metrics.rs")),
            ("process", include_str!("process.rs")),
            ("producer", include_str!("producer.rs")),
            ("progress", include_str!("progress.rs")),
            ("worker", include_str!("worker.rs")),
        ];
        let names: BTreeSet<&str> = sources.iter().map(|(name, _)| *name).collect();
        sources
            .iter()
            .map(|(module, text)| {
                let text: String = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let mut uses = BTreeSet::new();
                for (i, _) in text.match_indices("super::") {
                    let rest = &text[i + "super::".len()..];
                    let word: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    // `{a, b}` groups name several siblings at once.
                    let names_here: Vec<String> = if rest.starts_with('{') {
                        let group = &rest[1..rest.find('}').unwrap_or(rest.len())];
                        group
                            .split(',')
                            .map(|w| w.trim().split("::").next().unwrap_or("").to_owned())
                            .collect()
                    } else {
                        vec![word]
                    };
                    for name in names_here {
                        if name != *module && names.contains(name.as_str()) {
                            uses.insert(name);
                        }
                    }
                }
                (*module, uses)
            })
            .collect()
    }

    #[test]
    fn module_dependencies_run_one_way() {
        let deps = dependencies();
        assert!(deps["worker"].contains("changelog"), "{deps:?}");
        // Depth-first search for a cycle.
        fn visit<'a>(
            node: &'a str,
            deps: &'a BTreeMap<&'static str, BTreeSet<String>>,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) {
            if done.contains(node) {
                return;
            }
            assert!(
                !path.contains(&node),
                "modules import each other: {} -> {node}",
                path.join(" -> ")
            );
            path.push(node);
            for next in &deps[node] {
                visit(next, deps, path, done);
            }
            path.pop();
            done.insert(node);
        }
        let mut done = BTreeSet::new();
        for module in deps.keys() {
            visit(module, &deps, &mut Vec::new(), &mut done);
        }
    }
}
