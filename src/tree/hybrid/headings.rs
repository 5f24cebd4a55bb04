//! Headings that are links. A listing's headline is a link to its story (`<h3><a
//! href=/story>…</a></h3>` over the story's summary), a documentation page's section heading is
//! a link to itself (`<h2><a href="#slices">Slices</a></h2>`): all of such a heading's text is
//! link text, so it reads as navigation. But a heading names the text that follows it (HTML's
//! sectioning: a heading heads the content after it in its section); where that text is kept,
//! its heading is part of it, whatever it links to.

use crate::tree::{BlockFacts, Label, Reason};

/// True when `next` follows `heading` inside the heading's parent element: the heading heads it.
fn heads(heading: &BlockFacts<'_>, next: &BlockFacts<'_>) -> bool {
    // The heading's innermost ancestor is the heading element; the one around it is its parent.
    let [.., parent, _] = heading.ancestors else {
        return false;
    };
    next.ancestors.contains(parent)
}

/// Keeps each link-dense heading whose next block is kept text in the same parent element and
/// not itself a heading; the heading takes that block's verdict. Runs on the page's final
/// verdicts: only text the page keeps carries its heading, so a menu's headings over dropped
/// links stay dropped, and a heading over another heading (a section's title over a teaser's)
/// is judged by what the page keeps of the section.
pub fn keep_linked_headings(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    for i in 1..blocks.len() {
        let (heading, next) = (&blocks[i - 1], &blocks[i]);
        if out[i - 1] == Reason::LinkDense
            && heading.heading
            && !next.heading
            && out[i].label() == Label::Content
            && heads(heading, next)
        {
            out[i - 1] = out[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{assert_rule_pays_on, judge};
    use super::super::Rules;

    const PAGE: &str = "<html><body><nav><h3><a href=/topics>Topics</a></h3>\
        <ul><li><a href=/science>Science</a></li><li><a href=/economy>Economy</a></li></ul></nav>\
        <main><h1>Economy</h1>\
        <article><h2><a href=/gold-licence>A licence for gold follows the talks</a></h2>\
        <p>The licence follows a push from the president to reopen the trade, and the first \
        shipments are expected before the end of the month, officials said on Tuesday.</p>\
        </article>\
        <article><h2><a href=/flights>Tens of thousands scramble for flights out of the city</a>\
        </h2><p>Wealthy travellers are paying large sums to charter planes as the airport's \
        schedule shrinks and the airlines cancel routes for the rest of the season.</p>\
        </article>\
        <article><h2><a href=/tariffs>States sue to stop the latest global tariffs</a></h2>\
        <p>The lawsuit asks a court to stop the ten percent tariffs that the government put in \
        place last week, arguing that the law it cites does not allow them.</p></article>\
        </main></body></html>";

    #[test]
    fn a_kept_summarys_linked_headline_is_kept_and_a_menus_heading_is_not() {
        let (kept, _) = judge(PAGE, Rules::default());
        for text in [
            "A licence for gold follows the talks",
            "Tens of thousands scramble for flights out of the city",
            "States sue to stop the latest global tariffs",
        ] {
            assert!(kept.iter().any(|t| t == text), "{text}: {kept:?}");
        }
        assert!(!kept.iter().any(|t| t == "Topics"), "{kept:?}");
        let off = Rules::default().without("linked_headings").unwrap();
        let (kept, _) = judge(PAGE, off);
        assert!(
            !kept
                .iter()
                .any(|t| t == "A licence for gold follows the talks"),
            "{kept:?}"
        );
    }

    #[test]
    fn real_pages_keep_their_linked_headings() {
        // Al Jazeera's economy front page and MIT News's software topic: each story a linked
        // headline over its summary.
        assert_rule_pays_on(
            &[
                "https://www.aljazeera.com/economy/",
                "https://news.mit.edu/topic/software",
            ],
            "linked_headings",
        );
    }
}
