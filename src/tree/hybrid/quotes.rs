//! Quotations of the page's own text: a reply on a forum quotes the post it answers, which the
//! thread already shows above it. The reader reads that post once, where it was written; its copy
//! in the reply is the reply's frame, not new text. A quotation of anything the page does not
//! show otherwise (a source, a letter, a law's wording, an errata's corrections quoted alike under
//! each entry) stays.

use std::collections::HashSet;

use crate::blocks::BlockHash;
use crate::tree::{BlockFacts, Label, Reason};

/// True when the block lies in a `<blockquote>`.
fn quoted(block: &BlockFacts<'_>) -> bool {
    block.in_element("blockquote")
}

/// Drops each kept block inside a `<blockquote>` whose words a kept block outside any quotation
/// already shows earlier on the page (same identity, [`BlockFacts::hash`]): the copy a reply
/// makes of the post it quotes. Runs last, on the page's final verdicts, so that only text the
/// page keeps counts as shown; a block quoted again is dropped again, and a quotation whose
/// original the page drops (a summary in the page's frame) keeps its text.
pub fn drop_quoted_copies(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    if !blocks.iter().any(quoted) {
        return;
    }
    let mut shown: HashSet<BlockHash> = HashSet::new();
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        let Some(hash) = block.hash else { continue };
        if reason.label() != Label::Content {
            continue;
        }
        if !quoted(block) {
            shown.insert(hash);
        } else if shown.contains(&hash) {
            *reason = Reason::Repeated;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{assert_most_phrases_found, corpus_pages, judge};
    use super::super::Rules;

    const POST: &str = "I am making an English course for a car rental company and cannot decide \
                        between two names for it; which of them sounds more natural to you?";

    fn thread(quote: &str) -> String {
        format!(
            "<html><body><nav><a href=/>Forums</a> <a href=/new>New posts</a></nav><main>\
             <h1>Car rental or car rent?</h1>\
             <article><div class=author>tomas</div><div class=body><p>{POST}</p></div></article>\
             <article><div class=author>ann</div><div class=body><blockquote>\
             <div>tomas said:</div><p>{quote}</p></blockquote>\
             <p>I would say English for car rental businesses, since the course is for the \
             people who work there rather than for the cars themselves.</p></div></article>\
             <article><div class=author>bob</div><div class=body><p>In Canada such firms are \
             listed as automobile rental agencies, and hire is what British speakers say.</p>\
             </div></article></main></body></html>"
        )
    }

    #[test]
    fn a_reply_quoting_a_post_of_the_thread_drops_the_copy() {
        let (kept, _) = judge(&thread(POST), Rules::default());
        assert_eq!(kept.iter().filter(|t| *t == POST).count(), 1, "{kept:?}");
        assert!(
            kept.iter().any(|t| t.starts_with("I would say")),
            "{kept:?}"
        );
        // Without the rule the post is kept twice.
        let off = Rules::default().without("quoted_copies").unwrap();
        let (kept, _) = judge(&thread(POST), off);
        assert_eq!(kept.iter().filter(|t| *t == POST).count(), 2, "{kept:?}");
    }

    #[test]
    fn a_quotation_the_page_shows_nowhere_else_stays() {
        let source = "The developers describe the content like this: the course teaches the words \
                      a clerk needs at the counter, from the booking to the return of the keys.";
        let (kept, _) = judge(&thread(source), Rules::default());
        assert!(kept.iter().any(|t| t == source), "{kept:?}");
        // An errata quoting the same correction under each entry: every copy is in a quotation.
        let fix = "It should read: the credit applies to members of the armed forces serving \
                   outside the state for the whole of the taxable year.";
        let page = format!(
            "<html><body><main><h1>Updates to our publications</h1>\
             <h2>Publication 1001</h2><p>Page 2 of the guide misstates the credit.</p>\
             <blockquote><p>{fix}</p></blockquote>\
             <h2>Publication 1032</h2><p>Page 7 of the guide repeats the same error.</p>\
             <blockquote><p>{fix}</p></blockquote></main></body></html>"
        );
        let (kept, _) = judge(&page, Rules::default());
        assert_eq!(kept.iter().filter(|t| *t == fix).count(), 2, "{kept:?}");
    }

    #[test]
    fn real_threads_quoting_their_posts_keep_the_replies() {
        // XenForo's and Invision's threads quote the post a reply answers in a `<blockquote>`;
        // the phrases WCXB's annotators marked in each thread are found.
        assert_most_phrases_found(
            "wcxb-dev",
            &[
                "https://www.usingenglish.com/forum/threads/car-rental-or-car-rent.115684/",
                "https://www.head-fi.org/threads/best-closed-headphones-as-of-07-2024.973407/",
            ],
        );
        let pages = corpus_pages(
            "wcxb-dev",
            &["https://www.usingenglish.com/forum/threads/car-rental-or-car-rent.115684/"],
        );
        let (html, _, _) = &pages[0];
        let (kept, _) = judge(html, Rules::default());
        let opening = kept
            .iter()
            .filter(|t| t.starts_with("my name is Tomas"))
            .count();
        assert_eq!(opening, 1, "{kept:?}");
    }
}
