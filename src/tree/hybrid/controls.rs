//! The page's controls: a `<button>`'s label ("Add to cart", "Select a size", "Notify me",
//! "Previous image", "Load more") names what a click does, not what the page says. HTML makes a
//! button an interactive element whose content is phrasing content, a label; readability and
//! trafilatura drop buttons with their text. Two kinds of button carry text of the page and
//! stay: a heading's own button (an accordion's question, the WAI-ARIA pattern puts the trigger
//! inside the heading) and a button wrapping a card of headings, paragraphs or list items.

use crate::tree::classify::is_heading;
use crate::tree::{BlockFacts, Label, Reason};

/// True when the block is a control's label: its path holds a `<button>` with no heading
/// around it and no heading, paragraph or list item inside it.
fn is_label(block: &BlockFacts<'_>) -> bool {
    if !block.path.contains("button") {
        return false;
    }
    // A button holds no button (the lexer closes one when another starts): one at most.
    let Some(button) = block.path.split('/').position(|tag| tag == "button") else {
        return false;
    };
    let mut tags = block.path.split('/');
    !tags.by_ref().take(button).any(is_heading)
        && !tags
            .skip(1)
            .any(|tag| is_heading(tag) || tag == "p" || tag == "li")
}

/// Drops each kept block that is a control's label (see [`is_label`]). Runs on the page's final
/// verdicts: a label is no evidence against the subtree or the units it sits in, only no text
/// of theirs.
pub fn drop_labels(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if reason.label() == Label::Content && is_label(block) {
            *reason = Reason::Marked;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{assert_rule_pays_on, judge};
    use super::super::Rules;

    const PAGE: &str = "<html><body><nav><a href=/>Shop</a> <a href=/sale>Sale</a></nav><main>\
        <h1>Wool runner</h1>\
        <p>A true original, our runner combines soft merino wool with a cushioned sole that \
        keeps its shape over many miles of walking and many washes.</p>\
        <div class=sizes><button>Select a size</button><button>Add to cart</button></div>\
        <div class=faq><h3><button aria-expanded=false>Can I wash them?</button></h3>\
        <p>Yes: take the insoles and laces out and run the shoes through a cold, gentle \
        cycle, then let them dry in the air.</p></div>\
        <button class=card><h4>Care kit</h4><p>A brush, a cloth and a spray for wool shoes, \
        packed in a tin that fits in a drawer.</p></button>\
        </main></body></html>";

    #[test]
    fn a_buttons_label_is_no_text_but_a_headings_button_and_a_card_are() {
        let (kept, _) = judge(PAGE, Rules::default());
        assert!(
            !kept
                .iter()
                .any(|t| t == "Add to cart" || t == "Select a size"),
            "{kept:?}"
        );
        for text in ["Wool runner", "Can I wash them?", "Care kit"] {
            assert!(kept.iter().any(|t| t == text), "{text}: {kept:?}");
        }
        let off = Rules::default().without("control_labels").unwrap();
        let (kept, _) = judge(PAGE, off);
        assert!(kept.iter().any(|t| t == "Add to cart"), "{kept:?}");
    }

    #[test]
    fn real_pages_lose_their_buttons_labels() {
        // Eventbrite's online tech conferences: every event card carries "Save this event" and
        // "Share this event" buttons; Skullcandy's headphones, colour and size pickers and
        // carousel arrows.
        assert_rule_pays_on(
            &[
                "https://www.eventbrite.com/d/online/tech-conferences/",
                "https://www.skullcandy.com/products/crusher-anc-2-sensory-bass-headphones-with-active-noise-canceling",
            ],
            "control_labels",
        );
    }
}
