//! Formulas: MathML and TeX scripts read in the tokenizer's pass into the two forms a reader
//! keeps, the TeX source the page ships (for Markdown) and a linear form of the formula it shows
//! (for plain text, and for Markdown when there is no source).
//!
//! A `<math>` element's TeX source is its `<annotation encoding="application/x-tex">` (what
//! MediaWiki, KaTeX and LaTeXML write), else its `alttext` when that reads as TeX (a backslash,
//! brace, `^` or `_` in it). MediaWiki's `{\displaystyle …}` wrapper is taken off. The linear form
//! is built from the presentation markup: token text (`mi mn mo mtext ms`) in order, `x_i` and
//! `x^2` for scripts (`msub msup msubsup munder mover munderover`), `(a)/(b)` for `mfrac`, `√(x)`
//! and `x^(1/n)` for roots, table cells apart by a space and rows by `; `, `mfenced`'s fences and
//! separators; a compound script, fraction part or root is put in parentheses; invisible operators
//! (U+2061–U+2064), `annotation-xml`, `mphantom` and `mprescripts` are left out; two words of
//! letters (`r arcsin`) keep a space between them. A `<script type="math/tex">` (MathJax 2's
//! source, what kramdown writes) is its own TeX source and linear form.
//!
//! Both forms are bounded ([`MAX_FORMULA_BYTES`]; a longer TeX source is not used, a longer
//! linear form is cut) and so is the nesting read as structure ([`MAX_DEPTH`]; deeper elements
//! add their text to the innermost one read).

use super::markup::attributes;
use super::tags::{tag_key, TagKey};
use super::text::decode_entities;

/// Most bytes of a formula's TeX source or linear form.
pub(crate) const MAX_FORMULA_BYTES: usize = 16 << 10;

/// Deepest MathML nesting read as structure.
pub(crate) const MAX_DEPTH: usize = 64;

/// A formula read from the page.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Formula {
    /// The linear form (white space collapsed, trimmed; may be empty).
    pub(crate) linear: String,
    /// The TeX source, when the page ships one.
    pub(crate) tex: Option<String>,
    /// True for a formula shown as a block of its own (`display="block"`, `mode=display`).
    pub(crate) display: bool,
}

/// What a MathML element contributes to the linear form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Children in order (`mrow`, `mstyle`, `semantics`, `math`, unknown elements, ...).
    Row,
    /// Token element: its text.
    Token,
    /// `msub` / `munder`: base, then `_` and the script.
    Sub,
    /// `msup`: base, then `^` and the script.
    Sup,
    /// `mover`: as `msup`, but an accent over one character is that character's combining mark
    /// (`ẋ`).
    Over,
    /// `msubsup` / `munderover`: base, `_` script, `^` script.
    SubSup,
    /// `mfrac`: numerator `/` denominator.
    Frac,
    /// `msqrt`: `√` of its children.
    Sqrt,
    /// `mroot`: base `^(1/` index `)`.
    Root,
    /// `mtable` (rows apart by `; `) and `mtr`/`mlabeledtr` (cells apart by a space).
    Table,
    Tr,
    /// `mfenced`: its fences around children apart by its separator.
    Fenced,
    /// `mspace`: a space.
    Space,
    /// An annotation that holds TeX: its text is the source.
    Tex,
    /// Not shown, or not presentation: `annotation` of other encodings, `annotation-xml`,
    /// `mphantom`, `mprescripts`, `none`, and anything in SVG.
    Skip,
}

const KEY_MATH: TagKey = tag_key(b"math");

fn kind_of(key: TagKey) -> Kind {
    const TOKENS: [TagKey; 5] = [
        tag_key(b"mi"),
        tag_key(b"mn"),
        tag_key(b"mo"),
        tag_key(b"mtext"),
        tag_key(b"ms"),
    ];
    const SKIP: [TagKey; 6] = [
        tag_key(b"annotation-xml"),
        tag_key(b"mphantom"),
        tag_key(b"mprescripts"),
        tag_key(b"none"),
        tag_key(b"svg"),
        tag_key(b"malignmark"),
    ];
    match key {
        k if TOKENS.contains(&k) => Kind::Token,
        k if SKIP.contains(&k) => Kind::Skip,
        k if k == tag_key(b"msub") || k == tag_key(b"munder") => Kind::Sub,
        k if k == tag_key(b"msup") => Kind::Sup,
        k if k == tag_key(b"mover") => Kind::Over,
        k if k == tag_key(b"msubsup") || k == tag_key(b"munderover") => Kind::SubSup,
        k if k == tag_key(b"mfrac") => Kind::Frac,
        k if k == tag_key(b"msqrt") => Kind::Sqrt,
        k if k == tag_key(b"mroot") => Kind::Root,
        k if k == tag_key(b"mtable") => Kind::Table,
        k if k == tag_key(b"mtr") || k == tag_key(b"mlabeledtr") => Kind::Tr,
        k if k == tag_key(b"mfenced") => Kind::Fenced,
        k if k == tag_key(b"mspace") => Kind::Space,
        _ => Kind::Row,
    }
}

/// One open MathML element and the linear form of what it has shown so far.
#[derive(Debug)]
struct Frame {
    key: TagKey,
    kind: Kind,
    out: String,
    /// Children appended so far.
    children: u32,
    /// The last child appended was a word of letters (`sin`, `arcsin`, `if`).
    word: bool,
    /// The first child (a script's base) was one.
    base_word: bool,
    /// The last child appended was a base with scripts (`x^2`).
    scripted: bool,
    /// `mfenced`'s open fence, close fence and separator.
    fences: Option<Box<(String, String, String)>>,
}

impl Frame {
    fn new(key: TagKey, kind: Kind) -> Frame {
        Frame {
            key,
            kind,
            out: String::new(),
            children: 0,
            word: false,
            base_word: false,
            scripted: false,
            fences: None,
        }
    }
}

/// Reads one formula at a time: a `<math>` element's tags and text as the lexer reports them,
/// or a TeX script's text.
#[derive(Default)]
pub(crate) struct MathReader {
    /// Open elements, the `<math>` first; empty when no formula is being read.
    frames: Vec<Frame>,
    /// Elements open inside a skipped one, or below [`MAX_DEPTH`].
    skipped: u32,
    flat: u32,
    tex: Option<String>,
    /// The `alttext` of the `<math>`, kept in case it has no TeX annotation.
    alt: Option<String>,
    display: bool,
    /// Reading a TeX script rather than MathML.
    script: bool,
    active: bool,
}

impl MathReader {
    /// True while a formula is being read.
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.active
    }

    /// Forgets a formula being read.
    pub(crate) fn reset(&mut self) {
        self.frames.clear();
        self.skipped = 0;
        self.flat = 0;
        self.tex = None;
        self.alt = None;
        self.display = false;
        self.script = false;
        self.active = false;
    }

    /// A `<math>` start tag (`attrs` its text after the name) begins a formula.
    pub(crate) fn begin_math(&mut self, attrs: &[u8]) {
        self.reset();
        self.active = true;
        for (name, value) in attributes(attrs) {
            if name.eq_ignore_ascii_case(b"display") || name.eq_ignore_ascii_case(b"mode") {
                self.display |=
                    value.eq_ignore_ascii_case(b"block") || value.eq_ignore_ascii_case(b"display");
            } else if name.eq_ignore_ascii_case(b"alttext") && value.len() <= MAX_FORMULA_BYTES {
                let alt = decode_entities(&String::from_utf8_lossy(value)).into_owned();
                if alt.contains(['\\', '{', '^', '_']) {
                    self.alt = Some(alt);
                }
            }
        }
        self.frames.push(Frame::new(KEY_MATH, Kind::Row));
    }

    /// A `<script type="math/tex">` (with `mode=display` when `display`) begins a formula whose
    /// text is its TeX source.
    pub(crate) fn begin_script(&mut self, display: bool) {
        self.reset();
        self.active = true;
        self.script = true;
        self.display = display;
        self.tex = Some(String::new());
    }

    /// A start tag inside the formula.
    pub(crate) fn start(&mut self, name: &[u8], attrs: &[u8], self_closing: bool) {
        if self.script || self.frames.is_empty() {
            return;
        }
        if self.skipped > 0
            || self
                .top_kind()
                .is_some_and(|k| matches!(k, Kind::Skip | Kind::Tex))
        {
            self.skipped += u32::from(!self_closing);
            return;
        }
        if self.frames.len() >= MAX_DEPTH {
            self.flat += u32::from(!self_closing);
            return;
        }
        let key = tag_key(name);
        let mut kind = kind_of(key);
        let mut fences = None;
        if key == tag_key(b"annotation") {
            kind = if self.tex.is_none() && names_tex(attrs) {
                Kind::Tex
            } else {
                Kind::Skip
            };
            if kind == Kind::Tex {
                self.tex = Some(String::new());
            }
        } else if kind == Kind::Fenced {
            let (mut open, mut close, mut sep) = ("(".to_owned(), ")".to_owned(), ",".to_owned());
            for (name, value) in attributes(attrs) {
                let value = decode_entities(&String::from_utf8_lossy(value))
                    .trim()
                    .to_owned();
                if name.eq_ignore_ascii_case(b"open") {
                    open = value;
                } else if name.eq_ignore_ascii_case(b"close") {
                    close = value;
                } else if name.eq_ignore_ascii_case(b"separators") {
                    sep = value.chars().next().map(String::from).unwrap_or_default();
                }
            }
            fences = Some(Box::new((open, close, sep)));
        }
        let mut frame = Frame::new(key, kind);
        frame.fences = fences;
        self.frames.push(frame);
        if self_closing {
            self.pop();
        }
    }

    /// An end tag inside the formula (not the `</math>` that ends it).
    pub(crate) fn end(&mut self, name: &[u8]) {
        if self.script {
            return;
        }
        if self.skipped > 0 {
            self.skipped -= 1;
            return;
        }
        if self.flat > 0 {
            self.flat -= 1;
            return;
        }
        let key = tag_key(name);
        // Close up to the matching element; an end tag that matches none is ignored.
        let Some(at) = self.frames.iter().rposition(|f| f.key == key) else {
            return;
        };
        while self.frames.len() > at.max(1) {
            self.pop();
        }
    }

    /// A text run inside the formula, entities already decoded.
    pub(crate) fn text(&mut self, text: &str) {
        if self.script {
            if let Some(tex) = self.tex.as_mut() {
                push_bounded(tex, text);
            }
            return;
        }
        if self.skipped > 0 {
            return;
        }
        let Some(top) = self.frames.last_mut() else {
            return;
        };
        match top.kind {
            Kind::Skip => {}
            Kind::Tex => {
                if let Some(tex) = self.tex.as_mut() {
                    push_bounded(tex, text);
                }
            }
            // Token text keeps its inner spaces; elsewhere white space between elements is
            // markup, not text.
            _ => {
                for word in text.split_whitespace() {
                    let word: String = word
                        .chars()
                        .filter(|c| !is_invisible_operator(*c))
                        .collect();
                    if word.is_empty() {
                        continue;
                    }
                    if top.kind == Kind::Token && !top.out.is_empty() {
                        top.out.push(' ');
                    }
                    push_bounded(&mut top.out, &word);
                }
            }
        }
    }

    /// Ends the formula (its `</math>`, its script's end, or whatever cut it short) and returns
    /// it; None when it shows nothing and has no source.
    pub(crate) fn finish(&mut self) -> Option<Formula> {
        if !self.active {
            return None;
        }
        while self.frames.len() > 1 {
            self.pop();
        }
        let linear = self
            .frames
            .pop()
            .map(|root| root.out.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let tex = match (self.tex.take(), self.script) {
            (Some(source), true) => clean_tex(strip_cdata(&source)),
            (tex, _) => tex.or(self.alt.take()).and_then(|tex| clean_tex(&tex)),
        };
        let display = self.display;
        self.reset();
        let linear = match (linear.is_empty(), &tex) {
            // A TeX script, or MathML without presentation: the source is what it shows.
            (true, Some(tex)) => tex.clone(),
            _ => linear,
        };
        if linear.is_empty() {
            return None;
        }
        Some(Formula {
            linear,
            tex,
            display,
        })
    }

    fn top_kind(&self) -> Option<Kind> {
        self.frames.last().map(|f| f.kind)
    }

    /// Closes the innermost element and appends its linear form to its parent's.
    fn pop(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let Some(parent) = self.frames.last_mut() else {
            // The root: keep it.
            self.frames.push(frame);
            return;
        };
        if matches!(frame.kind, Kind::Skip | Kind::Tex) {
            return;
        }
        let frame_kind = frame.kind;
        let mut out = frame.out;
        // A word, or a group of one word (`{\text{ Hermitian}}`).
        let word = match frame.kind {
            Kind::Token => is_word(&out),
            Kind::Row => frame.children == 1 && frame.word,
            // `max_l`, `sin^2`: an operator's name with its scripts.
            Kind::Sub | Kind::Sup | Kind::SubSup | Kind::Over => frame.base_word,
            _ => false,
        };
        match frame.kind {
            Kind::Space => out = " ".to_owned(),
            Kind::Sqrt => out = format!("√{}", grouped(&out)),
            Kind::Fenced => {
                if let Some(fences) = frame.fences {
                    out = format!("{}{}{}", fences.0, out, fences.1);
                }
            }
            _ => {}
        }
        if out.is_empty() && parent.kind == Kind::Row {
            // Nothing shown (an invisible operator): no child of a row.
            return;
        }
        let index = parent.children;
        parent.children += 1;
        if parent.kind == Kind::Over && index == 1 && parent.out.chars().count() == 1 {
            if let Some(mark) = combining_accent(&out) {
                parent.out.push(mark);
                return;
            }
        }
        let (before, piece): (&str, String) = match (parent.kind, index) {
            (Kind::Sub | Kind::SubSup, 1) => ("_", grouped(&out)),
            (Kind::Sup | Kind::Over, 1) | (Kind::SubSup, 2) => ("^", grouped(&out)),
            // A base that is a word (`max`, `sin`) needs no parentheses.
            (Kind::Sub | Kind::Sup | Kind::Over | Kind::SubSup, 0) if word => ("", out),
            (Kind::Sub | Kind::Sup | Kind::Over | Kind::SubSup | Kind::Frac | Kind::Root, 0) => {
                ("", grouped(&out))
            }
            (Kind::Frac, 1) => ("/", grouped(&out)),
            (Kind::Root, 1) => ("^(1/", format!("{out})")),
            (Kind::Table, 1..) => ("; ", out),
            (Kind::Tr, 1..) => (" ", out),
            (Kind::Fenced, 1..) => (parent.fences.as_ref().map_or("", |f| f.2.as_str()), out),
            _ => ("", out),
        };
        let before = before.to_owned();
        if piece.is_empty() && before.is_empty() {
            return;
        }
        // Two words of letters side by side keep a space (`r arcsin`, `x if`), as does what
        // follows a script (`n^2 d_k`).
        let spaced = before.is_empty()
            && (word || parent.word || parent.scripted)
            && parent
                .out
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
            && piece.chars().next().is_some_and(char::is_alphanumeric);
        if spaced {
            push_bounded(&mut parent.out, " ");
        }
        push_bounded(&mut parent.out, &before);
        push_bounded(&mut parent.out, &piece);
        parent.word = word;
        parent.scripted = matches!(
            frame_kind,
            Kind::Sub | Kind::Sup | Kind::SubSup | Kind::Over
        );
        if index == 0 {
            parent.base_word = word;
        }
    }
}

/// True for a token's text that is a word of two or more letters (a function's or a unit's
/// name, a word of text).
fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(char::is_alphabetic) && chars.next().is_some()
}

/// `s` as one operand: in parentheses when it is more than one character or number, and not
/// already in brackets of its own (`x`, `∑`, `10`, `(a+b)` stay; `2n`, `−1`, `ij` get them).
fn grouped(s: &str) -> String {
    let mut chars = s.chars();
    let simple = chars.next().is_some() && chars.next().is_none()
        || s.chars().all(|c| c.is_ascii_digit() || c == '.');
    if simple || s.is_empty() || enclosed(s) {
        s.to_owned()
    } else {
        format!("({s})")
    }
}

/// True when `s` is one bracketed group: `(a+b)`, `[x]`, `{y}`, `|z|`.
fn enclosed(s: &str) -> bool {
    let (Some(first), Some(last)) = (s.chars().next(), s.chars().next_back()) else {
        return false;
    };
    let close = match first {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        _ => return false,
    };
    if last != close || s.len() < 2 {
        return false;
    }
    // The first bracket closes at the very end.
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        if c == first {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return i + c.len_utf8() == s.len();
            }
        }
    }
    false
}

/// The combining mark of an accent MathML sets over a character (`˙` over `x` is `ẋ`).
fn combining_accent(accent: &str) -> Option<char> {
    let mut chars = accent.chars();
    let mark = match (chars.next()?, chars.next()) {
        ('˙' | '.', None) => '\u{307}',
        ('¨', None) => '\u{308}',
        ('^' | 'ˆ', None) => '\u{302}',
        ('~' | '˜', None) => '\u{303}',
        ('¯' | '‾' | '_', None) => '\u{305}',
        ('→' | '⃗', None) => '\u{20d7}',
        _ => return None,
    };
    Some(mark)
}

/// The invisible operators of MathML (function application, invisible times, separator, plus).
fn is_invisible_operator(c: char) -> bool {
    matches!(c, '\u{2061}'..='\u{2064}')
}

/// Appends `s` while `out` stays within [`MAX_FORMULA_BYTES`] (on a character boundary).
fn push_bounded(out: &mut String, s: &str) {
    let room = MAX_FORMULA_BYTES.saturating_sub(out.len());
    if s.len() <= room {
        out.push_str(s);
        return;
    }
    let mut end = room;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&s[..end]);
}

/// A script's TeX without the `% <![CDATA[` … `%]]>` that kramdown wraps around a source holding
/// `<` or `&`.
fn strip_cdata(tex: &str) -> &str {
    let t = tex.trim();
    match t
        .strip_prefix("% <![CDATA[")
        .and_then(|r| r.strip_suffix("%]]>"))
    {
        Some(inner) => inner,
        None => t,
    }
}

/// True when an `<annotation>` start tag's `encoding` names TeX.
fn names_tex(attrs: &[u8]) -> bool {
    attributes(attrs).any(|(name, value)| {
        name.eq_ignore_ascii_case(b"encoding")
            && matches!(
                value.trim_ascii().to_ascii_lowercase().as_slice(),
                b"application/x-tex" | b"text/x-tex" | b"tex" | b"latex" | b"application/x-latex"
            )
    })
}

/// A TeX source as written in Markdown: white space collapsed, MediaWiki's `{\displaystyle …}`
/// (or `\textstyle`) wrapper taken off; None when empty or longer than [`MAX_FORMULA_BYTES`].
fn clean_tex(tex: &str) -> Option<String> {
    if tex.len() >= MAX_FORMULA_BYTES {
        return None;
    }
    let collapsed = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = collapsed.as_str();
    for style in ["{\\displaystyle ", "{\\textstyle "] {
        if let Some(inner) = s.strip_prefix(style).and_then(|r| r.strip_suffix('}')) {
            if braces_balance(inner) {
                s = inner;
            }
        }
    }
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

/// True when every `{` in `s` (not escaped as `\{`) closes within it.
fn braces_balance(s: &str) -> bool {
    let mut depth = 0i32;
    let mut escaped = false;
    for c in s.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests;
