//! The tokenizer: lexes one page (`scan`) and assembles its text blocks.
//!
//! The lexer reports text runs as byte ranges of the page and tags as they are lexed in place
//! (with the attributes of markup hints); this module drives the open-element stack and the
//! block boundaries from them. The text of `script`, `style` and other raw-text elements is
//! skipped, but for the JSON-LD script the head reader captures.
//!
//! The raw text of a `<noscript>` in the body is what a client without scripting (a crawler)
//! renders: a nested pass of the lexer over those bytes of the page feeds the same state, so its
//! elements and text become blocks in place, as if the `<noscript>` were a `<div>`. The nested
//! pass never nests further (a `<noscript>` in its text is dropped), so every byte of a page is
//! lexed at most twice; blocks, open elements and block text share the page's limits.

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::hash::BlockHasher;
use super::head::{HeadReader, PageMeta};
use super::limits::ParseLimits;
use super::marks::{Capture, Marks};
use super::markup::{
    attributes, code_language, comments_only, names_reviews, script_type, Hint, ScriptType,
    TagToken, MARK_GALLERY, ROLE_ITEM, ROLE_LANGUAGE, ROLE_MAIN, ROLE_MATH_COPY, ROLE_MATH_SHOWN,
    ROLE_RESPONSIVE,
};
use super::math::MathReader;
use super::open::{OpenElements, RegionMarks};
use super::scan::{scan, Sink, TextKind};
use super::skeleton::{PageLinks, Recorder};
use super::tags::{
    classify, is_code, is_preformatted, tag_key, Tag, TagKey, BREAKOUT, CLOSES_SELECT, UNRENDERED,
};
use super::text::{decode_entities, BlockText};
use super::{Block, BlockError, Extent};

const KEY_P: TagKey = tag_key(b"p");
const KEY_BR: TagKey = tag_key(b"br");
const KEY_LI: TagKey = tag_key(b"li");
const KEY_BUTTON: TagKey = tag_key(b"button");
const KEY_A: TagKey = tag_key(b"a");
const KEY_ARTICLE: TagKey = tag_key(b"article");
const KEY_BODY: TagKey = tag_key(b"body");
const KEY_MAIN: TagKey = tag_key(b"main");
const KEY_NAV: TagKey = tag_key(b"nav");
const KEY_ASIDE: TagKey = tag_key(b"aside");
const KEY_FOOTER: TagKey = tag_key(b"footer");
const KEY_FIGCAPTION: TagKey = tag_key(b"figcaption");
const KEY_META: TagKey = tag_key(b"meta");
const KEY_LINK: TagKey = tag_key(b"link");
const KEY_SCRIPT: TagKey = tag_key(b"script");
const KEY_NOSCRIPT: TagKey = tag_key(b"noscript");
const KEY_TEMPLATE: TagKey = tag_key(b"template");
const KEY_TITLE: TagKey = tag_key(b"title");
const KEY_MATH: TagKey = tag_key(b"math");
const KEY_BASE: TagKey = tag_key(b"base");
const KEY_IMG: TagKey = tag_key(b"img");
const KEY_IMAGE: TagKey = tag_key(b"image");

/// What an element's name says of its content (HTML's sectioning semantics; a `<figcaption>`
/// is a picture's legend, not the running text).
#[inline]
fn tag_hint(key: TagKey) -> Hint {
    match key {
        KEY_ARTICLE | KEY_MAIN => Hint::Content,
        KEY_NAV | KEY_ASIDE | KEY_FOOTER | KEY_FIGCAPTION => Hint::Boilerplate,
        _ => Hint::None,
    }
}

/// Facts about the last page split, beyond its blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageStats {
    /// Start tags seen outside dropped content.
    pub elements: u32,
    /// True when the page had more than `ParseLimits::max_blocks` blocks and was cut.
    pub block_limit_hit: bool,
    /// Tags lexed on the whole page, as counted in [`Extent`](super::Extent) (so the markup
    /// after the last block is the page's total less that block's counts).
    pub tags: u32,
    /// Of them, `<a>` start and end tags.
    pub anchor_tags: u32,
    /// Bytes of those `<a>` tags.
    pub anchor_bytes: u32,
}

/// Splits HTML pages into text blocks. Owns the scratch buffers, so reusing one `Tokenizer` for
/// many pages allocates little beyond the returned blocks; each call needs `&mut self`, so use
/// one per worker thread.
pub struct Tokenizer {
    limits: ParseLimits,
    state: State,
    /// Record each page's elements and link targets ([`Tokenizer::record_links`]).
    record_links: bool,
}

/// Dropped content being skipped: the element that started it and how deeply it nests.
#[derive(Clone, Copy)]
struct Dropping {
    key: TagKey,
    tag: Tag,
    nest: u32,
}

#[derive(Default)]
struct State {
    open: OpenElements,
    text: BlockText,
    hasher: BlockHasher,
    block_path: String,
    block_ancestors: Vec<u32>,
    block_hint: Hint,
    /// The innermost element around the current block marked as a region around the text.
    block_marker: Option<u32>,
    block_marked_main: Option<u32>,
    block_main_landmark: bool,
    block_comments: bool,
    block_gallery: bool,
    block_comment_region: bool,
    block_hidden: Option<u32>,
    block_responsive: Option<u32>,
    block_reviews: Option<u32>,
    block_nested_article: bool,
    block_pre: Option<u32>,
    /// The language of the code of the `<pre>` with this ordinal (from its or its `<code>`'s
    /// class), and that of the current block.
    pre_language: Option<(u32, String)>,
    block_code_language: Option<String>,
    /// Code spans of the current block, and where the open one starts.
    code_spans: Vec<(u32, u32)>,
    code_start: Option<u32>,
    blocks: Vec<Block>,
    elements: u32,
    dropping: Option<Dropping>,
    stopped: bool,
    /// The page holds a place of a React streamed segment (`<template id="B:n">` or `P:n`).
    streamed: bool,
    head: HeadReader,
    /// True just after a `<noscript>` start tag in the body: its raw text comes next.
    noscript: bool,
    /// True during the nested pass over a noscript's text.
    nested: bool,
    /// The links, images and formulas of the current block.
    marks: Marks,
    /// The formula being read, inside a `<math>` or a TeX script.
    math: MathReader,
    /// The code language an open element around a `<pre>` names (`<div class="highlight-python">`,
    /// `<div class="language-rust highlighter-rouge">`), with that element's ordinal.
    wrapper_language: Option<(u32, String)>,
    /// Tags lexed so far on the page, and of them `<a>` tags with their bytes.
    tags: u32,
    anchor_tags: u32,
    anchor_bytes: u32,
    /// The current block's extent in the page.
    block_extent: Extent,
    /// The page's elements and link targets, when recorded.
    recorder: Recorder,
}

impl Tokenizer {
    /// A tokenizer applying `limits` to every page, recording neither links nor images (see
    /// [`with_capture`](Tokenizer::with_capture)).
    pub fn new(limits: ParseLimits) -> Self {
        Self::with_capture(limits, Capture::default())
    }

    /// A tokenizer applying `limits` to every page and recording what `capture` asks beyond the
    /// text: blocks and their identities are the same whatever it asks.
    pub fn with_capture(limits: ParseLimits, capture: Capture) -> Self {
        let mut state = State::default();
        state.marks.capture = capture;
        Self {
            limits,
            state,
            record_links: false,
        }
    }

    /// Records, from the next page on, each page's link targets and its elements' signatures in
    /// the same pass ([`Tokenizer::take_links`]), when `on`; pages cost a little more.
    pub fn record_links(&mut self, on: bool) {
        self.record_links = on;
    }

    /// The link targets and element signatures of the page last passed to
    /// [`blocks`](Tokenizer::blocks), when recorded (empty otherwise); a second call gives empty
    /// ones.
    pub fn take_links(&mut self) -> PageLinks {
        self.state.recorder.take()
    }

    /// The limits this tokenizer applies.
    pub fn limits(&self) -> &ParseLimits {
        &self.limits
    }

    /// Facts about the page last passed to [`blocks`](Tokenizer::blocks).
    pub fn stats(&self) -> PageStats {
        PageStats {
            elements: self.state.elements,
            block_limit_hit: self.state.stopped,
            tags: self.state.tags,
            anchor_tags: self.state.anchor_tags,
            anchor_bytes: self.state.anchor_bytes,
        }
    }

    /// The metadata of the page last passed to [`blocks`](Tokenizer::blocks) (read in the same
    /// pass; see [`PageMeta`]); a second call gives an empty one.
    pub fn take_meta(&mut self) -> PageMeta {
        self.state.head.take()
    }

    /// Splits `html` (UTF-8 bytes; invalid UTF-8 is replaced by U+FFFD, never an error) into its
    /// text blocks, in document order. Every block satisfies the invariants documented on
    /// [`Block`]. Fails only when the page exceeds `ParseLimits::max_html_bytes`.
    pub fn blocks(&mut self, html: &[u8]) -> Result<Vec<Block>, BlockError> {
        self.split(html, std::str::from_utf8(html).ok())
    }

    /// [`blocks`](Tokenizer::blocks) of a page already known to be text, which it does not
    /// validate again.
    pub fn blocks_str(&mut self, html: &str) -> Result<Vec<Block>, BlockError> {
        self.split(html.as_bytes(), Some(html))
    }

    /// Splits `html`, which is `utf8` when that is `Some`. React's streamed segments are read
    /// where its script puts them: a page that has a place for one is read again with the
    /// segments moved in (`streamed`), so only such a page pays a second pass.
    fn split(&mut self, html: &[u8], utf8: Option<&str>) -> Result<Vec<Block>, BlockError> {
        let blocks = self.split_once(html, utf8)?;
        if self.state.streamed {
            if let Some(page) = super::streamed::reinsert(html) {
                return self.split_once(&page, std::str::from_utf8(&page).ok());
            }
        }
        Ok(blocks)
    }

    /// One pass of the lexer over `html`, which is `utf8` when that is `Some`.
    fn split_once(&mut self, html: &[u8], utf8: Option<&str>) -> Result<Vec<Block>, BlockError> {
        if html.len() > self.limits.max_html_bytes {
            return Err(BlockError::TooLarge {
                bytes: html.len(),
                limit: self.limits.max_html_bytes,
            });
        }
        let limits = &self.limits;
        let state = &mut self.state;
        state.reset();
        state.recorder.reset(self.record_links);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut pass = Pass {
                state: &mut *state,
                limits,
                html,
                utf8,
            };
            scan(html, 0, &mut pass);
        }));
        if outcome.is_err() {
            state.reset();
            return Err(BlockError::Parse("the HTML lexer panicked".into()));
        }
        if !state.stopped {
            // A formula the page cut short shows what was read of it.
            state.finish_math(limits);
            state.finish_block(limits);
        }
        state.head.end_raw_text();
        // The next page likely has about as many blocks: start it with that much room.
        let room = state.blocks.len().min(limits.max_blocks);
        Ok(std::mem::replace(
            &mut state.blocks,
            Vec::with_capacity(room),
        ))
    }
}

/// One pass of the lexer over a page, feeding the tokenizer's state.
struct Pass<'a, 's> {
    state: &'s mut State,
    limits: &'s ParseLimits,
    html: &'a [u8],
    /// The page as text, when it is valid UTF-8 (as every page the engine decodes is).
    utf8: Option<&'a str>,
}

impl<'a> Pass<'a, '_> {
    /// The page's bytes `start..end` as text (invalid UTF-8 replaced by U+FFFD).
    fn text_of(&self, start: usize, end: usize) -> Cow<'a, str> {
        match self.utf8.and_then(|s| s.get(start..end)) {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(self.html.get(start..end).unwrap_or_default()),
        }
    }

    /// The nested pass: lexes `html[start..end]`, a noscript's raw text, as HTML into the page's
    /// blocks, then closes what it left open inside the noscript.
    fn noscript_pass(&mut self, start: usize, end: usize) {
        let Some(content) = self.html.get(..end) else {
            return;
        };
        self.state.nested = true;
        scan(content, start, self);
        let state = &mut *self.state;
        if !state.stopped {
            // A formula the noscript's text cut short ends with it, in its block, as an
            // element's end tag would end it: that tag, the `</noscript>` the outer pass counts
            // next, is among the tags before the formula's block.
            let closed = self
                .html
                .get(end..end + 10)
                .is_some_and(|t| t.eq_ignore_ascii_case(b"</noscript"));
            let tags = state.tags;
            if closed && state.math.active() {
                state.tags = tags.saturating_add(1);
            }
            state.finish_math(self.limits);
            state.tags = tags;
            state.finish_block(self.limits);
        }
        state.nested = false;
        // What the noscript's text left open ends with it: dropped content, and the elements
        // opened inside it.
        if state.dropping.take().is_some() {
            state.head.end_raw_text();
        }
        if let Some(i) = state.open.find(KEY_NOSCRIPT, |_| false) {
            state.open.pop_to(i + 1);
        }
    }
}

impl<'a> Sink<'a> for Pass<'a, '_> {
    fn tag(&mut self, tag: TagToken<'a>) -> bool {
        self.state.count_tag(&tag);
        if tag.end {
            self.state.end_tag(tag.name, self.limits);
        } else {
            self.state.start_tag(tag, self.limits);
        }
        !self.state.stopped
    }

    fn text(&mut self, start: usize, end: usize, kind: TextKind) -> bool {
        let state = &*self.state;
        match kind {
            TextKind::Data | TextKind::PlainText if state.dropping.is_none() => {
                let text = self.text_of(start, end);
                self.state
                    .push_node(&text, kind == TextKind::Data, self.limits, (start, end));
            }
            TextKind::Data | TextKind::Script if state.math.active() => {
                let text = self.text_of(start, end);
                if kind == TextKind::Data {
                    self.state.math.text(&decode_entities(&text));
                } else {
                    self.state.math.text(&text);
                }
            }
            TextKind::Script if state.head.capturing() => {
                let text = self.text_of(start, end);
                self.state.head.script_text(&text);
            }
            TextKind::Raw if state.head.capturing_title() => {
                let text = self.text_of(start, end);
                self.state.head.title_text(&text);
            }
            TextKind::Raw if state.noscript && state.dropping.is_none() => {
                self.state.noscript = false;
                self.noscript_pass(start, end);
            }
            _ => {}
        }
        !self.state.stopped
    }

    fn foreign(&self) -> bool {
        self.state.dropping.is_some_and(|d| d.tag == Tag::Foreign)
    }
}

/// True for the elements of MathJax 3's typeset formulas (`mjx-container`, `mjx-math`, ...):
/// inline, as the formula stands in its sentence (its text is in the MathML they hold).
#[inline]
fn is_mathjax(name: &[u8]) -> bool {
    name.len() > 4 && name[..4].eq_ignore_ascii_case(b"mjx-")
}

/// True when a `<template>` start tag's attributes declare a shadow root
/// (`shadowrootmode="open|closed"`, or the earlier `shadowroot`).
fn declares_shadow_root(attrs: &[u8]) -> bool {
    attributes(attrs).any(|(name, value)| {
        (name.eq_ignore_ascii_case(b"shadowrootmode") || name.eq_ignore_ascii_case(b"shadowroot"))
            && (value.eq_ignore_ascii_case(b"open") || value.eq_ignore_ascii_case(b"closed"))
    })
}

/// The block's code spans within its finished `text`: empty ones (and what truncation or trimming
/// cut) dropped; clears `spans`.
fn code_spans(spans: &mut Vec<(u32, u32)>, text: &str) -> Vec<(u32, u32)> {
    if spans.is_empty() {
        return Vec::new();
    }
    let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
    spans
        .drain(..)
        .map(|(start, end)| (start.min(len), end.min(len)))
        .filter(|&(start, end)| start < end)
        .collect()
}

impl State {
    fn reset(&mut self) {
        self.open.clear();
        self.text.clear();
        self.hasher.reset();
        self.block_path.clear();
        self.block_ancestors.clear();
        self.block_hint = Hint::None;
        self.block_marker = None;
        self.block_marked_main = None;
        self.block_main_landmark = false;
        self.block_comments = false;
        self.block_gallery = false;
        self.block_comment_region = false;
        self.block_hidden = None;
        self.block_responsive = None;
        self.block_reviews = None;
        self.block_nested_article = false;
        self.block_pre = None;
        self.pre_language = None;
        self.block_code_language = None;
        self.code_spans.clear();
        self.code_start = None;
        self.blocks.clear();
        self.elements = 0;
        self.dropping = None;
        self.stopped = false;
        self.streamed = false;
        self.head.reset();
        self.noscript = false;
        self.nested = false;
        self.marks.reset();
        self.math.reset();
        self.wrapper_language = None;
        self.tags = 0;
        self.anchor_tags = 0;
        self.anchor_bytes = 0;
        self.block_extent = Extent::default();
    }

    /// Counts a lexed tag for the blocks' extents.
    #[inline]
    fn count_tag(&mut self, tag: &TagToken<'_>) {
        self.tags = self.tags.saturating_add(1);
        if let [b'a' | b'A'] = tag.name {
            // `<a` and its attributes up to `>`, or `</a>`.
            let bytes = if tag.end { 4 } else { 2 + tag.attrs.len() };
            self.anchor_tags = self.anchor_tags.saturating_add(1);
            self.anchor_bytes = self
                .anchor_bytes
                .saturating_add(u32::try_from(bytes).unwrap_or(u32::MAX));
        }
    }

    /// Notes a text run at page bytes `run` in the current block's extent: the run that gives
    /// the block its first visible character starts it, every later one extends it.
    #[inline]
    fn extend_block(&mut self, started: bool, (start, end): (usize, usize)) {
        let offset = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        let extent = &mut self.block_extent;
        if started {
            *extent = Extent {
                start: offset(start),
                tags_before: self.tags,
                anchor_tags_before: self.anchor_tags,
                anchor_bytes_before: self.anchor_bytes,
                ..Extent::default()
            };
        }
        extent.end = offset(end);
        extent.text_bytes = extent
            .text_bytes
            .saturating_add(offset(end.saturating_sub(start)));
        extent.tags = self.tags - extent.tags_before;
        extent.anchor_tags = self.anchor_tags - extent.anchor_tags_before;
        extent.anchor_bytes = self.anchor_bytes - extent.anchor_bytes_before;
    }

    /// Appends the raw text of one text node to the current block.
    #[inline(always)]
    fn push_node(&mut self, raw: &str, decode: bool, limits: &ParseLimits, run: (usize, usize)) {
        let text: Cow<'_, str> = if decode {
            decode_entities(raw)
        } else {
            Cow::Borrowed(raw)
        };
        let was_empty = self.text.is_empty();
        let pre = self.open.pre();
        let (in_link, max_chars) = (self.open.in_link(), limits.max_block_chars.max(1));
        let code = pre.is_none() && self.open.in_code();
        if code != self.code_start.is_some() {
            self.code_span_edge();
        }
        let at = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if pre.is_some() {
            self.text
                .push_pre(&text, in_link, &mut self.hasher, max_chars);
        } else {
            self.text.push(&text, in_link, &mut self.hasher, max_chars);
        }
        let capture = self.marks.capture;
        if (capture.links || capture.images) && !self.text.is_empty() {
            let link = if in_link { self.open.link() } else { None };
            self.marks.text_at(at, link, was_empty);
        }
        if was_empty && !self.text.is_empty() {
            self.block_path = self.open.path(limits.max_depth);
            self.block_ancestors = self
                .open
                .ancestors(limits.max_ancestors.min(limits.max_depth));
            self.block_hint = self.open.hint();
            (
                self.block_marker,
                self.block_gallery,
                self.block_comment_region,
            ) = self.open.marker();
            (self.block_marked_main, self.block_main_landmark) = match self.open.marked_main() {
                Some((element, landmark)) => (Some(element), landmark),
                None => (None, false),
            };
            self.block_comments = self.open.in_comments();
            self.block_hidden = self.open.hidden();
            self.block_responsive = self.open.responsive();
            self.block_reviews = self.open.reviews();
            self.block_nested_article = self.open.in_nested_article();
            self.block_pre = pre;
            self.block_code_language = match (pre, &self.pre_language) {
                (Some(ordinal), Some((at, language))) if ordinal == *at => Some(language.clone()),
                _ => None,
            };
        }
        if !self.text.is_empty() {
            self.extend_block(was_empty, run);
        }
    }

    /// Notes the language a `<pre>`, or a `<code>` inside one, names for the `<pre>`'s code
    /// (the first one named wins), else the one an open element around it names.
    fn note_code_language(&mut self, attrs: &[u8], roles: u8) {
        let Some(ordinal) = self.open.pre() else {
            return;
        };
        if self
            .pre_language
            .as_ref()
            .is_some_and(|(at, _)| *at == ordinal)
        {
            return;
        }
        let own = if roles & ROLE_LANGUAGE != 0 {
            code_language(attrs)
        } else {
            None
        };
        let language = own.or_else(|| {
            self.wrapper_language
                .as_ref()
                .filter(|(wrapper, _)| self.open.has_container(*wrapper))
                .map(|(_, language)| language.clone())
        });
        if let Some(language) = language {
            self.pre_language = Some((ordinal, language));
        }
    }

    /// Ends the formula being read, if any: its linear form joins the block's text, marked with
    /// its TeX source.
    fn finish_math(&mut self, limits: &ParseLimits) {
        let Some(formula) = self.math.finish() else {
            return;
        };
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        // The linear form is no run of the page's bytes: for the block's extent it stands at
        // the end of the text before it (a zero-length run; the formula's markup counts as tags).
        let at = self.block_extent.end as usize;
        self.push_node(&formula.linear, false, limits, (at, at));
        let end = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.marks.math(start, end, formula.tex, formula.display);
    }

    /// Opens a code span where the block's text is now, or closes the open one there.
    fn code_span_edge(&mut self) {
        let at = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        match self.code_start.take() {
            Some(start) => self.code_spans.push((start, at)),
            None => self.code_start = Some(at),
        }
    }

    /// Emits the current block, if it has text.
    fn finish_block(&mut self, limits: &ParseLimits) {
        if self.code_start.is_some() {
            self.code_span_edge();
        }
        if self.text.is_empty() {
            self.text.forget_lead();
            self.code_spans.clear();
            let blocks = &mut self.blocks;
            self.marks.empty_block(|| blocks.last_mut());
            return;
        }
        let hash = self.hasher.finish();
        let Some(done) = self.text.finish() else {
            self.code_spans.clear();
            let blocks = &mut self.blocks;
            self.marks.empty_block(|| blocks.last_mut());
            return;
        };
        let (links, images, math) = self.marks.finish(&done.text);
        if self.blocks.len() >= limits.max_blocks {
            self.stopped = true;
        } else {
            let code_spans = code_spans(&mut self.code_spans, &done.text);
            self.blocks.push(Block {
                text: done.text,
                hash,
                path: std::mem::take(&mut self.block_path),
                ancestors: std::mem::take(&mut self.block_ancestors),
                link_chars: done.link_chars,
                chars: done.chars,
                truncated: done.truncated,
                hint: self.block_hint,
                marker: self.block_marker,
                marked_main: self.block_marked_main,
                main_landmark: self.block_main_landmark,
                comments: self.block_comments,
                gallery: self.block_gallery,
                comment_region: self.block_comment_region,
                hidden: self.block_hidden,
                responsive: self.block_responsive,
                reviews: self.block_reviews,
                nested_article: self.block_nested_article,
                pre: self.block_pre,
                code_language: self.block_code_language.take(),
                code_spans,
                links,
                images,
                math,
                extent: self.block_extent,
            });
        }
    }

    fn start_tag(&mut self, token: TagToken<'_>, limits: &ParseLimits) {
        let TagToken {
            name,
            self_closing,
            href,
            ..
        } = token;
        let key = tag_key(name);
        let (mut tag, flags) = classify(key);
        self.noscript = false;
        if let Some(d) = self.dropping.as_mut() {
            let ends = match d.tag {
                Tag::Foreign => flags & BREAKOUT != 0,
                Tag::Select => flags & CLOSES_SELECT != 0,
                // A second rendering of a formula holds inline markup only: where a block
                // starts, its end tag went missing.
                Tag::Inline => tag.closes_p(),
                _ => false,
            };
            if !ends {
                if key == d.key && !(d.tag == Tag::Foreign && self_closing) {
                    d.nest = d.nest.saturating_add(1);
                }
                if d.key == KEY_MATH {
                    self.math.start(name, token.attrs, self_closing);
                }
                return;
            }
            let closed = *d;
            self.dropping = None;
            if closed.key == KEY_MATH {
                self.finish_math(limits);
            }
            if closed.tag == Tag::Select && key == closed.key {
                return;
            }
        }
        // A second `<html>` or `<body>`, or a `<head>` inside the body (a whole document pasted
        // into a post) opens nothing and breaks no text: HTML's tree builder adds a second root's
        // attributes to the open one and ignores a head in the body.
        let open_as = if tag == Tag::Head { KEY_BODY } else { key };
        if matches!(tag, Tag::Root | Tag::Head) && self.open.find(open_as, |_| false).is_some() {
            return;
        }
        if tag == Tag::Noscript
            && (self.nested || self.open.find_tag(|t| t == Tag::Head, |_| false).is_some())
        {
            // A noscript in the head holds styles, links and pixels, never text; one inside
            // another's text is not parsed again (the nested pass does not nest).
            tag = Tag::Drop;
        }
        if key == KEY_TEMPLATE && super::streamed::is_place(token.attrs) {
            self.streamed = true;
        }
        if key == KEY_TEMPLATE && declares_shadow_root(token.attrs) {
            // A declarative shadow root: the browser renders its content in its host, as the
            // host's first child; a `<template>` is otherwise inert.
            tag = Tag::Other;
        }
        if tag == Tag::Other && is_mathjax(name) {
            tag = Tag::Inline;
        }
        let script = if key == KEY_SCRIPT {
            script_type(token.attrs)
        } else {
            ScriptType::Other
        };
        let ordinal = self.elements;
        self.elements = self.elements.saturating_add(1);
        // A formula stands in its sentence.
        let in_text = key == KEY_MATH || matches!(script, ScriptType::Tex { .. });
        // An element a browser never renders (a script, a style sheet) breaks no line: the
        // text on either side of it is one run.
        let unrendered = flags & UNRENDERED != 0 && tag == Tag::Drop;
        if !tag.is_inline() && !in_text && !unrendered {
            self.finish_block(limits);
        }
        self.implied_end_tags(tag);
        if self.recorder.on() {
            let parent = self.open.top_ordinal();
            self.recorder.element(ordinal, parent, name, token.attrs);
            if key == KEY_A && href {
                self.recorder.link(token.attrs);
            }
        }
        if token.roles & ROLE_ITEM != 0 && !self.nested {
            self.head.item_type(token.attrs);
        }
        if token.roles & ROLE_MATH_COPY != 0
            && matches!(tag, Tag::Inline | Tag::ClosesP | Tag::Other)
            && !self_closing
        {
            // The glyphs or preview of a formula the page also ships as MathML or TeX, read
            // there.
            self.dropping = Some(Dropping {
                key,
                tag: Tag::Inline,
                nest: 1,
            });
            return;
        }
        match tag {
            // The page's metadata is not read from a noscript's text (the nested pass): the
            // page's own head and body state it.
            Tag::Void | Tag::InlineVoid => match key {
                KEY_META if !self.nested => self.head.meta_tag(token.attrs),
                KEY_LINK if !self.nested => self.head.link_tag(token.attrs),
                KEY_BASE if !self.nested => self.head.base_tag(token.attrs),
                KEY_IMG | KEY_IMAGE if self.marks.capture.images && self.open.pre().is_none() => {
                    let at = (!self.text.is_empty())
                        .then(|| u32::try_from(self.text.len()).unwrap_or(u32::MAX));
                    self.marks.image(token.attrs, token.roles, at);
                }
                _ => {}
            },
            Tag::Drop | Tag::Select => {
                self.dropping = Some(Dropping { key, tag, nest: 1 });
                match script {
                    ScriptType::Tex { display } => self.math.begin_script(display),
                    _ if key == KEY_SCRIPT && !self.nested => {
                        self.head.script_tag(script == ScriptType::JsonLd);
                    }
                    _ if key == KEY_TITLE && !self.nested => self.head.title_tag(),
                    _ => {}
                }
            }
            Tag::Foreign => {
                if !self_closing {
                    self.dropping = Some(Dropping { key, tag, nest: 1 });
                    if key == KEY_MATH {
                        self.math.begin_math(token.attrs);
                    }
                }
            }
            _ => {
                if tag == Tag::Noscript {
                    self.noscript = true;
                }
                if self.open.len() < limits.max_open_elements {
                    let marks = self.region_marks(key, tag, &token);
                    // MediaWiki hides its MathML where it shows the formula's picture.
                    let hidden =
                        token.hidden && tag != Tag::Root && token.roles & ROLE_MATH_SHOWN == 0;
                    let link = (tag == Tag::A && href).then(|| self.marks.link_target(token.attrs));
                    self.open.push(key, tag, name, ordinal, link, marks, hidden);
                    if is_preformatted(key) || is_code(key) {
                        self.note_code_language(token.attrs, token.roles);
                    } else if token.roles & ROLE_LANGUAGE != 0 && !tag.is_inline() {
                        if let Some(language) = code_language(token.attrs) {
                            self.wrapper_language = Some((ordinal, language));
                        }
                    }
                }
            }
        }
    }

    /// What an element's markup says of it as a region ([`RegionMarks`]): of its content,
    /// whether it marks the element as around the main text by words naming comments alone,
    /// whether its class names a gallery, whether its `class` or `id` names reviews. The page's
    /// root elements carry page-wide classes ("penci_sidebar", "has-reviews"), not a region's. Inside the main text that the
    /// markup marks, ids are mostly slugs of the text's headings ("buffer-related-functions")
    /// and an aside is the text's own note (HTML: tangential to the article it is in), so
    /// neither marks a region.
    fn region_marks(&self, key: TagKey, tag: Tag, token: &TagToken<'_>) -> RegionMarks {
        if tag == Tag::Root {
            return RegionMarks::default();
        }
        let in_main = self.open.hint() == Hint::Content;
        let tag_hint = if in_main && key == KEY_ASIDE {
            Hint::None
        } else {
            tag_hint(key)
        };
        let (hint, id_hint) = if in_main {
            (token.hint.max(tag_hint), None)
        } else {
            (
                token.hint.max(token.id_hint).max(tag_hint),
                Some(token.id_hint),
            )
        };
        // Only the region's names can call it comments: `<nav>`, `<aside>` or `<footer>` name
        // another.
        let comments = hint == Hint::Boilerplate
            && token.marks != 0
            && tag_hint != Hint::Boilerplate
            && comments_only(token.hint, id_hint, token.marks);
        RegionMarks {
            hint,
            comments,
            gallery: token.hint == Hint::Boilerplate && token.marks & MARK_GALLERY != 0,
            reviews: names_reviews(token.marks),
            responsive: token.roles & ROLE_RESPONSIVE != 0,
            landmark: key == KEY_MAIN || token.roles & ROLE_MAIN != 0,
        }
    }

    /// Closes the elements a start tag of `tag` implicitly ends (HTML tree construction, in short).
    fn implied_end_tags(&mut self, tag: Tag) {
        let open = &mut self.open;
        if tag.closes_p() {
            if let Some(i) = open.find(KEY_P, |t| t == Tag::Button || t.is_scope_boundary()) {
                open.pop_to(i);
            }
        }
        let found = match tag {
            // A button holds no button: a start tag left open (a `>` missing, so the end tag
            // became an attribute) is closed by the next.
            Tag::Button => open.find(KEY_BUTTON, Tag::is_scope_boundary),
            Tag::Li => open.find(KEY_LI, |t| t == Tag::List || t.is_scope_boundary()),
            Tag::DtDd => open.find_tag(
                |t| t == Tag::DtDd,
                |t| t == Tag::Dl || t.is_scope_boundary(),
            ),
            Tag::Section => open
                .find_tag(|t| t == Tag::Table, |t| t == Tag::Root)
                .map(|i| i + 1),
            Tag::Tr => open
                .find_tag(
                    |t| matches!(t, Tag::Section | Tag::Table),
                    |t| t == Tag::Root,
                )
                .map(|i| i + 1),
            Tag::Cell => open
                .find_tag(|t| matches!(t, Tag::Tr | Tag::Table), |t| t == Tag::Root)
                .map(|i| i + 1),
            Tag::Root => open.find_tag(|t| t == Tag::Head, |_| false),
            Tag::Heading => match open.top() {
                Some(Tag::Heading) => Some(open.len() - 1),
                _ => None,
            },
            Tag::A => {
                if let Some(i) = open.find(KEY_A, Tag::is_scope_boundary) {
                    open.remove_inline(i);
                }
                None
            }
            _ => None,
        };
        if let Some(i) = found {
            open.pop_to(i);
        }
    }

    fn end_tag(&mut self, name: &[u8], limits: &ParseLimits) {
        let key = tag_key(name);
        self.noscript = false;
        if let Some(d) = self.dropping.as_mut() {
            // In SVG and MathML, `</br>` and `</p>` end the foreign content, as their start tags
            // do, and then act as in HTML.
            let breakout = d.tag == Tag::Foreign && matches!(key, KEY_BR | KEY_P);
            if !breakout {
                if key == d.key {
                    d.nest -= 1;
                    if d.nest == 0 {
                        self.dropping = None;
                        self.head.end_raw_text();
                        if self.math.active() {
                            self.finish_math(limits);
                        }
                        return;
                    }
                }
                if d.key == KEY_MATH {
                    self.math.end(name);
                }
                return;
            }
            let math = d.key == KEY_MATH;
            self.dropping = None;
            if math {
                self.finish_math(limits);
            }
        }
        let (mut tag, _) = classify(key);
        if tag == Tag::Other && is_mathjax(name) {
            tag = Tag::Inline;
        }
        if tag.is_inline() {
            // Close it in place when only inline elements are above it; otherwise just forget
            // it, so the containers opened inside it stay open (as HTML's adoption agency does).
            if let Some(i) = self.open.find(key, |_| false) {
                match self.open.find_tag(|t| !t.is_inline(), |_| false) {
                    Some(c) if c > i => self.open.remove_inline(i),
                    _ => self.open.pop_to(i),
                }
            }
            return;
        }
        if tag == Tag::Head && self.open.find(KEY_BODY, |_| false).is_some() {
            // The end of a head inside the body closes nothing (see `start_tag`).
            return;
        }
        self.finish_block(limits);
        if matches!(tag, Tag::Root | Tag::Void) {
            return;
        }
        // Table parts close within their table; everything else within the default scope.
        let stop: fn(Tag) -> bool = match tag {
            Tag::Table | Tag::Tr | Tag::Cell | Tag::Section => {
                |t| t == Tag::Table || t == Tag::Root
            }
            _ => Tag::is_scope_boundary,
        };
        if let Some(i) = self.open.find(key, stop) {
            self.open.pop_to(i);
        }
    }
}
