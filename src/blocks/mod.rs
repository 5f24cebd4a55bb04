//! Text blocks of an HTML page (DESIGN §2.4), found in one pass of an HTML lexer over the page.
//!
//! A block is the text between any two tags, except that inline tags (`a abbr acronym b bdi bdo
//! big cite code data del dfn em font i img ins kbd label mark nobr q rp rt ruby s samp small span
//! strike strong sub sup time tt u var wbr`) do not split it; `<br>` and every other tag, known or
//! unknown (custom elements too), do. Comments do not split (`foo<!-- -->bar` is "foobar").
//!
//! Dropped with their content: comments, `script style template svg title iframe textarea
//! select datalist noembed noframes xmp canvas video audio` (not rendered, or rendered only as
//! fallback or form state), but a `<template>` that declares a shadow root (`shadowrootmode`),
//! whose content a browser renders in its host. Kept: `head` (its text is normally only a
//! title), `button`, `object`, and everything else. Visibility set by CSS or attributes
//! (`hidden`) is not seen.
//!
//! Formulas stand in their sentence (they split no block): a `<math>` element gives its linear
//! form and a `<script type="math/tex">` its TeX source as text, each marked in
//! [`Block::math`] with its TeX source (`math` module). The second rendering of a formula that a
//! page ships beside its MathML or TeX (KaTeX's `katex-html`, MathJax's `MathJax_Preview`) is
//! dropped, and MathJax 3's `mjx-*` elements are inline. On request ([`Capture`]) each block
//! also carries its links with their targets and its images (`marks` module); neither changes a
//! block's text or identity.
//!
//! `<noscript>` is read as a client without scripting renders it, which a crawler is: in the
//! body, its raw text is parsed as HTML in place (a nested pass of the lexer over those bytes),
//! so its elements and text give blocks exactly as inside a `<div>`, with `noscript` on their
//! element path and no other mark. Some sites serve their whole text there (a forum's topic to
//! clients without JavaScript), most an "enable JavaScript" notice or a tracking pixel. Its text
//! ends at its first `</noscript>` (a `<noscript>` inside it is dropped, and what it leaves open
//! is closed there), and it never adds to the page's limits: every byte is lexed at most twice.
//! A `<noscript>` in the head (styles, links, pixels) is dropped, and no page metadata is read
//! from inside one.
//!
//! React's streamed segments (`<div hidden id="S:n">`, sent after the page's shell and moved by
//! a script into their Suspense boundary or placeholder, `<template id="B:n">` or `P:n`) are
//! read where the script puts them, shown, as a browser shows them (`streamed`): the page's
//! bytes are rewritten before the lexer reads them, on pages that have such segments only.
//!
//! Entities are decoded with the full HTML5 table, white space runs (including NBSP and all other
//! Unicode white space) collapse to one space (inside `<pre>` they are kept as written, while the
//! block's counts and identity stay those of the collapsed text), control characters, U+200B and U+FEFF are removed,
//! and blocks whose text is empty after trimming are not emitted. Each block carries its identity
//! hash, its element path and ancestor ordinals, its link and character counts, and what the markup
//! of its enclosing elements says of it (a [`Hint`] read from `class`, `id`, `role`, `itemprop`
//! and the sectioning tags).
//!
//! The same pass reads the page's metadata ([`PageMeta`]: description, author, publication date,
//! canonical URL, site name) from its `<meta>` and `<link>` tags and its JSON-LD script, the
//! only script text it captures (`head`).
//!
//! Parsing is one pass of our own lexer (`scan`), which follows the HTML tokenizer's states for
//! what is text (the raw text of `script`, `style`, `textarea`…, comments, foreign content) and
//! reads tags in place without allocating (`markup`); a test checks it against lol_html's
//! tokenizer on every corpus page. A small model of HTML tree construction (implied end tags,
//! scopes, a capped open-element stack) keeps paths close to the browser's DOM on broken markup.

mod hash;
mod head;
mod limits;
mod marks;
mod markup;
mod math;
mod open;
mod scan;
mod skeleton;
mod streamed;
mod tags;
mod text;
mod tokenizer;

#[cfg(test)]
mod tests;

pub use hash::{block_hash, BlockHash};
pub use head::{PageMeta, MAX_JSON_LD_BYTES, MAX_TYPES, MAX_VALUE_CHARS};
pub use limits::ParseLimits;
pub use marks::{Capture, Image, Link, Math};
pub use markup::Hint;
pub use skeleton::{PageLinks, MAX_HREFS, MAX_HREF_BYTES};
pub use tokenizer::{PageStats, Tokenizer};

/// One text block of a page, in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Decoded, trimmed, never empty. Outside `<pre>`: white space collapsed, no two consecutive
    /// spaces. Inside `<pre>` (see `pre`): white space as written (line breaks as `\n`, tabs
    /// kept, other white space as spaces), without blank lines before the first visible line and
    /// without trailing white space. At most `ParseLimits::max_block_chars` characters of the
    /// collapsed text, a white space run counting as one (see `truncated`).
    pub text: String,
    /// Block identity ([`block_hash`] of the whole block); `None` exactly when the block has no
    /// alphabetic character (the tree cannot count such a block; only `hybrid` keeps one, a figure
    /// inside the main text).
    pub hash: Option<BlockHash>,
    /// Element path of the block's container: lower-cased tag names of the open non-inline
    /// elements when the block's first character appeared, outermost first, joined by '/', e.g.
    /// "html/body/div/div/p"; only elements present in the markup (no implied `html`/`body`);
    /// at most `ParseLimits::max_depth` segments (the innermost ones); empty at top level.
    pub path: String,
    /// Document-order ordinals (0-based index among the page's start tags) of the elements named
    /// in `path`, outermost first, at most `ParseLimits::max_ancestors` (the innermost ones).
    pub ancestors: Vec<u32>,
    /// Characters of the block's text that were inside a link, an `<a>` with `href` (a collapsed
    /// space counts as link text when the white space it replaces began inside the link);
    /// `link_chars <= chars`.
    pub link_chars: u32,
    /// Characters of the whole block text, white space collapsed (also the part cut by
    /// truncation): the same for a block inside `<pre>` as for the same text outside it.
    pub chars: u32,
    /// True when `text` was cut at `ParseLimits::max_block_chars`.
    pub truncated: bool,
    /// What the markup of the block's open containers (below `html` and `body`) says of it:
    /// [`Hint::Boilerplate`] when any of them is marked so, else [`Hint::Content`] when any is.
    pub hint: Hint,
    /// Document-order ordinal of the innermost open container (below `html` and `body`) whose
    /// own markup marks it as a region around the main text; `Some` exactly when `hint` is
    /// [`Hint::Boilerplate`].
    pub marker: Option<u32>,
    /// Document-order ordinal of the innermost open container whose own markup marks it as the
    /// main text (`<article>`, `<main>`, `role=main`, `itemprop=articleBody`), whatever marks
    /// its other containers; `None` outside any.
    pub marked_main: Option<u32>,
    /// True when the element of [`Block::marked_main`] is the page's main landmark, a `<main>`
    /// or an element of `role=main` (WAI-ARIA's name for what `<main>` is): the author's
    /// statement of where the page's dominant content lies, around all of it, where an
    /// `<article>` or `itemprop=articleBody` bounds one text.
    pub main_landmark: bool,
    /// True when the open containers (below `html` and `body`) whose markup marks them as
    /// regions around the main text are all marked by words naming comments (`comment`,
    /// `comments`, `commentlist`, `disqus`, `replies` in a `class` or `id`), and there is one:
    /// the block is in the page's comments and in no other marked region.
    pub comments: bool,
    /// True when the innermost container around the block that the markup marks as a region
    /// around the main text ([`Block::marker`]) is a gallery of pictures by a word of its `class`
    /// (`gallery`, `slideshow`): the block is a picture's legend.
    pub gallery: bool,
    /// True when the innermost container around the block that the markup marks as a region
    /// around the main text ([`Block::marker`]) is the page's comments by the words of its
    /// `class` or `id` alone: the block is in a comment, whatever regions hold the thread (an
    /// article's `<footer>`), where [`Block::comments`] says no other region does.
    pub comment_region: bool,
    /// Set when one of the block's open containers (below `html` and `body`) is not rendered: a
    /// `hidden` attribute, a `style` of `display: none` or `visibility: hidden`, a class name
    /// the common style sheets hide, or a dialog that opens over the page (WAI-ARIA's `dialog`,
    /// `aria-modal=true`, a `<dialog>` not `open`): an element the page shows only on a reader's
    /// action, over the page, or never (metadata for machines, a cookie consent, text for screen
    /// readers). The document-order ordinal of the outermost such container.
    pub hidden: Option<u32>,
    /// Document-order ordinal of the innermost open container shown at some screen widths only
    /// (a `class` such as `hidden-xs`, `d-md-none`, `md:hidden`, `mobile-only`), `None` outside
    /// any: a page that lays a part out once for small screens and once for large shows a reader
    /// one copy.
    pub responsive: Option<u32>,
    /// Document-order ordinal of the innermost open container (below `html` and `body`) whose
    /// `class` or `id` has a word naming reviews (`review`, `reviews`: `product-reviews`,
    /// `individual-review`, `customerReviews`, but not a name that also says it holds the text,
    /// `review-content`); `None` outside any. No [`Hint`] of its own: a review is a critic's
    /// article as often as a customer's note on a product, which only the page can tell.
    pub reviews: Option<u32>,
    /// True when the block is in an `<article>` nested in another (HTML's related content: a
    /// comment on the outer article, a related story).
    pub nested_article: bool,
    /// Document-order ordinal of the outermost `<pre>` (or `listing`, `plaintext`) the block is
    /// in, `None` outside one. Blocks of one preformatted element share it.
    pub pre: Option<u32>,
    /// The language of the code of that `<pre>`, when it or a `<code>` inside it names one with a
    /// `language-X` or `lang-X` class (`X` lower-cased); `None` outside `<pre>`.
    pub code_language: Option<String>,
    /// Byte ranges of `text` that were inside a code element (`code`, `kbd`, `samp`, `tt`)
    /// outside `<pre>`, in order, non-empty, not overlapping, on character boundaries. A range
    /// may begin or end with a collapsed space.
    pub code_spans: Vec<(u32, u32)>,
    /// The block's links with their targets, in order, not overlapping (recorded when the
    /// tokenizer [captures](Capture) links; empty otherwise).
    pub links: Vec<Link>,
    /// The block's images, in order of `at` (recorded when the tokenizer [captures](Capture)
    /// images; empty otherwise).
    pub images: Vec<Image>,
    /// The block's formulas, in order, not overlapping: where their linear form stands in
    /// `text`, and their TeX source.
    pub math: Vec<Math>,
    /// Where the block lies among the page's markup: its bytes in the page and the tags before
    /// and inside it (the content/code view of the literature's classifiers).
    pub extent: Extent,
}

/// Where a block lies in its page's bytes, and the markup counted up to it and inside it: the
/// page as a sequence of code (tags) and content (text), as Content Code Blurring, the Document
/// Slope Curve and Body Text Extraction read it.
///
/// Offsets are byte offsets in the page as given to the tokenizer (a noscript's text parsed in
/// place has the offsets of its bytes in the page). Counts before a block are page totals from
/// the page's start, so the markup between two blocks is the difference of their counts; the
/// counts of a block are those between its first and last text run. Tags are the start and end
/// tags the lexer reports (those inside dropped content such as `<svg>` too; comments and the
/// raw text of `script` and `style` are no tags but lie in the bytes between blocks). Every
/// count saturates at `u32::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extent {
    /// Offset of the block's first text run (the one that gave it its first visible character).
    pub start: u32,
    /// Offset just past its last text run; `start < end`, but for a block that is a formula
    /// alone (a linear form is no run of the page's bytes), where they are equal.
    pub end: u32,
    /// Bytes of the block's text runs as written in the page (entities and white space
    /// included); the rest of `start..end` is markup.
    pub text_bytes: u32,
    /// Tags on the page before the block's first text run.
    pub tags_before: u32,
    /// Tags between the block's first and last text runs (its inline elements).
    pub tags: u32,
    /// Of the tags before the block, `<a>` start and end tags.
    pub anchor_tags_before: u32,
    /// Of the block's tags, `<a>` start and end tags.
    pub anchor_tags: u32,
    /// Bytes of the `<a>` start and end tags before the block.
    pub anchor_bytes_before: u32,
    /// Bytes of the block's `<a>` start and end tags.
    pub anchor_bytes: u32,
}

/// Why a page could not be split into blocks.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// The page is larger than `ParseLimits::max_html_bytes`.
    #[error("page of {bytes} bytes exceeds the {limit}-byte limit for HTML")]
    TooLarge {
        /// Size of the page in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The lexer failed (it does not on any input; a panic in it is caught and reported here
    /// rather than taking the worker down).
    #[error("HTML parser failed: {0}")]
    Parse(String),
}
