//! Hidden elements (readability's visibility test, `_isProbablyVisible`: an element that is
//! `display: none`, `visibility: hidden` or has the `hidden` attribute is no candidate for the
//! text): a block inside an element whose markup says a browser does not render it is not part
//! of the page a reader sees. The class names that the common style sheets define as hidden
//! (Bootstrap's `hidden`, `d-none`, `sr-only`, WordPress's `screen-reader-text`, ...) say the
//! same, and so does a dialog (WAI-ARIA's `dialog` and `alertdialog`, `aria-modal=true`, a
//! `<dialog>` not `open`): it opens over the page, a cookie consent's preference centre or a
//! sign-up form, and is none of its text even when a crawler finds it open. What pages hide is
//! mostly a copy of their own text for machines (a schema.org block repeating the headline, the
//! author and the whole article body), a dialog or menu opened on a click, a comment form's
//! messages, collapsed comments, the labels of screen readers. Neither the tree nor the page's
//! structure can tell such a copy from the text: it is unique at the page's node and often sits
//! beside the article in the main subtree, where it doubles the text.
//!
//! Hidden text is dropped before the other page rules, and the main subtree does not weigh it
//! either way: it says nothing of where the text a reader sees is. A page that shows less than
//! two sentences (its text wrapped whole in a hidden element, revealed by a script) is not
//! trusted when it hides more than it shows: there the hidden text is the page's. A page that
//! hides less than its few shown words (a shop's item page served without the item, whose
//! hidden `<h1>` is the shop's name) keeps none of it. Nor is the element that hides the page's
//! `<h1>` with more text than the page shows (a store's app that reveals the product once its
//! check has run): a page does not hide its title, and what that element holds is the text a
//! reader sees once the page has loaded. A tab panel (WAI-ARIA `role=tabpanel`) is never
//! hidden: it waits for its tab, and what it holds is shown to a reader who chooses it.

use super::markup::MIN_MARKED_MAIN;
use super::units::own_chars;
use crate::tree::{BlockFacts, Reason};

/// Drops the still-unique blocks inside hidden elements, unless the page's still-unique visible
/// text is shorter than [`MIN_MARKED_MAIN`] characters and no longer than the hidden text.
pub fn drop_hidden(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let (mut hidden, mut shown) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if *reason == Reason::Unique {
            if block.hidden.is_some() {
                hidden += u64::from(block.chars);
            } else {
                shown += u64::from(block.chars);
            }
        }
    }
    if hidden == 0 || (shown < MIN_MARKED_MAIN && hidden >= shown) {
        return;
    }
    let revealed = revealed_text(blocks, out);
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if *reason == Reason::Unique && block.hidden.is_some() && block.hidden != revealed {
            *reason = Reason::Hidden;
        }
    }
}

/// The hidden element that wraps the page's text for a script to reveal, if there is one: it
/// holds the page's `<h1>` (around the heading, not the heading itself: a title for screen
/// readers is hidden by its own class) and at least [`MIN_MARKED_MAIN`] characters of text
/// beside it outside links, and the page shows no `<h1>` of its own. A store's app that shows
/// the product once its check has run, a framework that hydrates the page before it shows it:
/// what the reader sees is that text, and a page does not hide its title.
fn revealed_text(blocks: &[BlockFacts<'_>], out: &[Reason]) -> Option<u32> {
    if blocks.iter().any(|b| b.h1 && b.hidden.is_none()) {
        return None;
    }
    let shown: u64 = blocks
        .iter()
        .zip(out)
        .filter(|(b, r)| **r == Reason::Unique && b.hidden.is_none())
        .map(|(b, _)| own_chars(b))
        .sum();
    let held = |e: u32| {
        blocks
            .iter()
            .zip(out)
            .filter(|(b, r)| **r == Reason::Unique && !b.h1 && b.hidden == Some(e))
            .map(|(b, _)| own_chars(b))
            .sum::<u64>()
    };
    blocks
        .iter()
        .filter(|b| b.h1)
        .filter_map(|b| b.hidden.filter(|e| b.ancestors.last() != Some(e)))
        .find(|&e| {
            let held = held(e);
            held >= MIN_MARKED_MAIN && held > shown
        })
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
    fn a_page_that_hides_its_title_and_text_until_a_script_runs_shows_them() {
        // A store's product page: its menu and footer shown, the product (its `<h1>` and
        // description) in a wrapper a script reveals, and a newsletter dialog hidden beside it.
        let [a, b, c] = PARAGRAPHS;
        let frame = "<nav><ul><li><a href=/a>Coffee</a></li><li><a href=/b>Merch</a></li></ul>\
                     </nav><p>Free shipping on every order of two bags or more this month.</p>";
        let html = format!(
            r#"<html><body>{frame}<main><div class="lockdown" style="display:none">
<h1>Dark Roast Coffee</h1><div class="description"><p>{a}</p><p>{b}</p><p>{c}</p></div></div>
</main><div class="modal" hidden><p>Sign up for our newsletter to hear of new roasts first.</p>
</div><footer><p>We roast every bag to order in our own roastery in the northern valleys, and
ship it the same day: a coffee no older than the week you drink it.</p></footer>
</body></html>"#
        );
        let (kept, reasons) = judge(&html, Rules::default());
        for text in ["Dark Roast Coffee", a, b, c] {
            assert!(kept.iter().any(|k| k == text), "{text:?} not in {kept:?}");
        }
        assert!(!kept.iter().any(|k| k.contains("newsletter")), "{kept:?}");
        assert_eq!(reasons.iter().filter(|r| **r == Reason::Hidden).count(), 1);
        // A title for screen readers alone is hidden by its own class: the wrapper around the
        // text is not revealed for it, and a page that shows its own title hides no text of it.
        let own_class = html.replace(
            r#"<div class="lockdown" style="display:none">
<h1>Dark Roast Coffee</h1>"#,
            r#"<h1 class="sr-only">Dark Roast Coffee</h1><div style="display:none">"#,
        );
        let (kept, _) = judge(&own_class, Rules::default());
        assert!(!kept.iter().any(|k| k == a), "{kept:?}");
        let shown_title = html.replace("<main>", "<main><h1>Dark Roast</h1>");
        let (kept, _) = judge(&shown_title, Rules::default());
        assert!(!kept.iter().any(|k| k == a), "{kept:?}");
    }

    #[test]
    fn real_pages_hiding_their_text_for_a_script_or_under_a_dialog_show_it() {
        // Death Wish Coffee's product page wraps its whole `<main>` in `display: none` for a
        // store app to reveal, and shows only its menus and footer meanwhile; Allrecipes' dinner
        // recipes lie under a cookie consent's preference centre of purposes (`role=dialog`),
        // which outweighed the listing; GameFAQs' thread under a modal of sign-up text
        // (`aria-modal=true`); the Motley Fool's guide to index funds is streamed by React, its
        // body in hidden segments after the footer that a script moves into place. Most of
        // each page's phrases are found.
        super::super::fixtures::assert_most_phrases_found(
            "wcxb-dev",
            &[
                "https://www.deathwishcoffee.com/products/death-wish-coffee",
                "https://www.allrecipes.com/recipes/17562/dinner/",
                "https://gamefaqs.gamespot.com/boards/189706-nintendo-switch/80702016",
                "https://www.fool.com/investing/how-to-invest/index-funds/",
            ],
        );
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
