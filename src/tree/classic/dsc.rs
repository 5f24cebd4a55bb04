//! `dsc`: the Document Slope Curve.
//!
//! Reference: D. Pinto, M. Branstein, R. Coleman, W. B. Croft, M. King, W. Li, X. Wei, "QuASM:
//! A System for Question Answering Using Semi-Structured Data", JCDL 2002.
//!
//! The document slope curve is the cumulative count of tags over the page's tokens (tags and
//! words), as in Body Text Extraction ([`super::bte`]); where BTE takes the one region that
//! maximises the words inside and the tags outside, DSC reads the curve through windows and
//! keeps every window of low slope, so a page may have several text regions (an article and
//! its continuation after an inline advertisement).
//!
//! Parameters: windows of 20 tokens, laid end to end from the page's first token; a window is
//! text when its slope, its share of tags, is below one half (it holds more words than tags:
//! the break-even of BTE's objective, where a region gains by a word what it loses by a tag).
//! The paper gives the windowing in words only; these values are this implementation's. A block
//! is text when most of its tokens lie in text windows.

use super::sequence::{runs, starts, Anchors, Unit};
use super::{verdict, Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// `dsc`: the Document Slope Curve's low-slope windows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dsc {
    /// Tokens per window.
    pub window: f64,
    /// A window whose share of tags is below this is text.
    pub slope: f64,
}

impl Default for Dsc {
    fn default() -> Self {
        Dsc {
            window: 20.0,
            slope: 0.5,
        }
    }
}

impl Dsc {
    /// For each block, the share of its tokens that lie in text windows.
    fn text_shares(&self, page: &Page<'_>, out: &mut Vec<f64>) {
        let mut sequence = Vec::new();
        runs(page, Unit::Tokens, Anchors::Code, &mut sequence);
        let mut at = Vec::new();
        let total = starts(&sequence, &mut at);
        let window = self.window.max(1.0);
        // Each window's tag count, from the runs it overlaps (a run's tags spread evenly).
        let windows = (total / window).ceil().max(1.0) as usize;
        let mut tags = vec![0.0f64; windows];
        for (run, &a) in sequence.iter().zip(&at) {
            let code = run.len - run.content;
            if code <= 0.0 {
                continue;
            }
            for_each_overlap(a, a + run.len, window, |w, overlap| {
                tags[w] += code * overlap / run.len;
            });
        }
        let text: Vec<bool> = tags
            .iter()
            .enumerate()
            .map(|(w, &t)| {
                let len = (total - w as f64 * window).min(window);
                len > 0.0 && t < self.slope * len
            })
            .collect();
        out.clear();
        for (run, &a) in sequence.iter().zip(&at) {
            if run.block.is_none() {
                continue;
            }
            let mut inside = 0.0;
            for_each_overlap(a, a + run.len, window, |w, overlap| {
                if text[w] {
                    inside += overlap;
                }
            });
            out.push(inside / run.len);
        }
    }
}

/// Calls `each(window, overlap)` for every window of `size` that `[a, b)` overlaps.
fn for_each_overlap(a: f64, b: f64, size: f64, mut each: impl FnMut(usize, f64)) {
    if b <= a {
        return;
    }
    let mut w = (a / size).floor() as usize;
    loop {
        let (lo, hi) = (w as f64 * size, (w + 1) as f64 * size);
        if lo >= b {
            break;
        }
        each(w, b.min(hi) - a.max(lo));
        w += 1;
    }
}

impl PageMethod for Dsc {
    const METHOD: Method = Method::Dsc;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let mut shares = Vec::new();
        self.text_shares(page, &mut shares);
        out.clear();
        out.extend(
            facts
                .iter()
                .zip(&shares)
                .map(|(f, &share)| verdict(f, share > 0.5, Reason::CodeDense)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::bte::Bte;
    use crate::tree::classic::fixtures::kept;

    /// Two stories separated by a long menu: BTE's one region and DSC's windows.
    const TWO_STORIES: &str = r#"<html><body>
<p>The first story tells of the harbour, reopened on Monday after three months of repairs to the sea wall that the January storm had breached, and of the fishing boats back at their moorings.</p>
<ul><li><a href="/1">One</a></li><li><a href="/2">Two</a></li><li><a href="/3">Three</a></li><li><a href="/4">Four</a></li><li><a href="/5">Five</a></li><li><a href="/6">Six</a></li><li><a href="/7">Seven</a></li><li><a href="/8">Eight</a></li></ul>
<p>The second story tells of the market, moved to the quay for the summer while the square is repaved, and of the traders who hope the visitors will follow them down to the water.</p>
</body></html>"#;

    #[test]
    fn windows_find_every_text_region_where_bte_finds_one() {
        let dsc = kept(&Dsc::default(), TWO_STORIES);
        assert_eq!(dsc.len(), 2, "{dsc:?}");
        assert!(dsc[0].starts_with("The first story") && dsc[1].starts_with("The second story"));
        // BTE's one region either spans the menu or leaves a story out.
        let bte = kept(&Bte, TWO_STORIES);
        assert!(bte.len() == 1 || bte.len() == 10, "{bte:?}");
    }

    #[test]
    fn overlaps_cover_the_interval() {
        let mut seen = Vec::new();
        for_each_overlap(15.0, 47.0, 20.0, |w, o| seen.push((w, o)));
        assert_eq!(seen, [(0, 5.0), (1, 20.0), (2, 7.0)]);
    }
}
