//! [`Sharded`]: records in, in input order; outcomes out, in input order.
//!
//! With one shard the engine runs on the caller's thread, batch by batch, exactly as a single
//! engine does. With N shards every shard's engine runs on a thread of its own:
//!
//! - the caller's thread reads each record's domain ([`super::route`]), looks up its shard
//!   ([`super::DomainMap`]), numbers it, and adds it to the shard's pending batch; a full batch
//!   (`input.batch_size`) goes to the shard over a channel of one batch, so a busy shard holds
//!   the caller back;
//! - a shard processes its batches in order and sends back their outcomes;
//! - the reorder buffer holds outcomes until every earlier one has come, then hands them to the
//!   caller's `emit` in input order. The records between the oldest not yet emitted and the
//!   newest read are bounded ([`Sharded::max_in_flight`]): past the bound, partial batches are
//!   sent and the caller waits for outcomes, so a slow shard or a rare domain cannot make the
//!   buffer grow without limit.
//!
//! With delivery on ([`Sharded::open_delivering`], what `urltree extract` runs), every batch also
//! commits its outcomes' lines in its shard's outbox, with the newest mark the caller set
//! ([`Sharded::set_mark`]), and a resumed run replays the outbox instead of processing those
//! records again (see [`super::outbox`]).
//!
//! A domain's pages reach its shard in input order and in batches of no other domain's making
//! that matter (a page is classified against the pages before it, whatever the batches), so every
//! outcome equals one engine's, except a `processed_at` taken from the wall clock for records
//! that carry no time of their own.

use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::layout::{domain_map_path, shard_dir};
use super::outbox::{decode_batch, Entry, InputDigest, Line, Mark, MarkUpdate, ShardOutbox};
use super::{route, DomainMap, RunError, ShardError};
use crate::config::Config;
use crate::engine::{Engine, Input, Outcome, Stats};
use crate::record::Source;
use crate::state::StateError;
use crate::urlkey::UrlKeyer;

/// What became of one record, handed to the caller in input order.
#[derive(Debug)]
pub struct Emitted {
    /// The record's number in input order, from 0.
    pub seq: u64,
    /// The engine's outcome; `None` for a record whose outcome an interrupted run committed and
    /// this one replays from the outbox.
    pub outcome: Option<Outcome>,
    /// The line the outcome writes (with delivery on; none for a duplicate).
    pub line: Option<Line>,
}

/// What the states of an interrupted run hold for the next one (see [`super::outbox`]).
#[derive(Debug, Default)]
pub struct Recovered {
    /// The marks the shards stored (those that decode), one per shard at most.
    pub marks: Vec<Mark>,
    /// Marks that did not decode.
    pub corrupt_marks: usize,
    /// The committed outcomes not yet known to be in the files, by run and input sequence, with
    /// the check of the input record each came from.
    pub outbox: BTreeMap<(u64, u64), (u64, Option<Line>)>,
}

impl Recovered {
    /// The newest mark (of the newest run), if any shard stored one.
    pub fn newest(&self) -> Option<&Mark> {
        self.marks
            .iter()
            .max_by_key(|m| (m.run, m.next_seq, m.complete))
    }

    /// The newest mark when its run did not complete: a run to resume.
    pub fn interrupted(&self) -> Option<&Mark> {
        self.newest().filter(|m| !m.complete)
    }
}

/// Outcomes to replay by input sequence, each with the check of its input record.
type Replay = BTreeMap<u64, (u64, Option<Line>)>;

/// The newest mark the caller set, read by every commit.
type Latest = Arc<Mutex<Option<Arc<MarkUpdate>>>>;

/// Sets the newest mark of a [`Sharded`] from wherever the files are written (see
/// [`Sharded::set_mark`]).
#[derive(Clone)]
pub struct MarkHandle(Latest);

impl MarkHandle {
    /// Records that the output files hold every outcome before `mark.next_seq`.
    pub fn set(&self, mark: &Mark) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(MarkUpdate::of(mark)));
    }
}

/// Outcomes a shard's batch sends back, with the shard's totals after it.
struct Done {
    shard: usize,
    outcomes: Vec<Emitted>,
    stats: Stats,
}

/// What a shard's thread is sent.
enum Msg {
    /// A batch to process, with the newest mark.
    Batch(Batch, Option<Arc<MarkUpdate>>),
    /// The last commit of a run: the final mark.
    Close(Arc<MarkUpdate>),
}

/// A shard's state failed on the batch starting with `first`.
struct Failed {
    shard: usize,
    first: u64,
    error: StateError,
}

/// Numbered records on their way to one shard.
type Batch = Vec<(u64, Vec<u8>, Source)>;

/// N engines over disjoint sets of domains, fed in input order, emitting in input order.
pub struct Sharded {
    mode: Mode,
    /// The newest mark (delivery on).
    latest: Latest,
    /// What the states held when they were opened (delivery on).
    recovered: Recovered,
}

enum Mode {
    Inline(Box<Inline>),
    Threads(Box<Pool>),
}

/// One engine on the caller's thread.
struct Inline {
    engine: Engine,
    pending: Batch,
    batch_size: usize,
    /// Sequence of the next record taken.
    next_seq: u64,
    outbox: Option<ShardOutbox>,
    replay: Replay,
    latest: Latest,
}

/// N engines on their threads.
struct Pool {
    keyer: UrlKeyer,
    max_record_bytes: usize,
    batch_size: usize,
    max_in_flight: u64,
    domains: DomainMap,
    senders: Vec<Option<SyncSender<Msg>>>,
    threads: Vec<Option<JoinHandle<()>>>,
    results: Receiver<Result<Done, Failed>>,
    pending: Vec<Batch>,
    /// Batches sent to each shard whose outcomes have not come back.
    busy: Vec<u32>,
    stats: Vec<Stats>,
    /// Outcomes from `next_emit` on; `None` until it has come back.
    reorder: VecDeque<Option<Emitted>>,
    next_seq: u64,
    next_emit: u64,
    /// The earliest failed batch: nothing from its first record on is emitted.
    failed: Option<Failed>,
    replay: Replay,
    latest: Latest,
    /// The shards hold outboxes.
    delivery: bool,
}

impl Sharded {
    /// Opens `shards` engines over the state at `config.state.path` (its layout decided by the
    /// caller with [`super::resolve_jobs`]): one engine on the caller's thread when `shards` is
    /// 1, else one thread per shard, each with its share of the block cache.
    pub fn open(config: &Config, shards: usize) -> Result<Sharded, ShardError> {
        Sharded::open_with(config, shards, false)
    }

    /// [`Sharded::open`] with delivery on: every batch commits its outcomes' lines in its
    /// shard's outbox, and what an interrupted run left is read first ([`Sharded::recovered`]).
    /// With several shards every commit is synced (a mark in one shard's state covers the
    /// batches of the others).
    pub fn open_delivering(config: &Config, shards: usize) -> Result<Sharded, ShardError> {
        Sharded::open_with(config, shards, true)
    }

    fn open_with(config: &Config, shards: usize, delivery: bool) -> Result<Sharded, ShardError> {
        let shards = shards.max(1);
        let state = config.state.path.clone();
        let latest: Latest = Arc::default();
        let mut recovered = Recovered::default();
        let mut open = |shard: usize, config: &Config| {
            let wrap = |source: crate::engine::EngineError| ShardError::Open {
                shard,
                path: config.state.path.clone(),
                source,
            };
            let engine = Engine::open(config).map_err(wrap)?;
            let outbox = if delivery {
                Some(recover(&engine, &mut recovered).map_err(|e| wrap(e.into()))?)
            } else {
                None
            };
            Ok::<_, ShardError>((engine, outbox))
        };
        if shards == 1 {
            let (engine, outbox) = open(0, config)?;
            return Ok(Sharded {
                mode: Mode::Inline(Box::new(Inline {
                    engine,
                    pending: Vec::with_capacity(config.input.batch_size),
                    batch_size: config.input.batch_size,
                    next_seq: 0,
                    outbox,
                    replay: BTreeMap::new(),
                    latest: Arc::clone(&latest),
                })),
                latest,
                recovered,
            });
        }
        let keyer = crate::engine::keyer(config).map_err(|e| ShardError::Open {
            shard: 0,
            path: config.rules.file.clone().unwrap_or_default(),
            source: e.into(),
        })?;
        let (result_tx, results) = mpsc::channel();
        let mut senders = Vec::with_capacity(shards);
        let mut threads = Vec::with_capacity(shards);
        for shard in 0..shards {
            let mut shard_config = config.clone();
            shard_config.state.path = shard_dir(&state, shard, shards);
            shard_config.state.block_cache_bytes =
                (config.state.block_cache_bytes / shards).max(1 << 20);
            shard_config.state.hot_counters_bytes =
                (config.state.hot_counters_bytes / shards).max(1 << 20);
            // 0 switches the journal off; any other bound stays on in every shard.
            shard_config.state.journal_counters = match config.state.journal_counters {
                0 => 0,
                n => (n / shards).max(1),
            };
            shard_config.state.sync |= delivery;
            let (engine, outbox) = open(shard, &shard_config)?;
            let (tx, rx) = mpsc::sync_channel::<Msg>(1);
            let result_tx = result_tx.clone();
            let thread = std::thread::Builder::new()
                .name(format!("shard-{shard}"))
                .spawn(move || serve(shard, engine, outbox, rx, result_tx))
                .map_err(|source| ShardError::Spawn { shard, source })?;
            senders.push(Some(tx));
            threads.push(Some(thread));
        }
        let domains = DomainMap::open(&domain_map_path(&state), shards)?;
        let batch_size = config.input.batch_size;
        Ok(Sharded {
            mode: Mode::Threads(Box::new(Pool {
                keyer,
                max_record_bytes: config.input.max_record_bytes,
                batch_size,
                max_in_flight: Sharded::max_in_flight(shards, batch_size),
                domains,
                senders,
                threads,
                results,
                pending: vec![Vec::new(); shards],
                busy: vec![0; shards],
                stats: vec![Stats::default(); shards],
                reorder: VecDeque::new(),
                next_seq: 0,
                next_emit: 0,
                failed: None,
                replay: BTreeMap::new(),
                latest: Arc::clone(&latest),
                delivery,
            })),
            latest,
            recovered,
        })
    }

    /// What the states held when they were opened with delivery on: the marks and outboxes an
    /// earlier run left.
    pub fn recovered(&self) -> &Recovered {
        &self.recovered
    }

    /// Resumes after `mark` (delivery on, before the first record): the next record taken is
    /// the one numbered `mark.next_seq`, the outbox's outcomes from there on are replayed instead
    /// of processed, and the mark is stored again with the next commits (which delete the
    /// entries before it).
    pub fn resume(&mut self, mark: &Mark) {
        let replay: Replay = std::mem::take(&mut self.recovered.outbox)
            .into_iter()
            .filter(|((run, seq), _)| *run == mark.run && *seq >= mark.next_seq)
            .map(|((_, seq), entry)| (seq, entry))
            .collect();
        match &mut self.mode {
            Mode::Inline(inline) => {
                inline.next_seq = mark.next_seq;
                inline.replay = replay;
            }
            Mode::Threads(pool) => {
                pool.next_seq = mark.next_seq;
                pool.next_emit = mark.next_seq;
                pool.replay = replay;
            }
        }
        self.set_mark(mark);
    }

    /// Records that the output files hold every outcome before `mark.next_seq`: the next commit
    /// of every shard stores it and deletes the outbox entries it covers.
    pub fn set_mark(&mut self, mark: &Mark) {
        self.mark_handle().set(mark);
    }

    /// A handle that sets the newest mark while records are pushed.
    pub fn mark_handle(&self) -> MarkHandle {
        MarkHandle(Arc::clone(&self.latest))
    }

    /// The most records between the oldest not yet emitted and the newest pushed, with `shards`
    /// shards of batches of `batch_size`: three batches per shard (one pending, one in its
    /// channel, one being processed).
    pub fn max_in_flight(shards: usize, batch_size: usize) -> u64 {
        (3 * shards * batch_size.max(1)) as u64
    }

    /// Shards in use.
    pub fn shards(&self) -> usize {
        match &self.mode {
            Mode::Inline(_) => 1,
            Mode::Threads(pool) => pool.senders.len(),
        }
    }

    /// Totals over the shards, as of the last outcomes received.
    pub fn stats(&self) -> Stats {
        match &self.mode {
            Mode::Inline(inline) => inline.engine.stats(),
            Mode::Threads(pool) => pool.stats.iter().fold(Stats::default(), |mut sum, s| {
                sum.add(s);
                sum
            }),
        }
    }

    /// Takes the next record in input order; hands every outcome that is ready, in input order,
    /// to `emit`. On a shard's failure, every outcome before the failed batch is emitted first.
    pub fn push<E>(
        &mut self,
        bytes: Vec<u8>,
        source: Source,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.push_record(bytes, source, &mut outcomes_only(emit))
    }

    /// [`Sharded::push`] handing over each record's [`Emitted`]: its number and line too, and
    /// the records replayed from an outbox.
    pub fn push_record<E>(
        &mut self,
        bytes: Vec<u8>,
        source: Source,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match &mut self.mode {
            Mode::Inline(inline) => inline.push(bytes, source, emit),
            Mode::Threads(pool) => pool.push(bytes, source, emit),
        }
    }

    /// Takes an outcome made without an engine (a line the reader could not take) in its place
    /// in input order.
    pub fn push_outcome<E>(
        &mut self,
        outcome: Outcome,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.push_made(outcome, &mut outcomes_only(emit))
    }

    /// [`Sharded::push_outcome`] handing over [`Emitted`]s.
    pub fn push_made<E>(
        &mut self,
        outcome: Outcome,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let delivery = self.delivery();
        match &mut self.mode {
            Mode::Inline(inline) => {
                inline.flush(emit)?;
                let seq = inline.next_seq;
                inline.next_seq += 1;
                emit(made(seq, outcome, delivery)).map_err(RunError::Emit)
            }
            Mode::Threads(pool) => {
                let seq = pool.next_seq;
                pool.next_seq += 1;
                pool.reorder.push_back(Some(made(seq, outcome, delivery)));
                pool.receive_ready(emit)?;
                pool.bound(emit)
            }
        }
    }

    fn delivery(&self) -> bool {
        match &self.mode {
            Mode::Inline(inline) => inline.outbox.is_some(),
            Mode::Threads(pool) => pool.delivery,
        }
    }

    /// Processes what is pending and emits every outcome left; returns the totals.
    pub fn finish<E>(
        mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<Stats, RunError<E>> {
        self.drain(&mut outcomes_only(emit))?;
        let stats = self.stats();
        self.close(None)?;
        Ok(stats)
    }

    /// Processes what is pending and emits every outcome left (delivery: then
    /// [`Sharded::close`] with the final mark).
    pub fn drain<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match &mut self.mode {
            Mode::Inline(inline) => inline.flush(emit),
            Mode::Threads(pool) => pool.drain(emit),
        }
    }

    /// Processes what is pending and emits every outcome left, keeping the shards open for more
    /// records.
    pub fn flush<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.drain(&mut outcomes_only(emit))
    }

    /// Ends the run: with delivery on and a `last` mark, every shard commits it (a complete mark
    /// deletes the whole outbox); then the shards' threads end.
    pub fn close(mut self, last: Option<&Mark>) -> Result<(), ShardError> {
        let last = last.map(|m| Arc::new(MarkUpdate::of(m)));
        match &mut self.mode {
            Mode::Inline(inline) => match (&mut inline.outbox, last) {
                (Some(outbox), Some(mark)) => close_outbox(&mut inline.engine, outbox, &mark)
                    .map_err(|source| ShardError::State {
                        shard: 0,
                        record: mark.next_seq,
                        source,
                    }),
                _ => Ok(()),
            },
            Mode::Threads(pool) => pool.close_with(last),
        }
    }
}

/// Wraps an `emit` of outcomes as one of [`Emitted`]s (replayed records have no outcome to hand).
fn outcomes_only<E>(
    emit: &mut impl FnMut(Outcome) -> Result<(), E>,
) -> impl FnMut(Emitted) -> Result<(), E> + '_ {
    move |emitted: Emitted| match emitted.outcome {
        Some(outcome) => emit(outcome),
        None => Ok(()),
    }
}

/// An outcome made without an engine, with its line when delivery is on.
fn made(seq: u64, outcome: Outcome, delivery: bool) -> Emitted {
    let line = if delivery { Line::of(&outcome) } else { None };
    Emitted {
        seq,
        outcome: Some(outcome),
        line,
    }
}

/// Reads the mark and outbox an earlier run left in `engine`'s state into `recovered`; returns
/// the shard's side of the delivery.
fn recover(engine: &Engine, recovered: &mut Recovered) -> Result<ShardOutbox, StateError> {
    let store = engine.store();
    if let Some(bytes) = store.delivery_mark()? {
        match Mark::decode(&bytes) {
            Some(mark) => recovered.marks.push(mark),
            None => recovered.corrupt_marks += 1,
        }
    }
    let mut held = Vec::new();
    for (run, first, bytes) in store.outbox()? {
        let entries = decode_batch(&bytes).ok_or_else(|| StateError::Corrupt {
            cf: "progress",
            detail: format!("the outbox entry of input record {first} does not decode"),
        })?;
        let last = entries.last().map_or(first, |(seq, _, _)| *seq);
        held.push((run, first, last));
        recovered.outbox.extend(
            entries
                .into_iter()
                .map(|(seq, check, line)| ((run, seq), (check, line))),
        );
    }
    Ok(ShardOutbox::holding(held.into_iter()))
}

/// Processes one batch of numbered records and commits it (with delivery: its outbox entry and
/// `mark`, see [`ShardOutbox::writes`]).
fn process(
    engine: &mut Engine,
    outbox: Option<&mut ShardOutbox>,
    records: &Batch,
    mark: Option<&MarkUpdate>,
) -> Result<Vec<Emitted>, StateError> {
    let inputs: Vec<Input<'_>> = records
        .iter()
        .map(|(_, bytes, source)| Input::new(bytes, source.clone()))
        .collect();
    let seqs = records.iter().map(|(seq, _, _)| *seq);
    let Some(outbox) = outbox else {
        let outcomes = engine.process_batch(&inputs, None)?;
        return Ok(seqs
            .zip(outcomes)
            .map(|(seq, outcome)| Emitted {
                seq,
                outcome: Some(outcome),
                line: None,
            })
            .collect());
    };
    let mut lines: Vec<Option<Line>> = Vec::new();
    let outcomes = engine.process_batch_delivering(&inputs, |outcomes| {
        lines = outcomes.iter().map(Line::of).collect();
        outbox.writes(Some(&numbered(records, &lines)), mark)
    })?;
    outbox.committed(Some(&numbered(records, &lines)), mark);
    Ok(seqs
        .zip(outcomes)
        .zip(lines)
        .map(|((seq, outcome), line)| Emitted {
            seq,
            outcome: Some(outcome),
            line,
        })
        .collect())
}

/// A batch's records' sequences and checks with their lines.
fn numbered<'a>(records: &Batch, lines: &'a [Option<Line>]) -> Vec<Entry<'a>> {
    records
        .iter()
        .zip(lines)
        .map(|((seq, bytes, source), line)| {
            (
                *seq,
                InputDigest::of_record(bytes, &source.topic),
                line.as_ref(),
            )
        })
        .collect()
}

/// The outcome to replay for record `seq` (`bytes` from `source`), if the replay holds one;
/// an error when it holds one of another input record.
fn replayed<E>(
    replay: &mut Replay,
    seq: u64,
    bytes: &[u8],
    source: &Source,
) -> Result<Option<Emitted>, RunError<E>> {
    let Some((check, line)) = replay.remove(&seq) else {
        return Ok(None);
    };
    if check != InputDigest::of_record(bytes, &source.topic) {
        return Err(ShardError::InputChanged { record: seq }.into());
    }
    Ok(Some(Emitted {
        seq,
        outcome: None,
        line,
    }))
}

/// Commits a run's last mark in a shard's state.
fn close_outbox(
    engine: &mut Engine,
    outbox: &mut ShardOutbox,
    mark: &MarkUpdate,
) -> Result<(), StateError> {
    let writes = outbox.writes(None, Some(mark));
    if writes.is_empty() {
        return Ok(());
    }
    engine.process_batch_delivering(&[], |_| writes)?;
    outbox.committed(None, Some(mark));
    Ok(())
}

impl Inline {
    fn push<E>(
        &mut self,
        bytes: Vec<u8>,
        source: Source,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(emitted) = replayed(&mut self.replay, seq, &bytes, &source)? {
            self.flush(emit)?;
            return emit(emitted).map_err(RunError::Emit);
        }
        self.pending.push((seq, bytes, source));
        if self.pending.len() >= self.batch_size {
            self.flush(emit)?;
        }
        Ok(())
    }

    fn flush<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let Some(first) = self.pending.first().map(|(seq, _, _)| *seq) else {
            return Ok(());
        };
        let mark = self
            .latest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let emitted = process(
            &mut self.engine,
            self.outbox.as_mut(),
            &self.pending,
            mark.as_deref(),
        )
        .map_err(|source| ShardError::State {
            shard: 0,
            record: first,
            source,
        })?;
        self.pending.clear();
        for emitted in emitted {
            emit(emitted).map_err(RunError::Emit)?;
        }
        Ok(())
    }
}

/// A shard's thread: its batches in order, until its channel closes or its state fails.
fn serve(
    shard: usize,
    mut engine: Engine,
    mut outbox: Option<ShardOutbox>,
    messages: Receiver<Msg>,
    results: mpsc::Sender<Result<Done, Failed>>,
) {
    for message in messages {
        let (first, result) = match message {
            Msg::Batch(batch, mark) => {
                let first = batch.first().map_or(0, |(seq, _, _)| *seq);
                let result = process(&mut engine, outbox.as_mut(), &batch, mark.as_deref());
                (first, result)
            }
            Msg::Close(mark) => {
                let result = match outbox.as_mut() {
                    Some(outbox) => close_outbox(&mut engine, outbox, &mark).map(|()| Vec::new()),
                    None => Ok(Vec::new()),
                };
                (mark.next_seq, result)
            }
        };
        let result = match result {
            Ok(outcomes) => Ok(Done {
                shard,
                outcomes,
                stats: engine.stats(),
            }),
            Err(error) => Err(Failed {
                shard,
                first,
                error,
            }),
        };
        let stop = result.is_err();
        if results.send(result).is_err() || stop {
            return;
        }
    }
}

impl Pool {
    fn push<E>(
        &mut self,
        bytes: Vec<u8>,
        source: Source,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.receive_ready(emit)?;
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(emitted) = replayed(&mut self.replay, seq, &bytes, &source)? {
            self.reorder.push_back(Some(emitted));
            self.receive_ready(emit)?;
            return self.bound(emit);
        }
        let shard = match route::record_domain(&bytes, &self.keyer, self.max_record_bytes) {
            Some(domain) => self.domains.shard(&domain)?,
            // The engine rejects it wherever it goes.
            None => 0,
        };
        self.reorder.push_back(None);
        self.pending[shard].push((seq, bytes, source));
        // A full batch goes; so does an eighth of one to a shard with nothing to do, so that no
        // shard waits idle for a batch to fill (the outcomes do not depend on the batches).
        let len = self.pending[shard].len();
        if len >= self.batch_size || (self.busy[shard] == 0 && len >= self.batch_size.div_ceil(8)) {
            self.dispatch(shard)?;
        }
        self.bound(emit)
    }

    /// Holds the caller back while more than `max_in_flight` records are not yet emitted.
    fn bound<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        while self.next_seq - self.next_emit > self.max_in_flight {
            self.dispatch_all()?;
            self.receive_one(emit)?;
        }
        Ok(())
    }

    fn latest(&self) -> Option<Arc<MarkUpdate>> {
        self.latest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sends the shard's pending batch (the domain map first reaches the file).
    fn dispatch(&mut self, shard: usize) -> Result<(), ShardError> {
        if self.pending[shard].is_empty() {
            return Ok(());
        }
        self.domains.sync()?;
        let batch = std::mem::take(&mut self.pending[shard]);
        let mark = self.latest();
        let sent = match &self.senders[shard] {
            Some(sender) => sender.send(Msg::Batch(batch, mark)).is_ok(),
            None => false,
        };
        self.busy[shard] += 1;
        if !sent {
            // The shard stopped: its failure is on the way, or it is lost.
            self.senders[shard] = None;
            self.await_failure(shard)?;
        }
        Ok(())
    }

    fn dispatch_all(&mut self) -> Result<(), ShardError> {
        for shard in 0..self.pending.len() {
            if self.failed.is_none() {
                self.dispatch(shard)?;
            }
        }
        Ok(())
    }

    /// Waits until a stopped shard's failure has been received.
    fn await_failure(&mut self, shard: usize) -> Result<(), ShardError> {
        while self.failed.is_none() {
            match self.results.recv() {
                Ok(result) => self.accept(result),
                Err(_) => return Err(ShardError::Lost { shard }),
            }
        }
        Ok(())
    }

    /// Takes what has come back without waiting and emits what is ready.
    fn receive_ready<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        while let Ok(result) = self.results.try_recv() {
            self.accept(result);
        }
        self.emit_ready(emit)?;
        self.check_failure(emit)
    }

    /// Waits for one batch's outcomes (or failure) and emits what is ready.
    fn receive_one<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match self.results.recv() {
            Ok(result) => self.accept(result),
            Err(_) => return Err(ShardError::Lost { shard: 0 }.into()),
        }
        self.emit_ready(emit)?;
        self.check_failure(emit)
    }

    fn accept(&mut self, result: Result<Done, Failed>) {
        match result {
            Ok(done) => {
                self.busy[done.shard] = self.busy[done.shard].saturating_sub(1);
                self.stats[done.shard] = done.stats;
                for emitted in done.outcomes {
                    let index = emitted.seq.wrapping_sub(self.next_emit) as usize;
                    if let Some(slot) = self.reorder.get_mut(index) {
                        *slot = Some(emitted);
                    }
                }
            }
            Err(failed) => {
                self.senders[failed.shard] = None;
                if self.failed.as_ref().is_none_or(|f| failed.first < f.first) {
                    self.failed = Some(failed);
                }
            }
        }
    }

    /// Emits the outcomes that are ready, in input order, up to a failed batch.
    fn emit_ready<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        loop {
            let stop = self.failed.as_ref().map_or(u64::MAX, |f| f.first);
            if self.next_emit >= stop {
                return Ok(());
            }
            match self.reorder.front_mut().and_then(Option::take) {
                Some(emitted) => {
                    self.reorder.pop_front();
                    self.next_emit += 1;
                    emit(emitted).map_err(RunError::Emit)?;
                }
                None => return Ok(()),
            }
        }
    }

    /// After a failure: emits every outcome before the failed batch (sending what is pending
    /// before it and waiting for it), then returns the failure.
    fn check_failure<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let Some(first) = self.failed.as_ref().map(|f| f.first) else {
            return Ok(());
        };
        self.dispatch_all_after_failure()?;
        let mut first = first;
        while self.next_emit < first {
            match self.results.recv() {
                Ok(result) => self.accept(result),
                Err(_) => break,
            }
            self.emit_ready(emit)?;
            first = self.failed.as_ref().map_or(first, |f| f.first);
        }
        Err(self.take_failure().into())
    }

    /// After a failure, sends the pending batches of the shards still running that hold records
    /// before it.
    fn dispatch_all_after_failure(&mut self) -> Result<(), ShardError> {
        let first = self.failed.as_ref().map_or(u64::MAX, |f| f.first);
        for shard in 0..self.pending.len() {
            let before = self.pending[shard]
                .first()
                .is_some_and(|(seq, _, _)| *seq < first);
            if before {
                let mark = self.latest();
                if let Some(sender) = &self.senders[shard] {
                    let batch = std::mem::take(&mut self.pending[shard]);
                    if sender.send(Msg::Batch(batch, mark)).is_err() {
                        return Err(ShardError::Lost { shard });
                    }
                }
            }
        }
        Ok(())
    }

    fn take_failure(&mut self) -> ShardError {
        self.close();
        match self.failed.take() {
            Some(failed) => ShardError::State {
                shard: failed.shard,
                record: failed.first,
                source: failed.error,
            },
            None => ShardError::Lost { shard: 0 },
        }
    }

    fn drain<E>(
        &mut self,
        emit: &mut impl FnMut(Emitted) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.dispatch_all()?;
        self.receive_ready(emit)?;
        while self.next_emit < self.next_seq {
            self.receive_one(emit)?;
        }
        Ok(())
    }

    /// Sends every shard the last mark (when given) and waits for their commits, then ends the
    /// threads.
    fn close_with(&mut self, last: Option<Arc<MarkUpdate>>) -> Result<(), ShardError> {
        let mut waiting = 0;
        if let Some(mark) = last.filter(|_| self.delivery) {
            for sender in self.senders.iter().flatten() {
                if sender.send(Msg::Close(Arc::clone(&mark))).is_ok() {
                    waiting += 1;
                }
            }
        }
        let mut failure = None;
        while waiting > 0 {
            match self.results.recv() {
                Ok(Ok(_)) => waiting -= 1,
                Ok(Err(failed)) => {
                    waiting -= 1;
                    failure.get_or_insert(ShardError::State {
                        shard: failed.shard,
                        record: failed.first,
                        source: failed.error,
                    });
                }
                Err(_) => break,
            }
        }
        self.close();
        for (shard, thread) in self.threads.iter_mut().enumerate() {
            if let Some(thread) = thread.take() {
                thread.join().map_err(|_| ShardError::Lost { shard })?;
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Closes the shards' channels: their threads end after their last batch.
    fn close(&mut self) {
        for sender in &mut self.senders {
            *sender = None;
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
        for thread in self.threads.iter_mut().filter_map(Option::take) {
            // A shard that panicked has said so through its closed channel already.
            let _ = thread.join();
        }
    }
}
