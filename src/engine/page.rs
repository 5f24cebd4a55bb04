//! One record through the pipeline's stages, in order: decode → key → dedup → blocks → learn →
//! look up → classify → assemble. Each stage is a function of its own module; this one only
//! wires them and keeps the counts.

use super::admit::{self, Rejection};
use super::assemble::{self, Classified};
use super::links::{self, LinkIndex};
use super::{classify, learn, lookup, Change, Input, Outcome, Stats};
use crate::blocks::Tokenizer;
use crate::config::{DomainCheck, OutputOptions};
use crate::record::DeadLetter;
use crate::state::{StateError, Txn};
use crate::tree::{Classifier, Retention};
use crate::urlkey::UrlKeyer;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// A time in milliseconds since the epoch as RFC 3339 (empty when out of range).
fn rfc3339_ms(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

/// The engine's parts one batch works with.
pub(super) struct PageContext<'e> {
    pub keyer: &'e UrlKeyer,
    pub tokenizer: &'e mut Tokenizer,
    pub classifier: &'e dyn Classifier,
    pub links: &'e mut LinkIndex,
    pub retention: Retention,
    pub max_record_bytes: usize,
    pub domain_check: DomainCheck,
    pub output: &'e OutputOptions,
    pub batch_started: &'e str,
    pub stats: &'e mut Stats,
    pub changes: &'e mut Vec<Change>,
}

impl PageContext<'_> {
    /// Runs one record through the stages; only a state error fails it.
    pub fn process(&mut self, txn: &mut Txn<'_>, input: &Input<'_>) -> Result<Outcome, StateError> {
        self.stats.records += 1;
        let outcome = self.process_page(txn, input);
        match &outcome {
            Ok(Outcome::Clean(_)) => self.stats.pages += 1,
            Ok(Outcome::Duplicate { .. }) => self.stats.duplicates += 1,
            Ok(Outcome::Rejected(_)) => self.stats.rejected += 1,
            Err(_) => {}
        }
        outcome
    }

    fn process_page(
        &mut self,
        txn: &mut Txn<'_>,
        input: &Input<'_>,
    ) -> Result<Outcome, StateError> {
        let mut page = match admit::decode(input.bytes, self.max_record_bytes) {
            Ok(page) => page,
            Err(rejection) => return Ok(self.reject(input, rejection)),
        };
        let (key, branch) = match admit::key(self.keyer, self.domain_check, &page) {
            Ok(keyed) => keyed,
            Err(rejection) => return Ok(self.reject(input, rejection)),
        };
        let held = admit::held(txn, &branch, &key)?;
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
        let mut warnings = std::mem::take(&mut page.warnings);
        self.stats.dropped_fields += warnings.len() as u64;
        if clamped {
            // An untrusted time ages nothing: it goes no further than the domain's newest.
            let domain = txn.domain(branch.root())?;
            if domain.held() > 0 {
                time_ms = time_ms.min(domain.newest_ms);
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
            txn.forget(branch.root(), seq, &old)?;
            self.stats.versions += 1;
        }
        self.stats.forgotten += learn::learn(
            txn,
            branch.root(),
            &learned,
            self.retention,
            input.source.offset,
            self.changes,
        )?;
        let linked = match &page_links {
            Some(page_links) => {
                if let Some(profile) = &page_links.profile {
                    let seq = txn.domain(branch.root())?.next_seq.saturating_sub(1);
                    self.links.insert(txn, branch.root(), profile.id, seq)?;
                }
                Some(self.links.look_up(txn, branch.root(), page_links)?)
            }
            None => None,
        };
        let evidence = lookup::look_up(txn, self.classifier, &branch, &blocks, &learned)?;
        let title = page.title.as_deref().or(meta.title.as_deref());
        let reasons = classify::classify(
            self.classifier,
            &blocks,
            (page.html.len(), page_stats, linked.as_ref()),
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
                heuristic: self.classifier.heuristic(),
                meta,
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
