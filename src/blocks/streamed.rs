//! React's streamed segments put back in their places. React's streaming server renderer sends
//! the parts of a page that were not ready with its shell later in the same response, each as a
//! `<div hidden id="S:n">` after the shell, and a script of the page moves it where it belongs:
//! into a Suspense boundary, whose `<template id="B:n">` and fallback (a spinner, a skeleton, up
//! to the boundary's `<!--/$-->`) it replaces, or in place of a `<template id="P:n">` placeholder
//! (React's `$RC` and `$RS` instructions; the segment and its place share the suffix `n`). A
//! crawler runs no script: without this, a product's specifications or an article's body lie
//! hidden after the footer. [`reinsert`] does what the script does, on the page's bytes, before
//! the lexer reads them; a segment without a place on the page stays where it was sent.

use super::scan::{names_tag, script_end};
use memchr::memmem;
use std::collections::{HashMap, HashSet};

/// How a streamed segment opens, as React writes it.
const SEGMENT: &[u8] = b"<div hidden id=\"S:";
/// How a boundary or a placeholder opens, as React writes it.
const PLACE: &[u8] = b"<template id=\"";
/// A boundary's end, where its fallback ends.
const BOUNDARY_END: &[u8] = b"<!--/$-->";
/// A boundary's start: a nested boundary inside a fallback.
const BOUNDARY_START: &[u8] = b"<!--$";
/// Segments nest in segments (a placeholder inside a streamed part) at most this deep.
const MAX_DEPTH: usize = 16;
/// Bytes after a boundary's template within which its fallback ends (a spinner, a skeleton);
/// a fallback longer than that, or not ended, stays.
const MAX_FALLBACK: usize = 64 * 1024;
/// Segments moved at most on one page (a store's product page streams sixty); those after
/// stay where they were sent.
const MAX_SEGMENTS: usize = 4096;

/// One streamed segment: its suffix, the bytes of the whole `<div hidden>` and of its content.
struct Segment {
    suffix: std::ops::Range<usize>,
    whole: std::ops::Range<usize>,
    content: std::ops::Range<usize>,
    used: bool,
}

/// The page with each streamed segment moved into its boundary or placeholder, `None` when it
/// has none to move. Never longer than the page: each segment is moved once, and a boundary's
/// fallback is dropped.
pub(crate) fn reinsert(html: &[u8]) -> Option<Vec<u8>> {
    let first = memmem::find(html, SEGMENT)?;
    let mut segments = Vec::new();
    let mut at = first;
    while segments.len() < MAX_SEGMENTS {
        let suffix_start = at + SEGMENT.len();
        let Some(suffix_len) = html[suffix_start..]
            .iter()
            .take(32)
            .position(|&b| b == b'"')
        else {
            break;
        };
        let suffix = suffix_start..suffix_start + suffix_len;
        let content_start = suffix.end + 2;
        if html.get(suffix.end..content_start) != Some(b"\">".as_slice()) {
            break;
        }
        let Some((content_end, end)) = div_end(html, content_start) else {
            break;
        };
        segments.push(Segment {
            suffix,
            whole: at..end,
            content: content_start..content_end,
            used: false,
        });
        match memmem::find(&html[end..], SEGMENT) {
            Some(next) => at = end + next,
            None => break,
        }
    }
    // Only segments with a place on the page move; the others stay.
    let places = places(html);
    let placed: Vec<usize> = (0..segments.len())
        .filter(|&i| places.contains(&html[segments[i].suffix.clone()]))
        .collect();
    if placed.is_empty() {
        return None;
    }
    let mut shell = Vec::with_capacity(html.len());
    let mut from = 0;
    for &i in &placed {
        let whole = segments[i].whole.clone();
        shell.extend_from_slice(&html[from..whole.start]);
        from = whole.end;
    }
    shell.extend_from_slice(&html[from..]);
    let by_suffix: HashMap<&[u8], usize> = placed
        .iter()
        .map(|&i| (&html[segments[i].suffix.clone()], i))
        .collect();
    let mut out = Vec::with_capacity(html.len());
    expand(html, &shell, &mut segments, &by_suffix, &mut out, 0);
    // A segment whose place lay in a segment that did not move stays as it was sent.
    for &i in &placed {
        if !segments[i].used {
            out.extend_from_slice(&html[segments[i].whole.clone()]);
        }
    }
    Some(out)
}

/// Writes `src` to `out` with each place of a segment not yet used replaced by the segment's
/// content (itself expanded), and a boundary's fallback dropped.
fn expand(
    html: &[u8],
    src: &[u8],
    segments: &mut [Segment],
    by_suffix: &HashMap<&[u8], usize>,
    out: &mut Vec<u8>,
    depth: usize,
) {
    let mut from = 0;
    let mut search = 0;
    while let Some(found) = memmem::find(&src[search..], PLACE) {
        let start = search + found;
        search = start + PLACE.len();
        let Some((kind, suffix, end)) = place_at(src, start) else {
            continue;
        };
        let Some(&i) = by_suffix.get(suffix).filter(|&&i| !segments[i].used) else {
            continue;
        };
        if depth >= MAX_DEPTH {
            break;
        }
        segments[i].used = true;
        out.extend_from_slice(&src[from..start]);
        let content = segments[i].content.clone();
        expand(html, &html[content], segments, by_suffix, out, depth + 1);
        from = end;
        // A boundary's fallback ends at the boundary's end, unless another boundary opens
        // inside it first; then it stays.
        if kind == b'B' {
            let rest = &src[end..src.len().min(end + MAX_FALLBACK)];
            if let Some(close) = memmem::find(rest, BOUNDARY_END) {
                if memmem::find(&rest[..close], BOUNDARY_START).is_none() {
                    from = end + close;
                }
            }
        }
        search = from;
    }
    out.extend_from_slice(&src[from..]);
}

/// True when a `<template>` start tag's attributes make it the place of a streamed segment
/// (`id="B:n"` or `id="P:n"`).
pub(crate) fn is_place(attrs: &[u8]) -> bool {
    super::markup::attribute_value(attrs, b"id")
        .is_some_and(|id| id.len() > 2 && matches!(id[0], b'B' | b'P') && id[1] == b':')
}

/// The suffixes of the places on the page.
fn places(html: &[u8]) -> HashSet<&[u8]> {
    let mut places = HashSet::new();
    let mut search = 0;
    while let Some(found) = memmem::find(&html[search..], PLACE) {
        let start = search + found;
        if let Some((_, suffix, _)) = place_at(html, start) {
            places.insert(suffix);
        }
        search = start + PLACE.len();
    }
    places
}

/// The place that opens at `start` (a `<template id="B:n"></template>` or `P:n`): its kind
/// (`B` or `P`), its suffix and where it ends.
fn place_at(src: &[u8], start: usize) -> Option<(u8, &[u8], usize)> {
    let id = start + PLACE.len();
    let kind = *src.get(id)?;
    if !matches!(kind, b'B' | b'P') || src.get(id + 1) != Some(&b':') {
        return None;
    }
    let suffix_start = id + 2;
    let len = src[suffix_start..]
        .iter()
        .take(32)
        .position(|&b| b == b'"')?;
    let suffix = &src[suffix_start..suffix_start + len];
    let rest = &src[suffix_start + len..];
    const CLOSE: &[u8] = b"\"></template>";
    rest.starts_with(CLOSE)
        .then_some((kind, suffix, suffix_start + len + CLOSE.len()))
}

/// The end of the `<div>` whose content starts at `from`: where its `</div>` starts and where it
/// ends, counting the `<div>`s opened and closed inside (comments and scripts skipped). `None`
/// when the page ends first.
fn div_end(html: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(lt) = memchr::memchr(b'<', &html[i..]) {
        let at = i + lt;
        let rest = &html[at..];
        if rest.starts_with(b"<!--") {
            i = at + 4 + memmem::find(&rest[4..], b"-->")? + 3;
        } else if names_tag(html, at, b"<", b"script") {
            // The script's text, as the lexer reads it, from past its start tag.
            let text = at + memchr::memchr(b'>', rest)? + 1;
            let end = script_end(html, text);
            if end >= html.len() {
                return None;
            }
            i = end + 1;
        } else if names_tag(html, at, b"<", b"div") {
            depth += 1;
            i = at + 4;
        } else if names_tag(html, at, b"</", b"div") {
            depth -= 1;
            let close = at + 5 + memchr::memchr(b'>', &rest[5..])? + 1;
            if depth == 0 {
                return Some((at, close));
            }
            i = close;
        } else {
            i = at + 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::reinsert;

    fn moved(html: &str) -> Option<String> {
        reinsert(html.as_bytes()).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn segments_move_into_their_boundaries_and_placeholders() {
        let page = concat!(
            "<body><main><h1>Chair</h1><!--$?--><template id=\"B:0\"></template>",
            "<p>Loading…</p><!--/$--><section><template id=\"P:1\"></template></section></main>",
            "<footer>Footer</footer>",
            "<div hidden id=\"S:0\"><div><p>Specifications</p><div>Seat: 20 in</div></div></div>",
            "<script>$RC(\"B:0\",\"S:0\")</script>",
            "<div hidden id=\"S:1\"><p>Reviews <!-- </div> --></p></div>",
            "<script>$RS(\"S:1\",\"P:1\")</script></body>"
        );
        assert_eq!(
            moved(page).unwrap(),
            concat!(
                "<body><main><h1>Chair</h1><!--$?--><div><p>Specifications</p><div>Seat: 20 in",
                "</div></div><!--/$--><section><p>Reviews <!-- </div> --></p></section></main>",
                "<footer>Footer</footer><script>$RC(\"B:0\",\"S:0\")</script>",
                "<script>$RS(\"S:1\",\"P:1\")</script></body>"
            )
        );
    }

    #[test]
    fn nested_placeholders_move_and_strays_stay() {
        // A segment holding the placeholder of another; a segment with no place stays hidden
        // where it was sent; a page without segments is not copied.
        let page = concat!(
            "<main><template id=\"P:0\"></template></main>",
            "<div hidden id=\"S:0\"><p>Outer</p><template id=\"P:1\"></template></div>",
            "<div hidden id=\"S:1\"><p>Inner</p></div>",
            "<div hidden id=\"S:9\"><p>Stray</p></div>"
        );
        assert_eq!(
            moved(page).unwrap(),
            concat!(
                "<main><p>Outer</p><p>Inner</p></main>",
                "<div hidden id=\"S:9\"><p>Stray</p></div>"
            )
        );
        assert_eq!(moved("<main><p>Text</p></main>"), None);
        // A segment cut short by the end of the page is left as it is.
        assert_eq!(
            moved("<template id=\"P:0\"></template><div hidden id=\"S:0\"><div>cut"),
            None
        );
        // A script's text inside a segment is no markup; a script left open ends the search.
        assert_eq!(
            moved("<template id=\"P:0\"></template><div hidden id=\"S:0\"><script>x='</div>'</script>b</div>").unwrap(),
            "<script>x='</div>'</script>b"
        );
        assert_eq!(
            moved("<template id=\"P:0\"></template><div hidden id=\"S:0\"><script>x='</div>'"),
            None
        );
        // Segments before one whose id runs on unclosed still move.
        assert_eq!(
            moved("<template id=\"P:0\"></template><div hidden id=\"S:0\">a</div><div hidden id=\"S:1").unwrap(),
            "a<div hidden id=\"S:1"
        );
    }

    #[test]
    fn the_lexer_reads_a_segment_in_its_place_and_shown() {
        let page = concat!(
            "<body><main><h1>Chair</h1><!--$?--><template id=\"B:0\"></template>",
            "<p>Loading</p><!--/$--></main><footer>Footer</footer>",
            "<div hidden id=\"S:0\"><p>Seat height: twenty inches</p></div></body>"
        );
        let mut tokenizer = crate::blocks::Tokenizer::new(crate::blocks::ParseLimits::default());
        let blocks = tokenizer.blocks(page.as_bytes()).unwrap();
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Chair", "Seat height: twenty inches", "Footer"]);
        assert_eq!(blocks[1].path, "body/main/p");
        assert_eq!(blocks[1].hidden, None);
    }

    #[test]
    fn a_page_of_thousands_of_segments_moves_the_first_four_thousand() {
        let n = 5000;
        let mut page = String::from("<main>");
        for i in 0..n {
            page.push_str(&format!("<template id=\"P:{i:x}\"></template>"));
        }
        page.push_str("</main>");
        for i in 0..n {
            page.push_str(&format!("<div hidden id=\"S:{i:x}\"><p>{i}</p></div>"));
        }
        let out = moved(&page).unwrap();
        assert!(out.starts_with("<main><p>0</p><p>1</p>"));
        assert!(out.contains("<p>4095</p><template id=\"P:1000\"></template>"));
        assert!(out.ends_with(&format!(
            "<div hidden id=\"S:{:x}\"><p>{}</p></div>",
            n - 1,
            n - 1
        )));
        assert!(out.len() <= page.len());
    }

    #[test]
    fn any_mix_of_the_pieces_is_rewritten_no_longer_and_without_a_panic() {
        const PIECES: [&str; 14] = [
            "<template id=\"B:0\"></template>",
            "<template id=\"P:1\"></template>",
            "<template id=\"B:",
            "<div hidden id=\"S:0\">",
            "<div hidden id=\"S:1\">",
            "<div hidden id=\"S:",
            "<div>",
            "</div>",
            "<!--$-->",
            "<!--/$-->",
            "<!--",
            "<script>",
            "</script>",
            "text",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut page = String::new();
            for _ in 0..10 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                page.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            if let Some(out) = reinsert(page.as_bytes()) {
                assert!(out.len() <= page.len(), "{page}");
            }
        }
    }

    #[test]
    fn a_fallback_holding_another_boundary_stays() {
        let page = concat!(
            "<!--$?--><template id=\"B:0\"></template><!--$--><p>Inner</p><!--/$--><!--/$-->",
            "<div hidden id=\"S:0\"><p>Done</p></div>"
        );
        assert_eq!(
            moved(page).unwrap(),
            "<!--$?--><p>Done</p><!--$--><p>Inner</p><!--/$--><!--/$-->"
        );
    }
}
