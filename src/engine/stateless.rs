//! [`Stateless`]: the pipeline for one page at a time without a state.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::links::LinkIndex;
use super::page::{Alone, PageContext};
use super::{keyer, Input, Outcome, Stats};
use crate::blocks::Tokenizer;
use crate::config::{Config, DomainCheck, OutputOptions};
use crate::tree::{classifier, Classifier, Heuristic, Retention, TemplateClusters};
use crate::urlkey::{RulesError, UrlKeyer};

/// The page pipeline without a state (DESIGN §6, one page): every page is classified as the
/// first page of its domain, the cold-start path, and nothing is learned, read or written.
///
/// Guarantees: a page's [`Outcome`] is the one an [`super::Engine`] over a fresh state gives it
/// (the same record, but for a `processed_at` taken from the wall clock); never
/// [`Outcome::Duplicate`]; the same page gives the same outcome however often it comes.
pub struct Stateless {
    keyer: UrlKeyer,
    tokenizer: Tokenizer,
    classifier: Box<dyn Classifier>,
    /// Never holds a page: a lone page links to none (`link-template` judges it alone).
    links: LinkIndex,
    max_record_bytes: usize,
    domain_check: DomainCheck,
    output: OutputOptions,
    stats: Stats,
}

impl Stateless {
    /// Builds the pipeline `config` describes (already validated); its `[state]` and
    /// `[retention]` are not used.
    pub fn new(config: &Config) -> Result<Stateless, RulesError> {
        let classifier = classifier(
            config.tree.heuristic,
            config.tree.rules,
            config.tree.prefs(),
        );
        let mut tokenizer = Tokenizer::with_capture(config.parse.clone(), config.output.capture());
        tokenizer.record_links(classifier.reads_links());
        Ok(Stateless {
            keyer: keyer(config)?,
            tokenizer,
            classifier,
            links: LinkIndex::default(),
            max_record_bytes: config.input.max_record_bytes,
            domain_check: config.input.domain_check,
            output: config.output.clone(),
            stats: Stats::default(),
        })
    }

    /// Totals since the pipeline was built.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The heuristic in use.
    pub fn heuristic(&self) -> Heuristic {
        self.classifier.heuristic()
    }

    /// The output options records are assembled with.
    pub fn output(&self) -> &OutputOptions {
        &self.output
    }

    /// Runs one raw-html record through the pipeline: its clean-text record, or the dead letter
    /// that says why it could not be processed.
    pub fn process(&mut self, input: &Input<'_>) -> Outcome {
        let started = OffsetDateTime::now_utc()
            .format(&Rfc3339)
            .unwrap_or_default();
        let mut changes = Vec::new();
        let mut ctx = PageContext {
            keyer: &self.keyer,
            tokenizer: &mut self.tokenizer,
            classifier: self.classifier.as_ref(),
            links: &mut self.links,
            retention: Retention::default(),
            // A page alone is in no cluster: its tree holds it alone.
            template_clusters: TemplateClusters::default(),
            max_record_bytes: self.max_record_bytes,
            domain_check: self.domain_check,
            output: &self.output,
            batch_started: &started,
            stats: &mut self.stats,
            changes: &mut changes,
        };
        match ctx.process(&mut Alone, input) {
            Ok(outcome) => outcome,
            Err(never) => match never {},
        }
    }
}
