//! Text around repeated blocks: a run of repeated blocks inside the main subtree with kept text on
//! both sides belongs to the text (a manual's section headings, notes and table cells recur on
//! many pages, yet they sit between the paragraphs that they label); repeated blocks at the edge
//! of the main text (a byline, a closing notice) stay dropped. Template blocks sit at the page's
//! edges in a stable order; content that happens to recur sits between unique text.

use super::main_text::{within, Main};
use crate::tree::{BlockFacts, Reason};

/// Keeps each run of repeated blocks inside `main` that has a kept block on both sides, with the
/// figures inside `main` among them (blocks without letters inside the run do not break it; those
/// with digits and few links, a table's numbers or a score, are the text's data, which the tree
/// cannot count). Marked and hidden blocks do not break a run either (a picture's caption after a
/// table), but repeated blocks next to them are a frame, not the text, and stay dropped. One
/// pass: each block is visited once by the run that holds it or by the loop.
pub fn keep_runs(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main) {
    let judged = |out: &[Reason], k: usize| match out[k] {
        Reason::NoLetters | Reason::Marked | Reason::Hidden => true,
        Reason::Repeated => within(&blocks[k], main),
        _ => false,
    };
    let mut i = 0;
    let mut prev_kept = false;
    while i < blocks.len() {
        if prev_kept && judged(out, i) {
            let mut end = i;
            while end < blocks.len() && judged(out, end) {
                end += 1;
            }
            if end < blocks.len() && out[end] == Reason::Unique {
                let framed = out[i..end]
                    .iter()
                    .any(|r| matches!(r, Reason::Marked | Reason::Hidden));
                for k in i..end {
                    if (out[k] == Reason::Repeated && !framed) || is_figure(&blocks[k], main) {
                        out[k] = Reason::WithinText;
                    }
                }
            }
            prev_kept = false;
            i = end;
            continue;
        }
        prev_kept = match out[i] {
            Reason::NoLetters => prev_kept,
            r => r == Reason::Unique,
        };
        i += 1;
    }
}

/// True when `block` is a figure inside `main` that is not a link (a page number, a calendar's
/// day).
fn is_figure(block: &BlockFacts<'_>, main: Main) -> bool {
    block.figure && 2 * block.link_chars <= block.chars && within(block, main)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, judge, run, run_with};
    use super::super::Rules;
    use crate::tree::{Label, Reason};

    #[test]
    fn repeated_blocks_between_kept_text_belong_to_it() {
        // article div(7) > h2(8) "Description", p(9), h2(10) "Notes", p(11) repeated, p(12);
        // then a repeated closing notice (p 13) and the repeated navigation (nav 14).
        let at = |e: u32| [0, 1, 7, e];
        let (a8, a9, a10, a11, a12, a13) = (at(8), at(9), at(10), at(11), at(12), at(13));
        let nav = [0, 1, 14, 15];
        let blocks = [
            block(&a8, 11, 0, 9, 9),
            block(&a9, 300, 0, 1, 9),
            block(&a10, 5, 0, 9, 9),
            block(&a11, 120, 0, 9, 9),
            block(&a12, 250, 0, 1, 9),
            block(&a13, 60, 0, 9, 9),
            block(&nav, 200, 0, 9, 9),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 9),
            vec![Repeated, Unique, WithinText, WithinText, Unique, Repeated, Repeated]
        );
        assert_eq!(WithinText.label(), Label::Content);
        let off = Rules::default().without("within_text").unwrap();
        assert_eq!(run_with(&blocks, 9, off)[2..4], [Repeated, Repeated]);
        // A block without letters inside the run does not break it.
        let mut gap = blocks.to_vec();
        gap[3].count = None;
        assert_eq!(run(&gap, 9)[2..5], [WithinText, NoLetters, Unique]);
        // Repeated text outside the main subtree stays dropped, even between kept blocks.
        let side = [0, 1, 16, 17];
        let mut outside = blocks.to_vec();
        outside[2] = block(&side, 40, 0, 9, 9);
        assert_eq!(run(&outside, 9)[2], Repeated);
    }

    #[test]
    fn the_figures_of_a_table_inside_the_text_are_its_data() {
        // A standings page: its intro, a table of drivers and their points, a picture's caption
        // after it, a closing line; then the page's pagination links and a footer year, outside
        // the text.
        let html = r#"<html><body><div id="page"><div class="post">
<h1>Cup standings</h1>
<p>The standings after thirty-six races of the season, updated after every race.</p>
<table><tr><td>Pos.</td><td>Driver</td><td>Points</td></tr>
<tr><td>1</td><td>Kyle Busch</td><td>5040</td></tr>
<tr><td>2</td><td>Martin Truex Jr.</td><td>5035</td></tr></table>
<figure><img src="/busch.jpg"><figcaption>Busch in victory lane after the finale.</figcaption></figure>
<p>Bookmark this page and come back after the next race for the updated table.</p>
<div class="pages"><a href="/p/1">1</a> <a href="/p/2">2</a></div></div>
<div id="footer"><span>2019</span></div></div></body></html>"#;
        let (kept, reasons) = judge(html, Rules::default());
        let figures: Vec<&str> = kept
            .iter()
            .map(String::as_str)
            .filter(|t| t.chars().all(|c| !c.is_alphabetic()))
            .collect();
        assert_eq!(figures, ["1", "5040", "2", "5035"], "{kept:?}");
        assert!(reasons.contains(&Reason::NoLetters));
        // Switched off, no block without letters is content.
        let off = Rules::default().without("within_text").unwrap();
        let (kept, _) = judge(html, off);
        assert!(
            kept.iter().all(|t| t.chars().any(char::is_alphabetic)),
            "{kept:?}"
        );
    }
}
