//! Links, images, formulas, `<base href>` and code languages recorded beside the text, and the
//! text and identities they leave alone.

use super::check_invariants;
use crate::blocks::{Block, Capture, Image, Link, ParseLimits, Tokenizer};

fn capture(html: &str) -> Vec<Block> {
    let limits = ParseLimits::default();
    let blocks = Tokenizer::with_capture(limits.clone(), Capture::ALL)
        .blocks(html.as_bytes())
        .expect("blocks");
    check_invariants(&blocks, &limits);
    blocks
}

#[test]
fn links_are_recorded_where_their_text_stands() {
    let b = capture(
        "<p>See <a href=\" /a?x=1&amp;y=2 \">the <b>first</b></a> and <a href=b>second</a>, \
         <a>no link</a>, <a href>empty</a>.</p>",
    );
    assert_eq!(b.len(), 1);
    let text = &b[0].text;
    let spans: Vec<(&str, &str)> = b[0]
        .links
        .iter()
        .map(|l| (&text[l.start as usize..l.end as usize], l.href.as_str()))
        .collect();
    assert_eq!(spans, [("the first", "/a?x=1&y=2"), ("second", "b")]);
}

#[test]
fn capture_changes_no_text_count_or_identity() {
    let html = "<html><head><base href=\"/root/\"></head><body><nav><a href=/>Home</a></nav>\
                <p>Text <a href=x>link</a> <img src=i.png alt=I> more <math><mi>x</mi></math></p>\
                <div><img src=lone.png></div><p>after</p></body></html>";
    let strip = |blocks: Vec<Block>| -> Vec<Block> {
        blocks
            .into_iter()
            .map(|b| Block {
                links: Vec::new(),
                images: Vec::new(),
                ..b
            })
            .collect()
    };
    let plain = Tokenizer::new(ParseLimits::default())
        .blocks(html.as_bytes())
        .expect("blocks");
    assert!(plain
        .iter()
        .all(|b| b.links.is_empty() && b.images.is_empty()));
    let marked = capture(html);
    assert!(marked.iter().any(|b| !b.links.is_empty()));
    assert_eq!(strip(marked), plain);
}

#[test]
fn images_stand_in_their_text_or_beside_the_block_before() {
    let b = capture(
        "<div><img src=first.png alt=First></div><h1>Title</h1>\
         <p>A <img src=\"in.png\" alt=\" In \n line \">b</p>\
         <figure><img src=fig.png alt=Fig><figcaption>Caption</figcaption></figure>",
    );
    let images = |i: usize| -> Vec<(u32, bool, &str, &str)> {
        b[i].images
            .iter()
            .map(
                |Image {
                     at,
                     own_line,
                     src,
                     alt,
                 }| (*at, *own_line, src.as_str(), alt.as_str()),
            )
            .collect()
    };
    assert_eq!(b.len(), 3);
    assert_eq!(images(0), [(0, true, "first.png", "First")]);
    assert_eq!(
        images(1),
        [(2, false, "in.png", "In line"), (3, true, "fig.png", "Fig")]
    );
    assert!(images(2).is_empty());
}

#[test]
fn base_href_is_the_first_with_an_href() {
    let mut t = Tokenizer::new(ParseLimits::default());
    t.blocks(b"<head><base target=_blank><base href=\" https://cdn.example.org/a/ \"><base href=/b/></head><p>x")
        .expect("blocks");
    assert_eq!(
        t.take_meta().base_href.as_deref(),
        Some("https://cdn.example.org/a/")
    );
}

#[test]
fn code_languages_from_wrappers() {
    let langs = |html: &str| -> Vec<Option<String>> {
        capture(html)
            .into_iter()
            .filter(|b| b.pre.is_some())
            .map(|b| b.code_language)
            .collect()
    };
    // Sphinx (Pygments), Rouge (Jekyll), GitHub, SyntaxHighlighter, and a wrapper that closed.
    assert_eq!(
        langs(
            "<div class=\"highlight-python3 notranslate\"><div class=\"highlight\"><pre>x = 1</pre></div></div>\
             <div class=\"language-ruby highlighter-rouge\"><div class=\"highlight\"><pre class=\"highlight\"><code>puts 1</code></pre></div></div>\
             <div class=\"highlight highlight-source-rust\"><pre>fn f() {}</pre></div>\
             <pre class=\"brush: php; gutter: false\">echo 1;</pre>\
             <div class=\"highlight-default\"><pre>plain</pre></div>\
             <pre>none</pre>"
        ),
        [
            Some("python3".into()),
            Some("ruby".into()),
            Some("rust".into()),
            Some("php".into()),
            None,
            None
        ]
    );
}

#[test]
fn hostile_marks_stay_bounded() {
    // A long href is not recorded; a link left open ends with its block.
    let long = "x".repeat(20_000);
    let b = capture(&format!(
        "<p><a href=\"{long}\">long</a> <a href=ok>open</p><p>next</p>"
    ));
    assert_eq!(b[0].links.len(), 1);
    assert_eq!(
        b[0].links[0],
        Link {
            start: 5,
            end: 9,
            href: "ok".into()
        }
    );
    assert!(b[1].links.is_empty() || b[1].links[0].href == "ok");
    // Many images in no text, before any block: all stand before the first one.
    let many = "<img src=a.png>".repeat(1000);
    let b = capture(&format!("<div>{many}</div><p>t</p>"));
    assert_eq!(b[0].images.len(), 1000);
}
