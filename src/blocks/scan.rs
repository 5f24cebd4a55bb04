//! The HTML lexer: one pass over a page's bytes that finds its text runs and its tags.
//!
//! It follows the states of the HTML tokenizer that decide what is text: the data state (tags,
//! end tags, comments, doctypes, bogus comments), the raw text of `script` (with its escaped and
//! double-escaped states, so `<!-- document.write("<script>…</script>") -->` stays inside one
//! script), of `style`, `xmp`, `iframe`, `noembed`, `noframes` and `noscript` (RAWTEXT), of
//! `title` and `textarea` (RCDATA), and everything after `<plaintext>`. As in HTML, those elements
//! take raw text only as HTML elements: inside SVG or MathML (the sink says when) they are
//! ordinary elements, and `<![CDATA[…]]>` is a section of its own there. Tags are lexed in place
//! (`markup::lex_tag`): a tag's name and the attributes that give it a [`Hint`](super::Hint)
//! are read straight from the input, without allocating. A tag cut off by the end of the input
//! is dropped with what follows it, as HTML drops it.
//!
//! Nothing is buffered or copied: text runs are reported as byte ranges of the input.

use memchr::{memchr, memchr2, memmem};

use super::markup::{has_href, lex_tag, TagToken};

/// The tokenizer state a text run was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    /// Ordinary text, with character references to decode.
    Data,
    /// The raw text of `style`, `xmp`, `iframe`, `noembed`, `noframes` or `noscript`, or the
    /// text of `title` or `textarea`.
    Raw,
    /// The text of a `<script>`.
    Script,
    /// Everything after a `<plaintext>` start tag, taken as written.
    PlainText,
}

/// Receives what the lexer finds, in document order.
pub(crate) trait Sink<'a> {
    /// A start or end tag. False stops the pass.
    fn tag(&mut self, tag: TagToken<'a>) -> bool;
    /// A text run, the input's bytes `start..end` (never empty). False stops the pass.
    fn text(&mut self, start: usize, end: usize, kind: TextKind) -> bool;
    /// True while the innermost open element is SVG or MathML content (foreign content), where
    /// `script`, `style`, `title`… hold markup rather than raw text.
    fn foreign(&self) -> bool;
}

/// The raw-text kind a start tag of HTML opens, if any.
pub(crate) fn raw_text_kind(name: &[u8]) -> Option<TextKind> {
    const RAW: [&[u8]; 8] = [
        b"style",
        b"xmp",
        b"iframe",
        b"noembed",
        b"noframes",
        b"noscript",
        b"title",
        b"textarea",
    ];
    match name.len() {
        3..=9 => {}
        _ => return None,
    }
    if name.eq_ignore_ascii_case(b"script") {
        Some(TextKind::Script)
    } else if name.eq_ignore_ascii_case(b"plaintext") {
        Some(TextKind::PlainText)
    } else if RAW.iter().any(|raw| name.eq_ignore_ascii_case(raw)) {
        Some(TextKind::Raw)
    } else {
        None
    }
}

/// True for the bytes that may follow an end tag's name: white space, `/` or `>`.
#[inline]
fn ends_tag_name(b: Option<&u8>) -> bool {
    matches!(
        b,
        Some(b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
    )
}

/// True when `html[at..]` is `prefix` followed by `name` (any case) and a byte that ends a tag
/// name: `</style>`, `<script ` and the like.
#[inline]
pub(super) fn names_tag(html: &[u8], at: usize, prefix: &[u8], name: &[u8]) -> bool {
    let from = at + prefix.len();
    let to = from + name.len();
    html.get(at..from) == Some(prefix)
        && html
            .get(from..to)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        && ends_tag_name(html.get(to))
}

/// Where the raw text of a `name` element (RAWTEXT or RCDATA) starting at `from` ends: the `<`
/// of its end tag, or the end of the input.
fn raw_text_end(html: &[u8], from: usize, name: &[u8]) -> usize {
    let mut at = from;
    while let Some(p) = memchr(b'<', &html[at..]) {
        let lt = at + p;
        if names_tag(html, lt, b"</", name) {
            return lt;
        }
        at = lt + 1;
    }
    html.len()
}

/// Where a script's text starting at `from` ends: the `<` of its `</script>`, or the end of the
/// input. Follows HTML's script data states: after `<!--` the text is escaped, and a
/// `<script>` inside escaped text must be closed before `</script>` ends the element.
pub(super) fn script_end(html: &[u8], from: usize) -> usize {
    #[derive(PartialEq)]
    enum State {
        Data,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Data;
    let mut at = from;
    loop {
        let found = match state {
            State::Data => memchr(b'<', &html[at..]),
            _ => memchr2(b'<', b'-', &html[at..]),
        };
        let Some(p) = found else {
            return html.len();
        };
        let i = at + p;
        at = i + 1;
        match state {
            State::Data => {
                if names_tag(html, i, b"</", b"script") {
                    return i;
                }
                if html[i..].starts_with(b"<!--") {
                    // The two dashes may already end the escape (`<!-->`).
                    state = State::Escaped;
                    at = i + 2;
                }
            }
            State::Escaped | State::DoubleEscaped if html[i] == b'-' => {
                if html[i..].starts_with(b"-->") {
                    state = State::Data;
                    at = i + 3;
                }
            }
            State::Escaped => {
                if names_tag(html, i, b"</", b"script") {
                    return i;
                }
                if names_tag(html, i, b"<", b"script") {
                    state = State::DoubleEscaped;
                    at = i + 7;
                }
            }
            State::DoubleEscaped => {
                if names_tag(html, i, b"</", b"script") {
                    state = State::Escaped;
                    at = i + 8;
                }
            }
        }
    }
}

/// Index just past the next `>` at or after `from`, or the end of `html`.
#[inline]
fn skip_past_gt(html: &[u8], from: usize) -> usize {
    match html.get(from..).and_then(|rest| memchr(b'>', rest)) {
        Some(p) => from + p + 1,
        None => html.len(),
    }
}

/// Index just past the end of a comment whose content starts at `from` (after `<!--`): its
/// `-->` or `--!>`, or an abrupt `<!-->` / `<!--->`.
fn comment_end(html: &[u8], from: usize) -> usize {
    let rest = html.get(from..).unwrap_or_default();
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    let mut at = from;
    while let Some(p) = html.get(at..).and_then(|r| memchr(b'>', r)) {
        let gt = at + p;
        let body = &html[from..gt];
        if body.ends_with(b"--") || body.ends_with(b"--!") {
            return gt + 1;
        }
        at = gt + 1;
    }
    html.len()
}

/// Index just past a CDATA section whose content starts at `from`, or the end of `html`.
fn cdata_end(html: &[u8], from: usize) -> usize {
    match memmem::find(&html[from..], b"]]>") {
        Some(p) => from + p + 3,
        None => html.len(),
    }
}

/// Reports `html[start..end]` as text when it is not empty; false when the sink stops.
#[inline]
fn text<'a>(sink: &mut impl Sink<'a>, start: usize, end: usize, kind: TextKind) -> bool {
    start >= end || sink.text(start, end, kind)
}

/// Lexes `html` from `from` to its end, reporting every text run and every complete start and
/// end tag to `sink` in order, until the sink stops it. Comments, doctypes, processing
/// instructions and bogus comments are skipped; they do not end a text run's element, but the
/// text on either side of one is reported as two runs.
pub(crate) fn scan<'a>(html: &'a [u8], from: usize, sink: &mut impl Sink<'a>) {
    let n = html.len();
    // The text run being read starts at `start`; `i` is where to look for the next `<`.
    let mut start = from.min(n);
    let mut i = start;
    while i < n {
        // Tags are mostly adjacent: look at the next byte before searching.
        let lt = if html[i] == b'<' {
            i
        } else {
            match memchr(b'<', &html[i..]) {
                Some(p) => i + p,
                None => break,
            }
        };
        let next = html.get(lt + 1).copied();
        let opens_markup = match next {
            Some(c) if c.is_ascii_alphabetic() => true,
            // `</` at the very end is text.
            Some(b'/') => lt + 2 < n,
            Some(b'!' | b'?') => true,
            _ => false,
        };
        if !opens_markup {
            // A `<` that opens nothing is text.
            i = lt + 1;
            continue;
        }
        // Markup ends the text run before it (a comment too, though it ends no element).
        if !text(sink, start, lt, TextKind::Data) {
            return;
        }
        let after = match next {
            Some(b'!') => {
                if html[lt + 2..].starts_with(b"--") {
                    comment_end(html, lt + 4)
                } else if html[lt + 2..].starts_with(b"[CDATA[") && sink.foreign() {
                    cdata_end(html, lt + 9)
                } else {
                    skip_past_gt(html, lt + 2)
                }
            }
            Some(b'?') => skip_past_gt(html, lt + 2),
            Some(b'/') => match html[lt + 2] {
                c if c.is_ascii_alphabetic() => {
                    // A tag cut off by the end of the input is dropped with what follows.
                    let Some((after, name, _, _)) = lex_tag(html, lt + 2) else {
                        return;
                    };
                    if !sink.tag(TagToken::end(name)) {
                        return;
                    }
                    after
                }
                b'>' => lt + 3,
                _ => skip_past_gt(html, lt + 2),
            },
            _ => {
                let Some((after, name, self_closing, (hint, id_hint, hidden, roles, marks))) =
                    lex_tag(html, lt + 1)
                else {
                    return;
                };
                let href = matches!(name, [b'a' | b'A'])
                    && has_href(html.get(lt + 2..after).unwrap_or_default());
                let token = TagToken {
                    end: false,
                    name,
                    self_closing,
                    attrs: html.get(lt + 1 + name.len()..after).unwrap_or_default(),
                    href,
                    hint,
                    id_hint,
                    marks,
                    hidden,
                    roles,
                };
                if !sink.tag(token) {
                    return;
                }
                match raw_text_kind(name) {
                    Some(kind) if !sink.foreign() => {
                        let end = match kind {
                            TextKind::Script => script_end(html, after),
                            TextKind::PlainText => n,
                            _ => raw_text_end(html, after, name),
                        };
                        if !text(sink, after, end, kind) {
                            return;
                        }
                        end
                    }
                    _ => after,
                }
            }
        };
        start = after;
        i = after;
    }
    text(sink, start, n, TextKind::Data);
}

/// Calls `on_tag` for every complete tag of `html`, in order (the tests of tag lexing).
#[cfg(test)]
pub(crate) fn for_each_tag<'a>(html: &'a [u8], on_tag: impl FnMut(TagToken<'a>)) {
    struct Tags<F>(F);
    impl<'a, F: FnMut(TagToken<'a>)> Sink<'a> for Tags<F> {
        fn tag(&mut self, tag: TagToken<'a>) -> bool {
            (self.0)(tag);
            true
        }
        fn text(&mut self, _: usize, _: usize, _: TextKind) -> bool {
            true
        }
        fn foreign(&self) -> bool {
            false
        }
    }
    scan(html, 0, &mut Tags(on_tag));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every event as a string: `<name>`, `</name>`, `<name/>`, or `kind:text`.
    #[derive(Default)]
    struct Events {
        html: Vec<u8>,
        out: Vec<String>,
        foreign: u32,
    }

    impl<'a> Sink<'a> for Events {
        fn tag(&mut self, tag: TagToken<'a>) -> bool {
            let name = String::from_utf8_lossy(tag.name).to_ascii_lowercase();
            if name == "svg" || name == "math" {
                if tag.end {
                    self.foreign = self.foreign.saturating_sub(1);
                } else if !tag.self_closing {
                    self.foreign += 1;
                }
            }
            self.out.push(match (tag.end, tag.self_closing) {
                (true, _) => format!("</{name}>"),
                (false, true) => format!("<{name}/>"),
                (false, false) => format!("<{name}>"),
            });
            true
        }
        fn text(&mut self, start: usize, end: usize, kind: TextKind) -> bool {
            let text = String::from_utf8_lossy(&self.html[start..end]);
            self.out.push(format!("{kind:?}:{text}"));
            true
        }
        fn foreign(&self) -> bool {
            self.foreign > 0
        }
    }

    fn events(html: &str) -> Vec<String> {
        let mut sink = Events {
            html: html.as_bytes().to_vec(),
            ..Events::default()
        };
        scan(html.as_bytes(), 0, &mut sink);
        sink.out
    }

    #[test]
    fn text_and_tags_in_order() {
        assert_eq!(
            events("a<p class=x>b &amp; c</P>d"),
            ["Data:a", "<p>", "Data:b &amp; c", "</p>", "Data:d"]
        );
        // A `<` that opens nothing is text; so is `</` at the end.
        assert_eq!(events("a < b <3 <"), ["Data:a < b <3 <"]);
        assert_eq!(events("x</"), ["Data:x</"]);
    }

    #[test]
    fn comments_doctypes_and_bogus_markup_are_skipped() {
        assert_eq!(
            events("<!DOCTYPE html>a<!-- <p> -->b<!-->c<!--->d<?xml x?>e</ 3>f</>g<br/>"),
            ["Data:a", "Data:b", "Data:c", "Data:d", "Data:e", "Data:f", "Data:g", "<br/>"]
        );
        assert_eq!(events("<!-- a --!>b"), ["Data:b"]);
        // An unclosed comment runs to the end.
        assert_eq!(events("a<!-- b <p>"), ["Data:a"]);
    }

    #[test]
    fn a_tag_cut_off_by_the_end_is_dropped_with_the_rest() {
        assert_eq!(events("a<p>b<div class=\"x>y"), ["Data:a", "<p>", "Data:b"]);
        assert_eq!(events("a</div"), ["Data:a"]);
    }

    #[test]
    fn raw_text_elements() {
        assert_eq!(
            events("<style>p{}</p></STYLE >x<title>a &amp; <b></title><textarea><p></textarea>"),
            [
                "<style>",
                "Raw:p{}</p>",
                "</style>",
                "Data:x",
                "<title>",
                "Raw:a &amp; <b>",
                "</title>",
                "<textarea>",
                "Raw:<p>",
                "</textarea>"
            ]
        );
        // The end tag needs its name whole: `</styles>` is text.
        assert_eq!(
            events("<style>a</styles>b</style>"),
            ["<style>", "Raw:a</styles>b", "</style>"]
        );
        // Self-closing syntax does not make an HTML element void.
        assert_eq!(
            events("<iframe/><p>x</iframe>y"),
            ["<iframe/>", "Raw:<p>x", "</iframe>", "Data:y"]
        );
        assert_eq!(
            events("<noscript><p>a</p></noscript>"),
            ["<noscript>", "Raw:<p>a</p>", "</noscript>"]
        );
        assert_eq!(
            events("<plaintext>a</plaintext><p>"),
            ["<plaintext>", "PlainText:a</plaintext><p>"]
        );
        // An empty attribute value ends the start tag like any other.
        assert_eq!(
            events("<style a=>x<p>y</style>z"),
            ["<style>", "Raw:x<p>y", "</style>", "Data:z"]
        );
        // Raw text cut off by the end of the input runs to the end.
        assert_eq!(events("<xmp>a<b"), ["<xmp>", "Raw:a<b"]);
    }

    #[test]
    fn script_escapes() {
        assert_eq!(
            events("<script>if (a</b) x='</scripts>'</script>c"),
            [
                "<script>",
                "Script:if (a</b) x='</scripts>'",
                "</script>",
                "Data:c"
            ]
        );
        // Inside `<!--`, a `<script>` must be closed before `</script>` ends the element.
        let html = "<script><!-- document.write('<script>x</script>') --></script>d";
        assert_eq!(
            events(html),
            [
                "<script>",
                "Script:<!-- document.write('<script>x</script>') -->",
                "</script>",
                "Data:d"
            ]
        );
        // Escaped text without a nested `<script>` still ends at `</script>`.
        assert_eq!(
            events("<script><!-- a </script>b"),
            ["<script>", "Script:<!-- a ", "</script>", "Data:b"]
        );
        // `<!-->` ends the escape at once.
        assert_eq!(
            events("<script><!--><script></script>b"),
            ["<script>", "Script:<!--><script>", "</script>", "Data:b"]
        );
    }

    #[test]
    fn foreign_content_has_no_raw_text_and_has_cdata() {
        assert_eq!(
            events("<svg><style>a<b/></style><![CDATA[<p>]]></svg><p>x"),
            ["<svg>", "<style>", "Data:a", "<b/>", "</style>", "</svg>", "<p>", "Data:x"]
        );
        // Outside foreign content a CDATA section is a bogus comment, ended by its first `>`.
        assert_eq!(events("<![CDATA[a>b]]>c"), ["Data:b]]>c"]);
    }

    #[test]
    fn a_sink_stops_the_pass() {
        struct Two(u32);
        impl<'a> Sink<'a> for Two {
            fn tag(&mut self, _: TagToken<'a>) -> bool {
                self.0 += 1;
                self.0 < 2
            }
            fn text(&mut self, _: usize, _: usize, _: TextKind) -> bool {
                true
            }
            fn foreign(&self) -> bool {
                false
            }
        }
        let mut sink = Two(0);
        scan(b"<a><b><c><d>", 0, &mut sink);
        assert_eq!(sink.0, 2);
    }
}
