//! A page and what the crawler knows of it, as the raw-html record the engine reads (DESIGN §5).

use base64::Engine as _;
use serde_json::{Map, Value};

/// The URL a page without one is filed under: `.invalid` is reserved for names that can never
/// resolve (RFC 2606), so the output cannot be taken for a real address. Relative links of such
/// a page resolve against it only where the page gives no `<base href>`.
pub const UNKNOWN_URL: &str = "http://unknown.invalid/";

/// A page's HTML: text already decoded, or the bytes as fetched.
///
/// Bytes are decoded in the encoding the page's `charset` or `Content-Type` header names, else
/// its `<meta>`, else the one detected from the bytes (as browsers do); text is taken as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Html<'a> {
    /// Decoded text.
    Text(&'a str),
    /// The bytes as fetched.
    Bytes(&'a [u8]),
}

impl<'a> From<&'a str> for Html<'a> {
    fn from(text: &'a str) -> Html<'a> {
        Html::Text(text)
    }
}

impl<'a> From<&'a String> for Html<'a> {
    fn from(text: &'a String) -> Html<'a> {
        Html::Text(text)
    }
}

impl<'a> From<&'a [u8]> for Html<'a> {
    fn from(bytes: &'a [u8]) -> Html<'a> {
        Html::Bytes(bytes)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Html<'a> {
    fn from(bytes: &'a [u8; N]) -> Html<'a> {
        Html::Bytes(bytes)
    }
}

impl<'a> From<&'a Vec<u8>> for Html<'a> {
    fn from(bytes: &'a Vec<u8>) -> Html<'a> {
        Html::Bytes(bytes)
    }
}

/// One crawled page: its URL and HTML, and what else the crawler knows of it (the raw-html
/// record's fields, DESIGN §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<'a> {
    /// The requested URL.
    pub url: &'a str,
    /// The HTML.
    pub html: Html<'a>,
    /// The URL after redirects; the page's URL key and its links are read from it when given.
    pub response_url: Option<&'a str>,
    /// The page's title, when the crawler knows it (else the page's `<title>` is reported).
    pub title: Option<&'a str>,
    /// When the crawler fetched the page (RFC 3339, with its offset).
    pub fetched_at: Option<&'a str>,
    /// The charset the response declared, for HTML given as bytes.
    pub charset: Option<&'a str>,
    /// The response's headers (a `Content-Type` charset is read from them).
    pub headers: Vec<(&'a str, &'a str)>,
    /// The registrable domain the producer files the page under; it must agree with the URL's
    /// unless the configuration trusts it (`input.domain_check`).
    pub domain: Option<&'a str>,
}

impl<'a> Page<'a> {
    /// A page with its URL and HTML and nothing else known.
    pub fn new(url: &'a str, html: impl Into<Html<'a>>) -> Page<'a> {
        Page {
            url,
            html: html.into(),
            response_url: None,
            title: None,
            fetched_at: None,
            charset: None,
            headers: Vec::new(),
            domain: None,
        }
    }

    /// The raw-html JSON record of the page, as `urltree extract` reads it from a JSONL line:
    /// text as `html`, bytes as `html_base64`.
    pub fn to_record(&self) -> Vec<u8> {
        let mut record = Map::with_capacity(8);
        let text = |s: &str| Value::String(s.to_owned());
        record.insert("url".into(), text(self.url));
        match self.html {
            Html::Text(html) => record.insert("html".into(), text(html)),
            Html::Bytes(bytes) => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
                record.insert("html_base64".into(), Value::String(encoded))
            }
        };
        let optional = [
            ("response_url", self.response_url),
            ("title", self.title),
            ("fetched_at", self.fetched_at),
            ("charset", self.charset),
            ("domain", self.domain),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                record.insert(name.into(), text(value));
            }
        }
        if !self.headers.is_empty() {
            let headers = self
                .headers
                .iter()
                .map(|&(name, value)| (name.to_owned(), text(value)))
                .collect();
            record.insert("headers".into(), Value::Object(headers));
        }
        // A map of strings always serializes.
        serde_json::to_vec(&record).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{EncodingSource, RawPage};

    #[test]
    fn a_page_becomes_the_record_the_engine_reads() {
        let mut page = Page::new("https://example.org/a", "<p>Grüße \"quoted\"</p>");
        page.title = Some("A");
        page.headers = vec![("Content-Type", "text/html")];
        let raw = RawPage::decode(&page.to_record(), 1 << 20).unwrap();
        assert_eq!(raw.url, "https://example.org/a");
        assert_eq!(raw.html, "<p>Grüße \"quoted\"</p>");
        assert_eq!(raw.title.as_deref(), Some("A"));
        assert!(raw.warnings.is_empty(), "{:?}", raw.warnings);
    }

    #[test]
    fn bytes_are_decoded_in_the_charset_they_declare() {
        let latin1 = b"<html><head><meta charset=iso-8859-1></head><p>caf\xe9</p></html>";
        let raw = RawPage::decode(&Page::new("http://a.fr/", latin1).to_record(), 1 << 20).unwrap();
        assert!(raw.html.contains("café"), "{}", raw.html);
        assert_eq!(raw.encoding.source, EncodingSource::Meta);
        let mut page = Page::new("http://a.fr/", &b"<p>caf\xe9</p>"[..]);
        page.charset = Some("windows-1252");
        let raw = RawPage::decode(&page.to_record(), 1 << 20).unwrap();
        assert_eq!(raw.html, "<p>café</p>");
    }
}
