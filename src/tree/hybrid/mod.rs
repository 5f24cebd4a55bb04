//! The `hybrid` classifier: what the tree knows about a site's template combined with what the
//! page itself shows (DESIGN §2.8). Pure decisions, free of I/O.
//!
//! The order of authority: where a node has seen many pages, the tree's counts decide template
//! versus content; the page's own structure judges what the tree cannot (unique blocks, a
//! domain's first pages). One file per kind of evidence, each with its published basis:
//! - [`repetition`]: a block counted more than `c_max` times at the deciding node, on more than a
//!   tenth of its pages, is template text (Sluban & Grčar 2013; Bar-Yossef & Rajagopalan 2002);
//! - [`template`]: a short block in an element path that recurs on nearly every page of a trusted
//!   node is a template slot (Alarte et al., ETDM);
//! - [`links`]: a block mostly made of link text is navigation, unless the page is an index whose
//!   links are its content, or, at a trusted node, a lone link between kept text or text that
//!   mixes its own words with links inside the main text (Kohlschütter et al. 2010; Gottron
//!   2008);
//! - [`markup`]: regions the markup marks as navigation, sidebars or comments (readability's and
//!   trafilatura's cues, ARIA landmark roles); such a "region" that encloses the main text is a
//!   layout wrapper, and the regions marked inside it are judged there; on a page that declares
//!   itself a product, the regions named as reviews are its customers' comments;
//! - [`hidden`]: elements the page does not render (`hidden`, `display: none`, the style sheets'
//!   hiding classes) hold no text a reader sees (readability's visibility test);
//! - [`main_text`]: the DOM subtree holding the main text (Viveros-Jiménez et al. 2018), narrowed
//!   to the child that holds all of its text; at a trusted node the unique blocks between the
//!   page's one `<h1>` and the main subtree are its lead-in; the element the markup marks as the
//!   main text (`<article>`), when it holds most of the marked text, bounds it (HTML's sectioning
//!   semantics: an article is a self-contained composition; readability's and trafilatura's
//!   preference for it);
//! - [`within_text`]: repeated blocks inside the main text between kept blocks belong to it,
//!   and so do the linked names between them on a page that documents something;
//! - [`title`]: the `<h1>` nearest before the main text is its title;
//! - [`stubs`]: a page the tree would leave empty is judged by its structure alone;
//! - [`units`]: the page's repeated units (posts, items, sections) judged as units: a main text
//!   that is one of a run of alike units is all of them, and a listing's items are its content
//!   (data-record mining, Liu et al. 2003); a run of units each showing a heading and hiding
//!   its text (collapsed sections) whose shown text is kept has its hidden text shown;
//! - [`sections`]: a main text that is one of a run of sections, each opened by a heading of
//!   one rank, is all of them (HTML's sectioning: a heading opens a section); on a page that
//!   declares a product, so is one in a run of `<section>`s (the offer above its description);
//! - [`headings`]: a heading that is a link (a listing's headline, a section's link to itself)
//!   heads the text after it, and is kept where that text is;
//! - [`quotes`]: a quotation copying text the page keeps above it (a reply quoting the post it
//!   answers) is that text again, not new text;
//! - [`variants`]: a part a responsive page lays out twice, for small and large screens, is
//!   shown to a reader once;
//! - [`controls`]: a button's label names what a click does, not what the page says;
//! - [`noscript`]: a `<noscript>` of a sentence or two is a notice to a client without scripts
//!   ("enable JavaScript"), which no reader's browser shows;
//! - [`opening`]: a thread's opening post set apart from the run of its replies (a question
//!   above its answers) is the text the replies answer.
//!
//! On a domain's first page the tree knows nothing and the page's structure decides; as the
//! node's support grows, repetition and then template paths remove what the page alone cannot
//! tell from content. Every rule but repetition can be switched off ([`Rules`], config
//! `[tree.rules]`) to measure what it does. Each verdict carries the [`Reason`] that decided it.

pub mod controls;
pub mod headings;
pub mod hidden;
pub mod links;
pub mod main_text;
pub mod markup;
pub mod noscript;
pub mod opening;
pub mod prefs;
pub mod quotes;
pub mod repetition;
pub mod sections;
pub mod stubs;
pub mod template;
pub mod title;
pub mod units;
pub mod variants;
pub mod within_text;

#[cfg(test)]
pub(crate) mod fixtures;

use super::classify::{BlockFacts, Classifier, NodeFacts, Page, Reason};
use super::heuristic::Heuristic;
use super::kind::{self, Kind, Layout, Region};
use main_text::Main;
pub use prefs::{Comments, Focus, Prefs};

/// Support at which the tree's counts are trusted as much as the page's own evidence: the
/// confidence of a node that has seen `n` pages is `(n - 1) / (n - 1 + SUPPORT_HALF)`, one half
/// at five pages, the paper's `n_min` for a node whose counts mean something.
pub const SUPPORT_HALF: f64 = 4.0;

/// The hybrid rules that can be switched off, each named as in the config's `[tree.rules]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// [`template`]: short blocks in recurring element paths are template slots.
    pub template: bool,
    /// [`links`]: link-dense blocks are navigation.
    pub links: bool,
    /// [`links`]: the links of an index or list page are its content.
    pub index_pages: bool,
    /// [`links`]: at a trusted node, a lone link between kept text is part of it.
    pub lone_links: bool,
    /// [`links`]: at a trusted node, a block mixing its own words with links is judged by its
    /// place inside the main text, not by its link density.
    pub linked_text: bool,
    /// [`markup`]: regions marked as navigation, sidebars, comments are dropped.
    pub markup: bool,
    /// [`hidden`]: text in elements the page does not render is dropped.
    pub hidden: bool,
    /// [`noscript`]: a `<noscript>` of less than two sentences is a notice to a client without
    /// scripts ("enable JavaScript"), which no reader's browser shows: its blocks are dropped.
    pub noscript_notices: bool,
    /// [`main_text`]: blocks outside the main subtree are dropped.
    pub main_subtree: bool,
    /// [`main_text`]: the element the markup marks as the main text (`<article>`, `<main>`),
    /// when it holds most of the marked text, bounds it: what lies beside it in the main
    /// subtree is dropped, but for its title and its peers; articles nested in an article with
    /// text of its own are its related content, not its text.
    pub marked_main: bool,
    /// [`main_text`]: an article nested in the marked main text under a heading of its own words
    /// and holding more than a teaser's text is a section of it (a listicle's item), not related
    /// content.
    pub article_sections: bool,
    /// [`main_text`]: where two outer articles or more are posts, each around one message body
    /// with a frame of short labels, what a post holds beside its body (its author's panel, a
    /// signature) is dropped.
    pub post_frames: bool,
    /// [`main_text`]: when the main subtree is one section of the page's `<main>`, the other
    /// sections of it whose own text outweighs their dropped text are kept.
    pub main_sections: bool,
    /// [`main_text`]: on a page the tree does not yet know, the main subtree narrows to the child
    /// holding all its text.
    pub narrow: bool,
    /// [`main_text`]: at a trusted node, the unique blocks between the page's `<h1>` and the main
    /// subtree are kept.
    pub lead_in: bool,
    /// [`within_text`]: repeated blocks between kept text inside the main text are kept.
    pub within_text: bool,
    /// [`within_text`]: at a trusted node, on a page that documents something (its main text
    /// holds a program listing, or its URL files it as documentation), the linked names between
    /// kept text inside it (a parameter's type, a return type) are kept with the runs of
    /// repeated labels around them.
    pub linked_names: bool,
    /// [`title`]: the `<h1>` before the main text is kept.
    pub title: bool,
    /// [`stubs`]: a page the tree would leave empty is judged by its structure.
    pub stubs: bool,
    /// [`units`]: a main text lying in one of a run of alike units is all of them.
    pub units: bool,
    /// [`units`]: on a page without a text of its own, a run of units each marked by a class
    /// word (every post "a comment") holds its text.
    pub marked_units: bool,
    /// [`units`]: on a page that declares itself a thread (`QAPage`, `DiscussionForumPosting`),
    /// such a run holds its replies beside the first post's text of its own.
    pub thread_replies: bool,
    /// [`units`]: the items of a listing (a page without a text of its own, or whose text
    /// introduces the listing) are its content.
    pub listings: bool,
    /// [`units`]: in a run of alike units each showing a heading and hiding its text
    /// (collapsed sections) whose shown text is kept, the hidden text is shown and the page
    /// judged again.
    pub panels: bool,
    /// [`markup`]: on a page that declares itself a product, the regions its `class` or `id`
    /// names reviews are its customers' reviews, marked as around the text like comments.
    pub reviews: bool,
    /// [`units`]: a grid of cards, each one headline link, introduced by the page's own text
    /// is a listing's records.
    pub grids: bool,
    /// [`units`]: at a trusted node, on a page that keeps no paragraph of its own or whose
    /// records open it (right under its title), a listing's records that the page alone holds
    /// (their headlines new to the node) are its content, the labels they repeat included.
    pub trusted_listings: bool,
    /// [`units`]: a run of cards, each opened by a link's text and mostly link text (one link
    /// around the card, a badge beside it), reads its headlines as the cards' whole text;
    /// not on a page that declares itself one product, whose cards are recommendations.
    pub cards: bool,
    /// [`quotes`]: a `<blockquote>` copying text the page keeps above it (a reply quoting the
    /// post it answers) is dropped.
    pub quoted_copies: bool,
    /// [`controls`]: a `<button>`'s label ("Add to cart", "Select a size") is dropped, but for a
    /// heading's button and a button wrapping headings, paragraphs or list items.
    pub control_labels: bool,
    /// [`controls`]: the text inside the page's `<form>`s (a search box, a sign-up, a
    /// product's options and quantity) is dropped when the forms hold less than a third of
    /// what the page keeps.
    pub forms: bool,
    /// [`headings`]: a link-dense heading is kept with the kept text it heads.
    pub linked_headings: bool,
    /// [`opening`]: on a thread, the text between the page's title and its first kept block
    /// that only its place outside the main subtree dropped is the opening post, when it holds
    /// a paragraph.
    pub opening_post: bool,
    /// [`variants`]: an element shown at some screen widths only whose kept text the page
    /// keeps all earlier (a part laid out for small and for large screens) is dropped.
    pub layout_copies: bool,
    /// [`sections`]: when the main subtree is one of a run of sections each opened by a heading
    /// of one tag, the other sections whose own text outweighs their dropped text are kept.
    pub headed_sections: bool,
    /// [`sections`]: on a page that declares itself a product, when the main subtree lies in
    /// one of a run of `<section>`s, the other sections whose own text outweighs their dropped
    /// text are kept.
    pub product_sections: bool,
    /// [`markup`]: the page's own `<footer>` (one outside any article, section, aside, nav or
    /// `<main>`: HTML's `contentinfo`) holds no main text, even when the page holds nothing else.
    pub page_footer: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            template: true,
            links: true,
            index_pages: true,
            lone_links: true,
            linked_text: true,
            markup: true,
            hidden: true,
            noscript_notices: true,
            main_subtree: true,
            marked_main: true,
            article_sections: true,
            post_frames: true,
            main_sections: true,
            narrow: true,
            lead_in: true,
            within_text: true,
            linked_names: true,
            title: true,
            stubs: true,
            units: true,
            marked_units: true,
            thread_replies: true,
            listings: true,
            panels: true,
            reviews: true,
            grids: true,
            trusted_listings: true,
            cards: true,
            quoted_copies: true,
            control_labels: true,
            forms: true,
            linked_headings: true,
            opening_post: true,
            layout_copies: true,
            headed_sections: true,
            product_sections: true,
            page_footer: true,
        }
    }
}

impl Rules {
    /// The rules by their config names, for ablation runs and tables.
    pub const NAMES: [&'static str; 37] = [
        "template",
        "links",
        "index_pages",
        "lone_links",
        "linked_text",
        "markup",
        "hidden",
        "noscript_notices",
        "main_subtree",
        "marked_main",
        "article_sections",
        "post_frames",
        "main_sections",
        "narrow",
        "lead_in",
        "within_text",
        "linked_names",
        "title",
        "stubs",
        "units",
        "marked_units",
        "thread_replies",
        "listings",
        "panels",
        "reviews",
        "grids",
        "trusted_listings",
        "cards",
        "quoted_copies",
        "control_labels",
        "forms",
        "linked_headings",
        "opening_post",
        "layout_copies",
        "headed_sections",
        "product_sections",
        "page_footer",
    ];

    /// These rules with the one named `name` switched off; `None` for an unknown name.
    pub fn without(mut self, name: &str) -> Option<Rules> {
        let flag = match name {
            "template" => &mut self.template,
            "links" => &mut self.links,
            "index_pages" => &mut self.index_pages,
            "lone_links" => &mut self.lone_links,
            "linked_text" => &mut self.linked_text,
            "markup" => &mut self.markup,
            "hidden" => &mut self.hidden,
            "noscript_notices" => &mut self.noscript_notices,
            "main_subtree" => &mut self.main_subtree,
            "marked_main" => &mut self.marked_main,
            "article_sections" => &mut self.article_sections,
            "post_frames" => &mut self.post_frames,
            "main_sections" => &mut self.main_sections,
            "narrow" => &mut self.narrow,
            "lead_in" => &mut self.lead_in,
            "within_text" => &mut self.within_text,
            "linked_names" => &mut self.linked_names,
            "title" => &mut self.title,
            "stubs" => &mut self.stubs,
            "units" => &mut self.units,
            "marked_units" => &mut self.marked_units,
            "thread_replies" => &mut self.thread_replies,
            "listings" => &mut self.listings,
            "panels" => &mut self.panels,
            "reviews" => &mut self.reviews,
            "grids" => &mut self.grids,
            "trusted_listings" => &mut self.trusted_listings,
            "cards" => &mut self.cards,
            "quoted_copies" => &mut self.quoted_copies,
            "control_labels" => &mut self.control_labels,
            "forms" => &mut self.forms,
            "linked_headings" => &mut self.linked_headings,
            "opening_post" => &mut self.opening_post,
            "layout_copies" => &mut self.layout_copies,
            "headed_sections" => &mut self.headed_sections,
            "product_sections" => &mut self.product_sections,
            "page_footer" => &mut self.page_footer,
            _ => return None,
        };
        *flag = false;
        Some(self)
    }
}

/// The classifier's few parameters; [`Params::default`] holds the constants of each evidence
/// file, each with its reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// See [`SUPPORT_HALF`].
    pub support_half: f64,
    /// See [`repetition::TEMPLATE_SHARE`].
    pub template_share: f64,
    /// See [`links::LINK_DENSE`].
    pub link_dense: f64,
    /// See [`links::LINK_ONLY`].
    pub link_only: f64,
    /// See [`main_text::GROUP_LEVEL`].
    pub group_level: usize,
    /// See [`template::TEMPLATE_PATH_SHARE`].
    pub template_path_share: f64,
    /// See [`template::TEMPLATE_SLOT_CHARS`].
    pub template_slot_chars: u32,
    /// See [`stubs::MIN_PAGE_CHARS`].
    pub min_page_chars: u32,
    /// See [`links::INDEX_LINK_SHARE`].
    pub index_link_share: f64,
    /// See [`main_text::BLOCK_COST`].
    pub block_cost: u32,
    /// The rules in force.
    pub rules: Rules,
    /// What becomes of the page's comments, and the lean to precision or recall ([`prefs`]).
    pub prefs: Prefs,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            support_half: SUPPORT_HALF,
            template_share: repetition::TEMPLATE_SHARE,
            link_dense: links::LINK_DENSE,
            link_only: links::LINK_ONLY,
            group_level: main_text::GROUP_LEVEL,
            template_path_share: template::TEMPLATE_PATH_SHARE,
            template_slot_chars: template::TEMPLATE_SLOT_CHARS,
            min_page_chars: stubs::MIN_PAGE_CHARS,
            index_link_share: links::INDEX_LINK_SHARE,
            block_cost: main_text::BLOCK_COST,
            rules: Rules::default(),
            prefs: Prefs::default(),
        }
    }
}

/// The `hybrid` classifier with its parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hybrid {
    /// The classifier's parameters.
    pub params: Params,
}

impl Hybrid {
    /// The classifier with the default parameters and the given rules.
    pub fn with_rules(rules: Rules) -> Hybrid {
        Hybrid::new(rules, Prefs::default())
    }

    /// The classifier with the default parameters, the given rules and preferences.
    pub fn new(rules: Rules, prefs: Prefs) -> Hybrid {
        Hybrid {
            params: Params {
                rules,
                prefs,
                ..Params::default()
            },
        }
    }
}

impl Classifier for Hybrid {
    fn heuristic(&self) -> Heuristic {
        Heuristic::Hybrid
    }

    fn wants_path_count(&self, chars: u32, support: u64) -> bool {
        template::uses_path_count(chars, support, &self.params)
    }

    fn classify(&self, blocks: &[BlockFacts<'_>], node: NodeFacts, out: &mut Vec<Reason>) {
        classify(blocks, node, &self.params, Claims::default(), out);
    }

    fn classify_page(
        &self,
        page: &Page<'_>,
        blocks: &[BlockFacts<'_>],
        node: NodeFacts,
        out: &mut Vec<Reason>,
    ) -> Layout {
        let reviews = if self.params.rules.reviews && page.declared == Some(Kind::Product) {
            markup::mark_reviews(blocks)
        } else {
            None
        };
        classify(
            reviews.as_deref().unwrap_or(blocks),
            node,
            &self.params,
            Claims {
                declared: page.declared,
                documentation: page.documentation_url,
                thread: page.thread,
            },
            out,
        )
    }
}

/// What a page says of itself beside its blocks ([`Page`]): the kind it declares its main
/// entity to be, and whether its URL files it as documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Claims {
    /// The kind of its main entity: one product, a thread, ...; `None` when it declares none.
    pub declared: Option<Kind>,
    /// Its URL files it as documentation ([`Page::documentation_url`]).
    pub documentation: bool,
    /// It declares a thread, in any of its types or microdata items ([`Page::thread`]).
    pub thread: bool,
}

/// How much the tree's counts are trusted at a node of `support` pages: 0 on a domain's first
/// page, one half at `support_half + 1` pages, approaching 1.
pub fn confidence(support: u64, support_half: f64) -> f64 {
    let others = support.saturating_sub(1) as f64;
    if others == 0.0 {
        0.0
    } else {
        others / (others + support_half)
    }
}

/// Classifies the blocks of one page, which says of itself what `claims` holds (the kind of its
/// main entity, one product, a thread, ..., if it declares one); `out` receives one reason per
/// block, in order. Returns how the main content it kept is laid out.
pub fn classify(
    blocks: &[BlockFacts<'_>],
    node: NodeFacts,
    params: &Params,
    claims: Claims,
    out: &mut Vec<Reason>,
) -> Layout {
    let declared = claims.declared;
    let product = declared == Some(Kind::Product);
    // The units rules run only where the tree does not trust its node yet (a page judged by
    // its structure alone is such a page): elsewhere the regions are not looked for.
    let units = params.rules.units
        || params.rules.marked_units
        || params.rules.listings
        || params.rules.panels;
    let trusted = confidence(node.support, params.support_half) >= 0.5;
    let mut regions = if units && !trusted {
        kind::regions(blocks)
    } else {
        Vec::new()
    };
    let mut layout = classify_with(blocks, Some(node), params, claims, &regions, out);
    if params.rules.panels && !trusted {
        if let Some(shown) = units::show_panels(blocks, out, &regions) {
            layout = classify_with(&shown, Some(node), params, claims, &regions, out);
        }
    }
    if trusted
        && params.rules.listings
        && params.rules.trusted_listings
        && units::may_list_new_records(blocks, out)
    {
        // Regions are looked for at a trusted node only on a page that may be a listing.
        regions = kind::regions(blocks);
        let how = units::Listings {
            trusted,
            grids: params.rules.grids,
            cards: params.rules.cards,
            product,
        };
        if let Some(listing) = units::keep_listing(blocks, out, &regions, how) {
            layout = listing;
        }
    }
    let mut judged_trusted = trusted;
    if params.rules.stubs && stubs::is_stub(blocks, node, params, out) {
        if units && trusted {
            regions = kind::regions(blocks);
        }
        layout = classify_with(blocks, None, params, claims, &regions, out);
        judged_trusted = false;
    }
    if params.rules.linked_headings {
        headings::keep_linked_headings(blocks, out);
    }
    if params.rules.quoted_copies {
        quotes::drop_quoted_copies(blocks, out);
    }
    if params.rules.layout_copies {
        variants::drop_layout_copies(blocks, out);
    }
    if params.rules.control_labels {
        controls::drop_labels(blocks, out);
    }
    if params.rules.forms {
        controls::drop_forms(blocks, out);
    }
    if params.rules.noscript_notices {
        noscript::drop_notices(blocks, out);
    }
    if params.prefs != Prefs::default() {
        prefs::apply(blocks, out, judged_trusted, params);
    }
    layout
}

/// Classifies with the tree's evidence from `node`, or from the page alone when `None`: each
/// block's own verdict first, then the page-wide rules in order, the repeated units last.
fn classify_with(
    blocks: &[BlockFacts<'_>],
    node: Option<NodeFacts>,
    params: &Params,
    claims: Claims,
    regions: &[Region],
    out: &mut Vec<Reason>,
) -> Layout {
    let declared = claims.declared;
    let product = declared == Some(Kind::Product);
    out.clear();
    let unwrapped = if params.rules.markup {
        markup::unwrap_layout(blocks)
    } else {
        None
    };
    let blocks = unwrapped.as_deref().unwrap_or(blocks);
    let node = node.unwrap_or(NodeFacts {
        support: 1,
        c_max: u64::MAX,
        path_support: 1,
    });
    let trusted = confidence(node.support, params.support_half) >= 0.5;
    out.extend(
        blocks
            .iter()
            .map(|block| block_verdict(block, node, trusted, params)),
    );
    if params.rules.hidden {
        hidden::drop_hidden(blocks, out);
    }
    if params.rules.markup {
        markup::drop_marked(blocks, out);
    }
    if params.rules.page_footer {
        markup::drop_page_footer(blocks, out);
    }
    let index_page =
        params.rules.index_pages && links::keep_index_links(blocks, out, trusted, params);
    // Linked text is judged by its place in the main text, except on an index or list page,
    // whose links are its content.
    let linked_text = params.rules.links && params.rules.linked_text && trusted && !index_page;
    if !params.rules.main_subtree {
        if linked_text {
            links::drop_linked_text_at_edges(blocks, out, Main::Page, params);
        }
        finish(
            blocks,
            out,
            Main::Page,
            params,
            (trusted, claims.documentation),
        );
        return Layout::Text;
    }
    let doubt = 1.0 - confidence(node.support, params.support_half);
    // What a block of the main text costs, as the main subtree charges it (the sections taken
    // back beside it are charged alike).
    let cost = (f64::from(params.block_cost) * doubt).round() as i64;
    let Some(main) = main_text::main_subtree(blocks, out, params, index_page, doubt) else {
        return Layout::Text;
    };
    let list_page = params.rules.index_pages && links::is_list_page(blocks, out, main, params);
    let marked = if params.rules.marked_main {
        main_text::marked_main(blocks, out, main, index_page)
    } else {
        None
    };
    main_text::keep_inside(blocks, out, main, Reason::Template);
    main_text::drop_outside(blocks, out, main);
    if let Some(marked) = marked {
        main_text::bound_by_marked(blocks, out, main, marked);
        if params.rules.main_sections {
            main_text::keep_sections_of_main(blocks, out, main, marked, index_page, cost);
        }
    }
    if params.rules.marked_main {
        let (sections, frames) = (params.rules.article_sections, params.rules.post_frames);
        main_text::drop_nested_articles(blocks, out, index_page, sections, frames);
    }
    if params.rules.lead_in && trusted {
        main_text::keep_lead_in(blocks, out, main);
    }
    if list_page {
        links::release_links(blocks, out, main, params.rules.markup);
    }
    if linked_text && !list_page {
        links::drop_linked_text_at_edges(blocks, out, main, params);
    }
    if params.rules.lone_links && trusted {
        links::keep_lone_links(blocks, out, main);
    }
    finish(blocks, out, main, params, (trusted, claims.documentation));
    // The units judge what the tree cannot yet: at a trusted node the counts have removed the
    // repeated panels, labels and menus, and the main subtree spans the units on its own.
    let threads = if params.rules.marked_units && !trusted {
        let thread = params.rules.thread_replies && declared == Some(Kind::Forum);
        units::keep_marked_units(blocks, out, regions, thread)
    } else {
        None
    };
    let widened = if params.rules.units && !trusted {
        units::widen_to_units(blocks, out, regions)
    } else {
        None
    };
    let listing = if params.rules.listings && !trusted {
        let how = units::Listings {
            trusted,
            grids: params.rules.grids,
            cards: params.rules.cards,
            product,
        };
        units::keep_listing(blocks, out, regions, how)
    } else {
        None
    };
    let layout = listing.or(threads).or(widened);
    if params.rules.opening_post && (claims.thread || matches!(layout, Some(Layout::Posts { .. })))
    {
        opening::keep_opening_post(blocks, out);
    }
    if layout.is_none() {
        let runs = (
            params.rules.product_sections && product,
            params.rules.headed_sections,
        );
        sections::keep_sections(blocks, out, main, runs, index_page, cost);
    }
    layout.unwrap_or(Layout::Text)
}

/// The rules that follow the main subtree: repeated runs inside the text, then its title.
fn finish(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    main: Main,
    params: &Params,
    (trusted, documentation): (bool, bool),
) {
    if params.rules.within_text {
        let names = |out: &[Reason]| {
            params.rules.linked_names
                && within_text::names_linked(blocks, out, main, trusted, documentation)
        };
        within_text::keep_runs(blocks, out, main, names);
    }
    if params.rules.title {
        title::keep_title(blocks, out);
    }
}

/// A block's verdict from its own facts: no letters, repeated at the node, link-dense (at a
/// `trusted` node, nearly all links), a template slot, or unique.
fn block_verdict(
    block: &BlockFacts<'_>,
    node: NodeFacts,
    trusted: bool,
    params: &Params,
) -> Reason {
    match block.count {
        None => Reason::NoLetters,
        Some(count) if repetition::is_repeated(count, node, params) => Reason::Repeated,
        Some(_) if params.rules.links && links::is_navigation(block, trusted, params) => {
            Reason::LinkDense
        }
        Some(_) if params.rules.template && template::is_slot(block, node, params) => {
            Reason::Template
        }
        Some(_) => Reason::Unique,
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{block, run, run_with, ARTICLE, NAV};
    use super::*;
    use crate::tree::Label;

    #[test]
    fn first_page_keeps_the_main_subtree_and_drops_links_and_the_aside() {
        let aside = [0, 1, 11, 12];
        let blocks = [
            block(&NAV[0], 50, 50, 1, 1),
            block(&NAV[1], 60, 60, 1, 1),
            block(&NAV[2], 40, 40, 1, 1),
            block(&ARTICLE[0], 300, 0, 1, 1),
            block(&ARTICLE[1], 250, 20, 1, 1),
            block(&ARTICLE[2], 30, 0, 1, 1),
            block(&aside, 120, 0, 1, 1),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 1),
            vec![
                LinkDense,
                LinkDense,
                LinkDense,
                Unique,
                Unique,
                Unique,
                OutsideMainSubtree
            ]
        );
        // Each page rule can be switched off: without the main subtree the aside stays, without
        // the link rule the navigation does (as long as it is in the main subtree).
        let no_main = Rules::default().without("main_subtree").unwrap();
        assert_eq!(run_with(&blocks, 1, no_main)[6], Unique);
        let no_links = Rules::default().without("links").unwrap();
        assert!(!run_with(&blocks, 1, no_links)[..3].contains(&LinkDense));
    }

    #[test]
    fn blocks_without_letters_are_never_content() {
        let blocks = [
            crate::tree::BlockFacts {
                count: None,
                ..block(&ARTICLE[0], 10, 0, 1, 1)
            },
            block(&ARTICLE[1], 200, 0, 1, 1),
        ];
        assert_eq!(run(&blocks, 1), vec![Reason::NoLetters, Reason::Unique]);
        assert_eq!(run(&[], 5), Vec::<Reason>::new());
    }

    #[test]
    fn confidence_grows_with_support() {
        assert_eq!(confidence(0, SUPPORT_HALF), 0.0);
        assert_eq!(confidence(1, SUPPORT_HALF), 0.0);
        assert_eq!(confidence(5, SUPPORT_HALF), 0.5);
        assert!(confidence(100, SUPPORT_HALF) > 0.95);
    }

    #[test]
    fn every_rule_has_a_name_and_unknown_names_are_none() {
        // Every rule is on by default: switching any off changes the rules.
        let all = Rules::default();
        for name in Rules::NAMES {
            let off = all.without(name).unwrap();
            assert_ne!(off, all, "{name}");
        }
        assert_eq!(Rules::default().without("repetition"), None);
    }

    #[test]
    fn reasons_name_their_labels() {
        assert_eq!(Reason::Unique.label(), Label::Content);
        for r in [
            Reason::NoLetters,
            Reason::Repeated,
            Reason::Template,
            Reason::LinkDense,
            Reason::Marked,
            Reason::OutsideMainSubtree,
        ] {
            assert_eq!(r.label(), Label::Boilerplate, "{}", r.as_str());
        }
        assert_eq!(Reason::OutsideMainSubtree.as_str(), "outside-main-subtree");
    }
}
