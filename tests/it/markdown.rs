//! Markdown that keeps what readers keep, through the real engine: formulas from a Wikipedia page
//! (MathML with TeX annotations), a page MathJax 3 typeset from MathML, a KaTeX page and a
//! MathJax 2 page (`<script type="math/tex">`); links resolved against `<base href>` and the
//! page's URL; code languages; and, over shared corpus sets, links that change no text, no
//! block identity and no verdict.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use lol_html::{element, HtmlRewriter, Settings};
use urltree::config::{Config, Include};
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::{CleanRecord, Source};

use crate::common;
use crate::common::stream::stream_set;

/// One page through a fresh engine (a domain's first page: the classifier's cold start), with
/// Markdown, links and images.
fn extract(url: &str, file: &str) -> CleanRecord {
    let html = common::read(format!("tests/data/pages/{file}"));
    let state = tempfile::tempdir().expect("tempdir");
    let mut config = Config::default();
    config.state.path = state.path().to_owned();
    config.output.markdown = true;
    config.output.include_images = Include::Markdown;
    let mut engine = Engine::open(&config).expect("engine");
    let record = serde_json::to_vec(&serde_json::json!({"url": url, "html": html})).expect("json");
    let mut outcomes = engine
        .process_batch(&[Input::new(&record, Source::line("test", 0))], None)
        .expect("batch");
    match outcomes.pop() {
        Some(Outcome::Clean(record)) => *record,
        other => panic!("{file}: {other:?}"),
    }
}

#[test]
fn wikipedia_formulas_keep_their_tex_and_links_their_targets() {
    let r = extract(
        "https://en.wikipedia.org/wiki/Hermitian_matrix",
        "wikipedia-hermitian-matrix.html",
    );
    let md = r.markdown.as_deref().expect("markdown");
    // The annotation's TeX, without MediaWiki's `{\displaystyle …}`.
    assert!(
        md.contains("$A{\\text{ Hermitian}}\\quad \\iff \\quad a_{ij}={\\overline {a_{ji}}}$"),
        "{md}"
    );
    assert!(!md.contains("displaystyle"), "{md}");
    // Links are absolute, against the page's URL.
    assert!(
        md.contains("[square matrix](https://en.wikipedia.org/wiki/Square_matrix)"),
        "{md}"
    );
    // The formula's picture beside its MathML is not an image of the text.
    assert!(!md.contains("wikimedia.org/api/rest_v1/media/math"), "{md}");
    // The plain text holds the formula's characters, in its sentence.
    assert!(
        r.text.contains("A Hermitian ⟺ a_(ij)=(a_(ji))^¯"),
        "{}",
        r.text
    );
    assert!(
        !r.text.contains('$') && !r.text.contains("]("),
        "{}",
        r.text
    );
}

#[test]
fn mathjax_3_typeset_mathml_gives_a_linear_form() {
    let r = extract(
        "https://mathjax.github.io/MathJax-demos-web/mml-chtml.html",
        "mathjax-v3-mathml.html",
    );
    let md = r.markdown.as_deref().expect("markdown");
    // No TeX on the page: the linear form, in the sentence MathJax's elements stand in.
    assert!(
        md.contains("$a≠0$ , there are two solutions to $ax^2+bx+c=0$ and they are"),
        "{md}"
    );
    assert!(
        md.contains("and they are $$x=(−b±√(b^2−4ac))/(2a).$$"),
        "{md}"
    );
    // An accent over one character is its combining mark; table cells apart, rows by `; `.
    assert!(
        md.contains("$$x\u{307} =σ(y−x); y\u{307} =ρx−y−xz; z\u{307} =−βz+xy$$"),
        "{md}"
    );
    assert!(
        r.text
            .contains("a≠0 , there are two solutions to ax^2+bx+c=0"),
        "{}",
        r.text
    );
}

#[test]
fn katex_gives_its_tex_once_and_links_follow_the_base() {
    let r = extract(
        "https://notes.example.org/ml/2025/03/attention/",
        "katex-attention.html",
    );
    let md = r.markdown.as_deref().expect("markdown");
    assert!(
        md.contains(
            "$$\\operatorname{Attention}(Q, K, V) = \\operatorname{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right) V$$"
        ),
        "{md}"
    );
    assert!(
        md.contains("a query $q_i$, a key $k_i$ and a value $v_i$"),
        "{md}"
    );
    // `<base href="https://notes.example.org/ml/">`, not the page's directory.
    assert!(
        md.contains(
            "[why softmax saturates](https://notes.example.org/ml/posts/softmax-saturation.html)"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "![Attention weights of one head over a sentence](https://notes.example.org/ml/img/attention-weights.png)"
        ),
        "{md}"
    );
    // KaTeX's glyphs (`katex-html`: `qi`) are not read a second time.
    assert!(
        r.text.contains("a query q_i, a key k_i and a value v_i"),
        "{}",
        r.text
    );
    assert!(
        !r.text.contains("qi") && !r.text.contains("q_iq"),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("subtracting max_l z_l from every entry"),
        "{}",
        r.text
    );
}

#[test]
fn mathjax_2_scripts_are_the_formulas_and_previews_are_dropped() {
    let r = extract(
        "https://stats.example.org/descriptive/variance/",
        "mathjax2-arithmatex.html",
    );
    let md = r.markdown.as_deref().expect("markdown");
    assert!(
        md.contains("Given observations $x_1, \\dots, x_n$ with mean $\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$, the sample variance is"),
        "{md}"
    );
    assert!(
        md.contains("$$s^2 = \\frac{1}{n-1}\\sum_{i=1}^{n}(x_i - \\bar{x})^2$$"),
        "{md}"
    );
    assert!(md.contains("```python\ndef variance(xs):"), "{md}");
    assert!(
        md.contains("[Bessel's correction](https://stats.example.org/descriptive/bessel/)"),
        "{md}"
    );
    // The preview MathJax replaces is not a second copy of the source.
    assert_eq!(r.text.matches("x_1, \\dots, x_n").count(), 1, "{}", r.text);
}

/// Per record: the text, and every block's text, verdict, count, reason and path.
type Verdicts = Vec<(String, Vec<(String, String, u64, String, String)>)>;

fn verdicts(set: &str, configure: impl FnOnce(&mut Config)) -> (Verdicts, Vec<String>) {
    let mut out = Vec::new();
    let mut markdown = Vec::new();
    let configure = |config: &mut Config| {
        config.output.blocks = true;
        configure(config);
    };
    stream_set(set, configure, |page, outcome| {
        let Outcome::Clean(r) = outcome else {
            panic!("line {}: {outcome:?}", page.line);
        };
        let blocks = r
            .blocks
            .unwrap_or_default()
            .into_iter()
            .map(|b| (b.text, format!("{:?}", b.label), b.count, b.reason, b.path))
            .collect();
        out.push((r.text, blocks));
        markdown.push(r.markdown.unwrap_or_default());
    });
    (out, markdown)
}

/// `markdown` with every link's target taken out, as [`unescaped`]: its text as the Markdown
/// without links has it, but for the brackets, escapes and code span fences that links change
/// (a link at a line's start needs no escape for what follows its `[`; a link in code splits the
/// code span).
fn unlinked(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at]);
        // The destination's end: its `>` in angle brackets, else the `)` that balances.
        let dest = &rest[at + 2..];
        let end = if let Some(inner) = dest.strip_prefix('<') {
            inner.find(">)").map(|e| 1 + e + 2)
        } else {
            let mut depth = 0;
            dest.char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' if depth == 0 => return true,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map(|(e, _)| e + 1)
        };
        match end {
            Some(end) => rest = &dest[end..],
            None => {
                out.push_str("](");
                rest = dest;
            }
        }
    }
    out.push_str(rest);
    unescaped(&out)
}

/// `markdown` without its backslash escapes, brackets and code spans' backticks.
fn unescaped(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| n.is_ascii_punctuation()) {
            continue;
        }
        if !matches!(c, '`' | '[' | ']') {
            out.push(c);
        }
    }
    out
}

#[test]
fn links_change_no_text_identity_or_verdict() {
    for set in ["scrapinghub-aeb", "debdocs-rust-std"] {
        let (plain, _) = verdicts(set, |_| {});
        let (linked, with_links) = verdicts(set, |c| c.output.markdown = true);
        assert_eq!(plain.len(), linked.len());
        for (i, (a, b)) in plain.iter().zip(&linked).enumerate() {
            assert_eq!(a, b, "{set} record {i}: text or verdicts changed");
        }
        let (_, without_links) = verdicts(set, |c| {
            c.output.markdown = true;
            c.output.include_links = Include::None;
        });
        let mut links = 0;
        for (i, (with, without)) in with_links.iter().zip(&without_links).enumerate() {
            links += with.matches("](http").count();
            let (a, b) = (unlinked(with), unescaped(without));
            if a != b {
                let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                let from = at.saturating_sub(300);
                let around = |s: &str| {
                    let mut f = from.min(s.len());
                    while !s.is_char_boundary(f) {
                        f -= 1;
                    }
                    let mut t = (at + 300).min(s.len());
                    while !s.is_char_boundary(t) {
                        t += 1;
                    }
                    s[f..t].to_owned()
                };
                panic!(
                    "{set} record {i}: links changed the text:\n{:?}\nwithout links:\n{:?}",
                    around(&a),
                    around(&b)
                );
            }
        }
        assert!(links > 500, "{set}: only {links} links");
    }
}

/// The targets of a page's `<a href>`s, resolved against its `<base href>` (the first) or its URL,
/// read with lol_html, independently of urltree's tokenizer.
fn resolved_targets(url: &str, html: &str) -> (Option<String>, HashSet<String>) {
    let base = Rc::new(RefCell::new(None::<String>));
    let hrefs = Rc::new(RefCell::new(Vec::new()));
    let (b, h) = (base.clone(), hrefs.clone());
    let settings = Settings::new()
        .append_element_content_handler(element!("base[href]", move |el| {
            let mut base = b.borrow_mut();
            if base.is_none() {
                *base = el.get_attribute("href");
            }
            Ok(())
        }))
        .append_element_content_handler(element!("a[href]", move |el| {
            h.borrow_mut().extend(el.get_attribute("href"));
            Ok(())
        }));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html.as_bytes()).expect("parse");
    rewriter.end().expect("end");
    let page = url::Url::parse(url).expect("page url");
    let base_href = base.borrow().clone();
    let base = base_href
        .as_deref()
        .and_then(|h| page.join(h.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"))
        .unwrap_or(page);
    let targets = hrefs
        .borrow()
        .iter()
        .filter_map(|h| base.join(h.trim()).ok())
        .map(String::from)
        .collect();
    (base_href, targets)
}

#[test]
fn links_resolve_against_the_base_href_of_real_pages() {
    let (mut pages, mut checked, mut relative_to_base) = (0, 0, 0);
    for set in ["scrapinghub-aeb", "cleaneval"] {
        stream_set(
            set,
            |c| c.output.markdown = true,
            |page, outcome| {
                // Some sets hold a page twice: the second is a duplicate.
                let Outcome::Clean(r) = outcome else {
                    return;
                };
                let record: serde_json::Value = serde_json::from_slice(&page.record).expect("json");
                let html = record["html"].as_str().unwrap_or_default();
                if !html.contains("<base ") && !html.contains("<BASE ") {
                    return;
                }
                let url = r.response_url.as_deref().unwrap_or(&r.url);
                let (base, targets) = resolved_targets(url, html);
                let Some(base) = base else { return };
                pages += 1;
                let md = r.markdown.as_deref().unwrap_or_default();
                for target in md.split("](").skip(1).filter_map(|t| t.split(')').next()) {
                    let target = target.trim_start_matches('<').trim_end_matches('>');
                    checked += 1;
                    assert!(
                        targets.contains(target),
                        "{set} line {}: {target} is none of the page's links resolved against \
                         its base {base}",
                        page.line
                    );
                    relative_to_base += usize::from(!target.starts_with(url));
                }
            },
        );
    }
    println!(
        "{pages} pages with <base href>: {checked} links, {relative_to_base} outside the page"
    );
    assert!(
        pages >= 5 && checked >= 50,
        "{pages} pages, {checked} links"
    );
}

#[test]
fn code_blocks_carry_the_language_of_their_wrapper() {
    // Sphinx writes `<div class="highlight-python3 notranslate"><div class="highlight"><pre>`.
    let (mut fences, mut named) = (0, 0);
    stream_set(
        "debdocs-python",
        |c| c.output.markdown = true,
        |page, outcome| {
            let Outcome::Clean(r) = outcome else {
                panic!("line {}: {outcome:?}", page.line);
            };
            let md = r.markdown.unwrap_or_default();
            for line in md.lines().filter(|l| l.trim_start().starts_with("```")) {
                let info = line.trim_start().trim_start_matches('`');
                fences += 1;
                named += usize::from(!info.is_empty());
            }
        },
    );
    // Opening and closing fences: half of them can name a language.
    println!("{fences} fences, {named} with a language");
    assert!(
        named * 2 > fences / 2,
        "{named} of {} code blocks named",
        fences / 2
    );
}
