//! Text around repeated blocks: a run of repeated blocks inside the main subtree with kept text on
//! both sides belongs to the text (a manual's section headings, notes and table cells recur on
//! many pages, yet they sit between the paragraphs that they label); repeated blocks at the edge
//! of the main text (a byline, a closing notice) stay dropped. Template blocks sit at the page's
//! edges in a stable order; content that happens to recur sits between unique text.

use super::main_text::{within, Main};
use crate::tree::{BlockFacts, Reason};

/// Keeps each run of repeated blocks inside `main` that has a kept block on both sides (blocks
/// without letters inside the run do not break it). One pass: each block is visited once by the
/// run that holds it or by the loop.
pub fn keep_runs(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main) {
    let mut i = 0;
    let mut prev_kept = false;
    while i < blocks.len() {
        match out[i] {
            Reason::NoLetters => i += 1,
            Reason::Repeated if prev_kept && within(&blocks[i], main) => {
                let mut end = i;
                while end < blocks.len()
                    && (out[end] == Reason::NoLetters
                        || (out[end] == Reason::Repeated && within(&blocks[end], main)))
                {
                    end += 1;
                }
                if end < blocks.len() && out[end] == Reason::Unique {
                    for r in &mut out[i..end] {
                        if *r == Reason::Repeated {
                            *r = Reason::WithinText;
                        }
                    }
                }
                prev_kept = false;
                i = end;
            }
            r => {
                prev_kept = r == Reason::Unique;
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with};
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
}
