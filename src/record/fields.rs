//! The raw-html record's fields read from any JSON object, for records the one-pass reader
//! (`wire`) does not take: the required fields must be right, an optional field of the wrong
//! type is dropped with a warning that names it, so the page is kept.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::raw::RecordError;
use super::wire::Wire;

/// Every member of a JSON object in order, repeated names included (a map would keep one).
struct Members(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Members, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// The fields of a record, and a warning for each optional field dropped for its type. Errors:
/// not JSON (`InvalidJson`), not an object or a required field of the wrong type
/// (`InvalidField`, naming it), a known field given twice (`InvalidField`).
pub(super) fn read(bytes: &[u8]) -> Result<(Wire, Vec<String>), RecordError> {
    let Members(members) = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => RecordError::InvalidField {
            field: "record",
            reason: "not a JSON object".to_owned(),
        },
        _ => RecordError::InvalidJson(e.to_string()),
    })?;
    let mut wire = Wire::default();
    let mut warnings = Vec::new();
    let mut seen: Vec<&'static str> = Vec::new();
    for (name, value) in members {
        let Some(field) = FIELDS.iter().copied().find(|f| *f == name) else {
            continue;
        };
        if seen.contains(&field) {
            return Err(RecordError::InvalidField {
                field,
                reason: "given twice".to_owned(),
            });
        }
        seen.push(field);
        if field == "headers" {
            match headers(value) {
                Ok(h) => wire.headers = h,
                Err(kind) => warnings.push(dropped(field, &kind)),
            }
            continue;
        }
        let text = match value {
            Value::Null => None,
            Value::String(s) => Some(s),
            other => {
                if REQUIRED.contains(&field) {
                    return Err(RecordError::InvalidField {
                        field,
                        reason: format!("must be a string, not {}", kind_of(&other)),
                    });
                }
                warnings.push(dropped(field, &format!("is {}", kind_of(&other))));
                continue;
            }
        };
        match field {
            "url" => wire.url = text,
            "response_url" => wire.response_url = text,
            "title" => wire.title = text,
            "html" => wire.html = text,
            "html_base64" => wire.html_base64 = text,
            "charset" => wire.charset = text,
            "fetched_at" => wire.fetched_at = text,
            "domain" => wire.domain = text,
            "warc_record_id" => wire.warc_record_id = text,
            _ => {}
        }
    }
    Ok((wire, warnings))
}

/// The fields the record knows.
const FIELDS: [&str; 10] = [
    "url",
    "response_url",
    "title",
    "html",
    "html_base64",
    "charset",
    "fetched_at",
    "domain",
    "headers",
    "warc_record_id",
];

/// The fields without which there is no page.
const REQUIRED: [&str; 3] = ["url", "html", "html_base64"];

/// The warning for an optional field that was dropped.
pub(super) fn dropped(field: &str, why: &str) -> String {
    format!("field `{field}` {why}: dropped")
}

/// `headers` as a map of strings, or why it is not one.
fn headers(value: Value) -> Result<Option<BTreeMap<String, String>>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Object(map) => map
            .into_iter()
            .map(|(name, value)| match value {
                Value::String(s) => Ok((name, s)),
                other => Err(format!("has {} for {name:?}", kind_of(&other))),
            })
            .collect::<Result<BTreeMap<_, _>, _>>()
            .map(Some),
        other => Err(format!("is {}", kind_of(&other))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_of_the_wrong_type_are_dropped_and_named() {
        let (wire, warnings) = read(
            br#"{"url":"http://a.com","html":"<p>x</p>","title":5,"headers":{"Content-Type":7},"domain":["a"],"x":{}}"#,
        )
        .unwrap();
        assert_eq!(wire.url.as_deref(), Some("http://a.com"));
        assert_eq!((wire.title, wire.headers, wire.domain), (None, None, None));
        assert_eq!(
            warnings,
            [
                "field `title` is a number: dropped",
                "field `headers` has a number for \"Content-Type\": dropped",
                "field `domain` is an array: dropped",
            ]
        );
    }

    #[test]
    fn required_fields_and_repeats_are_errors_that_name_the_field() {
        let cases: [(&[u8], &str); 4] = [
            (
                br#"{"url":5,"html":"x"}"#,
                "invalid field `url`: must be a string, not a number",
            ),
            (
                br#"{"url":"u","html":{}}"#,
                "invalid field `html`: must be a string, not an object",
            ),
            (
                br#"{"url":"u","url":"v","html":"x"}"#,
                "invalid field `url`: given twice",
            ),
            (b"[1]", "invalid field `record`: not a JSON object"),
        ];
        for (record, message) in cases {
            assert_eq!(read(record).unwrap_err().to_string(), message);
        }
        assert!(matches!(read(b"{"), Err(RecordError::InvalidJson(_))));
    }
}
