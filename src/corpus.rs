//! Gold-standard corpora (`docs.jsonl.gz`: raw-html records plus `gold`) and the two ways urltree
//! runs over them: [`evaluate`] scores every emitted page (DESIGN §8) and [`load`] reads a corpus
//! into memory for the benchmark.

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::bench::{process_cpu_seconds, thread_cpu_seconds};
use crate::config::{Config, DomainCheck};
use crate::engine::{Engine, EngineError, Input, Outcome};
use crate::eval::{score_page, EvalAccumulator, PageLabels, RunReport, Snippets};
use crate::local::{self, Line};
use crate::record::Source;
use crate::shards::{RunError, ShardError, Sharded};
use crate::state::StateError;
use crate::tree::kind::Kind;
use crate::tree::Heuristic;

/// A corpus could not be read or run.
#[derive(Debug, Error)]
pub enum CorpusError {
    /// Reading the file failed.
    #[error("reading corpus {path}: {source}")]
    Io {
        /// The corpus file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A line is not a corpus record (JSON with `domain` and `gold`).
    #[error("{path}:{line}: not a corpus record: {reason}")]
    BadRecord {
        /// The corpus file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// Why.
        reason: String,
    },
    /// The engine could not be opened.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The state failed while processing.
    #[error(transparent)]
    State(#[from] StateError),
    /// A shard failed or could not be opened.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The temporary state directory could not be created.
    #[error("creating a temporary state directory: {0}")]
    TempDir(io::Error),
}

/// One page of a corpus.
#[derive(Clone, Debug)]
pub struct CorpusPage {
    /// The raw-html record as it appears in the file.
    pub record: Vec<u8>,
    /// Its registrable domain per the corpus.
    pub domain: String,
    /// The gold-standard main text.
    pub gold: String,
    /// 1-based line in the file.
    pub line: u64,
    /// The page's type, when the corpus labels one (`page_type`: WCXB's article, forum,
    /// listing, collection, product, service, documentation).
    pub page_type: Option<String>,
    /// Phrases the main text must and must not contain (`with_snippets`, `without_snippets`).
    pub snippets: Snippets,
}

impl CorpusPage {
    /// The page's score of `text` as an extraction named `page_kind`, fed to `acc` with its
    /// type and checks.
    fn score_into(&self, acc: &mut EvalAccumulator, text: &str, page_kind: Option<Kind>) {
        let labels = PageLabels {
            page_type: self.page_type.as_deref(),
            snippets: (!self.snippets.is_empty()).then(|| self.snippets.check(text)),
            page_kind,
        };
        acc.push_labelled(&self.domain, &score_page(text, &self.gold), labels);
    }
}

#[derive(serde::Deserialize)]
struct GoldFields {
    domain: String,
    #[serde(default)]
    gold: Option<String>,
    #[serde(default)]
    page_type: Option<String>,
    #[serde(default)]
    with_snippets: Option<Vec<String>>,
    #[serde(default)]
    without_snippets: Option<Vec<String>>,
}

/// The twelve sets of the shared evaluation corpus, by folder name under its `corpus/` directory.
pub const SETS: [&str; 12] = [
    "crawl-to-the-future",
    "dragnet",
    "cleanportaleval",
    "cleaneval",
    "scrapinghub-aeb",
    "debdocs-python",
    "debdocs-postgresql",
    "debdocs-rust-books",
    "debdocs-rust-std",
    "debdocs-django",
    "debdocs-glib",
    "debdocs-octave",
];

/// The folder of the shared evaluation corpus: `$URLTREE_CORPUS_DIR`, else the first
/// `shared/corpus` found in the current directory or the crate's directory or their ancestors.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("URLTREE_CORPUS_DIR") {
        return Some(PathBuf::from(dir));
    }
    let starts = [
        std::env::current_dir().ok(),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
    ];
    starts.into_iter().flatten().find_map(|start| {
        start
            .ancestors()
            .map(|dir| dir.join("shared").join("corpus"))
            .find(|dir| dir.is_dir())
    })
}

/// The shared corpus folder, or a panic naming what to set (for tests and benchmarks).
pub fn require_shared_dir() -> PathBuf {
    shared_dir().unwrap_or_else(|| {
        panic!("evaluation corpus not found: put shared/corpus beside the checkout or set URLTREE_CORPUS_DIR")
    })
}

/// Resolves a corpus argument: a `docs.jsonl.gz` file, or a folder holding one.
pub fn corpus_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("docs.jsonl.gz")
    } else {
        path.to_owned()
    }
}

/// A corpus's display name: its folder name (or file stem).
pub fn corpus_name(path: &Path) -> String {
    let file = corpus_file(path);
    let named = if file.file_name().and_then(|n| n.to_str()) == Some("docs.jsonl.gz") {
        file.parent().and_then(|p| p.file_name())
    } else {
        file.file_stem()
    };
    named
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string())
}

/// The corpora a path names: itself when it is a corpus file or a folder holding
/// `docs.jsonl.gz`, else every sub-folder holding one (a folder of sets), sorted by name. A folder
/// with neither is an error naming it.
pub fn sets_in(path: &Path) -> io::Result<Vec<PathBuf>> {
    if !path.is_dir() || path.join("docs.jsonl.gz").is_file() {
        return Ok(vec![path.to_owned()]);
    }
    let mut sets = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let dir = entry?.path();
        if dir.join("docs.jsonl.gz").is_file() {
            sets.push(dir);
        }
    }
    if sets.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "no docs.jsonl.gz in the folder or in any folder inside it",
        ));
    }
    sets.sort();
    Ok(sets)
}

/// Streams the pages of a corpus in file order to `each`.
pub fn for_each_page(
    path: &Path,
    mut each: impl FnMut(CorpusPage) -> Result<(), CorpusError>,
) -> Result<(), CorpusError> {
    let file = corpus_file(path);
    let io_err = |source| CorpusError::Io {
        path: file.clone(),
        source,
    };
    let mut input = local::open_jsonl(&file, usize::MAX).map_err(io_err)?;
    while let Some(line) = input.lines.next_line().map_err(io_err)? {
        let (line, record) = match line {
            Line::Record { number, bytes } => (number, bytes),
            Line::TooLong { number, .. } => (number, Vec::new()),
        };
        let fields: GoldFields =
            serde_json::from_slice(&record).map_err(|e| CorpusError::BadRecord {
                path: file.clone(),
                line,
                reason: e.to_string(),
            })?;
        each(CorpusPage {
            record,
            domain: fields.domain,
            gold: fields.gold.unwrap_or_default(),
            line,
            page_type: fields.page_type,
            snippets: Snippets {
                with: fields.with_snippets.unwrap_or_default(),
                without: fields.without_snippets.unwrap_or_default(),
            },
        })?;
    }
    Ok(())
}

/// Reads a whole corpus into memory.
pub fn load(path: &Path) -> Result<Vec<CorpusPage>, CorpusError> {
    let mut pages = Vec::new();
    for_each_page(path, |page| {
        pages.push(page);
        Ok(())
    })?;
    Ok(pages)
}

/// The result of evaluating one heuristic on one corpus.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Evaluation {
    /// The scores, with the run's CPU time per kB of HTML.
    pub report: RunReport,
    /// Pages skipped as duplicates (not emitted, so not scored).
    pub duplicates: u64,
    /// Pages emitted as a new version of a URL key already held (scored like any other page).
    pub versions: u64,
    /// Pages rejected (scored as an empty extraction).
    pub rejected: u64,
}

/// Streams a corpus in file order through fresh state with `heuristic` and scores every emitted
/// page against its gold text. The corpus's `domain` field is trusted (DomainCheck::TrustRecord):
/// it names the collection site even where a page was served from another host.
pub fn evaluate(
    path: &Path,
    base: &Config,
    heuristic: Heuristic,
) -> Result<Evaluation, CorpusError> {
    evaluate_sharded(path, base, heuristic, 1)
}

/// [`evaluate`] over `jobs` shards ([`Sharded`]): each domain's pages go through one shard in
/// file order, so every page's score, and the report, are those of one engine.
pub fn evaluate_sharded(
    path: &Path,
    base: &Config,
    heuristic: Heuristic,
    jobs: usize,
) -> Result<Evaluation, CorpusError> {
    let state_dir = tempfile::tempdir().map_err(CorpusError::TempDir)?;
    let mut config = base.clone();
    config.state.path = state_dir.path().to_owned();
    config.tree.heuristic = heuristic;
    config.input.domain_check = DomainCheck::TrustRecord;
    if jobs > 1 {
        return evaluate_in_shards(path, &config, heuristic, jobs);
    }
    let mut engine = Engine::open(&config)?;
    let topic = corpus_file(path).display().to_string();
    let mut acc = Scorer::new();
    let mut batch: Vec<CorpusPage> = Vec::with_capacity(config.input.batch_size);
    let (mut duplicates, mut rejected) = (0, 0);
    let mut run = |batch: &mut Vec<CorpusPage>, engine: &mut Engine| -> Result<(), CorpusError> {
        let inputs: Vec<Input<'_>> = batch
            .iter()
            .map(|p| Input::new(&p.record, Source::line(&topic, p.line)))
            .collect();
        let outcomes = engine.process_batch(&inputs, None)?;
        for (page, outcome) in batch.iter().zip(outcomes) {
            match outcome {
                Outcome::Clean(record) => {
                    acc.push(page, &record.text, record.page_kind.map(|k| k.kind))
                }
                Outcome::Duplicate { .. } => duplicates += 1,
                Outcome::Rejected(_) => {
                    rejected += 1;
                    acc.push(page, "", None);
                }
            }
        }
        batch.clear();
        Ok(())
    };
    for_each_page(path, |page| {
        batch.push(page);
        if batch.len() >= config.input.batch_size {
            run(&mut batch, &mut engine)?;
        }
        Ok(())
    })?;
    run(&mut batch, &mut engine)?;
    Ok(Evaluation {
        report: acc.finish(&heuristic.to_string(), engine.stats().html_bytes),
        duplicates,
        versions: engine.stats().versions,
        rejected,
    })
}

/// The scores of a run's pages as they come back, and the CPU time the pipeline spends on them:
/// the process's CPU time since the scorer was made, less the time scoring took.
struct Scorer {
    acc: EvalAccumulator,
    cpu_start: f64,
    scoring: f64,
}

impl Scorer {
    fn new() -> Scorer {
        Scorer {
            acc: EvalAccumulator::new(),
            cpu_start: process_cpu_seconds(),
            scoring: 0.0,
        }
    }

    /// Scores the next page of the stream: its `text` against its gold, with its labels and the
    /// kind the run named it.
    fn push(&mut self, page: &CorpusPage, text: &str, page_kind: Option<Kind>) {
        let started = thread_cpu_seconds();
        page.score_into(&mut self.acc, text, page_kind);
        self.scoring += thread_cpu_seconds() - started;
    }

    /// The report labelled `label`, timed over `html_bytes` of HTML.
    fn finish(self, label: &str, html_bytes: u64) -> RunReport {
        let pipeline = (process_cpu_seconds() - self.cpu_start - self.scoring).max(0.0);
        let mut report = self.acc.finish(label);
        report.cpu_ms_per_kb =
            (html_bytes > 0).then(|| pipeline * 1000.0 / (html_bytes as f64 / 1000.0));
        report
    }
}

/// The pages of a corpus through `jobs` shards over the fresh state of `config`, scored in file
/// order as their outcomes come back.
fn evaluate_in_shards(
    path: &Path,
    config: &Config,
    heuristic: Heuristic,
    jobs: usize,
) -> Result<Evaluation, CorpusError> {
    let mut shards = Sharded::open(config, jobs)?;
    let topic = corpus_file(path).display().to_string();
    let mut acc = Scorer::new();
    // Every page whose outcome has not come back (its record moved out), in file order.
    let mut waiting: std::collections::VecDeque<CorpusPage> = Default::default();
    let (mut duplicates, mut rejected) = (0, 0);
    let mut score = |waiting: &mut std::collections::VecDeque<CorpusPage>,
                     outcome: Outcome|
     -> Result<(), std::convert::Infallible> {
        let Some(page) = waiting.pop_front() else {
            return Ok(());
        };
        match outcome {
            Outcome::Clean(record) => {
                acc.push(&page, &record.text, record.page_kind.map(|k| k.kind))
            }
            Outcome::Duplicate { .. } => duplicates += 1,
            Outcome::Rejected(_) => {
                rejected += 1;
                acc.push(&page, "", None);
            }
        }
        Ok(())
    };
    let shard_error = |e: RunError<std::convert::Infallible>| match e {
        RunError::Shard(e) => CorpusError::Shard(e),
        RunError::Emit(never) => match never {},
    };
    for_each_page(path, |mut page| {
        let record = std::mem::take(&mut page.record);
        let source = Source::line(&topic, page.line);
        waiting.push_back(page);
        shards
            .push(record, source, &mut |outcome| score(&mut waiting, outcome))
            .map_err(shard_error)
    })?;
    let stats = shards
        .finish(&mut |outcome| score(&mut waiting, outcome))
        .map_err(shard_error)?;
    Ok(Evaluation {
        report: acc.finish(&heuristic.to_string(), stats.html_bytes),
        duplicates,
        versions: stats.versions,
        rejected,
    })
}
