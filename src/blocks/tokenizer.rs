//! The tokenizer: drives lol_html over one page and assembles the page's text blocks.
//!
//! lol_html runs with a single document-level text handler, which is its cheapest mode that
//! still reports text: no selectors, no per-element callbacks, no end-tag closures. Each text
//! chunk comes with its source range; the markup between two chunks is lexed for tag names (and
//! the attributes of markup hints) by `markup::scan_markup`, which drives the open-element stack
//! and the block boundaries. Text
//! types from lol_html drop script, style and other raw text without tracking those elements.
//!
//! The raw text of a `<noscript>` in the body is what a client without scripting (a crawler)
//! renders: once its text node is complete, a nested lol_html pass over those bytes of the page
//! feeds the same state, so its elements and text become blocks in place, as if the `<noscript>`
//! were a `<div>`. The nested pass never nests further (a `<noscript>` in its text is dropped),
//! so every byte of a page is parsed at most twice and the parser's buffers are at most twice
//! `ParseLimits::max_memory_bytes`; blocks, open elements and block text share the page's limits.

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use lol_html::errors::RewritingError;
use lol_html::html_content::{TextChunk, TextType};
use lol_html::{doc_text, HandlerResult, HtmlRewriter, Settings};
use memchr::memrchr;

use super::hash::BlockHasher;
use super::head::{HeadReader, PageMeta};
use super::limits::ParseLimits;
use super::markup::{code_language, scan_markup, Hint, TagToken};
use super::open::OpenElements;
use super::tags::{
    classify, is_code, is_preformatted, tag_key, Tag, TagKey, BREAKOUT, CLOSES_SELECT,
};
use super::text::{decode_entities, BlockText};
use super::{Block, BlockError};

const KEY_P: TagKey = tag_key(b"p");
const KEY_LI: TagKey = tag_key(b"li");
const KEY_A: TagKey = tag_key(b"a");
const KEY_ARTICLE: TagKey = tag_key(b"article");
const KEY_MAIN: TagKey = tag_key(b"main");
const KEY_NAV: TagKey = tag_key(b"nav");
const KEY_ASIDE: TagKey = tag_key(b"aside");
const KEY_FOOTER: TagKey = tag_key(b"footer");
const KEY_FIGCAPTION: TagKey = tag_key(b"figcaption");
const KEY_META: TagKey = tag_key(b"meta");
const KEY_LINK: TagKey = tag_key(b"link");
const KEY_SCRIPT: TagKey = tag_key(b"script");
const KEY_NOSCRIPT: TagKey = tag_key(b"noscript");

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
}

/// Splits HTML pages into text blocks. Owns the scratch buffers, so reusing one `Tokenizer` for
/// many pages allocates little beyond the returned blocks; each call needs `&mut self`, so use
/// one per worker thread.
pub struct Tokenizer {
    limits: ParseLimits,
    state: State,
}

/// Dropped content being skipped: the element that started it and how deeply it nests.
#[derive(Clone, Copy)]
struct Dropping {
    key: TagKey,
    tag: Tag,
    nest: u32,
}

/// Where the raw text of an open `<noscript>` in the body stands.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Noscript {
    /// No noscript text expected.
    #[default]
    None,
    /// A `<noscript>` start tag was just read: its raw text comes next.
    Expected,
    /// Its raw text so far: the page's bytes `start..end`.
    Reading { start: usize, end: usize },
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
    block_hidden: bool,
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
    /// Raw text of a text node that arrived in several chunks.
    pending: String,
    pending_decode: bool,
    /// End of the input consumed so far (text chunks and the markup before them).
    cursor: usize,
    elements: u32,
    dropping: Option<Dropping>,
    stopped: bool,
    head: HeadReader,
    noscript: Noscript,
    /// True during the nested pass over a noscript's text.
    nested: bool,
    /// Why the nested pass failed, reported as the page's error.
    failure: Option<BlockError>,
}

impl Tokenizer {
    /// A tokenizer applying `limits` to every page.
    pub fn new(limits: ParseLimits) -> Self {
        Self {
            limits,
            state: State::default(),
        }
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
        }
    }

    /// The metadata of the page last passed to [`blocks`](Tokenizer::blocks) (read in the same
    /// pass; see [`PageMeta`]); a second call gives an empty one.
    pub fn take_meta(&mut self) -> PageMeta {
        self.state.head.take()
    }

    /// Splits `html` (UTF-8 bytes; invalid UTF-8 is replaced by U+FFFD, never an error) into its
    /// text blocks, in document order. Every block satisfies the invariants documented on
    /// [`Block`]. Fails only when the page exceeds a limit of [`ParseLimits`] or the parser fails.
    pub fn blocks(&mut self, html: &[u8]) -> Result<Vec<Block>, BlockError> {
        if html.len() > self.limits.max_html_bytes {
            return Err(BlockError::TooLarge {
                bytes: html.len(),
                limit: self.limits.max_html_bytes,
            });
        }
        let limits = &self.limits;
        let state = &mut self.state;
        state.reset();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            // Not strict: strict mode gives up on markup whose parse would need the DOM (e.g.
            // `<select><xmp>`); a best-effort reading of every page is wanted here.
            let settings = Settings::new()
                .with_strict(false)
                .with_memory_settings(limits.memory_settings())
                .append_document_content_handler(doc_text!(
                    |chunk| state.on_text(html, 0, limits, chunk)
                ));
            let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
            match rewriter.write(html) {
                Ok(()) => rewriter.end(),
                Err(e) => Err(e),
            }
        }));
        let result = match outcome {
            Ok(r) => r,
            Err(_) => {
                state.reset();
                return Err(BlockError::Parse("the HTML parser panicked".into()));
            }
        };
        if let Some(failure) = state.failure.take() {
            state.reset();
            return Err(failure);
        }
        match result {
            Ok(()) => {}
            Err(_) if state.stopped => {}
            Err(RewritingError::MemoryLimitExceeded(e)) => {
                state.reset();
                return Err(BlockError::MemoryLimit {
                    limit: limits.max_memory_bytes,
                    message: e.to_string(),
                });
            }
            Err(e) => {
                state.reset();
                return Err(BlockError::Parse(e.to_string()));
            }
        }
        if let Noscript::Reading { start, end } = state.noscript {
            // The page ended inside a noscript whose last text chunk was not marked as such.
            state.noscript = Noscript::None;
            if !state.stopped {
                let _ = state.noscript_pass(html, limits, start, end);
                if let Some(failure) = state.failure.take() {
                    state.reset();
                    return Err(failure);
                }
            }
        }
        if !state.stopped {
            let end = html.len();
            state.markup(html, end, limits);
            state.flush_pending(limits);
            state.finish_block(limits);
        }
        state.head.end_script();
        // The next page likely has about as many blocks: start it with that much room.
        let room = state.blocks.len().min(limits.max_blocks);
        Ok(std::mem::replace(
            &mut state.blocks,
            Vec::with_capacity(room),
        ))
    }
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
        self.block_hidden = false;
        self.block_nested_article = false;
        self.block_pre = None;
        self.pre_language = None;
        self.block_code_language = None;
        self.code_spans.clear();
        self.code_start = None;
        self.blocks.clear();
        self.pending.clear();
        self.pending_decode = false;
        self.cursor = 0;
        self.elements = 0;
        self.dropping = None;
        self.stopped = false;
        self.head.reset();
        self.noscript = Noscript::None;
        self.nested = false;
        self.failure = None;
    }

    /// The text handler: markup before the chunk first, then the chunk's text. `base` is where
    /// the parsed input begins in `html` (the start of a noscript's text in the nested pass).
    #[inline]
    fn on_text(
        &mut self,
        html: &[u8],
        base: usize,
        limits: &ParseLimits,
        chunk: &TextChunk,
    ) -> HandlerResult {
        let range = chunk.source_location().bytes();
        let (start, end) = (base + range.start, base + range.end);
        if start > self.cursor {
            self.markup(html, start, limits);
        }
        self.cursor = self.cursor.max(end);
        let decode = match chunk.text_type() {
            TextType::Data => true,
            TextType::PlainText => false,
            TextType::ScriptData if self.head.capturing() => {
                self.head.script_text(chunk.as_str());
                return self.result();
            }
            TextType::RawText if self.noscript != Noscript::None && self.dropping.is_none() => {
                return self.noscript_text(html, limits, start, end, chunk.last_in_text_node());
            }
            _ => return self.result(),
        };
        if self.dropping.is_some() {
            return self.result();
        }
        let s = chunk.as_str();
        let last = chunk.last_in_text_node();
        if s.is_empty() && !last {
            return self.result();
        }
        if !self.pending.is_empty() {
            self.pending.push_str(s);
            if last {
                self.flush_pending(limits);
            }
            return self.result();
        }
        // A text node may arrive in several chunks; only a character reference can straddle
        // two of them, so text before the chunk's last '&' is handled at once.
        let last_amp = if decode {
            memrchr(b'&', s.as_bytes())
        } else {
            None
        };
        let split = match last_amp {
            Some(amp) if !last => amp,
            _ => s.len(),
        };
        let (now, later) = s.split_at(split);
        if !now.is_empty() {
            // Without any '&' there is nothing to decode.
            self.push_node(now, last_amp.is_some(), limits);
        }
        if !later.is_empty() {
            self.pending.push_str(later);
            self.pending_decode = decode;
        }
        self.result()
    }

    /// One chunk of a noscript's raw text: notes its range, and parses the whole text once its
    /// last chunk is in.
    fn noscript_text(
        &mut self,
        html: &[u8],
        limits: &ParseLimits,
        start: usize,
        end: usize,
        last: bool,
    ) -> HandlerResult {
        let (from, to) = match self.noscript {
            Noscript::Reading {
                start: from,
                end: to,
            } => (from, to.max(end)),
            _ => (start, end),
        };
        if !last {
            self.noscript = Noscript::Reading {
                start: from,
                end: to,
            };
            return self.result();
        }
        self.noscript = Noscript::None;
        self.noscript_pass(html, limits, from, to)
    }

    /// The nested pass: parses `html[start..end]`, a noscript's raw text, as HTML into the
    /// page's blocks, then closes what it left open inside the noscript.
    fn noscript_pass(
        &mut self,
        html: &[u8],
        limits: &ParseLimits,
        start: usize,
        end: usize,
    ) -> HandlerResult {
        let Some(content) = html.get(start..end) else {
            return self.result();
        };
        if content.is_empty() || self.stopped {
            return self.result();
        }
        self.flush_pending(limits);
        let resume = self.cursor.max(end);
        self.cursor = start;
        self.nested = true;
        let result = {
            let settings = Settings::new()
                .with_strict(false)
                .with_memory_settings(limits.memory_settings())
                .append_document_content_handler(doc_text!(
                    |chunk| self.on_text(html, start, limits, chunk)
                ));
            let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
            match rewriter.write(content) {
                Ok(()) => rewriter.end(),
                Err(e) => Err(e),
            }
        };
        if !self.stopped {
            self.markup(html, end, limits);
            self.flush_pending(limits);
            self.finish_block(limits);
        }
        self.nested = false;
        // What the noscript's text left open ends with it: dropped content, and the elements
        // opened inside it.
        if self.dropping.take().is_some() {
            self.head.end_script();
        }
        if let Some(i) = self.open.find(KEY_NOSCRIPT, |_| false) {
            self.open.pop_to(i + 1);
        }
        self.cursor = resume;
        match result {
            Ok(()) => {}
            Err(_) if self.stopped => {}
            Err(RewritingError::MemoryLimitExceeded(e)) => {
                self.failure = Some(BlockError::MemoryLimit {
                    limit: limits.max_memory_bytes,
                    message: e.to_string(),
                });
            }
            Err(e) => self.failure = Some(BlockError::Parse(e.to_string())),
        }
        if self.failure.is_some() {
            return Err("the noscript text could not be parsed".into());
        }
        self.result()
    }

    #[inline]
    fn result(&self) -> HandlerResult {
        if self.stopped {
            Err("block limit reached".into())
        } else {
            Ok(())
        }
    }

    fn flush_pending(&mut self, limits: &ParseLimits) {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.push_node(&pending, self.pending_decode, limits);
            self.pending = pending;
            self.pending.clear();
        }
    }

    /// Appends the raw text of one text node to the current block.
    #[inline]
    fn push_node(&mut self, raw: &str, decode: bool, limits: &ParseLimits) {
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
        if pre.is_some() {
            self.text
                .push_pre(&text, in_link, &mut self.hasher, max_chars);
        } else {
            self.text.push(&text, in_link, &mut self.hasher, max_chars);
        }
        if was_empty && !self.text.is_empty() {
            self.block_path = self.open.path(limits.max_depth);
            self.block_ancestors = self
                .open
                .ancestors(limits.max_ancestors.min(limits.max_depth));
            self.block_hint = self.open.hint();
            self.block_marker = self.open.marker();
            self.block_marked_main = self.open.marked_main();
            self.block_hidden = self.open.hidden();
            self.block_nested_article = self.open.in_nested_article();
            self.block_pre = pre;
            self.block_code_language = match (pre, &self.pre_language) {
                (Some(ordinal), Some((at, language))) if ordinal == *at => Some(language.clone()),
                _ => None,
            };
        }
    }

    /// Notes the language a `<pre>`, or a `<code>` inside one, names for the `<pre>`'s code
    /// (the first one named wins).
    fn note_code_language(&mut self, attrs: &[u8]) {
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
        if let Some(language) = code_language(attrs) {
            self.pre_language = Some((ordinal, language));
        }
    }

    /// Opens a code span where the block's text is now, or closes the open one there.
    fn code_span_edge(&mut self) {
        let at = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        match self.code_start.take() {
            Some(start) => self.code_spans.push((start, at)),
            None => self.code_start = Some(at),
        }
    }

    /// Handles the markup in `html[self.cursor..to]`.
    fn markup(&mut self, html: &[u8], to: usize, limits: &ParseLimits) {
        self.flush_pending(limits);
        let Some(run) = html.get(self.cursor..to) else {
            return;
        };
        scan_markup(run, |tag| {
            if tag.end {
                self.end_tag(tag.name, limits);
            } else {
                self.start_tag(tag, limits);
            }
        });
        self.cursor = to;
    }

    /// Emits the current block, if it has text.
    fn finish_block(&mut self, limits: &ParseLimits) {
        if self.code_start.is_some() {
            self.code_span_edge();
        }
        if self.text.is_empty() {
            self.text.forget_lead();
            self.code_spans.clear();
            return;
        }
        let hash = self.hasher.finish();
        let Some(done) = self.text.finish() else {
            self.code_spans.clear();
            return;
        };
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
                hidden: self.block_hidden,
                nested_article: self.block_nested_article,
                pre: self.block_pre,
                code_language: self.block_code_language.take(),
                code_spans,
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
        self.noscript = Noscript::None;
        if let Some(d) = self.dropping.as_mut() {
            let ends = match d.tag {
                Tag::Foreign => flags & BREAKOUT != 0,
                Tag::Select => flags & CLOSES_SELECT != 0,
                _ => false,
            };
            if !ends {
                if key == d.key && !(d.tag == Tag::Foreign && self_closing) {
                    d.nest = d.nest.saturating_add(1);
                }
                return;
            }
            let closed = *d;
            self.dropping = None;
            if closed.tag == Tag::Select && key == closed.key {
                return;
            }
        }
        if tag == Tag::Noscript
            && (self.nested || self.open.find_tag(|t| t == Tag::Head, |_| false).is_some())
        {
            // A noscript in the head holds styles, links and pixels, never text; one inside
            // another's text is not parsed again (the nested pass does not nest).
            tag = Tag::Drop;
        }
        let ordinal = self.elements;
        self.elements = self.elements.saturating_add(1);
        if !tag.is_inline() {
            self.finish_block(limits);
        }
        self.implied_end_tags(tag);
        match tag {
            // The page's metadata is not read from a noscript's text (the nested pass): the
            // page's own head and body state it.
            Tag::Void | Tag::InlineVoid => match key {
                KEY_META if !self.nested => self.head.meta_tag(token.attrs),
                KEY_LINK if !self.nested => self.head.link_tag(token.attrs),
                _ => {}
            },
            Tag::Drop | Tag::Select => {
                self.dropping = Some(Dropping { key, tag, nest: 1 });
                if key == KEY_SCRIPT && !self.nested {
                    self.head.script_tag(token.attrs);
                }
            }
            Tag::Foreign => {
                if !self_closing {
                    self.dropping = Some(Dropping { key, tag, nest: 1 });
                }
            }
            _ => {
                if tag == Tag::Noscript {
                    self.noscript = Noscript::Expected;
                }
                if self.open.len() < limits.max_open_elements {
                    let hint = self.element_hint(key, tag, &token);
                    let hidden = token.hidden && tag != Tag::Root;
                    self.open.push(key, tag, name, ordinal, href, hint, hidden);
                    if is_preformatted(key) || is_code(key) {
                        self.note_code_language(token.attrs);
                    }
                }
            }
        }
    }

    /// What an element's markup says of its content. The page's root elements carry page-wide
    /// classes ("has-sidebar"), not a region's. Inside the main text that the markup marks,
    /// ids are mostly slugs of the text's headings ("buffer-related-functions") and an aside is
    /// the text's own note (HTML: tangential to the article it is in), so neither marks a region.
    fn element_hint(&self, key: TagKey, tag: Tag, token: &TagToken<'_>) -> Hint {
        if tag == Tag::Root {
            return Hint::None;
        }
        let tag_hint = tag_hint(key);
        if self.open.hint() == Hint::Content {
            let tag_hint = if key == KEY_ASIDE {
                Hint::None
            } else {
                tag_hint
            };
            token.hint.max(tag_hint)
        } else {
            token.hint.max(token.id_hint).max(tag_hint)
        }
    }

    /// Closes the elements a start tag of `tag` implicitly ends (HTML tree construction, in short).
    fn implied_end_tags(&mut self, tag: Tag) {
        let open = &mut self.open;
        if tag.closes_p() {
            if let Some(i) = open.find(KEY_P, Tag::is_scope_boundary) {
                open.pop_to(i);
            }
        }
        let found = match tag {
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
        self.noscript = Noscript::None;
        if let Some(d) = self.dropping.as_mut() {
            if key == d.key {
                d.nest -= 1;
                if d.nest == 0 {
                    self.dropping = None;
                    self.head.end_script();
                }
            }
            return;
        }
        let (tag, _) = classify(key);
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
