//! Markdown from hand-written pages, through the real tokenizer.

use super::{base_url, render, render_with, write_text, Options};
use crate::blocks::{Block, Capture, ParseLimits, Tokenizer};

fn blocks(html: &str) -> Vec<Block> {
    Tokenizer::with_capture(ParseLimits::default(), Capture::ALL)
        .blocks(html.as_bytes())
        .expect("blocks")
}

fn md(html: &str) -> String {
    render(&blocks(html))
}

/// Markdown with links and images, resolved against `page`.
fn md_at(page: &str, html: &str) -> String {
    let options = Options {
        links: true,
        images: true,
        base: base_url(page, None),
    };
    render_with(&blocks(html), &options)
}

#[test]
fn headings_paragraphs_and_inline_code() {
    assert_eq!(
        md("<h1>Title</h1><p>Call <code>f(x)</code> with <code>a`b</code> and snake_case, *stars* \
            and [brackets] &lt;b&gt;.</p><h3>Sub <code>x</code></h3>"),
        "# Title\n\nCall `f(x)` with ``a`b`` and snake_case, \\*stars\\* and \\[brackets\\] \
         \\<b>.\n\n### Sub `x`"
    );
}

#[test]
fn line_starts_that_would_be_markup_are_escaped() {
    assert_eq!(
        md("<p># not a heading</p><p>1. not a list</p><p>- nor this</p><p>> nor a quote</p>\
            <p>2019 was</p><p>_x_</p>"),
        "\\# not a heading\n\n1\\. not a list\n\n\\- nor this\n\n\\> nor a quote\n\n2019 was\n\n\\_x\\_"
    );
}

#[test]
fn fenced_code_keeps_white_space() {
    let html = "<p>Run:</p><pre><code class=\"language-rust\">fn main() {\n    let s = \"```\";\n\n    println!(\"{s}\");\n}\n</code></pre><p>Done.</p>";
    assert_eq!(
        md(html),
        "Run:\n\n````rust\nfn main() {\n    let s = \"```\";\n\n    println!(\"{s}\");\n}\n````\n\nDone."
    );
    // The parts of one <pre> split by <br> are one code block.
    assert_eq!(md("<pre>a<br>  b</pre>"), "```\na\n  b\n```");
}

#[test]
fn lists_nest_and_number() {
    let html = "<ul><li>One</li><li>Two<ol><li>first</li><li>second <code>2</code></li></ol></li>\
                <li><p>Three</p><p>more of three</p></li></ul><p>After.</p>";
    assert_eq!(
        md(html),
        "- One\n- Two\n  1. first\n  2. second `2`\n- Three\n\n  more of three\n\nAfter."
    );
}

#[test]
fn a_nested_list_whose_item_text_was_dropped_stands_alone() {
    let b = blocks("<ul><li><a href=x>Nav</a><ul><li>kept</li><li>also</li></ul></li></ul>");
    assert_eq!(b.len(), 3);
    assert_eq!(render(&b[1..]), "- kept\n- also");
}

#[test]
fn quotes_prefix_every_line() {
    assert_eq!(
        md("<blockquote><p>one</p><p>two</p><blockquote>deep</blockquote><pre>x\n y</pre></blockquote>"),
        "> one\n>\n> two\n>\n> > deep\n>\n> ```\n> x\n>  y\n> ```"
    );
    assert_eq!(
        md("<ul><li>item<pre>code\n\n  more</pre></li></ul>"),
        "- item\n\n  ```\n  code\n\n    more\n  ```"
    );
}

#[test]
fn data_tables_become_pipe_tables() {
    let html = "<table><thead><tr><th>Name</th><th>Type</th></tr></thead><tbody>\
                <tr><td><p><code>a|b</code></p></td><td>int | long</td></tr>\
                <tr><td>c</td></tr></tbody></table><p>After</p>";
    assert_eq!(
        md(html),
        "| Name | Type |\n| --- | --- |\n| `a|b` | int \\| long |\n| c |  |\n\nAfter"
    );
}

#[test]
fn layout_tables_render_their_blocks() {
    // One column: a table used for layout.
    assert_eq!(
        md("<table><tr><td><h2>Story</h2><p>Text one.</p><p>Text two.</p></td></tr></table>"),
        "## Story\n\nText one.\n\nText two."
    );
    // Structure inside a cell.
    assert_eq!(
        md("<table><tr><td>a</td><td><ul><li>x</li></ul></td></tr></table>"),
        "a\n\n- x"
    );
    // A data table nested in a layout table is still a table.
    assert_eq!(
        md("<table><tr><td><p>Intro</p><table><tr><td>k</td><td>v</td></tr></table></td></tr></table>"),
        "Intro\n\n| k | v |\n| --- | --- |"
    );
}

#[test]
fn empty_input_is_empty() {
    assert_eq!(render(&[]), "");
}

#[test]
fn hostile_nesting_and_width_stay_bounded() {
    // 60 nested quotes and lists around a listing of many short lines.
    let open: String = (0..30).map(|_| "<blockquote><ul><li>").collect();
    let lines = "x\n".repeat(2000);
    let b = blocks(&format!("{open}<pre>{lines}</pre>"));
    let out = render(&b);
    let text: usize = b.iter().map(|b| b.text.len()).sum();
    assert!(out.len() < text * 10, "{} from {text}", out.len());
    assert!(out.lines().all(|l| l.len() <= 40), "prefix too long");
    // One row of 1,000 cells and 1,000 rows of one: not a data table, so no padding.
    let wide: String = (0..1000).map(|i| format!("<td>c{i}</td>")).collect();
    let tall: String = (0..1000)
        .map(|i| format!("<tr><td>r{i}</td></tr>"))
        .collect();
    let b = blocks(&format!("<table><tr>{wide}</tr>{tall}</table>"));
    let out = render(&b);
    let text: usize = b.iter().map(|b| b.text.len()).sum();
    assert!(out.len() < text * 3, "{} from {text}", out.len());
}

#[test]
fn links_are_absolute_and_only_where_they_lead_somewhere() {
    assert_eq!(
        md_at(
            "https://en.wikipedia.org/wiki/Hermitian_matrix",
            "<p>A <a href=\"/wiki/Square_matrix\" title=\"Square matrix\">square matrix</a>, \
             <a href=\"javascript:void(0)\">this</a>, <a href=\"#cite_note-1\">[1]</a> and \
             <a name=x>an anchor</a>.</p>"
        ),
        "A [square matrix](https://en.wikipedia.org/wiki/Square_matrix), this, \
         [\\[1\\]](https://en.wikipedia.org/wiki/Hermitian_matrix#cite_note-1) and an anchor."
    );
    // White space at a link's edges stays outside it; two links side by side stay two.
    assert_eq!(
        md_at(
            "https://x.org/a/",
            "<p>Read<a href=b> more </a>now: <a href=c>one</a><a href=d>two</a></p>"
        ),
        "Read [more](https://x.org/a/b) now: [one](https://x.org/a/c)[two](https://x.org/a/d)"
    );
    // Without links asked, the text alone.
    let options = Options {
        links: false,
        ..Options::default()
    };
    assert_eq!(
        render_with(&blocks("<p>A <a href=/x>link</a>.</p>"), &options),
        "A link."
    );
}

#[test]
fn a_link_inside_code_splits_the_code_span() {
    // rustdoc's signatures: a linked type inside a code element.
    assert_eq!(
        md_at(
            "https://doc.rust-lang.org/std/vec/index.html",
            "<p>Returns <code><a href=\"struct.Vec.html\">Vec</a>&lt;T&gt;</code> or \
             <a href=\"fn.f.html\"><code>f</code></a>.</p>"
        ),
        "Returns [`Vec`](https://doc.rust-lang.org/std/vec/struct.Vec.html)`<T>` or \
         [`f`](https://doc.rust-lang.org/std/vec/fn.f.html)."
    );
}

#[test]
fn images_inline_and_on_lines_of_their_own() {
    let html = "<h1>Title</h1><p>Logo <img src=\"/l.png\" alt=\"the [logo]\"> inline.</p>\
                <figure><img src=\"data:image/gif;base64,R0lG\" data-src=\"chart.png\" alt=\"Chart\">\
                <figcaption>Figure 1</figcaption></figure><img src=\"/pixel.gif\" width=1 height=1>\
                <img src=\"/deco.png\" aria-hidden=\"true\"><pre>code</pre><img src=\"/after-code.png\">";
    assert_eq!(
        md_at("https://x.org/blog/post", html),
        "# Title\n\nLogo ![the \\[logo\\]](https://x.org/l.png) inline.\n\n\
         ![Chart](https://x.org/blog/chart.png)\n\nFigure 1\n\n```\ncode\n```\n\n\
         ![](https://x.org/after-code.png)"
    );
    // An image before the page's first text stands before it.
    assert_eq!(
        md_at(
            "https://x.org/",
            "<div><img src=a.png alt=A></div><p>Text</p>"
        ),
        "![A](https://x.org/a.png)\n\nText"
    );
    // An image that opens a paragraph keeps the space after it.
    assert_eq!(
        md_at("https://x.org/", "<p><img src=a.png alt=A> picture</p>"),
        "![A](https://x.org/a.png) picture"
    );
    // Not asked: nothing.
    assert_eq!(md("<p>a <img src=x.png alt=X> b</p>"), "a b");
}

#[test]
fn formulas_are_dollar_math() {
    let html = "<p>Since <math><semantics><msup><mi>x</mi><mn>2</mn></msup>\
                <annotation encoding=\"application/x-tex\">x^{2}</annotation></semantics></math> \
                costs $5, <math display=\"block\"><mfrac><mi>a</mi><mi>b</mi></mfrac></math></p>\
                <table><tr><th>f</th><th>norm</th></tr><tr><td>g</td><td><math><semantics><mrow>\
                <mo>|</mo><mi>x</mi><mo>|</mo></mrow><annotation encoding=\"application/x-tex\">|x|\
                </annotation></semantics></math></td></tr></table>";
    assert_eq!(
        md(html),
        "Since $x^{2}$ costs \\$5, $$a/b$$\n\n| f | norm |\n| --- | --- |\n| g | $\\|x\\|$ |"
    );
    // A link that is only a formula (MediaWiki links formulas to Wikidata) shows the formula.
    assert_eq!(
        md_at(
            "https://en.wikipedia.org/wiki/E",
            "<p><a href=\"/w/index.php?title=Special:MathWikibase\"><math><mi>E</mi></math></a></p>"
        ),
        "$E$"
    );
}

#[test]
fn plain_text_with_marks() {
    let b = blocks(
        "<p>See <a href=\"/x\">the <code>x</code> page</a> <img src=i.png alt=\"I\"> and \
         <math><msup><mi>y</mi><mn>2</mn></msup></math>.</p>",
    );
    let options = Options {
        links: true,
        images: true,
        base: base_url("https://x.org/a", None),
    };
    let mut text = String::new();
    write_text(&mut text, &b[0], &options);
    assert_eq!(
        text,
        "See [the x page](https://x.org/x) ![I](https://x.org/i.png) and y^2."
    );
}
