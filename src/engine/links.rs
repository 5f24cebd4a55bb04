//! The **links** stage of `link-template` (DESIGN §2.10, §9): each page's same-site out-links and
//! element signatures, kept with its fingerprint (so retention forgets them and the changelog
//! carries them with the rest), and the look-up of the held pages it links to.
//!
//! A page is found as a link target by its link identity, the hash of its URL key without the
//! title's content id (a link does not know the title of the page it points to). The engine
//! keeps, per domain, which held document has which identity: an index in memory, built from
//! the domain's retained fingerprints the first time the engine meets the domain (after a start
//! too) and kept as pages come; it holds 16 bytes per held document of the domains it has met.
//! An entry whose document was forgotten is dropped when a look-up finds it gone, or when such
//! entries outnumber the held documents (a stream of new URLs no page links back to).

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use md5::{Digest, Md5};
use url::Url;

use crate::blocks::{Block, PageLinks};
use crate::record::RawPage;
use crate::state::{StateError, Txn};
use crate::tree::classic::link_template::{
    clique, shared, LinkProfile, Linked, MAX_CANDIDATES, MAX_LINKS,
};
use crate::tree::NodeId;
use crate::urlkey::UrlKeyer;

/// A page's links as the stage reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PageProfile {
    /// What the fingerprint keeps; `None` when the page's own URL has no key.
    pub profile: Option<LinkProfile>,
    /// The identities of its same-site out-links in document order, distinct.
    pub order: Vec<u64>,
    /// Each block's container signature, in block order.
    pub blocks: Vec<Option<u64>>,
}

/// The link identity of a URL: the first 8 bytes of the MD5 of its URL key without a title.
fn identity(keyer: &UrlKeyer, url: &str) -> Option<(u64, String)> {
    let key = keyer.key(url, None).ok()?;
    let digest = Md5::digest(key.key.as_bytes());
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    Some((u64::from_be_bytes(id), key.domain))
}

/// The page's profile from its recorded links: its identity, its same-site out-links (resolved
/// against its URL, at most [`MAX_LINKS`], itself left out) and its blocks' signatures.
pub(super) fn profile(
    keyer: &UrlKeyer,
    page: &RawPage,
    blocks: &[Block],
    links: &PageLinks,
) -> PageProfile {
    let block_signatures = blocks.iter().map(|b| links.block_signature(b)).collect();
    let url = page.effective_url();
    let (Some((id, domain)), Ok(base)) = (identity(keyer, url), Url::parse(url.trim())) else {
        return PageProfile {
            blocks: block_signatures,
            ..PageProfile::default()
        };
    };
    let mut order = Vec::new();
    for href in &links.hrefs {
        if order.len() >= MAX_LINKS {
            break;
        }
        let Ok(target) = base.join(href) else {
            continue;
        };
        if let Some((target, target_domain)) = identity(keyer, target.as_str()) {
            if target_domain == domain && target != id && !order.contains(&target) {
                order.push(target);
            }
        }
    }
    let mut out = order.clone();
    out.sort_unstable();
    let mut signatures: Vec<u64> = block_signatures.iter().flatten().copied().collect();
    signatures.sort_unstable();
    signatures.dedup();
    PageProfile {
        profile: Some(LinkProfile {
            id,
            out,
            signatures,
        }),
        order,
        blocks: block_signatures,
    }
}

/// Forgotten documents an index may hold beyond its domain's held ones before they are dropped.
const STALE_SLACK: u64 = 64;

/// Which held document of each domain has which link identity (see the module's note).
#[derive(Debug, Default)]
pub(super) struct LinkIndex {
    domains: HashMap<NodeId, HashMap<u64, u64>>,
}

impl LinkIndex {
    /// The index of `domain`, built from its retained fingerprints the first time.
    fn domain(
        &mut self,
        txn: &mut Txn<'_>,
        domain: NodeId,
    ) -> Result<&mut HashMap<u64, u64>, StateError> {
        match self.domains.entry(domain) {
            Entry::Occupied(held) => Ok(held.into_mut()),
            Entry::Vacant(slot) => {
                let meta = txn.domain(domain)?;
                let mut index = HashMap::new();
                for seq in meta.first_seq..meta.next_seq {
                    if let Some(links) = txn.doc(domain, seq)?.and_then(|fp| fp.links) {
                        index.insert(links.id, seq);
                    }
                }
                Ok(slot.insert(index))
            }
        }
    }

    /// Notes that the document `seq` of `domain`, just inserted, has link identity `id`, where
    /// the domain holds the documents from `first_seq` on. Entries of forgotten documents are
    /// dropped once they outnumber the held ones (with some slack), so the index stays within
    /// twice the domain's held documents however long the stream, at a cost linear in the
    /// entries dropped.
    pub(super) fn insert(
        &mut self,
        txn: &mut Txn<'_>,
        domain: NodeId,
        (id, seq): (u64, u64),
        first_seq: u64,
    ) -> Result<(), StateError> {
        let index = self.domain(txn, domain)?;
        index.insert(id, seq);
        let held = seq.saturating_sub(first_seq).saturating_add(1);
        if index.len() as u64 > held.saturating_mul(2).saturating_add(STALE_SLACK) {
            index.retain(|_, s| *s >= first_seq);
        }
        Ok(())
    }

    /// What the held pages of `domain` that `page` links to say of it: its clique's template,
    /// if the page and three of them are all mutually linked.
    pub(super) fn look_up(
        &mut self,
        txn: &mut Txn<'_>,
        domain: NodeId,
        page: &PageProfile,
    ) -> Result<Linked, StateError> {
        let mut linked = Linked {
            blocks: page.blocks.clone(),
            template: None,
        };
        let Some(profile) = &page.profile else {
            return Ok(linked);
        };
        let mut candidates = Vec::new();
        for &id in &page.order {
            if candidates.len() >= MAX_CANDIDATES {
                break;
            }
            let Some(&seq) = self.domain(txn, domain)?.get(&id) else {
                continue;
            };
            match txn.doc(domain, seq)?.and_then(|fp| fp.links) {
                Some(links) if links.id == id => candidates.push(links),
                // Forgotten (or replaced): the entry is stale.
                _ => {
                    self.domain(txn, domain)?.remove(&id);
                }
            }
        }
        if let Some(others) = clique(profile, &candidates) {
            let mut pages: Vec<&[u64]> = vec![&profile.signatures];
            pages.extend(others.iter().map(|&i| candidates[i].signatures.as_slice()));
            linked.template = Some(shared(&pages));
        }
        Ok(linked)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::engine::{Engine, Input, Outcome};
    use crate::record::Source;

    const SECTIONS: [(&str, &str); 5] = [
        ("/", "Home"),
        ("/news/", "News"),
        ("/sport/", "Sport"),
        ("/weather/", "Weather"),
        ("/culture/", "Culture"),
    ];

    /// A page of a small site at `path`: the menu of its five sections, `paragraphs` paragraphs
    /// of its own, the same footer.
    fn record(path: &str, paragraphs: usize) -> Vec<u8> {
        let menu: String = SECTIONS
            .iter()
            .map(|(href, name)| format!("<li><a href=\"{href}\">{name}</a></li>"))
            .collect();
        let text: String = (0..paragraphs)
            .map(|i| format!("<p>Paragraph {i} of the page at {path}, its own words.</p>"))
            .collect();
        let html = format!(
            "<html><body><div class=\"top\"><ul class=\"menu\">{menu}</ul></div>\
             <div class=\"main\">{text}</div>\
             <div class=\"foot\"><p>The same footer on every page.</p></div></body></html>"
        );
        serde_json::to_vec(&serde_json::json!({
            "url": format!("https://www.example.org{path}"),
            "html": html,
            "fetched_at": "2025-03-01T12:00:00Z",
        }))
        .unwrap()
    }

    fn engine(state: &std::path::Path) -> Engine {
        let mut config = Config::default();
        config.state.path = state.to_owned();
        config.tree.heuristic = "link-template".parse().unwrap();
        config.output.blocks = true;
        Engine::open(&config).unwrap()
    }

    /// Each block's text and reason for `record` run through `engine`.
    fn run(engine: &mut Engine, n: u64, record: &[u8]) -> Vec<(String, String)> {
        let outcomes = engine
            .process_batch(&[Input::new(record, Source::line("t", n))], None)
            .unwrap();
        let Some(Outcome::Clean(record)) = outcomes.into_iter().next() else {
            panic!("not classified");
        };
        record
            .blocks
            .unwrap_or_default()
            .into_iter()
            .map(|b| (b.text, b.reason))
            .collect()
    }

    #[test]
    fn the_index_forgets_what_retention_forgets() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.state.path = dir.path().to_owned();
        config.tree.heuristic = "link-template".parse().unwrap();
        config.retention.max_docs = 20;
        config.retention.min_keep = 10;
        config.output.blocks = true;
        let mut engine = Engine::open(&config).unwrap();
        // A stream of new articles no page links back to: the domain holds 20 at a time.
        for n in 0..400 {
            run(&mut engine, n, &record(&format!("/news/{n}.html"), 1));
            let entries: usize = engine.links.domains.values().map(|d| d.len()).sum();
            assert!(
                entries <= 2 * 20 + super::STALE_SLACK as usize,
                "{entries} after {n}"
            );
        }
        // What is held is still found: four section pages, then the fifth is judged by them.
        for (n, (path, _)) in SECTIONS.iter().enumerate().skip(1) {
            run(&mut engine, 400 + n as u64, &record(path, n));
        }
        let home = run(&mut engine, 500, &record("/", 2));
        assert!(
            home.iter().any(|(_, reason)| reason == "template"),
            "{home:?}"
        );
    }

    #[test]
    fn the_menu_and_footer_four_mutually_linked_pages_share_are_template() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = engine(dir.path());
        // The first section page: no held page links to it, everything is kept.
        let home = run(&mut first, 0, &record("/", 1));
        assert!(home.iter().all(|(_, reason)| reason == "text"), "{home:?}");
        for (n, (path, _)) in SECTIONS.iter().enumerate().skip(1).take(3) {
            run(&mut first, n as u64, &record(path, n + 1));
        }
        // An article linked from no section: no clique, everything kept.
        let article = run(&mut first, 4, &record("/news/1.html", 2));
        assert!(article.iter().all(|(_, reason)| reason == "text"));
        drop(first);
        // After a restart, the fifth section page finds the four others in the state: they
        // all link each other. Menu and footer sit at positions all of them share; the
        // paragraphs do not (their container's number of children differs from page to page).
        let mut second = engine(dir.path());
        let culture = run(&mut second, 5, &record("/culture/", 5));
        for (text, reason) in &culture {
            let expected = if text.starts_with("Paragraph") {
                "text"
            } else {
                "template"
            };
            assert_eq!(reason, expected, "{text}");
        }
        assert_eq!(culture.len(), 5 + 5 + 1);
    }
}
