//! The literature's content extractors by name (DESIGN §2.10), each a [`Classifier`] beside the
//! paper's heuristics and `hybrid`, so that every method runs on the same stream, the same blocks
//! and the same scorer (`urltree eval --heuristic all`). Pure decisions, free of I/O.
//!
//! They share the tokenizer's blocks: the page as a sequence of code and content
//! ([`sequence`], from each block's [`Extent`](crate::blocks::Extent)) and the blocks' text
//! features. They do not share `hybrid`'s rules, nor read the tree's counts:
//! - [`ccb`], [`accb`], [`tccb`]: Content Code Blurring (Gottron 2008), the content ratio of the
//!   page blurred by a Gaussian ([`blur`]), on characters, on characters with anchor tags
//!   ignored, and on tokens;
//! - [`dsc`]: the Document Slope Curve (Pinto et al. 2002), windows of the cumulative tag count;
//! - [`bte`]: Body Text Extraction (Finn et al. 2001), its one maximal region, in linear time;
//! - [`boilerpipe`]: Boilerpipe's default classifier (Kohlschütter et al. 2010), its decision
//!   rules on shallow text features; [`boilerpipe_tree`]: with the tree filter of
//!   Viveros-Jiménez et al. (2018);
//! - [`link_template`]: the template of mutually linked pages (Alarte, Insa, Silva, Tamarit),
//!   the one method that reads the state: the domain's held pages that a page links to.
//!
//! Every method labels a block without letters [`Reason::NoLetters`] (the interface's guarantee),
//! though it still counts in the features of its neighbours.

pub mod accb;
pub mod blur;
pub mod boilerpipe;
pub mod boilerpipe_tree;
pub mod bte;
pub mod ccb;
pub mod dsc;
pub mod link_template;
pub mod sequence;
pub mod tccb;

#[cfg(test)]
mod fixtures;

use std::fmt;
use std::str::FromStr;

use super::classify::{BlockFacts, Classifier, NodeFacts, Page, Reason};
use super::kind::Layout;
use super::Heuristic;

/// One of the literature's methods, by its name in the config and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `ccb`: Content Code Blurring on characters ([`ccb`]).
    Ccb,
    /// `accb`: Content Code Blurring with anchor tags ignored ([`accb`]).
    Accb,
    /// `tccb`: Content Code Blurring on tokens ([`tccb`]).
    Tccb,
    /// `dsc`: the Document Slope Curve ([`dsc`]).
    Dsc,
    /// `bte`: Body Text Extraction ([`bte`]).
    Bte,
    /// `boilerpipe`: Boilerpipe's default classifier ([`boilerpipe`]).
    Boilerpipe,
    /// `boilerpipe-tree`: Boilerpipe with the tree filter ([`boilerpipe_tree`]).
    BoilerpipeTree,
    /// `link-template`: the template of mutually linked pages ([`link_template`]).
    LinkTemplate,
}

impl Method {
    /// Every method, in the order tables list them.
    pub const ALL: [Method; 8] = [
        Method::Ccb,
        Method::Accb,
        Method::Tccb,
        Method::Dsc,
        Method::Bte,
        Method::Boilerpipe,
        Method::BoilerpipeTree,
        Method::LinkTemplate,
    ];

    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Ccb => "ccb",
            Method::Accb => "accb",
            Method::Tccb => "tccb",
            Method::Dsc => "dsc",
            Method::Bte => "bte",
            Method::Boilerpipe => "boilerpipe",
            Method::BoilerpipeTree => "boilerpipe-tree",
            Method::LinkTemplate => "link-template",
        }
    }
}

/// A name that is none of the methods.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown method {0:?}")]
pub struct UnknownMethod(pub String);

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMethod(s.to_owned()))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The classifier of `method` with its published parameters.
pub fn classifier(method: Method) -> Box<dyn Classifier> {
    match method {
        Method::Ccb => Box::new(ccb::Ccb::default()),
        Method::Accb => Box::new(accb::Accb::default()),
        Method::Tccb => Box::new(tccb::Tccb::default()),
        Method::Dsc => Box::new(dsc::Dsc::default()),
        Method::Bte => Box::new(bte::Bte),
        Method::Boilerpipe => Box::new(boilerpipe::Boilerpipe),
        Method::BoilerpipeTree => Box::new(boilerpipe_tree::BoilerpipeTree),
        Method::LinkTemplate => Box::new(link_template::LinkTemplate),
    }
}

/// One of the literature's methods: it judges a page by what the page holds (its blocks, their
/// extents and texts, and for `link-template` its held neighbours' links), never by the tree's
/// counts. Every method is a [`Classifier`] through it.
pub trait PageMethod: Send + Sync {
    /// The method's name in the config and on the command line.
    const METHOD: Method;
    /// True when the method reads the links of the page and of the domain's held pages
    /// ([`Classifier::reads_links`]).
    const READS_LINKS: bool = false;

    /// One reason per block of `page` (`facts` in the same order), into `out`.
    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>);
}

/// A method as a classifier: it does not look at the page's kind ([`Layout::Unknown`]), and
/// given block facts alone it has no evidence against any block.
impl<M: PageMethod> Classifier for M {
    fn heuristic(&self) -> Heuristic {
        Heuristic::Classic(M::METHOD)
    }

    fn reads_links(&self) -> bool {
        M::READS_LINKS
    }

    fn classify(&self, blocks: &[BlockFacts<'_>], _node: NodeFacts, out: &mut Vec<Reason>) {
        without_page(blocks, out);
    }

    fn classify_page(
        &self,
        page: &Page<'_>,
        facts: &[BlockFacts<'_>],
        _node: NodeFacts,
        out: &mut Vec<Reason>,
    ) -> Layout {
        self.judge(page, facts, out);
        Layout::Unknown
    }
}

/// The verdict of a method on a block: content (`Text`) or `otherwise`, but never content for
/// a block without letters.
#[inline]
fn verdict(facts: &BlockFacts<'_>, content: bool, otherwise: Reason) -> Reason {
    match (facts.count, content) {
        (None, _) => Reason::NoLetters,
        (Some(_), true) => Reason::Text,
        (Some(_), false) => otherwise,
    }
}

/// What a method that reads the page says of blocks known by their facts alone (no page at
/// hand, as when a caller passes facts only): it has no evidence against any block, so it keeps
/// every block with letters.
fn without_page(blocks: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
    out.clear();
    out.extend(blocks.iter().map(|b| verdict(b, true, Reason::CodeDense)));
}
