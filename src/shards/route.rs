//! The registrable domain a record's page is filed under, read without decoding the page.
//!
//! Guarantee: whenever the engine accepts a record, [`record_domain`] answers `Some` with the
//! engine's domain for it (the record's own `domain` field in its normalized form when present:
//! the engine either files the page there or rejects it; else the registrable domain of its
//! response URL, or its request URL). Records it answers `None` for are rejected by the engine.
//!
//! Only `url`, `response_url` and `domain` are read; the page itself is skipped by serde_json
//! without being copied or unescaped. A record serde_json does not take whole (a repeated field,
//! invalid JSON) is decoded as the engine decodes it, so the answer stays the engine's.

use std::borrow::Cow;

use crate::record::RawPage;
use crate::urlkey::{claimed_domain, UrlKeyer};

/// The three fields the domain depends on; a value of another type is taken as absent, as
/// decoding drops it.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(default, borrow)]
    url: Option<Field<'a>>,
    #[serde(default, borrow)]
    response_url: Option<Field<'a>>,
    #[serde(default, borrow)]
    domain: Option<Field<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Field<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Other(serde::de::IgnoredAny),
}

impl<'a> Field<'a> {
    fn text(field: Option<Field<'a>>) -> Option<Cow<'a, str>> {
        match field {
            Some(Field::Text(text)) => Some(text),
            _ => None,
        }
    }
}

/// The domain the engine files the record's page under, or `None` when it cannot have one
/// (the engine then rejects the record). `max_record_bytes` is the engine's limit.
pub fn record_domain(bytes: &[u8], keyer: &UrlKeyer, max_record_bytes: usize) -> Option<String> {
    if bytes.len() > max_record_bytes {
        return None;
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match serde_json::from_slice::<Peek<'_>>(bytes) {
        Ok(peek) => domain_of(
            Field::text(peek.url).as_deref(),
            Field::text(peek.response_url).as_deref(),
            Field::text(peek.domain).as_deref(),
            keyer,
        ),
        Err(_) => {
            let page = RawPage::decode(bytes, max_record_bytes).ok()?;
            domain_of(
                Some(&page.url),
                page.response_url.as_deref(),
                page.domain.as_deref(),
                keyer,
            )
        }
    }
}

/// The engine's domain from the three fields, as decoding and keying derive it.
fn domain_of(
    url: Option<&str>,
    response_url: Option<&str>,
    domain: Option<&str>,
    keyer: &UrlKeyer,
) -> Option<String> {
    let url = url.filter(|u| !u.trim().is_empty())?;
    if let Some(domain) = domain.filter(|d| !d.trim().is_empty()) {
        return Some(claimed_domain(domain));
    }
    let effective = response_url.filter(|u| !u.trim().is_empty()).unwrap_or(url);
    keyer.key(effective, None).ok().map(|key| key.domain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::urlkey::{KeyOptions, QueryRules};

    fn keyer() -> UrlKeyer {
        UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default())
    }

    #[test]
    fn the_domain_field_wins_then_the_response_url_then_the_url() {
        let k = keyer();
        let d = |json: &str| record_domain(json.as_bytes(), &k, 1 << 20);
        assert_eq!(
            d(r#"{"url":"http://a.com/x","html":"<p>\"x\"</p>","domain":"B.co.uk."}"#),
            Some("b.co.uk".into())
        );
        assert_eq!(
            d(r#"{"url":"http://www.a.com/x","response_url":"https://news.c.co.uk/y","html":""}"#),
            Some("c.co.uk".into())
        );
        assert_eq!(
            d(r#"{"url":"http://www.a.com/x","response_url":" ","domain":"","html":""}"#),
            Some("a.com".into())
        );
        // Fields of the wrong type are absent, as decoding drops them.
        assert_eq!(
            d(r#"{"url":"http://a.com/x","response_url":7,"domain":{"x":1},"html":""}"#),
            Some("a.com".into())
        );
        assert_eq!(d(r#"{"html":"x"}"#), None);
        assert_eq!(d("not json"), None);
        assert_eq!(
            d(r#"{"url":"http://a.com/x","html":"x"}"#),
            Some("a.com".into())
        );
        assert_eq!(record_domain(br#"{"url":"http://a.com/"}"#, &k, 4), None);
    }
}
