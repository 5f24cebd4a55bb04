//! Tag names: case-insensitive identity of a tag name and the role each known HTML element plays in
//! block splitting (inline, void, dropped, foreign, implied-end rules).

/// Identity of a tag name: FNV-1a over the ASCII-lower-cased name bytes. Two names that differ only in
/// ASCII case have the same key.
pub(crate) type TagKey = u64;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Hashes a tag name (ASCII case-insensitive).
#[inline]
pub(crate) const fn tag_key(name: &[u8]) -> TagKey {
    let mut h = FNV_OFFSET;
    let mut i = 0;
    while i < name.len() {
        h ^= name[i].to_ascii_lowercase() as u64;
        h = h.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    h
}

const KEY_PRE: TagKey = tag_key(b"pre");
const KEY_LISTING: TagKey = tag_key(b"listing");
const KEY_PLAINTEXT: TagKey = tag_key(b"plaintext");

/// True for the elements whose text keeps its white space (`pre`, and the obsolete `listing`
/// and `plaintext`, which HTML renders alike).
#[inline]
pub(crate) fn is_preformatted(key: TagKey) -> bool {
    matches!(key, KEY_PRE | KEY_LISTING | KEY_PLAINTEXT)
}

const KEY_CODE: TagKey = tag_key(b"code");
const KEY_KBD: TagKey = tag_key(b"kbd");
const KEY_SAMP: TagKey = tag_key(b"samp");
const KEY_TT: TagKey = tag_key(b"tt");

/// True for the inline elements whose text is code (`code`, `kbd`, `samp`, `tt`).
#[inline]
pub(crate) fn is_code(key: TagKey) -> bool {
    matches!(key, KEY_CODE | KEY_KBD | KEY_SAMP | KEY_TT)
}

/// The elements the tokenizer treats specially. Everything else is `Other` (an ordinary,
/// block-splitting container, which includes unknown and custom elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    /// Any element without a special rule below.
    Other,
    /// Inline elements: do not split blocks, not part of the path.
    Inline,
    /// `<a>`: inline, and its text counts as link text.
    A,
    /// Inline elements without content (`img`, `wbr`): no split, never pushed.
    InlineVoid,
    /// Void elements that split (`br`, `hr`, `input`, ...): never pushed.
    Void,
    /// Elements whose whole content is dropped (`script`, `style`, `title`, ...).
    Drop,
    /// `select`: dropped, and also ended by the start tags that close a select.
    Select,
    /// `svg` / `math`: dropped foreign content; `/>` closes them, HTML breakout tags end them.
    Foreign,
    /// `<noscript>`: in the body, a container whose raw text is parsed as HTML (what a client
    /// without scripting renders); in `<head>`, or inside another noscript's text, dropped.
    Noscript,
    /// `<p>`.
    P,
    /// `<li>`.
    Li,
    /// `<dt>` / `<dd>`.
    DtDd,
    /// `<tr>`.
    Tr,
    /// `<td>` / `<th>`.
    Cell,
    /// `<thead>` / `<tbody>` / `<tfoot>`.
    Section,
    /// `<h1>`..`<h6>`.
    Heading,
    /// `<ul>` / `<ol>`: list scope boundary.
    List,
    /// `<dl>`.
    Dl,
    /// `<table>`: table scope boundary.
    Table,
    /// Other scope boundaries (`caption`, `object`, `marquee`, `applet`).
    Scope,
    /// `<button>`: a boundary only of the search for an open `<p>` (HTML's "button scope"); a
    /// `<button>` start tag closes an open button, and other end tags close across it.
    Button,
    /// `<html>` / `<body>`: their end tags do not pop elements (HTML keeps appending to the body
    /// after `</body>`).
    Root,
    /// `<head>`: closed by its end tag or by a `<body>` start tag.
    Head,
    /// Blocks that close an open `<p>` (`div`, `section`, `blockquote`, ...).
    ClosesP,
}

impl Tag {
    /// True when a start or end tag of this element does not split the current block.
    #[inline]
    pub(crate) fn is_inline(self) -> bool {
        matches!(self, Tag::Inline | Tag::A | Tag::InlineVoid)
    }

    /// True when a start tag of this element closes an open `<p>` (HTML "closes a p element").
    #[inline]
    pub(crate) fn closes_p(self) -> bool {
        matches!(
            self,
            Tag::P
                | Tag::ClosesP
                | Tag::Li
                | Tag::DtDd
                | Tag::Heading
                | Tag::List
                | Tag::Dl
                | Tag::Table
        )
    }

    /// True for elements that bound the "scope" searches of implied end tags.
    #[inline]
    pub(crate) fn is_scope_boundary(self) -> bool {
        matches!(
            self,
            Tag::Table | Tag::Cell | Tag::Scope | Tag::Root | Tag::Foreign | Tag::Drop
        )
    }
}

/// Flag: the start tag breaks out of `svg`/`math` foreign content (HTML §13.2.6.5).
pub(crate) const BREAKOUT: u8 = 1;
/// Flag: the start tag implicitly closes an open `<select>`.
pub(crate) const CLOSES_SELECT: u8 = 2;
/// Flag: a browser never renders the element (`<script>`, `<style>`, `<template>`, a `<title>`
/// in the body, `<noembed>`, `<noframes>`, `<datalist>`), so it breaks no line of the text
/// around it.
pub(crate) const UNRENDERED: u8 = 4;

/// Every specially treated tag name with its role and flags.
const ENTRIES: &[(&[u8], Tag, u8)] = &[
    (b"a", Tag::A, 0),
    (b"abbr", Tag::Inline, 0),
    (b"acronym", Tag::Inline, 0),
    (b"b", Tag::Inline, BREAKOUT),
    (b"bdi", Tag::Inline, 0),
    (b"bdo", Tag::Inline, 0),
    (b"big", Tag::Inline, BREAKOUT),
    (b"cite", Tag::Inline, 0),
    (b"code", Tag::Inline, BREAKOUT),
    (b"data", Tag::Inline, 0),
    (b"del", Tag::Inline, 0),
    (b"dfn", Tag::Inline, 0),
    (b"em", Tag::Inline, BREAKOUT),
    (b"font", Tag::Inline, 0),
    (b"i", Tag::Inline, BREAKOUT),
    (b"ins", Tag::Inline, 0),
    (b"kbd", Tag::Inline, 0),
    (b"label", Tag::Inline, 0),
    (b"mark", Tag::Inline, 0),
    (b"nobr", Tag::Inline, BREAKOUT),
    (b"q", Tag::Inline, 0),
    (b"rp", Tag::Inline, 0),
    (b"rt", Tag::Inline, 0),
    (b"ruby", Tag::Inline, BREAKOUT),
    (b"s", Tag::Inline, BREAKOUT),
    (b"samp", Tag::Inline, 0),
    (b"small", Tag::Inline, BREAKOUT),
    (b"span", Tag::Inline, BREAKOUT),
    (b"strike", Tag::Inline, BREAKOUT),
    (b"strong", Tag::Inline, BREAKOUT),
    (b"sub", Tag::Inline, BREAKOUT),
    (b"sup", Tag::Inline, BREAKOUT),
    (b"time", Tag::Inline, 0),
    (b"tt", Tag::Inline, BREAKOUT),
    (b"u", Tag::Inline, BREAKOUT),
    (b"var", Tag::Inline, BREAKOUT),
    (b"img", Tag::InlineVoid, BREAKOUT),
    (b"wbr", Tag::InlineVoid, 0),
    (b"area", Tag::Void, 0),
    (b"base", Tag::Void, 0),
    (b"basefont", Tag::Void, 0),
    (b"bgsound", Tag::Void, 0),
    (b"br", Tag::Void, BREAKOUT),
    (b"col", Tag::Void, 0),
    (b"embed", Tag::Void, BREAKOUT),
    (b"frame", Tag::Void, 0),
    (b"hr", Tag::Void, BREAKOUT),
    (b"image", Tag::InlineVoid, 0),
    (b"input", Tag::Void, CLOSES_SELECT),
    (b"keygen", Tag::Void, CLOSES_SELECT),
    (b"link", Tag::Void, 0),
    (b"meta", Tag::Void, BREAKOUT),
    (b"param", Tag::Void, 0),
    (b"source", Tag::Void, 0),
    (b"track", Tag::Void, 0),
    (b"script", Tag::Drop, UNRENDERED),
    (b"style", Tag::Drop, UNRENDERED),
    (b"noscript", Tag::Noscript, 0),
    (b"template", Tag::Drop, UNRENDERED),
    (b"title", Tag::Drop, UNRENDERED),
    (b"iframe", Tag::Drop, 0),
    (b"textarea", Tag::Drop, CLOSES_SELECT),
    (b"noembed", Tag::Drop, UNRENDERED),
    (b"noframes", Tag::Drop, UNRENDERED),
    (b"xmp", Tag::Drop, 0),
    (b"datalist", Tag::Drop, UNRENDERED),
    (b"canvas", Tag::Drop, 0),
    (b"video", Tag::Drop, 0),
    (b"audio", Tag::Drop, 0),
    (b"select", Tag::Select, CLOSES_SELECT),
    (b"svg", Tag::Foreign, 0),
    (b"math", Tag::Foreign, 0),
    (b"p", Tag::P, BREAKOUT),
    (b"li", Tag::Li, BREAKOUT),
    (b"dt", Tag::DtDd, BREAKOUT),
    (b"dd", Tag::DtDd, BREAKOUT),
    (b"tr", Tag::Tr, 0),
    (b"td", Tag::Cell, 0),
    (b"th", Tag::Cell, 0),
    (b"thead", Tag::Section, 0),
    (b"tbody", Tag::Section, 0),
    (b"tfoot", Tag::Section, 0),
    (b"h1", Tag::Heading, BREAKOUT),
    (b"h2", Tag::Heading, BREAKOUT),
    (b"h3", Tag::Heading, BREAKOUT),
    (b"h4", Tag::Heading, BREAKOUT),
    (b"h5", Tag::Heading, BREAKOUT),
    (b"h6", Tag::Heading, BREAKOUT),
    (b"ul", Tag::List, BREAKOUT),
    (b"ol", Tag::List, BREAKOUT),
    (b"dl", Tag::Dl, BREAKOUT),
    (b"table", Tag::Table, BREAKOUT),
    (b"caption", Tag::Scope, 0),
    (b"button", Tag::Button, 0),
    (b"object", Tag::Scope, 0),
    (b"marquee", Tag::Scope, 0),
    (b"applet", Tag::Scope, 0),
    (b"html", Tag::Root, 0),
    (b"body", Tag::Root, BREAKOUT),
    (b"head", Tag::Head, BREAKOUT),
    (b"address", Tag::ClosesP, 0),
    (b"article", Tag::ClosesP, 0),
    (b"aside", Tag::ClosesP, 0),
    (b"blockquote", Tag::ClosesP, BREAKOUT),
    (b"center", Tag::ClosesP, BREAKOUT),
    (b"details", Tag::ClosesP, 0),
    (b"dialog", Tag::ClosesP, 0),
    (b"dir", Tag::ClosesP, 0),
    (b"div", Tag::ClosesP, BREAKOUT),
    (b"fieldset", Tag::ClosesP, 0),
    (b"figcaption", Tag::ClosesP, 0),
    (b"figure", Tag::ClosesP, 0),
    (b"footer", Tag::ClosesP, 0),
    (b"form", Tag::ClosesP, 0),
    (b"header", Tag::ClosesP, 0),
    (b"hgroup", Tag::ClosesP, 0),
    (b"main", Tag::ClosesP, 0),
    (b"menu", Tag::ClosesP, BREAKOUT),
    (b"nav", Tag::ClosesP, 0),
    (b"pre", Tag::ClosesP, BREAKOUT),
    (b"plaintext", Tag::ClosesP, 0),
    (b"listing", Tag::ClosesP, BREAKOUT),
    (b"section", Tag::ClosesP, 0),
    (b"summary", Tag::ClosesP, 0),
    (b"search", Tag::ClosesP, 0),
];

const TABLE_BITS: u32 = 9;
const TABLE_SIZE: usize = 1 << TABLE_BITS;
const TABLE_MASK: usize = TABLE_SIZE - 1;

/// Open-addressed table over `ENTRIES`, built at compile time; an empty slot has key 0.
static TABLE: [(TagKey, Tag, u8); TABLE_SIZE] = build_table();

const fn slot(key: TagKey) -> usize {
    (key >> (64 - TABLE_BITS)) as usize
}

const fn build_table() -> [(TagKey, Tag, u8); TABLE_SIZE] {
    let mut table = [(0, Tag::Other, 0); TABLE_SIZE];
    let mut i = 0;
    while i < ENTRIES.len() {
        let (name, tag, flags) = ENTRIES[i];
        let key = tag_key(name);
        assert!(key != 0);
        let mut s = slot(key);
        while table[s].0 != 0 {
            assert!(table[s].0 != key, "duplicate tag entry");
            s = (s + 1) & TABLE_MASK;
        }
        table[s] = (key, tag, flags);
        i += 1;
    }
    table
}

/// Looks up the role and flags of a tag by its key; unknown names are `(Tag::Other, 0)`.
#[inline]
pub(crate) fn classify(key: TagKey) -> (Tag, u8) {
    let mut s = slot(key);
    loop {
        let (k, tag, flags) = TABLE[s];
        if k == key {
            return (tag, flags);
        }
        if k == 0 {
            return (Tag::Other, 0);
        }
        s = (s + 1) & TABLE_MASK;
    }
}
