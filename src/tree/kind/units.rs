//! Repeated units: sibling subtrees of one shape, found once per page from the blocks' element
//! paths (the data-record mining of MDR and DEPTA: a list of records is a run of sibling
//! subtrees whose tag structure repeats, Liu, Grossman & Zhai 2003; Zhai & Liu 2005).
//!
//! Every element that holds blocks is a candidate parent; its children that hold blocks are
//! compared by *shape*: the child's tag and the set of element paths from the child down to its
//! blocks' containers (at most [`SHAPE_DEPTH`] levels, hashed into a 64-bit set). Two children
//! are alike when they share the tag and at least half of their paths (Jaccard ≥ ½). The
//! largest group of alike children of a parent, at least two of them, is that parent's
//! [`Region`]; each child of the group is one of its [`Unit`]s. The posts of a thread, the items
//! of a listing, the tiles of a grid, the sections of a landing page and the paragraphs of an
//! article are all regions: which of them is the page's content is for the classifier to judge
//! ([`crate::tree::hybrid::units`]).
//!
//! Cost: one pass over the blocks touching each block's ancestors once, then one comparison of
//! each child with the groups of its parent; memory in proportion to the elements that hold
//! blocks. Pure, free of I/O.

use std::ops::Range;

use crate::tree::BlockFacts;

/// Levels below a unit's own element that its shape describes: deep enough to tell a post
/// (author panel, body) from a menu item, shallow enough that optional parts deep inside an item
/// (a badge, a rating) do not make alike items differ.
pub const SHAPE_DEPTH: usize = 3;

/// One unit of a region: a child element of the region's parent and the blocks of its subtree,
/// a contiguous run in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The unit's element (its document-order ordinal).
    pub element: u32,
    /// Its blocks' indices.
    pub blocks: Range<usize>,
}

/// A run of alike sibling subtrees under one parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The parent element (its document-order ordinal).
    pub parent: u32,
    /// The units, in document order; at least two.
    pub units: Vec<Unit>,
}

impl Region {
    /// The indices of the blocks of every unit, in document order.
    pub fn blocks(&self) -> impl Iterator<Item = usize> + '_ {
        self.units.iter().flat_map(|u| u.blocks.clone())
    }
}

/// A child of a parent while the blocks are read.
#[derive(Clone, Copy, Debug)]
struct Child {
    element: u32,
    tag: u32,
    shape: u64,
    first: usize,
    end: usize,
}

/// The regions of a page, one per parent that has two or more alike children holding blocks,
/// ordered by parent.
pub fn regions(blocks: &[BlockFacts<'_>]) -> Vec<Region> {
    // Children of each parent, in document order; parents indexed by ordinal through `slot`.
    let top = blocks
        .iter()
        .filter_map(|b| b.ancestors.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut slot: Vec<u32> = vec![u32::MAX; top];
    let mut parents: Vec<(u32, Vec<Child>)> = Vec::new();
    let mut tags: Vec<u32> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let a = block.ancestors;
        if a.len() < 2 {
            continue;
        }
        tag_hashes(block.path, a.len(), &mut tags);
        for k in 0..a.len() - 1 {
            let (parent, child) = (a[k], a[k + 1]);
            let s = &mut slot[parent as usize];
            if *s == u32::MAX {
                *s = parents.len() as u32;
                parents.push((parent, Vec::new()));
            }
            let children = &mut parents[*s as usize].1;
            let bit = 1u64 << (path_hash(&tags[(k + 2).min(tags.len())..]) % 64);
            match children.last_mut() {
                Some(last) if last.element == child => {
                    last.end = i + 1;
                    last.shape |= bit;
                }
                _ => children.push(Child {
                    element: child,
                    tag: tags[k + 1],
                    shape: bit,
                    first: i,
                    end: i + 1,
                }),
            }
        }
    }
    let mut out = Vec::new();
    let mut groups: Vec<(Child, Vec<usize>)> = Vec::new();
    for (parent, children) in parents.iter_mut() {
        if children.len() < 2 {
            continue;
        }
        groups.clear();
        for (c, child) in children.iter().enumerate() {
            match groups.iter_mut().find(|(first, _)| alike(first, child)) {
                Some((_, members)) => members.push(c),
                None => groups.push((*child, vec![c])),
            }
        }
        let blocks_of = |members: &[usize]| -> usize {
            members
                .iter()
                .map(|&c| children[c].end - children[c].first)
                .sum()
        };
        let Some((_, best)) = groups.iter().max_by_key(|(_, m)| (m.len(), blocks_of(m))) else {
            continue;
        };
        if best.len() < 2 {
            continue;
        }
        out.push(Region {
            parent: *parent,
            units: best
                .iter()
                .map(|&c| Unit {
                    element: children[c].element,
                    blocks: children[c].first..children[c].end,
                })
                .collect(),
        });
    }
    out.sort_unstable_by_key(|r| r.parent);
    out
}

/// True when two children have one tag and at least half of their paths in common.
fn alike(a: &Child, b: &Child) -> bool {
    a.tag == b.tag && 2 * (a.shape & b.shape).count_ones() >= (a.shape | b.shape).count_ones()
}

/// Hashes of the tags of the innermost `n` segments of `path` into `out`, outermost first: the
/// tags of the elements whose ordinals a block's `ancestors` holds.
fn tag_hashes(path: &str, n: usize, out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        path.rsplit('/')
            .take(n)
            .map(|t| fnv(t.as_bytes(), FNV_OFFSET)),
    );
    out.reverse();
    // A path shorter than the ancestors (never, as the tokenizer writes them) pads at the top.
    while out.len() < n {
        out.insert(0, 0);
    }
}

/// The hash of up to [`SHAPE_DEPTH`] tags below a unit's element (none: the unit's own text).
fn path_hash(tags: &[u32]) -> u64 {
    let mut h = FNV_OFFSET;
    for t in tags.iter().take(SHAPE_DEPTH) {
        h = fnv(&t.to_le_bytes(), h);
    }
    u64::from(h)
}

const FNV_OFFSET: u32 = 0x811c_9dc5;

/// FNV-1a over `bytes` from `h`.
fn fnv(bytes: &[u8], mut h: u32) -> u32 {
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::hybrid::fixtures::{first_page, parse};

    #[test]
    fn the_posts_of_a_thread_are_one_region_and_the_menu_another() {
        let post = |who: &str, text: &str| {
            format!(
                r#"<div class="post"><div class="author"><a href="/u/{who}">{who}</a><div>Member</div></div>
<div class="body"><p>{text}</p></div></div>"#
            )
        };
        let html = format!(
            r#"<html><body><ul class="menu"><li><a href="/">Home</a></li><li><a href="/f">Forums</a></li></ul>
<div class="thread">{}{}{}</div></body></html>"#,
            post("ann", "My car will not start on cold mornings."),
            post("bob", "Check the battery first."),
            post("cy", "A new battery fixed it for me last winter.")
        );
        let blocks = parse(&html);
        let facts = first_page(&blocks);
        let regions = regions(&facts);
        let texts = |r: &Region| -> Vec<String> {
            r.units
                .iter()
                .map(|u| blocks[u.blocks.start].text.clone())
                .collect()
        };
        let found: Vec<Vec<String>> = regions.iter().map(texts).collect();
        assert!(
            found.contains(&vec!["Home".to_string(), "Forums".to_string()]),
            "{found:?}"
        );
        let thread = regions
            .iter()
            .find(|r| r.units.len() == 3)
            .expect("the thread");
        assert_eq!(texts(thread), ["ann", "bob", "cy"]);
        // Each post's blocks: the author's name, the label, the body.
        assert!(thread.units.iter().all(|u| u.blocks.len() == 3));
        assert_eq!(thread.blocks().count(), 9);
    }

    #[test]
    fn children_of_other_shapes_are_no_units_of_the_region() {
        // A listing of three items (headline link and a snippet) after a heading and a paragraph
        // of another shape, all children of one element.
        let item = |n: u32| {
            format!(
                r#"<div class="item"><h3><a href="/p/{n}">Story number {n}</a></h3><p>What happened in story {n}.</p></div>"#
            )
        };
        let html = format!(
            "<html><body><main><h1>News</h1><div class=\"intro\">All the news.</div>{}{}{}</main></body></html>",
            item(1),
            item(2),
            item(3)
        );
        let blocks = parse(&html);
        let facts = first_page(&blocks);
        let regions = regions(&facts);
        let listing = regions
            .iter()
            .find(|r| r.units.len() == 3)
            .expect("the listing");
        let first: Vec<&str> = listing
            .units
            .iter()
            .map(|u| blocks[u.blocks.start].text.as_str())
            .collect();
        assert_eq!(
            first,
            ["Story number 1", "Story number 2", "Story number 3"]
        );
        // The intro is a `div` too, but of another shape: not a unit.
        assert!(!regions
            .iter()
            .flat_map(|r| r.blocks())
            .any(|i| blocks[i].text == "All the news."));
    }

    #[test]
    fn a_page_without_siblings_has_no_region() {
        let blocks = parse("<html><body><div><p>Alone.</p></div></body></html>");
        assert!(regions(&first_page(&blocks)).is_empty());
        assert!(regions(&[]).is_empty());
    }
}
