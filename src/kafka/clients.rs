//! The librdkafka configurations of the clients `urltree run` and `urltree produce` create, built
//! from the `[kafka]` section ([`KafkaConfig`]): urltree's own settings first (the ones its
//! guarantees rest on, which the section refuses in its property maps), then the pass-through
//! properties.

use std::collections::BTreeMap;

use rdkafka::ClientConfig;

use super::config::{property_string, KafkaConfig};

impl KafkaConfig {
    /// The consumer's librdkafka configuration: manual commits, cooperative-sticky assignment,
    /// static membership, `read_committed`, then the pass-through properties.
    pub fn consumer_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.brokers)
            .set("group.id", &self.group_id)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set("partition.assignment.strategy", "cooperative-sticky")
            .set("enable.partition.eof", "false")
            .set("isolation.level", "read_committed")
            .set("statistics.interval.ms", "5000");
        if let Some(id) = self.instance_id() {
            c.set("group.instance.id", id);
        }
        apply(&mut c, &self.properties);
        apply(&mut c, &self.consumer_properties);
        c
    }

    /// The largest message the producer sends (`message.max.bytes`, librdkafka's default 1,000,000
    /// unless a property map sets it).
    pub fn max_message_bytes(&self) -> usize {
        self.producer_config()
            .get("message.max.bytes")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1_000_000)
    }

    /// The producer's librdkafka configuration: idempotent, `acks=all`, then the pass-through
    /// properties.
    pub fn producer_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.brokers)
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("linger.ms", "5");
        apply(&mut c, &self.properties);
        apply(&mut c, &self.producer_properties);
        c
    }

    /// How long librdkafka tries to deliver a record before reporting it failed
    /// (`message.timeout.ms`, librdkafka's default 300,000 ms unless a property map sets it).
    pub fn message_timeout(&self) -> std::time::Duration {
        let ms = self
            .producer_config()
            .get("message.timeout.ms")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(300_000);
        std::time::Duration::from_millis(ms)
    }

    /// The producer of `urltree produce` (raw-html records into the input topic):
    /// [`KafkaConfig::producer_config`] with the Java clients' partitioner for keyed records,
    /// `murmur2_random` (`murmur2(key) & 0x7fffffff` modulo the partition count, see
    /// [`crate::produce::partitioner`]).
    pub fn input_producer_config(&self) -> ClientConfig {
        let mut c = self.producer_config();
        c.set("partitioner", "murmur2_random");
        c
    }

    /// The transactional producer of input partition `partition`: [`KafkaConfig::producer_config`]
    /// with its `transactional.id` and `transaction.timeout.ms`.
    pub fn transactional_producer_config(&self, partition: i32) -> ClientConfig {
        let mut c = self.producer_config();
        c.set("transactional.id", self.transactional_id(partition))
            .set(
                "transaction.timeout.ms",
                self.transaction_timeout_ms.to_string(),
            );
        c
    }

    /// The changelog reader used to restore partition state: no group membership, no commits,
    /// `read_committed`, the pass-through consumer properties.
    pub fn restore_consumer_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.brokers)
            .set("group.id", format!("{}-restore", self.group_id))
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "true")
            .set("isolation.level", "read_committed");
        apply(&mut c, &self.properties);
        apply(&mut c, &self.consumer_properties);
        c
    }
}

fn apply(c: &mut ClientConfig, properties: &BTreeMap<String, toml::Value>) {
    for (key, value) in properties {
        if let Some(value) = property_string(value) {
            c.set(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn load(text: &str) -> Result<Config, crate::config::ConfigError> {
        Config::from_toml(text, None, Vec::new())
    }

    #[test]
    fn transactional_producers_and_the_restore_reader() {
        let c = load("[kafka]\ngroup_id = \"g\"").unwrap();
        let p = c.kafka.transactional_producer_config(3);
        assert_eq!(p.get("transactional.id"), Some("g-raw-html-3"));
        assert_eq!(p.get("transaction.timeout.ms"), Some("60000"));
        assert_eq!(
            c.kafka.restore_consumer_config().get("isolation.level"),
            Some("read_committed")
        );
    }

    #[test]
    fn properties_pass_through_verbatim() {
        let c = load(
            "[kafka]\nbrokers = \"b1:9092,b2:9092\"\ngroup_instance_id = \"w-0\"\n\
             [kafka.properties]\n\"security.protocol\" = \"SASL_SSL\"\n\
             [kafka.consumer_properties]\n\"session.timeout.ms\" = 6000\n\
             [kafka.producer_properties]\n\"linger.ms\" = 20\n",
        )
        .unwrap();
        let consumer = c.kafka.consumer_config();
        assert_eq!(consumer.get("security.protocol"), Some("SASL_SSL"));
        assert_eq!(consumer.get("session.timeout.ms"), Some("6000"));
        assert_eq!(consumer.get("group.instance.id"), Some("w-0"));
        assert_eq!(
            consumer.get("partition.assignment.strategy"),
            Some("cooperative-sticky")
        );
        assert_eq!(consumer.get("enable.auto.commit"), Some("false"));
        let producer = c.kafka.producer_config();
        assert_eq!(producer.get("bootstrap.servers"), Some("b1:9092,b2:9092"));
        assert_eq!(producer.get("security.protocol"), Some("SASL_SSL"));
        assert_eq!(producer.get("linger.ms"), Some("20"));
        assert_eq!(c.kafka.max_message_bytes(), 1_000_000);
        let c = load("[kafka.producer_properties]\n\"message.max.bytes\" = 50000").unwrap();
        assert_eq!(c.kafka.max_message_bytes(), 50_000);
        assert!(producer.get("session.timeout.ms").is_none());
        assert_eq!(consumer.get("linger.ms"), None);
        let e = load("[kafka.consumer_properties]\n\"group.id\" = \"x\"").unwrap_err();
        assert!(e.to_string().contains("kafka.consumer_properties"), "{e}");
    }

    #[test]
    fn urltree_settings_survive_in_the_clients() {
        let c = load("").unwrap().kafka;
        let consumer = c.consumer_config();
        assert_eq!(consumer.get("isolation.level"), Some("read_committed"));
        assert_eq!(consumer.get("auto.offset.reset"), Some("earliest"));
        assert_eq!(consumer.get("enable.partition.eof"), Some("false"));
        let producer = c.producer_config();
        assert_eq!(producer.get("acks"), Some("all"));
        assert_eq!(producer.get("enable.idempotence"), Some("true"));
        let input = c.input_producer_config();
        assert_eq!(input.get("partitioner"), Some("murmur2_random"));
        assert_eq!(input.get("acks"), Some("all"));
        assert_eq!(input.get("enable.idempotence"), Some("true"));
        assert_eq!(c.message_timeout(), std::time::Duration::from_secs(300));
    }

    #[test]
    fn secrets_reach_the_clients_and_empty_instance_id_means_dynamic_membership() {
        let c = load(
            "[kafka]\ngroup_instance_id = \"\"\n[kafka.properties]\n\"sasl.password\" = \"hunter2\"",
        )
        .unwrap()
        .kafka;
        let consumer = c.consumer_config();
        assert_eq!(consumer.get("sasl.password"), Some("hunter2"));
        assert!(consumer.get("group.instance.id").is_none());
    }
}
