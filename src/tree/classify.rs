//! Classification behind one interface (DESIGN §2.6, §2.8): the paper's heuristics and `hybrid`
//! are implementations of [`Classifier`], so the engine's classify stage is the same whichever
//! is configured.
//!
//! A classifier sees a page as [`BlockFacts`] (what the page and the tree say of each block) and
//! the deciding node as [`NodeFacts`], and gives each block a [`Reason`] whose [`Label`] is the
//! verdict. The literature's methods ([`super::classic`]) read the page itself as well, its
//! blocks' text and the markup around them: the engine hands every classifier the [`Page`] too.
//! Pure decisions, free of I/O.

use super::classic;
use super::heuristic::{Choice, Heuristic, Label};
use super::hybrid::{Hybrid, Prefs, Rules};
use super::kind::{Kind, Layout};
pub use crate::blocks::Hint;
use crate::blocks::{Block, BlockHash, PageStats};

/// Decides which blocks of a page are content.
///
/// Guarantees every implementation gives: [`Classifier::classify`] writes exactly one reason per
/// block, in block order; a block without letters (`count == None`) is never content but as a
/// figure inside the main text ([`Reason::WithinText`], `hybrid` only); the result depends only on
/// its arguments, so a replayed page is classified alike.
pub trait Classifier: Send + Sync {
    /// The heuristic this classifier implements, named in output records and the config.
    fn heuristic(&self) -> Heuristic;

    /// Picks the deciding node from the supports along the page's branch (root first, leaf
    /// last). Guarantees `depth < supports.len()` for a non-empty slice.
    fn choose(&self, supports: &[u64]) -> Choice {
        self.heuristic().choose(supports)
    }

    /// True when [`Classifier::classify`] reads the element-path count of a block of `chars`
    /// characters at a node of `support` pages ([`NodeFacts::path_support`]); the engine reads
    /// only those counts and passes 0 for the others.
    fn wants_path_count(&self, _chars: u32, _support: u64) -> bool {
        false
    }

    /// True when the classifier reads what the domain's mutually linked pages say of a page
    /// ([`Page::linked`]): the engine then records each page's links and element signatures,
    /// keeps them with its fingerprint and looks up the pages it links to.
    fn reads_links(&self) -> bool {
        false
    }

    /// Classifies the blocks of one page at the chosen node; `out` is cleared and receives one
    /// reason per block, in order.
    fn classify(&self, blocks: &[BlockFacts<'_>], node: NodeFacts, out: &mut Vec<Reason>);

    /// Classifies the blocks of one page with the page itself at hand (`facts` are those of
    /// `page.blocks`, in order); the engine calls this. Returns how the main content kept is
    /// laid out (one text, posts, sections, a listing's items), the structural evidence of the
    /// page's kind. The default judges the facts alone, as the paper's rule does, and does not
    /// look at the layout ([`Layout::Unknown`]); the literature's methods read the page.
    fn classify_page(
        &self,
        page: &Page<'_>,
        facts: &[BlockFacts<'_>],
        node: NodeFacts,
        out: &mut Vec<Reason>,
    ) -> Layout {
        let _ = page;
        self.classify(facts, node, out);
        Layout::Unknown
    }
}

/// The page a classifier judges, as the tokenizer gave it.
#[derive(Clone, Copy, Debug)]
pub struct Page<'a> {
    /// The page's blocks, in document order: their text, element paths and extents in the
    /// markup.
    pub blocks: &'a [Block],
    /// The page's length in bytes (the markup after its last block ends there).
    pub html_bytes: usize,
    /// The tokenizer's facts of the whole page (its tag totals).
    pub stats: PageStats,
    /// What the domain's mutually linked pages say of the page, for a classifier that
    /// [reads links](Classifier::reads_links); `None` otherwise.
    pub linked: Option<&'a classic::link_template::Linked>,
    /// The kind the page declares its main entity to be (its schema.org type or `og:type`,
    /// [`declared_main_kind`](crate::tree::kind::declared_main_kind)): one product for sale, a
    /// thread, an article, ...; `None` when it declares none.
    pub declared: Option<Kind>,
    /// Its URL files it as documentation ([`documentation_url`](crate::tree::kind::documentation_url)):
    /// a segment of its path such as `docs` or `manual`, or a `docs.` host. The URL tree's own
    /// evidence that the page documents something, whatever its text holds.
    pub documentation_url: bool,
    /// A type it declares, in JSON-LD, `og:type` or a microdata item, names a thread
    /// ([`declares_thread`](crate::tree::kind::declares_thread)): a question and its answers, a
    /// forum topic. Read beside `declared`, which names the main entity's kind from the page's
    /// first declared type alone.
    pub thread: bool,
}

impl<'a> Page<'a> {
    /// The page of `blocks` from a page of `html_bytes` bytes with the tokenizer's `stats`,
    /// without link evidence.
    pub fn new(blocks: &'a [Block], html_bytes: usize, stats: PageStats) -> Page<'a> {
        Page {
            blocks,
            html_bytes,
            stats,
            linked: None,
            declared: None,
            documentation_url: false,
            thread: false,
        }
    }
}

/// The classifier a heuristic names: the paper's count threshold for its four heuristics, the
/// [`Hybrid`] classifier with its default parameters, `rules` and `prefs` for `hybrid` (the only
/// one that reads them), the literature's method for each of [`Method`]'s names.
pub fn classifier(heuristic: Heuristic, rules: Rules, prefs: Prefs) -> Box<dyn Classifier> {
    match heuristic {
        Heuristic::Hybrid => Box::new(Hybrid::new(rules, prefs)),
        Heuristic::Classic(method) => classic::classifier(method),
        paper => Box::new(Paper(paper)),
    }
}

/// The URL Tree paper's rule (Sluban & Grčar 2013): a block counted more than `c_max` times at the
/// node its heuristic chose is boilerplate, every other block with letters is content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paper(pub Heuristic);

impl Classifier for Paper {
    fn heuristic(&self) -> Heuristic {
        self.0
    }

    fn classify(&self, blocks: &[BlockFacts<'_>], node: NodeFacts, out: &mut Vec<Reason>) {
        out.clear();
        out.extend(blocks.iter().map(|b| match b.count {
            None => Reason::NoLetters,
            Some(count) if count > node.c_max => Reason::Repeated,
            Some(_) => Reason::Unique,
        }));
    }
}

/// What the classifier knows of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockFacts<'a> {
    /// Characters of the block's text.
    pub chars: u32,
    /// Of which inside links.
    pub link_chars: u32,
    /// Document-order ordinals of the block's enclosing elements, outermost first.
    pub ancestors: &'a [u32],
    /// The block's element path: the lower-cased tags of its enclosing elements, outermost
    /// first, joined by `/`; its last `ancestors.len()` tags are those of `ancestors`.
    pub path: &'a str,
    /// The block's text count at the deciding node (including this page); `None` when the block
    /// has no letters.
    pub count: Option<u64>,
    /// The count of the block's element path at the deciding node (including this page); read
    /// only where [`Classifier::wants_path_count`] says the classifier uses it, 0 elsewhere.
    pub path_count: u64,
    /// What the markup around the block says of it.
    pub hint: Hint,
    /// The ordinal of the innermost element around the block that the markup marks as a region
    /// around the main text, if any.
    pub marker: Option<u32>,
    /// The ordinal of the innermost element around the block that the markup marks as the main
    /// text (`<article>`, `<main>`), if any.
    pub marked_main: Option<u32>,
    /// True when the element of `marked_main` is the page's main landmark ([`Block::main_landmark`]).
    pub main_landmark: bool,
    /// True when the markup marks the block as in the page's comments and in no other region
    /// around the main text ([`Block::comments`]).
    pub comments: bool,
    /// True when the block's innermost marked region is a gallery of pictures
    /// ([`Block::gallery`]).
    pub gallery: bool,
    /// True when the block's innermost marked region is the page's comments
    /// ([`Block::comment_region`]).
    pub comment_region: bool,
    /// The outermost of the block's containers that is not rendered (`hidden`, `display: none`),
    /// if one is ([`Block::hidden`]).
    pub hidden: Option<u32>,
    /// The innermost element around the block shown at some screen widths only
    /// ([`Block::responsive`]), if any.
    pub responsive: Option<u32>,
    /// The ordinal of the innermost element around the block whose `class` or `id` names
    /// reviews ([`Block::reviews`]), if any.
    pub reviews: Option<u32>,
    /// True when the block is in an `<article>` nested in another.
    pub nested_article: bool,
    /// True when the block's container is an `<h1>`.
    pub h1: bool,
    /// True when the block's container is a heading, `<h1>` to `<h6>`.
    pub heading: bool,
    /// True when the block is a heading whose words the page's title holds, in order.
    pub titled: bool,
    /// True when the block has no letters but has digits: a figure (a table's number, a score,
    /// a date, a time), which has no identity in the tree.
    pub figure: bool,
    /// The block's identity ([`Block::hash`]): equal for blocks of the same words.
    pub hash: Option<BlockHash>,
}

/// The tag of the element holding a block's text: the last segment of its `path`.
pub fn container_tag(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// True when `tag` (lower-case, as a path writes it) is a heading's, `h1` to `h6`.
pub fn is_heading(tag: &str) -> bool {
    matches!(tag.as_bytes(), [b'h', b'1'..=b'6'])
}

impl<'a> BlockFacts<'a> {
    /// The facts of `block`, its text counted `count` times and its path `path_count` times at
    /// the deciding node.
    pub fn of(block: &'a Block, count: Option<u64>, path_count: u64) -> BlockFacts<'a> {
        let container = container_tag(&block.path);
        BlockFacts {
            chars: block.chars,
            link_chars: block.link_chars,
            ancestors: &block.ancestors,
            path: &block.path,
            count,
            path_count,
            hint: block.hint,
            marker: block.marker,
            marked_main: block.marked_main,
            main_landmark: block.main_landmark,
            comments: block.comments,
            gallery: block.gallery,
            comment_region: block.comment_region,
            hidden: block.hidden,
            responsive: block.responsive,
            reviews: block.reviews,
            nested_article: block.nested_article,
            h1: container == "h1",
            heading: is_heading(container),
            titled: false,
            figure: block.hash.is_none() && block.text.chars().any(char::is_numeric),
            hash: block.hash,
        }
    }

    /// The tag of the element holding the block's text ([`container_tag`]).
    pub fn container(&self) -> &'a str {
        container_tag(self.path)
    }

    /// True when the block lies in an element with tag `tag` (lower-case), read from its path.
    pub fn in_element(&self, tag: &str) -> bool {
        self.path.contains(tag) && self.path.split('/').any(|t| t == tag)
    }

    /// The block's enclosing elements, outermost first, each with its tag: the last
    /// `ancestors.len()` tags of `path` paired with `ancestors`.
    pub fn tagged_ancestors(&self) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        let skip = self
            .path
            .split('/')
            .count()
            .saturating_sub(self.ancestors.len());
        self.path
            .split('/')
            .skip(skip)
            .zip(self.ancestors.iter().copied())
    }
}

/// What the classifier knows of the deciding node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeFacts {
    /// The node's support `n_s` (including this page).
    pub support: u64,
    /// Text counted more than this at the node is repeated.
    pub c_max: u64,
    /// The support of the node whose element-path counts the blocks' `path_count` are: the
    /// deciding node's, or where a template cluster decides, that of the node it splits (its
    /// pages were put together for their element paths, so their path counts say nothing new
    /// of them; see [`crate::tree::cluster`]).
    pub path_support: u64,
}

/// Why a block was kept or dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// No letters (nothing for the tree to count).
    NoLetters,
    /// Its text recurs at the node (the tree's verdict, trusted by the node's support), or a
    /// quotation copies text the page keeps above it (a reply quoting the post it answers).
    Repeated,
    /// A short block in an element path that recurs on nearly every page of the node.
    Template,
    /// Mostly link text.
    LinkDense,
    /// Inside an element whose markup marks the regions around a page's text (navigation, a
    /// sidebar, comments, sharing widgets), beside the `<article>` that the markup marks as a
    /// post's body inside the post's (its author's panel, a signature), or a `<button>`'s label.
    Marked,
    /// Inside an element the page does not render (`hidden`, `display: none`).
    Hidden,
    /// Outside the subtree that holds the page's main text.
    OutsideMainSubtree,
    /// Inside the main subtree (or long prose), and neither repeated nor template.
    Unique,
    /// The page's `<h1>` nearest before the main text, outside its subtree: the text's title.
    Title,
    /// Repeated, or a figure without letters, but inside the main text between two kept blocks:
    /// part of the text.
    WithinText,
    /// The literature's methods: judged main text by the method (a region of text rather than
    /// markup, or the text features of its neighbourhood).
    Text,
    /// The literature's methods: in a stretch of the page where markup outweighs text (Content
    /// Code Blurring's ratio below its threshold, outside the text regions of the Document Slope
    /// Curve or Body Text Extraction).
    CodeDense,
    /// Boilerpipe: too few words, in a neighbourhood of too few words, for its decision rules;
    /// `hybrid` with the `precision` focus: no more than a phrase, at the kept text's edges.
    ShortText,
    /// In one of a run of alike sibling subtrees that hold the main text: a post of the thread,
    /// an item of the listing, a section of the page; or the thread's opening post, set apart
    /// before the run of its replies.
    Unit,
}

impl Reason {
    /// The label this reason gives.
    pub fn label(self) -> Label {
        match self {
            Reason::Unique | Reason::Title | Reason::WithinText | Reason::Text | Reason::Unit => {
                Label::Content
            }
            _ => Label::Boilerplate,
        }
    }

    /// The reason's name in output records.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NoLetters => "no-letters",
            Reason::Repeated => "repeated",
            Reason::Template => "template",
            Reason::LinkDense => "link-dense",
            Reason::Marked => "marked",
            Reason::Hidden => "hidden",
            Reason::OutsideMainSubtree => "outside-main-subtree",
            Reason::Unique => "unique",
            Reason::Title => "title",
            Reason::WithinText => "within-text",
            Reason::Text => "text",
            Reason::CodeDense => "code-dense",
            Reason::ShortText => "short-text",
            Reason::Unit => "unit",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(count: Option<u64>) -> BlockFacts<'static> {
        BlockFacts {
            chars: 30,
            link_chars: 0,
            ancestors: &[],
            path: "",
            count,
            path_count: 0,
            hint: Hint::None,
            marker: None,
            marked_main: None,
            main_landmark: false,
            comments: false,
            gallery: false,
            comment_region: false,
            hidden: None,
            responsive: None,
            reviews: None,
            nested_article: false,
            h1: false,
            heading: false,
            titled: false,
            figure: false,
            hash: None,
        }
    }

    #[test]
    fn the_paper_rule_follows_c_max() {
        let blocks = [facts(Some(1)), facts(Some(2)), facts(Some(3)), facts(None)];
        let mut out = vec![Reason::Title];
        let paper = classifier(
            "relaxed-at-domain-500".parse().unwrap(),
            Rules::default(),
            Prefs::default(),
        );
        paper.classify(
            &blocks,
            NodeFacts {
                support: 600,
                c_max: 2,
                path_support: 600,
            },
            &mut out,
        );
        assert_eq!(
            out,
            [
                Reason::Unique,
                Reason::Unique,
                Reason::Repeated,
                Reason::NoLetters
            ]
        );
        assert!(!paper.wants_path_count(10, 1000));
    }

    #[test]
    fn each_heuristic_names_its_classifier() {
        for name in [
            "strict",
            "strict-at-domain",
            "relaxed-at-domain-500",
            "hybrid",
        ] {
            let heuristic: Heuristic = name.parse().unwrap();
            assert_eq!(
                classifier(heuristic, Rules::default(), Prefs::default()).heuristic(),
                heuristic
            );
            assert_eq!(
                classifier(heuristic, Rules::default(), Prefs::default()).choose(&[40, 12, 1]),
                heuristic.choose(&[40, 12, 1])
            );
        }
    }
}
