//! Typed configuration: one TOML file, `URLTREE_*` environment overrides, defaults for everything,
//! and validation in one place.
//!
//! Every section and field has a default, so an empty file (or none) is a valid configuration. An
//! environment variable `URLTREE_<SECTION>__<FIELD>` (upper case, double underscore between levels)
//! overrides the field `<field>` of section `[<section>]`; its value is read as a TOML value when it
//! is one in canonical form (`true`, `500`, `1.5`, `"x"`) and as the verbatim string otherwise, so
//! `0x10`, `1e5` or `1_000` (a password, say) are never rewritten into numbers. Names may hold dots,
//! as librdkafka properties do: `URLTREE_KAFKA__PROPERTIES__SASL.PASSWORD` sets
//! `[kafka.properties]` `"sasl.password"`.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::blocks::{Capture, ParseLimits};
use crate::kafka::KafkaConfig;
use crate::state::StateOptions;
use crate::tree::{Comments, Focus, Heuristic, Prefs, Retention, Rules, TemplateClusters};
use crate::urlkey::KeyOptions;

/// Prefix of environment overrides.
pub const ENV_PREFIX: &str = "URLTREE_";

/// What to do with a record whose `domain` field disagrees with its URL's registrable domain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DomainCheck {
    /// Reject it to the dead letters (DESIGN §2.1).
    #[default]
    Verify,
    /// Trust the record: file the page under the record's domain (for corpora whose `domain`
    /// names the collection site, e.g. a site served from a second host).
    TrustRecord,
}

/// `[tree]`: the URL Tree's classification.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeConfig {
    /// Classification heuristic by name (default `hybrid`).
    pub heuristic: Heuristic,
    /// `[tree.rules]`: the `hybrid` rules in force, each on by default; switching one off
    /// measures what it does (docs/ablation.md).
    pub rules: Rules,
    /// `[tree.template_clusters]`: the pages of a node split by template (Gottron), off by
    /// default (docs/ablation.md says why).
    pub template_clusters: TemplateClusters,
    /// `comments`: `"drop"` (default) or `"keep"` the page's comments (`hybrid` only;
    /// docs/configuration.md).
    pub comments: Comments,
    /// `focus`: `"precision"`, `"balanced"` (default) or `"recall"` (`hybrid` only;
    /// docs/configuration.md says what each changes).
    pub focus: Focus,
}

impl TreeConfig {
    /// The classifier's preferences these settings ask for.
    pub fn prefs(&self) -> Prefs {
        Prefs {
            comments: self.comments,
            focus: self.focus,
        }
    }
}

/// `[rules]`: the query-normalization rules.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RulesConfig {
    /// A rules file (`schemas/url-rules.v1.schema.json`); the paper's Table 1 set when absent.
    pub file: Option<PathBuf>,
}

/// `[input]`: record decoding and batching.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InputConfig {
    /// Handling of a disagreeing `domain` field.
    pub domain_check: DomainCheck,
    /// Largest accepted record in bytes.
    pub max_record_bytes: usize,
    /// Records per batch (one atomic state commit each).
    pub batch_size: usize,
}

impl Default for InputConfig {
    fn default() -> Self {
        InputConfig {
            domain_check: DomainCheck::Verify,
            max_record_bytes: 32 << 20,
            batch_size: 256,
        }
    }
}

/// Which renderings of the main text show a kind of inline mark (links, images): in a config file
/// `"none"`, `"markdown"` or `"all"` (the Markdown and `text`), or `false` / `true` for `"none"` /
/// `"all"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Include {
    /// Neither rendering.
    #[default]
    None,
    /// The Markdown (`markdown`) only: `text` stays plain.
    Markdown,
    /// The Markdown and the plain text (`text`).
    All,
}

impl Include {
    /// True when the Markdown shows the mark.
    pub fn markdown(self) -> bool {
        self != Include::None
    }

    /// True when the plain text shows the mark.
    pub fn text(self) -> bool {
        self == Include::All
    }

    fn name(self) -> &'static str {
        match self {
            Include::None => "none",
            Include::Markdown => "markdown",
            Include::All => "all",
        }
    }
}

impl std::fmt::Display for Include {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Include {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" | "false" => Ok(Include::None),
            "markdown" => Ok(Include::Markdown),
            "all" | "true" => Ok(Include::All),
            other => Err(format!(
                "unknown value `{other}`: expected none, markdown or all"
            )),
        }
    }
}

impl serde::Serialize for Include {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Include {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Include;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("none, markdown or all (or true, false)")
            }

            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Include, E> {
                Ok(if v { Include::All } else { Include::None })
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Include, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[output]`: what the output records hold.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutputOptions {
    /// Include per-block detail (`blocks`) in every record.
    pub blocks: bool,
    /// Include the content blocks rendered as Markdown (`markdown`) in every record.
    pub markdown: bool,
    /// Where links are written as `[text](absolute URL)` (resolved against the page's `<base
    /// href>` and its response URL): the Markdown by default; `text` keeps their text alone
    /// unless `all`.
    pub include_links: Include,
    /// Where images are written as `![alt](absolute URL)`: nowhere by default.
    pub include_images: Include,
    /// Include the language of the main text (`lang`) in every record.
    pub lang: bool,
    /// Bytes of the original record kept in a dead letter.
    pub dead_letter_payload_bytes: usize,
}

impl Default for OutputOptions {
    fn default() -> Self {
        OutputOptions {
            blocks: false,
            markdown: false,
            include_links: Include::Markdown,
            include_images: Include::None,
            lang: true,
            dead_letter_payload_bytes: 64 << 10,
        }
    }
}

impl OutputOptions {
    /// What the tokenizer must record for the renderings these options ask: links and images
    /// only where a rendering that is written shows them.
    pub fn capture(&self) -> Capture {
        let shown = |include: Include| include.text() || (self.markdown && include.markdown());
        Capture {
            links: shown(self.include_links),
            images: shown(self.include_images),
        }
    }
}

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `[state]`: RocksDB.
    pub state: StateOptions,
    /// `[tree]`: the heuristic.
    pub tree: TreeConfig,
    /// `[retention]`: how many documents a domain keeps, for how long.
    pub retention: Retention,
    /// `[url]`: URL key normalization.
    pub url: KeyOptions,
    /// `[rules]`: query rules.
    pub rules: RulesConfig,
    /// `[parse]`: HTML tokenizer limits.
    pub parse: ParseLimits,
    /// `[input]`: record decoding.
    pub input: InputConfig,
    /// `[output]`: output records.
    pub output: OutputOptions,
    /// `[kafka]`: the Kafka worker (`urltree run`).
    pub kafka: KafkaConfig,
}

/// The configuration could not be loaded or is invalid.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file or an override is not valid TOML of the expected shape.
    #[error("invalid config{}: {message}", .origin.as_deref().map(|o| format!(" in {o}")).unwrap_or_default())]
    Parse {
        /// The file or variable at fault, when known.
        origin: Option<String>,
        /// The parser's message.
        message: String,
    },
    /// A value is out of range.
    #[error("invalid config value {field}: {reason}")]
    Invalid {
        /// The dotted field name.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
}

impl Config {
    /// Loads `path` (or defaults when `None`), applies `URLTREE_*` overrides from the process
    /// environment, and validates.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let text = match path {
            Some(path) => std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?,
            None => String::new(),
        };
        let origin = path.map(|p| p.display().to_string());
        Config::from_toml(&text, origin, std::env::vars())
    }

    /// Parses TOML text, applies overrides from `env` (pairs of name and value; names not starting
    /// with `URLTREE_` are ignored) and validates.
    pub fn from_toml(
        text: &str,
        origin: Option<String>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let mut table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    origin: origin.clone(),
                    message: e.to_string(),
                })?;
        for (name, value) in env {
            let Some(path) = name.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            let parts: Vec<String> = path.split("__").map(|p| p.to_ascii_lowercase()).collect();
            if parts.len() < 2 || parts.iter().any(String::is_empty) {
                continue;
            }
            set_path(&mut table, &parts, parse_env_value(&value));
        }
        drop_obsolete(&mut table);
        let config: Config =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    origin,
                    message: e.to_string(),
                })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks the ranges no type can express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |field, reason: &str| {
            Err(ConfigError::Invalid {
                field,
                reason: reason.to_owned(),
            })
        };
        if self.retention.max_docs == 0 {
            return invalid("retention.max_docs", "must be at least 1");
        }
        if self.input.batch_size == 0 || self.input.batch_size > 100_000 {
            return invalid("input.batch_size", "must be between 1 and 100000");
        }
        if self.input.max_record_bytes == 0 {
            return invalid("input.max_record_bytes", "must be positive");
        }
        if self.state.path.as_os_str().is_empty() {
            return invalid("state.path", "must not be empty");
        }
        if self.state.max_wal_bytes < 1 << 20 {
            return invalid("state.max_wal_bytes", "must be at least 1 MiB (1048576)");
        }
        if self.state.hot_counters_bytes < 1 << 20 {
            return invalid(
                "state.hot_counters_bytes",
                "must be at least 1 MiB (1048576)",
            );
        }
        if let Heuristic::StrictSupport(0) = self.tree.heuristic {
            return invalid("tree.heuristic", "strict-support-N needs N >= 1");
        }
        if let Err((field, reason)) = self.tree.template_clusters.validate() {
            return invalid(field, &reason);
        }
        self.kafka
            .validate(self.input.batch_size)
            .map_err(|(field, reason)| ConfigError::Invalid { field, reason })
    }

    /// A copy for display (`urltree config`): secret librdkafka properties (passwords, client
    /// secrets, private keys; [`crate::kafka::config::is_secret`]) read `"<redacted>"`.
    pub fn redacted(&self) -> Config {
        Config {
            kafka: self.kafka.redacted(),
            ..self.clone()
        }
    }

    /// The configuration as TOML (for `urltree config` and docs).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

/// Settings of earlier versions that no longer have an effect, with why: a config that sets one
/// still loads, with a warning naming it.
const OBSOLETE: [(&str, &str, &str); 1] = [(
    "parse",
    "max_memory_bytes",
    "the HTML lexer reads the page in place and keeps no parse buffers (max_html_bytes bounds a page)",
)];

/// Removes the [`OBSOLETE`] settings from `table`, warning of each one found.
fn drop_obsolete(table: &mut toml::Table) {
    for (section, field, why) in OBSOLETE {
        let removed = table
            .get_mut(section)
            .and_then(toml::Value::as_table_mut)
            .and_then(|t| t.remove(field));
        if removed.is_some() {
            tracing::warn!(setting = %format!("{section}.{field}"), "obsolete setting ignored: {why}");
        }
    }
}

fn parse_env_value(value: &str) -> toml::Value {
    let verbatim = || toml::Value::String(value.to_owned());
    let probe = format!("v = {value}");
    match probe.parse::<toml::Table>() {
        // Only a value in canonical form: `0x10` or `1e5` would silently become other text.
        Ok(mut t) => match t.remove("v") {
            Some(parsed) if parsed.to_string() == value => parsed,
            _ => verbatim(),
        },
        Err(_) => verbatim(),
    }
}

fn set_path(table: &mut toml::Table, parts: &[String], value: toml::Value) {
    let (last, parents) = match parts.split_last() {
        Some(split) => split,
        None => return,
    };
    let mut current = table;
    for part in parents {
        let entry = current
            .entry(part.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        match entry {
            toml::Value::Table(t) => current = t,
            _ => return,
        }
    }
    current.insert(last.clone(), value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn empty_is_default() {
        let c = Config::from_toml("", None, env(&[])).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.tree.heuristic.to_string(), "hybrid");
        assert_eq!(c.retention.max_docs, 10_000);
        assert_eq!(c.retention.min_keep, 100);
        assert_eq!(c.retention.max_age_secs, 14 * 24 * 3600);
    }

    #[test]
    fn obsolete_settings_load_and_are_ignored() {
        let c = Config::from_toml(
            "[parse]\nmax_memory_bytes = 4096\nmax_depth = 9\n",
            None,
            env(&[]),
        )
        .unwrap();
        assert_eq!(c.parse.max_depth, 9);
        assert_eq!(
            c,
            Config::from_toml("[parse]\nmax_depth = 9\n", None, env(&[])).unwrap()
        );
        // Other unknown settings are still errors.
        let err = Config::from_toml("[parse]\nmax_memory = 1\n", None, env(&[])).unwrap_err();
        assert!(err.to_string().contains("max_memory"), "{err}");
    }

    #[test]
    fn file_then_env_overrides() {
        let text = "[tree]\nheuristic = \"strict\"\n[retention]\nmax_docs = 50\n[state]\npath = \"/tmp/x\"\n";
        let c = Config::from_toml(
            text,
            None,
            env(&[
                ("URLTREE_TREE__HEURISTIC", "strict-at-domain"),
                ("URLTREE_OUTPUT__BLOCKS", "true"),
                ("URLTREE_STATE__PATH", "/var/lib/urltree"),
                ("OTHER_THING", "1"),
            ]),
        )
        .unwrap();
        assert_eq!(c.tree.heuristic, Heuristic::StrictAtDomain);
        assert_eq!(c.retention.max_docs, 50);
        assert!(c.output.blocks);
        assert_eq!(c.state.path, PathBuf::from("/var/lib/urltree"));
    }

    #[test]
    fn env_values_keep_their_text_and_dotted_names_reach_property_maps() {
        let c = Config::from_toml(
            "",
            None,
            env(&[
                ("URLTREE_KAFKA__PROPERTIES__SASL.PASSWORD", "0x10"),
                ("URLTREE_KAFKA__PROPERTIES__SASL.USERNAME", "1e5"),
                ("URLTREE_KAFKA__PROPERTIES__SOCKET.TIMEOUT.MS", "1_000"),
                ("URLTREE_KAFKA__PRODUCER_PROPERTIES__LINGER.MS", "20"),
                ("URLTREE_KAFKA__GROUP_ID", "\"quoted\""),
                ("URLTREE_INPUT__BATCH_SIZE", "64"),
            ]),
        )
        .unwrap();
        let text = |map: &std::collections::BTreeMap<String, toml::Value>, key: &str| {
            map.get(key).and_then(|v| v.as_str().map(str::to_owned))
        };
        let properties = &c.kafka.properties;
        assert_eq!(text(properties, "sasl.password").as_deref(), Some("0x10"));
        assert_eq!(text(properties, "sasl.username").as_deref(), Some("1e5"));
        assert_eq!(
            text(properties, "socket.timeout.ms").as_deref(),
            Some("1_000")
        );
        assert_eq!(
            c.kafka.producer_properties.get("linger.ms"),
            Some(&toml::Value::Integer(20))
        );
        assert_eq!(c.kafka.group_id, "quoted");
        assert_eq!(c.input.batch_size, 64);
        // A non-canonical number for a numeric field is an error, not a different number.
        let e =
            Config::from_toml("", None, env(&[("URLTREE_INPUT__BATCH_SIZE", "0x40")])).unwrap_err();
        assert!(e.to_string().contains("batch_size"), "{e}");
    }

    #[test]
    fn errors_are_clear() {
        let e = Config::from_toml(
            "[tree]\nheuristic = \"fuzzy\"",
            Some("c.toml".into()),
            env(&[]),
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("c.toml") && msg.contains("unknown heuristic"),
            "{msg}"
        );
        let e = Config::from_toml("[retention]\nmax_dogs = 3", None, env(&[])).unwrap_err();
        assert!(e.to_string().contains("max_dogs"), "{e}");
        let e = Config::from_toml("[retention]\nmax_docs = 0", None, env(&[])).unwrap_err();
        assert!(e.to_string().contains("retention.max_docs"), "{e}");
        let e = Config::from_toml("[state]\nhot_counters_bytes = 100", None, env(&[])).unwrap_err();
        assert!(e.to_string().contains("state.hot_counters_bytes"), "{e}");
        assert!(Config::from_toml("x = [", None, env(&[])).is_err());
    }

    #[test]
    fn links_and_images_options() {
        let c = Config::default();
        assert_eq!(c.output.include_links, Include::Markdown);
        assert_eq!(c.output.include_images, Include::None);
        // Nothing is recorded for a rendering that is not written.
        assert_eq!(c.output.capture(), Capture::default());
        let c = Config::from_toml(
            "[output]\nmarkdown = true\ninclude_links = false\ninclude_images = \"markdown\"\n",
            None,
            env(&[]),
        )
        .unwrap();
        assert_eq!(c.output.include_links, Include::None);
        assert_eq!(
            c.output.capture(),
            Capture {
                links: false,
                images: true
            }
        );
        let c = Config::from_toml(
            "",
            None,
            env(&[
                ("URLTREE_OUTPUT__INCLUDE_LINKS", "all"),
                ("URLTREE_OUTPUT__INCLUDE_IMAGES", "true"),
            ]),
        )
        .unwrap();
        assert_eq!(c.output.include_links, Include::All);
        assert_eq!(c.output.include_images, Include::All);
        assert_eq!(
            c.output.capture(),
            Capture {
                links: true,
                images: true
            }
        );
        let e =
            Config::from_toml("[output]\ninclude_links = \"some\"", None, env(&[])).unwrap_err();
        assert!(
            e.to_string().contains("expected none, markdown or all"),
            "{e}"
        );
        let e = Config::from_toml("[output]\ninclude_images = 3", None, env(&[])).unwrap_err();
        assert!(
            e.to_string()
                .contains("none, markdown or all (or true, false)"),
            "{e}"
        );
    }

    #[test]
    fn template_clusters_are_off_by_default_set_by_file_or_env_and_checked() {
        let c = Config::default();
        assert!(!c.tree.template_clusters.enabled);
        let c = Config::from_toml(
            "[tree.template_clusters]\nenabled = true\nsimilarity = 0.6\n",
            None,
            env(&[("URLTREE_TREE__TEMPLATE_CLUSTERS__MAX_CLUSTERS", "4")]),
        )
        .unwrap();
        let clusters = c.tree.template_clusters;
        assert!(clusters.enabled);
        assert_eq!((clusters.similarity, clusters.max_clusters), (0.6, 4));
        assert_eq!(clusters.min_support, 5);
        let c = Config::from_toml(
            "",
            None,
            env(&[("URLTREE_TREE__TEMPLATE_CLUSTERS__ENABLED", "true")]),
        )
        .unwrap();
        assert!(c.tree.template_clusters.enabled);
        for (text, field) in [
            ("similarity = 0", "tree.template_clusters.similarity"),
            ("similarity = 1.01", "tree.template_clusters.similarity"),
            ("min_support = 0", "tree.template_clusters.min_support"),
            ("max_clusters = 0", "tree.template_clusters.max_clusters"),
            ("max_clusters = 33", "tree.template_clusters.max_clusters"),
        ] {
            let e = Config::from_toml(
                &format!("[tree.template_clusters]\n{text}\n"),
                None,
                env(&[]),
            )
            .unwrap_err();
            assert!(e.to_string().contains(field), "{text}: {e}");
        }
        let e = Config::from_toml(
            "[tree.template_clusters]\nsimilarty = 0.5\n",
            None,
            env(&[]),
        )
        .unwrap_err();
        assert!(e.to_string().contains("similarty"), "{e}");
    }

    #[test]
    fn comments_and_focus_default_to_today_and_are_set_by_file_or_env_and_checked() {
        let c = Config::default();
        assert_eq!(c.tree.prefs(), Prefs::default());
        assert_eq!(
            (c.tree.comments, c.tree.focus),
            (Comments::Drop, Focus::Balanced)
        );
        let c = Config::from_toml(
            "[tree]\ncomments = \"keep\"\nfocus = \"precision\"\n",
            None,
            env(&[]),
        )
        .unwrap();
        assert_eq!(
            (c.tree.comments, c.tree.focus),
            (Comments::Keep, Focus::Precision)
        );
        let c = Config::from_toml(
            "[tree]\ncomments = \"keep\"\n",
            None,
            env(&[
                ("URLTREE_TREE__FOCUS", "recall"),
                ("URLTREE_TREE__COMMENTS", "drop"),
            ]),
        )
        .unwrap();
        assert_eq!(
            c.tree.prefs(),
            Prefs {
                comments: Comments::Drop,
                focus: Focus::Recall
            }
        );
        for (text, word) in [
            ("comments = \"some\"", "some"),
            ("comments = true", "comments"),
            ("focus = \"both\"", "both"),
        ] {
            let e = Config::from_toml(&format!("[tree]\n{text}\n"), None, env(&[])).unwrap_err();
            assert!(e.to_string().contains(word), "{text}: {e}");
        }
        assert_eq!("keep".parse::<Comments>(), Ok(Comments::Keep));
        assert!("both"
            .parse::<Focus>()
            .unwrap_err()
            .contains("precision, balanced or recall"));
    }

    #[test]
    fn printed_config_parses_back() {
        let c = Config::default();
        assert_eq!(Config::from_toml(&c.to_toml(), None, env(&[])).unwrap(), c);
    }
}
