//! Snippet checks (WCXB's `with` / `without` lists): phrases a page's extracted text must contain
//! (sentences of its main text) and must not contain (its navigation, banners, legal lines). A
//! check that catches what an aggregate F1 hides: a lost paragraph, a menu left in.
//!
//! A phrase is found when it occurs in the text, both lower-cased and with every run of white
//! space read as one space: the extracted text joins blocks with blank lines, where the gold's
//! phrase may cross a block boundary with one space (WCXB's own scorer compares lower-cased text
//! only).

use serde::{Deserialize, Serialize};

/// The phrases a corpus gives for one page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippets {
    /// Phrases the main text holds: each should be found in the extracted text.
    pub with: Vec<String>,
    /// Phrases of the page outside its main text: none should be found.
    pub without: Vec<String>,
}

impl Snippets {
    /// True when there is no phrase to check.
    pub fn is_empty(&self) -> bool {
        self.with.is_empty() && self.without.is_empty()
    }

    /// Checks `text` against the phrases.
    pub fn check(&self, text: &str) -> SnippetCheck {
        let text = normalize(text);
        let found = |phrases: &[String]| {
            phrases
                .iter()
                .filter(|p| {
                    let p = normalize(p);
                    !p.is_empty() && text.contains(&p)
                })
                .count()
        };
        SnippetCheck {
            with_found: found(&self.with),
            with_total: self.with.len(),
            without_found: found(&self.without),
            without_total: self.without.len(),
        }
    }
}

/// Lower-cased, white space runs collapsed to one space, trimmed.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The outcome of the checks on one page, or their sums over many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetCheck {
    /// Must-contain phrases found (passed).
    pub with_found: usize,
    /// Must-contain phrases checked.
    pub with_total: usize,
    /// Must-not-contain phrases found (failed).
    pub without_found: usize,
    /// Must-not-contain phrases checked.
    pub without_total: usize,
}

impl SnippetCheck {
    /// Adds another page's checks.
    pub fn add(&mut self, other: &SnippetCheck) {
        self.with_found += other.with_found;
        self.with_total += other.with_total;
        self.without_found += other.without_found;
        self.without_total += other.without_total;
    }

    /// Must-not-contain phrases absent from the text (passed).
    pub fn without_passed(&self) -> usize {
        self.without_total - self.without_found.min(self.without_total)
    }

    /// `passed/total` of both lists, as a report line shows them.
    pub fn describe(&self) -> String {
        let pct = |n: usize, d: usize| {
            if d == 0 {
                "-".to_owned()
            } else {
                format!("{:.1}%", 100.0 * n as f64 / d as f64)
            }
        };
        format!(
            "must contain {}/{} ({}), must not contain {}/{} ({})",
            self.with_found,
            self.with_total,
            pct(self.with_found, self.with_total),
            self.without_passed(),
            self.without_total,
            pct(self.without_passed(), self.without_total)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snippets(with: &[&str], without: &[&str]) -> Snippets {
        Snippets {
            with: with.iter().map(|s| s.to_string()).collect(),
            without: without.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn phrases_match_across_case_and_block_boundaries() {
        let text = "Go 1.26 is released\n\nGo 1.26 adds a new   garbage collector.\n\nShare";
        let s = snippets(
            &[
                "go 1.26 is released Go 1.26 adds",
                "A NEW GARBAGE COLLECTOR",
                "Green Tea",
            ],
            &["Skip to Main Content", "share"],
        );
        let c = s.check(text);
        assert_eq!((c.with_found, c.with_total), (2, 3));
        assert_eq!((c.without_found, c.without_total), (1, 2));
        assert_eq!(c.without_passed(), 1);
        assert_eq!(
            c.describe(),
            "must contain 2/3 (66.7%), must not contain 1/2 (50.0%)"
        );
    }

    #[test]
    fn an_empty_phrase_is_never_found_and_sums_add_up() {
        let s = snippets(&["", " "], &[""]);
        let c = s.check("anything");
        assert_eq!(c.with_found + c.without_found, 0);
        let mut sum = c;
        sum.add(&snippets(&["any"], &[]).check("anything"));
        assert_eq!((sum.with_found, sum.with_total), (1, 3));
        assert_eq!(
            SnippetCheck::default().describe(),
            "must contain 0/0 (-), must not contain 0/0 (-)"
        );
    }
}
