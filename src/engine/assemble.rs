//! The **assemble** stage: the clean-text record of a classified page. Pure.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::lookup::Evidence;
use crate::blocks::{Block, PageMeta};
use crate::config::OutputOptions;
use crate::record::{BlockDetail, CleanRecord, ModelInfo, RawPage, Source};
use crate::tree::kind::{self, Kept, Layout};
use crate::tree::{Branch, Heuristic, Label, Reason};
use crate::urlkey::UrlKey;
use crate::{lang, markdown};

/// Everything the record is assembled from.
pub(super) struct Classified<'p> {
    pub page: RawPage,
    pub key: UrlKey,
    pub branch: &'p Branch,
    pub blocks: &'p [Block],
    pub evidence: &'p Evidence,
    pub reasons: &'p [Reason],
    pub layout: Layout,
    pub heuristic: Heuristic,
    pub meta: PageMeta,
    /// The page's URL files it as documentation ([`kind::documentation_url`]), as the classifier
    /// was told.
    pub documentation_url: bool,
}

/// How many blocks the record kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub content: u64,
    pub boilerplate: u64,
}

/// The clean-text record: the content blocks joined by blank lines (by a line break between parts
/// of one `<pre>`), rendered as Markdown, with its language and per-block detail as `output` asks,
/// the page's metadata, the model that decided, and the record's times and source.
pub(super) fn record(
    classified: Classified<'_>,
    source: &Source,
    timestamp_ms: Option<i64>,
    batch_started: &str,
    output: &OutputOptions,
) -> (CleanRecord, Tally) {
    let Classified {
        page,
        key,
        branch,
        blocks,
        evidence,
        reasons,
        layout,
        heuristic,
        meta,
        documentation_url,
    } = classified;
    let (text_marks, markdown_marks) = marks(output, page.effective_url(), &meta);
    let canonical_url = meta
        .canonical_url
        .and_then(|href| canonical_url(page.effective_url(), &href));
    let mut tally = Tally::default();
    let mut text = String::with_capacity(page.html.len() / 8);
    let mut details = output.blocks.then(|| Vec::with_capacity(blocks.len()));
    let mut content = Vec::new();
    let mut last_pre = None;
    let mut kept = Kept::default();
    for ((block, &count), &reason) in blocks.iter().zip(&evidence.counts).zip(reasons) {
        match reason.label() {
            Label::Content => {
                tally.content += 1;
                kept.add(block);
                if !text.is_empty() {
                    // Parts of one preformatted text (split by a `<br>`) are its lines.
                    let same_pre = block.pre.is_some() && block.pre == last_pre;
                    text.push_str(if same_pre { "\n" } else { "\n\n" });
                }
                match &text_marks {
                    Some(options) => markdown::write_text(&mut text, block, options),
                    None => text.push_str(&block.text),
                }
                last_pre = block.pre;
                if output.markdown || output.lang {
                    content.push(block);
                }
            }
            Label::Boilerplate => tally.boilerplate += 1,
        }
        if let Some(details) = details.as_mut() {
            details.push(detail(block, reason, count));
        }
    }
    let choice = evidence.choice;
    // Only a judged page has a kind.
    let documentation_url = layout != Layout::Unknown && documentation_url;
    let record = CleanRecord {
        url: page.url,
        response_url: page.response_url,
        url_key: key.key,
        domain: key.domain,
        // The record's own title, else the page's `<title>`.
        title: page.title.or(meta.title),
        text,
        markdown: output
            .markdown
            .then(|| markdown::render_with(content.iter().copied(), &markdown_marks)),
        lang: if output.lang {
            lang::detect(content)
        } else {
            None
        },
        blocks: details,
        model: ModelInfo {
            node: branch.path_to(choice.depth),
            support: choice.support,
            heuristic: heuristic.to_string(),
            cold_start: choice.cold_start,
        },
        description: meta.description,
        author: meta.author,
        published: meta.published,
        canonical_url,
        site_name: meta.site_name,
        page_kind: (layout != Layout::Unknown).then(|| {
            kind::infer(
                layout,
                &meta.types,
                &meta.item_types,
                kept,
                documentation_url,
            )
        }),
        fetched_at: page.fetched_at.and_then(|t| t.format(&Rfc3339).ok()),
        encoding: page.encoding,
        processed_at: processed_at(timestamp_ms, page.fetched_at, batch_started),
        source: source.clone(),
        warc_record_id: page.warc_record_id,
        warnings: Vec::new(),
    };
    (record, tally)
}

/// What the plain text (None when it is the blocks' text alone) and the Markdown show of links
/// and images, both resolving against the page's `<base href>` and its URL.
fn marks(
    output: &OutputOptions,
    page_url: &str,
    meta: &PageMeta,
) -> (Option<markdown::Options>, markdown::Options) {
    let (links, images) = (output.include_links, output.include_images);
    let in_text = links.text() || images.text();
    let in_markdown = output.markdown && (links.markdown() || images.markdown());
    let base = (in_text || in_markdown)
        .then(|| markdown::base_url(page_url, meta.base_href.as_deref()))
        .flatten();
    let text = in_text.then(|| markdown::Options {
        links: links.text(),
        images: images.text(),
        base: base.clone(),
    });
    let markdown = markdown::Options {
        links: links.markdown(),
        images: images.markdown(),
        base,
    };
    (text, markdown)
}

/// The page's canonical URL: `href` resolved against the page's URL, when it is an http(s) URL.
fn canonical_url(page_url: &str, href: &str) -> Option<String> {
    let base = url::Url::parse(page_url).ok();
    let url = url::Url::options()
        .base_url(base.as_ref())
        .parse(href)
        .ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.into())
}

/// The output's `processed_at`: the input record's own timestamp (the Kafka record time), else
/// the page's `fetched_at`, else the wall clock when the batch started (local input without
/// times). A replayed record therefore gets the same `processed_at` as the first time, the way
/// Kafka Streams propagates the input record's timestamp to its outputs.
fn processed_at(
    timestamp_ms: Option<i64>,
    fetched_at: Option<OffsetDateTime>,
    batch_started: &str,
) -> String {
    timestamp_ms
        .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok())
        .or(fetched_at)
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| batch_started.to_owned())
}

fn detail(block: &Block, reason: Reason, count: Option<u64>) -> BlockDetail {
    BlockDetail {
        text: block.text.clone(),
        label: reason.label(),
        count: count.unwrap_or(0),
        reason: reason.as_str().to_owned(),
        path: block.path.clone(),
    }
}
