//! The page's controls: a `<button>`'s label ("Add to cart", "Select a size", "Notify me",
//! "Previous image", "Load more") names what a click does, not what the page says. HTML makes a
//! button an interactive element whose content is phrasing content, a label; readability and
//! trafilatura drop buttons with their text. Two kinds of button carry text of the page and
//! stay: a heading's own button (an accordion's question, the WAI-ARIA pattern puts the trigger
//! inside the heading) and a button wrapping a card of headings, paragraphs or list items.
//!
//! A `<form>` is a set of controls whose values a reader submits (HTML: "a collection of
//! form-associated elements"): a search box, a newsletter's sign-up, a login, a product's
//! options, quantity and price beside "Add to cart", a comment box. Its text labels and
//! explains its inputs ("Your email", "Quantity", "16 people are viewing this right now").
//! Where the page's forms hold a small part of what it keeps, that text is dropped. Where they
//! hold much of it, a form is the page's frame rather than a box of controls: ASP.NET wraps a
//! whole page in one, a forum wraps its posts for moderators' checkboxes, a calculator's
//! questions are its page; they keep their text.

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

/// The part of a page's kept characters, `1 / FORM_SHARE`, from which its forms are where its
/// text lies rather than boxes of controls beside it: a third.
pub const FORM_SHARE: u64 = 3;

/// Drops the kept blocks inside a `<form>` when the page's forms together hold less than
/// `1 /` [`FORM_SHARE`] of the characters it keeps. Runs on the page's final verdicts, as
/// [`drop_labels`] does.
pub fn drop_forms(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let (mut kept, mut in_forms) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if reason.label() == Label::Content {
            kept += u64::from(block.chars);
            if block.in_element("form") {
                in_forms += u64::from(block.chars);
            }
        }
    }
    if in_forms == 0 || in_forms * FORM_SHARE >= kept {
        return;
    }
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if reason.label() == Label::Content && block.in_element("form") {
            *reason = Reason::Marked;
        }
    }
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

    const FORMS: &str = "<html><body><nav><a href=/>Shop</a> <a href=/sale>Sale</a></nav><main>\
        <h1>Wool runner</h1>\
        <p>A true original, our runner combines soft merino wool with a cushioned sole that \
        keeps its shape over many miles of walking and many washes.</p>\
        <form action=/cart/add><p>Wool runner, natural grey, size 9</p><p>$98.00</p>\
        <label>Quantity</label><input name=q><p>16 people are viewing this right now</p></form>\
        <p>The upper is knitted from merino wool, which breathes in the summer and keeps the \
        warmth in when the weather turns cold, and the laces are made of recycled bottles.</p>\
        <form action=/subscribe><p>Get our news and ten percent off your first order</p>\
        <label>Your email</label><input name=email></form>\
        </main></body></html>";

    #[test]
    fn a_forms_labels_are_no_text_unless_the_forms_hold_the_page() {
        let (kept, _) = judge(FORMS, Rules::default());
        for text in [
            "Quantity",
            "$98.00",
            "Your email",
            "16 people are viewing this right now",
        ] {
            assert!(!kept.iter().any(|t| t == text), "{text}: {kept:?}");
        }
        assert!(kept.iter().any(|t| t == "Wool runner"), "{kept:?}");
        assert!(
            kept.iter().any(|t| t.starts_with("The upper is knitted")),
            "{kept:?}"
        );
        let off = Rules::default().without("forms").unwrap();
        let (kept, _) = judge(FORMS, off);
        assert!(
            kept.iter()
                .any(|t| t == "16 people are viewing this right now"),
            "{kept:?}"
        );
        // A page laid out inside one form (ASP.NET's `<form runat=server>` around the body)
        // keeps its text: the form is its frame.
        let wrapped = FORMS
            .replace("<main>", "<form id=aspnetForm><main>")
            .replace("</main>", "</main></form>")
            .replace("<form action=/cart/add>", "<div>")
            .replace("<form action=/subscribe>", "<div>")
            .replace("</form></main>", "</div></main>")
            .replacen("</form>", "</div>", 1);
        let (kept, _) = judge(&wrapped, Rules::default());
        for text in ["Wool runner", "16 people are viewing this right now"] {
            assert!(kept.iter().any(|t| t == text), "{text}: {kept:?}");
        }
    }

    #[test]
    fn real_pages_lose_their_forms() {
        // A law firm's contact form and the notice under its checkbox; a jeweller's
        // "add to cart" form repeating the product's name; a review's comparison table, whose
        // rows are checkboxes of a "Compare" form.
        assert_rule_pays_on(
            &[
                "https://www.shtarklaw.com/services/business-planing/",
                "https://www.newtwist.com/product/latelier-nawbar-warrior-princess-diamond-drop-necklace-small-handmade-18k-gold-bracelet-inlaid-with-0-18-ct-diamond-drop-and-encrusted-in-0-07-ct-of-round-white-diamonds/",
                "https://www.techgearlab.com/topics/health-fitness/best-toothbrush",
            ],
            "forms",
        );
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
