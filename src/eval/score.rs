//! Per-page quality: precision, recall and F1 of extracted text against the gold main text, on
//! the longest common subsequence of word tokens, plus the bag-of-words F1.

use serde::{Deserialize, Serialize};

use super::lcs::lcs_len;
use super::tokens::Interner;

/// The quality of one page. All ratios are finite and in `0..=1`; when both texts have no token
/// all of them are 1, when exactly one has none they are 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PageScore {
    /// LCS / extracted tokens.
    pub precision: f64,
    /// LCS / gold tokens.
    pub recall: f64,
    /// Harmonic mean of `precision` and `recall` (0 when both are 0).
    pub f1: f64,
    /// F1 of the multiset overlap of the tokens (order ignored).
    pub f1_bow: f64,
    /// Number of word tokens of the extracted text.
    pub extracted_tokens: usize,
    /// Number of word tokens of the gold text.
    pub gold_tokens: usize,
}

/// Scores `extracted` against `gold` on their word tokens (see `tokens::word_tokens`).
pub fn score_page(extracted: &str, gold: &str) -> PageScore {
    let mut interner = Interner::new();
    let e = interner.tokenize(extracted);
    let g = interner.tokenize(gold);
    score_ids(&e, &g)
}

/// Scores two token-id sequences made by one shared interner (equal ids = equal tokens).
pub fn score_ids(extracted: &[u32], gold: &[u32]) -> PageScore {
    let (precision, recall, f1) = ratios(lcs_len(extracted, gold), extracted.len(), gold.len());
    let (_, _, f1_bow) = ratios(
        multiset_overlap(extracted, gold),
        extracted.len(),
        gold.len(),
    );
    PageScore {
        precision,
        recall,
        f1,
        f1_bow,
        extracted_tokens: extracted.len(),
        gold_tokens: gold.len(),
    }
}

/// Precision, recall and F1 of `common` shared tokens, with the empty-text rules.
fn ratios(common: usize, extracted: usize, gold: usize) -> (f64, f64, f64) {
    match (extracted, gold) {
        (0, 0) => (1.0, 1.0, 1.0),
        (0, _) | (_, 0) => (0.0, 0.0, 0.0),
        _ => {
            let p = common as f64 / extracted as f64;
            let r = common as f64 / gold as f64;
            let f1 = if common == 0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            };
            (p, r, f1)
        }
    }
}

/// Σ over tokens of min(count in `a`, count in `b`).
fn multiset_overlap(a: &[u32], b: &[u32]) -> usize {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j, mut common) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn partial_overlap_hand_computed() {
        // E = the cat sat on the mat (6), G = the cat on a mat (5); LCS = the cat on mat (4).
        let s = score_page("The cat sat on the mat.", "the CAT on a mat");
        assert_eq!((s.extracted_tokens, s.gold_tokens), (6, 5));
        assert!(close(s.precision, 4.0 / 6.0));
        assert!(close(s.recall, 4.0 / 5.0));
        assert!(close(s.f1, 16.0 / 22.0));
        // Multiset overlap: the, cat, on, mat = 4, so the same F1.
        assert!(close(s.f1_bow, 16.0 / 22.0));
    }

    #[test]
    fn order_matters_for_lcs_not_for_bag_of_words() {
        let s = score_page("mat on cat the", "the cat on mat");
        assert!(close(s.precision, 0.25));
        assert!(close(s.recall, 0.25));
        assert!(close(s.f1, 0.25));
        assert!(close(s.f1_bow, 1.0));
    }

    #[test]
    fn repeated_tokens_count_by_multiplicity() {
        // E = a a a b (4), G = a b b (3): LCS "a b" = 2; multiset overlap a:1 + b:1 = 2.
        let s = score_page("a a a b", "a b b");
        assert!(close(s.precision, 0.5));
        assert!(close(s.recall, 2.0 / 3.0));
        assert!(close(s.f1, 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)));
        assert!(close(s.f1_bow, s.f1));
    }

    #[test]
    fn empty_rules() {
        let both = score_page("", " -- ... ");
        assert_eq!(
            (both.precision, both.recall, both.f1, both.f1_bow),
            (1.0, 1.0, 1.0, 1.0)
        );
        for (e, g) in [("", "gold text"), ("some output", "!!!")] {
            let s = score_page(e, g);
            assert_eq!(
                (s.precision, s.recall, s.f1, s.f1_bow),
                (0.0, 0.0, 0.0, 0.0)
            );
        }
        let disjoint = score_page("alpha beta", "gamma");
        assert_eq!((disjoint.f1, disjoint.f1_bow), (0.0, 0.0));
    }

    #[test]
    fn identical_text_scores_one_whatever_the_punctuation() {
        let s = score_page("Hello,   world!\n\nBye.", "hello world bye");
        assert_eq!(
            (s.precision, s.recall, s.f1, s.f1_bow),
            (1.0, 1.0, 1.0, 1.0)
        );
    }
}
