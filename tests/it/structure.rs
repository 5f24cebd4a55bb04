//! Structure kept over a real stream: every code listing (`<pre>`) of the debdocs-rust-books gold
//! comes out line for line, indentation included, in `text` and in `markdown`.

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::{element, text, HtmlRewriter, Settings};

use crate::common::stream::stream_set;
use urltree::config::Config;
use urltree::engine::Outcome;
use urltree::tree::Label;

/// One `<pre>` of a page's main text, as a browser shows it without scripts.
#[derive(Debug, Default)]
struct Pre {
    /// Its lines: entities decoded, CR LF as LF, white space other than tab and LF as a space
    /// (as in all of urltree's text), blank lines before the first and white space after the
    /// last visible character dropped.
    lines: Vec<String>,
    /// Its lines as the gold has them: without mdBook's `span.boring` (lines its script hides),
    /// white space collapsed, blank lines dropped.
    gold_lines: Vec<String>,
}

/// The `<pre>` elements inside `<main>` (where the gold's main text is), read with lol_html's own
/// selectors, independently of urltree's tokenizer.
fn main_pres(html: &str) -> Vec<Pre> {
    #[derive(Default)]
    struct Acc {
        pres: Vec<(String, String)>,
        boring: bool,
    }
    let acc = Rc::new(RefCell::new(Acc::default()));
    let (a1, a2, a3, a4) = (acc.clone(), acc.clone(), acc.clone(), acc.clone());
    let settings = Settings::new()
        .append_element_content_handler(element!("main pre", move |_| {
            a1.borrow_mut().pres.push(Default::default());
            Ok(())
        }))
        .append_element_content_handler(element!("main pre span.boring", move |el| {
            a2.borrow_mut().boring = true;
            let a = a2.clone();
            let end: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                a.borrow_mut().boring = false;
                Ok(())
            });
            if let Some(handlers) = el.end_tag_handlers() {
                handlers.push(end);
            }
            Ok(())
        }))
        .append_element_content_handler(text!("main pre", move |t| {
            let mut acc = a3.borrow_mut();
            let boring = acc.boring;
            if let Some((all, shown)) = acc.pres.last_mut() {
                all.push_str(t.as_str());
                if !boring {
                    shown.push_str(t.as_str());
                }
            }
            Ok(())
        }))
        .append_element_content_handler(element!("main pre button, main pre script", move |_| {
            // The gold drops buttons and scripts; mdBook puts neither inside <pre>.
            a4.borrow_mut().pres.clear();
            Err("a button or script inside <pre>".into())
        }));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html.as_bytes()).expect("parse");
    rewriter.end().expect("end");
    let pres = std::mem::take(&mut acc.borrow_mut().pres);
    pres.into_iter()
        .map(|(all, shown)| {
            let all: String = htmlize::unescape(&all)
                .replace("\r\n", "\n")
                .chars()
                .map(|c| {
                    if c.is_whitespace() && c != '\t' && c != '\n' {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
            let shown = htmlize::unescape(&shown);
            let trimmed = all.trim_end();
            let first = trimmed
                .split('\n')
                .position(|l| !l.trim().is_empty())
                .unwrap_or(0);
            Pre {
                lines: trimmed.split('\n').skip(first).map(str::to_owned).collect(),
                gold_lines: shown
                    .lines()
                    .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|l| !l.is_empty())
                    .collect(),
            }
        })
        .filter(|p| !p.gold_lines.is_empty())
        .collect()
}

/// True when `lines` occur in `haystack` as consecutive whole lines.
fn has_lines(haystack: &[&str], lines: &[String]) -> bool {
    haystack
        .windows(lines.len())
        .any(|w| w.iter().zip(lines).all(|(a, b)| a == b))
}

/// True when `lines` are the whole content of a fenced code block of `markdown`, after the
/// block's prefix (quote markers, a list item's indentation).
fn in_fence(markdown: &str, lines: &[String]) -> bool {
    let md: Vec<&str> = markdown.split('\n').collect();
    md.windows(lines.len() + 2).any(|w| {
        let Some(at) = w[0].find("```") else {
            return false;
        };
        let (first, opening) = w[0].split_at(at);
        let rest: String = first
            .chars()
            .map(|c| if c == '>' { '>' } else { ' ' })
            .collect();
        // The fence, then the code's language (mdBook writes `language-rust`).
        let fence = opening.trim_end_matches(|c: char| c != '`');
        opening[fence.len()..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+#._-".contains(c))
            && w[w.len() - 1] == format!("{rest}{fence}")
            && w[1..w.len() - 1].iter().zip(lines).all(|(have, want)| {
                if want.is_empty() {
                    *have == rest.trim_end()
                } else {
                    *have == format!("{rest}{want}")
                }
            })
    })
}

#[test]
fn every_pre_of_the_rust_books_gold_comes_out_line_for_line() {
    let (mut in_gold, mut kept, mut in_text, mut in_markdown, mut lines) = (0, 0, 0, 0, 0);
    let mut dropped = Vec::new();
    let mut missed = Vec::new();
    let configure = |config: &mut Config| {
        config.output.markdown = true;
        config.output.blocks = true;
    };
    stream_set("debdocs-rust-books", configure, |page, outcome| {
        let Outcome::Clean(record) = outcome else {
            panic!("line {}: {outcome:?}", page.line);
        };
        let html: serde_json::Value = serde_json::from_slice(&page.record).expect("json");
        let gold: Vec<&str> = page.gold.lines().map(str::trim).collect();
        let text: Vec<&str> = record.text.split('\n').collect();
        let markdown = record.markdown.as_deref().expect("markdown");
        let blocks = record.blocks.as_deref().expect("blocks");
        for pre in main_pres(html["html"].as_str().expect("html")) {
            // The listing as the gold has it: consecutive whole lines of the gold.
            if !has_lines(&gold, &pre.gold_lines) {
                continue;
            }
            in_gold += 1;
            lines += pre.lines.len();
            // The tokenizer gives the listing as one block, line for line.
            let whole = pre.lines.join("\n");
            let Some(block) = blocks.iter().find(|b| b.text == whole) else {
                missed.push(format!("line {}: no block is {whole:?}", page.line));
                continue;
            };
            if block.label != Label::Content {
                // The classifier's verdict, not the structure's: counted below.
                dropped.push(format!(
                    "line {} ({}): {:?}",
                    page.line, block.reason, pre.lines[0]
                ));
                continue;
            }
            kept += 1;
            let text_ok = has_lines(&text, &pre.lines);
            let md_ok = in_fence(markdown, &pre.lines);
            in_text += usize::from(text_ok);
            in_markdown += usize::from(md_ok);
            if !(text_ok && md_ok) {
                missed.push(format!(
                    "line {} (text {text_ok}, markdown {md_ok}): {whole:?}",
                    page.line
                ));
            }
        }
    });
    println!(
        "<pre> in the gold: {in_gold} ({lines} lines), each one block line for line; kept by the \
         classifier: {kept}; line for line in text: {in_text}, in markdown: {in_markdown}; \
         dropped by the classifier: {dropped:#?}"
    );
    assert!(
        in_gold > 2500,
        "too few listings to mean anything: {in_gold}"
    );
    assert!(missed.is_empty(), "{} missed: {missed:#?}", missed.len());
    // What the classifier drops (blocks without letters, a listing outside the main subtree)
    // is its own matter; this many when the structure was made to come out.
    assert!(
        dropped.len() <= 6,
        "{} dropped: {dropped:#?}",
        dropped.len()
    );
}
