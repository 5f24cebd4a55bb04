//! Property tests: random bytes and random tag soup never panic, and every returned block
//! satisfies the invariants, under default and under tiny limits.

use proptest::prelude::*;

use super::super::{ParseLimits, Tokenizer};
use super::check_invariants;

fn tiny_limits() -> ParseLimits {
    ParseLimits {
        max_html_bytes: 1 << 20,
        max_depth: 3,
        max_ancestors: 2,
        max_open_elements: 6,
        max_blocks: 5,
        max_block_chars: 7,
    }
}

fn no_path_limits() -> ParseLimits {
    ParseLimits {
        max_depth: 0,
        max_open_elements: 1,
        max_block_chars: 0,
        ..ParseLimits::default()
    }
}

/// Splits with `limits`: never an error (the pages fit `max_html_bytes`).
fn run(html: &[u8], limits: &ParseLimits) {
    let mut tokenizer = Tokenizer::new(limits.clone());
    match tokenizer.blocks(html) {
        Ok(blocks) => {
            check_invariants(&blocks, limits);
            // Reuse gives the same answer.
            let again = tokenizer.blocks(html).expect("second run");
            assert_eq!(blocks, again);
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// Tag names of the random tag soup: HTML's special cases, foreign content, custom elements.
pub(super) const TAGS: &[&str] = &[
    "div",
    "p",
    "span",
    "a",
    "b",
    "i",
    "br",
    "img",
    "script",
    "style",
    "title",
    "svg",
    "math",
    "textarea",
    "select",
    "option",
    "table",
    "tr",
    "td",
    "li",
    "ul",
    "template",
    "noscript",
    "iframe",
    "plaintext",
    "xmp",
    "head",
    "body",
    "html",
    "my-el",
    "h1",
    "pre",
    "DIV",
    "ScRiPt",
];

fn fragment(tags: Vec<&'static str>) -> impl Strategy<Value = String> {
    let tag = proptest::sample::select(tags).prop_map(str::to_owned);
    let text = proptest::string::string_regex("[a-zA-Z0-9 \\t\\n.,|&;#<>\"'=/\u{a0}éß日-]{0,12}")
        .expect("regex");
    prop_oneof![
        4 => text,
        3 => (tag.clone(), "[ a-z=\"'<>/]{0,10}").prop_map(|(t, attrs)| format!("<{t}{attrs}>")),
        3 => tag.clone().prop_map(|t| format!("</{t}>")),
        1 => tag.prop_map(|t| format!("<{t}/>")),
        1 => proptest::sample::select(&[
            "&amp;", "&nbsp;", "&#233;", "&eacute;", "&#0;", "&#x110000;", "&copy", "&", "&#",
            "<!--", "-->", "<!-- c -->", "<!DOCTYPE html>", "<![CDATA[", "]]>", "<?x", "\u{0}",
            "\r\n", "</", "<", ">",
        ][..])
        .prop_map(str::to_owned),
    ]
}

fn tag_soup() -> impl Strategy<Value = String> {
    tag_soup_of(TAGS.to_vec())
}

/// Random tag soup of the tags `tags`: text, start and end tags with odd attributes,
/// character references, comments, CDATA, stray `<` and `</`.
pub(super) fn tag_soup_of(tags: Vec<&'static str>) -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(tags), 0..60).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        run(&bytes, &ParseLimits::default());
        run(&bytes, &tiny_limits());
    }

    #[test]
    fn random_tag_soup_keeps_invariants(html in tag_soup()) {
        run(html.as_bytes(), &ParseLimits::default());
        run(html.as_bytes(), &tiny_limits());
        run(html.as_bytes(), &no_path_limits());
    }

    #[test]
    fn html_like_bytes_keep_invariants(
        bytes in proptest::collection::vec(
            proptest::sample::select(&b"<>/!-=\"' abpdivscrt&;#\0\xff\xc3\xa9\n"[..]),
            0..3000,
        )
    ) {
        run(&bytes, &ParseLimits::default());
        run(&bytes, &tiny_limits());
    }

    #[test]
    fn text_only_input_is_at_most_one_block(text in "[^<&]{0,400}") {
        let blocks = Tokenizer::new(ParseLimits::default())
            .blocks(text.as_bytes())
            .expect("blocks");
        check_invariants(&blocks, &ParseLimits::default());
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let visible: String = words.join(" ").chars().filter(|c| !c.is_control() && *c != '\u{200b}' && *c != '\u{feff}').collect();
        if visible.trim().is_empty() {
            prop_assert!(blocks.is_empty());
        } else {
            prop_assert_eq!(blocks.len(), 1);
        }
    }
}

/// Tag soup without `noscript` (whose nesting the raw text of an enclosing noscript cannot hold)
/// and `plaintext` (which would swallow the wrapper's end tag as text).
fn noscript_free_soup() -> impl Strategy<Value = String> {
    tag_soup().prop_filter("no noscript or plaintext", |s| {
        let lower = s.to_ascii_lowercase();
        !lower.contains("noscript") && !lower.contains("plaintext")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A noscript's text gives the blocks an ordinary element (an unknown one, so the soup's
    /// end tags cannot close it, named with as many letters so that the blocks' extents are
    /// the same) with the same content gives. The end of a noscript's text ends whatever its
    /// text left open, which an element's end tag cannot: so the soup is closed first, a
    /// comment by `-->`, a CDATA section by `]]>`, a quoted attribute and its tag by `"'>`, and
    /// a cut-off `</` by the `<br>` (else the wrapper's end tag would be read as a comment, an
    /// attribute, or a bogus comment).
    #[test]
    fn noscript_text_reads_like_an_element(html in noscript_free_soup()) {
        let blocks = |page: String| -> Vec<super::super::Block> {
            Tokenizer::new(ParseLimits::default())
                .blocks(page.as_bytes())
                .expect("blocks")
        };
        let mut got = blocks(format!("<p>x</p><noscript>{html}-->]]>\"'><br></noscript>"));
        for b in &mut got {
            b.path = b.path.replace("noscript", "x-ns-div");
        }
        prop_assert_eq!(
            got,
            blocks(format!("<p>x</p><x-ns-div>{html}-->]]>\"'><br></x-ns-div>"))
        );
        let page = format!("<noscript>{html}");
        run(page.as_bytes(), &ParseLimits::default());
        run(page.as_bytes(), &tiny_limits());
    }
}

/// A case the property found: a formula that the noscript's text cuts short (a bogus comment
/// swallows the `<br>`) has the closing tag among the tags before its block, as the element's
/// end tag is.
#[test]
fn a_formula_cut_short_by_a_noscript_counts_its_closing_tag() {
    let blocks = |page: &str| {
        let mut got = Tokenizer::new(ParseLimits::default())
            .blocks(page.as_bytes())
            .expect("blocks");
        for b in &mut got {
            b.path = b.path.replace("noscript", "x-ns-div");
        }
        got
    };
    let soup = "<math/\">A<?x";
    let noscript = blocks(&format!("<p>x</p><noscript>{soup}<br></noscript>"));
    assert_eq!(noscript.len(), 2);
    assert_eq!(
        noscript,
        blocks(&format!("<p>x</p><x-ns-div>{soup}<br></x-ns-div>"))
    );
}
