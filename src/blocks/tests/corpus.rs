//! Real pages from the corpus: gold text lands inside blocks, script never does, and every block
//! of every page satisfies the invariants.

use super::super::{Block, ParseLimits, Tokenizer};
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

#[test]
fn first_pages_of_every_set_satisfy_invariants() {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    for set in SETS {
        let pages = corpus_pages(set, 25);
        assert!(!pages.is_empty(), "{set}");
        for page in pages {
            let blocks = tokenizer.blocks(page.html.as_bytes()).expect("blocks");
            check_invariants(&blocks, tokenizer.limits());
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
        for page in pages {
            let blocks = tokenizer.blocks(page.html.as_bytes()).expect("blocks");
            check_invariants(&blocks, tokenizer.limits());
        }
    }
}

/// Text runs as `(start, end, kind)`, adjacent runs of one kind merged (parsers split text
/// differently where nothing but the split differs).
fn merged(
    runs: impl IntoIterator<Item = (usize, usize, &'static str)>,
) -> Vec<(usize, usize, &'static str)> {
    let mut out: Vec<(usize, usize, &'static str)> = Vec::new();
    for (start, end, kind) in runs {
        if start == end {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == start && last.2 == kind => last.1 = end,
            _ => out.push((start, end, kind)),
        }
    }
    out
}

/// The text runs lol_html, an independent HTML tokenizer, finds in `html`.
fn lol_html_runs(html: &[u8]) -> Vec<(usize, usize, &'static str)> {
    use lol_html::html_content::TextType;
    use lol_html::{doc_text, HtmlRewriter, Settings};
    let mut runs = Vec::new();
    {
        let settings = Settings::new().append_document_content_handler(doc_text!(|chunk| {
            let range = chunk.source_location().bytes();
            let kind = match chunk.text_type() {
                TextType::Data => "data",
                TextType::PlainText => "plaintext",
                TextType::ScriptData => "script",
                TextType::RawText | TextType::RCData => "raw",
                TextType::CDataSection => "cdata",
            };
            runs.push((range.start, range.end, kind));
            Ok(())
        }));
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(html).expect("lol_html parses");
        rewriter.end().expect("lol_html ends");
    }
    // CDATA sections are in SVG and MathML, whose text is never read.
    merged(runs.into_iter().filter(|r| r.2 != "cdata"))
}

/// The text runs our lexer finds in `html`, with SVG and MathML tracked as the tokenizer does.
fn lexer_runs(html: &[u8]) -> Vec<(usize, usize, &'static str)> {
    use super::super::markup::TagToken;
    use super::super::scan::{scan, Sink, TextKind};
    use super::super::tags::{classify, tag_key, Tag, BREAKOUT};
    #[derive(Default)]
    struct Runs {
        runs: Vec<(usize, usize, &'static str)>,
        foreign: Option<(u64, u32)>,
    }
    impl<'a> Sink<'a> for Runs {
        fn tag(&mut self, tag: TagToken<'a>) -> bool {
            let key = tag_key(tag.name);
            let (kind, flags) = classify(key);
            match (&mut self.foreign, tag.end) {
                (Some((open, nest)), true) if *open == key => {
                    *nest -= 1;
                    if *nest == 0 {
                        self.foreign = None;
                    }
                }
                (Some(_), false) if flags & BREAKOUT != 0 => self.foreign = None,
                (Some((open, nest)), false) if *open == key && !tag.self_closing => *nest += 1,
                (None, false) if kind == Tag::Foreign && !tag.self_closing => {
                    self.foreign = Some((key, 1))
                }
                _ => {}
            }
            true
        }
        fn text(&mut self, start: usize, end: usize, kind: TextKind) -> bool {
            let kind = match kind {
                TextKind::Data => "data",
                TextKind::PlainText => "plaintext",
                TextKind::Script => "script",
                TextKind::Raw => "raw",
            };
            self.runs.push((start, end, kind));
            true
        }
        fn foreign(&self) -> bool {
            self.foreign.is_some()
        }
    }
    let mut sink = Runs::default();
    scan(html, 0, &mut sink);
    merged(sink.runs)
}

/// The lexer agrees with lol_html on what is text, and of which kind, on every page of every set
/// but those named here with the reason they differ.
#[test]
fn lexer_finds_the_text_lol_html_finds() {
    let mut pages = 0;
    let mut differ = Vec::new();
    for set in SETS {
        for page in corpus_pages(set, usize::MAX) {
            pages += 1;
            let ours = lexer_runs(page.html.as_bytes());
            let theirs = lol_html_runs(page.html.as_bytes());
            if ours != theirs {
                let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
                differ.push(format!(
                    "{set} {}: first difference at run {at:?}",
                    page.url
                ));
            }
        }
    }
    assert!(pages > 5_000, "{pages}");
    assert!(
        differ.is_empty(),
        "{} of {pages} pages differ: {differ:#?}",
        differ.len()
    );
}
