//! [`Extractor`]: a stream of pages through the URL Tree, in the engine's batches, over a state
//! on disk or a temporary one.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::{Error, Extracted, Page};
use crate::config::Config;
use crate::engine::{Outcome, Stats};
use crate::local::{Item, ReadError, RecordSource};
use crate::record::Source;
use crate::shards::{self, RunError, Sharded};

/// Where an [`Extractor`] keeps the URL Tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateDir {
    /// A temporary directory, removed when the extractor is closed or dropped: the tree learns
    /// from the stream while it runs and is forgotten after.
    Temporary,
    /// A state directory kept between runs (created when missing), as `urltree extract --state`
    /// keeps it: a later extractor, or `urltree extract`, goes on learning from it.
    Path(PathBuf),
}

/// The URL Tree over a stream of pages: each page is classified against the pages of its site
/// before it (DESIGN §2), like `urltree extract` does.
///
/// Records go in with [`Extractor::push`] (or [`Extractor::extract_many`]) and are processed in
/// the engine's batches (`input.batch_size`, one atomic state commit each); their outcomes come
/// out in input order. A state written by `urltree extract --jobs N` is read with its N shards.
///
/// Guarantees: the outcomes equal `urltree extract`'s for the same records in the same order
/// over the same state, except a `processed_at` from the wall clock for pages without a time of
/// their own and `source`, which names the stream `-` and numbers its records from 1. A record's
/// state changes commit when its batch is processed, before its outcome is handed out: a caller
/// that stops taking outcomes part way leaves up to a batch per shard learned but not taken.
///
/// ```
/// use urltree::embed::{Extractor, StateDir};
/// use urltree::engine::Outcome;
///
/// let mut extractor = Extractor::open(&urltree::config::Config::default(), StateDir::Temporary)?;
/// let page = |n: u32| {
///     let html = format!(
///         "<html><body><nav><a href='/'>Home</a> <a href='/shop'>Shop</a></nav><article>\
///          <h1>Story {n}</h1><p>The body of story number {n}, told in words of its own.</p>\
///          </article><footer>© Example News, every page.</footer></body></html>"
///     );
///     serde_json::json!({"url": format!("https://news.example.com/a/{n}"), "html": html})
///         .to_string()
///         .into_bytes()
/// };
/// let outcomes: Vec<Outcome> = extractor
///     .extract_many((1..=3).map(page))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(outcomes.len(), 3);
/// assert!(matches!(&outcomes[2], Outcome::Clean(r) if r.text.contains("story number 3")));
/// extractor.close()?;
/// # Ok::<(), urltree::embed::Error>(())
/// ```
pub struct Extractor {
    shards: Option<Sharded>,
    ready: VecDeque<Outcome>,
    taken: u64,
    path: PathBuf,
    /// Removed when the extractor is dropped.
    temporary: Option<tempfile::TempDir>,
}

impl Extractor {
    /// Validates `config` and opens the state (`config.state.path` is replaced by `state`'s),
    /// with the shard count the state holds (one for a new state).
    pub fn open(config: &Config, state: StateDir) -> Result<Extractor, Error> {
        let mut config = config.clone();
        let temporary = match state {
            StateDir::Temporary => {
                let dir = tempfile::Builder::new()
                    .prefix("urltree-state-")
                    .tempdir()
                    .map_err(Error::TempDir)?;
                config.state.path = dir.path().to_owned();
                Some(dir)
            }
            StateDir::Path(path) => {
                config.state.path = path;
                None
            }
        };
        config.validate()?;
        let jobs = shards::resolve_jobs(&config.state.path, None, 1)?;
        let shards = Sharded::open(&config, jobs)?;
        Ok(Extractor {
            shards: Some(shards),
            ready: VecDeque::new(),
            taken: 0,
            path: config.state.path,
            temporary,
        })
    }

    /// The state directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Totals since the extractor was opened, as of the last batch processed.
    pub fn stats(&self) -> Stats {
        self.shards.as_ref().map(Sharded::stats).unwrap_or_default()
    }

    /// Takes one raw-html JSON record (DESIGN §5, one JSONL line), numbered in the stream `-`:
    /// a full batch is processed and its outcomes become ready ([`Extractor::pop`]).
    pub fn push(&mut self, record: Vec<u8>) -> Result<(), Error> {
        let source = Source::line("-", self.taken + 1);
        self.push_from(record, source)
    }

    /// [`Extractor::push`] with the record's own coordinates (a file's name and line).
    pub fn push_from(&mut self, record: Vec<u8>, source: Source) -> Result<(), Error> {
        let shards = self.shards.as_mut().ok_or(Error::Closed)?;
        self.taken += 1;
        let ready = &mut self.ready;
        shards
            .push(record, source, &mut |outcome| {
                ready.push_back(outcome);
                Ok::<(), std::convert::Infallible>(())
            })
            .map_err(shard_error)
    }

    /// Takes an outcome made without the engine (a reader's dead letter) in its place in input
    /// order.
    pub fn push_outcome(&mut self, outcome: Outcome) -> Result<(), Error> {
        let shards = self.shards.as_mut().ok_or(Error::Closed)?;
        self.taken += 1;
        let ready = &mut self.ready;
        shards
            .push_outcome(outcome, &mut |outcome| {
                ready.push_back(outcome);
                Ok::<(), std::convert::Infallible>(())
            })
            .map_err(shard_error)
    }

    /// Takes up to `max` items of a local input (JSONL, WARC, a directory, one HTML page; see
    /// [`crate::local::RecordSource`]) with their coordinates; returns `true` once the input
    /// has ended. A read error ends the input: the records before it are taken.
    pub fn push_input(&mut self, input: &mut RecordSource, max: usize) -> Result<bool, InputError> {
        for _ in 0..max {
            match input.next_item() {
                Ok(Some(Item::Record { bytes, source })) => self.push_from(bytes, source)?,
                Ok(Some(Item::DeadLetter(dead))) => {
                    self.push_outcome(Outcome::Rejected(Box::new(dead)))?
                }
                Ok(None) => return Ok(true),
                Err(e) => return Err(InputError::Read(e)),
            }
        }
        Ok(false)
    }

    /// Processes the records taken and not yet processed: every outcome is then ready.
    pub fn flush(&mut self) -> Result<(), Error> {
        let shards = self.shards.as_mut().ok_or(Error::Closed)?;
        let ready = &mut self.ready;
        shards
            .flush(&mut |outcome| {
                ready.push_back(outcome);
                Ok::<(), std::convert::Infallible>(())
            })
            .map_err(shard_error)
    }

    /// The next ready outcome, in input order.
    pub fn pop(&mut self) -> Option<Outcome> {
        self.ready.pop_front()
    }

    /// Outcomes ready to be taken.
    pub fn ready(&self) -> usize {
        self.ready.len()
    }

    /// One page through the tree, in a batch of its own: its record, `None` when its URL key is
    /// already held with the same content (a duplicate, never emitted twice), or
    /// [`Error::Rejected`] when it cannot be processed.
    pub fn extract(&mut self, page: &Page<'_>) -> Result<Option<Extracted>, Error> {
        self.flush()?;
        let earlier = self.ready.len();
        self.push(page.to_record())?;
        self.flush()?;
        match self.ready.remove(earlier) {
            Some(Outcome::Clean(record)) => Ok(Some(*record)),
            Some(Outcome::Rejected(dead)) => Err(Error::Rejected((*dead).into())),
            Some(Outcome::Duplicate { .. }) | None => Ok(None),
        }
    }

    /// The outcome of every record of `records` (raw-html JSON records), in input order,
    /// processed in the engine's batches as they are taken; the last partial batch when the
    /// records end. Outcomes ready before the call come first.
    pub fn extract_many<I>(&mut self, records: I) -> ExtractMany<'_, I::IntoIter>
    where
        I: IntoIterator<Item = Vec<u8>>,
    {
        ExtractMany {
            extractor: self,
            records: Some(records.into_iter()),
        }
    }

    /// Processes what is pending, closes the state and removes a temporary one. Returns the
    /// outcomes not yet taken.
    pub fn close(mut self) -> Result<Vec<Outcome>, Error> {
        self.finish()?;
        Ok(self.ready.drain(..).collect())
    }

    fn finish(&mut self) -> Result<(), Error> {
        let Some(shards) = self.shards.take() else {
            return Ok(());
        };
        let ready = &mut self.ready;
        shards
            .finish(&mut |outcome| {
                ready.push_back(outcome);
                Ok::<(), std::convert::Infallible>(())
            })
            .map_err(shard_error)?;
        if let Some(dir) = self.temporary.take() {
            dir.close().map_err(Error::TempDir)?;
        }
        Ok(())
    }
}

/// A local input could not be read to its end, or the extractor failed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The input could not be read further.
    #[error(transparent)]
    Read(ReadError),
    /// The extractor failed.
    #[error(transparent)]
    Extractor(#[from] Error),
}

fn shard_error(e: RunError<std::convert::Infallible>) -> Error {
    match e {
        RunError::Shard(e) => Error::State(e),
        RunError::Emit(never) => match never {},
    }
}

/// The outcomes of a stream of records, in input order ([`Extractor::extract_many`]).
pub struct ExtractMany<'e, I> {
    extractor: &'e mut Extractor,
    records: Option<I>,
}

impl<I: Iterator<Item = Vec<u8>>> Iterator for ExtractMany<'_, I> {
    type Item = Result<Outcome, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(outcome) = self.extractor.pop() {
                return Some(Ok(outcome));
            }
            let records = self.records.as_mut()?;
            let step = match records.next() {
                Some(record) => self.extractor.push(record),
                None => {
                    self.records = None;
                    self.extractor.flush()
                }
            };
            if let Err(e) = step {
                self.records = None;
                return Some(Err(e));
            }
        }
    }
}
