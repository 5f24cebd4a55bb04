//! What a user prefers of the main text, applied once the rules have judged the page: its
//! comments kept or dropped ([`Comments`]), and a lean to precision or to recall ([`Focus`]),
//! the options trafilatura users reach for (`include_comments`, `favor_precision`,
//! `favor_recall`). The defaults, comments dropped and `balanced`, change nothing: they are what
//! scores best on the gold standards (docs/ablation.md), and every step here is skipped.
//!
//! - Comments kept: trafilatura extracts a page's comments apart from its main text and appends
//!   them to it. Here the main text is found as with comments dropped (the regions the markup
//!   marks as comments stay out of the search for it, so a long thread cannot pull the main
//!   subtree onto itself), then the blocks in regions marked as comments alone are taken back
//!   where only the markup or their place outside the main text dropped them: not what the
//!   tree counts as repeated, a template slot, link-dense navigation or hidden text.
//! - `recall`: the main subtree is a guess at where the text lies from its densest part; a
//!   block it leaves out that holds a sentence of its own (non-link text beyond the cost of a
//!   short phrase, [`super::main_text::BLOCK_COST`]) and that no other rule drops (not
//!   repeated, not template, not link-dense, not marked, not hidden) is kept: the text around a
//!   page's densest part (an article's intro in a box of its own, a second column, notes).
//! - `precision`: the kept text ends in text, not in a heading: headings after its last block
//!   that is not one head a part of the page that was dropped ("Related posts", "Comments") and
//!   go (trafilatura's precision setting drops trailing headings too). On a page judged alone,
//!   whose edges the tree's counts have not cleared of the site's furniture, the kept text is
//!   also cut to what reads as text: short blocks (no more than a phrase) before its first and
//!   after its last block holding a sentence of its own go (bylines, dates, "Share this", tag
//!   lists), but the nearest heading before the text (its title). At a trusted node the tree
//!   has removed the repeated labels already, and a short block left at the text's edge is the
//!   page's own (a manual's last line of code, a table's last cell).

use super::links;
use super::main_text::BLOCK_COST;
use super::Params;
use crate::tree::{BlockFacts, Label, Reason};

/// `[tree] comments`: what becomes of a page's comments (the regions its markup marks as
/// comments: `class`/`id` words comment, comments, commentlist, disqus, replies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Comments {
    /// Dropped with the rest of what surrounds the text (the default: most gold standards drop
    /// them).
    #[default]
    Drop,
    /// Kept after the main text where no other rule drops them (trafilatura's
    /// `include_comments=True`).
    Keep,
}

/// `[tree] focus`: whether the classifier leans to precision or to recall.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Focus {
    /// Less text, more of it the main text (trafilatura's `favor_precision`).
    Precision,
    /// What scores best (the default).
    #[default]
    Balanced,
    /// More text, fewer of the main text's blocks lost (trafilatura's `favor_recall`).
    Recall,
}

macro_rules! named {
    ($ty:ident, $expected:literal, $($variant:ident = $name:literal),+) => {
        impl $ty {
            /// The value's name in the config and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    other => Err(format!("unknown value `{other}`: expected {}", $expected)),
                }
            }
        }
    };
}

named!(Comments, "drop or keep", Drop = "drop", Keep = "keep");
named!(
    Focus,
    "precision, balanced or recall",
    Precision = "precision",
    Balanced = "balanced",
    Recall = "recall"
);

/// The preferences: [`Comments`] and [`Focus`], both at their defaults by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefs {
    /// What becomes of the page's comments.
    pub comments: Comments,
    /// Precision, balance or recall.
    pub focus: Focus,
}

/// Applies the preferences in `params` to the reasons `out` of `blocks` the rules gave, at a node
/// `trusted` or not. Does nothing with the defaults.
pub fn apply(blocks: &[BlockFacts<'_>], out: &mut [Reason], trusted: bool, params: &Params) {
    match params.prefs.focus {
        Focus::Balanced => {}
        Focus::Recall => keep_beside_main(blocks, out),
        Focus::Precision => {
            if !trusted {
                drop_short_edges(blocks, out);
            }
            drop_trailing_headings(blocks, out);
        }
    }
    if params.prefs.comments == Comments::Keep {
        keep_comments(blocks, out, trusted, params);
    }
}

/// Characters of `block`'s own text (outside links) beyond the cost of a short phrase: a
/// sentence of its own when positive.
fn own_text(block: &BlockFacts<'_>) -> i64 {
    i64::from(block.chars.saturating_sub(block.link_chars)) - i64::from(BLOCK_COST)
}

/// Keeps the blocks that only their place outside the main subtree dropped and that hold a
/// sentence of their own.
fn keep_beside_main(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if *reason == Reason::OutsideMainSubtree && own_text(block) > 0 {
            *reason = Reason::Unique;
        }
    }
}

/// Drops the kept blocks of no more than a phrase before the first and after the last kept block
/// holding a sentence of its own, but for the nearest heading before the text (its title), when
/// they are a margin ([`is_margin`]): a page whose kept text is mostly such blocks (a list, a
/// table, verse, a form) has them for its text.
fn drop_short_edges(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let kept = |k: usize, out: &[Reason]| out[k].label() == Label::Content;
    let text = |k: usize, out: &[Reason]| kept(k, out) && own_text(&blocks[k]) > 0;
    let Some(first) = (0..blocks.len()).find(|&k| text(k, out)) else {
        return;
    };
    let last = (first..blocks.len())
        .rev()
        .find(|&k| text(k, out))
        .unwrap_or(first);
    // The nearest kept heading before the text is its title.
    let title = (0..first)
        .rev()
        .find(|&k| kept(k, out) && blocks[k].heading);
    let edges: Vec<usize> = (0..first)
        .chain(last + 1..blocks.len())
        .filter(|&k| kept(k, out) && Some(k) != title)
        .collect();
    if is_margin(blocks, out, &edges) {
        for k in edges {
            out[k] = Reason::ShortText;
        }
    }
}

/// The share of the kept text's characters below which the blocks at its edges are a margin
/// that the `precision` focus drops: a tenth, bylines and labels around a text.
pub const EDGE_SHARE: f64 = 0.1;

/// Drops the kept headings after the last kept block that is not one, when they are a margin
/// ([`is_margin`]): a heading followed by nothing kept heads a part of the page that was dropped
/// ("Related posts", "Comments").
fn drop_trailing_headings(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let kept = |k: usize, out: &[Reason]| out[k].label() == Label::Content;
    let Some(last) = (0..blocks.len())
        .rev()
        .find(|&k| kept(k, out) && !blocks[k].heading)
    else {
        return;
    };
    let trailing: Vec<usize> = (last + 1..blocks.len()).filter(|&k| kept(k, out)).collect();
    if is_margin(blocks, out, &trailing) {
        for k in trailing {
            out[k] = Reason::ShortText;
        }
    }
}

/// True when the kept blocks `edges` hold less than [`EDGE_SHARE`] of the kept text's
/// characters.
fn is_margin(blocks: &[BlockFacts<'_>], out: &[Reason], edges: &[usize]) -> bool {
    let chars = |k: usize| u64::from(blocks[k].chars);
    let edge: u64 = edges.iter().map(|&k| chars(k)).sum();
    let all: u64 = (0..blocks.len())
        .filter(|&k| out[k].label() == Label::Content)
        .map(chars)
        .sum();
    (edge as f64) < EDGE_SHARE * all as f64
}

/// Takes back the unique blocks in regions the markup marks as comments alone that the markup or
/// their place outside the main text dropped, unless they are navigation by their link density.
fn keep_comments(blocks: &[BlockFacts<'_>], out: &mut [Reason], trusted: bool, params: &Params) {
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if block.comments
            && matches!(*reason, Reason::Marked | Reason::OutsideMainSubtree)
            && block.count.is_some()
            && !links::is_navigation(block, trusted, params)
        {
            *reason = Reason::Unique;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{corpus_pages, judge_params};
    use super::super::{Params, Rules};
    use super::*;
    use crate::eval::score_page;

    fn params(comments: Comments, focus: Focus) -> Params {
        Params {
            rules: Rules::default(),
            prefs: Prefs { comments, focus },
            ..Params::default()
        }
    }

    /// The text kept of `html` on a domain's first page with `comments` and `focus`.
    fn kept(html: &str, comments: Comments, focus: Focus) -> String {
        judge_params(html, &params(comments, focus)).0.join("\n")
    }

    #[test]
    fn the_defaults_change_nothing() {
        assert_eq!(Params::default(), params(Comments::Drop, Focus::Balanced));
        assert_eq!(
            super::super::Hybrid::with_rules(Rules::default()).params,
            Params::default()
        );
    }

    #[test]
    fn kept_comments_follow_the_text_where_the_gold_keeps_them() {
        // A Slashdot story: the summary, then a long thread of comments outside its element,
        // each marked as a comment; dragnet's gold keeps them.
        let url = "http://news.slashdot.org/story/12/07/24/1553214/the-decline-of-googles-and-everybodys-ad-business";
        let pages = corpus_pages("dragnet", &[url]);
        let (html, gold, _) = &pages[0];
        let dropped = kept(html, Comments::Drop, Focus::Balanced);
        let with = kept(html, Comments::Keep, Focus::Balanced);
        let (d, k) = (score_page(&dropped, gold), score_page(&with, gold));
        assert!(d.recall < 0.2 && k.recall > 0.7, "{d:?} {k:?}");
        assert!(k.f1 > d.f1 + 0.5, "{d:?} {k:?}");
        // The story comes first, as trafilatura appends the comments to the text.
        let story = dropped.lines().next().expect("the story");
        assert!(with.starts_with(story), "{story}");
        // Kept comments are still judged: link-dense lines and the site's sidebars stay out.
        let blocks = super::super::fixtures::parse(html);
        let (_, reasons) = judge_params(html, &params(Comments::Keep, Focus::Balanced));
        let marked_kept = blocks
            .iter()
            .zip(&reasons)
            .filter(|(b, r)| {
                r.label() == Label::Content && b.hint == crate::blocks::Hint::Boilerplate
            })
            .all(|(b, _)| b.comments);
        assert!(marked_kept);
    }

    #[test]
    fn recall_keeps_more_and_precision_keeps_less_each_where_it_pays() {
        // A blog's month of posts whose text lies beside the densest post the main subtree
        // settles on: recall takes it back. A blog's front page whose kept text ends in short
        // labels: precision cuts them.
        let (beside, margin) = (
            "http://www.baraita.net/blog/archives/2005_05.html",
            "http://mobyrebuttal.blogspot.com/",
        );
        let pages = corpus_pages("cleaneval", &[beside, margin]);
        let score = |i: usize, focus: Focus| {
            let (html, gold, _) = &pages[i];
            let text = kept(html, Comments::Drop, focus);
            (text.len(), score_page(&text, gold))
        };
        let (balanced, recall) = (score(0, Focus::Balanced), score(0, Focus::Recall));
        assert!(recall.0 > balanced.0, "{balanced:?} {recall:?}");
        assert!(
            recall.1.recall > balanced.1.recall + 0.3,
            "{balanced:?} {recall:?}"
        );
        let (balanced, precision) = (score(1, Focus::Balanced), score(1, Focus::Precision));
        assert!(precision.0 < balanced.0, "{balanced:?} {precision:?}");
        assert!(
            precision.1.precision > balanced.1.precision,
            "{balanced:?} {precision:?}"
        );
        // Each focus leaves the other page's lean alone where it has nothing to do.
        assert!(score(1, Focus::Recall).1.recall >= score(1, Focus::Balanced).1.recall);
    }
}
