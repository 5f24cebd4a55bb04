//! The rules-file format: the shipped default set against the JSON Schema, parse errors, load errors.

use crate::urlkey::{QueryRules, RulesError, RULES_SCHEMA_ID};
use serde_json::{json, Value};
use std::path::PathBuf;

fn project_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read_json(rel: &str) -> Value {
    let text = std::fs::read_to_string(project_file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn validator() -> jsonschema::Validator {
    let schema = read_json("schemas/url-rules.v1.schema.json");
    jsonschema::meta::validate(&schema).expect("schema is valid draft 2020-12");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$id"], RULES_SCHEMA_ID);
    jsonschema::validator_for(&schema).expect("schema compiles")
}

#[test]
fn shipped_default_rules_validate_against_the_schema() {
    let v = validator();
    let rules = read_json("rules/default.json");
    let errors: Vec<String> = v
        .iter_errors(&rules)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(rules["version"], 1);
    // The embedded copy is the shipped file, and every rule compiled.
    let text = std::fs::read_to_string(project_file("rules/default.json")).unwrap();
    let parsed = QueryRules::from_json(&text).unwrap();
    let default = QueryRules::paper_default();
    assert_eq!(parsed.len(), default.len());
    assert_eq!(default.len(), rules["rules"].as_array().unwrap().len());
    assert!(default.len() > 100, "{}", default.len());
    // The paper's example rule is there, no rule applies to every site, and the strip list is the
    // file's.
    assert!(default
        .rules()
        .iter()
        .any(|r| r.pattern() == r"^https?://abcnews\.go\.com/" && r.keep() == ["id"]));
    assert!(default.rules().iter().all(|r| r.pattern() != "^https?://"));
    let strip: Vec<&str> = rules["strip"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(default.strip(), strip);
    assert!(strip.contains(&"utm_*") && strip.contains(&"fbclid") && strip.contains(&"jsessionid"));
}

#[test]
fn a_file_without_strip_takes_the_default_list_and_its_own_list_replaces_it() {
    let plain = QueryRules::from_json(r#"{"version": 1, "rules": []}"#).unwrap();
    assert_eq!(plain.strip(), QueryRules::paper_default().strip());
    let own =
        QueryRules::from_json(r#"{"version": 1, "strip": ["ref", "x_*"], "rules": []}"#).unwrap();
    assert_eq!(own.strip(), ["ref", "x_*"]);
    let none = QueryRules::from_json(r#"{"version": 1, "strip": [], "rules": []}"#).unwrap();
    assert!(none.strip().is_empty());
    // The list round-trips through the file format.
    assert_eq!(
        QueryRules::from_json(&own.to_json()).unwrap().strip(),
        own.strip()
    );
}

#[test]
fn schema_and_parser_agree_on_invalid_files() {
    let v = validator();
    let invalid = [
        json!({"rules": []}),
        json!({"version": 2, "rules": []}),
        json!({"version": 1}),
        json!({"version": 1, "rules": [{"pattern": "x"}]}),
        json!({"version": 1, "rules": [{"keep": ["id"]}]}),
        json!({"version": 1, "rules": [{"pattern": "x", "keep": ["id"], "extra": 1}]}),
        json!({"version": 1, "rules": [], "other": true}),
        json!({"version": 1, "rules": [{"pattern": "", "keep": ["id"]}]}),
        json!({"version": 1, "rules": [{"pattern": "x", "keep": [""]}]}),
        json!({"version": 1, "rules": [{"pattern": "x", "keep": "id"}]}),
        json!({"version": 1, "strip": [""], "rules": []}),
        json!({"version": 1, "strip": ["*"], "rules": []}),
        json!({"version": 1, "strip": "utm_*", "rules": []}),
    ];
    for doc in &invalid {
        assert!(!v.is_valid(doc), "schema accepts {doc}");
        assert!(
            QueryRules::from_json(&doc.to_string()).is_err(),
            "parser accepts {doc}"
        );
    }
    let valid = json!({"$schema": RULES_SCHEMA_ID, "version": 1, "comment": "c",
        "rules": [{"pattern": "^https?://a\\.com/", "keep": ["id", "_cid_"], "comment": "x"}, {"pattern": "b", "keep": []}]});
    assert!(v.is_valid(&valid));
    let rules = QueryRules::from_json(&valid.to_string()).unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules.rules()[0].comment(), Some("x"));
}

#[test]
fn invalid_regex_names_the_rule_index() {
    let text = r#"{"version": 1, "rules": [
        {"pattern": "^https?://ok\\.com/", "keep": ["id"]},
        {"pattern": "^https?://broken(\\.com/", "keep": ["id"]}
    ]}"#;
    match QueryRules::from_json(text) {
        Err(RulesError::InvalidPattern {
            index,
            pattern,
            reason,
        }) => {
            assert_eq!(index, 1);
            assert_eq!(pattern, r"^https?://broken(\.com/");
            assert!(!reason.is_empty());
        }
        other => panic!("{other:?}"),
    }
    let msg = QueryRules::from_json(text).unwrap_err().to_string();
    assert!(msg.starts_with("rule 1: invalid pattern"), "{msg}");
}

#[test]
fn version_and_json_errors() {
    assert!(matches!(
        QueryRules::from_json(r#"{"version": 3, "rules": []}"#),
        Err(RulesError::UnsupportedVersion(3))
    ));
    assert!(matches!(
        QueryRules::from_json("{"),
        Err(RulesError::Json(_))
    ));
    assert!(matches!(
        QueryRules::from_json(r#"{"version":1,"rules":[{"pattern":"a","keep":[""]}]}"#),
        Err(RulesError::EmptyKeepName { index: 0 })
    ));
}

#[test]
fn load_names_the_path() {
    let dir = std::env::temp_dir().join(format!("urlkey-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.json");
    let e = QueryRules::load(&missing).unwrap_err();
    assert!(matches!(e, RulesError::Io { .. }));
    assert!(e.to_string().contains("missing.json"), "{e}");

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version": 1, "rules": [{"pattern": "[", "keep": ["id"]}]}"#,
    )
    .unwrap();
    let e = QueryRules::load(&bad).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("bad.json") && msg.contains("rule 0"), "{msg}");
    match e {
        RulesError::File { source, .. } => assert!(matches!(
            *source,
            RulesError::InvalidPattern { index: 0, .. }
        )),
        other => panic!("{other:?}"),
    }

    let good = dir.join("good.json");
    std::fs::write(&good, QueryRules::paper_default().to_json()).unwrap();
    let loaded = QueryRules::load(&good).unwrap();
    assert_eq!(loaded.len(), QueryRules::paper_default().len());
    // to_json output validates against the schema too.
    let v = validator();
    assert!(v.is_valid(
        &serde_json::from_str::<Value>(&std::fs::read_to_string(&good).unwrap()).unwrap()
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
