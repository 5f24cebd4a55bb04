//! The **classify** stage: the page's blocks and the tree's evidence as the classifier's facts,
//! and one reason per block from the configured [`Classifier`].

use super::lookup::Evidence;
use crate::blocks::{Block, PageStats};
use crate::tree::classic::link_template::Linked;
use crate::tree::kind::{Kind, Layout};
use crate::tree::{BlockFacts, Classifier, NodeFacts, Page, Reason};

/// What the classifier is told of each block, in block order; `title` is the page's title.
pub(super) fn facts<'b>(
    blocks: &'b [Block],
    evidence: &Evidence,
    title: Option<&str>,
) -> Vec<BlockFacts<'b>> {
    let mut title_words = String::new();
    words_into(title.unwrap_or_default(), &mut title_words);
    let mut heading = String::new();
    blocks
        .iter()
        .zip(&evidence.counts)
        .zip(&evidence.path_counts)
        .map(|((b, &count), &path_count)| {
            let mut facts = BlockFacts::of(b, count, path_count);
            // A heading longer than the title cannot be named by it.
            facts.titled = facts.heading
                && !title_words.is_empty()
                && b.text.len() <= 4 * title_words.len()
                && {
                    words_into(&b.text, &mut heading);
                    !heading.is_empty() && contains_words(&title_words, &heading)
                };
            facts
        })
        .collect()
}

/// The words of `text` into `out` (cleared first): runs of letters and digits, lower-cased, each
/// followed by a space.
fn words_into(text: &str, out: &mut String) {
    out.clear();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if word.is_ascii() {
            out.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            out.extend(word.chars().flat_map(char::to_lowercase));
        }
        out.push(' ');
    }
}

/// True when `inner`'s words (see [`words_into`]) appear in `outer`'s, in order and adjacent.
fn contains_words(outer: &str, inner: &str) -> bool {
    outer
        .match_indices(inner)
        .any(|(i, _)| i == 0 || outer.as_bytes()[i - 1] == b' ')
}

/// One reason per block, in block order, for a page of `html_bytes` bytes whose tokenizer facts
/// are `stats`, with what its mutually linked pages say of it (`link-template`) and the kind it
/// declares its main entity to be, whether its URL files it as documentation and whether it
/// declares a thread, and how the classifier found the main content laid out.
pub(super) fn classify(
    classifier: &dyn Classifier,
    blocks: &[Block],
    (html_bytes, stats, linked, declared, documentation_url, thread): (
        usize,
        PageStats,
        Option<&Linked>,
        Option<Kind>,
        bool,
        bool,
    ),
    evidence: &Evidence,
    title: Option<&str>,
) -> (Vec<Reason>, Layout) {
    let mut reasons = Vec::with_capacity(blocks.len());
    let layout = classifier.classify_page(
        &Page {
            linked,
            declared,
            documentation_url,
            thread,
            ..Page::new(blocks, html_bytes, stats)
        },
        &facts(blocks, evidence, title),
        NodeFacts {
            support: evidence.choice.support,
            c_max: evidence.choice.c_max,
            path_support: evidence.path_support,
        },
        &mut reasons,
    );
    (reasons, layout)
}

#[cfg(test)]
mod tests {
    use super::{contains_words, words_into};

    fn words(text: &str) -> String {
        let mut out = String::new();
        words_into(text, &mut out);
        out
    }

    #[test]
    fn a_heading_is_named_by_the_title_when_its_words_are_there_in_order() {
        let title = words("Folding a Paper-Crane | Crafty Notes");
        assert_eq!(title, "folding a paper crane crafty notes ");
        for (heading, named) in [
            ("Folding a paper crane", true),
            ("CRAFTY NOTES", true),
            ("Paper crane", true),
            ("crane folding", false),
            ("otes", false),
            ("Crafty Notes 2", false),
        ] {
            assert_eq!(contains_words(&title, &words(heading)), named, "{heading}");
        }
        assert_eq!(words("Ünïcode — Straße"), "ünïcode straße ");
    }
}
