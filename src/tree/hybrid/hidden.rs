//! Hidden elements (readability's visibility test, `_isProbablyVisible`: an element that is
//! `display: none`, `visibility: hidden` or has the `hidden` attribute is no candidate for the
//! text): a block inside an element whose markup says a browser does not render it is not part
//! of the page a reader sees. The class names that the common style sheets define as hidden
//! (Bootstrap's `hidden`, `d-none`, `sr-only`, WordPress's `screen-reader-text`, ...) say the
//! same. What pages hide is mostly a copy of their own text for machines (a schema.org block
//! repeating the headline, the author and the whole article body), a dialog or menu opened on a
//! click, a comment form's messages, collapsed comments, the labels of screen readers. Neither
//! the tree nor the page's structure can tell such a copy from the text: it is unique at the
//! page's node and often sits beside the article in the main subtree, where it doubles the text.
//!
//! Hidden text is dropped before the other page rules, and the main subtree does not weigh it
//! either way: it says nothing of where the text a reader sees is. A page that shows less than
//! two sentences (its text wrapped whole in a hidden element, revealed by a script) is not
//! trusted: there the hidden text is the page's. A tab panel (WAI-ARIA `role=tabpanel`) is never
//! hidden: it waits for its tab, and what it holds is shown to a reader who chooses it.

use super::markup::MIN_MARKED_MAIN;
use crate::tree::{BlockFacts, Reason};

/// Drops the still-unique blocks inside hidden elements, unless the page's still-unique visible
/// text is shorter than [`MIN_MARKED_MAIN`] characters.
pub fn drop_hidden(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let (mut hidden, mut shown) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if *reason == Reason::Unique {
            if block.hidden {
                hidden += u64::from(block.chars);
            } else {
                shown += u64::from(block.chars);
            }
        }
    }
    if hidden == 0 || shown < MIN_MARKED_MAIN {
        return;
    }
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if *reason == Reason::Unique && block.hidden {
            *reason = Reason::Hidden;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::judge;
    use super::super::Rules;
    use crate::tree::Reason;

    const PARAGRAPHS: [&str; 3] = [
        "Retiring early takes time and incredible discipline, and it starts with a number.",
        "If you plan to retire early, aim to have at least twenty-five times your annual \
         spending saved before you leave your job.",
        "Live below your means, raise your income, and invest the difference every month.",
    ];

    #[test]
    fn a_hidden_copy_of_the_article_is_dropped() {
        // A news page with its article, and beside it in the same container the schema.org
        // block the site hides for machines: the headline, the author and the whole body again.
        let [a, b, c] = PARAGRAPHS;
        let html = format!(
            r#"<html><body><div id="content"><h1>How to retire early</h1>
<div class="post"><p>{a}</p><p>{b}</p><p>{c}</p></div>
<div style="display: none;" itemscope itemtype="http://schema.org/NewsArticle">
<div itemprop="headline">How to retire early</div>
<div itemprop="author">Tanza Loudenback</div>
<div itemprop="description">{a} {b} {c}</div></div>
<div class="share"><a href="/s">Share</a></div></div></body></html>"#
        );
        let (kept, reasons) = judge(&html, Rules::default());
        assert_eq!(kept, ["How to retire early", a, b, c]);
        assert_eq!(reasons.iter().filter(|r| **r == Reason::Hidden).count(), 3);
        // Switched off, the copy is kept with the text it repeats.
        let off = Rules::default().without("hidden").unwrap();
        let (kept, _) = judge(&html, off);
        assert!(
            kept.iter().any(|t| t.starts_with(&format!("{a} {b}"))),
            "{kept:?}"
        );
    }

    #[test]
    fn hidden_attributes_and_classes_hide_but_collapsed_text_stays() {
        // A post, a dialog opened on a click (`hidden`), a heading for screen readers, a comment
        // form's message (`visibility: hidden`), and a section collapsed until a reader's search
        // finds it (`hidden=until-found`), which is shown text.
        let [a, b, c] = PARAGRAPHS;
        let html = format!(
            r#"<html><body><article><p>{a}</p><p>{b}</p>
<div hidden><p>Sign in to save this article to your reading list.</p></div>
<h2 class="screen-reader-text">Post navigation</h2>
<div hidden="until-found"><p>{c}</p></div>
<p STYLE="Visibility : Hidden">Your comment could not be posted.</p>
</article></body></html>"#
        );
        let (kept, _) = judge(&html, Rules::default());
        assert_eq!(kept, [a, b, c]);
    }

    #[test]
    fn a_page_that_hides_its_text_whole_is_not_trusted() {
        // The text is wrapped in a hidden element that a script reveals; the page shows only a
        // short notice: the hidden text is the page's.
        let [a, b, c] = PARAGRAPHS;
        let html = format!(
            r#"<html><body><p>Loading</p><div id="app" style="display:none">
<p>{a}</p><p>{b}</p><p>{c}</p></div></body></html>"#
        );
        let (kept, reasons) = judge(&html, Rules::default());
        assert!(!reasons.contains(&Reason::Hidden));
        assert_eq!(kept, [a, b, c]);
        // So is a page whose body itself is hidden until its script runs.
        let body = format!(
            r#"<html><body style="display:none"><p>{a}</p><p>{b}</p><p>{c}</p></body></html>"#
        );
        assert_eq!(judge(&body, Rules::default()).0, [a, b, c]);
    }

    #[test]
    fn tab_panels_are_shown_text() {
        // A landing page whose features sit in tab panels, each hidden until its tab is chosen:
        // the panels' text is the page's (WCXB's phrases of its main text lie in them).
        let url = "https://www.netlify.com/";
        let pages = super::super::fixtures::corpus_pages("wcxb-dev", &[url]);
        let (html, _, snippets) = &pages[0];
        let (with, leaked) =
            super::super::fixtures::phrases_found(html, snippets, Rules::default());
        assert!(
            with >= 3 && leaked == 0,
            "{with} of {} phrases, {leaked} leaked",
            snippets.with.len()
        );
    }
}
