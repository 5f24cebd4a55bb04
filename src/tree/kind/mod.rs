//! Page kinds and repeated units (DESIGN §2.9): not every page is one dense subtree of prose.
//! Forum threads, listings, collections, product grids and landing pages hold their content as
//! *repeated units* (posts, items, tiles, rows, sections), sibling subtrees of one shape.
//! [`units`] finds them once per page from the blocks' element paths; the classifier judges
//! them as units ([`crate::tree::hybrid::units`]) and says how the main content it kept is laid
//! out ([`Layout`]). [`infer`] names the page's [`Kind`] from that layout, from what the page
//! declares itself to be (its JSON-LD `@type`s, its `og:type`) and from what the kept text holds,
//! with the evidence, for the output's `page_kind`. Pure, free of I/O.

pub mod units;

pub use units::{regions, Region, Unit};

use crate::urlkey::UrlKey;
use serde::{Deserialize, Serialize};

/// The kinds of page told apart in the output's `page_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One text of prose: a news story, a blog post, a how-to.
    Article,
    /// A thread of posts by several people: a forum topic, a Q&A page, a comment thread.
    Forum,
    /// A list of items that each lead elsewhere: a front page, a category, search results, a
    /// product grid, a directory.
    Listing,
    /// One product for sale, with its price, description and specifications.
    Product,
    /// Technical documentation: a manual's page, an API reference, a tutorial with code.
    Documentation,
    /// None of these, or not told: a landing or service page, a home page of sections.
    Other,
}

impl Kind {
    /// The kind's name in output records.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Article => "article",
            Kind::Forum => "forum",
            Kind::Listing => "listing",
            Kind::Product => "product",
            Kind::Documentation => "documentation",
            Kind::Other => "other",
        }
    }
}

/// How a classifier found the page's main content laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Layout {
    /// Not told (the paper's heuristics do not look).
    #[default]
    Unknown,
    /// One subtree of text.
    Text,
    /// A run of alike units holding the main text, each led by its own author's panel or line:
    /// posts.
    Posts {
        /// The units.
        units: u32,
    },
    /// A run of alike units holding the main text, each led by a heading: sections.
    Sections {
        /// The units.
        units: u32,
    },
    /// The items of a listing, kept on a page without a text of its own.
    Listing {
        /// The units.
        units: u32,
    },
}

/// What the kept text of a page holds, counted by the caller from its content blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Kept {
    /// Characters outside links of the kept paragraphs (blocks of at least
    /// [`crate::tree::hybrid::units::PARAGRAPH`] such characters).
    pub prose: u64,
    /// Characters of kept preformatted text (`<pre>`: code listings, terminal sessions).
    pub code: u64,
    /// Characters of all kept text.
    pub all: u64,
}

impl Kept {
    /// Counts a kept block.
    pub fn add(&mut self, block: &crate::blocks::Block) {
        let chars = u64::from(block.chars);
        self.all += chars;
        if block.pre.is_some() {
            self.code += chars;
        }
        let own = u64::from(block.chars.saturating_sub(block.link_chars));
        if own >= u64::from(crate::tree::hybrid::units::PARAGRAPH) {
            self.prose += own;
        }
    }
}

/// Characters of kept prose (outside links, in paragraphs) from which a page of one text is an
/// article: about two hundred words.
pub const ARTICLE_PROSE: u64 = 1000;

/// Path segments under which a site files its documentation (`/docs/`, `/reference/`,
/// `/manual/`, ...), compared whole and ASCII case-insensitively.
pub const DOCUMENTATION_SEGMENTS: [&str; 10] = [
    "docs",
    "doc",
    "documentation",
    "manual",
    "reference",
    "ref",
    "api",
    "handbook",
    "userguide",
    "usersguide",
];

/// True when the URL `key` files its page as documentation: a segment of its path is one of
/// [`DOCUMENTATION_SEGMENTS`], or its host is a `docs.` or `doc.` one. The URL tree's own
/// evidence (a site's documentation is a branch of it), read for the kind of a page whose kept
/// text says no more than that it is prose: a reference's pages are paragraphs as often as
/// code.
pub fn documentation_url(key: &UrlKey) -> bool {
    let named = |s: &str, names: &[&str]| names.iter().any(|n| s.eq_ignore_ascii_case(n));
    // The branch's segments (after the authority, when it leads them) and the leaf's path.
    let leaf = key.leaf.split('?').next().unwrap_or_default();
    let mut path = key
        .segments
        .iter()
        .map(String::as_str)
        .filter(|s| *s != key.host)
        .chain([leaf]);
    key.host
        .split('.')
        .next()
        .is_some_and(|label| named(label, &["docs", "doc"]))
        || path.any(|segment| named(segment, &DOCUMENTATION_SEGMENTS))
}

/// What told a page's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// The page's JSON-LD `@type` or `og:type`.
    Declared,
    /// Its main content is a run of alike units (posts, a listing's items).
    Units,
    /// A tenth of its kept text is preformatted (code).
    Code,
    /// Its kept text is paragraphs of one text.
    Prose,
    /// Its URL files it as documentation ([`documentation_url`]).
    Url,
    /// Nothing told it.
    None,
}

/// A page's kind and what told it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageKind {
    /// The kind.
    pub kind: Kind,
    /// What told it.
    pub evidence: Evidence,
    /// The declared type that named the kind, when one did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub declared: Option<String>,
    /// The units of the run that holds the main content, when one does.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub units: Option<u32>,
}

/// The kind a schema.org type or an `og:type` names, if any: the types of the page's main entity
/// (`Product`, `DiscussionForumPosting`, `ItemList`, `TechArticle`, `NewsArticle`, ...), not of
/// its parts (`BreadcrumbList`, `Organization`, `WebSite`, `Person`, `ImageObject`).
pub fn declared_kind(declared: &str) -> Option<Kind> {
    let t = declared.rsplit(['/', ':']).next().unwrap_or(declared);
    let kind = match t.to_ascii_lowercase().as_str() {
        "product" | "productgroup" | "individualproduct" | "productmodel" | "car" | "vehicle" => {
            Kind::Product
        }
        "discussionforumposting" | "qapage" | "question" | "socialmediaposting" => Kind::Forum,
        "itemlist" | "collectionpage" | "searchresultspage" | "offercatalog" => Kind::Listing,
        "techarticle" | "apireference" => Kind::Documentation,
        "article"
        | "newsarticle"
        | "blogposting"
        | "report"
        | "scholarlyarticle"
        | "liveblogposting"
        | "opinionnewsarticle"
        | "reviewnewsarticle"
        | "analysisnewsarticle"
        | "reportagenewsarticle"
        | "backgroundnewsarticle" => Kind::Article,
        _ => return None,
    };
    Some(kind)
}

/// The kind the first of the page's declared types (in document order) that names one names
/// ([`declared_kind`]): what the page declares its main entity to be, as the classifier reads
/// it. [`infer`] reads the microdata items' types after these for the reported kind; the
/// classifier does not: read so, Stack Exchange's questions (a microdata `QAPage`) keep the
/// comments under their answers as a thread's replies, and Steam's store pages (a microdata
/// `Product`) lose their reviews and sections; wcxb-dev −0.0005 measured. Whether any
/// declared type or microdata item names a thread is read apart ([`declares_thread`]), for a
/// thread's opening post alone.
pub fn declared_main_kind(declared: &[String]) -> Option<Kind> {
    declared.iter().find_map(|t| declared_kind(t))
}

/// True when one of the types a page declares (`declared`, in JSON-LD or `og:type`) or one of
/// its microdata items' types (`items`) names a thread ([`declared_kind`] reads it as a forum):
/// Stack Exchange declares its `QAPage` in microdata alone.
pub fn declares_thread(declared: &[String], items: &[String]) -> bool {
    declared
        .iter()
        .chain(items)
        .any(|t| declared_kind(t) == Some(Kind::Forum))
}

/// The page's kind from the layout its classifier found, the types it declares (in document
/// order; then its microdata items' types, `items`) and what its kept text holds. In order of
/// trust: a declared product is one (its layout is a gallery, a buy box and specifications, no
/// shape of its own); a listing or a thread of posts found in the structure is one; then what
/// the page declares; then a kept text that is a tenth code is documentation, and so is a page
/// with a kept text that its URL files as documentation (`documentation_url`, see
/// [`documentation_url`]); then a kept text of paragraphs is an article; else other.
pub fn infer(
    layout: Layout,
    declared: &[String],
    items: &[String],
    kept: Kept,
    documentation_url: bool,
) -> PageKind {
    let named = declared
        .iter()
        .chain(items)
        .find_map(|t| declared_kind(t).map(|k| (k, t)));
    let from_declared = |(kind, t): (Kind, &String)| PageKind {
        kind,
        evidence: Evidence::Declared,
        declared: Some(t.clone()),
        units: None,
    };
    let from_units = |kind, units| PageKind {
        kind,
        evidence: Evidence::Units,
        declared: None,
        units: Some(units),
    };
    if let Some(product) = named.filter(|(k, _)| *k == Kind::Product) {
        return from_declared(product);
    }
    match layout {
        Layout::Listing { units } => return from_units(Kind::Listing, units),
        Layout::Posts { units } => return from_units(Kind::Forum, units),
        _ => {}
    }
    if let Some(named) = named {
        return from_declared(named);
    }
    let (kind, evidence) = if kept.all > 0 && 10 * kept.code >= kept.all {
        (Kind::Documentation, Evidence::Code)
    } else if kept.all > 0 && documentation_url {
        (Kind::Documentation, Evidence::Url)
    } else if kept.prose >= ARTICLE_PROSE {
        (Kind::Article, Evidence::Prose)
    } else {
        (Kind::Other, Evidence::None)
    };
    let units = match layout {
        Layout::Sections { units } => Some(units),
        _ => None,
    };
    PageKind {
        kind,
        evidence,
        declared: None,
        units,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_thread_is_declared_in_any_type_or_microdata_item() {
        // Stack Exchange: a microdata `QAPage` only, which the page's declared kind leaves out.
        let items = types(&["https://schema.org/QAPage", "https://schema.org/Answer"]);
        assert!(declares_thread(&[], &items));
        assert_eq!(declared_main_kind(&[]), None);
        // A JSON-LD thread after the site's own types; an article, a product are no thread.
        assert!(declares_thread(
            &types(&["WebSite", "DiscussionForumPosting"]),
            &[]
        ));
        assert!(!declares_thread(
            &types(&["NewsArticle"]),
            &types(&["http://schema.org/Product"])
        ));
    }

    #[test]
    fn the_layout_and_the_declared_types_name_the_kind_in_order_of_trust() {
        let prose = Kept {
            prose: 3000,
            code: 0,
            all: 3500,
        };
        // A product says so whatever its layout.
        let k = infer(
            Layout::Listing { units: 8 },
            &types(&["WebSite", "Product"]),
            &[],
            prose,
            false,
        );
        assert_eq!(
            (k.kind, k.evidence, k.declared.as_deref()),
            (Kind::Product, Evidence::Declared, Some("Product"))
        );
        // A thread found in the structure is a forum even where the page calls itself an article.
        let k = infer(
            Layout::Posts { units: 12 },
            &types(&["NewsArticle"]),
            &[],
            prose,
            false,
        );
        assert_eq!(
            (k.kind, k.evidence, k.units),
            (Kind::Forum, Evidence::Units, Some(12))
        );
        // Then the declared type, full IRIs and og:types too.
        let k = infer(
            Layout::Text,
            &types(&["BreadcrumbList", "https://schema.org/QAPage"]),
            &[],
            prose,
            false,
        );
        assert_eq!(k.kind, Kind::Forum);
        // Then a microdata item's type, after every declared one.
        let items = types(&[
            "http://schema.org/Person",
            "https://schema.org/DiscussionForumPosting",
        ]);
        let k = infer(Layout::Text, &types(&["WebSite"]), &items, prose, false);
        assert_eq!(
            (k.kind, k.declared.as_deref()),
            (
                Kind::Forum,
                Some("https://schema.org/DiscussionForumPosting")
            )
        );
        let k = infer(Layout::Text, &types(&["article"]), &items, prose, false);
        assert_eq!(k.kind, Kind::Article);
        assert_eq!(
            infer(
                Layout::Text,
                &types(&["article"]),
                &[],
                Kept::default(),
                false
            )
            .kind,
            Kind::Article
        );
        // Then what the kept text holds.
        let code = Kept {
            prose: 2000,
            code: 400,
            all: 3000,
        };
        assert_eq!(
            infer(Layout::Text, &[], &[], code, false).kind,
            Kind::Documentation
        );
        assert_eq!(
            infer(Layout::Text, &[], &[], prose, false).evidence,
            Evidence::Prose
        );
        // A text of paragraphs that its URL files as documentation is documentation; a page
        // that keeps nothing is not, wherever it is filed.
        let k = infer(Layout::Text, &[], &[], prose, true);
        assert_eq!((k.kind, k.evidence), (Kind::Documentation, Evidence::Url));
        assert_eq!(
            infer(Layout::Text, &types(&["TechArticle"]), &[], prose, true).evidence,
            Evidence::Declared
        );
        assert_eq!(
            infer(Layout::Text, &[], &[], Kept::default(), true).kind,
            Kind::Other
        );
        let k = infer(
            Layout::Sections { units: 5 },
            &types(&["WebPage"]),
            &[],
            Kept {
                prose: 500,
                code: 0,
                all: 900,
            },
            false,
        );
        assert_eq!(
            (k.kind, k.evidence, k.units),
            (Kind::Other, Evidence::None, Some(5))
        );
    }

    #[test]
    fn documentation_is_read_from_a_url_s_segments_and_host() {
        use crate::urlkey::{KeyOptions, QueryRules, UrlKeyer};
        let keyer = UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default());
        let filed = |url: &str| documentation_url(&keyer.key(url, None).expect("a URL key"));
        for url in [
            "https://docs.djangoproject.com/en/5.1/topics/http/middleware/",
            "https://go.dev/doc/modules/managing-dependencies",
            "https://www.typescriptlang.org/docs/handbook/2/types-from-types.html",
            "https://www.postgresql.org/docs/18/sql-select.html",
            "http://docs.mcneel.com/rhino/6/usersguide/en-us/html/ch-15.htm",
            "https://example.org/API/Widgets?page=2",
            "https://example.org/docs",
            "https://docs.rs/serde",
        ] {
            assert!(filed(url), "{url}");
        }
        for url in [
            "https://www.docusign.com/products/electronic-signature",
            "https://example.org/blog/how-we-wrote-our-docs",
            "https://example.org/news?section=docs",
            "https://example.org/reference-architecture",
            "https://developers.slashdot.org/story/25/12/19/stanford",
            "https://example.org/docs/../",
        ] {
            assert!(!filed(url), "{url}");
        }
    }

    #[test]
    fn kinds_serialize_by_their_names() {
        for kind in [
            Kind::Article,
            Kind::Forum,
            Kind::Listing,
            Kind::Product,
            Kind::Documentation,
            Kind::Other,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(declared_kind("schema:Car"), Some(Kind::Product));
        assert_eq!(declared_kind("Organization"), None);
    }
}
