//! Every JSON Schema in `schemas/` is valid draft 2020-12 with a versioned `$id`, every example
//! validates, every record the binary's pipeline produces validates against its schema, and the
//! config schema states every field and default the binary's loader has.

use crate::common::{assert_valid, read_json, root, validator};
use serde_json::Value;
use urltree::config::Config;
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::Source;

#[test]
fn schemas_are_versioned_draft_2020_12() {
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("schemas")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let schema = read_json(&path);
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema",
            "{}",
            path.display()
        );
        let id = schema["$id"].as_str().unwrap_or_default();
        assert!(
            id.starts_with("https://urltree.dev/schemas/") && id.ends_with("/v1.json"),
            "{id}"
        );
        jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        count += 1;
    }
    assert!(
        count >= 4,
        "expected the record and rules schemas, found {count}"
    );
}

#[test]
fn examples_validate() {
    let raw = validator("raw-html.v1.schema.json");
    for name in ["raw-html.json", "raw-html-base64.json"] {
        assert_valid(
            &raw,
            &read_json(&root().join("schemas/examples").join(name)),
            name,
        );
    }
    let clean = validator("clean-text.v1.schema.json");
    assert_valid(
        &clean,
        &read_json(&root().join("schemas/examples/clean-text.json")),
        "clean-text example",
    );
    let dead = validator("dead-letter.v1.schema.json");
    assert_valid(
        &dead,
        &read_json(&root().join("schemas/examples/dead-letter.json")),
        "dead-letter example",
    );
    // The schema rejects what the decoder rejects.
    assert!(!raw.is_valid(&serde_json::json!({"url": "http://a.com"})));
    assert!(!raw.is_valid(&serde_json::json!({"html": "<p>x</p>"})));
}

#[test]
fn pipeline_records_validate() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.state.path = dir.path().to_owned();
    config.output.blocks = true;
    config.output.markdown = true;
    let mut engine = Engine::open(&config).unwrap();
    let raw_schema = validator("raw-html.v1.schema.json");
    let clean_schema = validator("clean-text.v1.schema.json");
    let dead_schema = validator("dead-letter.v1.schema.json");

    let mut records: Vec<Vec<u8>> = Vec::new();
    let sample = urltree::corpus::load(&root().join("samples/rust-books.jsonl.gz")).unwrap();
    for page in sample.iter().take(40) {
        let value: Value = serde_json::from_slice(&page.record).unwrap();
        assert_valid(&raw_schema, &value, "sample record");
        records.push(page.record.clone());
    }
    for example in ["raw-html.json", "raw-html-base64.json"] {
        records.push(std::fs::read(root().join("schemas/examples").join(example)).unwrap());
    }
    // Raw-html records read from a WARC written by warcio, through the library's record source.
    let mut warc = urltree::local::RecordSource::open(&urltree::local::InputSpec {
        path: root().join("tests/data/warc/warcio-cases.warc.gz"),
        url: None,
        base_url: None,
        max_record_bytes: 1 << 24,
        dead_letter_payload_bytes: 1024,
    })
    .unwrap();
    while let Some(item) = warc.next_item().unwrap() {
        if let urltree::local::Item::Record { bytes, .. } = item {
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            assert_valid(&raw_schema, &value, "WARC record");
            assert!(value["warc_record_id"].is_string(), "{value}");
            records.push(bytes);
        }
    }
    records.push(b"{\"url\": 1}".to_vec());
    records.push(b"\xff\xfe not json".to_vec());
    records.push(br#"{"url":"ftp://x.org/","html":""}"#.to_vec());

    let inputs: Vec<Input<'_>> = records
        .iter()
        .enumerate()
        .map(|(i, bytes)| Input::new(bytes, Source::line("sample", i as u64 + 1)))
        .collect();
    let (mut clean, mut dead) = (0, 0);
    for outcome in engine.process_batch(&inputs, None).unwrap() {
        match outcome {
            Outcome::Clean(r) => {
                assert_valid(&clean_schema, &serde_json::to_value(&r).unwrap(), &r.url);
                clean += 1;
            }
            Outcome::Rejected(d) => {
                assert_valid(
                    &dead_schema,
                    &serde_json::to_value(&d).unwrap(),
                    &d.error.message,
                );
                dead += 1;
            }
            Outcome::Duplicate { .. } => {}
        }
    }
    assert_eq!((clean, dead), (45, 3));
}

fn toml_to_json(text: &str) -> Value {
    let table: toml::Table = text.parse().unwrap_or_else(|e| panic!("TOML: {e}\n{text}"));
    serde_json::to_value(table).unwrap()
}

/// `urltree config` with no `URLTREE_*` variables but `env`: the effective config as TOML.
fn binary_config(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_urltree"));
    for (name, _) in std::env::vars() {
        if name.starts_with("URLTREE_") {
            command.env_remove(name);
        }
    }
    command.args(args).arg("config").envs(env.iter().copied());
    command.output().unwrap()
}

/// Walks the schema and the default config together: every field the binary prints is
/// described, with the binary's default; every described field but the optional ones is printed.
fn compare_defaults(schema: &Value, dumped: &Value, path: &str, missing: &mut Vec<String>) {
    let props = schema["properties"].as_object().unwrap();
    let dumped = dumped.as_object().unwrap();
    for (key, value) in dumped {
        let field = format!("{path}{key}");
        let Some(sub) = props.get(key) else {
            panic!("{field} is printed by `urltree config` but not in the schema");
        };
        if sub["type"] == "object" && sub.get("properties").is_some() {
            compare_defaults(sub, value, &format!("{field}."), missing);
        } else {
            assert_eq!(&sub["default"], value, "default of {field}");
        }
    }
    for key in props.keys() {
        if !dumped.contains_key(key) {
            missing.push(format!("{path}{key}"));
        }
    }
}

#[test]
fn config_schema_matches_the_loader() {
    let schema = read_json(&root().join("schemas/config.v1.schema.json"));
    let v = validator("config.v1.schema.json");

    // The binary's defaults validate, and the schema states them.
    let output = binary_config(&[], &[]);
    assert!(output.status.success(), "{output:?}");
    let defaults = toml_to_json(&String::from_utf8(output.stdout).unwrap());
    assert_valid(&v, &defaults, "urltree config (defaults)");
    let mut missing = Vec::new();
    compare_defaults(&schema, &defaults, "", &mut missing);
    // Optional fields without a default are the only ones the binary leaves out.
    missing.sort();
    assert_eq!(
        missing,
        [
            "kafka.group_instance_id",
            "kafka.transactional_id_prefix",
            "rules.file"
        ]
    );

    // The example validates and loads, in the library and in the binary.
    let example = root().join("schemas/examples/config.toml");
    let text = std::fs::read_to_string(&example).unwrap();
    assert_valid(&v, &toml_to_json(&text), "config example");
    let config = Config::from_toml(&text, None, Vec::new()).unwrap();
    assert_eq!(config.kafka.group_instance_id.as_deref(), Some("urltree-0"));
    assert_eq!(config.retention.max_docs, 20_000);
    let output = binary_config(&["--config", example.to_str().unwrap()], &[]);
    assert!(output.status.success(), "{output:?}");
    assert_valid(
        &v,
        &toml_to_json(&String::from_utf8(output.stdout).unwrap()),
        "effective example config",
    );

    // What the loader rejects by type, the schema rejects too.
    for bad in [
        "[tree]\nheuristic = \"fuzzy\"",
        "[tree]\ncomments = \"some\"",
        "[tree]\nfocus = \"both\"",
        "[retention]\nmax_dogs = 3",
        "[retention]\nmax_docs = 0",
        "[input]\ndomain_check = \"maybe\"",
        "[kafka]\ndelivery = \"twice\"",
        "[kafka.properties]\n\"group.id\" = \"x\"",
        "[kafka.consumer_properties]\n\"isolation.level\" = \"read_uncommitted\"",
        "[kafka.producer_properties]\n\"acks\" = 1",
        "[kafka.producer_properties]\n\"enable.idempotence\" = false",
        "[kafka.consumer_properties]\n\"enable.partition.eof\" = true",
        "[kafka.properties]\n\"auto.offset.reset\" = \"latest\"",
        "[kafka.producer_properties]\n\"partitioner\" = \"consistent_random\"",
        "[kafka.properties]\n\"x\" = [1]",
        "[kafka]\nhttp_listen = \"nowhere\"",
        "[surprise]\nx = 1",
    ] {
        assert!(
            Config::from_toml(bad, None, Vec::new()).is_err(),
            "loader accepts {bad}"
        );
        assert!(!v.is_valid(&toml_to_json(bad)), "schema accepts {bad}");
    }
}

#[test]
fn urltree_config_redacts_secrets_and_refuses_guarantee_properties() {
    let output = binary_config(
        &[],
        &[
            ("URLTREE_KAFKA__PROPERTIES__SASL.USERNAME", "urltree"),
            ("URLTREE_KAFKA__PROPERTIES__SASL.PASSWORD", "hunter2-sasl"),
            ("URLTREE_KAFKA__PROPERTIES__SSL.KEY.PASSWORD", "hunter2-key"),
            (
                "URLTREE_KAFKA__PROPERTIES__SSL.KEYSTORE.PASSWORD",
                "hunter2-store",
            ),
            (
                "URLTREE_KAFKA__CONSUMER_PROPERTIES__SASL.OAUTHBEARER.CLIENT.SECRET",
                "hunter2-oauth",
            ),
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        !text.contains("hunter2"),
        "a secret printed in clear:\n{text}"
    );
    let printed = toml_to_json(&text);
    assert_valid(
        &validator("config.v1.schema.json"),
        &printed,
        "redacted config",
    );
    let props = &printed["kafka"]["properties"];
    assert_eq!(props["sasl.username"], "urltree");
    for key in ["sasl.password", "ssl.key.password", "ssl.keystore.password"] {
        assert_eq!(props[key], "<redacted>", "{key}");
    }
    assert_eq!(
        printed["kafka"]["consumer_properties"]["sasl.oauthbearer.client.secret"],
        "<redacted>"
    );

    // A property behind a guarantee is refused, with the guarantee named.
    let output = binary_config(&[], &[("URLTREE_KAFKA__PRODUCER_PROPERTIES__ACKS", "1")]);
    assert!(!output.status.success(), "acks=1 accepted");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("kafka.producer_properties")
            && stderr.contains("acks")
            && stderr.contains("in-sync replicas"),
        "{stderr}"
    );
}
