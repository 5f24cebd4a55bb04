//! Real pages from the corpus: gold text lands inside blocks, script never does, and every block
//! of every page satisfies the invariants.

use super::super::{Block, Capture, ParseLimits, Tokenizer};
use super::{check_invariants, corpus_pages, Page};
use crate::corpus::SETS;

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The opening of the gold's first body paragraph (the first line of at least `min_words`
/// words): its first `words` words.
fn gold_opening(gold: &str, min_words: usize, words: usize) -> Option<String> {
    let line = gold
        .lines()
        .find(|l| l.split_whitespace().count() >= min_words)?;
    Some(
        line.split_whitespace()
            .take(words)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Fraction of pages whose gold opening appears inside a single block.
fn gold_opening_rate(
    pages: &[Page],
    min_words: usize,
    words: usize,
) -> (usize, usize, Vec<String>) {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let (mut found, mut total) = (0, 0);
    let mut missed = Vec::new();
    for page in pages {
        let Some(opening) = gold_opening(&page.gold, min_words, words) else {
            continue;
        };
        let blocks = tokenizer.blocks(page.html.as_bytes()).expect("blocks");
        check_invariants(&blocks, tokenizer.limits());
        total += 1;
        if blocks.iter().any(|b| b.text.contains(&opening)) {
            found += 1;
        } else {
            missed.push(format!("{}: {opening}", page.url));
        }
    }
    (found, total, missed)
}

#[test]
fn crawl_to_the_future_gold_opening_is_inside_one_block() {
    let pages = corpus_pages("crawl-to-the-future", 120);
    let (found, total, missed) = gold_opening_rate(&pages, 12, 8);
    assert!(total >= 100, "{total}");
    assert!(found * 100 >= total * 95, "{found}/{total}: {missed:#?}");
}

#[test]
fn rust_books_gold_opening_is_inside_one_block() {
    let pages = corpus_pages("debdocs-rust-books", 120);
    let (found, total, missed) = gold_opening_rate(&pages, 8, 8);
    assert!(total >= 100, "{total}");
    assert!(found * 100 >= total * 98, "{found}/{total}: {missed:#?}");
}

/// Lines of at least 30 characters of the inline scripts of `html` (whitespace collapsed).
fn script_lines(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut lines = Vec::new();
    let mut at = 0;
    while let Some(open) = lower[at..].find("<script") {
        let open = at + open;
        let Some(body) = lower[open..].find('>').map(|p| open + p + 1) else {
            break;
        };
        let Some(end) = lower[body..].find("</script").map(|p| body + p) else {
            break;
        };
        for line in html[body..end].lines() {
            let line = collapse(line);
            if line.chars().count() >= 30 {
                lines.push(line);
            }
        }
        at = end;
    }
    lines
}

#[test]
fn no_script_code_in_blocks() {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let mut checked = 0;
    for set in ["crawl-to-the-future", "dragnet"] {
        for page in corpus_pages(set, 60) {
            let lines = script_lines(&page.html);
            checked += lines.len();
            let blocks = tokenizer.blocks(page.html.as_bytes()).expect("blocks");
            for b in &blocks {
                for line in &lines {
                    assert!(
                        !b.text.contains(line.as_str()),
                        "{}: script line {line:?} in block {:?}",
                        page.url,
                        b.text
                    );
                }
                for code in ["function(", "function (", "document.write(", "var _gaq"] {
                    assert!(
                        !b.text.contains(code),
                        "{}: {code} in {:?}",
                        page.url,
                        b.text
                    );
                }
            }
        }
    }
    assert!(
        checked > 1000,
        "too few script lines to mean anything: {checked}"
    );
}

#[test]
fn real_pages_have_sensible_paths() {
    let pages = corpus_pages("debdocs-rust-books", 30);
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let mut in_pre = 0;
    let mut with_main = 0;
    for page in &pages {
        let blocks: Vec<Block> = tokenizer.blocks(page.html.as_bytes()).expect("blocks");
        assert!(!blocks.is_empty(), "{}", page.url);
        assert!(
            blocks.iter().all(|b| b.path.starts_with("html/body")),
            "{}",
            page.url
        );
        in_pre += blocks.iter().filter(|b| b.path.ends_with("/pre")).count();
        // mdBook puts the chapter text in <main> (a title may also be in the <nav>).
        if let Some(opening) = gold_opening(&page.gold, 8, 8) {
            let holders: Vec<&Block> = blocks
                .iter()
                .filter(|b| b.text.contains(&opening))
                .collect();
            assert!(!holders.is_empty(), "{}: {opening}", page.url);
            if holders
                .iter()
                .any(|b| b.path.split('/').any(|s| s == "main"))
            {
                with_main += 1;
            }
        }
    }
    assert!(in_pre > 10, "code blocks: {in_pre}");
    assert!(with_main >= 28, "{with_main}");
}

/// Checks the invariants of the blocks of `html` with links and images recorded, and that they
/// are the blocks without them, marks aside.
fn check_page(plain: &mut Tokenizer, marked: &mut Tokenizer, html: &str, url: &str) {
    let blocks = marked.blocks(html.as_bytes()).expect("blocks");
    check_invariants(&blocks, marked.limits());
    let unmarked: Vec<Block> = blocks
        .into_iter()
        .map(|b| Block {
            links: Vec::new(),
            images: Vec::new(),
            ..b
        })
        .collect();
    assert!(
        unmarked == plain.blocks(html.as_bytes()).expect("blocks"),
        "{url}: recording links and images changed the blocks"
    );
}

#[test]
fn first_pages_of_every_set_satisfy_invariants() {
    let mut plain = Tokenizer::new(ParseLimits::default());
    let mut marked = Tokenizer::with_capture(ParseLimits::default(), Capture::ALL);
    for set in SETS {
        let pages = corpus_pages(set, 25);
        assert!(!pages.is_empty(), "{set}");
        for page in pages {
            check_page(&mut plain, &mut marked, &page.html, &page.url);
        }
    }
}

/// Every page of every set (slow in debug builds; run with `--release -- --ignored`).
#[test]
#[ignore]
fn every_page_of_every_set_satisfies_invariants() {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    for set in SETS {
        let pages = corpus_pages(set, usize::MAX);
        let (found, total, missed) = gold_opening_rate(&pages, 12, 8);
        if std::env::var_os("SHOW_MISSED").is_some() {
            for m in missed {
                println!("  missed {m}");
            }
        }
        println!(
            "{set}: {} pages, gold opening inside one block: {found}/{total}",
            pages.len()
        );
        let mut marked = Tokenizer::with_capture(ParseLimits::default(), Capture::ALL);
        for page in pages {
            check_page(&mut tokenizer, &mut marked, &page.html, &page.url);
        }
    }
}
