//! The raw-html input record: decoding, validation and charset handling.

use base64::Engine as _;
use thiserror::Error;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::charset::{self, Declared, EncodingInfo};
use super::fields;
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
    /// `html_base64` is not base64.
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
/// Guarantees: `url` is non-empty; `html` is valid UTF-8, decoded from `html_base64` in the
/// encoding `encoding` names; `fetched_at` parsed as RFC 3339 when present. The HTML's own size
/// limit is the tokenizer's ([`crate::blocks::ParseLimits`]).
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
    /// The encoding the HTML was decoded from and how it was chosen.
    pub encoding: EncodingInfo,
    /// When the crawler fetched the page.
    pub fetched_at: Option<OffsetDateTime>,
    /// Optional fields dropped for their type or value, each named with the reason.
    pub warnings: Vec<String>,
    /// Warnings the producer attached to the record (its `warnings` field, e.g. a WARC
    /// reader's note that a record's `Content-Length` was short): carried to the output's
    /// `warnings`, before the ones of decoding and processing.
    pub carried_warnings: Vec<String>,
    /// The registrable domain the producer keyed the record by, when given.
    pub domain: Option<String>,
    /// The `WARC-Record-ID` of the WARC record the page was read from, when it was.
    pub warc_record_id: Option<String>,
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
    /// A UTF-8 byte-order mark before the record is skipped. An optional field of the wrong type
    /// (or a `fetched_at` that is not RFC 3339) is dropped and named in `warnings`.
    pub fn decode(bytes: &[u8], max_record_bytes: usize) -> Result<RawPage, RecordError> {
        check_size(bytes, max_record_bytes)?;
        let bytes = skip_bom(bytes);
        // The one-pass reader takes well-formed records; serde_json reads the rest, member by
        // member where a field has the wrong type, so syntax errors are serde_json's own.
        let (wire, warnings) = match Wire::parse(bytes) {
            Some(wire) => (wire, Vec::new()),
            None => decode_wire_with_serde(bytes)?,
        };
        RawPage::from_wire(wire, warnings)
    }

    /// [`RawPage::decode`] with serde_json reading every record: the reference it must equal.
    #[cfg(test)]
    pub(crate) fn decode_with_serde(
        bytes: &[u8],
        max_record_bytes: usize,
    ) -> Result<RawPage, RecordError> {
        check_size(bytes, max_record_bytes)?;
        let (wire, warnings) = decode_wire_with_serde(skip_bom(bytes))?;
        RawPage::from_wire(wire, warnings)
    }

    /// Validates the record's fields.
    fn from_wire(wire: Wire, mut warnings: Vec<String>) -> Result<RawPage, RecordError> {
        let url = wire
            .url
            .filter(|u| !u.trim().is_empty())
            .ok_or(RecordError::MissingField("url"))?;
        let (html, encoding) = match (wire.html, wire.html_base64) {
            (Some(html), _) => (html, EncodingInfo::text()),
            (None, Some(encoded)) => {
                let bytes = decode_base64(&encoded)?;
                // The host's top-level domain steers the detector, as in browsers.
                let page_url = wire.response_url.as_deref().unwrap_or(&url);
                let host = url::Url::parse(page_url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned));
                let declared = Declared {
                    charset: wire.charset.as_deref(),
                    headers: wire.headers.as_ref(),
                    host: host.as_deref(),
                };
                charset::decode(&bytes, declared)
            }
            (None, None) => return Err(RecordError::MissingField("html")),
        };
        let fetched_at = match wire.fetched_at.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => match OffsetDateTime::parse(text, &Rfc3339) {
                Ok(time) => Some(time),
                Err(e) => {
                    let why = format!("{text:?} is not RFC 3339 (a time with its offset): {e}");
                    warnings.push(fields::dropped("fetched_at", &why));
                    None
                }
            },
        };
        Ok(RawPage {
            url,
            response_url: wire.response_url,
            title: wire.title,
            html,
            encoding,
            fetched_at,
            domain: wire.domain.filter(|d| !d.trim().is_empty()),
            warc_record_id: wire.warc_record_id.filter(|id| !id.trim().is_empty()),
            warnings,
            carried_warnings: wire.warnings.unwrap_or_default(),
        })
    }
}

/// The record without a UTF-8 byte-order mark in front (editors on some systems write one).
fn skip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
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

/// The record's fields as serde_json reads them; when a field has the wrong type, as
/// [`fields::read`] reads them (optional ones dropped with a warning).
fn decode_wire_with_serde(bytes: &[u8]) -> Result<(Wire, Vec<String>), RecordError> {
    match serde_json::from_slice(bytes) {
        Ok(wire) => Ok((wire, Vec::new())),
        Err(_) => fields::read(bytes),
    }
}

/// The bytes of a base64 text as crawlers write it: the standard or the URL-safe alphabet, with or
/// without padding, with line breaks or other ASCII whitespace anywhere (MIME wraps at 76).
fn decode_base64(encoded: &str) -> Result<Vec<u8>, RecordError> {
    use base64::alphabet;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurposeConfig =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
    const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);
    let compact: Vec<u8>;
    let mut text = encoded.as_bytes();
    if text.iter().any(u8::is_ascii_whitespace) {
        compact = text
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        text = &compact;
    }
    let engine = if text.iter().any(|&b| b == b'-' || b == b'_') {
        &URL_SAFE
    } else {
        &STANDARD
    };
    engine
        .decode(text)
        .map_err(|e| RecordError::BadEncoding(format!("invalid base64: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::EncodingSource;
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
        let e = decode(r#"{"url":5,"html":"x"}"#).unwrap_err().to_string();
        assert!(e.contains("`url`"), "the message names the field: {e}");
    }

    #[test]
    fn bad_optional_fields_are_dropped_and_the_page_kept() {
        for (record, field) in [
            (
                r#"{"url":"http://a.com","html":"x","fetched_at":"yesterday"}"#,
                "fetched_at",
            ),
            (
                r#"{"url":"http://a.com","html":"x","fetched_at":"2024-05-01T10:00:00"}"#,
                "fetched_at",
            ),
            (
                r#"{"url":"http://a.com","html":"x","title":{"en":"T"}}"#,
                "title",
            ),
            (
                r#"{"url":"http://a.com","html":"x","headers":"text/html"}"#,
                "headers",
            ),
            (
                r#"{"url":"http://a.com","html":"x","headers":{"Age":3}}"#,
                "headers",
            ),
            (
                r#"{"url":"http://a.com","html":"x","response_url":false}"#,
                "response_url",
            ),
        ] {
            let page = decode(record).unwrap_or_else(|e| panic!("{record}: {e}"));
            assert_eq!(page.html, "x");
            assert_eq!(page.warnings.len(), 1, "{record}");
            assert!(
                page.warnings[0].starts_with(&format!("field `{field}`")),
                "{:?}",
                page.warnings
            );
            assert!(page.warnings[0].ends_with("dropped"), "{:?}", page.warnings);
        }
        let page =
            decode(r#"{"url":"http://a.com","html":"x","fetched_at":"2024-05-01T10:00:00Z"}"#)
                .unwrap();
        assert!(page.fetched_at.is_some() && page.warnings.is_empty());
    }

    #[test]
    fn warnings_given_with_the_record_are_carried_and_a_bad_item_dropped_alone() {
        let page =
            decode(r#"{"url":"http://a.com","html":"x","warnings":["short block"]}"#).unwrap();
        assert_eq!(page.carried_warnings, ["short block"]);
        assert!(page.warnings.is_empty());
        for (record, carried) in [
            (
                r#"{"url":"http://a.com","html":"x","warnings":[3,"b"]}"#,
                vec!["b"],
            ),
            (
                r#"{"url":"http://a.com","html":"x","warnings":"a"}"#,
                vec![],
            ),
        ] {
            let page = decode(record).unwrap_or_else(|e| panic!("{record}: {e}"));
            assert_eq!(page.carried_warnings, carried, "{record}");
            assert_eq!(page.warnings.len(), 1, "{record}");
            assert!(page.warnings[0].starts_with("field `warnings`"));
            assert_eq!(
                RawPage::decode_with_serde(record.as_bytes(), 1 << 20).unwrap(),
                page
            );
        }
        let plain = decode(r#"{"url":"http://a.com","html":"x","warnings":null}"#).unwrap();
        assert!(plain.carried_warnings.is_empty() && plain.warnings.is_empty());
    }

    #[test]
    fn a_byte_order_mark_before_a_record_is_skipped() {
        let record = b"\xEF\xBB\xBF{\"url\":\"http://a.com\",\"html\":\"<p>x</p>\"}";
        let page = RawPage::decode(record, 1 << 20).unwrap();
        assert_eq!(page.html, "<p>x</p>");
        assert!(page.warnings.is_empty());
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
        // Undeclared bytes are detected, never rejected; so are bytes with an unknown label.
        let rec = format!(r#"{{"url":"http://a.com","html_base64":"{latin1}"}}"#);
        let page = decode(&rec).unwrap();
        assert_eq!(page.html, "café");
        assert_eq!(page.encoding.source, EncodingSource::Detected);
        let rec =
            format!(r#"{{"url":"http://a.com","html_base64":"{latin1}","charset":"klingon"}}"#);
        assert_eq!(decode(&rec).unwrap().html, "café");
        let rec = r#"{"url":"http://a.com","html_base64":"!!!"}"#;
        assert_eq!(decode(rec).unwrap_err().kind(), ErrorKind::BadEncoding);
        // JSON text is text.
        let page = decode(r#"{"url":"http://a.com","html":"<p>x</p>"}"#).unwrap();
        assert_eq!(page.encoding, EncodingInfo::text());
    }

    #[test]
    fn a_page_that_declares_its_encoding_in_a_meta_is_decoded_in_it() {
        // The record of the report: windows-1251 bytes, no charset field, no header.
        let html = "<html><head><meta charset=\"windows-1251\"></head><body><p>Это статья на русском языке.</p></body></html>";
        let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(html);
        let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let rec = format!(r#"{{"url":"http://ru.example.com/a","html_base64":"{encoded}"}}"#);
        let page = decode(&rec).unwrap();
        assert_eq!(page.html, html);
        assert_eq!(page.encoding.name, "windows-1251");
        assert_eq!(page.encoding.source, EncodingSource::Meta);
        let html = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"></head><body><p>日本語の記事です。</p></body></html>";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(html);
        let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let rec = format!(r#"{{"url":"http://jp.example.com/a","html_base64":"{encoded}"}}"#);
        let page = decode(&rec).unwrap();
        assert_eq!(page.html, html);
        assert_eq!(page.encoding.name, "Shift_JIS");
    }

    #[test]
    fn base64_as_crawlers_write_it() {
        let mut html = "<p>Grüße aus Köln, schöne Grüße!</p>".repeat(4);
        while html.len().is_multiple_of(3) {
            html.push('.');
        }
        let standard = base64::engine::general_purpose::STANDARD.encode(html.as_bytes());
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(html.as_bytes());
        assert!(url_safe.contains(['-', '_']), "{url_safe}");
        let wrapped: String = standard
            .as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n");
        let unpadded = standard.trim_end_matches('=');
        assert_ne!(unpadded, standard);
        for encoded in [&standard, &url_safe, &wrapped, unpadded] {
            let rec = serde_json::json!({"url": "http://a.de", "html_base64": encoded, "charset": "utf-8"});
            assert_eq!(decode(&rec.to_string()).unwrap().html, html, "{encoded}");
        }
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
