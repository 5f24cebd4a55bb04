//! One record through the pipeline's stages, in order: decode → key → dedup → blocks → learn →
//! look up → classify → assemble. Each stage is a function of its own module; this one only
//! wires them and keeps the counts. The stages that read or write the tree go through [`Tree`]:
//! a batch's transaction over the state, or [`Alone`], the tree of a page without a state.

use std::convert::Infallible;

use super::admit::{self, HeldDoc, Rejection};
use super::assemble::{self, Classified};
use super::learn::Learned;
use super::links::{self, LinkIndex, PageProfile};
use super::lookup::Evidence;
use super::{classify, learn, lookup, Change, Input, Outcome, Stats};
use crate::blocks::{Block, Tokenizer};
use crate::config::{DomainCheck, OutputOptions};
use crate::record::DeadLetter;
use crate::state::{StateError, Txn};
use crate::tree::classic::link_template::Linked;
use crate::tree::cluster::{self, Membership};
use crate::tree::{kind, Branch, Classifier, Fingerprint, NodeId, Retention, TemplateClusters};
use crate::urlkey::{UrlKey, UrlKeyer};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// A time in milliseconds since the epoch as RFC 3339 (empty when out of range).
fn rfc3339_ms(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

/// What the stages ask of the tree a page goes into.
pub(super) trait Tree {
    /// Why the tree could not be read or written.
    type Error;

    /// **Dedup**: the document the page's URL key already holds in its domain, if any.
    fn held(&mut self, branch: &Branch, key: &UrlKey) -> Result<Option<HeldDoc>, Self::Error>;

    /// The newest event time of the domain's documents, when it holds any.
    fn newest_ms(&mut self, domain: NodeId) -> Result<Option<i64>, Self::Error>;

    /// Forgets the held version of a page whose content changed.
    fn forget(&mut self, domain: NodeId, seq: u64, old: &Fingerprint) -> Result<(), Self::Error>;

    /// **Cluster** (`[tree.template_clusters]`): the depth of the node of `branch` whose pages
    /// are split and the template cluster the page `fp` joins there, if any.
    fn cluster(
        &mut self,
        params: &TemplateClusters,
        branch: &Branch,
        fp: &Fingerprint,
    ) -> Result<Option<(usize, u8)>, Self::Error>;

    /// **Learn**: inserts the page and forgets what retention says; returns how many documents
    /// were forgotten.
    fn learn(
        &mut self,
        domain: NodeId,
        learned: &Learned,
        retention: Retention,
        offset: i64,
        changes: &mut Vec<Change>,
    ) -> Result<u64, Self::Error>;

    /// **Look up**: the evidence for the page just learned; a template cluster of fewer than
    /// `cluster_support` pages does not decide.
    fn look_up(
        &mut self,
        classifier: &dyn Classifier,
        branch: &Branch,
        blocks: &[Block],
        learned: &Learned,
        cluster_support: u64,
    ) -> Result<Evidence, Self::Error>;

    /// `link-template`: notes the link identity of the page just learned in `links`, then what
    /// the held pages of `domain` it links to say of it.
    fn linked(
        &mut self,
        links: &mut LinkIndex,
        domain: NodeId,
        page: &PageProfile,
    ) -> Result<Linked, Self::Error>;
}

/// The stored tree, through a batch's transaction.
impl Tree for Txn<'_> {
    type Error = StateError;

    fn held(&mut self, branch: &Branch, key: &UrlKey) -> Result<Option<HeldDoc>, StateError> {
        admit::held(self, branch, key)
    }

    fn newest_ms(&mut self, domain: NodeId) -> Result<Option<i64>, StateError> {
        let meta = self.domain(domain)?;
        Ok((meta.held() > 0).then_some(meta.newest_ms))
    }

    fn forget(&mut self, domain: NodeId, seq: u64, old: &Fingerprint) -> Result<(), StateError> {
        Txn::forget(self, domain, seq, old)
    }

    fn cluster(
        &mut self,
        params: &TemplateClusters,
        branch: &Branch,
        fp: &Fingerprint,
    ) -> Result<Option<(usize, u8)>, StateError> {
        learn::template_cluster(self, params, branch, fp)
    }

    fn learn(
        &mut self,
        domain: NodeId,
        learned: &Learned,
        retention: Retention,
        offset: i64,
        changes: &mut Vec<Change>,
    ) -> Result<u64, StateError> {
        learn::learn(self, domain, learned, retention, offset, changes)
    }

    fn look_up(
        &mut self,
        classifier: &dyn Classifier,
        branch: &Branch,
        blocks: &[Block],
        learned: &Learned,
        cluster_support: u64,
    ) -> Result<Evidence, StateError> {
        lookup::look_up(self, classifier, branch, blocks, learned, cluster_support)
    }

    fn linked(
        &mut self,
        links: &mut LinkIndex,
        domain: NodeId,
        page: &PageProfile,
    ) -> Result<Linked, StateError> {
        if let Some(profile) = &page.profile {
            let meta = self.domain(domain)?;
            let seq = meta.next_seq.saturating_sub(1);
            links.insert(self, domain, (profile.id, seq), meta.first_seq)?;
        }
        links.look_up(self, domain, page)
    }
}

/// The tree of a page without a state: it holds that page alone, so the page is its domain's
/// first (the cold-start path) and its evidence is what a fresh state would give it after
/// inserting it. Nothing is kept.
pub(super) struct Alone;

impl Tree for Alone {
    type Error = Infallible;

    fn held(&mut self, _: &Branch, _: &UrlKey) -> Result<Option<HeldDoc>, Infallible> {
        Ok(None)
    }

    fn newest_ms(&mut self, _: NodeId) -> Result<Option<i64>, Infallible> {
        Ok(None)
    }

    fn forget(&mut self, _: NodeId, _: u64, _: &Fingerprint) -> Result<(), Infallible> {
        Ok(())
    }

    /// A page alone is its node's only page: nothing to split.
    fn cluster(
        &mut self,
        _: &TemplateClusters,
        _: &Branch,
        _: &Fingerprint,
    ) -> Result<Option<(usize, u8)>, Infallible> {
        Ok(None)
    }

    fn learn(
        &mut self,
        _: NodeId,
        _: &Learned,
        _: Retention,
        _: i64,
        _: &mut Vec<Change>,
    ) -> Result<u64, Infallible> {
        Ok(0)
    }

    fn look_up(
        &mut self,
        classifier: &dyn Classifier,
        branch: &Branch,
        blocks: &[Block],
        learned: &Learned,
        _: u64,
    ) -> Result<Evidence, Infallible> {
        Ok(lookup::alone(classifier, branch, blocks, learned))
    }

    /// A lone page links to no held page.
    fn linked(
        &mut self,
        _: &mut LinkIndex,
        _: NodeId,
        page: &PageProfile,
    ) -> Result<Linked, Infallible> {
        Ok(Linked {
            blocks: page.blocks.clone(),
            template: None,
        })
    }
}

/// The engine's parts one batch works with.
pub(super) struct PageContext<'e> {
    pub keyer: &'e UrlKeyer,
    pub tokenizer: &'e mut Tokenizer,
    pub classifier: &'e dyn Classifier,
    pub links: &'e mut LinkIndex,
    pub retention: Retention,
    pub template_clusters: TemplateClusters,
    pub max_record_bytes: usize,
    pub domain_check: DomainCheck,
    pub output: &'e OutputOptions,
    pub batch_started: &'e str,
    pub stats: &'e mut Stats,
    pub changes: &'e mut Vec<Change>,
}

impl PageContext<'_> {
    /// Runs one record through the stages; only a state error fails it.
    pub fn process<T: Tree>(
        &mut self,
        tree: &mut T,
        input: &Input<'_>,
    ) -> Result<Outcome, T::Error> {
        self.stats.records += 1;
        let outcome = self.process_page(tree, input);
        match &outcome {
            Ok(Outcome::Clean(_)) => self.stats.pages += 1,
            Ok(Outcome::Duplicate { .. }) => self.stats.duplicates += 1,
            Ok(Outcome::Rejected(_)) => self.stats.rejected += 1,
            Err(_) => {}
        }
        outcome
    }

    fn process_page<T: Tree>(
        &mut self,
        tree: &mut T,
        input: &Input<'_>,
    ) -> Result<Outcome, T::Error> {
        let mut page = match admit::decode(input.bytes, self.max_record_bytes) {
            Ok(page) => page,
            Err(rejection) => return Ok(self.reject(input, rejection)),
        };
        let (key, branch) = match admit::key(self.keyer, self.domain_check, &page) {
            Ok(keyed) => keyed,
            Err(rejection) => return Ok(self.reject(input, rejection)),
        };
        let held = tree.held(&branch, &key)?;
        let blocks = match admit::blocks(self.tokenizer, &page) {
            Ok(blocks) => blocks,
            Err(rejection) => return Ok(self.reject(input, rejection)),
        };
        let meta = self.tokenizer.take_meta();
        let page_stats = self.tokenizer.stats();
        let page_links = self
            .classifier
            .reads_links()
            .then(|| links::profile(self.keyer, &page, &blocks, &self.tokenizer.take_links()));
        let (mut time_ms, clamped) = learn::event_time_ms(&page, input.timestamp_ms);
        let dropped = std::mem::take(&mut page.warnings);
        self.stats.dropped_fields += dropped.len() as u64;
        let mut warnings = std::mem::take(&mut page.carried_warnings);
        warnings.extend(dropped);
        // A page the parse limits cut says so: its text is not all there.
        if self.tokenizer.stats().block_limit_hit {
            warnings.push(format!(
                "the page has more than {} blocks (parse.max_blocks): the rest was not read",
                blocks.len()
            ));
        }
        let cut_blocks = blocks.iter().filter(|b| b.truncated).count();
        if cut_blocks > 0 {
            warnings.push(format!(
                "{cut_blocks} block(s) longer than parse.max_block_chars characters: their text was cut"
            ));
        }
        if clamped {
            // An untrusted time ages nothing: it goes no further than the domain's newest.
            if let Some(newest_ms) = tree.newest_ms(branch.root())? {
                time_ms = time_ms.min(newest_ms);
            }
            self.stats.clamped_times += 1;
            let claimed = match page.fetched_at {
                Some(t) => t.format(&Rfc3339).unwrap_or_default(),
                None => input.timestamp_ms.map(rfc3339_ms).unwrap_or_default(),
            };
            warnings.push(format!(
                "event time {claimed} is more than a day ahead of the record's time: {} used",
                rfc3339_ms(time_ms),
            ));
        }
        let mut learned = learn::fingerprint(&key, &branch, &blocks, time_ms);
        if let Some(profile) = page_links.as_ref().and_then(|p| p.profile.clone()) {
            learned.fp = learned.fp.with_links(profile);
        }
        if let Some((seq, old)) = held {
            if admit::is_duplicate(&old, &learned.fp) {
                return Ok(Outcome::Duplicate {
                    url_key: key.key,
                    domain: key.domain,
                });
            }
            // A new version: the old one is forgotten exactly, the new one inserted below. The
            // changelog's record of the new version replaces the old one's under the same key.
            tree.forget(branch.root(), seq, &old)?;
            self.stats.versions += 1;
        }
        // A page of a template cluster is counted at its cluster's node too, below the node
        // split: its branch and fingerprint name it.
        let branch = if !self.template_clusters.enabled {
            branch
        } else {
            match tree.cluster(&self.template_clusters, &branch, &learned.fp)? {
                Some((depth, id)) => {
                    let clustered = cluster::with_cluster(&branch, depth, id);
                    learned.fp.nodes = clustered.stored().to_vec();
                    learned.fp.template = Some(Membership {
                        node: branch.ids[depth],
                        cluster: id,
                    });
                    clustered
                }
                None => branch,
            }
        };
        self.stats.forgotten += tree.learn(
            branch.root(),
            &learned,
            self.retention,
            input.source.offset,
            self.changes,
        )?;
        let linked = match &page_links {
            Some(page_links) => Some(tree.linked(self.links, branch.root(), page_links)?),
            None => None,
        };
        let evidence = tree.look_up(
            self.classifier,
            &branch,
            &blocks,
            &learned,
            self.template_clusters.decide_support,
        )?;
        let title = page.title.as_deref().or(meta.title.as_deref());
        let documentation_url = kind::documentation_url(&key);
        let (reasons, layout) = classify::classify(
            self.classifier,
            &blocks,
            (
                page.html.len(),
                page_stats,
                linked.as_ref(),
                kind::declared_main_kind(&meta.types),
                documentation_url,
                kind::declares_thread(&meta.types, &meta.item_types),
            ),
            &evidence,
            title,
        );
        self.stats.html_bytes += page.html.len() as u64;
        let (mut record, tally) = assemble::record(
            Classified {
                page,
                key,
                branch: &branch,
                blocks: &blocks,
                evidence: &evidence,
                reasons: &reasons,
                layout,
                heuristic: self.classifier.heuristic(),
                meta,
                documentation_url,
            },
            &input.source,
            input.timestamp_ms,
            self.batch_started,
            self.output,
        );
        record.warnings = warnings;
        self.stats.content_blocks += tally.content;
        self.stats.boilerplate_blocks += tally.boilerplate;
        Ok(Outcome::Clean(Box::new(record)))
    }

    fn reject(&self, input: &Input<'_>, rejection: Rejection) -> Outcome {
        Outcome::Rejected(Box::new(DeadLetter::new(
            rejection.kind,
            rejection.message,
            input.source.clone(),
            input.bytes,
            self.output.dead_letter_payload_bytes,
        )))
    }
}
