//! `bte`: Body Text Extraction.
//!
//! Reference: A. Finn, N. Kushmerick, B. Smyth, "Fact or fiction: Content classification for
//! digital libraries", DELOS Workshop on Personalisation and Recommender Systems in Digital
//! Libraries, 2001.
//!
//! The page is a sequence of tokens, each a tag or a word. Plotted as the cumulative count of
//! tags over the tokens (the document slope curve), the main text is a plateau: BTE picks the
//! one region `i..=j` that maximises the tags outside it plus the words inside it,
//! `Σ_{n<i} tag(n) + Σ_{i≤n≤j} word(n) + Σ_{n>j} tag(n)`; its blocks are the text.
//!
//! As published the search is quadratic (every `i`, every `j`). Since the tags outside the
//! region are all the page's tags less those inside, the objective is the page's tag count plus
//! `Σ_{i≤n≤j} (word(n) − tag(n))`: the region is the maximum-sum subarray of the sequence
//! scoring +1 per word and −1 per tag, found in one linear scan (Kadane's algorithm). This
//! implementation is that scan over the page's runs ([`super::sequence`]): each block scores
//! its words less its inline tags, the markup between blocks its tags. No parameters.

use super::sequence::{runs, Anchors, Run, Unit};
use super::{verdict, Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// `bte`: Body Text Extraction's one region, in linear time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bte;

/// The maximal region: the first and last run of the maximum-sum subarray of `+content −code`
/// (the first such, when several tie), or `None` for an empty sequence.
pub fn region(runs: &[Run]) -> Option<(usize, usize)> {
    let mut best: Option<(f64, usize, usize)> = None;
    // The best sum of a region ending at the current run, and where it starts.
    let (mut sum, mut start) = (0.0, 0);
    for (i, run) in runs.iter().enumerate() {
        let score = 2.0 * run.content - run.len;
        if i == 0 || sum <= 0.0 {
            (sum, start) = (score, i);
        } else {
            sum += score;
        }
        if best.is_none_or(|(b, _, _)| sum > b) {
            best = Some((sum, start, i));
        }
    }
    best.map(|(_, i, j)| (i, j))
}

impl PageMethod for Bte {
    const METHOD: Method = Method::Bte;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let mut sequence = Vec::new();
        runs(page, Unit::Tokens, Anchors::Code, &mut sequence);
        let (first, last) = region(&sequence).unwrap_or((1, 0));
        out.clear();
        out.extend(
            sequence
                .iter()
                .enumerate()
                .filter(|(_, run)| run.block.is_some())
                .zip(facts)
                .map(|((r, _), f)| verdict(f, (first..=last).contains(&r), Reason::CodeDense)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus;
    use crate::tree::classic::fixtures::{kept, page, NEWS, NEWS_TEXT};

    /// Finn et al.'s objective of the region `i..=j` of runs, the way they state it: tags
    /// before, words inside, tags after.
    fn objective(runs: &[Run], i: usize, j: usize) -> f64 {
        let tags = |r: &Run| r.len - r.content;
        runs[..i].iter().map(tags).sum::<f64>()
            + runs[i..=j].iter().map(|r| r.content).sum::<f64>()
            + runs[j + 1..].iter().map(tags).sum::<f64>()
    }

    /// The published quadratic search: the best objective over every region.
    fn quadratic(runs: &[Run]) -> f64 {
        let mut best = f64::MIN;
        for i in 0..runs.len() {
            for j in i..runs.len() {
                best = best.max(objective(runs, i, j));
            }
        }
        best
    }

    fn check(html: &str) {
        let (blocks, stats) = page(html);
        let page = Page::new(&blocks, html.len(), stats);
        let mut sequence = Vec::new();
        runs(&page, Unit::Tokens, Anchors::Code, &mut sequence);
        let (i, j) = region(&sequence).expect("a region");
        assert_eq!(objective(&sequence, i, j), quadratic(&sequence));
    }

    #[test]
    fn the_linear_scan_finds_the_published_maximum_on_real_pages() {
        check(NEWS);
        let dir = corpus::require_shared_dir();
        let mut pages = 0;
        corpus::for_each_page(&dir.join("cleanportaleval"), |p| {
            let record: serde_json::Value = serde_json::from_slice(&p.record).expect("json");
            if let Some(html) = record["html"].as_str() {
                check(html);
                pages += 1;
            }
            Ok(())
        })
        .expect("corpus");
        assert!(pages > 50);
    }

    #[test]
    fn one_region_holds_the_story_and_the_link_in_it() {
        let kept = kept(&Bte, NEWS);
        // The region runs from the headline to the last paragraph: one plateau of the slope
        // curve, the link inside the second paragraph included.
        assert_eq!(kept[0], "Harbour reopens after storm repairs");
        assert_eq!(&kept[1..], NEWS_TEXT);
    }
}
