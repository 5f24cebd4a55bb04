//! The clean-text output record.

use super::{EncodingInfo, Source};
use crate::lang::Language;
use crate::tree::kind::PageKind;
use crate::tree::Label;

/// Which node of the tree decided, and how sure it could be.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelInfo {
    /// Path of the deciding node (`domain/segment/…`).
    pub node: String,
    /// Its support `n_s`, including this page.
    pub support: u64,
    /// The heuristic's name.
    pub heuristic: String,
    /// True when no node had the support the heuristic wants (a domain's first pages).
    pub cold_start: bool,
}

/// One block of the page with its verdict (present when block detail is configured).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BlockDetail {
    /// The block's text.
    pub text: String,
    /// Content or boilerplate.
    pub label: Label,
    /// The block's count at the deciding node (0 for blocks without letters).
    pub count: u64,
    /// Why: `unique` or `repeated` (the count against `c_max`), or `no-letters`; the `hybrid`
    /// classifier adds `template`, `link-dense`, `marked`, `hidden`, `outside-main-subtree`,
    /// `title`, `within-text` and `unit` (and `short-text` with the `precision` focus); the
    /// literature's methods `text`, `code-dense`,
    /// `short-text`, `link-dense`, `outside-main-subtree` and `template`.
    pub reason: String,
    /// Element path of the block.
    pub path: String,
}

/// The output record of one accepted page (DESIGN §5).
///
/// Guarantees: `text` is the content blocks in document order joined by blank lines (parts of one
/// `<pre>` split by a tag by a line break); text inside `<pre>` keeps its line breaks and
/// indentation, all other white space is collapsed; a formula is its characters (its linear form
/// or its TeX source, `blocks::Math`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CleanRecord {
    /// The requested URL.
    pub url: String,
    /// The URL after redirects, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_url: Option<String>,
    /// The normalized URL key.
    pub url_key: String,
    /// The registrable domain.
    pub domain: String,
    /// The page's title: the input record's `title`, else the page's own `<title>`; absent when
    /// neither is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The main text: plain, but for links and images marked as in Markdown when
    /// `[output] include_links` or `include_images` is `all` ([`crate::markdown::write_text`]).
    pub text: String,
    /// The main text as Markdown ([`crate::markdown::render_with`] of the content blocks), when
    /// configured.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub markdown: Option<String>,
    /// Per-block detail, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockDetail>>,
    /// The language of the main text ([`crate::lang::detect`]), when configured and one can be
    /// told.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lang: Option<Language>,
    /// The page's own description (`<meta name=description>`, Open Graph, JSON-LD), when it
    /// has one. Like the fields below, read from the page's `<meta>`, `<link>` and JSON-LD in
    /// the tokenizer's pass ([`crate::blocks::PageMeta`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub description: Option<String>,
    /// The author(s) the page names.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub author: Option<String>,
    /// When the page says it was published: an ISO 8601 date or date-time as given.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub published: Option<String>,
    /// The URL the page names as its canonical one, resolved against its URL (http(s) only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub canonical_url: Option<String>,
    /// The name of the site the page says it belongs to.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub site_name: Option<String>,
    /// What kind of page this is (article, forum, listing, product, documentation, other) and
    /// what told it ([`crate::tree::kind::infer`]), when the classifier reads the page's
    /// structure (`hybrid`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub page_kind: Option<PageKind>,
    /// The deciding node.
    pub model: ModelInfo,
    /// When the crawler fetched the page (RFC 3339), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// The encoding the page's bytes were decoded from and how it was chosen (`text` when the
    /// record carried the page as JSON text).
    pub encoding: EncodingInfo,
    /// The input record's time (RFC 3339), so a replayed input yields the identical record: the
    /// Kafka record timestamp (the epoch when it has none); for local files the page's
    /// `fetched_at`, else the wall clock of the batch.
    pub processed_at: String,
    /// Where the input came from.
    pub source: Source,
    /// The `WARC-Record-ID` of the WARC record the page was read from, when it was: with
    /// `source`, the page's provenance.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub warc_record_id: Option<String>,
    /// What was wrong with the input record and how it was mended (a clamped event time, a
    /// dropped optional field); absent when nothing was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
