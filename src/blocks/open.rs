//! The stack of open elements: which elements enclose the current text, the element path built
//! from them, their document-order ordinals, and whether the text is inside a link.

use super::marks::LinkId;
use super::markup::Hint;
use super::tags::{is_code, is_preformatted, tag_key, Tag, TagKey};

const KEY_ARTICLE: TagKey = tag_key(b"article");

/// Longest tag name (in bytes) written into a path segment.
const MAX_SEGMENT_BYTES: usize = 32;

#[derive(Clone, Copy)]
struct Entry {
    key: TagKey,
    tag: Tag,
    /// Document-order ordinal of the element.
    ordinal: u32,
    /// An `<a href>` (with its target's id): text inside it is link text.
    link: Option<LinkId>,
    /// `<pre>` (or `listing`, `plaintext`): its text keeps its white space.
    pre: bool,
    /// `<code>` (or `kbd`, `samp`, `tt`): its text is code.
    code: bool,
}

/// What an element's markup says of it as a region: its [`Hint`], and which kind of region
/// around the main text its names say it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RegionMarks {
    /// What the element's markup says of its content.
    pub(crate) hint: Hint,
    /// The hint is [`Hint::Boilerplate`] by words naming comments alone.
    pub(crate) comments: bool,
    /// The element's `class` names a gallery of pictures.
    pub(crate) gallery: bool,
    /// A word of the element's `class` or `id` names reviews (no hint of its own).
    pub(crate) reviews: bool,
    /// The element's `class` shows or hides it at some screen widths only.
    pub(crate) responsive: bool,
    /// The element is the page's main landmark: a `<main>`, or `role=main`.
    pub(crate) landmark: bool,
}

#[derive(Clone, Copy)]
struct Container {
    /// Byte offset of this element's segment in `OpenElements::path`.
    seg_start: u32,
    /// Document-order ordinal of the element.
    ordinal: u32,
    /// What the element's markup says of it as a region.
    marks: RegionMarks,
    /// True when the element's markup says it is not rendered.
    hidden: bool,
}

/// Open elements, innermost last. Inline elements are tracked (so end tags match and link text is
/// known) but only non-inline ones ("containers") form the path.
#[derive(Default)]
pub(crate) struct OpenElements {
    stack: Vec<Entry>,
    containers: Vec<Container>,
    /// Segments of all containers, each followed by '/': "html/body/div/".
    path: String,
    /// Open `<a href>` elements.
    links: u32,
    /// Open preformatted elements, and the ordinal of the outermost one.
    pres: u32,
    pre_ordinal: u32,
    /// Open code elements.
    codes: u32,
    /// Open elements per `key & 255`, so absent names are rejected without a stack walk.
    counts: Vec<u32>,
    /// Open containers hinted as boilerplate and as content.
    boilerplate: u32,
    content: u32,
    /// Of the former, those marked by words naming comments alone.
    comments: u32,
    /// Open containers that are not rendered.
    hidden: u32,
    /// Open containers whose `class` or `id` names reviews.
    reviews: u32,
    /// Open containers shown at some screen widths only.
    responsive: u32,
}

impl OpenElements {
    /// Empties the stack, keeping buffers.
    pub(crate) fn clear(&mut self) {
        self.stack.clear();
        self.containers.clear();
        self.path.clear();
        self.links = 0;
        self.pres = 0;
        self.codes = 0;
        self.boilerplate = 0;
        self.content = 0;
        self.comments = 0;
        self.hidden = 0;
        self.reviews = 0;
        self.responsive = 0;
        self.counts.clear();
        self.counts.resize(256, 0);
    }

    /// Number of open elements.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.stack.len()
    }

    /// True when the text at this point is inside an `<a href>`.
    #[inline]
    pub(crate) fn in_link(&self) -> bool {
        self.links > 0
    }

    /// The target id of the innermost `<a href>` around the text at this point, if any.
    #[inline]
    pub(crate) fn link(&self) -> Option<LinkId> {
        if self.links == 0 {
            return None;
        }
        self.stack.iter().rev().find_map(|e| e.link)
    }

    /// True when the container with document-order ordinal `ordinal` is open.
    pub(crate) fn has_container(&self, ordinal: u32) -> bool {
        self.containers.iter().any(|c| c.ordinal == ordinal)
    }

    /// The ordinal of the outermost open preformatted element (`pre`, `listing`, `plaintext`)
    /// when the text at this point is inside one.
    #[inline]
    pub(crate) fn pre(&self) -> Option<u32> {
        (self.pres > 0).then_some(self.pre_ordinal)
    }

    /// True when the text at this point is inside a code element (`code`, `kbd`, `samp`, `tt`).
    #[inline]
    pub(crate) fn in_code(&self) -> bool {
        self.codes > 0
    }

    #[inline]
    fn count_mut(&mut self, key: TagKey) -> Option<&mut u32> {
        self.counts.get_mut((key & 255) as usize)
    }

    /// True when an element with this key may be open (false means it certainly is not).
    #[inline]
    fn may_contain(&self, key: TagKey) -> bool {
        self.counts
            .get((key & 255) as usize)
            .is_some_and(|&c| c > 0)
    }

    /// What the markup of the open containers says of the text at this point: boilerplate when
    /// any of them is hinted so, else content when any is, else nothing.
    #[inline]
    pub(crate) fn hint(&self) -> Hint {
        if self.boilerplate > 0 {
            Hint::Boilerplate
        } else if self.content > 0 {
            Hint::Content
        } else {
            Hint::None
        }
    }

    /// True when the open containers the markup marks as around the main text are all marked as
    /// comments ([`Hint::Boilerplate`] by words naming comments alone), and there is one.
    #[inline]
    pub(crate) fn in_comments(&self) -> bool {
        self.boilerplate > 0 && self.comments == self.boilerplate
    }

    /// The ordinal of the outermost open container whose markup says it is not rendered
    /// (`hidden`, `display: none`), if any.
    #[inline]
    pub(crate) fn hidden(&self) -> Option<u32> {
        if self.hidden == 0 {
            return None;
        }
        self.containers.iter().find(|c| c.hidden).map(|c| c.ordinal)
    }

    /// The ordinal of the innermost open container whose own markup marks it as a region around
    /// the main text ([`Hint::Boilerplate`]), if any, whether its `class` names a gallery of
    /// pictures, and whether its names mark it as comments alone.
    #[inline]
    pub(crate) fn marker(&self) -> (Option<u32>, bool, bool) {
        match self.innermost(Hint::Boilerplate, self.boilerplate) {
            Some(c) => (Some(c.ordinal), c.marks.gallery, c.marks.comments),
            None => (None, false, false),
        }
    }

    /// The ordinal of the innermost open container shown at some screen widths only, if any.
    #[inline]
    pub(crate) fn responsive(&self) -> Option<u32> {
        if self.responsive == 0 {
            return None;
        }
        let c = self.containers.iter().rev().find(|c| c.marks.responsive)?;
        Some(c.ordinal)
    }

    /// The ordinal of the innermost open container whose `class` or `id` names reviews, if any.
    #[inline]
    pub(crate) fn reviews(&self) -> Option<u32> {
        if self.reviews == 0 {
            return None;
        }
        self.containers
            .iter()
            .rev()
            .find(|c| c.marks.reviews)
            .map(|c| c.ordinal)
    }

    /// The ordinal of the innermost open container whose own markup marks it as the main text
    /// (`<article>`, `<main>`, `role=main`, `itemprop=articleBody`), if any, and whether it is
    /// the page's main landmark (`<main>`, `role=main`).
    #[inline]
    pub(crate) fn marked_main(&self) -> Option<(u32, bool)> {
        self.innermost(Hint::Content, self.content)
            .map(|c| (c.ordinal, c.marks.landmark))
    }

    /// The innermost open container hinted `hint`, of which `open` are open.
    #[inline]
    fn innermost(&self, hint: Hint, open: u32) -> Option<&Container> {
        if open == 0 {
            return None;
        }
        self.containers.iter().rfind(|c| c.marks.hint == hint)
    }

    /// True when the text at this point is in an `<article>` inside another: HTML's related
    /// content (a comment on a post, a related story), not the outer article's own text.
    pub(crate) fn in_nested_article(&self) -> bool {
        self.may_contain(KEY_ARTICLE)
            && self
                .stack
                .iter()
                .filter(|e| e.key == KEY_ARTICLE)
                .nth(1)
                .is_some()
    }

    fn count_hint(&mut self, hint: Hint, up: bool) {
        let n = match hint {
            Hint::Boilerplate => &mut self.boilerplate,
            Hint::Content => &mut self.content,
            Hint::None => return,
        };
        *n = if up { *n + 1 } else { n.saturating_sub(1) };
    }

    /// Pushes an element. `name` is its tag name as written (lower-cased into the path); `link`
    /// is the target id of an `<a>` that is a link (a named anchor without `href` is not); `marks`
    /// is what its markup says of it as a region and `hidden` whether it says the element is not
    /// rendered (both kept for containers only).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        key: TagKey,
        tag: Tag,
        name: &[u8],
        ordinal: u32,
        link: Option<LinkId>,
        marks: RegionMarks,
        hidden: bool,
    ) {
        let link = link.filter(|_| tag == Tag::A);
        let (pre, code) = match tag {
            Tag::Inline => (false, is_code(key)),
            Tag::ClosesP => (is_preformatted(key), false),
            _ => (false, false),
        };
        self.stack.push(Entry {
            key,
            tag,
            ordinal,
            link,
            pre,
            code,
        });
        if code {
            self.codes += 1;
        }
        if let Some(c) = self.count_mut(key) {
            *c += 1;
        }
        if link.is_some() {
            self.links += 1;
        }
        if pre {
            if self.pres == 0 {
                self.pre_ordinal = ordinal;
            }
            self.pres += 1;
        }
        if !tag.is_inline() {
            let seg_start = u32::try_from(self.path.len()).unwrap_or(u32::MAX);
            self.containers.push(Container {
                seg_start,
                ordinal,
                marks,
                hidden,
            });
            self.count_hint(marks.hint, true);
            self.comments += u32::from(marks.comments);
            self.reviews += u32::from(marks.reviews);
            self.responsive += u32::from(marks.responsive);
            self.hidden += u32::from(hidden);
            push_segment(&mut self.path, name);
        }
    }

    fn forget(&mut self, e: Entry) {
        if let Some(c) = self.count_mut(e.key) {
            *c = c.saturating_sub(1);
        }
        if e.link.is_some() {
            self.links = self.links.saturating_sub(1);
        }
        if e.pre {
            self.pres = self.pres.saturating_sub(1);
        }
        if e.code {
            self.codes = self.codes.saturating_sub(1);
        }
    }

    /// Pops every element from the top down to and including the one at `index`.
    pub(crate) fn pop_to(&mut self, index: usize) {
        while self.stack.len() > index {
            let Some(e) = self.stack.pop() else { break };
            self.forget(e);
            if !e.tag.is_inline() {
                if let Some(c) = self.containers.pop() {
                    self.path.truncate(c.seg_start as usize);
                    self.count_hint(c.marks.hint, false);
                    self.comments = self.comments.saturating_sub(u32::from(c.marks.comments));
                    self.hidden = self.hidden.saturating_sub(u32::from(c.hidden));
                    self.reviews = self.reviews.saturating_sub(u32::from(c.marks.reviews));
                    self.responsive = self
                        .responsive
                        .saturating_sub(u32::from(c.marks.responsive));
                }
            }
        }
    }

    /// Index of the innermost open element with `key`, searching down from the top and stopping
    /// (with None) at the first element for which `stop` holds.
    #[inline]
    pub(crate) fn find(&self, key: TagKey, stop: impl Fn(Tag) -> bool) -> Option<usize> {
        if !self.may_contain(key) {
            return None;
        }
        for (i, e) in self.stack.iter().enumerate().rev() {
            if e.key == key {
                return Some(i);
            }
            if stop(e.tag) {
                return None;
            }
        }
        None
    }

    /// Index of the innermost open element whose tag satisfies `want`, stopping at `stop`.
    #[inline]
    pub(crate) fn find_tag(
        &self,
        want: impl Fn(Tag) -> bool,
        stop: impl Fn(Tag) -> bool,
    ) -> Option<usize> {
        for (i, e) in self.stack.iter().enumerate().rev() {
            if want(e.tag) {
                return Some(i);
            }
            if stop(e.tag) {
                return None;
            }
        }
        None
    }

    /// The tag of the innermost open element.
    #[inline]
    pub(crate) fn top(&self) -> Option<Tag> {
        self.stack.last().map(|e| e.tag)
    }

    /// The ordinal of the innermost open element.
    #[inline]
    pub(crate) fn top_ordinal(&self) -> Option<u32> {
        self.stack.last().map(|e| e.ordinal)
    }

    /// Removes an inline element at `index` without popping what is above it (an `<a>` start tag
    /// closes an open `<a>` this way).
    pub(crate) fn remove_inline(&mut self, index: usize) {
        if self.stack.get(index).is_some_and(|e| e.tag.is_inline()) {
            let e = self.stack.remove(index);
            self.forget(e);
        }
    }

    /// The path of the innermost `max_depth` containers, joined by '/'.
    pub(crate) fn path(&self, max_depth: usize) -> String {
        let first = self.containers.len().saturating_sub(max_depth);
        if max_depth == 0 {
            return String::new();
        }
        let start = self
            .containers
            .get(first)
            .map_or(self.path.len(), |c| c.seg_start as usize);
        let segs = self.path.get(start..).unwrap_or_default();
        segs.strip_suffix('/').unwrap_or(segs).to_owned()
    }

    /// Ordinals of the innermost `max` containers, outermost first.
    pub(crate) fn ancestors(&self, max: usize) -> Vec<u32> {
        let first = self.containers.len().saturating_sub(max);
        self.containers[first..].iter().map(|c| c.ordinal).collect()
    }
}

/// Appends `name` ASCII-lower-cased (at most `MAX_SEGMENT_BYTES`; invalid UTF-8 and NUL become
/// U+FFFD) and a '/'.
fn push_segment(path: &mut String, name: &[u8]) {
    let name = &name[..name.len().min(MAX_SEGMENT_BYTES)];
    let fix = |c: char| match c {
        '\0' => char::REPLACEMENT_CHARACTER,
        c => c.to_ascii_lowercase(),
    };
    if name.is_ascii() {
        path.extend(name.iter().map(|&b| fix(char::from(b))));
    } else {
        path.extend(String::from_utf8_lossy(name).chars().map(fix));
    }
    path.push('/');
}

#[cfg(test)]
mod tests {
    use super::super::tags::{classify, tag_key};
    use super::*;

    fn push(o: &mut OpenElements, name: &str, ord: u32) {
        let key = tag_key(name.as_bytes());
        o.push(
            key,
            classify(key).0,
            name.as_bytes(),
            ord,
            Some(0),
            RegionMarks::default(),
            false,
        );
    }

    #[test]
    fn path_and_ancestors() {
        let mut o = OpenElements::default();
        o.clear();
        for (i, n) in ["HTML", "body", "div", "span", "p", "a"].iter().enumerate() {
            push(&mut o, n, i as u32);
        }
        assert_eq!(o.path(64), "html/body/div/p");
        assert_eq!(o.path(2), "div/p");
        assert_eq!(o.path(0), "");
        assert_eq!(o.ancestors(16), vec![0, 1, 2, 4]);
        assert_eq!(o.ancestors(1), vec![4]);
        assert!(o.in_link());
        let div = o.find(tag_key(b"div"), |_| false);
        assert_eq!(div, Some(2));
        o.pop_to(2);
        assert_eq!(o.path(64), "html/body");
        assert!(!o.in_link());
        assert_eq!(o.find(tag_key(b"p"), |_| false), None);
    }
}
