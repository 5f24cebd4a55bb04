//! Every JSON Schema in `schemas/` is valid draft 2020-12 with a versioned `$id`, every example
//! validates, and every record the binary's pipeline produces validates against its schema.

use std::path::{Path, PathBuf};

use serde_json::Value;
use urltree::config::Config;
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::Source;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn validator(name: &str) -> jsonschema::Validator {
    let schema = read_json(&root().join("schemas").join(name));
    jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

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
    assert_eq!((clean, dead), (42, 3));
}
