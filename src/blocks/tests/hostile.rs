//! Broken and hostile HTML: the tokenizer never panics, stays bounded, and still finds the text.

use std::time::{Duration, Instant};

use super::super::{ParseLimits, Tokenizer};
use super::{check_invariants, split, texts};

fn split_bytes(html: &[u8]) -> Vec<super::super::Block> {
    let blocks = Tokenizer::new(ParseLimits::default())
        .blocks(html)
        .expect("blocks");
    check_invariants(&blocks, &ParseLimits::default());
    blocks
}

#[test]
fn unclosed_tags() {
    assert_eq!(texts("<div><p>one<div>two<span>three"), ["one", "twothree"]);
    assert_eq!(texts("<table><tr><td>a<td>b"), ["a", "b"]);
    assert_eq!(texts("<ul><li>a<li>b<li>c"), ["a", "b", "c"]);
    assert_eq!(texts("<p>text<div class=\"x"), ["text"]);
    assert_eq!(texts("<p>text<!-- never closed <p>more"), ["text"]);
    assert_eq!(texts("<p>text<script>var a = 1; <p>never closed"), ["text"]);
}

#[test]
fn stray_end_tags() {
    assert_eq!(
        texts("</div></p></span>text</td></html>more"),
        ["text", "more"]
    );
    assert_eq!(texts("</a>x</b>y"), ["xy"]);
    let b = split("</body></html><p>after end</p>");
    assert_eq!(b[0].path, "p");
}

#[test]
fn deep_nesting_is_bounded() {
    let depth = 100_000;
    let mut html = "<div>".repeat(depth);
    html.push_str("deep text");
    html.push_str(&"</div>".repeat(depth));
    html.push_str("after");
    let limits = ParseLimits::default();
    let b = split_bytes(html.as_bytes());
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].text, "deep text");
    assert_eq!(b[0].path.split('/').count(), limits.max_depth);
    assert!(b[0].path.split('/').all(|s| s == "div"));
    assert_eq!(b[0].ancestors.len(), limits.max_ancestors);
    assert_eq!(b[1].text, "after");
    // Open elements are capped (512): the deep divs were not tracked, their end tags close the
    // tracked ones, and the rest are ignored.
    assert_eq!(b[1].path, "");
}

#[test]
fn deep_unclosed_inline_and_stray_end_tags_stay_fast() {
    let mut html = "<b>".repeat(200_000);
    html.push_str(&"</i>".repeat(200_000));
    html.push('x');
    html.push_str(&"<p>".repeat(100_000));
    let start = Instant::now();
    let b = split_bytes(html.as_bytes());
    assert_eq!(b.len(), 1);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn nul_bytes() {
    let b = split_bytes(b"<p>a\0b</p>\0<di\0v>c\0</di\0v><\0p>d");
    let t: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(t, ["ab", "c", "<p>d"]);
    // NUL in a tag name reads as U+FFFD, as in the HTML tokenizer.
    assert_eq!(b[1].path, "di\u{fffd}v");
}

#[test]
fn ten_megabytes_of_text_is_one_block_in_linear_time() {
    let word = "lorem ipsum dolor sit amet ";
    let n = 10_000_000 / word.len();
    let text = word.repeat(n);
    let start = Instant::now();
    let b = split_bytes(text.as_bytes());
    let elapsed = start.elapsed();
    assert_eq!(b.len(), 1);
    // Counted whole, kept up to the 1 Mi character default, hashed whole.
    assert_eq!(b[0].chars as usize, text.trim_end().len());
    assert!(b[0].truncated);
    assert_eq!(b[0].text.len(), ParseLimits::default().max_block_chars);
    assert!(text.starts_with(b[0].text.as_str()));
    assert_eq!(b[0].hash, super::super::block_hash(&text));
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    // The same text split over many entity-bearing chunks is still one block.
    let with_entities = "a&amp;b ".repeat(500_000);
    let b = split_bytes(with_entities.as_bytes());
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].chars, 500_000 * 4 - 1);
}

#[test]
fn broken_script_tags() {
    // `<scr<script>` is a start tag named "scr<script": the rest is text, as in browsers.
    assert_eq!(texts("<scr<script>ipt>alert(1)</script>"), ["ipt>alert(1)"]);
    assert_eq!(texts("<script>a</script >b"), ["b"]);
    assert_eq!(texts("<SCRIPT>a</ScRiPt>b"), ["b"]);
    assert_eq!(
        texts("<script>document.write('</scr' + 'ipt>')</script>c"),
        ["c"]
    );
    assert_eq!(texts("<script><!--<script></script>x--></script>y"), ["y"]);
    assert_eq!(texts("<style>p{}</style x=\">\">z"), ["z"]);
}

#[test]
fn invalid_utf8_is_replaced() {
    let b = split_bytes(b"<p>caf\xe9 ok</p><p>\xff\xfe</p><d\xffv>x</d\xffv>");
    let t: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(t, ["caf\u{fffd} ok", "\u{fffd}\u{fffd}", "x"]);
    assert_eq!(b[1].hash, None);
    assert_eq!(b[2].path, "d\u{fffd}v");
    // Invalid bytes inside a long text node (the parser's slow path splits it into chunks).
    let mut html = b"<p>".to_vec();
    for _ in 0..3000 {
        html.extend_from_slice(b"ab\xff &amp; ");
    }
    let b = split_bytes(&html);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].text.matches("ab\u{fffd} &").count(), 3000);
}

#[test]
fn markup_inside_attributes_and_comments() {
    assert_eq!(
        texts("<a title=\"<p>not a tag</p>\" href='x>y'>link</a><img alt=\"a>b\">text"),
        ["linktext"]
    );
    assert_eq!(texts("<!--> x <!---> y <!-- -- --!> z"), ["x y z"]);
    // A processing instruction is a bogus comment ending at the first `>`.
    assert_eq!(
        texts("<?php echo '<p>' ?>a<!x>b<![CDATA[c]]>d"),
        ["' ?>abd"]
    );
}

#[test]
fn empty_and_whitespace_only_input() {
    assert!(split_bytes(b"").is_empty());
    assert!(split_bytes(b"   \n\t ").is_empty());
    assert!(split_bytes(b"<html><body>  <p> </p> <!-- --> </body></html>").is_empty());
    assert_eq!(texts("<"), ["<"]);
    assert_eq!(texts("< p>"), ["< p>"]);
    assert_eq!(texts("a < b > c"), ["a < b > c"]);
}

#[test]
fn noscript_text_is_parsed_once_within_the_page_limits() {
    let limits = ParseLimits::default();
    // Deeply nested divs inside one noscript: the open-element cap and path depth hold.
    let depth = 100_000;
    let mut html = String::from("<body><noscript>");
    html.push_str(&"<div>".repeat(depth));
    html.push_str("deep text");
    html.push_str(&"</div>".repeat(depth));
    html.push_str("</noscript><p>after</p>");
    let b = split_bytes(html.as_bytes());
    let got: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(got, ["deep text", "after"]);
    assert_eq!(b[0].path.split('/').count(), limits.max_depth);
    assert_eq!(b[1].path, "body/p");
    // Noscript start tags nested in noscript text are not parsed again: one nested pass over
    // the text, whose inner noscripts (and their text) are dropped.
    let mut html = String::from("<p>a</p>");
    html.push_str(&"<noscript><p>x".repeat(50_000));
    html.push_str("</noscript><p>b</p>");
    let b = split_bytes(html.as_bytes());
    let got: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(got, ["a", "x", "b"]);
    // Unterminated, at the end of a page.
    let mut html = String::from("<p>a</p><noscript>");
    html.push_str(&"<p>x&amp;y ".repeat(10_000));
    let b = split_bytes(html.as_bytes());
    assert_eq!(b.len(), 10_001);
    assert!(b[1..]
        .iter()
        .all(|b| b.text == "x&y" && b.path == "noscript/p"));
}

#[test]
fn many_noscripts_share_the_page_block_limit() {
    let limits = ParseLimits {
        max_blocks: 1_000,
        ..ParseLimits::default()
    };
    let html = "<noscript><p>one</p><p>two</p></noscript>".repeat(100_000);
    let mut tokenizer = Tokenizer::new(limits.clone());
    let b = tokenizer.blocks(html.as_bytes()).expect("blocks");
    check_invariants(&b, &limits);
    assert_eq!(b.len(), limits.max_blocks);
    assert!(tokenizer.stats().block_limit_hit);
    // The same page without the limit: every noscript is read.
    let b = split_bytes(&html.as_bytes()[..html.len() / 100]);
    assert_eq!(b.len(), 2_000);
}

#[test]
fn a_tag_cut_off_by_the_end_of_a_noscript_text_is_dropped() {
    let mut html = String::from("<p>a</p><noscript><p>b</p><div class=\"");
    html.push_str(&"x".repeat(100_000));
    html.push_str("</noscript><p>c</p>");
    // The cut-off tag is ignored, as at the end of a page, and the page goes on after the
    // noscript.
    let got: Vec<String> = split_bytes(html.as_bytes())
        .into_iter()
        .map(|b| b.text)
        .collect();
    assert_eq!(got, ["a", "b", "c"]);
}
