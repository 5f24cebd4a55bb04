//! Text around repeated blocks: a run of repeated blocks inside the main subtree with kept text on
//! both sides belongs to the text (a manual's section headings, notes and table cells recur on
//! many pages, yet they sit between the paragraphs that they label); repeated blocks at the edge
//! of the main text (a byline, a closing notice) stay dropped. Template blocks sit at the page's
//! edges in a stable order; content that happens to recur sits between unique text.
//!
//! A reference links its names: a parameter described by its type ("a GConverterOutputStream"),
//! a return type, a function in a summary table, each a link to the name's own page, between the
//! text's recurring labels ("Parameters", "Returns"). At a node the tree trusts such a block is
//! nothing but a link and dropped as navigation, and it breaks the run of labels around it. On a
//! page that documents something, one whose main text holds a program listing (`<pre>`) or
//! whose URL files it as documentation (`/docs/`, `/manual/`, a `docs.` host), the linked names
//! inside a run are the text's own and kept with it (`linked_names`). A story's links between
//! its paragraphs are promotions ("Related: ...", a newsletter's, a column's list) and the
//! recurring blocks around them its frame; a story holds no program listing and is not filed
//! under the site's documentation.

use super::main_text::{within, Main};
use crate::tree::{BlockFacts, Reason};

/// Keeps each run of repeated blocks inside `main` that has a kept block on both sides, with the
/// figures inside `main` among them (blocks without letters inside the run do not break it; those
/// with digits and few links, a table's numbers or a score, are the text's data, which the tree
/// cannot count). Marked and hidden blocks do not break a run either (a picture's caption after a
/// table), but repeated blocks next to them are a frame, not the text, and stay dropped. When
/// `linked_names` says so of the page (see [`names_linked`]), the link-dense blocks inside `main`
/// are of the run and kept with it; it is asked once, when a run first meets one, and reads only
/// the unique blocks, which no run changes. One pass: each block is visited once by the run that
/// holds it or by the loop.
pub fn keep_runs(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    main: Main,
    linked_names: impl Fn(&[Reason]) -> bool,
) {
    let mut names = None;
    let mut judged = |out: &[Reason], k: usize| match out[k] {
        Reason::NoLetters | Reason::Marked | Reason::Hidden => true,
        Reason::Repeated => within(&blocks[k], main),
        Reason::LinkDense => {
            within(&blocks[k], main) && *names.get_or_insert_with(|| linked_names(out))
        }
        _ => false,
    };
    let mut i = 0;
    let mut prev_kept = false;
    while i < blocks.len() {
        if prev_kept && judged(out, i) {
            let mut end = i;
            while end < blocks.len() && judged(out, end) {
                end += 1;
            }
            if end < blocks.len() && out[end] == Reason::Unique {
                let framed = out[i..end]
                    .iter()
                    .any(|r| matches!(r, Reason::Marked | Reason::Hidden));
                // A link-dense block is in the run only where the page's linked names are.
                let of_run = |r: Reason| matches!(r, Reason::Repeated | Reason::LinkDense);
                for k in i..end {
                    if (of_run(out[k]) && !framed) || is_figure(&blocks[k], main) {
                        out[k] = Reason::WithinText;
                    }
                }
            }
            prev_kept = false;
            i = end;
            continue;
        }
        prev_kept = match out[i] {
            Reason::NoLetters => prev_kept,
            r => r == Reason::Unique,
        };
        i += 1;
    }
}

/// True when the page's linked names inside its main text are the text's own: at a node the tree
/// `trusted` (where a link-dense block is nothing but a link, see
/// [`super::links::is_navigation`]), on a page that documents something: its URL files it as
/// documentation (`documentation`), or its still-unique text inside `main` holds a program
/// listing (a `<pre>`).
pub fn names_linked(
    blocks: &[BlockFacts<'_>],
    out: &[Reason],
    main: Main,
    trusted: bool,
    documentation: bool,
) -> bool {
    trusted
        && (documentation
            || blocks.iter().zip(out).any(|(block, &reason)| {
                reason == Reason::Unique && block.in_element("pre") && within(block, main)
            }))
}

/// True when `block` is a figure inside `main` that is not a link (a page number, a calendar's
/// day).
fn is_figure(block: &BlockFacts<'_>, main: Main) -> bool {
    block.figure && 2 * block.link_chars <= block.chars && within(block, main)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, first_page, judge, parse, run, run_with};
    use super::super::{classify, Claims, Params, Rules};
    use crate::tree::{Label, NodeFacts, Reason};

    #[test]
    fn repeated_blocks_between_kept_text_belong_to_it() {
        // article div(7) > h2(8) "Description", p(9), h2(10) "Notes", p(11) repeated, p(12);
        // then a repeated closing notice (p 13) and the repeated navigation (nav 14).
        let at = |e: u32| [0, 1, 7, e];
        let (a8, a9, a10, a11, a12, a13) = (at(8), at(9), at(10), at(11), at(12), at(13));
        let nav = [0, 1, 14, 15];
        let blocks = [
            block(&a8, 11, 0, 9, 9),
            block(&a9, 300, 0, 1, 9),
            block(&a10, 5, 0, 9, 9),
            block(&a11, 120, 0, 9, 9),
            block(&a12, 250, 0, 1, 9),
            block(&a13, 60, 0, 9, 9),
            block(&nav, 200, 0, 9, 9),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 9),
            vec![Repeated, Unique, WithinText, WithinText, Unique, Repeated, Repeated]
        );
        assert_eq!(WithinText.label(), Label::Content);
        let off = Rules::default().without("within_text").unwrap();
        assert_eq!(run_with(&blocks, 9, off)[2..4], [Repeated, Repeated]);
        // A block without letters inside the run does not break it.
        let mut gap = blocks.to_vec();
        gap[3].count = None;
        assert_eq!(run(&gap, 9)[2..5], [WithinText, NoLetters, Unique]);
        // Repeated text outside the main subtree stays dropped, even between kept blocks.
        let side = [0, 1, 16, 17];
        let mut outside = blocks.to_vec();
        outside[2] = block(&side, 40, 0, 9, 9);
        assert_eq!(run(&outside, 9)[2], Repeated);
    }

    /// The reasons of the page `html`, which says `claims` of itself, at a node of twenty pages
    /// the tree trusts, where the blocks whose text is one of `recurring` are on every page, the
    /// rest on this one.
    fn at_trusted_node(
        html: &str,
        claims: Claims,
        recurring: &[&str],
        rules: Rules,
    ) -> Vec<(String, Reason)> {
        let blocks = parse(html);
        let mut facts = first_page(&blocks);
        for (fact, block) in facts.iter_mut().zip(&blocks) {
            if recurring.contains(&block.text.as_str()) {
                fact.count = Some(20);
            }
        }
        let node = NodeFacts {
            support: 20,
            c_max: 1,
            path_support: 20,
        };
        let params = Params {
            rules,
            ..Params::default()
        };
        let mut out = Vec::new();
        classify(&facts, node, &params, claims, &mut out);
        blocks.iter().map(|b| b.text.clone()).zip(out).collect()
    }

    #[test]
    fn a_references_linked_names_between_its_text_are_its_own() {
        // A function's section of a reference: its parameter is described by its type's linked
        // name, between the recurring labels "Parameters" and "Returns".
        let reference = |listing: &str| {
            format!(
                r#"<html><body><div class="nav"><a href="/">Home</a> <a href="/up">Up</a></div>
<div class="refentry"><h2>g_converter_output_stream_new ()</h2>{listing}
<p>Creates a new converter output stream for the base stream, converting all that is
written to it with the converter before it reaches the base stream.</p>
<h4>Parameters</h4>
<table><tr><td><p>base_stream</p></td>
<td><p>a <a href="GConverterOutputStream.html">GConverterOutputStream</a></p></td></tr></table>
<h4>Returns</h4>
<p>a new output stream that converts what is written to it.</p></div>
<div class="footer">Generated by the reference's tools</div></body></html>"#
            )
        };
        let listing =
            "<pre>GOutputStream *\ng_converter_output_stream_new (GOutputStream *base_stream,\n\
            GConverter *converter);</pre>";
        let recurring = [
            "Home Up",
            "Parameters",
            "Returns",
            "Generated by the reference's tools",
        ];
        let reason = |page: &[(String, Reason)], text: &str| {
            page.iter()
                .find(|(t, _)| t == text)
                .map(|(_, r)| *r)
                .unwrap_or_else(|| panic!("{text:?} in {page:?}"))
        };
        let name = "a GConverterOutputStream";
        let (none, filed) = (
            Claims::default(),
            Claims {
                documentation: true,
                ..Claims::default()
            },
        );
        let page = at_trusted_node(&reference(listing), none, &recurring, Rules::default());
        assert_eq!(reason(&page, name), Reason::WithinText);
        assert_eq!(reason(&page, "Returns"), Reason::WithinText);
        assert_eq!(reason(&page, "Home Up"), Reason::Repeated);
        assert_eq!(
            reason(&page, "Generated by the reference's tools"),
            Reason::Repeated
        );
        // Switched off, the linked name is navigation and breaks the run of labels.
        let off = Rules::default().without("linked_names").unwrap();
        let page = at_trusted_node(&reference(listing), none, &recurring, off);
        assert_eq!(reason(&page, name), Reason::LinkDense);
        assert_eq!(reason(&page, "Returns"), Reason::Repeated);
        // A text without a program listing (a story) keeps its links between paragraphs out,
        // unless its URL files it as documentation (a manual's page of prose).
        let page = at_trusted_node(&reference(""), none, &recurring, Rules::default());
        assert_eq!(reason(&page, name), Reason::LinkDense);
        assert_eq!(reason(&page, "Returns"), Reason::Repeated);
        let page = at_trusted_node(&reference(""), filed, &recurring, Rules::default());
        assert_eq!(reason(&page, name), Reason::WithinText);
        assert_eq!(reason(&page, "Returns"), Reason::WithinText);
        // On a domain's first page the rule does not speak: the tree knows no label yet.
        let (kept, _) = judge(&reference(listing), Rules::default());
        let (kept_off, _) = judge(&reference(listing), off);
        assert_eq!(kept, kept_off);
    }

    #[test]
    fn the_figures_of_a_table_inside_the_text_are_its_data() {
        // A standings page: its intro, a table of drivers and their points, a picture's caption
        // after it, a closing line; then the page's pagination links and a footer year, outside
        // the text.
        let html = r#"<html><body><div id="page"><div class="post">
<h1>Cup standings</h1>
<p>The standings after thirty-six races of the season, updated after every race.</p>
<table><tr><td>Pos.</td><td>Driver</td><td>Points</td></tr>
<tr><td>1</td><td>Kyle Busch</td><td>5040</td></tr>
<tr><td>2</td><td>Martin Truex Jr.</td><td>5035</td></tr></table>
<figure><img src="/busch.jpg"><figcaption>Busch in victory lane after the finale.</figcaption></figure>
<p>Bookmark this page and come back after the next race for the updated table.</p>
<div class="pages"><a href="/p/1">1</a> <a href="/p/2">2</a></div></div>
<div id="footer"><span>2019</span></div></div></body></html>"#;
        let (kept, reasons) = judge(html, Rules::default());
        let figures: Vec<&str> = kept
            .iter()
            .map(String::as_str)
            .filter(|t| t.chars().all(|c| !c.is_alphabetic()))
            .collect();
        assert_eq!(figures, ["1", "5040", "2", "5035"], "{kept:?}");
        assert!(reasons.contains(&Reason::NoLetters));
        // Switched off, no block without letters is content.
        let off = Rules::default().without("within_text").unwrap();
        let (kept, _) = judge(html, off);
        assert!(
            kept.iter().all(|t| t.chars().any(char::is_alphabetic)),
            "{kept:?}"
        );
    }
}
