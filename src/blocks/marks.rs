//! Marks: what a block's text holds beyond its characters, for the renderings that show it
//! (Markdown): the targets of its links, its images, and the source of its formulas.
//!
//! Links and images are recorded only when asked ([`Capture`]), so the tokenizer's pass costs
//! nothing more when no rendering shows them; formulas always are, as their characters are part
//! of the block's text. Marks never change a block's text, counts or identity.
//!
//! An image inside text is marked where it stands. An image in no text (between paragraphs, in a
//! `<figure>` before its caption) goes with the block before it, shown after that block's text on
//! a line of its own; on a page that has no block before it, with the first block after it,
//! before that block's text. So an image is kept exactly when the text next to it is.

use super::markup::{attribute_value, attributes, ROLE_MATH_IMAGE};
use super::text::decode_entities;
use super::Block;

/// What the tokenizer records of a page beyond its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capture {
    /// Record the target of every link ([`Block::links`]).
    pub links: bool,
    /// Record every image ([`Block::images`]).
    pub images: bool,
}

impl Capture {
    /// Links and images.
    pub const ALL: Capture = Capture {
        links: true,
        images: true,
    };
}

/// A link in a block's text: the text in bytes `start..end` of [`Block::text`] was inside an
/// `<a href>` with this target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Byte offset of the link's first character in the block's text.
    pub start: u32,
    /// Byte offset just past its last character (`start < end`, both on character boundaries;
    /// the range may begin or end with a collapsed space).
    pub end: u32,
    /// The `href` as written (entities decoded, white space at its ends removed): may be
    /// relative, resolved only when rendered.
    pub href: String,
}

/// An image of a block: an `<img>` (or `<image>`) with a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Byte offset in the block's text where the image stands (a character boundary, at most the
    /// text's length).
    pub at: u32,
    /// True for an image that stood in no text: shown on a line of its own, before the block's
    /// text when `at` is 0 and the block is the page's first with images before it, else after.
    pub own_line: bool,
    /// The source as written: `src`, or the lazy loaders' `data-src`, `data-lazy-src`,
    /// `data-original` when `src` is missing or a `data:` placeholder (entities decoded).
    pub src: String,
    /// The alternative text (entities decoded, white space collapsed; may be empty).
    pub alt: String,
}

/// A formula in a block's text: bytes `start..end` of [`Block::text`] are its linear form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Math {
    /// Byte offset of the formula's first character in the block's text.
    pub start: u32,
    /// Byte offset just past its last character (`start < end`, character boundaries).
    pub end: u32,
    /// Its TeX source, when the page ships one (a MathML annotation, a `math/tex` script).
    pub tex: Option<String>,
    /// True for a formula the page shows as a block of its own.
    pub display: bool,
}

/// Longest link target or image source recorded, in bytes; a longer one is not.
const MAX_URL_BYTES: usize = 8 << 10;

/// Most bytes of an image's alternative text kept.
const MAX_ALT_BYTES: usize = 1 << 10;

/// The link of the text being read: its target's index among the page's targets, or
/// [`NO_TARGET`] for a link whose target is not recorded.
pub(crate) type LinkId = u32;

/// The id of a link without a recorded target.
pub(crate) const NO_TARGET: LinkId = u32::MAX;

/// The marks of the block being built and the page's link targets.
#[derive(Default)]
pub(crate) struct Marks {
    pub(crate) capture: Capture,
    /// Link targets of the page, by [`LinkId`].
    targets: Vec<String>,
    /// The link of the text last appended, and where in the block it began.
    open_link: Option<(LinkId, u32)>,
    links: Vec<(u32, u32, LinkId)>,
    images: Vec<Image>,
    /// Images (source, alternative text) seen while the block had no text yet.
    pending: Vec<(String, String)>,
    /// Images that stood in no text before the page's first block with text.
    carried: Vec<(String, String)>,
    math: Vec<Math>,
}

impl Marks {
    /// Forgets the last page (keeping buffers and what to capture).
    pub(crate) fn reset(&mut self) {
        self.targets.clear();
        self.open_link = None;
        self.links.clear();
        self.images.clear();
        self.pending.clear();
        self.carried.clear();
        self.math.clear();
    }

    /// The id of an `<a href>` start tag's target (`attrs` its text after the name).
    #[inline]
    pub(crate) fn link_target(&mut self, attrs: &[u8]) -> LinkId {
        if self.capture.links {
            self.record_target(attrs)
        } else {
            NO_TARGET
        }
    }

    fn record_target(&mut self, attrs: &[u8]) -> LinkId {
        match attribute_value(attrs, b"href").and_then(url_value) {
            Some(href) => {
                let id = u32::try_from(self.targets.len()).unwrap_or(NO_TARGET);
                if id != NO_TARGET {
                    self.targets.push(href);
                }
                id
            }
            None => NO_TARGET,
        }
    }

    /// Text is about to be appended at byte `at` of the block, inside the link `link` (if any);
    /// `first` says it is the block's first text.
    #[inline]
    pub(crate) fn text_at(&mut self, at: u32, link: Option<LinkId>, first: bool) {
        if first && !self.pending.is_empty() {
            // Images before the block's first text stand at its start.
            for (src, alt) in self.pending.drain(..) {
                self.images.push(Image {
                    at: 0,
                    own_line: false,
                    src,
                    alt,
                });
            }
        }
        if self.capture.links {
            let link = link.filter(|&id| id != NO_TARGET);
            if link != self.open_link.map(|(id, _)| id) {
                self.close_link(at);
                self.open_link = link.map(|id| (id, at));
            }
        }
    }

    fn close_link(&mut self, at: u32) {
        if let Some((id, start)) = self.open_link.take() {
            if start < at {
                self.links.push((start, at, id));
            }
        }
    }

    /// An `<img>` start tag; `at` is where the block's text is now, None when it has no text yet.
    pub(crate) fn image(&mut self, attrs: &[u8], roles: u8, at: Option<u32>) {
        if !self.capture.images || roles & ROLE_MATH_IMAGE != 0 {
            return;
        }
        let Some((src, alt)) = image_source(attrs) else {
            return;
        };
        match at {
            Some(at) => self.images.push(Image {
                at,
                own_line: false,
                src,
                alt,
            }),
            None => self.pending.push((src, alt)),
        }
    }

    /// A formula's linear form now takes bytes `start..end` of the block's text.
    pub(crate) fn math(&mut self, start: u32, end: u32, tex: Option<String>, display: bool) {
        if start < end {
            self.math.push(Math {
                start,
                end,
                tex,
                display,
            });
        }
    }

    /// The block ended without text: images read since its start stand after the text of the
    /// page's last block (`last` gives it), when there is one.
    #[inline]
    pub(crate) fn empty_block<'b>(&mut self, last: impl FnOnce() -> Option<&'b mut Block>) {
        self.open_link = None;
        if !self.pending.is_empty() {
            self.images_after(last());
        }
    }

    fn images_after(&mut self, last: Option<&mut Block>) {
        match last {
            Some(block) => {
                let at = u32::try_from(block.text.len()).unwrap_or(u32::MAX);
                for (src, alt) in self.pending.drain(..) {
                    block.images.push(Image {
                        at,
                        own_line: true,
                        src,
                        alt,
                    });
                }
            }
            None => self.carried.append(&mut self.pending),
        }
    }

    /// The marks of the finished block whose text is `text`: ranges past its end (what
    /// truncation or trimming cut) shortened, empty ones dropped; clears them for the next.
    #[inline]
    pub(crate) fn finish(&mut self, text: &str) -> (Vec<Link>, Vec<Image>, Vec<Math>) {
        let none = self.open_link.is_none()
            && self.links.is_empty()
            && self.images.is_empty()
            && self.carried.is_empty()
            && self.math.is_empty();
        if none {
            return (Vec::new(), Vec::new(), Vec::new());
        }
        self.finish_marked(text)
    }

    fn finish_marked(&mut self, text: &str) -> (Vec<Link>, Vec<Image>, Vec<Math>) {
        let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        self.close_link(len);
        let links = if self.links.is_empty() {
            Vec::new()
        } else {
            let targets = &self.targets;
            self.links
                .drain(..)
                .filter_map(|(start, end, id)| {
                    let (start, end) = (start.min(len), end.min(len));
                    let href = targets.get(id as usize)?;
                    (start < end).then(|| Link {
                        start,
                        end,
                        href: href.clone(),
                    })
                })
                .collect()
        };
        let mut images = std::mem::take(&mut self.images);
        for image in &mut images {
            image.at = image.at.min(len);
        }
        // A page's first images, before any block had text, stand before this one's.
        let leading: Vec<Image> = self
            .carried
            .drain(..)
            .map(|(src, alt)| Image {
                at: 0,
                own_line: true,
                src,
                alt,
            })
            .collect();
        if !leading.is_empty() {
            images.splice(0..0, leading);
        }
        let math = if self.math.is_empty() {
            Vec::new()
        } else {
            self.math
                .drain(..)
                .filter_map(|m| {
                    let (start, end) = (m.start.min(len), m.end.min(len));
                    (start < end).then_some(Math { start, end, ..m })
                })
                .collect()
        };
        (links, images, math)
    }
}

/// A URL attribute's value: entities decoded, white space at its ends removed; None when empty
/// or longer than [`MAX_URL_BYTES`].
fn url_value(raw: &[u8]) -> Option<String> {
    if raw.len() > MAX_URL_BYTES {
        return None;
    }
    let raw = match std::str::from_utf8(raw) {
        Ok(raw) => std::borrow::Cow::Borrowed(raw),
        Err(_) => String::from_utf8_lossy(raw),
    };
    let value = decode_entities(&raw);
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// An `<img>`'s source and alternative text, None for an image a reader is not shown as content:
/// without a source (or only a `data:` one), hidden from screen readers (`aria-hidden=true`,
/// `role=presentation|none`), or a tracking pixel (`width` and `height` of at most 1).
fn image_source(attrs: &[u8]) -> Option<(String, String)> {
    let (mut src, mut lazy, mut alt) = (None, None, None);
    let (mut width, mut height) = (None, None);
    for (name, value) in attributes(attrs) {
        let lower = name.to_ascii_lowercase();
        match lower.as_slice() {
            b"src" => src = Some(value),
            b"data-src" | b"data-lazy-src" | b"data-original" => lazy = lazy.or(Some(value)),
            b"alt" => alt = Some(value),
            b"width" => width = Some(value),
            b"height" => height = Some(value),
            b"aria-hidden" if value.eq_ignore_ascii_case(b"true") => return None,
            b"role"
                if value.eq_ignore_ascii_case(b"presentation")
                    || value.eq_ignore_ascii_case(b"none") =>
            {
                return None
            }
            _ => {}
        }
    }
    let tiny = |v: Option<&[u8]>| {
        v.and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.trim().trim_end_matches("px").parse::<f32>().ok())
            .is_some_and(|n| n <= 1.0)
    };
    if tiny(width) && tiny(height) {
        return None;
    }
    let placeholder = |v: &&[u8]| {
        v.trim_ascii().is_empty()
            || v.trim_ascii()
                .get(..5)
                .is_some_and(|p| p.eq_ignore_ascii_case(b"data:"))
    };
    let source = src
        .filter(|v| !placeholder(v))
        .or(lazy.filter(|v| !placeholder(v)))?;
    let src = url_value(source)?;
    let alt = alt
        .map(|a| {
            let a = &a[..a.len().min(MAX_ALT_BYTES)];
            let raw = String::from_utf8_lossy(a);
            decode_entities(&raw)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    Some((src, alt))
}
