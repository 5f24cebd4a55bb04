//! Per-page quality: precision, recall and F1 of extracted text against the gold main text, on
//! the longest common subsequence of word tokens, plus the bag-of-words F1 and, after Gottron
//! (2008), the F1 of the longest common subsequence of characters and of the sets of words.

use serde::{Deserialize, Serialize};

use super::lcs::lcs_len;
use super::tokens::{lower, word_runs, Interner};

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
    /// F1 on the longest common subsequence of characters: those of the word tokens,
    /// lower-cased, one space between words (so white space and punctuation are not compared).
    #[serde(default)]
    pub f1_chars: f64,
    /// F1 of the overlap of the sets of distinct tokens (order and repetition ignored).
    #[serde(default)]
    pub f1_set: f64,
    /// Number of word tokens of the extracted text.
    pub extracted_tokens: usize,
    /// Number of word tokens of the gold text.
    pub gold_tokens: usize,
}

/// Scores `extracted` against `gold` on their word tokens (see `tokens::word_tokens`) and their
/// characters.
pub fn score_page(extracted: &str, gold: &str) -> PageScore {
    let mut interner = Interner::new();
    let e = interner.tokenize(extracted);
    let g = interner.tokenize(gold);
    let mut score = score_ids(&e, &g);
    let (ce, cg) = (word_chars(extracted), word_chars(gold));
    score.f1_chars = ratios(lcs_len(&ce, &cg), ce.len(), cg.len()).2;
    score
}

/// The characters of the word tokens of `text`, lower-cased, with one space between words, as
/// code points.
fn word_chars(text: &str) -> Vec<u32> {
    let mut chars = Vec::with_capacity(text.len());
    for run in word_runs(text) {
        if !chars.is_empty() {
            chars.push(u32::from(' '));
        }
        chars.extend(lower(run).chars().map(u32::from));
    }
    chars
}

/// Scores two token-id sequences made by one shared interner (equal ids = equal tokens) on the
/// word measures. The character measure needs the texts ([`score_page`]): here `f1_chars` is
/// that of the sequences of ids, the word-LCS F1.
pub fn score_ids(extracted: &[u32], gold: &[u32]) -> PageScore {
    let (precision, recall, f1) = ratios(lcs_len(extracted, gold), extracted.len(), gold.len());
    let (_, _, f1_bow) = ratios(
        multiset_overlap(extracted, gold),
        extracted.len(),
        gold.len(),
    );
    let (e, g) = (distinct(extracted), distinct(gold));
    let (_, _, f1_set) = ratios(multiset_overlap(&e, &g), e.len(), g.len());
    PageScore {
        precision,
        recall,
        f1,
        f1_bow,
        f1_chars: f1,
        f1_set,
        extracted_tokens: extracted.len(),
        gold_tokens: gold.len(),
    }
}

/// The distinct ids of `ids`, sorted.
fn distinct(ids: &[u32]) -> Vec<u32> {
    let mut set = ids.to_vec();
    set.sort_unstable();
    set.dedup();
    set
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
    fn characters_and_sets_hand_computed() {
        // Characters: "cats sat" against "the cat sat" (8 and 11): LCS "cat sat" = 7.
        let s = score_page("Cats, sat!", "the cat sat");
        assert!(close(s.f1_chars, 2.0 * 7.0 / (8.0 + 11.0)));
        // Sets: {a, b} against {a, c}: one shared of two each, whatever the repetitions.
        let s = score_page("a a a b", "a c c");
        assert!(close(s.f1_set, 0.5));
        assert!(close(
            s.f1_bow,
            2.0 * (1.0 / 4.0) * (1.0 / 3.0) / (1.0 / 4.0 + 1.0 / 3.0)
        ));
        // A word split in two differs by one space: near 1 on characters, 0 on words.
        let s = score_page("data base", "database");
        assert!(s.f1_chars > 0.9 && s.f1 == 0.0);
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
        assert_eq!((both.f1_chars, both.f1_set), (1.0, 1.0));
        for (e, g) in [("", "gold text"), ("some output", "!!!")] {
            let s = score_page(e, g);
            assert_eq!(
                (s.precision, s.recall, s.f1, s.f1_bow),
                (0.0, 0.0, 0.0, 0.0)
            );
            assert_eq!((s.f1_chars, s.f1_set), (0.0, 0.0));
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
        assert_eq!((s.f1_chars, s.f1_set), (1.0, 1.0));
    }
}
