//! The output's `page_kind` against a corpus's page types (WCXB's `page_type`): how often the
//! kind urltree names is the one the corpus's label says, per type and over the pages whose type
//! names a kind.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::tree::kind::Kind;

/// The kind a corpus's page type names, if any: WCXB's `article`, `forum`, `product`,
/// `documentation` and `listing` are the kinds of those names; a `collection` (a category page,
/// a product grid) is a [`Kind::Listing`]; a `service` page (a landing page, a company's offer)
/// is [`Kind::Other`], as the kind's definition says. Other types name none.
pub fn expected_kind(page_type: &str) -> Option<Kind> {
    let kind = match page_type.to_ascii_lowercase().as_str() {
        "article" => Kind::Article,
        "forum" => Kind::Forum,
        "product" => Kind::Product,
        "documentation" => Kind::Documentation,
        "listing" | "collection" => Kind::Listing,
        "service" => Kind::Other,
        _ => return None,
    };
    Some(kind)
}

/// How many pages of one type were named each kind; pages without a `page_kind` (rejected, or
/// a heuristic that names none) count under `none`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KindCounts(pub BTreeMap<String, u64>);

impl KindCounts {
    /// Counts one page named `kind`.
    pub fn add(&mut self, kind: Option<Kind>) {
        let name = kind.map_or("none", Kind::as_str);
        *self.0.entry(name.to_owned()).or_default() += 1;
    }

    /// Pages counted.
    pub fn pages(&self) -> u64 {
        self.0.values().sum()
    }

    /// Pages named `kind`.
    pub fn named(&self, kind: Kind) -> u64 {
        self.0.get(kind.as_str()).copied().unwrap_or(0)
    }

    /// True when no page was named a kind (the run names none: the paper's heuristics).
    pub fn is_unnamed(&self) -> bool {
        self.0.keys().all(|k| k == "none")
    }
}

/// The lines of the table's `page_kind` section: per type, how many of its pages were named its
/// kind and what the others were named; then the agreement over every page whose type names a
/// kind. `types` pairs each page type with its counts. Empty when no page was named a kind.
pub fn render<S: AsRef<str>>(types: &[(S, &KindCounts)]) -> String {
    let mut out = String::new();
    if types.iter().all(|(_, c)| c.is_unnamed()) {
        return out;
    }
    let (mut agree, mut total) = (0u64, 0u64);
    let _ = writeln!(out, "page_kind by page type:");
    for (page_type, counts) in types {
        let page_type = page_type.as_ref();
        let pages = counts.pages();
        let mut others: Vec<(&String, &u64)> = counts.0.iter().collect();
        others.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let expected = expected_kind(page_type);
        let mut line = format!("  {page_type}: ");
        if let Some(kind) = expected {
            let named = counts.named(kind);
            agree += named;
            total += pages;
            let _ = write!(
                line,
                "{named}/{pages} {} ({:.1}%)",
                kind.as_str(),
                percent(named, pages)
            );
            others.retain(|(k, _)| k.as_str() != kind.as_str());
        } else {
            let _ = write!(line, "{pages} pages");
        }
        let rest: Vec<String> = others.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if !rest.is_empty() {
            let _ = write!(line, "; {}", rest.join(", "));
        }
        let _ = writeln!(out, "{line}");
    }
    if total > 0 {
        let _ = writeln!(
            out,
            "  agreement: {agree}/{total} ({:.1}%; collection counts as listing, service as other)",
            percent(agree, total)
        );
    }
    out
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wcxb_types_name_kinds() {
        assert_eq!(expected_kind("collection"), Some(Kind::Listing));
        assert_eq!(expected_kind("Service"), Some(Kind::Other));
        assert_eq!(expected_kind("forum"), Some(Kind::Forum));
        assert_eq!(expected_kind("recipe"), None);
    }

    #[test]
    fn agreement_counts_the_pages_named_their_types_kind() {
        let mut forum = KindCounts::default();
        for k in [
            Kind::Forum,
            Kind::Article,
            Kind::Article,
            Kind::Forum,
            Kind::Forum,
        ] {
            forum.add(Some(k));
        }
        forum.add(None);
        let mut service = KindCounts::default();
        service.add(Some(Kind::Other));
        service.add(Some(Kind::Article));
        let mut recipe = KindCounts::default();
        recipe.add(Some(Kind::Article));
        let text = render(&[
            ("forum", &forum),
            ("recipe", &recipe),
            ("service", &service),
        ]);
        assert!(
            text.contains("  forum: 3/6 forum (50.0%); article 2, none 1\n"),
            "{text}"
        );
        assert!(text.contains("  recipe: 1 pages; article 1\n"), "{text}");
        assert!(
            text.contains("  service: 1/2 other (50.0%); article 1\n"),
            "{text}"
        );
        assert!(text.contains("  agreement: 4/8 (50.0%;"), "{text}");
        // A run that names no kind has no section.
        let mut none = KindCounts::default();
        none.add(None);
        assert_eq!(render(&[("forum", &none)]), "");
    }
}
