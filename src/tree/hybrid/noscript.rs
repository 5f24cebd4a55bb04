//! Notices to a client without scripts: a `<noscript>` is rendered only where scripting is off,
//! so a reader's browser never shows it. The tokenizer reads it as a crawler without scripts
//! renders it ([`crate::blocks`]), because some pages serve their text there (Discourse's view
//! for crawlers holds the whole thread); most `<noscript>`s hold a line instead: "You need to
//! enable JavaScript to run this app." (a scripted app's shell, whose page has no other text),
//! "Please turn on JavaScript. Media requires JavaScript to play." beside a story's video,
//! "Please enable JavaScript to view the comments", a captcha's fallback. A `<noscript>` holding
//! less than [`MIN_MARKED_MAIN`] characters, two sentences, is such a notice: its still-unique
//! blocks are dropped as hidden. One that holds more is the page served to a client without
//! scripts, and the other rules judge it.

use super::markup::MIN_MARKED_MAIN;
use crate::tree::{BlockFacts, Reason};

/// The ordinal of the outermost `<noscript>` around `block`, if any.
pub(super) fn noscript(block: &BlockFacts<'_>) -> Option<u32> {
    if !block.path.contains("noscript") {
        return None;
    }
    block
        .tagged_ancestors()
        .find(|(tag, _)| *tag == "noscript")
        .map(|(_, e)| e)
}

/// Drops as hidden the still-unique blocks of each `<noscript>` whose blocks hold less than
/// [`MIN_MARKED_MAIN`] characters in all.
pub fn drop_notices(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    // An element's blocks follow one another: one run per `<noscript>`.
    let mut start = 0;
    while start < blocks.len() {
        let Some(element) = noscript(&blocks[start]) else {
            start += 1;
            continue;
        };
        let end = start
            + blocks[start..]
                .iter()
                .take_while(|b| noscript(b) == Some(element))
                .count();
        let chars: u64 = blocks[start..end].iter().map(|b| u64::from(b.chars)).sum();
        if chars < MIN_MARKED_MAIN {
            for reason in &mut out[start..end] {
                if *reason == Reason::Unique {
                    *reason = Reason::Hidden;
                }
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{corpus_pages, judge_page};
    use super::super::Rules;

    const STORY: &str = "<p>The council voted on Tuesday to close the old bridge to cars from the \
        spring, after engineers found that two of its piers had moved since the floods.</p>\
        <p>Cyclists and people on foot will still cross it, and a ferry will run every half hour \
        until the new bridge opens downstream in three years.</p>";

    fn has(kept: &[String], start: &str) -> bool {
        kept.iter().any(|t| t.starts_with(start))
    }

    #[test]
    fn a_notice_to_turn_scripts_on_is_no_text() {
        let off = || {
            Rules::default()
                .without("noscript_notices")
                .expect("a rule")
        };
        // A scripted app's shell: the notice is its only text.
        let shell = "<html><body><noscript>You need to enable JavaScript to run this app.\
            </noscript><div id=\"root\"></div></body></html>";
        assert!(judge_page(shell, Rules::default()).is_empty());
        assert!(has(&judge_page(shell, off()), "You need to enable"));
        // A story's video placeholder: the story stays, the notice beside it goes.
        let story = format!(
            "<html><body><article><h1>The old bridge closes to cars</h1><figure><noscript>\
             <p>Please turn on JavaScript. Media requires JavaScript to play.</p></noscript>\
             </figure>{STORY}</article></body></html>"
        );
        let kept = judge_page(&story, Rules::default());
        assert!(has(&kept, "The council voted"), "{kept:?}");
        assert!(!has(&kept, "Please turn on"), "{kept:?}");
        assert!(has(&judge_page(&story, off()), "Please turn on"));
        // The page served whole to a client without scripts (a forum's view for crawlers).
        let served = format!(
            "<html><body><div id=\"app\"></div><noscript><h1>The old bridge closes to cars</h1>\
             {STORY}</noscript></body></html>"
        );
        let kept = judge_page(&served, Rules::default());
        assert!(has(&kept, "The council voted"), "{kept:?}");
        // A real shop's category served as an app's shell, whose gold is empty.
        let url = "https://www.express.com/clothing/women/clearance/cat1920001";
        let [(html, gold, _)] = <[_; 1]>::try_from(corpus_pages("wcxb-dev", &[url]))
            .unwrap_or_else(|_| panic!("{url}"));
        assert!(gold.trim().is_empty());
        assert!(judge_page(&html, Rules::default()).is_empty());
        assert!(!judge_page(&html, off()).is_empty());
    }
}
