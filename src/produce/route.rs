//! The key of a raw-html record: the registrable domain the engine files the page under.

use crate::config::{Config, DomainCheck};
use crate::engine;
use crate::record::ErrorKind;
use crate::urlkey::{RulesError, UrlKeyer};

/// Keys records as the engine of `urltree run` will: the same URL keyer (`[url]` options and
/// `[rules]`), the same `[input]` size limit and the same check of a record's own `domain`.
///
/// Guarantees: a record it keys is one the engine decodes and keys under the same registrable
/// domain; a record it refuses is one the engine would reject with the same kind and message.
pub struct Router {
    keyer: UrlKeyer,
    domain_check: DomainCheck,
    max_record_bytes: usize,
}

impl Router {
    /// The router of `config` (already validated); fails when its rules file cannot be loaded.
    pub fn new(config: &Config) -> Result<Router, RulesError> {
        Ok(Router {
            keyer: engine::keyer(config)?,
            domain_check: config.input.domain_check,
            max_record_bytes: config.input.max_record_bytes,
        })
    }

    /// The record's key (its registrable domain), or `(kind, message)` saying why it has none.
    pub fn key(&self, bytes: &[u8]) -> Result<String, (ErrorKind, String)> {
        engine::record_domain(&self.keyer, self.domain_check, bytes, self.max_record_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router(configure: impl FnOnce(&mut Config)) -> Router {
        let mut config = Config::default();
        configure(&mut config);
        Router::new(&config).unwrap()
    }

    #[test]
    fn keys_by_registrable_domain_and_refuses_what_the_engine_rejects() {
        let r = router(|_| {});
        let key = |json: &str| r.key(json.as_bytes());
        assert_eq!(
            key(r#"{"url":"https://doc.rust-lang.org/book/","html":"<p>x</p>"}"#).unwrap(),
            "rust-lang.org"
        );
        // The response URL decides, as in the engine.
        assert_eq!(
            key(r#"{"url":"http://a.example.com/","response_url":"https://www.bbc.co.uk/news","html":"x"}"#)
                .unwrap(),
            "bbc.co.uk"
        );
        // A matching domain field (in another spelling) is accepted.
        assert_eq!(
            key(r#"{"url":"https://x.blogspot.com/p","domain":"X.Blogspot.com.","html":"x"}"#)
                .unwrap(),
            "x.blogspot.com"
        );
        let kind = |json: &str| key(json).unwrap_err().0;
        assert_eq!(kind("{not json"), ErrorKind::InvalidJson);
        assert_eq!(kind(r#"{"html":"<p>x</p>"}"#), ErrorKind::MissingField);
        assert_eq!(
            kind(r#"{"url":"https://example.org/"}"#),
            ErrorKind::MissingField
        );
        assert_eq!(
            kind(r#"{"url":"http://localhost/x","html":"x"}"#),
            ErrorKind::BadUrl
        );
        assert_eq!(
            kind(r#"{"url":"mailto:a@example.org","html":"x"}"#),
            ErrorKind::BadUrl
        );
        let mismatch =
            key(r#"{"url":"https://example.org/","domain":"example.com","html":"x"}"#).unwrap_err();
        assert_eq!(mismatch.0, ErrorKind::DomainMismatch);
        assert!(mismatch.1.contains("example.com"), "{}", mismatch.1);
    }

    #[test]
    fn follows_the_configured_domain_check_and_size_limit() {
        let trusting = router(|c| c.input.domain_check = DomainCheck::TrustRecord);
        let json = r#"{"url":"https://mirror.example.net/a","domain":"example.org","html":"x"}"#;
        assert_eq!(trusting.key(json.as_bytes()).unwrap(), "example.org");
        let small = router(|c| c.input.max_record_bytes = 40);
        let (kind, _) = small.key(json.as_bytes()).unwrap_err();
        assert_eq!(kind, ErrorKind::TooLarge);
    }
}
