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
//! A domain's pages reach its shard in input order and in batches of no other domain's making
//! that matter (a page is classified against the pages before it, whatever the batches), so every
//! outcome equals one engine's, except a `processed_at` taken from the wall clock for records
//! that carry no time of their own.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::layout::{domain_map_path, shard_dir};
use super::{route, DomainMap, RunError, ShardError};
use crate::config::Config;
use crate::engine::{Engine, Input, Outcome, Stats};
use crate::record::Source;
use crate::state::StateError;
use crate::urlkey::UrlKeyer;

/// Outcomes a shard's batch sends back, with the shard's totals after it.
struct Done {
    shard: usize,
    seqs: Vec<u64>,
    outcomes: Vec<Outcome>,
    stats: Stats,
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
}

enum Mode {
    Inline(Box<Inline>),
    Threads(Box<Pool>),
}

/// One engine on the caller's thread.
struct Inline {
    engine: Engine,
    pending: Vec<(Vec<u8>, Source)>,
    batch_size: usize,
    /// Records taken so far.
    taken: u64,
}

/// N engines on their threads.
struct Pool {
    keyer: UrlKeyer,
    max_record_bytes: usize,
    batch_size: usize,
    max_in_flight: u64,
    domains: DomainMap,
    senders: Vec<Option<SyncSender<Batch>>>,
    threads: Vec<Option<JoinHandle<()>>>,
    results: Receiver<Result<Done, Failed>>,
    pending: Vec<Batch>,
    /// Batches sent to each shard whose outcomes have not come back.
    busy: Vec<u32>,
    stats: Vec<Stats>,
    /// Outcomes from `next_emit` on; `None` until it has come back.
    reorder: VecDeque<Option<Outcome>>,
    next_seq: u64,
    next_emit: u64,
    /// The earliest failed batch: nothing from its first record on is emitted.
    failed: Option<Failed>,
}

impl Sharded {
    /// Opens `shards` engines over the state at `config.state.path` (its layout decided by the
    /// caller with [`super::resolve_jobs`]): one engine on the caller's thread when `shards` is
    /// 1, else one thread per shard, each with its share of the block cache.
    pub fn open(config: &Config, shards: usize) -> Result<Sharded, ShardError> {
        let shards = shards.max(1);
        let state = config.state.path.clone();
        let open = |shard: usize, config: &Config| {
            Engine::open(config).map_err(|source| ShardError::Open {
                shard,
                path: config.state.path.clone(),
                source,
            })
        };
        if shards == 1 {
            return Ok(Sharded {
                mode: Mode::Inline(Box::new(Inline {
                    engine: open(0, config)?,
                    pending: Vec::with_capacity(config.input.batch_size),
                    batch_size: config.input.batch_size,
                    taken: 0,
                })),
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
            let engine = open(shard, &shard_config)?;
            let (tx, rx) = mpsc::sync_channel::<Batch>(1);
            let result_tx = result_tx.clone();
            let thread = std::thread::Builder::new()
                .name(format!("shard-{shard}"))
                .spawn(move || serve(shard, engine, rx, result_tx))
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
            })),
        })
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
        match &mut self.mode {
            Mode::Inline(inline) => {
                inline.taken += 1;
                inline.pending.push((bytes, source));
                if inline.pending.len() >= inline.batch_size {
                    inline.flush(emit)?;
                }
                Ok(())
            }
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
        match &mut self.mode {
            Mode::Inline(inline) => {
                inline.flush(emit)?;
                inline.taken += 1;
                emit(outcome).map_err(RunError::Emit)
            }
            Mode::Threads(pool) => {
                pool.next_seq += 1;
                pool.reorder.push_back(Some(outcome));
                pool.receive_ready(emit)?;
                pool.bound(emit)
            }
        }
    }

    /// Processes what is pending and emits every outcome left, keeping the shards open for more
    /// records.
    pub fn flush<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match &mut self.mode {
            Mode::Inline(inline) => inline.flush(emit),
            Mode::Threads(pool) => pool.drain(emit),
        }
    }

    /// Processes what is pending and emits every outcome left; returns the totals.
    pub fn finish<E>(
        mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<Stats, RunError<E>> {
        match &mut self.mode {
            Mode::Inline(inline) => inline.flush(emit)?,
            Mode::Threads(pool) => pool.finish(emit)?,
        }
        Ok(self.stats())
    }
}

impl Inline {
    fn flush<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let inputs: Vec<Input<'_>> = self
            .pending
            .iter()
            .map(|(bytes, source)| Input::new(bytes, source.clone()))
            .collect();
        let outcomes =
            self.engine
                .process_batch(&inputs, None)
                .map_err(|source| ShardError::State {
                    shard: 0,
                    record: self.taken - self.pending.len() as u64,
                    source,
                })?;
        self.pending.clear();
        for outcome in outcomes {
            emit(outcome).map_err(RunError::Emit)?;
        }
        Ok(())
    }
}

/// A shard's thread: its batches in order, until its channel closes or its state fails.
fn serve(
    shard: usize,
    mut engine: Engine,
    batches: Receiver<Batch>,
    results: mpsc::Sender<Result<Done, Failed>>,
) {
    for batch in batches {
        let first = batch.first().map_or(0, |(seq, _, _)| *seq);
        let mut seqs = Vec::with_capacity(batch.len());
        let mut records = Vec::with_capacity(batch.len());
        for (seq, bytes, source) in batch {
            seqs.push(seq);
            records.push((bytes, source));
        }
        let inputs: Vec<Input<'_>> = records
            .iter()
            .map(|(bytes, source)| Input::new(bytes, source.clone()))
            .collect();
        let result = match engine.process_batch(&inputs, None) {
            Ok(outcomes) => Ok(Done {
                shard,
                seqs,
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
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.receive_ready(emit)?;
        let shard = match route::record_domain(&bytes, &self.keyer, self.max_record_bytes) {
            Some(domain) => self.domains.shard(&domain)?,
            // The engine rejects it wherever it goes.
            None => 0,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
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
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        while self.next_seq - self.next_emit > self.max_in_flight {
            self.dispatch_all()?;
            self.receive_one(emit)?;
        }
        Ok(())
    }

    /// Sends the shard's pending batch (the domain map first reaches the file).
    fn dispatch(&mut self, shard: usize) -> Result<(), ShardError> {
        if self.pending[shard].is_empty() {
            return Ok(());
        }
        self.domains.sync()?;
        let batch = std::mem::take(&mut self.pending[shard]);
        let sent = match &self.senders[shard] {
            Some(sender) => sender.send(batch).is_ok(),
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
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
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
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
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
                for (seq, outcome) in done.seqs.into_iter().zip(done.outcomes) {
                    if let Some(slot) = self.reorder.get_mut((seq - self.next_emit) as usize) {
                        *slot = Some(outcome);
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
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        loop {
            let stop = self.failed.as_ref().map_or(u64::MAX, |f| f.first);
            if self.next_emit >= stop {
                return Ok(());
            }
            match self.reorder.front_mut().and_then(Option::take) {
                Some(outcome) => {
                    self.reorder.pop_front();
                    self.next_emit += 1;
                    emit(outcome).map_err(RunError::Emit)?;
                }
                None => return Ok(()),
            }
        }
    }

    /// After a failure: emits every outcome before the failed batch (sending what is pending
    /// before it and waiting for it), then returns the failure.
    fn check_failure<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
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
                if let Some(sender) = &self.senders[shard] {
                    let batch = std::mem::take(&mut self.pending[shard]);
                    if sender.send(batch).is_err() {
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

    /// Sends every pending batch and emits every outcome.
    fn drain<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.dispatch_all()?;
        self.receive_ready(emit)?;
        while self.next_emit < self.next_seq {
            self.receive_one(emit)?;
        }
        Ok(())
    }

    fn finish<E>(
        &mut self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.drain(emit)?;
        self.close();
        for (shard, thread) in self.threads.iter_mut().enumerate() {
            if let Some(thread) = thread.take() {
                thread.join().map_err(|_| ShardError::Lost { shard })?;
            }
        }
        Ok(())
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
