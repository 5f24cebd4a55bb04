//! One record through the pipeline's stages, in order: decode → key → dedup → blocks → learn →
//! look up → classify → assemble. Each stage is a function of its own module; this one only
//! wires them and keeps the counts.

use super::admit::{self, Rejection};
use super::assemble::{self, Classified};
use super::{classify, learn, lookup, Change, Input, Outcome, Stats};
use crate::blocks::Tokenizer;
use crate::config::{DomainCheck, OutputOptions};
use crate::record::DeadLetter;
use crate::state::{StateError, Txn};
use crate::tree::{Classifier, Retention};
use crate::urlkey::UrlKeyer;

/// The engine's parts one batch works with.
pub(super) struct PageContext<'e> {
    pub keyer: &'e UrlKeyer,
    pub tokenizer: &'e mut Tokenizer,
    pub classifier: &'e dyn Classifier,
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
        let page = match admit::decode(input.bytes, self.max_record_bytes) {
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
        let time_ms = learn::event_time_ms(&page, input.timestamp_ms);
        let learned = learn::fingerprint(&key, &branch, &blocks, time_ms);
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
        let evidence = lookup::look_up(txn, self.classifier, &branch, &blocks, &learned)?;
        let reasons = classify::classify(self.classifier, &blocks, &evidence);
        self.stats.html_bytes += page.html.len() as u64;
        let (record, tally) = assemble::record(
            Classified {
                page,
                key,
                branch: &branch,
                blocks: &blocks,
                evidence: &evidence,
                reasons: &reasons,
                heuristic: self.classifier.heuristic(),
            },
            &input.source,
            input.timestamp_ms,
            self.batch_started,
            self.output.blocks,
        );
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
