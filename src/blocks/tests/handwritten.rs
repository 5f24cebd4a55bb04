//! Hand-written pages with exactly known blocks.

use super::super::{block_hash, Block, BlockError, ParseLimits, Tokenizer};
use super::{check_invariants, split, texts};

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><title>Page title</title><style>p { color: red }</style>
<script>var x = "<p>not text</p>"; if (a < b) { y(); }</script></head>
<body>
<div id="main">
  <h1>Hello, <em>World</em>!</h1>
  <p>First &amp; <b>bold</b>   text&nbsp;here
     &#233;t&eacute;.</p>b
  <p>Line one<br>Line two</p>
  <!-- a comment <p>hidden</p> -->
  <p>Read <a href="/x">the  docs</a> now</p>
  <ul><li>One<li>Two</ul>
  <noscript>Enable JS</noscript><template><p>tmpl</p></template><svg><text>svg text</text></svg>
  <p>2019 | 12:00</p>
</div>
</body></html>"#;

#[test]
fn hand_written_page_exact_blocks() {
    let blocks = split(PAGE);
    check_invariants(&blocks, &ParseLimits::default());
    let got: Vec<(&str, &str, &[u32], u32, u32)> = blocks
        .iter()
        .map(|b| {
            (
                b.text.as_str(),
                b.path.as_str(),
                b.ancestors.as_slice(),
                b.link_chars,
                b.chars,
            )
        })
        .collect();
    // Ordinals: html 0, head 1, title 2, style 3, script 4, body 5, div 6, h1 7, em 8, p 9, b 10,
    // p 11, br 12, p 13, a 14, ul 15, li 16, li 17, noscript 18, template 19, svg 20, p 21.
    let expected: Vec<(&str, &str, &[u32], u32, u32)> = vec![
        ("Hello, World!", "html/body/div/h1", &[0, 5, 6, 7], 0, 13),
        (
            "First & bold text here été.",
            "html/body/div/p",
            &[0, 5, 6, 9],
            0,
            27,
        ),
        ("b", "html/body/div", &[0, 5, 6], 0, 1),
        ("Line one", "html/body/div/p", &[0, 5, 6, 11], 0, 8),
        ("Line two", "html/body/div/p", &[0, 5, 6, 11], 0, 8),
        (
            "Read the docs now",
            "html/body/div/p",
            &[0, 5, 6, 13],
            8,
            17,
        ),
        ("One", "html/body/div/ul/li", &[0, 5, 6, 15, 16], 0, 3),
        ("Two", "html/body/div/ul/li", &[0, 5, 6, 15, 17], 0, 3),
        // What a client without scripting renders, as in a `<div>`.
        ("Enable JS", "html/body/div/noscript", &[0, 5, 6, 18], 0, 9),
        ("2019 | 12:00", "html/body/div/p", &[0, 5, 6, 21], 0, 12),
    ];
    assert_eq!(got, expected);
    assert_eq!(blocks[0].hash, block_hash("hello world"));
    assert_eq!(blocks[0].hash, block_hash("Hello, World!"));
    assert_ne!(blocks[0].hash, block_hash("hello there"));
    assert_eq!(blocks[9].hash, None);
    assert!(blocks.iter().all(|b| !b.truncated));
}

#[test]
fn block_after_closed_paragraph_is_separate() {
    assert_eq!(texts("<p>a</p>b"), ["a", "b"]);
    assert_eq!(texts("a<div></div>b"), ["a", "b"]);
    assert_eq!(texts("a<hr>b"), ["a", "b"]);
}

#[test]
fn inline_tags_do_not_split() {
    for tag in [
        "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn",
        "em", "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s",
        "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
        "SPAN", "Em",
    ] {
        let html = format!("<p>x <{tag} class=\"c\">y</{tag}> z</p>");
        assert_eq!(texts(&html), ["x y z"], "{tag}");
    }
    assert_eq!(texts("<p>x<img src=a.png alt=pic>y<wbr>z</p>"), ["xyz"]);
}

#[test]
fn other_tags_split() {
    for tag in [
        "div",
        "p",
        "td",
        "li",
        "h2",
        "section",
        "button",
        "my-widget",
        "o:p",
        "blink",
    ] {
        let html = format!("x<{tag}>y</{tag}>z");
        assert_eq!(texts(&html), ["x", "y", "z"], "{tag}");
    }
    assert_eq!(
        texts("one<br>two<br/>three</br>four"),
        ["one", "two", "three", "four"]
    );
    assert_eq!(texts("a<input value=x>b"), ["a", "b"]);
}

#[test]
fn dropped_content() {
    let html = "<p>keep</p>\
        <script>var a = '<p>x</p>';</script>\
        <style>.a{}</style>\
        <template><p>tmpl</p></template>\
        <svg viewBox='0 0 1 1'><title>icon</title><text>svg</text></svg>\
        <math><mi>x</mi></math>\
        <iframe src=x>frame</iframe>\
        <textarea>typed &amp; text</textarea>\
        <select><option>Choose<option>Other</select>\
        <datalist><option>d</datalist>\
        <video src=v><p>Your browser does not support video</p></video>\
        <audio src=a>No audio</audio><canvas>No canvas</canvas>\
        <!-- comment --><!---->\
        <p>also kept</p>";
    // All but the formula, which gives its linear form (`blocks::math`).
    assert_eq!(texts(html), ["keep", "x", "also kept"]);
}

#[test]
fn br_and_p_end_tags_leave_svg_and_mathml() {
    // HTML: in foreign content `</br>` and `</p>` pop every SVG and MathML element, then act
    // as in HTML.
    assert_eq!(
        texts("<p>x<svg><text>drawn</text></br>after</svg><p>y"),
        ["x", "after", "y"]
    );
    // The formula ends there with what was read of it.
    assert_eq!(
        texts("<div><math><mi>m</mi><svg></p>out<style>s</style></div>"),
        ["m", "out"]
    );
}

#[test]
fn declarative_shadow_roots_are_rendered_and_other_templates_are_not() {
    // As a server renders a web component: its shadow tree in a `<template shadowrootmode>`,
    // its light children after it.
    let html = "<article><my-card><template shadowrootmode=\"open\"><h2>Shadow title</h2>\
        <template><p>inert inside</p></template><p>Shadow text</p><slot></slot></template>\
        <p>Light text</p></my-card><template><p>inert</p></template>\
        <template shadowroot=closed><p>Earlier syntax</p></template>\
        <template shadowrootmode=other><p>not a mode</p></template><p>end</p></article>";
    assert_eq!(
        texts(html),
        [
            "Shadow title",
            "Shadow text",
            "Light text",
            "Earlier syntax",
            "end"
        ]
    );
    let blocks = split(html);
    assert_eq!(blocks[1].path, "article/my-card/template/p");
    assert_eq!(blocks[2].path, "article/my-card/p");
}

#[test]
fn noscript_text_is_parsed_as_html_in_place() {
    let blocks = split(
        "<html><head><noscript><style>.x{}</style><img src=pixel>head text</noscript></head>\
         <body><p>before</p><noscript data-path=\"/t/a/1\"><div class=\"post\" itemprop=text>\
         <h1>Title &amp; <em>more</em></h1><p>See <a href=\"/x\">the link</a> and <code>f()</code>\
         </p><pre class=\"language-rust\">let a = 1;\n  a</pre><ul><li>one<li>two</ul>\
         <noscript>inner</noscript>tail</div></noscript><p>after</p></body></html>",
    );
    check_invariants(&blocks, &ParseLimits::default());
    let got: Vec<(&str, &str, &[u32])> = blocks
        .iter()
        .map(|b| (b.text.as_str(), b.path.as_str(), b.ancestors.as_slice()))
        .collect();
    // Ordinals: html 0, head 1, noscript 2 (in the head: dropped), body 3, p 4, noscript 5,
    // div 6, h1 7, em 8, p 9, a 10, code 11, pre 12, ul 13, li 14, li 15, noscript 16 (inside
    // another noscript's text: dropped), p 17.
    let expected: Vec<(&str, &str, &[u32])> = vec![
        ("before", "html/body/p", &[0, 3, 4]),
        (
            "Title & more",
            "html/body/noscript/div/h1",
            &[0, 3, 5, 6, 7],
        ),
        (
            "See the link and f()",
            "html/body/noscript/div/p",
            &[0, 3, 5, 6, 9],
        ),
        (
            "let a = 1;\n  a",
            "html/body/noscript/div/pre",
            &[0, 3, 5, 6, 12],
        ),
        ("one", "html/body/noscript/div/ul/li", &[0, 3, 5, 6, 13, 14]),
        ("two", "html/body/noscript/div/ul/li", &[0, 3, 5, 6, 13, 15]),
        // The noscript's raw text ends at the first `</noscript>`, the inner one's (HTML with
        // scripting): what follows is outside it.
        ("tail", "html/body", &[0, 3]),
        ("after", "html/body/p", &[0, 3, 17]),
    ];
    assert_eq!(got, expected);
    let link = &blocks[2];
    assert_eq!(
        (link.link_chars, link.code_spans.as_slice()),
        (8, &[(17, 20)][..])
    );
    assert_eq!(link.hint, super::super::Hint::Content);
    assert_eq!(blocks[3].pre, Some(12));
    assert_eq!(blocks[3].code_language.as_deref(), Some("rust"));
}

#[test]
fn noscript_edges() {
    // Empty, and a pixel only: no text, nothing else changes.
    assert_eq!(texts("<p>a</p><noscript></noscript><p>b</p>"), ["a", "b"]);
    assert_eq!(
        texts("<p>a<noscript><img src=\"/px.gif\" width=1 height=1></noscript>b</p>"),
        ["a", "b"]
    );
    // Unterminated: the text runs to the end of the page and is still read.
    assert_eq!(texts("<p>a</p><noscript><p>b<p>c"), ["a", "b", "c"]);
    // What its text leaves open (a link, a table, a script) ends with the noscript.
    let blocks =
        split("<noscript><a href=x>link<table><tr><td>cell<script>x</noscript><p>after</p>");
    assert_eq!(
        blocks
            .iter()
            .map(|b| (b.text.as_str(), b.path.as_str(), b.link_chars))
            .collect::<Vec<_>>(),
        [
            ("link", "noscript", 4),
            ("cell", "noscript/table/tr/td", 4),
            ("after", "p", 0)
        ]
    );
    // A noscript inside a `<p>`: its block elements close the `<p>` as in a browser.
    assert_eq!(
        texts("<p>x<noscript><div>y</div>z</noscript>w</p>"),
        ["x", "y", "z", "w"]
    );
    // In dropped content a noscript stays dropped.
    assert_eq!(
        texts("<script><noscript>s</noscript></script><svg><noscript>v</noscript></svg>k"),
        ["k"]
    );
}

#[test]
fn foreign_content_edges() {
    // Self-closing svg does not swallow the rest; nested svg nests.
    assert_eq!(texts("<p>a<svg/>b</p>"), ["a", "b"]);
    assert_eq!(texts("<svg><svg><text>x</text></svg>y</svg>z"), ["z"]);
    assert_eq!(texts("<svg><path/><path d='M0'/></svg>after"), ["after"]);
    // An HTML tag breaks out of unclosed foreign content, as in browsers.
    assert_eq!(texts("<svg><text>x</text><p>visible</p>"), ["visible"]);
    // A select is ended by another select or an input.
    assert_eq!(texts("<select><option>a<select>b"), ["b"]);
}

#[test]
fn comments_do_not_split() {
    assert_eq!(texts("foo<!-- x -->bar"), ["foobar"]);
    assert_eq!(texts("foo <!-- <div> --> bar"), ["foo bar"]);
}

#[test]
fn entities_and_whitespace() {
    assert_eq!(
        texts("<p>&lt;script&gt; &quot;q&quot; &#x27;s&#39; &copy 2020 &AMP; &zzz;</p>"),
        ["<script> \"q\" 's' © 2020 & &zzz;"]
    );
    assert_eq!(texts("<p> \n\t a \u{a0}&nbsp; b\r\n </p>"), ["a b"]);
    assert_eq!(texts("<p>&nbsp;&#160;\u{3000}</p><p> </p>x"), ["x"]);
    assert_eq!(texts("<p>a&#0;b&#x1;c</p>"), ["a\u{fffd}bc"]);
}

#[test]
fn whitespace_between_inline_elements() {
    assert_eq!(texts("<p><b>a</b> <i>b</i></p>"), ["a b"]);
    assert_eq!(texts("<p><b>a</b><i>b</i></p>"), ["ab"]);
    assert_eq!(texts("<p>a <b> b </b> c</p>"), ["a b c"]);
}

#[test]
fn link_chars() {
    let b = &split("<div><a href=x>Home</a> | <a href=y>News</a></div>")[0];
    assert_eq!(b.text, "Home | News");
    assert_eq!((b.link_chars, b.chars), (8, 11));
    // A new <a> closes an unclosed one; a block-level end tag closes an open <a>.
    let b = &split("<p><a href=1>one<a href=2>two</p><p>three</p>");
    assert_eq!((b[0].link_chars, b[0].chars), (6, 6));
    assert_eq!((b[1].link_chars, b[1].chars), (0, 5));
    // A named anchor (no href) is not a link, even left open over the text.
    let b = &split("<p><a name=top>Chapter one<p>Some text</p>");
    assert_eq!((b[0].link_chars, b[1].link_chars), (0, 0));
    // `</a>` with a block opened inside it: the text after the block's end is not a link.
    let b = split("<a href=x><div>in</a>out</div>");
    assert_eq!(
        (b[0].text.as_str(), b[0].link_chars, b[0].chars),
        ("inout", 2, 5)
    );
}

#[test]
fn implied_end_tags_keep_paths_right() {
    let b = split(
        "<body><p>one<p>two<div>three</div>\
         <table><tr><td>c1<td>c2<tr><td>c3</table>\
         <dl><dt>t<dd>d</dl><h2>h</body>",
    );
    let got = texts_and_paths(&b);
    assert_eq!(
        got,
        [
            ("one", "body/p"),
            ("two", "body/p"),
            ("three", "body/div"),
            ("c1", "body/table/tr/td"),
            ("c2", "body/table/tr/td"),
            ("c3", "body/table/tr/td"),
            ("t", "body/dl/dt"),
            ("d", "body/dl/dd"),
            ("h", "body/h2"),
        ]
    );
    // `</div>` inside a table cell does not close the div outside the table.
    let b = split("<div><table><tr><td></div>x</td></tr></table>y</div>z");
    let got = texts_and_paths(&b);
    assert_eq!(got, [("x", "div/table/tr/td"), ("y", "div"), ("z", "")]);
    // `</head>` and `<body>` close the head.
    assert_eq!(
        split("<html><head><meta charset=utf-8><body>x")[0].path,
        "html/body"
    );
    // A button whose start tag lost its `>` swallows its end tag as an attribute and stays
    // open: the next button closes it, and an end tag outside it closes across it (HTML's
    // default scope has no button); a `<p>` inside a button stays inside it.
    let b = split(
        "<nav><ul><li><button class=\"menu\"\n\nShop </button><div>Explore</div></li>\
         <li><button>Care</button><div>Find care</div></li></ul></nav><main><p>text</main>\
         <div><button><p>one<div>two</div></button>three</div>",
    );
    let got = texts_and_paths(&b);
    assert_eq!(
        got,
        [
            ("Explore", "nav/ul/li/button/div"),
            ("Care", "nav/ul/li/button"),
            ("Find care", "nav/ul/li/div"),
            ("text", "main/p"),
            ("one", "div/button/p"),
            ("two", "div/button/div"),
            ("three", "div"),
        ]
    );
    // A whole document pasted into a post (a server's `<html><body>` wrapper around a stored
    // fragment) opens no second `<html>` or `<body>`: the fragment's elements are the post's,
    // inside the article and whatever marks it, as a browser builds them.
    let b = split(
        "<html><body class=page><article><div class=sidebar-content><!DOCTYPE html>\
         <html><body class=inner><p>one</p><div>two</div></body></html></div>\
         <p>three</p></article></body></html>",
    );
    let got = texts_and_paths(&b);
    assert_eq!(
        got,
        [
            ("one", "html/body/article/div/p"),
            ("two", "html/body/article/div/div"),
            ("three", "html/body/article/p"),
        ]
    );
    assert!(b.iter().all(|b| b.marked_main == Some(2)), "{b:?}");
    assert_eq!(b[0].ancestors, [0, 1, 2, 3, 4]);
    // A script, a style sheet or a template inside a paragraph breaks no line; a `<br>` still
    // does.
    let b = split(
        "<body><p>one <script>var x = 1;</script>two <style>p{}</style>three \
         <template><b>t</b></template>four</p><p>five<br>six</p></body>",
    );
    assert_eq!(
        texts_and_paths(&b),
        [
            ("one two three four", "body/p"),
            ("five", "body/p"),
            ("six", "body/p")
        ]
    );
    // Nor does a `<head>` inside the body: the paragraph runs on through it.
    let b = split(
        "<html><head><title>t</title></head><body><p>one<head></head> two</p><head><p>three</p>\
         </body>",
    );
    assert_eq!(
        texts_and_paths(&b),
        [("one two", "html/body/p"), ("three", "html/body/p")]
    );
}

/// Each block's text and path, in order.
fn texts_and_paths(blocks: &[Block]) -> Vec<(&str, &str)> {
    blocks
        .iter()
        .map(|b| (b.text.as_str(), b.path.as_str()))
        .collect()
}

#[test]
fn path_is_lower_case_and_top_level_is_empty() {
    let b = split("top<DIV><Section>in</SECTION></div>");
    assert_eq!(b[0].path, "");
    assert!(b[0].ancestors.is_empty());
    assert_eq!(b[1].path, "div/section");
}

#[test]
fn hash_identity() {
    let b = split("<p>Hello, World!</p><p>hello world</p><p>hello there</p><p>2019 | 12:00</p>");
    assert_eq!(b[0].hash, b[1].hash);
    assert!(b[0].hash.is_some());
    assert_ne!(b[0].hash, b[2].hash);
    assert_eq!(b[3].hash, None);
    let b = split("<p>Straße ÉTÉ</p><p>strasse été</p>");
    assert_ne!(b[0].hash, b[1].hash, "ß lower-cases to itself, not to ss");
    let b = split("<p>ÉTÉ 2020</p><p>été</p>");
    assert_eq!(b[0].hash, b[1].hash);
}

#[test]
fn truncates_long_block_but_counts_and_hashes_whole() {
    let limits = ParseLimits {
        max_block_chars: 10,
        ..ParseLimits::default()
    };
    let text = "abcdefghij klmnop qrstuv";
    let b = Tokenizer::new(limits.clone())
        .blocks(format!("<p>{text}</p><p>short</p>").as_bytes())
        .expect("blocks");
    check_invariants(&b, &limits);
    assert_eq!(b[0].text, "abcdefghij");
    assert!(b[0].truncated);
    assert_eq!(b[0].chars, 24);
    assert_eq!(b[0].hash, block_hash(text));
    assert_eq!((b[1].text.as_str(), b[1].truncated), ("short", false));
}

#[test]
fn block_limit_cuts_the_page() {
    let limits = ParseLimits {
        max_blocks: 3,
        ..ParseLimits::default()
    };
    let html = (0..10)
        .map(|i| format!("<p>block {i}</p>"))
        .collect::<String>();
    let mut t = Tokenizer::new(limits);
    let b = t.blocks(html.as_bytes()).expect("blocks");
    assert_eq!(
        b.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(),
        ["block 0", "block 1", "block 2"]
    );
    assert!(t.stats().block_limit_hit);
    let b = t.blocks(b"<p>one</p>").expect("blocks");
    assert_eq!(b.len(), 1);
    assert!(!t.stats().block_limit_hit);
    assert_eq!(t.stats().elements, 1);
}

#[test]
fn depth_limits() {
    let limits = ParseLimits {
        max_depth: 3,
        max_ancestors: 2,
        ..ParseLimits::default()
    };
    let html = "<div><section><article><main><p>deep</p></main></article></section></div>";
    let b = Tokenizer::new(limits.clone())
        .blocks(html.as_bytes())
        .expect("blocks");
    check_invariants(&b, &limits);
    assert_eq!(b[0].path, "article/main/p");
    assert_eq!(b[0].ancestors, [3, 4]);
}

#[test]
fn too_large_page_is_rejected() {
    let limits = ParseLimits {
        max_html_bytes: 100,
        ..ParseLimits::default()
    };
    let mut t = Tokenizer::new(limits);
    let err = t.blocks(&[b'a'; 101]).expect_err("too large");
    assert!(matches!(
        err,
        BlockError::TooLarge {
            bytes: 101,
            limit: 100
        }
    ));
    assert!(err.to_string().contains("101"));
    assert_eq!(t.blocks(&[b'a'; 100]).expect("fits").len(), 1);
}

#[test]
fn a_tag_cut_off_by_the_end_drops_what_follows() {
    // HTML drops a tag the input ends inside, and the text it would have held.
    let html = format!("<p>x</p><div title=\"{}", "y".repeat(10_000));
    let got: Vec<String> = split(&html).into_iter().map(|b| b.text).collect();
    assert_eq!(got, ["x"]);
}

#[test]
fn tokenizer_reuse_gives_same_result() {
    let mut t = Tokenizer::new(ParseLimits::default());
    let first = t.blocks(PAGE.as_bytes()).expect("blocks");
    let other = t.blocks(b"<svg><p>x").expect("blocks");
    assert_eq!(other.len(), 1);
    let again = t.blocks(PAGE.as_bytes()).expect("blocks");
    assert_eq!(first, again);
}

#[test]
fn plaintext_is_kept_raw() {
    assert_eq!(
        texts("<p>a</p><plaintext><b>&amp;</b>\n  x"),
        ["a", "<b>&amp;</b>\n  x"]
    );
}

#[test]
fn pre_keeps_line_breaks_and_indentation() {
    let html = "<p>Say:</p><pre class=x>\r\n<code>fn main() {\r\n    <span>println!</span>(&quot;hi&quot;);\r\n\n\t}\n</code>  \n</pre><p>a\n   b</p>";
    let b = split(html);
    check_invariants(&b, &ParseLimits::default());
    let got: Vec<(&str, Option<u32>)> = b.iter().map(|b| (b.text.as_str(), b.pre)).collect();
    assert_eq!(
        got,
        [
            ("Say:", None),
            ("fn main() {\n    println!(\"hi\");\n\n\t}", Some(1)),
            ("a b", None)
        ]
    );
    // Counts and identity are those of the collapsed text, so the tree sees the same block.
    let flat = split("<div>fn main() { println!(\"hi\"); }</div>");
    assert_eq!((b[1].chars, b[1].hash), (flat[0].chars, flat[0].hash));
    assert_eq!(b[1].chars, 29);
}

#[test]
fn pre_code_language_comes_from_the_class() {
    let html = "<pre class=\"sourceCode\"><code class=\"language-Python x\">a<br>b</code></pre>\
                <pre><code class=lang-c>c</code></pre><pre>d</pre><p class=language-x>e</p>";
    let b = split(html);
    check_invariants(&b, &ParseLimits::default());
    let got: Vec<(&str, Option<&str>)> = b
        .iter()
        .map(|b| (b.text.as_str(), b.code_language.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", Some("python")),
            ("b", Some("python")),
            ("c", Some("c")),
            ("d", None),
            ("e", None)
        ]
    );
}

#[test]
fn pre_split_by_tags_keeps_each_part_indented() {
    let html = "<pre>  first\n    second<br>\n      third\n<div>  x  y</div></pre><pre>\n\n   </pre><p>after</p>";
    let b = split(html);
    check_invariants(&b, &ParseLimits::default());
    let got: Vec<(&str, Option<u32>)> = b.iter().map(|b| (b.text.as_str(), b.pre)).collect();
    assert_eq!(
        got,
        [
            ("  first\n    second", Some(0)),
            ("      third", Some(0)),
            ("  x  y", Some(0)),
            ("after", None)
        ]
    );
}

#[test]
fn code_spans_mark_inline_code() {
    let html = "<p>Call <code>foo()</code>, <kbd> Ctrl </kbd>or<tt>x<b>y</b></tt> \
                <code>a<br>b</code></p><pre><code>no span</code></pre><p><code>é</code></p>";
    let b = split(html);
    check_invariants(&b, &ParseLimits::default());
    let spans: Vec<Vec<&str>> = b
        .iter()
        .map(|b| {
            b.code_spans
                .iter()
                .map(|&(s, e)| &b.text[s as usize..e as usize])
                .collect()
        })
        .collect();
    assert_eq!(b[0].text, "Call foo(), Ctrl orxy a");
    assert_eq!(
        spans,
        [
            vec!["foo()", "Ctrl ", "xy", "a"],
            vec!["b"],
            vec![],
            vec!["é"]
        ]
    );
}

#[test]
fn pre_truncates_like_its_collapsed_text() {
    let limits = ParseLimits {
        max_block_chars: 6,
        ..ParseLimits::default()
    };
    let mut t = Tokenizer::new(limits.clone());
    let b = t
        .blocks(b"<pre>  ab\n   cd  ef\n gh</pre>")
        .expect("blocks");
    check_invariants(&b, &limits);
    assert_eq!((b[0].text.as_str(), b[0].truncated), ("  ab\n   cd", true));
    assert_eq!((b[0].chars, b[0].hash), (11, block_hash("abcdefgh")));
    let b = t.blocks(b"<pre>ab\n   cd  </pre>").expect("blocks");
    assert_eq!(
        (b[0].text.as_str(), b[0].truncated, b[0].chars),
        ("ab\n   cd", false, 5)
    );
}

#[test]
fn markup_hints_of_enclosing_elements() {
    use super::super::Hint::{self, *};
    let page = r#"<html><body class="has-sidebar"><p>Plain</p>
<nav><p>Home</p></nav>
<div id="comments"><p>Nice post</p></div>
<div role="main" class="body">
  <p>Text</p>
  <section id="buffer-related-functions"><p>Slug of a heading</p></section>
  <aside class="footnote"><p>A note of the text</p></aside>
  <div class="share-buttons"><p>Share</p></div>
  <figure><img src="a.jpg"><figcaption>A photo's caption</figcaption></figure>
</div>
<article><aside><article><p>Teaser</p></article></aside></article>
</body></html>"#;
    let got: Vec<(String, Hint)> = split(page).into_iter().map(|b| (b.text, b.hint)).collect();
    let want = [
        ("Plain", None),
        ("Home", Boilerplate),
        ("Nice post", Boilerplate),
        ("Text", Content),
        ("Slug of a heading", Content),
        ("A note of the text", Content),
        ("Share", Boilerplate),
        ("A photo's caption", Boilerplate),
        ("Teaser", Content),
    ];
    let want: Vec<(String, Hint)> = want.iter().map(|(t, h)| (t.to_string(), *h)).collect();
    assert_eq!(got, want);
}

#[test]
fn the_innermost_element_marked_as_the_main_text() {
    // Ordinals: html 0, body 1, div 2, p 3, main 4, article 5, p 6, div 7, article 8, p 9,
    // div 10 (its class marks it as a sidebar), article 11, p 12.
    let page = r#"<html><body><div><p>Frame</p></div>
<main><article><p>Text</p></article><div><article><p>Teaser</p></article></div></main>
<div class="sidebar"><article><p>Marked inside a sidebar</p></article></div>
</body></html>"#;
    assert_ordinals(
        page,
        |b| b.marked_main,
        &[
            ("Frame", None),
            ("Text", Some(5)),
            ("Teaser", Some(8)),
            ("Marked inside a sidebar", Some(11)),
        ],
    );
}

#[test]
fn the_main_landmark_is_a_main_or_an_element_of_role_main() {
    // `<main>` and `role=main` (any case, among other roles) name the page's main landmark;
    // `<article>`, `itemprop=articleBody` and `role=article` mark one text; a `main` class
    // names neither.
    let page = r#"<html><body><main><p>In main</p><article><p>In its article</p></article></main>
<div role="Main"><p>Role main</p></div><div role="region main"><p>Among roles</p></div>
<div itemprop="articleBody"><p>Article body</p></div><div role="article"><p>Role article</p></div>
<div class="main"><p>Class main</p></div>
</body></html>"#;
    let got: Vec<(String, bool)> = split(page)
        .into_iter()
        .map(|b| (b.text, b.main_landmark))
        .collect();
    let want = [
        ("In main", true),
        ("In its article", false),
        ("Role main", true),
        ("Among roles", true),
        ("Article body", false),
        ("Role article", false),
        ("Class main", false),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(t, l)| (t.to_string(), *l)).collect();
    assert_eq!(got, want);
}

#[test]
fn the_innermost_element_marked_as_a_region_around_the_text() {
    // Ordinals: html 0, body 1, div 2 (a layout class naming the sidebar), article 3, p 4,
    // div 5 (comments), div 6 (one comment), p 7, div 8 (a sidebar), p 9, p 10.
    let page = r#"<html><body class="penci_sidebar"><div class="container penci_sidebar">
<article><p>Text</p><div id="comments"><div class="comment"><p>Nice post</p></div></div>
</article><div class="sidebar"><p>Widget</p></div></div><p>Outside</p>
</body></html>"#;
    assert_ordinals(
        page,
        |b| b.marker,
        &[
            ("Text", Some(2)),
            ("Nice post", Some(6)),
            ("Widget", Some(8)),
            ("Outside", None),
        ],
    );
}

#[test]
fn blocks_in_comments_and_in_no_other_marked_region() {
    // Comments are named by a class or an id word; a region also marked otherwise (a sidebar's
    // widget of recent comments, a comment footer, `role=complementary`) is not comments only,
    // and neither is the reply form (`respond`) nor a name that also says it holds the text.
    let page = r#"<html><body class="comments-open">
<article><p>Text</p></article>
<div id="comments"><h2 class="comments-title">Two thoughts</h2>
<ol class="commentlist"><li class="comment"><p>Nice post</p>
<footer class="comment-meta"><p>March 3</p></footer></li>
<li class="cnnBlogComment"><div class="comment-content"><p>Thanks</p></div></li></ol>
<div id="respond"><p>Leave a reply</p></div></div>
<div class="sidebar"><div id="recent-comments"><p>Ann on Text</p></div></div>
<div class="comments" role="complementary"><p>Marked twice</p></div>
<div id="disqus_thread"><p>Loading</p></div>
<div class="comment_content_wrap"><p>Plain</p></div>
</body></html>"#;
    assert_flags(
        page,
        |b| b.comments,
        &[
            ("Text", false),
            ("Two thoughts", true),
            ("Nice post", true),
            ("March 3", false),
            ("Thanks", true),
            ("Leave a reply", false),
            ("Ann on Text", false),
            ("Marked twice", false),
            ("Loading", true),
            ("Plain", false),
        ],
    );
}

#[test]
fn blocks_whose_innermost_marked_region_is_a_gallery() {
    // A gallery's class names it; a region marked inside a gallery is that region, a gallery
    // inside another region is the gallery; an id naming a gallery is an anchor.
    let page = r#"<html><body><article><p>Story</p>
<div class="el__gallery owl-carousel"><div class="slide"><p>Caption one</p></div>
<div class="share-bar"><p>Share this picture</p></div></div>
<div class="sidebar"><div class="slideshow"><p>More pictures</p></div></div>
<div id="index-gallery"><p>Index entry</p></div></article>
</body></html>"#;
    assert_flags(
        page,
        |b| b.gallery,
        &[
            ("Story", false),
            ("Caption one", true),
            ("Share this picture", false),
            ("More pictures", true),
            ("Index entry", false),
        ],
    );
}

#[test]
fn blocks_whose_innermost_marked_region_is_the_comments() {
    // A thread in an article's `<footer>` is the comments: `comments` says no other region
    // holds the block, `comment_region` only that the innermost one is the thread. A reply form
    // (`respond`) or a share bar inside the thread is its own region.
    let page = r#"<html><body><article><p>Story</p>
<footer class="entry-footer"><div class="share"><p>Share this</p></div>
<div id="comments" class="comments-area"><ol class="comment-list"><li><p>Nice post</p>
<div class="share"><p>Share this comment</p></div></li></ol>
<div id="respond"><p>Leave a reply</p></div></div></footer></article>
<div id="comments"><p>Top-level comment</p></div>
</body></html>"#;
    let want = [
        ("Story", false, false),
        ("Share this", false, false),
        ("Nice post", true, false),
        ("Share this comment", false, false),
        ("Leave a reply", false, false),
        ("Top-level comment", true, true),
    ];
    let region: Vec<(&str, bool)> = want.iter().map(|w| (w.0, w.1)).collect();
    let only: Vec<(&str, bool)> = want.iter().map(|w| (w.0, w.2)).collect();
    assert_flags(page, |b| b.comment_region, &region);
    assert_flags(page, |b| b.comments, &only);
}

/// Asserts the blocks of `page`, each with the flag `of` reads from it.
fn assert_flags(page: &str, of: impl Fn(&Block) -> bool, want: &[(&str, bool)]) {
    let got: Vec<(String, bool)> = split(page)
        .iter()
        .map(|b| (b.text.clone(), of(b)))
        .collect();
    let want: Vec<(String, bool)> = want.iter().map(|(t, f)| (t.to_string(), *f)).collect();
    assert_eq!(got, want);
}

/// Asserts the blocks of `page`, each with the element ordinal `of` reads from it.
fn assert_ordinals(page: &str, of: impl Fn(&Block) -> Option<u32>, want: &[(&str, Option<u32>)]) {
    let got: Vec<(String, Option<u32>)> = split(page)
        .iter()
        .map(|b| (b.text.clone(), of(b)))
        .collect();
    let want: Vec<(String, Option<u32>)> = want.iter().map(|(t, m)| (t.to_string(), *m)).collect();
    assert_eq!(got, want);
}

#[test]
fn metadata_is_read_in_the_same_pass() {
    let html = r#"<!doctype html><html><head><title>T</title>
        <meta charset="utf-8"><META NAME="Description" CONTENT="A page &amp; its text">
        <meta property="og:site_name" content="Example Site"/>
        <link rel=canonical href="https://example.org/story">
        <script type="application/ld+json">{"@type":"NewsArticle","author":{"name":"Ann Lee"},
          "datePublished":"2021-06-07T08:09:10Z"}</script>
        <script>var ld = {"author": "not this"};</script>
        </head><body><p>Body text.</p><noscript><meta name=author content="Hidden"></noscript>
        </body></html>"#;
    let mut t = Tokenizer::new(ParseLimits::default());
    let b = t.blocks(html.as_bytes()).expect("blocks");
    assert_eq!(
        b.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(),
        ["Body text."]
    );
    let meta = t.take_meta();
    assert_eq!(meta.description.as_deref(), Some("A page & its text"));
    assert_eq!(meta.site_name.as_deref(), Some("Example Site"));
    assert_eq!(
        meta.canonical_url.as_deref(),
        Some("https://example.org/story")
    );
    assert_eq!(meta.author.as_deref(), Some("Ann Lee"));
    assert_eq!(meta.published.as_deref(), Some("2021-06-07T08:09:10Z"));
    // The next page starts empty; an unterminated JSON-LD script is still read at the end.
    t.blocks(br#"<script type="application/ld+json">{"author":"Bo"}"#)
        .expect("blocks");
    let meta = t.take_meta();
    assert_eq!(meta.author.as_deref(), Some("Bo"));
    assert_eq!(meta.description, None);
}

#[test]
fn microdata_item_types_of_one_item_are_read() {
    // A thread's post declared as the page's item, its author a person; the replies are three
    // comments (a type of several items names parts, not the page); a noscript's copy is not
    // read, nor an `itemtype` inside text.
    let html = r#"<html><body itemscope itemtype="https://schema.org/WebPage">
        <div itemscope itemtype='https://schema.org/DiscussionForumPosting  https://schema.org/Thing'>
        <span itemprop=author itemscope itemtype=http://schema.org/Person>Ann</span><p>Question?</p>
        <div itemscope itemtype="https://schema.org/Comment"><p>One</p></div>
        <div itemscope itemtype="https://schema.org/Comment"><p>Two</p></div>
        <DIV ITEMSCOPE ITEMTYPE="https://schema.org/Comment"><p>Three</p></DIV>
        <noscript><div itemscope itemtype="https://schema.org/Product">x</div></noscript>
        <p>itemtype="https://schema.org/Recipe"</p></div>"#;
    let mut t = Tokenizer::new(ParseLimits::default());
    t.blocks(html.as_bytes()).expect("blocks");
    let meta = t.take_meta();
    assert_eq!(
        meta.item_types,
        [
            "https://schema.org/WebPage",
            "https://schema.org/DiscussionForumPosting",
            "http://schema.org/Person"
        ]
    );
    assert!(meta.types.is_empty());
    // The next page starts without them.
    t.blocks(b"<p>x</p>").expect("blocks");
    assert!(t.take_meta().item_types.is_empty());
}

#[test]
fn the_first_title_of_the_page_is_its_title() {
    let title = |html: &str| {
        let mut t = Tokenizer::new(ParseLimits::default());
        t.blocks(html.as_bytes()).expect("blocks");
        t.take_meta().title
    };
    // Entities decoded, white space collapsed, markup inside it read as text (RCDATA).
    assert_eq!(
        title("<head><title>\n  Pots &amp; pans <b>| Kitchen</title></head><p>x</p>").as_deref(),
        Some("Pots & pans <b>| Kitchen")
    );
    // The first non-empty one: an empty title, one inside SVG, one in a noscript's text, and a
    // second title after the first are not the page's.
    assert_eq!(
        title("<svg><title>Chart</title></svg><title> </title><noscript><title>N</title></noscript><title>Page</title><title>Other</title>")
            .as_deref(),
        Some("Page")
    );
    // A title cut off by the end of the page is still read; a page without one has none.
    assert_eq!(title("<title>Unfinished").as_deref(), Some("Unfinished"));
    assert_eq!(title("<p>No title here.</p>"), None);
    // Bounded: a title of a million characters keeps at most the longest value.
    let long = title(&format!("<title>{}</title>", "ab ".repeat(1 << 20))).unwrap();
    assert_eq!(long.chars().count(), crate::blocks::MAX_VALUE_CHARS);
}

#[test]
fn extents_place_each_block_among_the_markup() {
    let html =
        r#"<p>a &amp; <A HREF="/x">b</A></p><!-- c --><div><noscript><i>d</i></noscript></div>"#;
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let blocks = tokenizer.blocks(html.as_bytes()).expect("blocks");
    let at = |s: &str| html.find(s).unwrap() as u32;
    let extents: Vec<_> = blocks.iter().map(|b| (b.text.as_str(), b.extent)).collect();
    // "a & b": its runs `a &amp; ` and `b` (text bytes 8 + 1), the link's tags inside it.
    let first = extents[0].1;
    assert_eq!(extents[0].0, "a & b");
    assert_eq!((first.start, first.end), (at("a &amp;"), at("</A>")));
    assert_eq!(first.text_bytes, 9);
    assert_eq!((first.tags_before, first.tags), (1, 1));
    assert_eq!((first.anchor_tags_before, first.anchor_tags), (0, 1));
    assert_eq!(first.anchor_bytes, r#"<A HREF="/x">"#.len() as u32);
    // "d", parsed in place inside the noscript: its offsets are those of its bytes in the page,
    // and the tags before it are `<p>`, `<A>`, `</A>`, `</p>`, `<div>`, `<noscript>`, `<i>`.
    let second = extents[1].1;
    assert_eq!(extents[1].0, "d");
    assert_eq!((second.start, second.end), (at("d</i>"), at("d</i>") + 1));
    assert_eq!((second.tags_before, second.tags), (7, 0));
    assert_eq!(second.anchor_tags_before, 2);
    assert_eq!(second.anchor_bytes_before, first.anchor_bytes + 4);
    // The page's totals: the tags after "d" are `</i>`, `</noscript>`, `</div>`.
    let stats = tokenizer.stats();
    assert_eq!((stats.tags, stats.anchor_tags), (10, 2));
}

#[test]
fn recorded_signatures_map_elements_of_the_same_shape_and_place() {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let mut signatures = |html: &str| {
        tokenizer.record_links(true);
        let blocks = tokenizer.blocks(html.as_bytes()).expect("blocks");
        let links = tokenizer.take_links();
        let by_text: Vec<(String, Option<u64>)> = blocks
            .iter()
            .map(|b| (b.text.clone(), links.block_signature(b)))
            .collect();
        (by_text, links.hrefs)
    };
    let (a, hrefs) = signatures(
        r#"<body><ul class="m"><li><a href="/x?a=1&amp;b=2">X</a></li><li>Y</li></ul><p>One</p></body>"#,
    );
    assert_eq!(hrefs, ["/x?a=1&b=2"]);
    // The same menu on a page whose paragraph differs: the items map, the paragraph too (same
    // tag, place and number of children); another class or one more item does not.
    let (b, _) = signatures(r#"<body><ul class="m"><li>X</li><li>Y</li></ul><p>Two</p></body>"#);
    assert_eq!(a[1].1, b[1].1);
    assert_eq!(a[2].1, b[2].1);
    // The first item has a link (a child element) in one page and not in the other.
    assert_ne!(a[0].1, b[0].1);
    let (c, _) = signatures(r#"<body><ul class="n"><li>X</li><li>Y</li></ul><p>Two</p></body>"#);
    assert_ne!(b[1].1, c[1].1);
    assert_eq!(b[2].1, c[2].1);
    let (d, _) =
        signatures(r#"<body><ul class="m"><li>X</li><li>Y</li><li>Z</li></ul><p>Two</p></body>"#);
    assert_ne!(b[1].1, d[1].1);
    // Without recording, nothing is recorded.
    tokenizer.record_links(false);
    tokenizer
        .blocks(b"<p><a href=/y>y</a></p>")
        .expect("blocks");
    assert_eq!(tokenizer.take_links(), Default::default());
}
