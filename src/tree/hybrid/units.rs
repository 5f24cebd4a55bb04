//! Repeated units (DESIGN §2.9; data-record mining after MDR, Liu et al. 2003): a page's main
//! content is not always one dense subtree of prose but a run of sibling subtrees of one shape,
//! the [`Region`]s of [`crate::tree::kind::units`]. Judged as units:
//!
//! - **The main text is a unit** ([`widen_to_units`]): when the text kept so far lies mostly in
//!   the units of a region, at least two of those units hold text of their own that the main
//!   subtree left out, and the other units weigh at least half as much as the one it chose, the
//!   units are the main text's structure: the posts of a thread (the main subtree settled on one
//!   post, or on the author panels), the sections of a landing page or a handbook (it settled on
//!   one section). Their text outside the main subtree is kept.
//! - **Marked units** ([`keep_marked_units`]): on a page that keeps no paragraph of its own, a
//!   run of units each carrying a class word of the kind that marks a region around the text
//!   (`ipsComment`, `commentBody`: every post of a thread is "a comment") holds its text in
//!   them: the word names the kind of unit, not a region beside the main text. When the text so
//!   marked outweighs what the page kept, it is kept. Where the page has a text of its own, an
//!   article with its comments, the marks draw the line between them and stand, unless the page
//!   declares itself a thread (`QAPage`, `DiscussionForumPosting`: the first post is its text,
//!   the replies under it its posts, `thread_replies`); and they stand around a declared
//!   product's reviews, what readers say beside the product.
//! - **A listing** ([`keep_listing`]): a page whose largest region of records holds more text
//!   than it kept outside its regions of records, and which keeps no paragraph of its own
//!   ([`PARAGRAPH`]) or only what goes with the listing (the records hold [`INTRO_SHARE`] times
//!   its text, which comes before them, or they open the page right under its title), is a
//!   listing, a front page, a category, a grid of products or search results: every item is a
//!   link or sits in one, so link density dropped them all. The region's items are its
//!   content, headlines and all. Records are at least [`MIN_LISTING_UNITS`] units of at most
//!   [`MAX_UNIT_BLOCKS`] blocks on average, more than a headline each (a date, a snippet, a
//!   price beside it), whose links read as headlines (from [`HEADLINE_CHARS`] to a line,
//!   [`TEASER_CHARS`]), not marked or hidden by the markup, most without a text longer than a
//!   teaser: a menu's items are a word or two each, a filter's list of languages one long line
//!   of links, a mega-menu's units dozens of links, a list of bare links in a sidebar ("most
//!   popular posts") a headline each, and a sidebar's column of such lists under their
//!   headings is widgets, not records. A grid whose every unit is one headline link (a card
//!   that is its title) reads as records only where the page's own text introduces it
//!   (`grids`); a run of cards that one link each wraps whole (a job's title, company, place
//!   and pay; a shop's tile beside its "Low Stock" badge) reads its headlines as the cards'
//!   whole text, not block by block (`cards`), except on a page that declares itself one
//!   product, where a run of cards is what the shop recommends beside it. At a
//!   node the tree trusts, only a page that keeps no paragraph of its own, or whose records
//!   open it, is looked at, and only regions whose records are new to the page
//!   ([`new_records`]: their headlines counted on this page alone); their units are kept
//!   whole, the labels they repeat included (`trusted_listings`): records that change from
//!   page to page are content, a region that recurs on every page is template. A site's
//!   rotating lists (the latest stories under every article, new on each page) are records new
//!   to the page as much as a category's are, and nothing the records show tells them apart;
//!   an article at the node keeps its paragraphs under its title, a category or a shop's grid
//!   keeps none, or keeps them below the records that open it (a buying guide).
//! - **Collapsed sections** ([`show_panels`]): a page shows the heading of each section of a
//!   run and hides its text until a reader opens it: an accordion of a product's description,
//!   specifications and shipping, a guide's steps, a page's questions and answers. When every
//!   unit of a region shows part of itself and hides the rest, and the region's shown text is
//!   kept, the hidden text is the sections' own: the page is judged again with it shown, by
//!   every rule (a section in a marked sidebar, outside the main subtree or made of links is
//!   still dropped). What a page hides on its own, not as part of every unit of a run (a
//!   dialog, a menu's drawer, a machine copy of the article, a form's messages), stays hidden,
//!   and so do whole units hidden beside shown ones: a tab group's hidden panels beside its
//!   shown one were tried and are told from a hidden copy of the text beside the text no
//!   better than by class names (docs/page-kinds.md).
//!
//! Only blocks dropped as outside the main subtree (and, in a listing, as link-dense; in marked
//! units, as marked) are released, and only those the tree has counted on this page alone: what
//! the tree counts as the site's template, what it has seen on other pages of the node (the
//! teasers of a sidebar, the provided methods an API reference repeats), what the markup marks
//! otherwise and what the page hides stay dropped. On a domain's first page every block is the
//! page's own, and the structure decides alone.

use super::markup::in_page_footer;
use crate::tree::kind::{Layout, Region, Unit};
use crate::tree::{BlockFacts, Label, Reason};

/// Non-link characters from which a block is a paragraph of prose: two or three sentences. A
/// page that keeps none has no text of its own.
pub const PARAGRAPH: u32 = 150;

/// Non-link characters from which a block dropped outside the main subtree is a phrase of a
/// unit's own text (see [`super::main_text::BLOCK_COST`]): a unit whose dropped text is labels
/// and buttons is no evidence that the main text is one of its run.
pub const PHRASE: u32 = super::main_text::BLOCK_COST;

/// Units a region of records needs to be a listing: fewer is a pair of boxes, not a list.
pub const MIN_LISTING_UNITS: usize = 3;

/// Mean characters of a region's link blocks from which they read as headlines (four words or
/// so) rather than a menu's labels.
pub const HEADLINE_CHARS: u64 = 20;

/// Blocks a listing's unit holds at most on average: a record is a headline with a few facts
/// (a date, an author, tags, a price, a snippet; a community site's card holds a dozen); a unit
/// of more is a mega-menu's column or a page section.
pub const MAX_UNIT_BLOCKS: usize = 16;

/// Characters of the blocks with `verdict` among `indices`.
fn chars_where(
    blocks: &[BlockFacts<'_>],
    out: &[Reason],
    indices: impl Iterator<Item = usize>,
    verdict: impl Fn(Reason) -> bool,
) -> u64 {
    indices
        .filter(|&i| verdict(out[i]))
        .map(|i| u64::from(blocks[i].chars))
        .sum()
}

/// The characters of `block` outside links.
pub(super) fn own_chars(block: &BlockFacts<'_>) -> u64 {
    u64::from(block.chars.saturating_sub(block.link_chars))
}

/// True when the tree has counted `block` on this page alone at the deciding node (every block
/// of a domain's first page is).
pub(super) fn own_page(block: &BlockFacts<'_>) -> bool {
    block.count.is_some_and(|c| c <= 1)
}

/// Releases the blocks of `region` whose verdict `from` allows, when they are the page's own:
/// they are kept as units.
fn release(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    region: &Region,
    from: impl Fn(Reason) -> bool,
) {
    for i in region.blocks() {
        if from(out[i]) && own_page(&blocks[i]) {
            out[i] = Reason::Unit;
        }
    }
}

/// The characters outside links of the kept paragraphs of a page (blocks of at least
/// [`PARAGRAPH`] such characters).
fn kept_prose(blocks: &[BlockFacts<'_>], out: &[Reason]) -> u64 {
    blocks
        .iter()
        .zip(out.iter())
        .filter(|(b, r)| r.label() == Label::Content && own_chars(b) >= u64::from(PARAGRAPH))
        .map(|(b, _)| own_chars(b))
        .sum()
}

/// On a page that keeps no paragraph of its own, or that declares itself a thread (`thread`),
/// keeps the blocks the markup dropped in each region whose units carry one and the same mark
/// (see [`unit_marks`]) around most of the region's text, when the text outside links of the
/// blocks so marked outweighs all the page kept; a declared product's reviews stay dropped
/// ([`marked_as_reviews`]). A thread's first post is a text of its own, and its replies are
/// marked as comments as often as an article's readers' are (Drupal's forums are its comment
/// module), but the page says what they are: its `QAPage` or `DiscussionForumPosting` is the
/// discussion, replies and all, where an article's comments follow a text that is the page's.
/// Returns the layout of the largest such region, `None` when there is none.
pub fn keep_marked_units(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    regions: &[Region],
    thread: bool,
) -> Option<Layout> {
    if !thread && kept_prose(blocks, out) > 0 {
        return None;
    }
    let kept = chars_where(blocks, out, 0..blocks.len(), |r| {
        r.label() == Label::Content
    });
    let mut found: Vec<&Region> = Vec::new();
    for region in regions {
        let Some(marks) = unit_marks(blocks, region) else {
            continue;
        };
        // The blocks under the units' common mark, and those of them the markup dropped.
        let marks = &marks;
        let under: Vec<usize> = region
            .units
            .iter()
            .flat_map(|u| {
                u.blocks
                    .clone()
                    .filter(move |&i| mark_place(&blocks[i], u).is_some_and(|m| marks.contains(&m)))
            })
            .collect();
        let region_chars: u64 = region.blocks().map(|i| u64::from(blocks[i].chars)).sum();
        let under_chars: u64 = under.iter().map(|&i| u64::from(blocks[i].chars)).sum();
        if 2 * under_chars < region_chars {
            continue;
        }
        let marked: Vec<usize> = under
            .into_iter()
            .filter(|&i| out[i] == Reason::Marked && own_page(&blocks[i]))
            .filter(|&i| !marked_as_reviews(&blocks[i]) && !in_page_footer(&blocks[i]))
            .collect();
        let own: u64 = marked.iter().map(|&i| own_chars(&blocks[i])).sum();
        if own > kept {
            for i in marked {
                out[i] = Reason::Unit;
            }
            found.push(region);
        }
    }
    let largest = found.iter().max_by_key(|r| r.blocks().count())?;
    Some(Layout::Posts {
        units: largest.units.len() as u32,
    })
}

/// The places (see [`mark_place`]) where most units of `region` carry a mark, sorted; `None`
/// when some unit carries no mark, or a mark from around the region, or no place is common to
/// most units. A class word that names the kind of unit (`ipsComment`, `commentBody`: every
/// post of a thread is "a comment"; a page builder's `widget`) marks the units at one place; a
/// region of a page's outer containers (its header, its main column, its footer, a cookie
/// dialog) holds marks too, each at a place of its own.
fn unit_marks(blocks: &[BlockFacts<'_>], region: &Region) -> Option<Vec<u64>> {
    let mut all: Vec<u64> = Vec::new();
    for unit in &region.units {
        let mut marks = blocks[unit.blocks.clone()].iter().filter_map(|b| b.marker);
        if marks.clone().next().is_none() || !marks.all(|m| m >= unit.element) {
            return None;
        }
        let start = all.len();
        all.extend(
            blocks[unit.blocks.clone()]
                .iter()
                .filter_map(|b| mark_place(b, unit)),
        );
        all[start..].sort_unstable();
        let mut seen = start;
        for k in start..all.len() {
            if k == start || all[k] != all[seen - 1] {
                all[seen] = all[k];
                seen += 1;
            }
        }
        all.truncate(seen);
    }
    all.sort_unstable();
    let units = region.units.len();
    let common: Vec<u64> = all
        .chunk_by(|a, b| a == b)
        .filter(|run| 2 * run.len() > units)
        .map(|run| run[0])
        .collect();
    (!common.is_empty()).then_some(common)
}

/// True when the innermost region that marks `block` is named as reviews: on a page that
/// declares a product, the region of its customers' reviews (see
/// [`mark_reviews`](super::markup::mark_reviews)). Each review carries the region's mark as a
/// thread's post carries "comment", but it is what a reader says of the page's product, beside
/// it, not the page's content, however little text the product's own description keeps.
fn marked_as_reviews(block: &BlockFacts<'_>) -> bool {
    block.reviews.is_some() && block.marker == block.reviews
}

/// Where the mark of `block` lies in `unit`: the tags from the unit's element down to the
/// marking element, hashed; `None` when the block is unmarked or its mark lies
/// around the unit rather than at or inside its element.
fn mark_place(block: &BlockFacts<'_>, unit: &Unit) -> Option<u64> {
    let marker = block.marker?;
    let a = block.ancestors;
    let top = a.iter().position(|&e| e == unit.element)?;
    let at = a.iter().position(|&e| e == marker)?;
    if at < top {
        return None;
    }
    // The tags of `ancestors` are the last `a.len()` segments of the path.
    let tags: Vec<&str> = block.path.rsplit('/').take(a.len()).collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for k in top..=at {
        let tag = tags.get(a.len() - 1 - k).copied().unwrap_or("");
        for &b in tag.as_bytes().iter().chain(b"/") {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    Some(h)
}

/// Keeps, in each region whose units hold at least half of the page's kept text, the blocks of
/// its units dropped as outside the main subtree, when their own text (in phrases of at least
/// [`PHRASE`] characters) is at least half of what the units kept and lies in two units or more,
/// and the units beside the one the main subtree chose hold at least half as much text as it
/// keeps (a run of alike units, not a page's columns: a header, the article, a sidebar): the
/// main text is one of a run of alike units, so it is all of them. Returns
/// the layout of the largest region widened to: sections when most of its units begin with a
/// heading, posts otherwise (an author's name, a date); `None` when none was.
pub fn widen_to_units(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    regions: &[Region],
) -> Option<Layout> {
    let content = |r: Reason| r.label() == Label::Content;
    let kept = chars_where(blocks, out, 0..blocks.len(), content);
    if kept == 0 {
        return None;
    }
    let widened: Vec<&Region> = regions
        .iter()
        .filter(|region| {
            let inside = chars_where(blocks, out, region.blocks(), content);
            if 2 * inside < kept {
                return false;
            }
            // Per unit: its kept text and its own dropped text, in phrases.
            let per: Vec<(u64, u64)> = region
                .units
                .iter()
                .map(|unit| {
                    let kept = chars_where(blocks, out, unit.blocks.clone(), content);
                    let left = unit
                        .blocks
                        .clone()
                        .filter(|&i| out[i] == Reason::OutsideMainSubtree && own_page(&blocks[i]))
                        .map(|i| own_chars(&blocks[i]))
                        .filter(|&c| c >= u64::from(PHRASE))
                        .sum();
                    (kept, left)
                })
                .collect();
            let left: u64 = per.iter().map(|p| p.1).sum();
            let with_left = per.iter().filter(|p| p.1 > 0).count();
            // The unit the main subtree chose, and what the others hold beside it.
            let Some(chosen) = (0..per.len()).max_by_key(|&u| per[u].0) else {
                return false;
            };
            let others: u64 = per
                .iter()
                .enumerate()
                .filter(|&(u, _)| u != chosen)
                .map(|(_, p)| p.0 + p.1)
                .sum();
            2 * left >= inside && with_left >= 2 && 2 * others >= per[chosen].0
        })
        .collect();
    for region in &widened {
        release(blocks, out, region, |r| r == Reason::OutsideMainSubtree);
    }
    let largest = widened.iter().max_by_key(|r| r.blocks().count())?;
    let units = largest.units.len() as u32;
    let headed = largest
        .units
        .iter()
        .filter(|u| blocks[u.blocks.start].heading)
        .count();
    Some(if 2 * headed > largest.units.len() {
        Layout::Sections { units }
    } else {
        Layout::Posts { units }
    })
}

/// The page's blocks with the hidden text of its sections shown, or `None` when it has none: a
/// region whose every unit shows some of its blocks and hides others (dropped as hidden), and
/// which keeps some of its shown text, is a run of collapsed sections (a heading shown over a
/// text a reader opens); their hidden blocks are shown, and the page is judged again by every
/// rule.
pub fn show_panels<'a>(
    blocks: &[BlockFacts<'a>],
    out: &[Reason],
    regions: &[Region],
) -> Option<Vec<BlockFacts<'a>>> {
    let mut shown: Option<Vec<BlockFacts<'a>>> = None;
    for region in regions {
        let kept = region
            .blocks()
            .any(|i| blocks[i].hidden.is_none() && out[i].label() == Label::Content);
        let sections = region.units.iter().all(|unit| {
            unit.blocks.clone().any(|i| blocks[i].hidden.is_none())
                && unit.blocks.clone().any(|i| out[i] == Reason::Hidden)
        });
        if kept && sections {
            let page = shown.get_or_insert_with(|| blocks.to_vec());
            for i in region.blocks() {
                page[i].hidden = None;
            }
        }
    }
    shown
}

/// Keeps the records of a page's largest region of records when the page is a listing: their
/// blocks dropped as link-dense or outside the main subtree. A page is a listing when its
/// records hold more text than it kept outside its regions of records (their summaries kept as
/// the units of sections are theirs) and either it keeps no paragraph of its own, or what it
/// keeps goes with the listing: the records hold at least [`INTRO_SHARE`] times as much text,
/// and either most of the kept text comes before them (a category's description above its
/// grid, a section's lead above its stories; an article's text beside a list of related
/// stories is comparable to the list, and a sidebar beside it is no region its text leads
/// into) or the records open the page (see [`opens_page`]: a category's grid under its title,
/// its buying guide below). At a trusted node a page that keeps a text of its own is a listing
/// only where its records open it. Regions of link lists (see [`link_lists`]) are no records.
/// Returns the listing's layout, `None` when the page is no listing.
pub fn keep_listing(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    regions: &[Region],
    how: Listings,
) -> Option<Layout> {
    let trusted = how.trusted;
    let kept = chars_where(blocks, out, 0..blocks.len(), |r| {
        r.label() == Label::Content
    });
    let prose = kept_prose(blocks, out) > 0;
    let lists = LinkLists::of(blocks, regions);
    let records: Vec<(&Region, Records)> = regions
        .iter()
        .filter_map(|r| records(blocks, r, how).map(|c| (r, c)))
        // A grid of bare headline links is a category's only where the page's own text
        // introduces it: beside a short post it is a sidebar's or a footer's list of stories.
        .filter(|(_, c)| prose || !c.bare)
        .filter(|(r, _)| !lists.holds(blocks, r))
        .filter(|(r, _)| !trusted || new_records(blocks, r))
        .collect();
    let &(region, Records { chars, bare }) = records.iter().max_by_key(|(_, c)| c.chars)?;
    // The records' own text that the units rule kept (a front page's summaries under their
    // sections' headings) is not a text of the page's set against them.
    let mut in_records = vec![false; blocks.len()];
    for (r, _) in &records {
        for i in r.blocks() {
            in_records[i] = true;
        }
    }
    let outside = (0..blocks.len()).filter(|&i| !in_records[i]);
    if chars < chars_where(blocks, out, outside, |r| r.label() == Label::Content) {
        return None;
    }
    if prose {
        let first = region.units.first().map_or(0, |u| u.blocks.start);
        let before = chars_where(blocks, out, 0..first, |r| r.label() == Label::Content);
        let introduced = 2 * before >= kept;
        let opens = !bare && opens_page(blocks, out, first);
        // At a trusted node, a page with a text of its own is its node's article, the records
        // new to it the site's rotating lists (see the module's notes), unless they open it.
        if chars < INTRO_SHARE * kept || !(opens || (introduced && !trusted)) {
            return None;
        }
    }
    // A listing's page holds its records in every region of records, not the largest alone:
    // a front page's sections, a category's featured and regular products.
    for (region, _) in &records {
        if trusted {
            for i in region.blocks() {
                if matches!(
                    out[i],
                    Reason::LinkDense
                        | Reason::OutsideMainSubtree
                        | Reason::Template
                        | Reason::Repeated
                ) {
                    out[i] = Reason::Unit;
                }
            }
        } else {
            release(blocks, out, region, |r| {
                matches!(r, Reason::LinkDense | Reason::OutsideMainSubtree)
            });
        }
    }
    Some(Layout::Listing {
        units: region.units.len() as u32,
    })
}

/// True when records starting at block `first` open the page: they follow its `<h1>` with
/// nothing kept between. A listing's title heads its records (a category's name above its
/// grid); an article's title heads its text, and the stories it lists come after that text. A
/// grid of bare headline links does not open a page this way: a filter's or a menu's links sit
/// under a title as readily.
fn opens_page(blocks: &[BlockFacts<'_>], out: &[Reason], first: usize) -> bool {
    blocks[..first]
        .iter()
        .rposition(|b| b.h1)
        .is_some_and(|h1| {
            chars_where(blocks, out, h1 + 1..first, |r| r.label() == Label::Content) == 0
        })
}

/// How [`keep_listing`] looks for records: at a node the tree trusts (only records the page
/// alone holds, see [`new_records`]), and whether grids of bare headline links count.
#[derive(Clone, Copy, Debug)]
pub struct Listings {
    /// The tree trusts the page's node.
    pub trusted: bool,
    /// A region whose every unit is one headline link reads as records when the page's text
    /// introduces it.
    pub grids: bool,
    /// A run of cards, each opened by a link and mostly link text, has headlines as long as
    /// the cards (see [`cards`]).
    pub cards: bool,
    /// The page declares itself one product: a run of cards on it is of other products (what
    /// a shop recommends beside the product), not records of the page.
    pub product: bool,
}

/// True when a page at a trusted node may be a listing of records new to it: at least
/// [`MIN_LISTING_UNITS`] blocks the page alone holds were dropped as link-dense headlines,
/// they weigh at least a third ([`INTRO_SHARE`]) of what the page kept (a listing's records
/// outweigh its kept text, and their headlines are a good part of them), and the page keeps no
/// paragraph of its own ([`PARAGRAPH`]) or [`MIN_LISTING_UNITS`] of the headlines follow its
/// `<h1>` with nothing kept between (records that may open the page, see [`keep_listing`]). A
/// cheap test before the page's regions are looked for.
pub fn may_list_new_records(blocks: &[BlockFacts<'_>], out: &[Reason]) -> bool {
    let (mut headlines, mut chars, mut kept) = (0usize, 0u64, 0u64);
    // Headlines after the `<h1>` with nothing kept between, while they run.
    let (mut prose, mut after_h1, mut opened) = (false, None, false);
    for (b, &r) in blocks.iter().zip(out) {
        if r.label() == Label::Content {
            prose |= own_chars(b) >= u64::from(PARAGRAPH);
            after_h1 = b.h1.then_some(0);
            kept += u64::from(b.chars);
        } else if b.h1 {
            after_h1 = Some(0);
        } else if r == Reason::LinkDense && own_page(b) && u64::from(b.chars) >= HEADLINE_CHARS {
            after_h1 = after_h1.map(|n| n + 1);
            opened |= after_h1 >= Some(MIN_LISTING_UNITS);
            headlines += 1;
            chars += u64::from(b.chars);
        }
    }
    headlines >= MIN_LISTING_UNITS && INTRO_SHARE * chars >= kept && (!prose || opened)
}

/// True when most units of `region` hold a headline the page alone holds: records that change
/// from page to page.
fn new_records(blocks: &[BlockFacts<'_>], region: &Region) -> bool {
    let new = region
        .units
        .iter()
        .filter(|u| {
            blocks[u.blocks.clone()]
                .iter()
                .any(|b| own_page(b) && link_dense(b) && u64::from(b.chars) >= HEADLINE_CHARS)
        })
        .count();
    2 * new > region.units.len()
}

/// How many times the text it keeps a page's records hold at least when that text is their
/// introduction: a listing's description is a paragraph or two above dozens of records, where
/// an article's related stories or a post's teasers weigh about as much as its text.
pub const INTRO_SHARE: u64 = 3;

/// Non-link characters of a block from which it is a text of its own, not a record's teaser:
/// a teaser is cut to a sentence or two ([`PARAGRAPH`]), a quotation, a post or an article
/// shown whole runs longer.
pub const TEASER_CHARS: u32 = 2 * PARAGRAPH;

/// The widgets of a page's sidebars and footers: units (of any region) that hold a heading of
/// their own words, not the page's `<h1>`, and whose text lies mostly in lists of bare links
/// (regions of at least [`MIN_LISTING_UNITS`] units, most of them a single link-dense block:
/// "Recent posts", "Categories", "Links"). A column of such widgets is a run of alike units
/// whose items read as headlines, but its items are lists, not records. The page's title heads
/// its main text: a shop's category whose cards each list their features as links lies under
/// it, and is no widget.
struct LinkLists {
    /// The widgets' block ranges.
    widgets: Vec<std::ops::Range<usize>>,
}

impl LinkLists {
    /// The widgets of the page of `blocks` and `regions`.
    fn of(blocks: &[BlockFacts<'_>], regions: &[Region]) -> LinkLists {
        // Characters in bare link lists, as prefix sums over the blocks.
        let mut in_list = vec![false; blocks.len()];
        for region in regions {
            let bare = region
                .units
                .iter()
                .filter(|u| u.blocks.len() == 1 && link_dense(&blocks[u.blocks.start]))
                .count();
            if region.units.len() >= MIN_LISTING_UNITS && 2 * bare > region.units.len() {
                for i in region.blocks() {
                    in_list[i] = true;
                }
            }
        }
        let mut listed = Vec::with_capacity(blocks.len() + 1);
        let mut total = Vec::with_capacity(blocks.len() + 1);
        let (mut l, mut t) = (0u64, 0u64);
        listed.push(0);
        total.push(0);
        for (b, &listed_here) in blocks.iter().zip(&in_list) {
            t += u64::from(b.chars);
            if listed_here {
                l += u64::from(b.chars);
            }
            listed.push(l);
            total.push(t);
        }
        let widgets = regions
            .iter()
            .flat_map(|r| r.units.iter())
            .filter(|u| {
                let (s, e) = (u.blocks.start, u.blocks.end);
                // The page's title heads its main text, not a widget beside it.
                let headed = blocks[s..e]
                    .iter()
                    .any(|b| b.heading && !b.h1 && !link_dense(b));
                headed && 2 * (listed[e] - listed[s]) > total[e] - total[s]
            })
            .map(|u| u.blocks.clone())
            .collect();
        LinkLists { widgets }
    }

    /// True when `region` lies inside a widget, or most of its text is in units that are
    /// widgets.
    fn holds(&self, blocks: &[BlockFacts<'_>], region: &Region) -> bool {
        let (Some(first), Some(last)) = (region.units.first(), region.units.last()) else {
            return false;
        };
        let span = first.blocks.start..last.blocks.end;
        if self
            .widgets
            .iter()
            .any(|w| w.start <= span.start && span.end <= w.end)
        {
            return true;
        }
        let chars = |r: std::ops::Range<usize>| -> u64 {
            blocks[r].iter().map(|b| u64::from(b.chars)).sum()
        };
        let all: u64 = region.units.iter().map(|u| chars(u.blocks.clone())).sum();
        let widgets: u64 = region
            .units
            .iter()
            .filter(|u| self.widgets.contains(&u.blocks))
            .map(|u| chars(u.blocks.clone()))
            .sum();
        2 * widgets > all
    }
}

/// The characters of `region` when its units read as records (see [`keep_listing`]): most
/// units hold no text of their own longer than a teaser ([`TEASER_CHARS`]).
fn records(blocks: &[BlockFacts<'_>], region: &Region, how: Listings) -> Option<Records> {
    let units = region.units.len();
    if units < MIN_LISTING_UNITS {
        return None;
    }
    let (mut chars, mut marked, mut hidden, mut count) = (0u64, 0u64, 0u64, 0usize);
    let (mut link_blocks, mut link_block_chars) = (0u64, 0u64);
    for i in region.blocks() {
        let b = &blocks[i];
        let c = u64::from(b.chars);
        chars += c;
        count += 1;
        if b.hint == crate::blocks::Hint::Boilerplate {
            marked += c;
        }
        if b.hidden.is_some() {
            hidden += c;
        }
        if link_dense(b) {
            link_blocks += 1;
            link_block_chars += c;
        }
    }
    let texts = region
        .units
        .iter()
        .filter(|u| {
            blocks[u.blocks.clone()]
                .iter()
                .any(|b| own_chars(b) > u64::from(TEASER_CHARS))
        })
        .count();
    // A headline is a line: a link block of more (a filter's list of languages run into one
    // line of links) is a menu.
    let lines = link_block_chars <= u64::from(TEASER_CHARS) * link_blocks;
    let headlines = link_blocks == 0
        || (link_block_chars >= HEADLINE_CHARS * link_blocks && lines)
        || (how.cards
            && !how.product
            && cards(blocks, region)
            && chars >= HEADLINE_CHARS * units as u64);
    // More than a headline each, or a grid of cards each one headline link (`grids`).
    let bare = count == units && link_blocks as usize == units;
    let more = count > units || (how.grids && bare);
    let ok = 2 * marked <= chars
        && 2 * hidden <= chars
        && headlines
        && more
        && count <= MAX_UNIT_BLOCKS * units
        && 2 * texts <= units;
    ok.then_some(Records { chars, bare })
}

/// True when a block is mostly a link's text.
fn link_dense(block: &BlockFacts<'_>) -> bool {
    2 * block.link_chars > block.chars
}

/// True when most units of `region` are cards: opened by a link's text, with two link blocks or
/// more that hold most of the unit's text. A card that one link wraps whole (a job's title,
/// company, place and pay; a product's name and price) is one headline split into blocks by its
/// layout: its link blocks are its facts as much as its title, each short, and read one by one
/// none is a headline. Read as one, the card is a headline ([`HEADLINE_CHARS`] characters or
/// more on average). What a card shows outside its link (a shop's "Low stock" badge, a
/// favourite button's label) is a label on the tile, not text of its own. A menu's column is
/// links too, but it opens with its label, not a link, and its place (a `<nav>`, a header) and
/// its lists of bare links tell it apart ([`records`], [`LinkLists`]).
fn cards(blocks: &[BlockFacts<'_>], region: &Region) -> bool {
    let cards = region
        .units
        .iter()
        .filter(|u| {
            let unit = &blocks[u.blocks.clone()];
            let (mut links, mut link_text, mut text) = (0usize, 0u64, 0u64);
            for b in unit {
                text += u64::from(b.chars);
                if link_dense(b) {
                    links += 1;
                    link_text += u64::from(b.chars);
                }
            }
            unit.first().is_some_and(link_dense) && links >= 2 && 2 * link_text > text
        })
        .count();
    2 * cards > region.units.len()
}

/// A region that reads as records: its characters, and whether every unit is one headline
/// link and nothing more (a grid of cards).
#[derive(Clone, Copy, Debug)]
struct Records {
    chars: u64,
    bare: bool,
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        assert_rule_pays_by, corpus_pages, f1_with_and_without, first_page, judge, judge_page,
        parse, phrases_found,
    };
    use super::super::{Params, Rules};
    use crate::eval::score_page;

    /// Real pages of each class on a domain's first page: with the units rules the phrases of
    /// their main text are found; without the one rule that judges their units, most are lost,
    /// and no more of the phrases outside the main text are kept than the rule's absence keeps
    /// plus one.
    #[test]
    fn the_units_of_real_threads_listings_and_landing_pages_are_kept() {
        let cases = [
            // Q&A threads: the main subtree settles on one post. (A thread whose posts lie in a
            // `role=main` is widened by `main_sections` before the units are looked at.)
            (
                "https://superuser.com/questions/442960/windows-7-explorer-keyboard-shortcut-set-focus-to-files-folders-content-area",
                "units",
            ),
            (
                "https://serverfault.com/questions/2888/why-is-raid-not-a-backup",
                "units",
            ),
            // A listing whose every item is a link.
            ("https://news.ycombinator.com/newest", "listings"),
            // A collection of products.
            (
                "https://www.anthropologie.com/collection-decorative-candles",
                "listings",
            ),
            // Listings introduced by a paragraph of the page's own: a catalogue of courses, a
            // shop's category under its description.
            (
                "https://professional.mit.edu/certificate-programs",
                "listings",
            ),
            (
                "https://www.projectorscreenstore.com/native-4k-projectors?srsltid=AfmBOoqrsJcKoiaxsElfKN4sur5217wop7C5b-XD_4MunbMvxk9UU2NC",
                "listings",
            ),
            (
                "https://www.whiteflowerfarm.com/indoor-pottery?srsltid=AfmBOoqVlD3hpoSJAw0_LMpQLRmuht64YCzYMgtvZT6jVaeZDDY0ePXp",
                "listings",
            ),
            // A grid of cards, each one headline link, under the page's introduction.
            (
                "https://www.seriouseats.com/tomato-sauce-recipes-5117879",
                "grids",
            ),
            // Cards that one link each wraps whole: a job board's jobs (title, company, place,
            // pay).
            (
                "https://weworkremotely.com/categories/remote-full-stack-programming-jobs",
                "cards",
            ),
        ];
        let urls: Vec<&str> = cases.iter().map(|(url, _)| *url).collect();
        for ((url, rule), (html, _, snippets)) in
            cases.into_iter().zip(corpus_pages("wcxb-dev", &urls))
        {
            let (with, leaked) = phrases_found(&html, &snippets, Rules::default());
            let rules = Rules::default().without(rule).expect("a rule");
            let (without, leaked_without) = phrases_found(&html, &snippets, rules);
            let total = snippets.with.len();
            assert!(
                2 * with > total && with >= without + 2,
                "{url}: {with} of {total} phrases with the rules, {without} without {rule}"
            );
            assert!(
                leaked <= leaked_without + 1,
                "{url}: {leaked} vs {leaked_without}"
            );
        }
    }

    #[test]
    fn a_story_with_related_links_is_no_listing() {
        // A text of its own (well over a thousand characters of paragraphs) beside a list of
        // related stories: the list stays dropped.
        let para = "The council voted on Tuesday to close the old bridge for repairs, a decision \
            that will send traffic through the town centre for most of next year, officials said.";
        let mut html = format!(
            "<html><body><main><h1>Bridge to close</h1><div class=\"story\">{}</div>",
            (0..8).map(|_| format!("<p>{para}</p>")).collect::<String>()
        );
        html.push_str("<div class=\"more\">");
        for n in 0..12 {
            html.push_str(&format!(
                r#"<div class="teaser"><h3><a href="/s/{n}">Another story of the week number {n} worth reading</a></h3></div>"#
            ));
        }
        html.push_str("</div></main></body></html>");
        let (kept, _) = judge(&html, Rules::default());
        assert!(
            !kept.iter().any(|t| t.starts_with("Another story")),
            "{kept:?}"
        );
        assert_eq!(kept.iter().filter(|t| *t == para).count(), 8);
    }

    #[test]
    fn records_that_open_the_page_are_kept_above_its_text() {
        // A category's grid right under its title, its buying guide below: the records open the
        // page and are its content, the guide with them.
        let guide = "Insulated bottles keep drinks cold for a day and hot for half of one, while \
            plastic ones weigh less and cost less; choose the mouth by how you fill and clean it.";
        let mut html = String::from("<html><body><main><h1>Water bottles</h1><ul class=\"grid\">");
        for n in 10..30 {
            html.push_str(&format!(
                r#"<li class="card"><a href="/p/{n}"><h3>Trail bottle model {n}, vacuum insulated, 32 fl. oz.</h3></a><span>${n}.95</span></li>"#
            ));
        }
        html.push_str(&format!(
            "</ul><div class=\"guide\"><h2>How to choose</h2><p>{guide}</p><p>{guide}</p></div></main></body></html>"
        ));
        let (kept, _) = judge(&html, Rules::default());
        let cards = kept
            .iter()
            .filter(|t| t.starts_with("Trail bottle"))
            .count();
        assert_eq!(cards, 20, "{kept:?}");
        assert_eq!(kept.iter().filter(|t| *t == guide).count(), 2);
        // The same records under a text that comes first are an article's related stories.
        let story = html.replacen(
            "<ul class=\"grid\">",
            &format!("<p>{guide}</p><ul class=\"grid\">"),
            1,
        );
        let (kept, _) = judge(&story, Rules::default());
        assert!(
            !kept.iter().any(|t| t.starts_with("Trail bottle")),
            "{kept:?}"
        );
    }

    #[test]
    fn cards_with_labels_outside_their_links_are_records_beside_no_declared_product() {
        // Zappos's sneakers (a `Product` declared per tile: no product page) and Joco's shop:
        // each tile is its links, beside a "Low Stock" badge or a favourite button's label.
        let urls = [
            "https://www.zappos.com/women-sneakers-athletic-shoes",
            "https://jococups.com/shop/",
        ];
        let pages = corpus_pages("wcxb-dev", &urls);
        for (url, (html, gold, _)) in urls.iter().zip(&pages) {
            let (with, without) = f1_with_and_without(html, gold, "cards", judge_page);
            assert!(
                with > without + 0.3,
                "{url}: {with:.3} against {without:.3}"
            );
        }
        // On a page that declares itself one product, such cards are what the shop recommends
        // beside it.
        let (html, gold, _) = &pages[0];
        let blocks = parse(html);
        let facts = first_page(&blocks);
        let node = crate::tree::NodeFacts {
            support: 1,
            c_max: 1,
            path_support: 1,
        };
        let f1 = |product: bool| {
            let mut out = Vec::new();
            let claims = super::super::Claims {
                declared: product.then_some(crate::tree::kind::Kind::Product),
                ..super::super::Claims::default()
            };
            super::super::classify(&facts, node, &Params::default(), claims, &mut out);
            let kept: Vec<&str> = blocks
                .iter()
                .zip(&out)
                .filter(|(_, r)| r.label() == crate::tree::Label::Content)
                .map(|(b, _)| b.text.as_str())
                .collect();
            score_page(&kept.join("\n"), gold).f1
        };
        let (listing, product) = (f1(false), f1(true));
        assert!(listing > product + 0.3, "{listing:.3} against {product:.3}");
    }

    #[test]
    fn cards_listing_their_features_as_links_under_the_title_are_no_widgets() {
        // A shop's category: under its `<h1>`, fifty cards, each a name and a list of its
        // features, every one a link. The lists are bare link lists, but the page's title heads
        // them, not a sidebar's widget: the cards are the listing's records.
        let url = "https://www.thomann.de/gb/studio_headphones.html";
        let (html, gold, _) = corpus_pages("wcxb-dev", &[url]).remove(0);
        let (with, without) =
            f1_with_and_without(&html, &gold, "listings", |html, rules| judge(html, rules).0);
        // Measured: 0.78 against 0.06.
        assert!(with > 0.7 && with > without + 0.5, "{with} vs {without}");
    }

    /// The kept text of `html` on a domain's first page scored against `gold` (word-LCS F1).
    fn f1(html: &str, gold: &str) -> f64 {
        score_page(&judge(html, Rules::default()).0.join("\n"), gold).f1
    }

    #[test]
    fn a_sidebar_of_link_lists_beside_a_short_post_is_no_listing() {
        // Blog posts of a few short lines (no paragraph of their own) beside a column of
        // widgets, each a heading over a list of bare links ("Most Popular Posts", "Story
        // Hour", "Favorite Art & Craft Books"): the widgets and the lists inside them are no
        // records, and the post alone is kept.
        let urls = [
            "http://unknown.invalid/dragnet/R721.html",
            "http://unknown.invalid/dragnet/R723.html",
        ];
        for (url, (html, gold, _)) in urls.iter().zip(corpus_pages("dragnet", &urls)) {
            let (kept, _) = judge(&html, Rules::default());
            assert!(
                !kept.iter().any(|t| t == "Thanksgiving Crafts for Kids"),
                "{url}: {kept:?}"
            );
            assert!(f1(&html, &gold) > 0.6, "{url}: {}", f1(&html, &gold));
        }
    }

    #[test]
    fn a_declared_products_reviews_are_no_thread() {
        // A guitar whose description is a list of specifications, no paragraph, above its
        // customers' reviews, each in a unit the reviews rule marks as a thread's posts are
        // marked by "comment": the reviews stay dropped, the specifications are kept.
        let url = "https://www.thomann.de/gb/fender_player_ii_strat_rw_bcg.htm";
        let [(html, gold, _)] = <[_; 1]>::try_from(corpus_pages("wcxb-dev", &[url]))
            .unwrap_or_else(|_| panic!("{url}"));
        let kept = super::super::fixtures::judge_page(&html, Rules::default());
        assert!(
            !kept
                .iter()
                .any(|t| t.contains("Genuine step up from player I")),
            "{kept:?}"
        );
        assert!(
            kept.iter().any(|t| t.contains("Fingerboard radius")),
            "{kept:?}"
        );
        let f1 = score_page(&kept.join("\n"), &gold).f1;
        assert!(f1 > 0.4, "{f1:.3}");
    }

    #[test]
    fn texts_shown_whole_under_a_text_are_no_records() {
        // A quotation page whose own text (one paragraph) is followed by six other quotations
        // shown whole, each in an article of its own: three times the text, after it, but
        // texts, not records of a listing.
        let url = "https://www.mensagensreflexao.com.br/quem-se-ama";
        let [(html, gold, _)] = <[_; 1]>::try_from(corpus_pages("scrapinghub-aeb", &[url]))
            .unwrap_or_else(|_| panic!("{url}"));
        let (kept, reasons) = judge(&html, Rules::default());
        assert!(!reasons.contains(&crate::tree::Reason::Unit), "{kept:?}");
        assert!(f1(&html, &gold) > 0.9, "{}", f1(&html, &gold));
    }

    #[test]
    fn the_collapsed_sections_of_real_pages_are_kept() {
        // A product's accordion (description, specifications, what is in the box), an
        // installation guide's steps and a course catalogue's questions: each section shows its
        // heading and hides its text until a reader opens it.
        let urls = [
            "https://www.solostove.com/eu/en-bg/p/solo-stove-summit?sku=SS24-SD-3.0",
            "https://www.energysage.com/solar/solar-panel-installation-guide-what-should-you-expect/",
            "https://alison.com/certificate-courses",
        ];
        assert_rule_pays_by(&urls, "panels", 0.1, |html, rules| judge(html, rules).0);
    }

    #[test]
    fn sections_are_shown_but_a_lone_dialog_and_a_hidden_copy_are_not() {
        // An FAQ of sections, each a question shown over its answer hidden; beside it a dialog
        // and a hidden copy of the text, neither one of a run of sections.
        let para = "Installing solar panels can offset your electric bill, and a home energy \
            audit first tells you what to fix before the installer comes to measure the roof.";
        let mut html = String::from("<html><body><main><h1>Solar, step by step</h1>");
        html.push_str(&format!("<p>{para}</p><div class=\"faq\">"));
        for n in 0..4 {
            html.push_str(&format!(
                "<div class=\"item\"><h3>Question number {n} about the panels</h3>\
                 <div style=\"display:none\"><p>Answer {n}: {para}</p></div></div>"
            ));
        }
        html.push_str(&format!(
            "</div><div hidden><p>Sign in to save this guide to your reading list.</p></div>\
             <div class=\"copy\" style=\"display:none\"><p>Copy: {para}</p></div>\
             </main></body></html>"
        ));
        let (kept, reasons) = judge(&html, Rules::default());
        assert_eq!(kept.iter().filter(|t| t.starts_with("Answer")).count(), 4);
        assert!(reasons.contains(&crate::tree::Reason::Hidden), "{kept:?}");
        assert!(!kept
            .iter()
            .any(|t| t.starts_with("Sign in") || t.starts_with("Copy")));
        let off = Rules::default().without("panels").expect("a rule");
        let (kept, _) = judge(&html, off);
        assert!(!kept.iter().any(|t| t.starts_with("Answer")), "{kept:?}");
    }

    #[test]
    fn marked_units_are_units_that_carry_one_mark_around_their_text() {
        // Threads whose posts carry one class word each (a comment's), at one place in every
        // post: the posts are kept, and without `marked_units` most of the thread is lost.
        let threads = [
            "https://discussion.evernote.com/forums/topic/150745-new-ui-2024/",
            "https://forum.prestashop.com/topic/1103020-payment-issues-how-to-delete-or-change-payment-method/",
        ];
        for (url, (html, gold, _)) in threads.iter().zip(corpus_pages("wcxb-dev", &threads)) {
            let (with, off) = f1_with_and_without(&html, &gold, "marked_units", |html, rules| {
                judge(html, rules).0
            });
            assert!(with > 0.6 && with > off + 0.3, "{url}: {with} vs {off}");
        }
        // A news section whose outer containers (header, main column, footer, a consent
        // dialog) each hold marks of their own, at places of their own: no marked units, and
        // the dialog stays dropped while the listing is kept.
        let url = "https://www.aljazeera.com/economy/";
        let [(html, gold, _)] = <[_; 1]>::try_from(corpus_pages("wcxb-dev", &[url]))
            .unwrap_or_else(|_| panic!("{url}"));
        let (kept, _) = judge(&html, Rules::default());
        assert!(
            !kept
                .iter()
                .any(|t| t.starts_with("We and our 977 partners")),
            "{kept:?}"
        );
        assert!(f1(&html, &gold) > 0.6, "{}", f1(&html, &gold));
    }
    #[test]
    fn a_declared_threads_replies_marked_as_comments_are_its_posts() {
        // One page's question and the replies under it, each reply marked as a comment (a
        // Drupal forum's markup); the replies outweigh the question. Declared a `QAPage`, the
        // replies are the thread's posts; declared an article, they are its readers' comments.
        let reply = |who: &str| {
            format!(
                "<li class=\"comment\"><div class=\"comment-author\">{who}</div>\
                 <div class=\"comment-body\"><p>I moved from banking to a strategy firm two \
                 years ago and the hours are better than people say. The travel is the part \
                 that wears you down, and the exit options are as good as you have heard. \
                 Ask the people at the firm how often they are home on a Thursday.</p></div></li>"
            )
        };
        let page = |declared: &str| {
            format!(
                "<html><head><script type=\"application/ld+json\">{{\"@type\": \"{declared}\"}}\
                 </script></head><body><main><h1>Consulting: is it worth it?</h1>\
                 <div class=\"post\"><p>I am finishing my degree and have done two internships \
                 at consultancies. My managers warned me the work would eat my life, my \
                 friends and my health. Would you go into consulting again if you started \
                 over, and what would you tell someone about to sign?</p></div>\
                 <ul class=\"comments\">{}{}{}{}</ul></main></body></html>",
                reply("Alex"),
                reply("Sam"),
                reply("Kim"),
                reply("Lee")
            )
        };
        let replies = |kept: &[String]| {
            kept.iter()
                .filter(|t| t.starts_with("I moved from banking"))
                .count()
        };
        let thread = judge_page(&page("QAPage"), Rules::default());
        assert!(thread.iter().any(|t| t.starts_with("I am finishing")));
        assert_eq!(replies(&thread), 4, "{thread:?}");
        let article = judge_page(&page("Article"), Rules::default());
        assert!(article.iter().any(|t| t.starts_with("I am finishing")));
        assert_eq!(replies(&article), 0, "{article:?}");
        let off = Rules::default().without("thread_replies").expect("a rule");
        assert_eq!(replies(&judge_page(&page("QAPage"), off)), 0);
        // A real thread so declared, its answers marked as comments: without the rule only the
        // question is kept.
        let url = "https://www.wallstreetoasis.com/forum/consulting/consulting-is-it-worthy";
        let [(html, gold, _)] = <[_; 1]>::try_from(corpus_pages("wcxb-dev", &[url]))
            .unwrap_or_else(|_| panic!("{url}"));
        let (with, without) = f1_with_and_without(&html, &gold, "thread_replies", judge_page);
        assert!(
            with > 0.7 && with > without + 0.3,
            "{with:.3} against {without:.3}"
        );
    }

    #[test]
    fn a_front_page_keeps_the_records_of_every_section() {
        // Front pages of several sections of records (top stories, then a section per topic):
        // the largest section alone is a third of the gold, every section of records most of it.
        let urls = ["https://www.bbc.com/news", "https://arstechnica.com/"];
        for (url, (html, gold, _)) in urls.iter().zip(corpus_pages("wcxb-dev", &urls)) {
            assert!(f1(&html, &gold) > 0.75, "{url}: {}", f1(&html, &gold));
        }
    }
}
