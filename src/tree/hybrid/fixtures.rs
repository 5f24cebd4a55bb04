//! Pages for the classifier's tests: blocks with their ancestors and counts.

use super::{classify, Params, Rules};
use crate::blocks::Hint;
use crate::tree::{BlockFacts, Label, NodeFacts, Reason};

/// A block of `chars` characters (`links` of them in links) under `ancestors`, counted `count`
/// times at the node, its path `path_count` times.
pub fn block(
    ancestors: &[u32],
    chars: u32,
    links: u32,
    count: u64,
    path_count: u64,
) -> BlockFacts<'_> {
    BlockFacts {
        chars,
        link_chars: links,
        ancestors,
        path: "",
        count: Some(count),
        path_count,
        hint: Hint::None,
        marker: None,
        marked_main: None,
        main_landmark: false,
        comments: false,
        gallery: false,
        comment_region: false,
        hidden: None,
        responsive: None,
        reviews: None,
        nested_article: false,
        h1: false,
        heading: false,
        titled: false,
        figure: false,
        hash: None,
    }
}

/// The reasons of `blocks` at a node of `support` pages and `c_max` 1, the default rules.
pub fn run(blocks: &[BlockFacts<'_>], support: u64) -> Vec<Reason> {
    run_with(blocks, support, Rules::default())
}

/// The reasons of `blocks` at a node of `support` pages and `c_max` 1 under `rules`.
pub fn run_with(blocks: &[BlockFacts<'_>], support: u64, rules: Rules) -> Vec<Reason> {
    run_params(
        blocks,
        support,
        &Params {
            rules,
            ..Params::default()
        },
    )
}

/// The reasons of `blocks` at a node of `support` pages and `c_max` 1 with `params`.
pub fn run_params(blocks: &[BlockFacts<'_>], support: u64, params: &Params) -> Vec<Reason> {
    let mut out = Vec::new();
    let node = NodeFacts {
        support,
        c_max: 1,
        path_support: support,
    };
    classify(blocks, node, params, super::Claims::default(), &mut out);
    out
}

// A page: html(0) body(1) nav(2) ul(3) li(4..6); article div(7) p(8..10).
/// Three navigation items.
pub const NAV: [[u32; 5]; 3] = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5], [0, 1, 2, 3, 6]];
/// Three paragraphs of the article.
pub const ARTICLE: [[u32; 4]; 3] = [[0, 1, 7, 8], [0, 1, 7, 9], [0, 1, 7, 10]];

/// The blocks of a small real page.
pub fn parse(html: &str) -> Vec<crate::blocks::Block> {
    crate::blocks::Tokenizer::new(crate::blocks::ParseLimits::default())
        .blocks(html.as_bytes())
        .expect("blocks")
}

/// The facts of a page's blocks on a domain's first page: each block and path seen once.
pub fn first_page(blocks: &[crate::blocks::Block]) -> Vec<BlockFacts<'_>> {
    blocks
        .iter()
        .map(|b| BlockFacts::of(b, b.hash.map(|_| 1), 1))
        .collect()
}

/// The kept texts and all reasons of a small real page judged on a domain's first page under
/// `rules`.
pub fn judge(html: &str, rules: Rules) -> (Vec<String>, Vec<Reason>) {
    judge_params(
        html,
        &Params {
            rules,
            ..Params::default()
        },
    )
}

/// The kept texts and all reasons of a small real page judged on a domain's first page with
/// `params`.
pub fn judge_params(html: &str, params: &Params) -> (Vec<String>, Vec<Reason>) {
    let blocks = parse(html);
    let reasons = run_params(&first_page(&blocks), 1, params);
    let kept = blocks
        .iter()
        .zip(&reasons)
        .filter(|(_, r)| r.label() == Label::Content)
        .map(|(b, _)| b.text.clone())
        .collect();
    (kept, reasons)
}

/// The kept texts of a real page judged on a domain's first page under `rules` as the engine
/// judges it: through [`Classifier::classify_page`](crate::tree::Classifier::classify_page), with
/// the types the page declares (a declared product).
pub fn judge_page(html: &str, rules: Rules) -> Vec<String> {
    judge_page_with(html, super::Hybrid::with_rules(rules))
}

/// [`judge_page`] by `hybrid` with its rules and preferences.
pub fn judge_page_with(html: &str, hybrid: super::Hybrid) -> Vec<String> {
    use crate::tree::Classifier;
    let mut tokenizer = crate::blocks::Tokenizer::new(crate::blocks::ParseLimits::default());
    let blocks = tokenizer.blocks(html.as_bytes()).expect("blocks");
    let meta = tokenizer.take_meta();
    let page = crate::tree::Page {
        declared: crate::tree::kind::declared_main_kind(&meta.types),
        thread: crate::tree::kind::declares_thread(&meta.types, &meta.item_types),
        ..crate::tree::Page::new(&blocks, html.len(), tokenizer.stats())
    };
    let node = NodeFacts {
        support: 1,
        c_max: 1,
        path_support: 1,
    };
    let mut reasons = Vec::new();
    hybrid.classify_page(&page, &first_page(&blocks), node, &mut reasons);
    blocks
        .iter()
        .zip(&reasons)
        .filter(|(_, r)| r.label() == Label::Content)
        .map(|(b, _)| b.text.clone())
        .collect()
}

/// The HTML, gold text and snippets of the pages of corpus set `set` at `urls`, in order, from
/// one read of the set.
pub fn corpus_pages(set: &str, urls: &[&str]) -> Vec<(String, String, crate::eval::Snippets)> {
    let path = crate::corpus::require_shared_dir().join(set);
    let mut found = vec![None; urls.len()];
    for page in crate::corpus::load(&path).expect("corpus set") {
        let record: serde_json::Value = serde_json::from_slice(&page.record).expect("record");
        if let Some(i) = urls.iter().position(|u| record["url"] == *u) {
            let html = record["html"].as_str().expect("html").to_owned();
            found[i] = Some((html, page.gold, page.snippets));
        }
    }
    urls.iter()
        .zip(found)
        .map(|(url, page)| page.unwrap_or_else(|| panic!("{url} is not in {set}")))
        .collect()
}

/// Asserts that the text kept from each page of corpus set `set` at `urls`, judged on its
/// domain's first page under the default rules, holds more than half its must-contain phrases.
pub fn assert_most_phrases_found(set: &str, urls: &[&str]) {
    for (url, (html, _, snippets)) in urls.iter().zip(corpus_pages(set, urls)) {
        let (found, _) = phrases_found(&html, &snippets, Rules::default());
        let total = snippets.with.len();
        assert!(2 * found > total, "{url}: {found} of {total} phrases");
    }
}

/// The F1 ([`score_page`](crate::eval::score_page)) against `gold` of the text `judge` keeps
/// from `html` under the default rules, and with the rule named `rule` switched off.
pub fn f1_with_and_without(
    html: &str,
    gold: &str,
    rule: &str,
    judge: impl Fn(&str, Rules) -> Vec<String>,
) -> (f64, f64) {
    let off = Rules::default().without(rule).expect("a rule");
    let f1 = |rules| crate::eval::score_page(&judge(html, rules).join("\n"), gold).f1;
    (f1(Rules::default()), f1(off))
}

/// Asserts that each of wcxb-dev's pages at `urls`, judged on a domain's first page, scores more
/// than 0.05 of F1 higher under the default rules than with the rule named `rule` switched off.
pub fn assert_rule_pays_on(urls: &[&str], rule: &str) {
    assert_rule_pays_by(urls, rule, 0.05, |h, r| judge(h, r).0);
}

/// Asserts that each of wcxb-dev's pages at `urls`, its kept texts as `judge` gives them under
/// rules (by the page's blocks alone, [`judge`], or with what the page declares,
/// [`judge_page`]), scores more than `margin` of F1 higher under the default rules than with
/// the rule named `rule` switched off.
pub fn assert_rule_pays_by(
    urls: &[&str],
    rule: &str,
    margin: f64,
    judge: impl Fn(&str, Rules) -> Vec<String>,
) {
    for (url, (html, gold, _)) in urls.iter().zip(corpus_pages("wcxb-dev", urls)) {
        let (with, without) = f1_with_and_without(&html, &gold, rule, &judge);
        assert!(
            with > without + margin,
            "{url}: {with:.3} against {without:.3}"
        );
    }
}

/// How many of a page's must-contain phrases the text kept under `rules` holds, and of its
/// must-not-contain phrases.
pub fn phrases_found(html: &str, snippets: &crate::eval::Snippets, rules: Rules) -> (usize, usize) {
    let (kept, _) = judge(html, rules);
    let check = snippets.check(&kept.join("\n"));
    (check.with_found, check.without_found)
}
