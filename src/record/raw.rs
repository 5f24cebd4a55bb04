//! The raw-html input record: decoding, validation and charset handling.

use std::collections::BTreeMap;

use base64::Engine as _;
use thiserror::Error;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::wire::Wire;
use super::ErrorKind;

/// Why an input record was rejected; `kind()` gives the dead-letter kind.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RecordError {
    /// Not JSON, or not an object of the expected shape.
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// A required field is absent or empty.
    #[error("missing field `{0}`")]
    MissingField(&'static str),
    /// A field has an invalid value.
    #[error("invalid field `{field}`: {reason}")]
    InvalidField {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The record is larger than allowed.
    #[error("record is {bytes} bytes, over the limit of {limit}")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// `html_base64` or its charset could not be decoded.
    #[error("cannot decode html_base64: {0}")]
    BadEncoding(String),
}

impl RecordError {
    /// The dead-letter kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RecordError::InvalidJson(_) => ErrorKind::InvalidJson,
            RecordError::MissingField(_) => ErrorKind::MissingField,
            RecordError::InvalidField { .. } => ErrorKind::InvalidField,
            RecordError::TooLarge { .. } => ErrorKind::TooLarge,
            RecordError::BadEncoding(_) => ErrorKind::BadEncoding,
        }
    }
}

/// A decoded, validated input page.
///
/// Guarantees: `url` is non-empty; `html` is valid UTF-8; `fetched_at` parsed as RFC 3339 when
/// present. The HTML's own size limit is the tokenizer's ([`crate::blocks::ParseLimits`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RawPage {
    /// The requested URL.
    pub url: String,
    /// The URL after redirects, when known.
    pub response_url: Option<String>,
    /// The page title, when known.
    pub title: Option<String>,
    /// The page's HTML, decoded to UTF-8.
    pub html: String,
    /// When the crawler fetched the page.
    pub fetched_at: Option<OffsetDateTime>,
    /// The registrable domain the producer keyed the record by, when given.
    pub domain: Option<String>,
}

impl RawPage {
    /// The URL the key is built from: the response URL if known, else the request URL.
    pub fn effective_url(&self) -> &str {
        self.response_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or(&self.url)
    }

    /// Decodes one JSON record of at most `max_record_bytes`; never panics on arbitrary bytes.
    pub fn decode(bytes: &[u8], max_record_bytes: usize) -> Result<RawPage, RecordError> {
        check_size(bytes, max_record_bytes)?;
        // The one-pass reader takes well-formed records; serde_json judges the rest, so errors
        // are serde_json's own.
        let wire = match Wire::parse(bytes) {
            Some(wire) => wire,
            None => decode_wire_with_serde(bytes)?,
        };
        RawPage::from_wire(wire)
    }

    /// [`RawPage::decode`] with serde_json reading every record: the reference it must equal.
    #[cfg(test)]
    pub(crate) fn decode_with_serde(
        bytes: &[u8],
        max_record_bytes: usize,
    ) -> Result<RawPage, RecordError> {
        check_size(bytes, max_record_bytes)?;
        RawPage::from_wire(decode_wire_with_serde(bytes)?)
    }

    /// Validates the record's fields.
    fn from_wire(wire: Wire) -> Result<RawPage, RecordError> {
        let url = wire
            .url
            .filter(|u| !u.trim().is_empty())
            .ok_or(RecordError::MissingField("url"))?;
        let html = match (wire.html, wire.html_base64) {
            (Some(html), _) => html,
            (None, Some(encoded)) => {
                decode_base64_html(&encoded, wire.charset.as_deref(), wire.headers.as_ref())?
            }
            (None, None) => return Err(RecordError::MissingField("html")),
        };
        let fetched_at = match wire.fetched_at.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
                RecordError::InvalidField {
                    field: "fetched_at",
                    reason: format!("{text:?} is not RFC 3339: {e}"),
                }
            })?),
        };
        Ok(RawPage {
            url,
            response_url: wire.response_url,
            title: wire.title,
            html,
            fetched_at,
            domain: wire.domain.filter(|d| !d.trim().is_empty()),
        })
    }
}

/// A record over `max_record_bytes` is refused before any parsing.
fn check_size(bytes: &[u8], max_record_bytes: usize) -> Result<(), RecordError> {
    if bytes.len() > max_record_bytes {
        return Err(RecordError::TooLarge {
            bytes: bytes.len(),
            limit: max_record_bytes,
        });
    }
    Ok(())
}

/// The record's fields as serde_json reads them, or its error as a [`RecordError`].
fn decode_wire_with_serde(bytes: &[u8]) -> Result<Wire, RecordError> {
    serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        // Well-formed JSON of the wrong shape: name the field problem, not the syntax.
        serde_json::error::Category::Data => RecordError::InvalidField {
            field: "record",
            reason: e.to_string(),
        },
        _ => RecordError::InvalidJson(e.to_string()),
    })
}

fn decode_base64_html(
    encoded: &str,
    charset: Option<&str>,
    headers: Option<&BTreeMap<String, String>>,
) -> Result<String, RecordError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|e| RecordError::BadEncoding(format!("invalid base64: {e}")))?;
    let label = charset
        .map(str::to_owned)
        .or_else(|| headers.and_then(content_type_charset));
    let encoding = match label {
        Some(label) => encoding_rs::Encoding::for_label(label.trim().as_bytes())
            .ok_or_else(|| RecordError::BadEncoding(format!("unknown charset {label:?}")))?,
        None => encoding_rs::UTF_8,
    };
    // A byte-order mark overrides the declared charset, as in browsers; malformed sequences become
    // U+FFFD rather than failing the page.
    let (text, _, _) = encoding.decode(&bytes);
    Ok(text.into_owned())
}

fn content_type_charset(headers: &BTreeMap<String, String>) -> Option<String> {
    let value = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))?
        .1;
    value.split(';').find_map(|part| {
        let (name, val) = part.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| val.trim().trim_matches('"').to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode(s: &str) -> Result<RawPage, RecordError> {
        RawPage::decode(s.as_bytes(), 1 << 20)
    }

    #[test]
    fn minimal_record() {
        let p = decode(r#"{"url":"http://a.com/x","html":"<p>hi</p>","extra":1}"#).unwrap();
        assert_eq!(p.effective_url(), "http://a.com/x");
        assert_eq!(p.html, "<p>hi</p>");
        assert!(p.fetched_at.is_none());
    }

    #[test]
    fn response_url_wins() {
        let p = decode(r#"{"url":"http://a.com/x","response_url":"http://b.com/y","html":""}"#)
            .unwrap();
        assert_eq!(p.effective_url(), "http://b.com/y");
    }

    #[test]
    fn errors_have_kinds() {
        assert_eq!(decode("{").unwrap_err().kind(), ErrorKind::InvalidJson);
        assert_eq!(decode("[1]").unwrap_err().kind(), ErrorKind::InvalidField);
        assert_eq!(
            decode(r#"{"html":"x"}"#).unwrap_err(),
            RecordError::MissingField("url")
        );
        assert_eq!(
            decode(r#"{"url":" ","html":"x"}"#).unwrap_err(),
            RecordError::MissingField("url")
        );
        assert_eq!(
            decode(r#"{"url":"http://a.com"}"#).unwrap_err(),
            RecordError::MissingField("html")
        );
        assert_eq!(
            decode(r#"{"url":5,"html":"x"}"#).unwrap_err().kind(),
            ErrorKind::InvalidField
        );
        let e =
            decode(r#"{"url":"http://a.com","html":"x","fetched_at":"yesterday"}"#).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidField);
        assert!(e.to_string().contains("fetched_at"));
    }

    #[test]
    fn record_limit_applies() {
        let big = format!(r#"{{"url":"http://a.com","html":"{}"}}"#, "x".repeat(200));
        let err = RawPage::decode(big.as_bytes(), 100).unwrap_err();
        assert_eq!(
            err,
            RecordError::TooLarge {
                bytes: big.len(),
                limit: 100
            }
        );
        assert_eq!(err.kind(), ErrorKind::TooLarge);
    }

    #[test]
    fn base64_with_charsets() {
        let latin1 = base64::engine::general_purpose::STANDARD.encode(b"caf\xe9");
        let rec =
            format!(r#"{{"url":"http://a.com","html_base64":"{latin1}","charset":"iso-8859-1"}}"#);
        assert_eq!(decode(&rec).unwrap().html, "café");
        let rec = format!(
            r#"{{"url":"http://a.com","html_base64":"{latin1}","headers":{{"Content-Type":"text/html; charset=\"windows-1252\""}}}}"#
        );
        assert_eq!(decode(&rec).unwrap().html, "café");
        let sjis = base64::engine::general_purpose::STANDARD.encode(b"\x93\xfa\x96\x7b");
        let rec =
            format!(r#"{{"url":"http://a.com","html_base64":"{sjis}","charset":"shift_jis"}}"#);
        assert_eq!(decode(&rec).unwrap().html, "日本");
        // Undeclared bytes are read as UTF-8 with replacement, never rejected.
        let rec = format!(r#"{{"url":"http://a.com","html_base64":"{latin1}"}}"#);
        assert_eq!(decode(&rec).unwrap().html, "caf\u{FFFD}");
        let rec =
            format!(r#"{{"url":"http://a.com","html_base64":"{latin1}","charset":"klingon"}}"#);
        assert_eq!(decode(&rec).unwrap_err().kind(), ErrorKind::BadEncoding);
        let rec = r#"{"url":"http://a.com","html_base64":"!!!"}"#;
        assert_eq!(decode(rec).unwrap_err().kind(), ErrorKind::BadEncoding);
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
            let _ = RawPage::decode(&bytes, 1 << 20);
        }

        #[test]
        fn random_records_never_panic(url in ".{0,40}", html in ".{0,200}", b64 in "[A-Za-z0-9+/=]{0,64}",
                                      charset in "[a-z0-9_-]{0,12}", when in ".{0,30}") {
            let rec = serde_json::json!({"url": url, "html_base64": b64, "charset": charset, "fetched_at": when});
            let _ = RawPage::decode(rec.to_string().as_bytes(), 1 << 20);
            let rec = serde_json::json!({"url": url, "html": html, "fetched_at": when});
            let _ = RawPage::decode(rec.to_string().as_bytes(), 1 << 20);
        }
    }
}
