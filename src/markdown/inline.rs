//! The inline Markdown of one block: its text escaped where Markdown would read it as markup,
//! its code spans, and, as the options ask, its links, images and formulas.
//!
//! A formula is `$…$` (`$$…$$` shown as a block) around its TeX source, or around its linear
//! form when the page ships no source; it is atomic, and a formula inside a code span is left as
//! the code's text. A link is `[text](absolute URL)` around its text, white space at the text's
//! ends left outside; a link inside a code span splits the span (rustdoc's `` [`Vec`](…)`<T>` ``);
//! a link that is only a formula, or whose text crosses a formula's or a code span's edge, shows
//! its text alone, as does one whose target leads nowhere ([`links::resolve`]). An image inside
//! text is `![alt](source)` where it stands (not inside a code span or formula).

use super::links::{destination, resolve};
use super::Options;
use crate::blocks::{Block, Image, Math};

/// Where inline text goes, and so what must be escaped besides inline markup.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Escape {
    /// At the start of a line: also what would start a block (`#`, `>`, `-`, `1.`, ...).
    LineStart,
    /// In a table cell: also `|`.
    Cell,
    /// As `LineStart` and `Cell`, in a block with formulas: also `$`.
    LineStartDollar,
    CellDollar,
    /// Nothing: the text as it is, code spans as their text and formulas as their linear form
    /// (the plain text with links and images marked).
    Raw,
}

impl Escape {
    fn cell(self) -> bool {
        matches!(self, Escape::Cell | Escape::CellDollar)
    }

    fn dollar(self) -> bool {
        matches!(self, Escape::LineStartDollar | Escape::CellDollar)
    }
}

/// A link to render: its trimmed text range and its resolved target.
struct Target {
    start: usize,
    end: usize,
    url: String,
}

/// Appends the inline Markdown of `block`.
pub(super) fn inline(out: &mut String, block: &Block, options: &Options, escape: Escape) {
    let text = block.text.as_str();
    let plain_text = block.code_spans.is_empty()
        && block.math.is_empty()
        && (!options.links || block.links.is_empty())
        && (!options.images || block.images.iter().all(|i| i.own_line));
    if plain_text {
        // Most blocks: text alone.
        match escape {
            Escape::Raw => out.push_str(text),
            _ => plain(out, text, escape == Escape::LineStart, escape),
        }
        return;
    }
    let len = text.len();
    let code: Vec<(usize, usize)> = block
        .code_spans
        .iter()
        .map(|&(s, e)| (s as usize, e as usize))
        .filter(|&(s, e)| s < e && e <= len)
        .collect();
    let crosses_code = |s: usize, e: usize| code.iter().any(|&(cs, ce)| s < ce && cs < e);
    let math: Vec<&Math> = block
        .math
        .iter()
        .filter(|m| {
            let (s, e) = (m.start as usize, m.end as usize);
            s < e
                && e <= len
                && text.is_char_boundary(s)
                && text.is_char_boundary(e)
                && !crosses_code(s, e)
        })
        .collect();
    let targets: Vec<Target> = if options.links {
        block
            .links
            .iter()
            .filter_map(|link| link_target(text, link.start, link.end, &link.href, options))
            .filter(|t| {
                // Not only a formula, and no formula or code span cut by the link's edges.
                let only_math = math.iter().any(|m| {
                    text[t.start..t.end].trim() == text[m.start as usize..m.end as usize].trim()
                        && (m.start as usize) >= t.start
                        && (m.end as usize) <= t.end
                });
                let cuts_math = math.iter().any(|m| {
                    let (ms, me) = (m.start as usize, m.end as usize);
                    (t.start > ms && t.start < me) || (t.end > ms && t.end < me)
                });
                let cuts_code = code.iter().any(|&(cs, ce)| {
                    let link_in_code = cs <= t.start && t.end <= ce;
                    let code_in_link = t.start <= cs && ce <= t.end;
                    cs < t.end && t.start < ce && !link_in_code && !code_in_link
                });
                !only_math && !cuts_math && !cuts_code
            })
            .collect()
    } else {
        Vec::new()
    };
    let images: Vec<(&Image, String)> = if options.images {
        block
            .images
            .iter()
            .filter(|i| !i.own_line)
            .filter(|i| {
                let at = i.at as usize;
                at <= len
                    && text.is_char_boundary(at)
                    && !code.iter().any(|&(s, e)| s < at && at < e)
                    && !math
                        .iter()
                        .any(|m| (m.start as usize) < at && at < m.end as usize)
            })
            .filter_map(|i| resolve(&i.src, options.base.as_ref()).map(|url| (i, url)))
            .collect()
    } else {
        Vec::new()
    };

    let start_len = out.len();
    let (mut next_link, mut next_math, mut next_image) = (0, 0, 0);
    let mut open: Option<&Target> = None;
    let mut p = 0;
    loop {
        if let Some(link) = open.filter(|l| l.end == p) {
            out.push_str("](");
            destination(out, &link.url);
            out.push(')');
            open = None;
        }
        let mut pictured = false;
        while let Some((image, url)) = images.get(next_image).filter(|(i, _)| i.at as usize <= p) {
            image_mark(out, image, url, escape);
            next_image += 1;
            pictured = true;
        }
        // The space after an image in text collapsed into the one before it, or was trimmed
        // from the block's start.
        if pictured
            && (p == 0 || text[..p].ends_with(' '))
            && text[p..].starts_with(char::is_alphanumeric)
        {
            out.push(' ');
        }
        if let Some(link) = targets.get(next_link).filter(|l| l.start == p) {
            // `!` before a link would make it an image (rustdoc's `impl !Send`).
            if escape != Escape::Raw && out.ends_with('!') && !out.ends_with("\\!") {
                out.pop();
                out.push_str("\\!");
            }
            out.push('[');
            open = Some(link);
            next_link += 1;
        }
        if p >= len {
            break;
        }
        if let Some(m) = math
            .get(next_math)
            .filter(|m| m.start as usize == p && escape != Escape::Raw)
        {
            formula(out, text, m, escape);
            p = m.end as usize;
            next_math += 1;
            continue;
        }
        // The next place where something starts or ends.
        let mut end = len;
        if let Some(link) = open {
            end = end.min(link.end);
        }
        if let Some(link) = targets.get(next_link) {
            end = end.min(link.start);
        }
        if let Some((image, _)) = images.get(next_image) {
            end = end.min(image.at as usize);
        }
        if let Some(&(_, ce)) = code
            .iter()
            .find(|&&(cs, ce)| cs <= p && p < ce && escape != Escape::Raw)
        {
            end = end.min(ce);
            code_span(out, &text[p..end]);
        } else {
            if escape != Escape::Raw {
                if let Some(m) = math.get(next_math) {
                    end = end.min(m.start as usize);
                }
                if let Some(&(cs, _)) = code.iter().find(|&&(cs, _)| cs > p) {
                    end = end.min(cs);
                }
            }
            let line_start = escape == Escape::LineStart && p == 0 && out.len() == start_len;
            // Beside formulas a `$` of the text is not one of their delimiters.
            let escape = match escape {
                Escape::LineStart if !math.is_empty() => Escape::LineStartDollar,
                Escape::Cell if !math.is_empty() => Escape::CellDollar,
                e => e,
            };
            if escape == Escape::Raw {
                out.push_str(&text[p..end]);
            } else {
                plain(out, &text[p..end], line_start, escape);
            }
        }
        p = end;
    }
    if let Some(link) = open {
        out.push_str("](");
        destination(out, &link.url);
        out.push(')');
    }
}

/// The link over bytes `start..end` of `text` to `href`, its range trimmed of white space, when
/// it has text and a target a reader can follow.
fn link_target(text: &str, start: u32, end: u32, href: &str, options: &Options) -> Option<Target> {
    let (start, end) = (start as usize, end as usize);
    let inner = text.get(start..end)?;
    let lead = inner.len() - inner.trim_start().len();
    let trail = inner.len() - inner.trim_end().len();
    let (start, end) = (start + lead, end - trail);
    if start >= end {
        return None;
    }
    let url = resolve(href, options.base.as_ref())?;
    Some(Target { start, end, url })
}

/// Appends `![alt](url)` (the alternative text escaped, but as `Raw` asks).
pub(super) fn image_mark(out: &mut String, image: &Image, url: &str, escape: Escape) {
    out.push_str("![");
    if escape == Escape::Raw {
        out.push_str(&image.alt);
    } else {
        plain(out, &image.alt, false, Escape::Cell);
    }
    out.push_str("](");
    destination(out, url);
    out.push(')');
}

/// Appends a formula: `$…$`, or `$$…$$` for a displayed one, around its TeX source or its
/// linear form (a `$` in which is escaped); in a table cell `|` is escaped, as GFM reads it before
/// the formula.
fn formula(out: &mut String, text: &str, m: &Math, escape: Escape) {
    let linear = text
        .get(m.start as usize..m.end as usize)
        .unwrap_or_default()
        .trim();
    let (body, source) = match m.tex.as_deref().map(str::trim) {
        Some(tex) if !tex.is_empty() => (tex, true),
        _ => (linear, false),
    };
    let fence = if m.display { "$$" } else { "$" };
    out.push_str(fence);
    for c in body.chars() {
        match c {
            '|' if escape.cell() => out.push_str("\\|"),
            '$' if !source => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out.push_str(fence);
}

/// Length of the longest run of `c` in `s`.
pub(super) fn longest_run(s: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// A code span of `code`: its edge white space stays outside, the backtick fence is longer than
/// any run of backticks inside.
fn code_span(out: &mut String, code: &str) {
    let body = code.trim();
    if body.is_empty() {
        out.push_str(code);
        return;
    }
    let lead = &code[..code.len() - code.trim_start().len()];
    let trail = &code[code.trim_end().len()..];
    let fence = "`".repeat(longest_run(body, '`') + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    out.push_str(lead);
    out.push_str(&fence);
    out.push_str(pad);
    out.push_str(body);
    out.push_str(pad);
    out.push_str(&fence);
    out.push_str(trail);
}

/// Appends plain text, escaping what Markdown would read as markup. Runs without a byte that
/// may need escaping are copied whole.
pub(super) fn plain(out: &mut String, text: &str, line_start: bool, escape: Escape) {
    let text = if line_start {
        escape_line_start(out, text)
    } else {
        text
    };
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped = match b {
            b'\\' | b'`' | b'*' | b'[' | b']' => true,
            b'|' => escape.cell(),
            b'$' => escape.dollar(),
            // Inside a word `_` is never emphasis (snake_case stays readable).
            b'_' => {
                let before = text[..i].chars().next_back();
                let after = text[i + 1..].chars().next();
                !(before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric))
            }
            b'<' => bytes
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')),
            _ => false,
        };
        if escaped {
            out.push_str(&text[copied..i]);
            out.push('\\');
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
}

/// Escapes what would make a line a heading, quote, list item, thematic break or fence; returns
/// the rest of `text`.
fn escape_line_start<'t>(out: &mut String, text: &'t str) -> &'t str {
    match text.chars().next() {
        Some(c @ ('#' | '>' | '-' | '+' | '=' | '~')) => {
            out.push('\\');
            out.push(c);
            &text[c.len_utf8()..]
        }
        Some('0'..='9') => {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            match text.as_bytes().get(digits) {
                Some(b'.' | b')') if digits <= 9 => {
                    out.push_str(&text[..digits]);
                    out.push('\\');
                    &text[digits..]
                }
                _ => text,
            }
        }
        _ => text,
    }
}
