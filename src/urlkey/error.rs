//! Errors of URL keying ([`UrlKeyError`]) and of loading query-normalization rules ([`RulesError`]).

use std::path::PathBuf;

/// Why a URL has no key. Messages never quote the whole URL (it may be huge or hostile); they name the part
/// that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlKeyError {
    /// The URL is empty or only whitespace and control characters.
    #[error("empty URL")]
    Empty,
    /// The URL is longer than `KeyOptions::max_url_bytes`.
    #[error("URL too long: {len} bytes, the limit is {limit}")]
    TooLong {
        /// Length of the URL in bytes.
        len: usize,
        /// The configured limit in bytes.
        limit: usize,
    },
    /// The WHATWG URL parser rejected the URL.
    #[error("unparsable URL: {reason}")]
    Unparsable {
        /// The parser's reason.
        reason: String,
    },
    /// The scheme is not `http` or `https`.
    #[error("unsupported URL scheme `{scheme}`: only http and https have keys")]
    UnsupportedScheme {
        /// The scheme, lower-cased, at most 32 characters.
        scheme: String,
    },
    /// The URL has no host (e.g. `http:///x`).
    #[error("URL has no host")]
    NoHost,
    /// The host is not a valid host name or IP address, or longer than DNS allows.
    #[error("invalid host `{host}`: {reason}")]
    InvalidHost {
        /// The host as given, at most 256 characters.
        host: String,
        /// The parser's reason.
        reason: String,
    },
    /// The host is a public suffix or not under one, e.g. `co.uk` or `localhost`.
    #[error("host `{host}` has no registrable domain (it is a public suffix or not under one)")]
    NoRegistrableDomain {
        /// The normalized host.
        host: String,
    },
}

/// Why a rules file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The file could not be read.
    #[error("cannot read rules file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file was read but its content is invalid.
    #[error("rules file {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with its content.
        source: Box<RulesError>,
    },
    /// The text is not JSON of the rules format (syntax, missing or unknown fields).
    #[error("invalid rules JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The `version` field is not 1.
    #[error("unsupported rules format version {0} (supported: 1)")]
    UnsupportedVersion(u64),
    /// A rule's `pattern` is not a valid regular expression.
    #[error("rule {index}: invalid pattern `{pattern}`: {reason}")]
    InvalidPattern {
        /// Index of the rule in `rules` (0-based).
        index: usize,
        /// The pattern, at most 200 characters.
        pattern: String,
        /// The regex compiler's reason.
        reason: String,
    },
    /// A rule keeps an empty parameter name.
    #[error("rule {index}: empty parameter name in `keep`")]
    EmptyKeepName {
        /// Index of the rule in `rules` (0-based).
        index: usize,
    },
    /// A name of the `strip` list is empty (or only `*`).
    #[error("empty parameter name in `strip`")]
    EmptyStripName,
}

/// At most `max` characters of `s` (for error messages).
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
