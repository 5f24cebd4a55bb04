//! `[kafka]`: brokers, consumer group, topics, delivery mode and librdkafka pass-through
//! properties of `urltree run` and `urltree produce`: typed, defaulted and validated, with or
//! without the `kafka` feature (a configuration file is read the same either way). The clients'
//! librdkafka configurations are built in `kafka::clients`, with the feature.

use std::collections::BTreeMap;
use std::fmt;

/// How output records, state and consumer offsets are committed relative to each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryMode {
    /// For brokers without transactions: outputs and changelog records are acknowledged, then
    /// state commits, then the offset. A crash may repeat outputs (byte-identical), never loses a
    /// page and never applies one twice to the tree.
    AtLeastOnce,
    /// One Kafka transaction per batch (DESIGN §4, the Kafka Streams pattern): outputs, dead
    /// letters, changelog records and the consumer offset commit atomically, then the state
    /// commits. A `read_committed` reader sees every page's record once.
    #[default]
    ExactlyOnce,
}

impl fmt::Display for DeliveryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeliveryMode::AtLeastOnce => "at-least-once",
            DeliveryMode::ExactlyOnce => "exactly-once",
        })
    }
}

/// `[kafka.topics]`: the topics the worker reads and writes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Topics {
    /// Raw-html input, keyed by registrable domain.
    pub input: String,
    /// Clean-text output, keyed by domain.
    pub output: String,
    /// Dead letters.
    pub dead_letter: String,
    /// Changelog of the tree's documents: one record per inserted fingerprint and a tombstone per
    /// eviction, co-partitioned with the input (compacted on a real broker); read to restore a
    /// partition's state.
    pub changelog: String,
}

impl Default for Topics {
    fn default() -> Self {
        Topics {
            input: "raw-html".into(),
            output: "clean-text".into(),
            dead_letter: "urltree-dead-letters".into(),
            changelog: "urltree-changelog".into(),
        }
    }
}

/// `[kafka]`: the worker's Kafka side.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KafkaConfig {
    /// Bootstrap brokers, comma-separated `host:port`.
    pub brokers: String,
    /// Consumer group.
    pub group_id: String,
    /// Static membership id (`group.instance.id`). Unset: the `POD_NAME` or `HOSTNAME`
    /// environment variable; empty string: dynamic membership.
    pub group_instance_id: Option<String>,
    /// Delivery guarantee.
    pub delivery: DeliveryMode,
    /// Most input records fetched but not yet committed, over all partitions (backpressure).
    pub max_in_flight: usize,
    /// A partition's partial batch is handed to processing after this many milliseconds.
    pub batch_linger_ms: u64,
    /// Seconds allowed for a graceful shutdown (finish batches, flush, commit) after SIGTERM.
    pub shutdown_timeout_secs: u64,
    /// Prefix of the transactional ids (exactly-once): partition `N` of the input produces with
    /// `transactional.id = <prefix>-<input topic>-<N>`. Unset: the `group_id`.
    pub transactional_id_prefix: Option<String>,
    /// `transaction.timeout.ms` of the transactional producers: the broker aborts a transaction
    /// left open longer (a crashed worker's).
    pub transaction_timeout_ms: u64,
    /// Documents per RocksDB write while restoring a partition from the changelog.
    pub restore_batch_size: usize,
    /// Address of the HTTP server (`/metrics`, `/healthz`, `/readyz`): loopback by default, so
    /// a worker started by hand exposes nothing; the Helm chart sets `0.0.0.0` for the probes
    /// and Prometheus.
    pub http_listen: String,
    /// Topic names.
    pub topics: Topics,
    /// librdkafka properties applied verbatim to the consumer and producer (SASL, TLS, tuning),
    /// after urltree's own settings. Values may be strings, integers, floats or booleans.
    pub properties: BTreeMap<String, toml::Value>,
    /// librdkafka properties for the consumer only, applied after `properties`.
    pub consumer_properties: BTreeMap<String, toml::Value>,
    /// librdkafka properties for the producer only, applied after `properties`.
    pub producer_properties: BTreeMap<String, toml::Value>,
}

impl Default for KafkaConfig {
    fn default() -> Self {
        KafkaConfig {
            brokers: "localhost:9092".into(),
            group_id: "urltree".into(),
            group_instance_id: None,
            delivery: DeliveryMode::ExactlyOnce,
            max_in_flight: 4096,
            batch_linger_ms: 100,
            shutdown_timeout_secs: 30,
            transactional_id_prefix: None,
            transaction_timeout_ms: 60_000,
            restore_batch_size: 2_000,
            http_listen: "127.0.0.1:9095".into(),
            topics: Topics::default(),
            properties: BTreeMap::new(),
            consumer_properties: BTreeMap::new(),
            producer_properties: BTreeMap::new(),
        }
    }
}

/// The librdkafka properties urltree sets itself, refused in the property maps, each with the
/// guarantee (or the `[kafka]` field) it belongs to: `(name, reason)`. Aliases librdkafka accepts
/// for the same setting are refused alike.
pub const MANAGED_PROPERTIES: [(&str, &str); 18] = [
    ("bootstrap.servers", "set by kafka.brokers"),
    ("metadata.broker.list", "set by kafka.brokers"),
    ("group.id", "set by kafka.group_id"),
    (
        "group.instance.id",
        "set by kafka.group_instance_id (static membership)",
    ),
    (
        "group.protocol",
        "urltree runs the classic group protocol: its rebalance callbacks finish a revoked \
         partition's batch and restore an assigned partition's state before it is processed",
    ),
    (
        "partition.assignment.strategy",
        "urltree assigns cooperative-sticky, so a rebalance moves only the partitions that must \
         move, each after its batch in progress is committed",
    ),
    (
        "enable.auto.commit",
        "offsets are committed only after a batch's outputs and state are (exactly-once, no page \
         lost): an automatic commit would skip unprocessed pages after a crash",
    ),
    (
        "auto.commit.enable",
        "offsets are committed only after a batch's outputs and state are (exactly-once, no page \
         lost): an automatic commit would skip unprocessed pages after a crash",
    ),
    (
        "enable.auto.offset.store",
        "offsets are stored only after a batch's outputs and state are committed (exactly-once, \
         no page lost)",
    ),
    (
        "auto.offset.reset",
        "a partition without a committed offset is read from its beginning (earliest), so no page \
         waiting in it is lost",
    ),
    (
        "isolation.level",
        "input and changelog are read read_committed, so records of aborted transactions are \
         never processed or restored (exactly-once)",
    ),
    (
        "enable.partition.eof",
        "urltree sets it per consumer: the changelog restore needs end-of-partition events to \
         know it has read everything, the input consumer must not get them",
    ),
    (
        "enable.idempotence",
        "the producers are idempotent, so a retried send never duplicates or reorders outputs \
         and changelog records (and transactions, exactly-once, require it)",
    ),
    (
        "acks",
        "outputs and changelog records count as delivered only once all in-sync replicas have \
         them (acks=all), before the state commits: no page lost when a broker fails",
    ),
    (
        "request.required.acks",
        "outputs and changelog records count as delivered only once all in-sync replicas have \
         them (acks=all), before the state commits: no page lost when a broker fails",
    ),
    (
        "transactional.id",
        "set by kafka.transactional_id_prefix: one id per input partition fences a partition's \
         previous owner (exactly-once)",
    ),
    (
        "transaction.timeout.ms",
        "set by kafka.transaction_timeout_ms",
    ),
    (
        "partitioner",
        "urltree produce partitions keyed records as the Java clients do (murmur2_random), so \
         a domain's pages land on one partition whoever produced them",
    ),
];

/// Why urltree refuses the librdkafka property `name` in a property map, when it does.
pub fn managed_property(name: &str) -> Option<&'static str> {
    // librdkafka takes a topic-level property on the global configuration under a `topic.`
    // prefix: the alias is refused with the property.
    let bare = name.strip_prefix("topic.").unwrap_or(name);
    MANAGED_PROPERTIES
        .iter()
        .find(|(managed, _)| *managed == name || *managed == bare)
        .map(|(_, reason)| *reason)
}

/// A client configuration error without the property's value (librdkafka's message and
/// rdkafka's error both carry it, and a misspelled secret's name, `sasl.pasword`, is no secret
/// by its name): the value is replaced by [`REDACTED`] wherever it appears.
#[cfg(feature = "kafka")]
pub fn without_value(error: rdkafka::error::KafkaError) -> rdkafka::error::KafkaError {
    use rdkafka::error::KafkaError;
    match error {
        KafkaError::ClientConfig(res, desc, key, value) => {
            let desc = if value.is_empty() {
                desc
            } else {
                desc.replace(&value, REDACTED)
            };
            KafkaError::ClientConfig(res, desc, key, REDACTED.to_owned())
        }
        other => other,
    }
}

/// What `urltree config` prints in place of a secret's value.
pub const REDACTED: &str = "<redacted>";

/// Whether a librdkafka property holds a secret (a password, a client secret, private key
/// material): any name with `password`, `secret` or `passphrase` in it, a private key in PEM
/// (`ssl.key.pem`, `sasl.oauthbearer.assertion.private.key.pem`) and the OAUTHBEARER
/// configuration string, which may carry credentials. Paths to key files are not secrets.
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["password", "secret", "passphrase"]
        .iter()
        .any(|word| name.contains(word))
        || name.ends_with("key.pem")
        || name == "sasl.oauthbearer.config"
}

impl KafkaConfig {
    /// Checks what the types cannot: names present, limits in range, the delivery mode available,
    /// properties scalar and not ones urltree manages. Returns `(field, reason)` on failure.
    pub fn validate(&self, batch_size: usize) -> Result<(), (&'static str, String)> {
        if self.brokers.trim().is_empty() {
            return Err(("kafka.brokers", "must not be empty".into()));
        }
        if self.group_id.trim().is_empty() {
            return Err(("kafka.group_id", "must not be empty".into()));
        }
        let topics = [
            ("kafka.topics.input", &self.topics.input),
            ("kafka.topics.output", &self.topics.output),
            ("kafka.topics.dead_letter", &self.topics.dead_letter),
            ("kafka.topics.changelog", &self.topics.changelog),
        ];
        for (field, name) in topics {
            if name.trim().is_empty() {
                return Err((field, "must not be empty".into()));
            }
        }
        let t = &self.topics;
        if [&t.output, &t.dead_letter, &t.changelog].contains(&&t.input)
            || t.changelog == t.output
            || t.changelog == t.dead_letter
        {
            return Err((
                "kafka.topics",
                "output, dead_letter and changelog must differ from input, and changelog from \
                 output and dead_letter"
                    .into(),
            ));
        }
        if let Some(prefix) = &self.transactional_id_prefix {
            if prefix.trim().is_empty() {
                return Err((
                    "kafka.transactional_id_prefix",
                    "must not be empty (leave it unset for the group_id)".into(),
                ));
            }
        }
        if !(1_000..=900_000).contains(&self.transaction_timeout_ms) {
            return Err((
                "kafka.transaction_timeout_ms",
                "must be between 1000 and 900000 (the broker's usual maximum)".into(),
            ));
        }
        if self.restore_batch_size == 0 {
            return Err(("kafka.restore_batch_size", "must be positive".into()));
        }
        if self.max_in_flight < batch_size {
            return Err((
                "kafka.max_in_flight",
                format!("must be at least input.batch_size ({batch_size})"),
            ));
        }
        if self.shutdown_timeout_secs == 0 {
            return Err(("kafka.shutdown_timeout_secs", "must be positive".into()));
        }
        if self.http_listen.parse::<std::net::SocketAddr>().is_err() {
            return Err((
                "kafka.http_listen",
                format!("{:?} is not an IP:port address", self.http_listen),
            ));
        }
        let maps = [
            ("kafka.properties", &self.properties),
            ("kafka.consumer_properties", &self.consumer_properties),
            ("kafka.producer_properties", &self.producer_properties),
        ];
        for (field, map) in maps {
            for (key, value) in map {
                if let Some(reason) = managed_property(key) {
                    return Err((field, format!("{key} is refused: {reason}")));
                }
                if property_string(value).is_none() {
                    return Err((field, format!("{key} must be a string, number or boolean")));
                }
            }
        }
        Ok(())
    }

    /// A copy for display: every secret property ([`is_secret`]) in the three maps replaced by
    /// [`REDACTED`].
    pub fn redacted(&self) -> KafkaConfig {
        let redact = |map: &BTreeMap<String, toml::Value>| {
            map.iter()
                .map(|(key, value)| {
                    let value = if is_secret(key) {
                        toml::Value::String(REDACTED.into())
                    } else {
                        value.clone()
                    };
                    (key.clone(), value)
                })
                .collect()
        };
        KafkaConfig {
            properties: redact(&self.properties),
            consumer_properties: redact(&self.consumer_properties),
            producer_properties: redact(&self.producer_properties),
            ..self.clone()
        }
    }

    /// The static membership id: the configured one, else `POD_NAME`, else `HOSTNAME`; `None` for
    /// dynamic membership.
    pub fn instance_id(&self) -> Option<String> {
        let from_env = || {
            ["POD_NAME", "HOSTNAME"]
                .iter()
                .filter_map(|v| std::env::var(v).ok())
                .find(|v| !v.trim().is_empty())
        };
        match &self.group_instance_id {
            Some(id) if id.trim().is_empty() => None,
            Some(id) => Some(id.clone()),
            None => from_env(),
        }
    }

    /// The transactional id of the producer of input partition `partition` (exactly-once): stable
    /// per partition, so a partition's new owner fences the previous one's producer.
    pub fn transactional_id(&self, partition: i32) -> String {
        let prefix = self
            .transactional_id_prefix
            .as_deref()
            .unwrap_or(&self.group_id);
        format!("{prefix}-{}-{partition}", self.topics.input)
    }
}

/// A property map's value as librdkafka takes it: strings, integers, floats and booleans;
/// `None` for a table or an array.
pub(super) fn property_string(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn load(text: &str) -> Result<Config, crate::config::ConfigError> {
        Config::from_toml(text, None, Vec::new())
    }

    #[test]
    fn defaults_validate_and_round_trip() {
        let c = load("").unwrap();
        assert_eq!(c.kafka, KafkaConfig::default());
        assert_eq!(c.kafka.delivery, DeliveryMode::ExactlyOnce);
        assert_eq!(load(&c.to_toml()).unwrap(), c);
        let c = load("[kafka]\ndelivery = \"at-least-once\"").unwrap();
        assert_eq!(c.kafka.delivery, DeliveryMode::AtLeastOnce);
        assert!(load("[kafka]\ndelivery = \"twice\"").is_err());
    }

    #[test]
    fn transactional_ids_are_stable_per_partition() {
        let c = load("[kafka]\ngroup_id = \"g\"").unwrap();
        assert_eq!(c.kafka.transactional_id(3), "g-raw-html-3");
        let c = load("[kafka]\ntransactional_id_prefix = \"t\"").unwrap();
        assert_eq!(c.kafka.transactional_id(0), "t-raw-html-0");
        for bad in [
            "transactional_id_prefix = \" \"",
            "transaction_timeout_ms = 10",
            "restore_batch_size = 0",
        ] {
            let e = load(&format!("[kafka]\n{bad}")).unwrap_err();
            let field = bad.split(' ').next().unwrap();
            assert!(e.to_string().contains(field), "{e}");
        }
        let e = load("[kafka.topics]\nchangelog = \"clean-text\"").unwrap_err();
        assert!(e.to_string().contains("kafka.topics"), "{e}");
    }

    #[test]
    fn topic_prefixed_aliases_are_refused() {
        assert!(managed_property("topic.enable.auto.commit").is_some());
        assert!(managed_property("topic.auto.commit.enable").is_some());
        assert!(managed_property("topic.metadata.refresh.interval.ms").is_none());
        let e =
            load("[kafka.consumer_properties]\n\"topic.enable.auto.commit\" = true").unwrap_err();
        assert!(e.to_string().contains("is refused"), "{e}");
    }

    #[cfg(feature = "kafka")]
    #[test]
    fn client_errors_hide_values() {
        let mut client = rdkafka::ClientConfig::new();
        client.set("sasl.pasword", "hunter2");
        let e = client
            .create::<rdkafka::consumer::BaseConsumer>()
            .map(|_| ())
            .map_err(without_value)
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("sasl.pasword"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        let mut client = rdkafka::ClientConfig::new();
        client.set("fetch.wait.max.ms", "a-secret-ish-value");
        let text = client
            .create::<rdkafka::consumer::BaseConsumer>()
            .map(|_| ())
            .map_err(without_value)
            .unwrap_err()
            .to_string();
        assert!(!text.contains("a-secret-ish-value"), "{text}");
    }

    #[test]
    fn managed_and_bad_values_are_rejected() {
        let e = load("[kafka.properties]\n\"enable.auto.commit\" = true").unwrap_err();
        assert!(e.to_string().contains("enable.auto.commit"), "{e}");
        let e = load("[kafka.properties]\n\"x\" = [1]").unwrap_err();
        assert!(e.to_string().contains("kafka.properties"), "{e}");
        let e = load("[kafka]\nmax_in_flight = 10").unwrap_err();
        assert!(e.to_string().contains("kafka.max_in_flight"), "{e}");
        let e = load("[kafka.topics]\noutput = \"raw-html\"").unwrap_err();
        assert!(e.to_string().contains("kafka.topics"), "{e}");
        let e = load("[kafka]\nhttp_listen = \"nowhere\"").unwrap_err();
        assert!(e.to_string().contains("kafka.http_listen"), "{e}");
    }

    #[test]
    fn properties_behind_the_guarantees_are_refused_in_every_map_naming_the_guarantee() {
        let cases = [
            ("isolation.level", "\"read_uncommitted\"", "exactly-once"),
            ("acks", "1", "no page lost"),
            ("request.required.acks", "1", "no page lost"),
            ("enable.idempotence", "false", "duplicates or reorders"),
            ("enable.partition.eof", "true", "changelog restore"),
            ("auto.offset.reset", "\"latest\"", "no page"),
            ("enable.auto.commit", "true", "exactly-once"),
            ("enable.auto.offset.store", "true", "exactly-once"),
            (
                "partition.assignment.strategy",
                "\"range\"",
                "cooperative-sticky",
            ),
            ("group.protocol", "\"consumer\"", "classic group protocol"),
            ("transactional.id", "\"t\"", "kafka.transactional_id_prefix"),
            (
                "transaction.timeout.ms",
                "1000",
                "kafka.transaction_timeout_ms",
            ),
            ("metadata.broker.list", "\"b:9092\"", "kafka.brokers"),
            ("partitioner", "\"consistent_random\"", "murmur2_random"),
        ];
        for map in ["properties", "consumer_properties", "producer_properties"] {
            for (name, value, guarantee) in cases {
                let text = format!("[kafka.{map}]\n\"{name}\" = {value}");
                let e = load(&text).unwrap_err().to_string();
                assert!(
                    e.contains(&format!("kafka.{map}"))
                        && e.contains(name)
                        && e.contains("refused")
                        && e.contains(guarantee),
                    "{text}: {e}"
                );
            }
        }
        // Tuning stays open.
        assert!(load("[kafka.producer_properties]\n\"linger.ms\" = 50").is_ok());
        assert!(load("[kafka.consumer_properties]\n\"fetch.wait.max.ms\" = 10").is_ok());
    }

    #[test]
    fn secrets_are_redacted_for_display_and_nothing_else() {
        let c = load(
            "[kafka.properties]\n\"sasl.password\" = \"hunter2\"\n\"sasl.username\" = \"u\"\n\
             \"ssl.key.password\" = \"k\"\n\"ssl.keystore.password\" = \"ks\"\n\
             \"ssl.key.location\" = \"/tls/user.key\"\n\"ssl.key.pem\" = \"-----BEGIN\"\n\
             [kafka.consumer_properties]\n\"sasl.oauthbearer.client.secret\" = \"s\"\n\
             \"sasl.oauthbearer.config\" = \"principal=p clientSecret=s\"\n\
             [kafka.producer_properties]\n\"SSL.KEY.PASSWORD\" = 12345\n\"linger.ms\" = 5\n",
        )
        .unwrap()
        .kafka;
        let shown = c.redacted();
        let redacted = toml::Value::String(REDACTED.into());
        for key in [
            "sasl.password",
            "ssl.key.password",
            "ssl.keystore.password",
            "ssl.key.pem",
        ] {
            assert_eq!(shown.properties[key], redacted, "{key}");
        }
        for key in ["sasl.oauthbearer.client.secret", "sasl.oauthbearer.config"] {
            assert_eq!(shown.consumer_properties[key], redacted, "{key}");
        }
        assert_eq!(shown.producer_properties["SSL.KEY.PASSWORD"], redacted);
        assert_eq!(
            shown.producer_properties["linger.ms"],
            c.producer_properties["linger.ms"]
        );
        assert_eq!(
            shown.properties["sasl.username"],
            c.properties["sasl.username"]
        );
        assert_eq!(
            shown.properties["ssl.key.location"],
            c.properties["ssl.key.location"]
        );
        // The clients still get the real values.
        assert_eq!(
            c.properties["sasl.password"],
            toml::Value::String("hunter2".into())
        );
        assert_eq!(
            KafkaConfig {
                brokers: "x".into(),
                ..c.clone()
            }
            .redacted()
            .brokers,
            "x"
        );
    }

    #[test]
    fn empty_instance_id_means_dynamic_membership() {
        let c = load("[kafka]\ngroup_instance_id = \"\"").unwrap();
        assert_eq!(c.kafka.instance_id(), None);
    }
}
