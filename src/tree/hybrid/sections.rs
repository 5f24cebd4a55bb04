//! Headed sections: a page whose text is a run of sections, each a wrapper opened by a heading
//! of one rank (a store's "About this game", "Mature content", "System requirements"; a
//! reference's "Description", "Functions", "Types and values"), shows them one under another as
//! the parts of one text. The main subtree anchors on the densest and widens only as far as the
//! evidence of its own text reaches, so it often settles on one section, and where the page has
//! no `<main>` to say where its content lies ([`super::main_text::keep_sections_of_main`]) the
//! others were lost. The sections' shape says it instead: when the main subtree opens with a
//! heading and, climbing through the elements that heading opens, a parent holds at least
//! [`MIN_OTHER_SECTIONS`] other children each opened by a heading of the same tag nested in it,
//! those children are the text's sibling sections, and each is judged as the sections of a
//! `<main>` are: one whose text beside the main subtree outweighs what it holds of links,
//! marked regions and repeated text keeps it (HTML's sectioning: a heading opens a section that
//! runs to the next heading of its rank).
//!
//! A product's page is built the same way with HTML's own sectioning element: the offer (its
//! name, price, options and a short description) in one `<section>`, then the product's
//! features, specifications, questions and reviews each in a `<section>` of its own beside it,
//! each opened by a heading of whatever rank the component chose. The main subtree settles on
//! the offer, and the description below it was lost. On a page that declares itself a product
//! (its first declared type, [`crate::tree::kind::declared_main_kind`]), a main subtree inside a
//! `<section>` with at least [`MIN_OTHER_SECTIONS`] `<section>` siblings is one of a run of
//! sections, judged as above ([`section_run`]). Only there: an article's text is one subtree,
//! and the `<section>`s beside it are the site's (the author's box, a call to action, related
//! stories), which the same test keeps as often as not when they hold prose.
//!
//! Judged only where the page's repeated units said nothing (no listing, no thread, no run of
//! units the main text is one of, [`super::units`]): those rules read the page's runs first,
//! and a page they widened is not widened again.

use super::main_text::{take_back_sections, Main};
use crate::tree::{BlockFacts, Reason};

/// Other children that make a run of sections with the main subtree's (each opened by a heading
/// of its rank, or each a `<section>` beside its own): a pair of boxes beside the text is no run.
pub const MIN_OTHER_SECTIONS: usize = 2;

/// The element whose children are a run of headed sections of which the main subtree `main` is
/// one, if any: `main` opens with a heading; climbing from `main` through the elements that
/// heading opens (the heading is their first block), the first parent with at least
/// [`MIN_OTHER_SECTIONS`] other children each opened by a heading of the same tag, nested in the
/// child rather than the child itself (a flat run of headings and paragraphs is one section).
pub fn headed_run(blocks: &[BlockFacts<'_>], main: Main) -> Option<u32> {
    let Main::Element(m) = main else {
        return None;
    };
    let first = blocks
        .iter()
        .position(|b| b.ancestors.binary_search(&m).is_ok())?;
    let head = &blocks[first];
    if !head.heading {
        return None;
    }
    let tag = head.container();
    let at = head.ancestors.binary_search(&m).ok()?;
    for k in (1..=at).rev() {
        let (parent, child) = (head.ancestors[k - 1], head.ancestors[k]);
        // An element's blocks follow one another: the heading opens `child` when the block
        // before it lies outside.
        if first > 0 && blocks[first - 1].ancestors.binary_search(&child).is_ok() {
            return None;
        }
        let headed = other_children(blocks, parent, child, |b, p| {
            b.heading && b.ancestors.len() > p + 2 && b.container() == tag
        });
        if headed >= MIN_OTHER_SECTIONS {
            return Some(parent);
        }
    }
    None
}

/// The parent of the innermost `<section>` around the main subtree `main` when it has at least
/// [`MIN_OTHER_SECTIONS`] other `<section>` children holding blocks: the element whose children
/// are a run of the page's sections, of which the main subtree is in one.
pub fn section_run(blocks: &[BlockFacts<'_>], main: Main) -> Option<u32> {
    let Main::Element(m) = main else {
        return None;
    };
    let head = blocks
        .iter()
        .find(|b| b.ancestors.binary_search(&m).is_ok())?;
    let at = head.ancestors.binary_search(&m).ok()?;
    let around: Vec<(&str, u32)> = head.tagged_ancestors().take(at + 1).collect();
    let (parent, child) = around
        .windows(2)
        .rev()
        .find(|pair| pair[1].0 == "section")
        .map(|pair| (pair[0].1, pair[1].1))?;
    let others = other_children(blocks, parent, child, |b, p| {
        b.tagged_ancestors()
            .nth(p + 1)
            .is_some_and(|(t, _)| t == "section")
    });
    (others >= MIN_OTHER_SECTIONS).then_some(parent)
}

/// How many children of `parent` other than `child` open with a block for which `opens` holds,
/// given the block and the index of `parent` among its ancestors. An element's blocks follow
/// one another, so a child's first block is the first of a run under it.
fn other_children(
    blocks: &[BlockFacts<'_>],
    parent: u32,
    child: u32,
    opens: impl Fn(&BlockFacts<'_>, usize) -> bool,
) -> usize {
    let mut last = None;
    let mut count = 0;
    for b in blocks {
        let Ok(p) = b.ancestors.binary_search(&parent) else {
            continue;
        };
        let Some(&c) = b.ancestors.get(p + 1) else {
            continue;
        };
        if last == Some(c) {
            continue;
        }
        last = Some(c);
        if c != child && opens(b, p) {
            count += 1;
        }
    }
    count
}

/// Keeps the sections of the runs the main subtree `main` is in whose text beside it outweighs
/// their dropped text, each block counted beyond `cost` as the main subtree counts it: the run of
/// `<section>`s when `product` ([`section_run`]: a declared product's page), then the run of
/// headed sections when `headed` ([`headed_run`]).
pub fn keep_sections(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    main: Main,
    (product, headed): (bool, bool),
    links_are_text: bool,
    cost: i64,
) {
    let sections = product.then(|| section_run(blocks, main)).flatten();
    let headings = headed.then(|| headed_run(blocks, main)).flatten();
    for container in sections.into_iter().chain(headings) {
        take_back_sections(blocks, out, main, container, links_are_text, cost);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        assert_rule_pays_on, corpus_pages, f1_with_and_without, judge, judge_page,
    };
    use super::super::Rules;

    const SENTENCES: &str = "The game puts you in command of a crew that sails between islands, \
        trading goods and answering the calls of the towns along the coast all season long.";

    /// A store's page: a run of wrappers each opened by a heading of `rank` (`<h2>` for the
    /// run's), the first a long description, then two short sections, then the store's other
    /// titles as linked headlines under a heading of the same rank.
    fn store_page(rank: &str) -> String {
        let mut html = format!(
            "<html><body><nav><a href=\"/\">Store</a> <a href=\"/new\">New</a></nav>\
             <div class=column><div><div><h2>About this game</h2><p>{s}</p><p>{s}</p>\
             <p>{s}</p></div></div>\
             <div><div><{rank}>Mature content</{rank}><p>The developers describe the content \
             as fantasy violence and mild language throughout.</p></div></div>\
             <div><div><{rank}>System requirements</{rank}><p>A dual core processor, four \
             gigabytes of memory and a graphics card from the last ten years.</p></div></div>\
             <div><h2>More like this</h2>",
            s = SENTENCES
        );
        html.push_str(&linked_names("/app", "Another island trading game"));
        html.push_str("</div></div><footer>Contact</footer></body></html>");
        html
    }

    /// Eight paragraphs, each one link named `name` and its number, to `href`'s pages: a
    /// section of other titles.
    fn linked_names(href: &str, name: &str) -> String {
        (0..8)
            .map(|n| format!("<p><a href=\"{href}/{n}\">{name} number {n}</a></p>"))
            .collect()
    }

    fn kept(html: &str, rules: Rules) -> Vec<String> {
        judge(html, rules).0
    }

    fn has(kept: &[String], start: &str) -> bool {
        kept.iter().any(|t| t.starts_with(start))
    }

    #[test]
    fn the_sections_beside_a_headed_main_text_are_its_text() {
        let html = store_page("h2");
        let with = kept(&html, Rules::default());
        assert!(has(&with, "About this game"), "{with:?}");
        assert!(has(&with, "The developers describe"), "{with:?}");
        assert!(has(&with, "A dual core processor"), "{with:?}");
        assert!(!has(&with, "Another island"), "{with:?}");
        let off = kept(&html, Rules::default().without("headed_sections").unwrap());
        assert!(has(&off, "About this game"), "{off:?}");
        assert!(!has(&off, "The developers describe"), "{off:?}");
    }

    #[test]
    fn sections_under_headings_of_another_rank_are_no_run() {
        // The same wrappers opened by `<h3>`s: one `<h2>` section beside the main text is no run.
        let with = kept(&store_page("h3"), Rules::default());
        assert!(has(&with, "About this game"), "{with:?}");
        assert!(!has(&with, "The developers describe"), "{with:?}");
    }

    #[test]
    fn the_sections_of_real_store_and_service_pages_are_kept() {
        // Steam's store pages: "About this game" beside its mature content, requirements and
        // critics' quotes, each a wrapper under an `<h2>`. (Zoho's free plan, whose sections of
        // questions and features this rule took back, keeps them now that the lines of its
        // `<main>` are no marked main text its components are dropped around.)
        assert_rule_pays_on(
            &[
                "https://store.steampowered.com/app/570/Dota_2/",
                "https://store.steampowered.com/app/236390/War_Thunder/",
            ],
            "headed_sections",
        );
    }

    /// A product's page declared as `declared`: the offer in a `<section>`, then the product's
    /// features and questions each in a `<section>` under an `<h2>` (the offer's name is an
    /// `<h1>`), then a `<section>` of other products as linked headlines.
    fn product_page(declared: &str) -> String {
        let mut html = format!(
            "<html><head><script type=\"application/ld+json\">{{\"@type\": \"{declared}\"}}\
             </script></head><body><nav><a href=\"/\">Store</a> <a href=\"/tools\">Tools</a>\
             </nav><div id=page><section id=overview><div><h1>Opening tool</h1><p>$7.95</p>\
             <p>A thin steel blade that slips between the tightest gaps of a device's case and \
             lifts it open without scratching the glass or bending the frame.</p><p>{s}</p>\
             </div></section><section id=feature><h2>Made for precision</h2><p>The rubber \
             handle sits in the palm and the blade bends just enough to follow a curved edge, \
             so the tip goes where you point it and no further.</p></section>\
             <section id=faq><h2>Questions</h2><p>Can it open a phone whose back is glued? It \
             can, once the adhesive is warmed for a minute; work the blade along the edge \
             slowly.</p></section><section id=more><h2>Other tools</h2>",
            s = SENTENCES
        );
        html.push_str(&linked_names("/tool", "Another opening tool"));
        html.push_str("</section></div><footer>Contact</footer></body></html>");
        html
    }

    #[test]
    fn a_products_sections_beside_its_offer_are_its_description() {
        let product = judge_page(&product_page("Product"), Rules::default());
        assert!(has(&product, "A thin steel blade"), "{product:?}");
        assert!(has(&product, "The rubber handle"), "{product:?}");
        assert!(has(&product, "Can it open a phone"), "{product:?}");
        assert!(!has(&product, "Another opening tool"), "{product:?}");
        // An article's `<section>`s beside its text are the site's, and the rule off keeps the
        // offer alone.
        let article = judge_page(&product_page("Article"), Rules::default());
        assert!(has(&article, "A thin steel blade"), "{article:?}");
        assert!(!has(&article, "The rubber handle"), "{article:?}");
        let off = Rules::default()
            .without("product_sections")
            .expect("a rule");
        let off = judge_page(&product_page("Product"), off);
        assert!(has(&off, "A thin steel blade"), "{off:?}");
        assert!(!has(&off, "The rubber handle"), "{off:?}");
        // Real product pages built of `<section>`s: the features, questions and comparisons
        // below the offer.
        let urls = [
            "https://www.ifixit.com/products/jimmy",
            "https://www.ifixit.com/products/magnetic-project-mat",
        ];
        for (url, (html, gold, _)) in urls.iter().zip(corpus_pages("wcxb-dev", &urls)) {
            let (with, without) = f1_with_and_without(&html, &gold, "product_sections", judge_page);
            assert!(
                with > 0.7 && with > without + 0.1,
                "{url}: {with:.3} against {without:.3}"
            );
        }
    }
}
