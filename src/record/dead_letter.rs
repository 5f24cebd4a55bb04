//! The dead-letter record: why an input was not processed, where it came from, and its bytes.

use super::Source;

/// What went wrong with an input, as a stable kebab-case name (also the `kind` metric label).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The record is not valid JSON (or not a JSON object).
    InvalidJson,
    /// A required field is missing or empty.
    MissingField,
    /// A field has the wrong type or an invalid value.
    InvalidField,
    /// The record or its HTML exceeds a configured size limit.
    TooLarge,
    /// `html_base64` is not valid base64.
    BadEncoding,
    /// The URL cannot be keyed (unparsable, no host, not http(s), too long, …).
    BadUrl,
    /// The record's `domain` disagrees with the URL's registrable domain.
    DomainMismatch,
    /// The HTML could not be tokenized within the parser's limits.
    BadHtml,
    /// The input could not be read (a file of a directory input: a dangling link, no permission).
    Unreadable,
    /// The broker did not acknowledge the record within `message.timeout.ms`, or refused it
    /// (`urltree produce`).
    Undelivered,
}

impl ErrorKind {
    /// Every kind, for pre-registering metric label values.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::InvalidJson,
        ErrorKind::MissingField,
        ErrorKind::InvalidField,
        ErrorKind::TooLarge,
        ErrorKind::BadEncoding,
        ErrorKind::BadUrl,
        ErrorKind::DomainMismatch,
        ErrorKind::BadHtml,
        ErrorKind::Unreadable,
        ErrorKind::Undelivered,
    ];

    /// The kebab-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "invalid-json",
            ErrorKind::MissingField => "missing-field",
            ErrorKind::InvalidField => "invalid-field",
            ErrorKind::TooLarge => "too-large",
            ErrorKind::BadEncoding => "bad-encoding",
            ErrorKind::BadUrl => "bad-url",
            ErrorKind::DomainMismatch => "domain-mismatch",
            ErrorKind::BadHtml => "bad-html",
            ErrorKind::Unreadable => "unreadable",
            ErrorKind::Undelivered => "undelivered",
        }
    }
}

/// The error part of a dead-letter record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ErrorInfo {
    /// Machine-readable kind.
    pub kind: ErrorKind,
    /// Human-readable reason.
    pub message: String,
}

/// A record that could not be processed (DESIGN §5).
///
/// Guarantees: `payload` holds the original bytes (lossily as UTF-8) cut to at most the configured
/// limit at a character boundary, and `payload_truncated` says whether anything was cut.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeadLetter {
    /// What went wrong.
    pub error: ErrorInfo,
    /// Where the record came from.
    pub source: Source,
    /// The original record, truncated.
    pub payload: String,
    /// Whether `payload` was truncated.
    pub payload_truncated: bool,
    /// Size of the original record in bytes.
    pub payload_bytes: usize,
}

impl DeadLetter {
    /// Builds a dead letter keeping at most `max_payload` bytes of the original record.
    pub fn new(
        kind: ErrorKind,
        message: impl Into<String>,
        source: Source,
        original: &[u8],
        max_payload: usize,
    ) -> DeadLetter {
        DeadLetter::from_prefix(kind, message, source, original, original.len(), max_payload)
    }

    /// Builds a dead letter from the first bytes of a record whose full size is `total_bytes`
    /// (for records too large to have been read whole).
    pub fn from_prefix(
        kind: ErrorKind,
        message: impl Into<String>,
        source: Source,
        prefix: &[u8],
        total_bytes: usize,
        max_payload: usize,
    ) -> DeadLetter {
        let kept = prefix.len().min(max_payload);
        let text = String::from_utf8_lossy(&prefix[..kept]);
        let mut payload = text.into_owned();
        let truncated = total_bytes > kept;
        if truncated {
            // A cut inside a multi-byte character shows as U+FFFD at the end: drop it.
            while payload.ends_with('\u{FFFD}') {
                payload.pop();
            }
        }
        DeadLetter {
            error: ErrorInfo {
                kind,
                message: message.into(),
            },
            source,
            payload,
            payload_truncated: truncated,
            payload_bytes: total_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source {
            topic: "t".into(),
            partition: 1,
            offset: 7,
        }
    }

    #[test]
    fn truncates_at_char_boundary() {
        let d = DeadLetter::new(ErrorKind::InvalidJson, "bad", src(), "ééé".as_bytes(), 3);
        assert_eq!(d.payload, "é");
        assert!(d.payload_truncated);
        assert_eq!(d.payload_bytes, 6);
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["error"]["kind"], "invalid-json");
        assert_eq!(json["source"]["offset"], 7);
    }

    #[test]
    fn kinds_serialize_as_their_names() {
        for kind in ErrorKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
