//! Page metadata from the markup the tokenizer passes anyway: `<meta>` and `<link>` tags (Open
//! Graph, Dublin Core, schema.org microdata, the plain HTML names) and the JSON-LD of
//! `<script type="application/ld+json">`, whose text is the only script text ever captured
//! (bounded by [`MAX_JSON_LD_BYTES`]).
//!
//! Each field takes the value of its most trusted source on the page, whatever the order the
//! tags come in (the first of equally trusted ones):
//!
//! | field | sources, most trusted first |
//! |---|---|
//! | `description` | `meta name=description`; `og:description`; `twitter:description`; JSON-LD `description` |
//! | `author` | `meta name=author`; JSON-LD `author` (names joined by ", "); `dc.creator`, `article:author`, `itemprop=author` (not a URL) |
//! | `published` | `article:published_time`; JSON-LD `datePublished`; `itemprop=datePublished`; `date`, `pubdate`, `publishdate`, `dc.date`, `dc.date.issued`, `dcterms.created`, `dcterms.date` |
//! | `canonical_url` | `link rel=canonical`; `og:url` |
//! | `site_name` | `og:site_name`; JSON-LD `publisher.name`; `application-name` |
//! | `types` | every JSON-LD `@type` (of objects, arrays and `@graph`s, in document order, at most [`MAX_TYPES`]; not one that [`MANY_OBJECTS`] objects declare); `og:type` |
//! | `item_types` | each microdata `itemtype` of which the page has one item only, in document order, at most [`MAX_TYPES`] |
//!
//! Values are entity-decoded, white space collapsed, at most [`MAX_VALUE_CHARS`] characters;
//! `published` only when it starts with an ISO 8601 date (`YYYY-MM-DD`).

use std::borrow::Cow;

use serde_json::Value;

use super::markup::attributes;
use super::text::decode_entities;

/// Most bytes of JSON-LD text captured per `<script>`; a longer one is skipped whole.
pub const MAX_JSON_LD_BYTES: usize = 256 << 10;

/// Most characters kept of a metadata value.
pub const MAX_VALUE_CHARS: usize = 1000;

/// Most types kept of what a page declares itself to be (JSON-LD `@type`s, `og:type`).
pub const MAX_TYPES: usize = 16;

/// JSON-LD objects from which a type they all declare names the page's items, not the page: a
/// shop's grid declares a `Product` per tile, dozens of them, where a product's page declares
/// its one product once, or twice when two of its plugins each write it.
pub const MANY_OBJECTS: u8 = 3;

/// What a page says about itself in its head (and microdata).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMeta {
    /// A summary of the page.
    pub description: Option<String>,
    /// Who wrote it.
    pub author: Option<String>,
    /// When it was first published: an ISO 8601 date or date-time as the page gives it.
    pub published: Option<String>,
    /// The URL the page names as its own, as written (may be relative).
    pub canonical_url: Option<String>,
    /// The name of the site.
    pub site_name: Option<String>,
    /// The page's first non-empty `<title>` (outside SVG and MathML).
    pub title: Option<String>,
    /// The `href` of the page's first `<base>` that has one, as written (entities decoded, white
    /// space at its ends removed; may be relative): what the page's relative links resolve
    /// against.
    pub base_href: Option<String>,
    /// What the page declares itself and its parts to be: the schema.org `@type`s of its JSON-LD
    /// (`Product`, `DiscussionForumPosting`, `NewsArticle`, `BreadcrumbList`, ...) and its
    /// `og:type` (`article`, `product`, `website`), as written, without duplicates, at most
    /// [`MAX_TYPES`] of them. A JSON-LD type that [`MANY_OBJECTS`] objects or more declare (one
    /// script per tile of a grid) names the page's items and is left out.
    pub types: Vec<String>,
    /// The microdata `itemtype`s of which the page has one item only
    /// (`https://schema.org/DiscussionForumPosting` around a thread's first post): a type of
    /// many items (a grid's products, an FAQ's questions, a thread's comments) names the page's
    /// parts, not the page. As written (the first URL of an `itemtype`), in document order, at
    /// most [`MAX_TYPES`] of them. Read for the page's kind, after `types`.
    pub item_types: Vec<String>,
}

/// The metadata fields.
#[derive(Clone, Copy)]
enum Field {
    Description,
    Author,
    Published,
    Canonical,
    SiteName,
}

/// Collects a page's metadata while the tokenizer runs. Sources are ranked (0 = most trusted).
#[derive(Default)]
pub(crate) struct HeadReader {
    meta: PageMeta,
    /// Rank of the source of each field's value (index: `Field as usize`).
    ranks: [Option<u8>; 5],
    /// JSON-LD text of the `<script>` being read, when one is.
    json: Option<String>,
    /// Text of the `<title>` being read, while the page has no title yet.
    title: Option<String>,
    /// The microdata item types seen, in document order, with how many items each had (at most
    /// [`MAX_TYPES`] types; a count stops at 2, which says "several").
    items: Vec<(String, u8)>,
    /// The JSON-LD types seen, with how many objects declared each (at most [`MAX_TYPES`]
    /// types; a count stops at [`MANY_OBJECTS`]).
    objects: Vec<(String, u8)>,
}

impl HeadReader {
    /// Forgets the last page.
    pub(crate) fn reset(&mut self) {
        self.meta = PageMeta::default();
        self.ranks = [None; 5];
        self.json = None;
        self.title = None;
        self.items.clear();
        self.objects.clear();
    }

    /// The metadata read so far; leaves an empty one.
    pub(crate) fn take(&mut self) -> PageMeta {
        // Drained, not taken: the reader keeps its buffer for the next page.
        self.meta.item_types = self
            .items
            .drain(..)
            .filter(|&(_, items)| items == 1)
            .map(|(t, _)| t)
            .collect();
        for (t, _) in self.objects.drain(..).filter(|&(_, n)| n >= MANY_OBJECTS) {
            self.meta.types.retain(|k| *k != t);
        }
        std::mem::take(&mut self.meta)
    }

    /// A start tag with an `itemtype` (its first URL, when it lists several): one more item of
    /// that type.
    pub(crate) fn item_type(&mut self, attrs: &[u8]) {
        let Some(value) = super::markup::attribute_value(attrs, b"itemtype") else {
            return;
        };
        let Some(first) = value
            .split(|b| b.is_ascii_whitespace())
            .find(|t| !t.is_empty())
        else {
            return;
        };
        let Ok(t) = std::str::from_utf8(first) else {
            return;
        };
        if t.len() > 100 {
            return;
        }
        if let Some((_, items)) = self.items.iter_mut().find(|(k, _)| k == t) {
            *items = 2;
        } else if self.items.len() < MAX_TYPES {
            self.items.push((t.to_owned(), 1));
        }
    }

    fn set(&mut self, field: Field, rank: u8, value: &[u8]) {
        if self.ranks[field as usize].is_some_and(|r| r <= rank) {
            return;
        }
        let Some(value) = clean_value(value) else {
            return;
        };
        let value = match field {
            Field::Published if !starts_with_iso_date(&value) => return,
            Field::Author if looks_like_url(&value) => return,
            _ => value,
        };
        self.ranks[field as usize] = Some(rank);
        let slot = match field {
            Field::Description => &mut self.meta.description,
            Field::Author => &mut self.meta.author,
            Field::Published => &mut self.meta.published,
            Field::Canonical => &mut self.meta.canonical_url,
            Field::SiteName => &mut self.meta.site_name,
        };
        *slot = Some(value);
    }

    /// A `<meta>` start tag; `attrs` is the tag's text after its name.
    pub(crate) fn meta_tag(&mut self, attrs: &[u8]) {
        let (mut key, mut itemprop, mut content) = (None, None, None);
        for (name, value) in attributes(attrs) {
            if name.eq_ignore_ascii_case(b"name") || name.eq_ignore_ascii_case(b"property") {
                key = key.or(Some(value));
            } else if name.eq_ignore_ascii_case(b"itemprop") {
                itemprop = Some(value);
            } else if name.eq_ignore_ascii_case(b"content") {
                content = Some(value);
            }
        }
        let Some(content) = content else { return };
        if let Some(prop) = itemprop {
            if prop.eq_ignore_ascii_case(b"datePublished") {
                self.set(Field::Published, 2, content);
            } else if prop.eq_ignore_ascii_case(b"author") {
                self.set(Field::Author, 2, content);
            }
        }
        let Some(key) = key else { return };
        if key.eq_ignore_ascii_case(b"og:type") {
            self.add_type(&String::from_utf8_lossy(content));
            return;
        }
        let mut lower = [0u8; 24];
        let Some(lower) = lower.get_mut(..key.len()) else {
            return;
        };
        lower.copy_from_slice(key);
        lower.make_ascii_lowercase();
        let (field, rank) = match &*lower {
            b"description" => (Field::Description, 0),
            b"og:description" => (Field::Description, 1),
            b"twitter:description" => (Field::Description, 2),
            b"author" => (Field::Author, 0),
            b"dc.creator" | b"dcterms.creator" | b"article:author" => (Field::Author, 2),
            b"article:published_time" => (Field::Published, 0),
            b"date" | b"pubdate" | b"publishdate" | b"dc.date" | b"dc.date.issued"
            | b"dcterms.created" | b"dcterms.date" | b"dcterms.issued" => (Field::Published, 3),
            b"og:url" => (Field::Canonical, 1),
            b"og:site_name" => (Field::SiteName, 0),
            b"application-name" => (Field::SiteName, 2),
            _ => return,
        };
        self.set(field, rank, content);
    }

    /// One more JSON-LD object declares type `t`.
    fn count_object(&mut self, t: &str) {
        let t = t.trim();
        if let Some((_, n)) = self.objects.iter_mut().find(|(k, _)| k == t) {
            *n = (*n + 1).min(MANY_OBJECTS);
        } else if !t.is_empty() && t.len() <= 100 && self.objects.len() < MAX_TYPES {
            self.objects.push((t.to_owned(), 1));
        }
    }

    /// Adds a declared type, trimmed, once, while there is room.
    fn add_type(&mut self, t: &str) {
        let t = t.trim();
        let types = &mut self.meta.types;
        if !t.is_empty()
            && t.len() <= 100
            && types.len() < MAX_TYPES
            && !types.iter().any(|k| k == t)
        {
            types.push(t.to_owned());
        }
    }

    /// A `<link>` start tag.
    pub(crate) fn link_tag(&mut self, attrs: &[u8]) {
        let (mut canonical, mut href) = (false, None);
        for (name, value) in attributes(attrs) {
            if name.eq_ignore_ascii_case(b"rel") {
                canonical = value
                    .split(u8::is_ascii_whitespace)
                    .any(|w| w.eq_ignore_ascii_case(b"canonical"));
            } else if name.eq_ignore_ascii_case(b"href") {
                href = Some(value);
            }
        }
        if let (true, Some(href)) = (canonical, href) {
            self.set(Field::Canonical, 0, href);
        }
    }

    /// A `<base>` start tag: the first `href` of one is the page's base.
    pub(crate) fn base_tag(&mut self, attrs: &[u8]) {
        if self.meta.base_href.is_some() {
            return;
        }
        if let Some((_, href)) = attributes(attrs).find(|(n, _)| n.eq_ignore_ascii_case(b"href")) {
            let href = String::from_utf8_lossy(href);
            let href = decode_entities(&href);
            let href = href.trim();
            if !href.is_empty() && href.len() <= MAX_VALUE_CHARS * 4 {
                self.meta.base_href = Some(href.to_owned());
            }
        }
    }

    /// A `<script>` start tag: starts capturing its text when it is JSON-LD (`json_ld`, from
    /// [`script_type`](super::markup::script_type)).
    pub(crate) fn script_tag(&mut self, json_ld: bool) {
        self.json = json_ld.then(String::new);
    }

    /// True while the text of a JSON-LD script is being captured.
    #[inline]
    pub(crate) fn capturing(&self) -> bool {
        self.json.is_some()
    }

    /// Text of the JSON-LD script being captured; past the limit the script is dropped.
    pub(crate) fn script_text(&mut self, text: &str) {
        if let Some(json) = self.json.as_mut() {
            if json.len() + text.len() > MAX_JSON_LD_BYTES {
                self.json = None;
            } else {
                json.push_str(text);
            }
        }
    }

    /// A `<title>` start tag: starts capturing its text while the page has no title.
    pub(crate) fn title_tag(&mut self) {
        if self.meta.title.is_none() {
            self.title = Some(String::new());
        }
    }

    /// True while the text of the page's title is being captured.
    #[inline]
    pub(crate) fn capturing_title(&self) -> bool {
        self.title.is_some()
    }

    /// Text of the title being captured; what passes the longest value (in bytes, four per
    /// character) is not kept.
    pub(crate) fn title_text(&mut self, text: &str) {
        if let Some(title) = self.title.as_mut() {
            let room = (4 * MAX_VALUE_CHARS).saturating_sub(title.len());
            let mut end = room.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            title.push_str(&text[..end]);
        }
    }

    /// The end of a dropped element, a script or a title (or of the page): reads the captured
    /// JSON-LD or title, if any.
    pub(crate) fn end_raw_text(&mut self) {
        if let Some(title) = self.title.take() {
            self.meta.title = clean_value(title.as_bytes());
        }
        let Some(json) = self.json.take() else {
            return;
        };
        let Ok(value) = serde_json::from_str::<Value>(json.trim()) else {
            return;
        };
        self.json_ld(&value, 0);
    }

    /// Reads the fields of every object in a JSON-LD document (arrays and `@graph` included).
    fn json_ld(&mut self, value: &Value, depth: usize) {
        if depth > 4 {
            return;
        }
        match value {
            Value::Array(items) => {
                for item in items {
                    self.json_ld(item, depth + 1);
                }
            }
            Value::Object(object) => {
                match object.get("@type") {
                    Some(Value::String(t)) => {
                        self.add_type(t);
                        self.count_object(t);
                    }
                    Some(Value::Array(types)) => {
                        for (i, t) in types.iter().enumerate() {
                            let Some(t) = t.as_str() else { continue };
                            self.add_type(t);
                            // An object that lists a type twice is one object of it.
                            if !types[..i]
                                .iter()
                                .any(|u| u.as_str().map(str::trim) == Some(t.trim()))
                            {
                                self.count_object(t);
                            }
                        }
                    }
                    _ => {}
                }
                if let Some(graph) = object.get("@graph") {
                    self.json_ld(graph, depth + 1);
                }
                if let Some(Value::String(date)) = object.get("datePublished") {
                    self.set(Field::Published, 1, date.as_bytes());
                }
                if let Some(author) = object.get("author").and_then(names) {
                    self.set(Field::Author, 1, author.as_bytes());
                }
                if let Some(Value::String(text)) = object.get("description") {
                    self.set(Field::Description, 3, text.as_bytes());
                }
                if let Some(name) = object.get("publisher").and_then(names) {
                    self.set(Field::SiteName, 1, name.as_bytes());
                }
            }
            _ => {}
        }
    }
}

/// The name(s) in a JSON-LD person or organization: a string, an object's `name`, or a list of
/// those joined by ", ".
fn names(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => match o.get("name") {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        },
        Value::Array(items) => {
            let all: Vec<String> = items.iter().take(20).filter_map(names).collect();
            (!all.is_empty()).then(|| all.join(", "))
        }
        _ => None,
    }
}

/// A value as text: entities decoded, white space collapsed, at most `MAX_VALUE_CHARS`
/// characters; None when empty.
fn clean_value(raw: &[u8]) -> Option<String> {
    let raw = String::from_utf8_lossy(raw);
    let decoded: Cow<'_, str> = decode_entities(&raw);
    let mut out = String::new();
    for word in decoded.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if let Some((cut, _)) = out.char_indices().nth(MAX_VALUE_CHARS) {
        out.truncate(cut);
    }
    (!out.is_empty()).then_some(out)
}

/// True when `s` starts with `YYYY-MM-DD`.
fn starts_with_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

fn looks_like_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://") || s.starts_with("//")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::markup::{script_type, ScriptType};

    fn read(tags: &[(&str, &str)], json: &[&str]) -> PageMeta {
        let mut r = HeadReader::default();
        r.reset();
        for (tag, attrs) in tags {
            match *tag {
                "meta" => r.meta_tag(attrs.as_bytes()),
                "link" => r.link_tag(attrs.as_bytes()),
                _ => unreachable!(),
            }
        }
        for j in json {
            r.script_tag(script_type(b" type=\"application/ld+json\">") == ScriptType::JsonLd);
            r.script_text(j);
            r.end_raw_text();
        }
        r.take()
    }

    #[test]
    fn most_trusted_source_wins_in_any_order() {
        let m = read(
            &[
                ("meta", " property=\"og:description\" content=\"From OG\""),
                (
                    "meta",
                    " name=\"description\" content=\"  Plain &amp;\n  simple \">",
                ),
                ("meta", " name=author content=\"https://example.org/jane\""),
                ("meta", " name=\"dc.date\" content=\"last Tuesday\""),
                ("meta", " name=\"date\" content=\"2020-01-02\""),
                (
                    "meta",
                    " property=\"article:published_time\" content=\"2019-05-02T10:00:00+02:00\"",
                ),
                (
                    "meta",
                    " property=og:url content=\"https://example.org/a?utm=x\"",
                ),
                ("link", " rel=\"alternate canonical\" href=\"/a\""),
                ("meta", " property=\"og:site_name\" content=\"Example\""),
                ("meta", " property=\"og:type\" content=\" article \""),
            ],
            &[
                r#"{"@context":"https://schema.org","@graph":[{"@type":"NewsArticle",
                 "author":[{"@type":"Person","name":"Jane Roe"},{"name":"John Doe"}],
                 "datePublished":"2018-01-01","publisher":{"name":"Example Media"}}]}"#,
            ],
        );
        assert_eq!(
            m,
            PageMeta {
                description: Some("Plain & simple".into()),
                author: Some("Jane Roe, John Doe".into()),
                published: Some("2019-05-02T10:00:00+02:00".into()),
                canonical_url: Some("/a".into()),
                site_name: Some("Example".into()),
                title: None,
                base_href: None,
                // og:type comes first in the head; the JSON-LD's graph, then its nested authors
                // are not read for types.
                types: vec!["article".into(), "NewsArticle".into()],
                item_types: Vec::new(),
            }
        );
    }

    #[test]
    fn declared_types_are_read_once_each_and_bounded() {
        let many: Vec<String> = (0..40).map(|i| format!("{{\"@type\":\"T{i}\"}}")).collect();
        let m = read(
            &[("meta", " property=\"og:type\" content=\"product\"")],
            &[
                r#"[{"@type":["Product","Thing"]},{"@type":"Product"},{"@type":" "}]"#,
                &format!("[{}]", many.join(",")),
            ],
        );
        assert_eq!(&m.types[..3], ["product", "Product", "Thing"]);
        assert_eq!(m.types.len(), MAX_TYPES);
        assert_eq!(m.types[3], "T0");
    }

    #[test]
    fn a_type_many_objects_declare_names_the_pages_items() {
        // A shop's grid: one script per tile, each a `Product`, beside the page's breadcrumbs.
        let tile = r#"{"@context":"https://schema.org","@type":"Product","name":"ST-5"}"#;
        let grid = read(
            &[("meta", " property=\"og:type\" content=\"website\"")],
            &[
                tile,
                r#"{"@type":"BreadcrumbList"}"#,
                tile,
                &format!("[{tile},{tile}]"),
            ],
        );
        assert_eq!(grid.types, ["website", "BreadcrumbList"]);
        // A product's page whose two plugins each declare its product: one product; and one
        // object that names its type three times is one object.
        let page = read(&[], &[tile, r#"{"@graph":[{"@type":"WebPage"}]}"#, tile]);
        assert_eq!(page.types, ["Product", "WebPage"]);
        let once = read(&[], &[r#"{"@type":["Product","Product","Product"]}"#]);
        assert_eq!(once.types, ["Product"]);
        // The count is the page's: a reader's next page starts from none.
        let mut r = HeadReader::default();
        for scripts in [3, 1] {
            r.reset();
            for _ in 0..scripts {
                r.script_tag(true);
                r.script_text(tile);
                r.end_raw_text();
            }
            let types = r.take().types;
            assert_eq!(types.is_empty(), scripts == 3, "{scripts}: {types:?}");
        }
    }

    #[test]
    fn json_ld_fills_what_the_tags_leave_and_bad_json_is_ignored() {
        let m = read(
            &[("meta", " itemprop=datePublished content=2017-03-04")],
            &[
                "{not json",
                r#"[{"@type":"Article","author":"A. Writer","description":"About it",
                    "datePublished":"2016-02-03T04:05:06Z"}]"#,
            ],
        );
        assert_eq!(m.author.as_deref(), Some("A. Writer"));
        assert_eq!(m.description.as_deref(), Some("About it"));
        assert_eq!(m.published.as_deref(), Some("2016-02-03T04:05:06Z"));
    }

    #[test]
    fn json_ld_over_the_limit_is_dropped_and_other_scripts_are_not_read() {
        let mut r = HeadReader::default();
        r.reset();
        r.script_tag(script_type(b" type=application/ld+json") == ScriptType::JsonLd);
        r.script_text(r#"{"author":"x","#);
        r.script_text(&" ".repeat(MAX_JSON_LD_BYTES));
        r.script_text(r#""y":1}"#);
        assert!(!r.capturing());
        r.end_raw_text();
        r.script_tag(script_type(b" type=text/javascript") == ScriptType::JsonLd);
        assert!(!r.capturing());
        assert_eq!(r.take(), PageMeta::default());
    }

    #[test]
    fn long_values_are_cut() {
        let long = "word ".repeat(1000);
        let m = read(
            &[("meta", &format!(" name=description content=\"{long}\""))],
            &[],
        );
        assert_eq!(
            m.description.map(|d| d.chars().count()),
            Some(MAX_VALUE_CHARS)
        );
    }
}
