//! `link-template`: the template of mutually linked pages.
//!
//! Reference: J. Alarte, D. Insa, J. Silva, S. Tamarit, "Web template extraction based on
//! hyperlink analysis", WWW 2015 Companion, and "Site-level web template extraction", SAC 2017
//! (TemEx).
//!
//! Pages reached from a site's menu link each other through that menu, so a complete subgraph
//! of mutually linked pages shares the template. The template is what an equal top-down mapping
//! finds on all of them: starting at the roots, an element maps to the element at the same
//! position under the mapped parent when both have the same tag, class and number of children.
//! The blocks of a page inside mapped elements are template; the others are its content.
//!
//! In a stream no page is fetched: each page's same-site out-links and its elements'
//! signatures are kept with its fingerprint (retention and changelog as for every document),
//! and a page is judged by the held pages it links to that link back to it. With `n = 4` as
//! published: the page and three held pages, all pairwise mutually linked. A page without such a
//! clique (a domain's first pages, or a page no held page links to) has no known template, and
//! every block with letters is kept.
//!
//! An element's *signature* hashes its tag, its `class`, its number of child elements and its
//! position among its parent's children, with its parent's signature: two elements of two pages
//! map exactly when their signatures are equal. A block's signature is its container's.

use super::{verdict, without_page, Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// Pages of the complete subgraph the template is taken from, the page judged included
/// (Alarte et al.'s `n`).
pub const CLIQUE: usize = 4;

/// Same-site out-links kept per page (the first ones, in document order).
pub const MAX_LINKS: usize = 512;

/// Held pages a page's out-links are looked up for (the first ones, in document order).
pub const MAX_CANDIDATES: usize = 64;

/// What a page keeps for `link-template`, stored with its fingerprint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkProfile {
    /// The page's identity as a link target: a hash of its URL key without the title's content
    /// id, as another page's link to it gives it.
    pub id: u64,
    /// The identities of its same-site out-links (at most [`MAX_LINKS`]), sorted, distinct.
    pub out: Vec<u64>,
    /// The signatures of its blocks' containers, sorted, distinct.
    pub signatures: Vec<u64>,
}

impl LinkProfile {
    /// True when the page links to `id`.
    pub fn links_to(&self, id: u64) -> bool {
        self.out.binary_search(&id).is_ok()
    }

    /// True when the page and `other` link to each other.
    pub fn mutual(&self, other: &LinkProfile) -> bool {
        self.links_to(other.id) && other.links_to(self.id)
    }
}

/// What the domain's mutually linked pages say of one page: its blocks' signatures and the
/// template its clique shares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linked {
    /// Each block's container signature, in block order (`None` for text outside every
    /// element).
    pub blocks: Vec<Option<u64>>,
    /// The signatures every page of the clique holds, sorted; `None` when no clique was found.
    pub template: Option<Vec<u64>>,
}

/// The first clique of [`CLIQUE`] pages around `page` among `candidates` (held pages it links
/// to, in the order of its links): the indices of the other pages, each mutually linked with
/// `page` and with each other. `None` when there is none.
pub fn clique(page: &LinkProfile, candidates: &[LinkProfile]) -> Option<[usize; CLIQUE - 1]> {
    let mutual: Vec<usize> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.id != page.id && page.mutual(c))
        .map(|(i, _)| i)
        .collect();
    for (x, &i) in mutual.iter().enumerate() {
        for (y, &j) in mutual.iter().enumerate().skip(x + 1) {
            if candidates[i].id == candidates[j].id || !candidates[i].mutual(&candidates[j]) {
                continue;
            }
            for &k in &mutual[y + 1..] {
                let (a, b, c) = (&candidates[i], &candidates[j], &candidates[k]);
                if c.id != a.id && c.id != b.id && a.mutual(c) && b.mutual(c) {
                    return Some([i, j, k]);
                }
            }
        }
    }
    None
}

/// The signatures every one of `pages` holds (each sorted and distinct), sorted.
pub fn shared(pages: &[&[u64]]) -> Vec<u64> {
    let Some((first, rest)) = pages.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .copied()
        .filter(|s| rest.iter().all(|p| p.binary_search(s).is_ok()))
        .collect()
}

/// `link-template`: the blocks a page shares, by position, with the pages of its clique are
/// template.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTemplate;

impl PageMethod for LinkTemplate {
    const METHOD: Method = Method::LinkTemplate;
    const READS_LINKS: bool = true;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let Some(Linked {
            blocks,
            template: Some(template),
        }) = page.linked
        else {
            without_page(facts, out);
            return;
        };
        out.clear();
        out.extend(facts.iter().enumerate().map(|(i, f)| {
            let mapped = blocks
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|s| template.binary_search(&s).is_ok());
            verdict(f, !mapped, Reason::Template)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(id: u64, out: &[u64]) -> LinkProfile {
        let mut out = out.to_vec();
        out.sort_unstable();
        LinkProfile {
            id,
            out,
            signatures: Vec::new(),
        }
    }

    #[test]
    fn a_clique_is_four_pages_all_linked_both_ways() {
        // Pages 1..=5 of a menu link each other; 6 is linked from 1 only, 7 links to 1 only.
        let menu = [1, 2, 3, 4, 5];
        let p = page(1, &[2, 3, 4, 5, 6]);
        let candidates = [
            page(6, &[]),
            page(2, &menu),
            page(3, &menu),
            page(7, &[1]),
            page(4, &menu),
            page(5, &menu),
        ];
        assert_eq!(clique(&p, &candidates), Some([1, 2, 4]));
        // Without page 4 and 5 the menu pages are three: no clique of four.
        assert_eq!(clique(&p, &candidates[..4]), None);
        // Two candidates that do not link each other break the clique.
        let broken = [page(2, &[1, 3]), page(3, &[1, 2]), page(4, &[1])];
        assert_eq!(clique(&page(1, &[2, 3, 4]), &broken), None);
    }

    #[test]
    fn the_template_is_what_all_pages_share() {
        let a: &[u64] = &[1, 2, 3, 7];
        let b: &[u64] = &[2, 3, 7, 9];
        let c: &[u64] = &[0, 2, 7];
        assert_eq!(shared(&[a, b, c]), [2, 7]);
        assert!(shared(&[]).is_empty());
    }
}
