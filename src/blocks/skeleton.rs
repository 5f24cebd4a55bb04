//! The page's elements in brief and its link targets, recorded in the tokenizer's pass when asked
//! ([`Tokenizer::record_links`](super::Tokenizer::record_links)): what an equal top-down mapping
//! of two pages compares (the template by hyperlinks of Alarte et al.), at no cost to the pages
//! of any other classifier.

use super::markup::attributes;
use super::text::decode_entities;

/// Link targets recorded per page, at most (the first ones).
pub const MAX_HREFS: usize = 4096;

/// Longest link target recorded, in bytes (longer ones are skipped).
pub const MAX_HREF_BYTES: usize = 2048;

/// No parent: a root element.
const NONE: u32 = u32::MAX;

/// One element as the mapping sees it.
#[derive(Clone, Copy, Debug)]
struct Element {
    /// Ordinal of its parent element, or [`NONE`].
    parent: u32,
    /// Hash of its lower-cased tag name and its `class` attribute as written.
    name_class: u64,
    /// Its position among its parent's child elements.
    index: u32,
    /// Its child elements.
    children: u32,
}

/// Records the elements and link targets of one page.
#[derive(Default)]
pub(crate) struct Recorder {
    on: bool,
    elements: Vec<Element>,
    hrefs: Vec<String>,
    /// Child elements of the page's top level (elements without a parent).
    roots: u32,
}

impl Recorder {
    /// Starts a page, recording when `on`.
    pub(crate) fn reset(&mut self, on: bool) {
        self.on = on;
        self.elements.clear();
        self.hrefs.clear();
        self.roots = 0;
    }

    /// True when recording.
    #[inline]
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// Records element `ordinal` (every element gets the next ordinal) named `name`, with
    /// start-tag attributes `attrs`, inside the element `parent` (`None` at the top level).
    pub(crate) fn element(&mut self, ordinal: u32, parent: Option<u32>, name: &[u8], attrs: &[u8]) {
        if ordinal as usize != self.elements.len() {
            return;
        }
        let mut hash = Fnv::new();
        for b in name {
            hash.byte(b.to_ascii_lowercase());
        }
        hash.byte(0);
        if let Some((_, class)) = attributes(attrs).find(|(n, _)| n.eq_ignore_ascii_case(b"class"))
        {
            for &b in class {
                hash.byte(b);
            }
        }
        let siblings = match parent.and_then(|p| self.elements.get_mut(p as usize)) {
            Some(parent) => &mut parent.children,
            None => &mut self.roots,
        };
        let index = *siblings;
        *siblings = siblings.saturating_add(1);
        self.elements.push(Element {
            parent: parent.unwrap_or(NONE),
            name_class: hash.0,
            index,
            children: 0,
        });
    }

    /// Records the target of a link (`<a href>`) from its start tag's attributes.
    pub(crate) fn link(&mut self, attrs: &[u8]) {
        if self.hrefs.len() >= MAX_HREFS {
            return;
        }
        let Some((_, href)) = attributes(attrs).find(|(n, _)| n.eq_ignore_ascii_case(b"href"))
        else {
            return;
        };
        if href.is_empty() || href.len() > MAX_HREF_BYTES {
            return;
        }
        let raw = String::from_utf8_lossy(href);
        self.hrefs.push(decode_entities(&raw).trim().to_owned());
    }

    /// The page's links and element signatures; the recorder is left empty.
    pub(crate) fn take(&mut self) -> PageLinks {
        let mut signatures = Vec::with_capacity(self.elements.len());
        for e in &self.elements {
            let parent = match e.parent {
                NONE => 0x9e37_79b9_7f4a_7c15,
                p => signatures.get(p as usize).copied().unwrap_or(0),
            };
            signatures.push(mix(
                mix(mix(parent, e.name_class), u64::from(e.children)),
                u64::from(e.index),
            ));
        }
        self.elements.clear();
        PageLinks {
            hrefs: std::mem::take(&mut self.hrefs),
            signatures,
        }
    }
}

/// A page's link targets and its elements' signatures, recorded in the tokenizer's pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageLinks {
    /// The `href` of every link (`<a href>`), entities decoded, trimmed, in document order (at
    /// most [`MAX_HREFS`]; empty ones and longer than [`MAX_HREF_BYTES`] skipped).
    pub hrefs: Vec<String>,
    /// Each element's signature, by ordinal (the ordinals of [`Block::ancestors`](super::Block)):
    /// a hash of its tag, `class`, number of child elements and position among its parent's
    /// children, and of its parent's signature. Two elements of two pages have equal signatures
    /// exactly when an equal top-down mapping of the pages maps one to the other (but for hash
    /// collisions).
    pub signatures: Vec<u64>,
}

impl PageLinks {
    /// The signature of the element that holds `block`'s text, `None` for text outside every
    /// element.
    pub fn block_signature(&self, block: &super::Block) -> Option<u64> {
        block
            .ancestors
            .last()
            .and_then(|&o| self.signatures.get(o as usize))
            .copied()
    }
}

/// FNV-1a, 64 bits: a stable hash (signatures are stored).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
}

/// Mixes `value` into `seed` (the finalizer of SplitMix64 over their combination).
fn mix(seed: u64, value: u64) -> u64 {
    let mut z = seed
        ^ value
            .wrapping_add(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(seed << 6);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
