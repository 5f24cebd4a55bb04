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
    // Bytes that are no UTF-8 inside a string are marked, so that only the field holding them
    // goes, not the page.
    let marked;
    let bytes = if std::str::from_utf8(bytes).is_ok() {
        bytes
    } else {
        marked = mark_invalid_utf8(bytes);
        marked.as_bytes()
    };
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
            match headers(value, &mut warnings) {
                Ok(h) => wire.headers = h,
                Err(kind) => warnings.push(dropped(field, &kind)),
            }
            continue;
        }
        if field == "warnings" {
            wire.warnings = carried_warnings(value, &mut warnings);
            continue;
        }
        let text = match value {
            Value::Null => None,
            Value::String(s) if s.contains(NOT_UTF8) => {
                if REQUIRED.contains(&field) {
                    return Err(RecordError::InvalidField {
                        field,
                        reason: "is not valid UTF-8".to_owned(),
                    });
                }
                warnings.push(dropped(field, "is not valid UTF-8"));
                continue;
            }
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
const FIELDS: [&str; 11] = [
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
    "warnings",
];

/// The fields without which there is no page.
const REQUIRED: [&str; 3] = ["url", "html", "html_base64"];

/// The warning for an optional field that was dropped.
pub(super) fn dropped(field: &str, why: &str) -> String {
    format!("field `{field}` {why}: dropped")
}

/// Stands for bytes that are no UTF-8 (a noncharacter no crawler writes).
const NOT_UTF8: char = '\u{10FFFE}';

/// The record's text, every run of bytes that is no UTF-8 replaced by [`NOT_UTF8`].
fn mark_invalid_utf8(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            text.push(NOT_UTF8);
        }
    }
    text
}

/// `headers` as a map of strings, or why it is not one. A header given as a list of strings
/// (a repeated header) is one value, joined by `, ` as HTTP joins them; a header of another type,
/// or not valid UTF-8, is dropped alone, with a warning in `warnings` that names it.
fn headers(
    value: Value,
    warnings: &mut Vec<String>,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let map = match value {
        Value::Null => return Ok(None),
        Value::Object(map) => map,
        other => return Err(format!("is {}", kind_of(&other))),
    };
    let mut headers = BTreeMap::new();
    for (name, value) in map {
        let text = match value {
            Value::String(s) => Some(s),
            Value::Array(items) if items.iter().all(Value::is_string) => Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            other => {
                warnings.push(dropped(
                    "headers",
                    &format!("has {} for {name:?}", kind_of(&other)),
                ));
                None
            }
        };
        match text {
            Some(text) if text.contains(NOT_UTF8) || name.contains(NOT_UTF8) => {
                warnings.push(dropped(
                    "headers",
                    &format!("has a value for {name:?} that is not valid UTF-8"),
                ))
            }
            Some(text) => {
                headers.insert(name, text);
            }
            None => {}
        }
    }
    Ok((!headers.is_empty()).then_some(headers))
}

/// `warnings` as a list of strings; an item of another type, or not valid UTF-8, is dropped
/// alone, a `warnings` that is no list whole, each with a warning of its own.
fn carried_warnings(value: Value, warnings: &mut Vec<String>) -> Option<Vec<String>> {
    let items = match value {
        Value::Null => return None,
        Value::Array(items) => items,
        other => {
            warnings.push(dropped("warnings", &format!("is {}", kind_of(&other))));
            return None;
        }
    };
    let mut carried = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::String(s) if !s.contains(NOT_UTF8) => carried.push(s),
            Value::String(_) => {
                warnings.push(dropped("warnings", "has an item that is not valid UTF-8"));
            }
            other => {
                warnings.push(dropped("warnings", &format!("has {}", kind_of(&other))));
            }
        }
    }
    Some(carried)
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
    fn invalid_utf8_drops_the_field_that_holds_it_and_a_list_valued_header_is_joined() {
        let (wire, warnings) = read(
            b"{\"url\":\"http://a.com\",\"html\":\"<p>x</p>\",\"title\":\"caf\xe9\",\"headers\":{\"Set-Cookie\":[\"a=1\",\"b=2\"],\"Content-Type\":\"text/html\",\"X\":\"\xff\"}}",
        )
        .unwrap();
        assert_eq!(wire.title, None);
        assert_eq!(wire.html.as_deref(), Some("<p>x</p>"));
        let headers = wire.headers.unwrap();
        assert_eq!(headers["Set-Cookie"], "a=1, b=2");
        assert_eq!(headers["Content-Type"], "text/html");
        assert!(!headers.contains_key("X"));
        assert_eq!(
            warnings,
            [
                "field `title` is not valid UTF-8: dropped",
                "field `headers` has a value for \"X\" that is not valid UTF-8: dropped",
            ]
        );
        let e = read(b"{\"url\":\"http://a.com/\xff\",\"html\":\"x\"}").unwrap_err();
        assert!(e.to_string().contains("url"), "{e}");
    }

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
