//! A page laid out twice: a responsive page often ships one part in two copies, one for small
//! screens and one for large (a product's description beside its picture on a desktop, under
//! its "Add to cart" on a phone), each in an element whose class shows it at some widths only
//! (`hidden-down-md` and `hidden-up-md`, `md:hidden` and `hidden md:block`). A reader sees one
//! copy; the extractor reads both. A `<noscript>` that says again what the scripted page shows
//! is the same: the copy for a client without scripts, which a reader's browser never renders.
//! Text said twice for another reason (a reference's parameters described alike under two
//! calls) carries no such class and keeps both copies.

use std::collections::HashSet;

use crate::blocks::BlockHash;
use crate::tree::{BlockFacts, Label, Reason};

/// Fewest characters of kept text an element shown at some widths only holds for it to be read
/// as a copy of a part of the page: a description, a list of features. Smaller ones are an
/// item's label that every item of a listing carries ("Updated", "Free shipping"), each in its
/// own element, not a copy of anything.
pub const MIN_LAYOUT_COPY: u32 = 100;

/// Drops the kept text of each element shown at some screen widths only
/// ([`BlockFacts::responsive`]), or of each outermost `<noscript>`, when all of it is text the
/// page keeps earlier, outside the element, and it holds at least [`MIN_LAYOUT_COPY`]
/// characters: the second layout of the same part, dropped as `repeated`. Runs on the page's final verdicts, so the copy kept is the first
/// the page keeps.
pub fn drop_layout_copies(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let copy_of = |b: &BlockFacts<'_>| b.responsive.or_else(|| super::noscript::noscript(b));
    if !blocks.iter().any(|b| copy_of(b).is_some()) {
        return;
    }
    let mut shown: HashSet<BlockHash> = HashSet::new();
    let mut i = 0;
    while i < blocks.len() {
        let Some(element) = copy_of(&blocks[i]) else {
            if out[i].label() == Label::Content {
                shown.extend(blocks[i].hash);
            }
            i += 1;
            continue;
        };
        // The element's blocks are contiguous in document order (an element nested in it may
        // be their innermost such element).
        let end = i + blocks[i..]
            .iter()
            .take_while(|b| copy_of(b) == Some(element) || b.ancestors.contains(&element))
            .count()
            .max(1);
        let kept: Vec<usize> = (i..end)
            .filter(|&k| out[k].label() == Label::Content)
            .collect();
        let chars: u32 = kept.iter().map(|&k| blocks[k].chars).sum();
        let copy = chars >= MIN_LAYOUT_COPY
            && kept
                .iter()
                .all(|&k| blocks[k].hash.is_some_and(|h| shown.contains(&h)));
        for k in kept {
            if copy {
                out[k] = Reason::Repeated;
            } else {
                shown.extend(blocks[k].hash);
            }
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{assert_rule_pays_on, judge};
    use super::super::Rules;

    const DESCRIPTION: &str = "Make each cup of tea or coffee feel special with a ceramic mug: \
        wheel thrown, with a matte textured outside and a clear glazed inside.";

    fn page(small: &str, large: &str) -> String {
        format!(
            "<html><body><nav><a href=/>Shop</a> <a href=/cups>Cups</a></nav><main>\
             <h1>White speckle mug</h1><div class=price>$60.00</div>\
             <div class='{large}'><p>{DESCRIPTION}</p><p>Handmade stoneware, about 350 ml.</p>\
             </div><div class=cart><button>Add to cart</button></div>\
             <div class='{small}'><p>{DESCRIPTION}</p><p>Handmade stoneware, about 350 ml.</p>\
             </div></main></body></html>"
        )
    }

    #[test]
    fn a_part_laid_out_for_small_and_large_screens_is_kept_once() {
        for (small, large) in [
            (
                "product-description hidden-up-md",
                "product-description hidden-down-md",
            ),
            ("d-md-none", "d-none d-md-block"),
            ("md:hidden", "hidden md:block"),
            ("mobile-only", "desktop-only"),
        ] {
            let html = page(small, large);
            let (kept, _) = judge(&html, Rules::default());
            let copies = |kept: &[String]| kept.iter().filter(|t| *t == DESCRIPTION).count();
            assert_eq!(copies(&kept), 1, "{small}: {kept:?}");
            // Bootstrap's `d-none` hides the large copy from the hidden rule too: off with it.
            let off = Rules::default().without("layout_copies").unwrap();
            let off = off.without("hidden").unwrap();
            assert_eq!(copies(&judge(&html, off).0), 2, "{small}");
        }
        // Text said twice without such a class keeps both copies, and so do classes that show
        // and hide nothing.
        let (kept, _) = judge(&page("col-md-6", "flex-md-row"), Rules::default());
        assert_eq!(kept.iter().filter(|t| *t == DESCRIPTION).count(), 2);
    }

    #[test]
    fn a_noscript_copy_of_the_text_is_kept_once() {
        let story = "<p>We will always need plumbers, and the trade is changing fast: smart \
            leak sensors, tankless heaters and booking software reach every shop.</p>\
            <p>Customers now compare quotes online before they call, and they expect a text \
            back within the hour, which most small plumbing firms cannot yet do.</p>";
        let page = |copy: &str| {
            format!(
                "<html><body><main><h1>Plumbing industry trends</h1>{story}\
                 <noscript><div>{copy}</div></noscript></main></body></html>"
            )
        };
        let copies = |kept: &[String]| kept.iter().filter(|t| t.starts_with("We will")).count();
        let html = page(story);
        assert_eq!(copies(&judge(&html, Rules::default()).0), 1);
        let off = Rules::default().without("layout_copies").unwrap();
        assert_eq!(copies(&judge(&html, off).0), 2);
        // A `<noscript>` that holds what the scripted page does not show (a thread served to
        // crawlers) is no copy.
        let own = "<p>The scripted view loads the replies; this one holds them for a client \
            without scripts, each reply a paragraph of its own that the page shows nowhere \
            else, long enough to be read as text and not as a notice.</p>";
        let (kept, _) = judge(&page(own), Rules::default());
        assert!(
            kept.iter().any(|t| t.starts_with("The scripted view")),
            "{kept:?}"
        );
    }

    #[test]
    fn real_pages_show_their_text_once() {
        // Ghost Wares' mug (Squarespace's `hidden-up-md` and `hidden-down-md`), AS Colour's
        // tee, a builder's guide laid out three times in Framer's `ssr-variant`s, and Ridge's
        // wallet, whose banner has a `desktop`, a `tablet` and a `mobile` copy; Podium's
        // article, said again in a `<noscript>`.
        assert_rule_pays_on(
            &[
                "https://www.ghostwares.com.au/shop/p/white-speckle-mug",
                "https://ascolour.com/staple-tee-5001/",
                "https://www.loona-construction.com/blog/how-much-does-a-home-remodel-cost-in-california",
                "https://ridge.com/products/aluminum-black",
                "https://www.podium.com/article/plumbing-industry-trends",
            ],
            "layout_copies",
        );
    }
}
