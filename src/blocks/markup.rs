//! Tags: lexes a start or end tag in place, following the HTML tokenizer's states for tag names
//! and attributes, and reads what its `class`, `id`, `role`, `itemprop`, `hidden` and `style`
//! attributes say of the element's content (a [`Hint`], and whether it is rendered), without
//! allocating.

use memchr::memchr;

/// One tag found in a markup run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TagToken<'a> {
    /// True for an end tag (`</name>`).
    pub end: bool,
    /// The tag name as written (any case).
    pub name: &'a [u8],
    /// True when the tag ends with `/>`.
    pub self_closing: bool,
    /// The start tag's text after its name, up to and including its `>` (its attributes).
    pub attrs: &'a [u8],
    /// True for an `<a>` start tag with an `href` attribute (a link, not a named anchor).
    pub href: bool,
    /// What the start tag's `class`, `role` and `itemprop` attributes say of its content.
    pub hint: Hint,
    /// What the start tag's `id` says of its content (ids inside the main text are mostly slugs
    /// of its headings, so the caller decides whether to trust it).
    pub id_hint: Hint,
    /// Which words gave `hint` and `id_hint` their [`Hint::Boilerplate`]: bits of
    /// [`MARK_COMMENTS`] and [`MARK_OTHER`] for `hint`, the same shifted by [`ID_MARKS`] for
    /// `id_hint` ([`comments_only`] reads them); and [`MARK_REVIEWS`] (shifted the same for
    /// `id`) when a word names reviews ([`names_reviews`]).
    pub marks: u8,
    /// True when the start tag says its element is not rendered: a `hidden` attribute (but
    /// `hidden=until-found`, collapsed text a reader can find), a `style` with `display: none`
    /// or `visibility: hidden` (readability's visibility test), or a class name the common style
    /// sheets hide; never for a tab panel (`role=tabpanel`), hidden only until its tab is chosen.
    pub hidden: bool,
    /// What the start tag's class names say of the element's role in showing code or math
    /// ([`class_role`]): bits of [`ROLE_LANGUAGE`], [`ROLE_MATH_COPY`], [`ROLE_MATH_IMAGE`],
    /// [`ROLE_MATH_SHOWN`], [`ROLE_RESPONSIVE`]; and whether its `role` names the page's main
    /// landmark ([`ROLE_MAIN`]).
    pub roles: u8,
}

impl<'a> TagToken<'a> {
    /// The end tag `</name>`.
    pub(crate) fn end(name: &'a [u8]) -> Self {
        TagToken {
            end: true,
            name,
            self_closing: false,
            attrs: &[],
            href: false,
            hint: Hint::None,
            id_hint: Hint::None,
            marks: 0,
            hidden: false,
            roles: 0,
        }
    }
}

/// What an element's markup says of its content, the cues single-page extractors read
/// (readability's candidate patterns, the ARIA landmark roles, schema.org's `articleBody`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hint {
    /// Nothing.
    #[default]
    None,
    /// The main text: `<article>`, `<main>`, `role=main|article`, `itemprop=articleBody|text`.
    Content,
    /// Around the main text: `<nav>`, `<aside>`, `<footer>`, `<figcaption>` (a picture's legend),
    /// `role=navigation|complementary|contentinfo|banner|menu|search`, or a `class`/`id` word
    /// such as comment, sidebar, related, share, social, footer, breadcrumb, promo, ad, widget,
    /// menu, nav, or a `class` word naming a gallery of pictures (gallery, slideshow).
    Boilerplate,
}

impl Hint {
    /// The stronger of two hints: boilerplate over content over none.
    #[inline]
    pub fn max(self, other: Hint) -> Hint {
        match (self, other) {
            (Hint::Boilerplate, _) | (_, Hint::Boilerplate) => Hint::Boilerplate,
            (Hint::Content, _) | (_, Hint::Content) => Hint::Content,
            _ => Hint::None,
        }
    }
}

/// The attributes read for hints.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HintAttr {
    Class,
    Id,
    Role,
    ItemProp,
}

#[inline]
fn hint_attr(name: &[u8]) -> Option<HintAttr> {
    match name.len() {
        2 if name.eq_ignore_ascii_case(b"id") => Some(HintAttr::Id),
        4 if name.eq_ignore_ascii_case(b"role") => Some(HintAttr::Role),
        5 if name.eq_ignore_ascii_case(b"class") => Some(HintAttr::Class),
        8 if name.eq_ignore_ascii_case(b"itemprop") => Some(HintAttr::ItemProp),
        _ => None,
    }
}

/// Longest word of a `class`/`id` value compared with the hint words.
const MAX_HINT_WORD: usize = 16;

/// What the words of one attribute value said so far.
#[derive(Default)]
struct Words {
    /// The strongest hint of a word.
    hint: Hint,
    /// Which words gave a [`Hint::Boilerplate`] ([`MARK_COMMENTS`], [`MARK_OTHER`], ...).
    marks: u8,
    /// A class or id word names the text itself (`content`, `article`, `body`, `main`).
    wraps_text: bool,
    /// A class or id word names an author's box (`author`, `bio`), judged after the whole list.
    author: bool,
    /// A class name is a term the element is filed under ([`names_term`]).
    terms: bool,
}

/// The hint of one attribute value: its words (split at every non-alphanumeric byte, ASCII
/// case-insensitive) against the words that mark boilerplate or content.
/// Also returns which words gave a [`Hint::Boilerplate`] ([`MARK_COMMENTS`], [`MARK_OTHER`]).
fn value_hint(attr: HintAttr, value: &[u8], roles: &mut u8) -> (Hint, u8) {
    let mut words = Words::default();
    match attr {
        // A class list holds several names; an id is one name.
        HintAttr::Class => {
            for name in value.split(|b| b.is_ascii_whitespace()) {
                *roles |= class_role(name);
                name_hint(attr, name, &mut words);
            }
        }
        HintAttr::Id => name_hint(attr, value, &mut words),
        HintAttr::Role | HintAttr::ItemProp => {
            for word in value
                .split(|b| !b.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
            {
                if attr == HintAttr::Role && word.eq_ignore_ascii_case(b"main") {
                    *roles |= ROLE_MAIN;
                }
                word_hint(attr, word, &mut words);
            }
        }
    }
    // An author's box (a byline, a bio under the text), unless the class list is the one of a
    // post filed under its terms: there `author-jane-roe` is the post's author, one term beside
    // its categories, and the element is the post itself.
    if words.author && !words.terms {
        words.hint = Hint::Boilerplate;
        words.marks |= MARK_OTHER;
    }
    // A name that also says it holds the text ("content-sidebar-wrap", "main-nav-and-body")
    // names a wrapper of the text and its surroundings, not a region around it (readability's
    // rule for its candidates).
    if words.wraps_text {
        (Hint::None, 0)
    } else {
        (words.hint, words.marks)
    }
}

/// Names of more words than this are the slug of a heading (an anchor such as
/// `s-configuring-form-elements-html-id-attributes-and-label-tags`), not the name of a region: their
/// words say what the section is about, not what role it plays.
const MAX_NAME_WORDS: usize = 4;

/// Adds the hints of the words of one class or id name: read whole ("SideBar") and split where a
/// capital follows a small letter ("cnnBlogComment"); a slug of a heading gives none.
fn name_hint(attr: HintAttr, name: &[u8], out: &mut Words) {
    // One pass over the name finds its words (runs of ASCII letters and digits) and whether a
    // capital follows a small letter in each; a name of too many words is rejected before any
    // word is looked up, as a count of its words first would.
    let mut words = [(0usize, 0usize, false); MAX_NAME_WORDS];
    let mut count = 0;
    let mut i = 0;
    while i < name.len() {
        if !name[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut humps = false;
        let mut prev_lower = name[i].is_ascii_lowercase();
        i += 1;
        while let Some(&b) = name.get(i) {
            if !b.is_ascii_alphanumeric() {
                break;
            }
            humps |= prev_lower && b.is_ascii_uppercase();
            prev_lower = b.is_ascii_lowercase();
            i += 1;
        }
        let Some(slot) = words.get_mut(count) else {
            return;
        };
        *slot = (start, i, humps);
        count += 1;
    }
    if let Some(&(start, end, _)) = words[..count].first() {
        let first = &name[start..end];
        if attr == HintAttr::Class && !out.terms {
            let second = words
                .get(1)
                .filter(|_| count > 2)
                .map(|&(s, e, _)| &name[s..e]);
            out.terms = names_term(first, second, count);
        }
        if about_another(first) {
            return;
        }
    }
    for &(start, end, humps) in &words[..count] {
        let word = &name[start..end];
        word_hint(attr, word, out);
        if humps {
            let mut from = 0;
            for k in 1..=word.len() {
                if k == word.len()
                    || (word[k].is_ascii_uppercase() && word[k - 1].is_ascii_lowercase())
                {
                    word_hint(attr, &word[from..k], out);
                    from = k;
                }
            }
        }
    }
}

/// True when a name's first word makes the name say something about another element or about
/// the page, not what this element is: a modifier of what it holds or lacks (`has-sidebar`,
/// `with-sidebar`, `no-sidebar`: the BEM and utility-class spelling of a wrapper's layout),
/// when it is shown (`hidden-print`, `visible-print`: display utilities), or a term the page
/// is filed under (`tag-social-media`, `category-sponsored`: WordPress's classes of a post's
/// tags and categories). Such a name gives no hint, whatever words follow.
fn about_another(first: &[u8]) -> bool {
    const LEADS: [&[u8]; 9] = [
        b"has",
        b"with",
        b"without",
        b"no",
        b"hidden",
        b"hide",
        b"visible",
        b"tag",
        b"category",
    ];
    LEADS.iter().any(|l| first.eq_ignore_ascii_case(l))
}

/// True when a class name is a term its element is filed under, as a blog writes on a post's
/// element: WordPress's `category-news`, `tag-nokia`, `format-standard`, `status-publish`,
/// Typepad's `entry-category-…` and `entry-type-post`, Thesis's `s-category-…`, hAtom's
/// `hentry`. `first` and `second` are the name's first two words (`second` only when a third
/// follows), `count` how many it has.
fn names_term(first: &[u8], second: Option<&[u8]>, count: usize) -> bool {
    const TERMS: [&[u8]; 4] = [b"category", b"tag", b"format", b"status"];
    let term = |w: &[u8]| TERMS.iter().any(|t| w.eq_ignore_ascii_case(t));
    (count >= 2 && term(first))
        || (count == 1 && first.eq_ignore_ascii_case(b"hentry"))
        || second.is_some_and(|second| {
            [&b"entry"[..], b"post", b"s"]
                .iter()
                .any(|p| first.eq_ignore_ascii_case(p))
                && (term(second) || second.eq_ignore_ascii_case(b"type"))
        })
}

/// Adds the hint of one word of an attribute value to `out`, with whether a boilerplate word
/// names comments ([`MARK_COMMENTS`]) or another region ([`MARK_OTHER`]), whether a class or id
/// word names the text itself, and whether it names an author's box.
#[inline]
fn word_hint(attr: HintAttr, word: &[u8], out: &mut Words) {
    if word.len() < 2 || word.len() > MAX_HINT_WORD {
        return;
    }
    let mut buf = [0u8; MAX_HINT_WORD];
    let lower = &mut buf[..word.len()];
    lower.copy_from_slice(word);
    lower.make_ascii_lowercase();
    let h = match attr {
        HintAttr::Class | HintAttr::Id => {
            out.wraps_text |= matches!(&*lower, b"article" | b"body" | b"content" | b"main");
            if matches!(&*lower, b"review" | b"reviews") {
                out.marks |= MARK_REVIEWS;
            }
            out.author |= matches!(&*lower, b"author" | b"bio");
            if attr == HintAttr::Class && gallery_word(lower) {
                Hint::Boilerplate
            } else {
                class_word_hint(lower)
            }
        }
        HintAttr::Role => match &*lower {
            b"main" | b"article" => Hint::Content,
            b"navigation" | b"complementary" | b"contentinfo" | b"banner" | b"menu"
            | b"menubar" | b"search" => Hint::Boilerplate,
            _ => Hint::None,
        },
        HintAttr::ItemProp => match &*lower {
            b"articlebody" | b"text" | b"reviewbody" => Hint::Content,
            _ => Hint::None,
        },
    };
    if h == Hint::Boilerplate {
        let class_or_id = matches!(attr, HintAttr::Class | HintAttr::Id);
        out.marks |= if class_or_id && comment_word(lower) {
            MARK_COMMENTS
        } else if attr == HintAttr::Class && gallery_word(lower) {
            MARK_OTHER | MARK_GALLERY
        } else {
            MARK_OTHER
        };
    }
    out.hint = out.hint.max(h);
}

#[inline]
fn add_hint(hints: &mut Hints, attr: HintAttr, (hint, marks): (Hint, u8)) {
    if attr == HintAttr::Id {
        hints.1 = hints.1.max(hint);
        hints.4 |= marks << ID_MARKS;
    } else {
        hints.0 = hints.0.max(hint);
        hints.4 |= marks;
    }
}

/// A boilerplate word of a tag's `class` (or, shifted by [`ID_MARKS`], `id`) names comments.
pub(crate) const MARK_COMMENTS: u8 = 1;
/// A boilerplate word of a tag's `class`, `role` (or, shifted, `id`) names another region.
pub(crate) const MARK_OTHER: u8 = 2;
/// The shift of the `id`'s marks in [`TagToken::marks`].
pub(crate) const ID_MARKS: u8 = 2;
/// A word of a tag's `class` (or, shifted by [`ID_MARKS`], `id`) names reviews (`review`,
/// `reviews`); it gives no hint of its own (a review is a critic's article as often as a
/// customer's note on a product), the caller decides.
pub(crate) const MARK_REVIEWS: u8 = 16;

/// True when the words that gave `marks` name reviews, in a `class` or an `id`.
#[inline]
pub(crate) fn names_reviews(marks: u8) -> bool {
    marks & (MARK_REVIEWS | MARK_REVIEWS << ID_MARKS) != 0
}
/// A word of a tag's `class` names a gallery of pictures ([`gallery_word`]), beside the class's
/// [`MARK_OTHER`]; a bit of its own, between [`MARK_REVIEWS`] and the same shifted for the `id`.
pub(crate) const MARK_GALLERY: u8 = 32;

/// Words of `class` and `id` values that mark a page's comments on its text: the readers'
/// responses, which trafilatura extracts apart as its `comments` (the reply form, `respond`,
/// is not one: it holds no comment).
fn comment_word(word: &[u8]) -> bool {
    matches!(
        word,
        b"comment" | b"comments" | b"commentlist" | b"disqus" | b"replies"
    )
}

/// True when the boilerplate hint of a tag whose `class`/`role`/`itemprop` hint is `hint`,
/// whose `id` hint is `id_hint` (when read) and whose words gave `marks` rests on words naming
/// comments alone.
#[inline]
pub(crate) fn comments_only(hint: Hint, id_hint: Option<Hint>, marks: u8) -> bool {
    let class = (hint == Hint::Boilerplate).then_some(marks & 3);
    let id = id_hint
        .filter(|h| *h == Hint::Boilerplate)
        .map(|_| (marks >> ID_MARKS) & 3);
    match (class, id) {
        (None, None) => false,
        (c, i) => c.is_none_or(|m| m == MARK_COMMENTS) && i.is_none_or(|m| m == MARK_COMMENTS),
    }
}

/// Words of `class` and `id` values that mark the regions around a page's main text.
fn class_word_hint(word: &[u8]) -> Hint {
    match word {
        b"comment" | b"comments" | b"commentlist" | b"disqus" | b"respond" | b"replies"
        | b"sidebar" | b"related" | b"share" | b"sharing" | b"social" | b"footer"
        | b"breadcrumb" | b"breadcrumbs" | b"promo" | b"ad" | b"ads" | b"advert"
        | b"advertisement" | b"sponsor" | b"sponsored" | b"widget" | b"widgets" | b"menu"
        | b"nav" | b"navbar" | b"navigation" | b"newsletter" | b"subscribe" | b"pagination"
        | b"pager" | b"cookie" | b"cookies" | b"popup" | b"banner" | b"outbrain" | b"taboola"
        | b"recommended" | b"recommendations" | b"trending" | b"popular" | b"masthead"
        | b"toolbar" | b"signup" | b"login" | b"tags" | b"print" | b"rating" | b"ratings"
        | b"follow" | b"disclaimer" | b"disclosure" => Hint::Boilerplate,
        _ => Hint::None,
    }
}

/// Class words that name a gallery of pictures (a news site's gallery, a slideshow): what it
/// holds are the pictures' captions, legends like a `<figcaption>`, not the running text. A
/// carousel (Bootstrap's `carousel`, the WAI-ARIA carousel pattern) names no such thing: it shows
/// slides one at a time, and a slide is a picture as often as a product's features, a service's
/// steps or a related story, which the page's structure judges. Read in class names only: a
/// class names a component's kind, while an id names one element and often after its content
/// (Texinfo anchors the index entry of a function named `gallery` as `id="index-gallery"`).
fn gallery_word(word: &[u8]) -> bool {
    matches!(word, b"gallery" | b"slideshow")
}

/// A class names the language of the code inside (`language-X`, `lang-X`, `highlight-X`,
/// `brush: X`); [`code_language`] reads which.
pub(crate) const ROLE_LANGUAGE: u8 = 1;
/// A class marks a second rendering of a formula that the page also ships as MathML or TeX:
/// KaTeX's `katex-html` (the glyphs beside its `katex-mathml`, hidden from screen readers) and
/// MathJax's `MathJax_Preview` (a placeholder MathJax replaces with the typeset formula).
pub(crate) const ROLE_MATH_COPY: u8 = 2;
/// A class marks a picture of a formula shipped beside its MathML: MediaWiki's
/// `mwe-math-fallback-image-inline` and `-display`.
pub(crate) const ROLE_MATH_IMAGE: u8 = 4;
/// A class marks MathML a page hides because it shows the formula as a picture beside it
/// (MediaWiki's `mwe-math-mathml-a11y`): a reader sees the formula, so its text is not hidden.
pub(crate) const ROLE_MATH_SHOWN: u8 = 8;
/// A class shows or hides its element at some screen widths only ([`responsive_class`]): a
/// page that lays its text out twice, once for small screens and once for large, shows a reader
/// one of the two copies.
pub(crate) const ROLE_RESPONSIVE: u8 = 16;
/// A `role` names the element the page's main landmark (WAI-ARIA's `main`, what `<main>` is by
/// its name): the author's statement of where the page's dominant content lies, around all of it.
pub(crate) const ROLE_MAIN: u8 = 32;
/// The tag has an `itemtype`: it opens a schema.org microdata item of that type, which
/// [`attribute_value`] reads.
pub(crate) const ROLE_ITEM: u8 = 64;

/// The role ([`ROLE_LANGUAGE`], ...) of one class name: compared whole (the language prefixes as
/// prefixes, ASCII case-insensitively), in the spelling the tools write.
#[inline]
fn class_role(name: &[u8]) -> u8 {
    match name.first() {
        Some(b'l' | b'L' | b'h' | b'H' | b'b' | b'B') if language_prefix(name).is_some() => {
            ROLE_LANGUAGE
        }
        Some(b'k') if name == b"katex-html" => ROLE_MATH_COPY,
        Some(b'M') if name == b"MathJax_Preview" => ROLE_MATH_COPY,
        Some(b'm') if name.starts_with(b"mwe-math-fallback-image") => ROLE_MATH_IMAGE,
        Some(b'm') if name == b"mwe-math-mathml-a11y" => ROLE_MATH_SHOWN,
        _ if responsive_class(name) => ROLE_RESPONSIVE,
        _ => 0,
    }
}

/// `name` lower-cased (ASCII) into `buf`, when it is at least `min` bytes long and fits in
/// `buf`: the class names compared whole are short, so a longer one is none of them.
fn lowercase_in<'b>(name: &[u8], min: usize, buf: &'b mut [u8]) -> Option<&'b [u8]> {
    if name.len() < min || name.len() > buf.len() {
        return None;
    }
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    Some(lower)
}

/// True when a class name, whose first and last words are `first` and `last`, says which screen
/// its element's layout is for, without saying how it is shown there: one of those words names
/// a device (`desktop`, `tablet`, `mobile`, `phone`: a shop's `desktop`, `tablet` and `mobile`
/// copies of one banner, a tab strip's `filter-tabs-container__desktop` beside its accordion for
/// phones, a `mobile-menu`), or it is Framer's `ssr-variant`, the server-rendered copy of a
/// page's layout at one breakpoint of several. The style sheet shows one of the copies at each
/// width. Only the two ends of a name are read, as [`responsive_class`] reads them, so that a
/// name is not read whole.
fn layout_for_a_screen(name: &[u8], first: &[u8], last: &[u8]) -> bool {
    const DEVICES: [&[u8]; 4] = [b"desktop", b"tablet", b"mobile", b"phone"];
    let device = |word: &[u8]| DEVICES.iter().any(|d| word.eq_ignore_ascii_case(d));
    name.len() >= 5 && (name == b"ssr-variant" || device(first) || device(last))
}

/// Longest class name read as a responsive display utility.
const MAX_RESPONSIVE_CLASS: usize = 24;

/// True when a class name is a display utility keyed to a screen width: it names a breakpoint
/// (`xs` to `xxl`, `small`, `medium`, `large`, `mobile`, `tablet`, `desktop`, ...) and shows or
/// hides its element there. The spellings of the common style sheets: Bootstrap's `hidden-xs`,
/// `visible-md-block` and `d-md-none`, Tailwind's `md:hidden` and `lg:block`, Foundation's
/// `show-for-small-only` and `hide-for-large`, Bulma's `is-hidden-mobile`, Shopify's
/// `small-hide` and `large-up-hide`, Squarespace's `hidden-down-md`, and the sites' own
/// `mobile-only` and `hide-on-desktop`. A grid column (`col-md-6`) or a flex direction
/// (`flex-md-row`) shows and hides nothing; Foundation's `show-for-sr` names no width. A name
/// that says which screen its layout is for ([`layout_for_a_screen`]) is read so too.
fn responsive_class(name: &[u8]) -> bool {
    // Every spelling leads with what is shown (`hidden-xs`, `d-md-none`, `is-hidden-mobile`),
    // ends with it (`small-hide`, `mobile-only`) or is Tailwind's (`md:hidden`): a name that
    // does none of these is passed over before it is read whole, as nearly every name is.
    const LEADS: [&[u8]; 7] = [
        b"hidden", b"hide", b"visible", b"show", b"d", b"is", b"only",
    ];
    const ENDS: [&[u8]; 5] = [b"hidden", b"hide", b"visible", b"show", b"only"];
    let separator = |b: &u8| matches!(b, b'-' | b'_' | b':');
    let (Some(first), Some(last)) = (name.split(separator).next(), name.rsplit(separator).next())
    else {
        return false;
    };
    if layout_for_a_screen(name, first, last) {
        return true;
    }
    let one_of = |set: &[&[u8]], word: &[u8]| set.iter().any(|w| word.eq_ignore_ascii_case(w));
    if first.len() == name.len()
        || !(one_of(&LEADS, first) || one_of(&ENDS, last) || name.contains(&b':'))
    {
        return false;
    }
    let mut buf = [0u8; MAX_RESPONSIVE_CLASS];
    let Some(lower) = lowercase_in(name, 5, &mut buf) else {
        return false;
    };
    const BREAKPOINTS: [&[u8]; 17] = [
        b"xs",
        b"sm",
        b"md",
        b"lg",
        b"xl",
        b"xxl",
        b"2xl",
        b"small",
        b"medium",
        b"large",
        b"mobile",
        b"tablet",
        b"desktop",
        b"phone",
        b"touch",
        b"widescreen",
        b"fullhd",
    ];
    const DISPLAYS: [&[u8]; 9] = [
        b"none",
        b"hidden",
        b"block",
        b"flex",
        b"inline",
        b"inline-block",
        b"inline-flex",
        b"grid",
        b"table",
    ];
    const SHOWS: [&[u8]; 5] = [b"hidden", b"hide", b"visible", b"show", b"only"];
    let is = |set: &[&[u8]], word: &[u8]| set.contains(&word);
    // Tailwind: a breakpoint variant (`md:`, `max-lg:`) before a display value.
    if let Some(colon) = lower.iter().rposition(|&b| b == b':') {
        let (variant, display) = (&lower[..colon], &lower[colon + 1..]);
        let variant = variant.strip_prefix(b"max-").unwrap_or(variant);
        return is(&BREAKPOINTS[..7], variant) && is(&DISPLAYS[1..], display);
    }
    // Bootstrap 4 and 5: `d-{breakpoint}-{display}`.
    if let Some(rest) = lower.strip_prefix(b"d-") {
        return rest.iter().position(|&b| b == b'-').is_some_and(|dash| {
            is(&BREAKPOINTS[..7], &rest[..dash]) && is(&DISPLAYS, &rest[dash + 1..])
        });
    }
    let words = || lower.split(|&b| b == b'-' || b == b'_');
    words().any(|w| is(&BREAKPOINTS, w)) && words().any(|w| is(&SHOWS, w))
}

/// The rest of a class name after a prefix that names a code language (`language-`, `lang-`,
/// `highlight-`, `brush:`), ASCII case-insensitively.
#[inline]
fn language_prefix(name: &[u8]) -> Option<&[u8]> {
    const PREFIXES: [&[u8]; 4] = [b"language-", b"lang-", b"highlight-", b"brush:"];
    PREFIXES.iter().find_map(|p| {
        name.get(..p.len())
            .filter(|head| head.eq_ignore_ascii_case(p))
            .map(|_| &name[p.len()..])
    })
}

/// Byte classes of the tag lexer, as bit flags.
const SPACE: u8 = 1;
const SLASH: u8 = 2;
const GT: u8 = 4;
const EQ: u8 = 8;
/// Ends a tag name.
const NAME_END: u8 = SPACE | SLASH | GT;
/// Ends an attribute name.
const ATTR_NAME_END: u8 = SPACE | SLASH | GT | EQ;
/// Ends an unquoted attribute value.
const UNQUOTED_END: u8 = SPACE | GT;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b' ' as usize] = SPACE;
    t[b'/' as usize] = SLASH;
    t[b'>' as usize] = GT;
    t[b'=' as usize] = EQ;
    t
};

#[inline(always)]
fn class(b: u8) -> u8 {
    CLASS[b as usize]
}

/// Index of the first byte at or after `from` whose class intersects `mask`, or `run.len()`.
#[inline(always)]
fn skip_until(run: &[u8], from: usize, mask: u8) -> usize {
    let mut j = from;
    while j < run.len() && class(run[j]) & mask == 0 {
        j += 1;
    }
    j
}

/// Index of the first non-space byte at or after `from`, or `run.len()`.
#[inline(always)]
fn skip_spaces(run: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < run.len() && class(run[j]) == SPACE {
        j += 1;
    }
    j
}

/// Index of the first `needle` at or after `from`: a short scan first (attribute values are
/// mostly short), then memchr.
#[inline(always)]
fn find_byte(run: &[u8], from: usize, needle: u8) -> Option<usize> {
    let end = run.len().min(from + 24);
    let mut j = from;
    while j < end {
        if run[j] == needle {
            return Some(j);
        }
        j += 1;
    }
    memchr(needle, run.get(end..)?).map(|p| end + p)
}

/// True when the attributes of a tag contain `href` (any case). A value containing the word
/// also counts; such values are rare enough not to matter for link density.
#[inline]
pub(crate) fn has_href(attributes: &[u8]) -> bool {
    attributes
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"href"))
}

/// An attribute of a tag: name (as written) and raw value.
type Attr<'a> = (&'a [u8], &'a [u8]);

/// The attributes of a tag's text after its name: (name, raw value) for each attribute with a
/// value, quoted or not.
pub(crate) fn attributes(tag: &[u8]) -> impl Iterator<Item = Attr<'_>> {
    let mut i = 0;
    std::iter::from_fn(move || {
        let n = tag.len();
        loop {
            while i < n && (tag[i].is_ascii_whitespace() || tag[i] == b'/') {
                i += 1;
            }
            if i >= n || tag[i] == b'>' {
                return None;
            }
            let start = i;
            i += 1;
            while i < n && !matches!(tag[i], b'=' | b'>' | b'/') && !tag[i].is_ascii_whitespace() {
                i += 1;
            }
            let name = &tag[start..i];
            while i < n && tag[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= n || tag[i] != b'=' {
                continue;
            }
            i += 1;
            while i < n && tag[i].is_ascii_whitespace() {
                i += 1;
            }
            let value = match tag.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let from = i + 1;
                    let len = tag[from..].iter().position(|&b| b == q).unwrap_or(n - from);
                    i = from + len + 1;
                    &tag[from..from + len]
                }
                _ => {
                    let from = i;
                    while i < n && !tag[i].is_ascii_whitespace() && tag[i] != b'>' {
                        i += 1;
                    }
                    &tag[from..i]
                }
            };
            return Some((name, value));
        }
    })
}

/// What a `<script>` holds, by its `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptType {
    /// Code, data or anything else.
    Other,
    /// JSON-LD (`application/ld+json`): the page's metadata.
    JsonLd,
    /// A formula's TeX source (`math/tex`, MathJax 2's; `mode=display` for a displayed one).
    Tex {
        /// Shown as a block of its own.
        display: bool,
    },
}

/// What a `<script>` start tag's `type` (`attrs` its text after the name) says it holds.
pub(crate) fn script_type(attrs: &[u8]) -> ScriptType {
    let Some((_, value)) = attributes(attrs).find(|(n, _)| n.eq_ignore_ascii_case(b"type")) else {
        return ScriptType::Other;
    };
    let value = value.trim_ascii();
    if value.eq_ignore_ascii_case(b"application/ld+json") {
        return ScriptType::JsonLd;
    }
    let mut parts = value.split(|&b| b == b';');
    let is_tex = parts
        .next()
        .is_some_and(|t| t.trim_ascii().eq_ignore_ascii_case(b"math/tex"));
    if !is_tex {
        return ScriptType::Other;
    }
    let display = parts.any(|p| {
        let p = p.trim_ascii();
        p.len() == 12 && p.eq_ignore_ascii_case(b"mode=display")
    });
    ScriptType::Tex { display }
}

/// Longest name of a code block's language.
const MAX_LANGUAGE_BYTES: usize = 24;

/// The language an element's start tag names for the code it holds, by the class that
/// highlighters and Markdown converters write: `language-X` (CommonMark's info string, Prism,
/// highlight.js, Rouge, MkDocs), `lang-X`, `highlight-X` (Sphinx's Pygments wrapper; GitHub's
/// `highlight-source-X`), `brush: X` (SyntaxHighlighter). `X` is ASCII letters, digits and
/// `+#._-`, lower-cased; Sphinx's `default` and `none` name no language.
pub(crate) fn code_language(attrs: &[u8]) -> Option<String> {
    let (_, class) = attributes(attrs).find(|(name, _)| name.eq_ignore_ascii_case(b"class"))?;
    let mut names = class
        .split(u8::is_ascii_whitespace)
        .filter(|n| !n.is_empty());
    while let Some(name) = names.next() {
        let Some(rest) = language_prefix(name) else {
            continue;
        };
        // `brush: php;` puts the language in the next name.
        let rest = match rest {
            [] if name.ends_with(b":") => names.next().unwrap_or_default(),
            rest => rest,
        };
        let lang = rest.strip_suffix(b";").unwrap_or(rest).to_ascii_lowercase();
        let lang = match lang.strip_prefix(b"source-") {
            Some(source) => source.to_vec(),
            None => lang,
        };
        let ok = !lang.is_empty()
            && lang.len() <= MAX_LANGUAGE_BYTES
            && lang
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || b"+#._-".contains(b))
            && !matches!(&*lang, b"default" | b"none");
        if ok {
            return Some(String::from_utf8_lossy(&lang).into_owned());
        }
    }
    None
}

/// Hints of a tag's attributes: (`class`, `role`, `itemprop`), (`id`), whether `hidden`,
/// `style` or `class` say the element is not rendered, the roles its class names
/// ([`class_role`]), and which words gave the hints ([`TagToken::marks`]).
type Hints = (Hint, Hint, bool, u8, u8);

/// True when an attribute with `value` hides its element: a `hidden` attribute (but
/// `hidden=until-found`, collapsed text a reader's search reveals), a `style` that [`hides`], a
/// `class` with a [`hiding_class`].
#[inline]
fn hides_element(hidden_attr: bool, style: bool, class: bool, value: &[u8]) -> bool {
    (hidden_attr && !value.eq_ignore_ascii_case(b"until-found"))
        || (style && hides(value))
        || (class && hiding_class(value))
}

/// Longest class name compared with the names that hide an element.
const MAX_HIDING_CLASS: usize = 18;

/// True when a `class` value holds a name that the common style sheets define as not rendered
/// (`display: none`, `visibility: hidden`) or as shown to screen readers only: Bootstrap's
/// `hidden`, `d-none`, `invisible`, `sr-only` and `visually-hidden`, Foundation's `hide`,
/// WordPress's `screen-reader-text`, Drupal's `element-invisible`, HTML5 Boilerplate's
/// `visuallyhidden`. Whole names only: `hidden-xs` hides on small screens alone.
fn hiding_class(value: &[u8]) -> bool {
    value.split(u8::is_ascii_whitespace).any(|name| {
        let mut buf = [0u8; MAX_HIDING_CLASS];
        let Some(lower) = lowercase_in(name, 4, &mut buf) else {
            return false;
        };
        matches!(
            lower,
            b"hidden"
                | b"hide"
                | b"d-none"
                | b"invisible"
                | b"sr-only"
                | b"visually-hidden"
                | b"visuallyhidden"
                | b"screen-reader-text"
                | b"element-invisible"
        )
    })
}

/// True when a `style` value hides its element: `display: none` or `visibility: hidden` (white
/// space and case ignored).
fn hides(style: &[u8]) -> bool {
    let mut squeezed = [0u8; 64];
    let mut n = 0;
    let mut found = false;
    for &b in style {
        if b.is_ascii_whitespace() {
            continue;
        }
        if n == squeezed.len() {
            squeezed.copy_within(32.., 0);
            n -= 32;
        }
        squeezed[n] = b.to_ascii_lowercase();
        n += 1;
        let s = &squeezed[..n];
        if s.ends_with(b"display:none") || s.ends_with(b"visibility:hidden") {
            found = true;
        }
    }
    found
}

/// The value of the first attribute named `want` (ASCII case-insensitively) of a start tag's text
/// after its name (`attrs`, through its `>`), read as [`lex_tag`] reads attributes.
pub(crate) fn attribute_value<'a>(attrs: &'a [u8], want: &[u8]) -> Option<&'a [u8]> {
    let mut j = 0;
    loop {
        j = skip_spaces(attrs, j);
        match attrs.get(j).copied()? {
            b'>' => return None,
            b'/' => {
                j += 1;
                continue;
            }
            _ => {}
        }
        let name_start = j;
        j = skip_until(attrs, j + 1, ATTR_NAME_END);
        let name = &attrs[name_start..j];
        j = skip_spaces(attrs, j);
        if attrs.get(j).copied()? != b'=' {
            continue;
        }
        j = skip_spaces(attrs, j + 1);
        let value = match attrs.get(j).copied()? {
            q @ (b'"' | b'\'') => {
                let from = j + 1;
                j = find_byte(attrs, from, q)? + 1;
                &attrs[from..j - 1]
            }
            b'>' => return None,
            _ => {
                let from = j;
                j = skip_until(attrs, j, UNQUOTED_END);
                &attrs[from..j]
            }
        };
        if name.eq_ignore_ascii_case(want) {
            return Some(value);
        }
    }
}

/// Lexes a tag whose name starts at `start`; returns (index past `>`, name, self-closing, hints
/// of its attributes), or None when the tag is not closed within `run`.
pub(crate) fn lex_tag(run: &[u8], start: usize) -> Option<(usize, &[u8], bool, Hints)> {
    let mut j = skip_until(run, start, NAME_END);
    let name = &run[start..j];
    let mut hint: Hints = (Hint::None, Hint::None, false, 0, 0);
    let mut shown = Shown {
        dialog_tag: name.eq_ignore_ascii_case(b"dialog"),
        ..Shown::default()
    };
    loop {
        // Before attribute name.
        j = skip_spaces(run, j);
        match run.get(j).copied()? {
            b'>' => return Some((j + 1, name, false, shown.of(hint))),
            b'/' => {
                j += 1;
                if run.get(j) == Some(&b'>') {
                    return Some((j + 1, name, true, shown.of(hint)));
                }
                continue;
            }
            _ => {}
        }
        // Attribute name (its first character may be anything, even `=` or a quote).
        let attr_start = j;
        j = skip_until(run, j + 1, ATTR_NAME_END);
        let attr_name = &run[attr_start..j];
        let attr = hint_attr(attr_name);
        let hidden_attr = attr_name.eq_ignore_ascii_case(b"hidden");
        let style = attr_name.eq_ignore_ascii_case(b"style");
        let class = attr == Some(HintAttr::Class);
        shown.open |= attr_name.eq_ignore_ascii_case(b"open");
        if attr_name.len() == 8 && attr_name.eq_ignore_ascii_case(b"itemtype") {
            hint.3 |= ROLE_ITEM;
        }
        // After attribute name.
        j = skip_spaces(run, j);
        if run.get(j).copied()? != b'=' {
            hint.2 |= hidden_attr;
            continue;
        }
        // Before attribute value.
        j = skip_spaces(run, j + 1);
        let value_start;
        match run.get(j).copied()? {
            q @ (b'"' | b'\'') => {
                value_start = j + 1;
                j = find_byte(run, j + 1, q)? + 1;
                let value = &run[value_start..j - 1];
                if let Some(attr) = attr {
                    let value_hint = value_hint(attr, value, &mut hint.3);
                    add_hint(&mut hint, attr, value_hint);
                }
                hint.2 |= hides_element(hidden_attr, style, class, value);
                shown.attribute(attr_name, attr, value);
            }
            b'>' => return Some((j + 1, name, false, shown.of(hint))),
            _ => {
                value_start = j;
                j = skip_until(run, j, UNQUOTED_END);
                let value = &run[value_start..j];
                if let Some(attr) = attr {
                    let value_hint = value_hint(attr, value, &mut hint.3);
                    add_hint(&mut hint, attr, value_hint);
                }
                hint.2 |= hides_element(hidden_attr, style, class, value);
                shown.attribute(attr_name, attr, value);
            }
        }
    }
}

/// What a tag's attributes say of whether a reader sees the element, beside what hides it
/// ([`hides_element`]). A tab panel is hidden until its tab is chosen: text the page shows a
/// reader on a click, not text it keeps from the reader. A dialog opens over the page (WAI-ARIA's
/// `dialog` and `alertdialog`, `aria-modal=true`, a `<dialog>` not `open`): a cookie consent's
/// preference centre, a sign-up form, a menu's drawer, a picture's lightbox, shown over the page
/// or on a reader's action and never part of its text; `aria-modal=false` says it is part of the
/// page's flow.
#[derive(Default)]
struct Shown {
    /// The tag is a `<dialog>`.
    dialog_tag: bool,
    /// It has an `open` attribute.
    open: bool,
    /// Its `role` names a tab panel.
    panel: bool,
    /// Its `role` names a dialog.
    dialog_role: bool,
    /// Its `aria-modal`, if it has one: whether it says `true`.
    aria_modal: Option<bool>,
}

impl Shown {
    /// Reads an attribute with a value.
    #[inline]
    fn attribute(&mut self, name: &[u8], attr: Option<HintAttr>, value: &[u8]) {
        if attr == Some(HintAttr::Role) {
            self.panel |= tab_panel(value);
            self.dialog_role |= dialog_role(value);
        } else if name.eq_ignore_ascii_case(b"aria-modal") {
            self.aria_modal = Some(value.eq_ignore_ascii_case(b"true"));
        }
    }

    /// `hint` with its hidden flag as the attributes read say.
    #[inline]
    fn of(&self, mut hint: Hints) -> Hints {
        let dialog = (self.dialog_tag && !self.open) || self.aria_modal.unwrap_or(self.dialog_role);
        hint.2 = (hint.2 && !self.panel) || dialog;
        hint
    }
}

/// True when a `role` value names a dialog (WAI-ARIA's `dialog`, `alertdialog`).
fn dialog_role(value: &[u8]) -> bool {
    value
        .split(|b| !b.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(b"dialog") || w.eq_ignore_ascii_case(b"alertdialog"))
}

/// True when a `role` value names a tab panel (WAI-ARIA's `tabpanel`).
fn tab_panel(value: &[u8]) -> bool {
    value
        .split(|b| !b.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(b"tabpanel"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::scan::for_each_tag;

    #[test]
    fn responsive_classes_name_a_width_and_what_is_shown_there() {
        for name in [
            "hidden-xs",
            "visible-md-block",
            "d-md-none",
            "D-LG-BLOCK",
            "md:hidden",
            "lg:block",
            "max-sm:hidden",
            "show-for-small-only",
            "hide-for-large",
            "is-hidden-mobile",
            "small-hide",
            "large-up-hide",
            "hidden-down-md",
            "mobile-only",
            "hide-on-desktop",
            "desktop",
            "Mobile",
            "filter-tabs-container__desktop",
            "mobile-menu",
            "ssr-variant",
        ] {
            assert!(responsive_class(name.as_bytes()), "{name}");
            assert_eq!(class_role(name.as_bytes()), ROLE_RESPONSIVE, "{name}");
        }
        for name in [
            "col-md-6",
            "flex-md-row",
            "btn-lg",
            "show-for-sr",
            "hidden",
            "d-none",
            "md:flex-row",
            "automobile",
            "phones",
            "ssr",
            "nav-mobile-toggle",
            "text-md-left",
            "hover:block",
        ] {
            assert!(!responsive_class(name.as_bytes()), "{name}");
        }
    }

    fn tags(run: &str) -> Vec<(bool, String, bool)> {
        let mut out = Vec::new();
        for_each_tag(run.as_bytes(), |t| {
            out.push((
                t.end,
                String::from_utf8_lossy(t.name).into_owned(),
                t.self_closing,
            ))
        });
        out
    }

    #[test]
    fn attributes_quoted_unquoted_and_odd() {
        let got: Vec<(String, String)> =
            attributes(b" name=\"a b\" content='x\"y' data-x=z flag  k = v/>")
                .map(|(n, v)| {
                    (
                        String::from_utf8_lossy(n).into_owned(),
                        String::from_utf8_lossy(v).into_owned(),
                    )
                })
                .collect();
        assert_eq!(
            got,
            [
                ("name".into(), "a b".into()),
                ("content".into(), "x\"y".into()),
                ("data-x".into(), "z".into()),
                ("k".into(), "v/".into()),
            ]
        );
        assert_eq!(attributes(b" content=\"unterminated").count(), 1);
    }

    #[test]
    fn attribute_values_as_the_lexer_reads_them() {
        let tag = b" class=\"a href b\" data-href=x HREF = 'one two' href=second>";
        assert_eq!(attribute_value(tag, b"href"), Some(&b"one two"[..]));
        assert_eq!(attribute_value(b" href>", b"href"), None);
        assert_eq!(attribute_value(b" href/>", b"href"), None);
        assert_eq!(
            attribute_value(b" x=1 href=/a/b?c=d&amp;e>", b"href"),
            Some(&b"/a/b?c=d&amp;e"[..])
        );
        assert_eq!(attribute_value(b" href=\"unterminated>", b"href"), None);
        assert_eq!(attribute_value(b"", b"href"), None);
    }

    #[test]
    fn code_languages_from_class() {
        assert_eq!(
            code_language(b" class=\"language-Rust ignore\">").as_deref(),
            Some("rust")
        );
        assert_eq!(
            code_language(b" id=x class='hljs lang-c++'>").as_deref(),
            Some("c++")
        );
        assert_eq!(code_language(b" class=\"language-\">"), None);
        assert_eq!(code_language(b" class=\"language-a`b\">"), None);
        assert_eq!(code_language(b" data-lang=rust>"), None);
    }

    #[test]
    fn hidden_elements_by_attribute_style_and_class() {
        let hidden = |run: &str| {
            let mut out = Vec::new();
            for_each_tag(run.as_bytes(), |t| out.push(t.hidden));
            out
        };
        assert_eq!(
            hidden(
                r#"<div hidden><p style="color: red; DISPLAY : none !important"><span
                style='visibility:hidden'><div class="post d-none"><div hidden=until-found>"#
            ),
            [true, true, true, true, false]
        );
        assert_eq!(
            hidden(r#"<div class="hidden-xs sr-only-focusable"><div class=HIDDEN></div>"#),
            [false, true, false]
        );
        assert_eq!(
            hidden(r#"<div style="display: block" data-hidden="1" class="unhidden">"#),
            [false]
        );
        // A dialog opens over the page: WAI-ARIA's roles, a modal, a `<dialog>` not open; one
        // that says it is not modal is part of the page's flow.
        assert_eq!(
            hidden(
                r#"<div role="dialog"><div ROLE=alertdialog aria-modal="false"><div
                aria-modal=true><dialog class=x><dialog open><section role='Dialog' tabindex=-1>
                <div aria-modal="false"><dialog aria-modal=false>"#
            ),
            [true, false, true, true, false, true, false, true]
        );
        // A tab panel waits for its tab, in whatever order its attributes come; a menu hidden
        // the same way stays hidden.
        assert_eq!(
            hidden(
                r#"<div hidden role="tabpanel"><div ROLE=TabPanel style="display:none"><div
                role=menu hidden><div class=hidden role='tabpanel'/>"#
            ),
            [false, false, true, false]
        );
    }

    #[test]
    fn names_start_and_end_tags() {
        assert_eq!(
            tags("</p><DIV class=\"a>b\" id='x>' data-x=y>"),
            vec![(true, "p".into(), false), (false, "DIV".into(), false)]
        );
    }

    #[test]
    fn skips_comments_doctype_and_bogus() {
        assert_eq!(
            tags("<!DOCTYPE html><!-- <p> --><!--><!---><?xml x?></ 3><br/></>"),
            vec![(false, "br".into(), true)]
        );
        assert_eq!(tags("<!-- a --!><i>"), vec![(false, "i".into(), false)]);
    }

    #[test]
    fn unterminated_tag_is_ignored() {
        assert_eq!(tags("<p><div class=\"x"), vec![(false, "p".into(), false)]);
        assert_eq!(tags("<p><div"), vec![(false, "p".into(), false)]);
    }

    #[test]
    fn odd_attributes() {
        assert_eq!(
            tags("<a =x \"b\"=c d = 'e' f/ g=>h>"),
            vec![(false, "a".into(), false)]
        );
        assert_eq!(tags("<a/ b/>"), vec![(false, "a".into(), true)]);
    }

    #[test]
    fn links_are_anchors_with_href() {
        let hrefs = |run: &str| {
            let mut out = Vec::new();
            for_each_tag(run.as_bytes(), |t| out.push(t.href));
            out
        };
        assert_eq!(
            hrefs("<a HREF=x><a name=y></a><abbr href=z><a class=b href>"),
            vec![true, false, false, false, true]
        );
    }

    #[test]
    fn hints_come_from_class_id_role_and_itemprop() {
        let hints = |run: &str| {
            let mut out = Vec::new();
            for_each_tag(run.as_bytes(), |t| out.push(t.hint.max(t.id_hint)));
            out
        };
        use Hint::*;
        assert_eq!(
            hints(
                "<div class=\"post comment-list\"><div id=SideBar><ul role='navigation'>\
                 <div itemprop=articleBody><div role=main class=x><div class=\"header ad-slot\">"
            ),
            vec![
                Boilerplate,
                Boilerplate,
                Boilerplate,
                Content,
                Content,
                Boilerplate
            ]
        );
        // Words, not substrings: "shadow", "header" and "loading" hold no hint word.
        assert_eq!(
            hints("<div class=\"shadow header loading\"><p data-class=comment><div class>"),
            vec![None, None, None]
        );
        // camelCase names split into words; itemprop values are read whole.
        assert_eq!(
            hints("<div class=cnnBlogComments><div id=commentsContainer><div itemprop=articleBody><p class=HtmlSidebar>"),
            vec![Boilerplate, Boilerplate, Content, Boilerplate]
        );
        // A name that also names the text is a wrapper of the text and what is around it.
        assert_eq!(
            hints("<div id=content-sidebar-wrap><div class='comment_content'>"),
            vec![None, None]
        );
        // A name that says what a wrapper holds or lacks, when it is shown or what the page is
        // filed under says nothing of what the element is; the element's other names still do.
        assert_eq!(
            hints(
                "<div class='page-width with-sidebar'><div class=has-sidebar><div id=no_comments><article class='post tag-social-media category-sponsored'><div class=hidden-print><div class='hide-river-ad sidebar'><div class=sidebar-with-ads>"
            ),
            vec![None, None, None, None, None, Boilerplate, Boilerplate]
        );
        // An author's box, a byline: `author` or `bio` in a class or an id. Not in the class
        // list of a post filed under its terms (WordPress, Typepad, Thesis, hAtom), where it is
        // the post's author and the element the post itself; nor in a name that holds the text.
        assert_eq!(
            hints(
                "<div class='author-bio'><span class=post-author><div id=author><div class=AuthorBox__wrap>\
                 <div class='author-card__content'><div class='author-jane-doe'><div class=small_bio>"
            ),
            vec![Boilerplate, Boilerplate, Boilerplate, Boilerplate, None, Boilerplate, Boilerplate]
        );
        // A notice about the text: a disclaimer, an affiliate disclosure.
        assert_eq!(
            hints("<div class='cmp-richtext--disclaimer'><p id=affiliate-disclosure><div class=disclosed>"),
            vec![Boilerplate, Boilerplate, None]
        );
        assert_eq!(
            hints(
                "<article class='post-7 post type-post status-publish hentry author-jane-doe'>\
                 <div class='entry-author-john_turri entry-type-post entry'>\
                 <div class='single s-category-news s-author-kgs'><div class='hentry post author-rich'>\
                 <div class='post author-rich category-comics'><div class='author-rich entry'>"
            ),
            vec![None, None, None, None, None, Boilerplate]
        );
        // A gallery of pictures holds their captions: its class names it, an id does not (an
        // index anchor named after a function `gallery`); a carousel's slides are any content.
        assert_eq!(
            hints(
                "<div class=cnnGalleryContainer><ul class='carousel-inner'><dt id=index-gallery>"
            ),
            vec![Boilerplate, None, None]
        );
        // Boilerplate wins over content on one element; end tags carry none.
        assert_eq!(
            hints("<section role=main class=sidebar></section>"),
            vec![Boilerplate, None]
        );
    }
}
