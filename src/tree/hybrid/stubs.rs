//! Stub pages: a page left with almost no text once the tree has spoken (a redirect notice shared
//! by many pages, an empty listing) is judged by its own structure alone, as on a domain's first
//! page: every page has a main text.

use super::Params;
use crate::tree::{BlockFacts, Label, NodeFacts, Reason};

/// A page left with less kept text than this (about two sentences) by the tree is a stub made of
/// template text, and its own structure decides instead.
pub const MIN_PAGE_CHARS: u32 = 100;

/// True when the verdicts `out` at `node` (past a domain's first page) keep less than
/// [`Params::min_page_chars`] characters of the page.
pub fn is_stub(
    blocks: &[BlockFacts<'_>],
    node: NodeFacts,
    params: &Params,
    out: &[Reason],
) -> bool {
    let kept: u64 = blocks
        .iter()
        .zip(out.iter())
        .filter(|(_, r)| r.label() == Label::Content)
        .map(|(b, _)| u64::from(b.chars))
        .sum();
    node.support > 1 && kept < u64::from(params.min_page_chars)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with, ARTICLE};
    use super::super::Rules;
    use crate::tree::Reason;

    #[test]
    fn a_stub_page_of_template_text_is_judged_by_its_structure() {
        // Every block is known to the tree: the notice would vanish, so the page decides.
        let nav = [0, 1, 2, 3];
        let blocks = [
            block(&nav, 40, 40, 9, 9),
            block(&ARTICLE[0], 150, 0, 9, 9),
            block(&ARTICLE[1], 80, 0, 9, 9),
        ];
        use Reason::*;
        assert_eq!(run(&blocks, 9), vec![LinkDense, Unique, Unique]);
        let off = Rules::default().without("stubs").unwrap();
        assert_eq!(run_with(&blocks, 9, off), vec![Repeated; 3]);
    }
}
