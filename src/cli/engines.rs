//! What `extract` runs the records through: the URL Tree over a state, in shards, or for one
//! page without a state (DESIGN §6), the cold-start path that writes nothing.

use urltree::engine::{Input, Outcome, Stateless, Stats};
use urltree::record::Source;
use urltree::shards::{RunError, Sharded};

/// The engines of one `extract` run.
pub enum Engines {
    /// The tree over a state directory.
    Sharded(Sharded),
    /// One page, no state.
    Stateless(Box<Stateless>),
}

impl Engines {
    /// Takes the next record in input order and emits the outcomes that are ready.
    pub fn push<E>(
        &mut self,
        bytes: Vec<u8>,
        source: Source,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match self {
            Engines::Sharded(shards) => shards.push(bytes, source, emit),
            Engines::Stateless(pipeline) => {
                emit(pipeline.process(&Input::new(&bytes, source))).map_err(RunError::Emit)
            }
        }
    }

    /// Takes an outcome made without an engine in its place in input order.
    pub fn push_outcome<E>(
        &mut self,
        outcome: Outcome,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        match self {
            Engines::Sharded(shards) => shards.push_outcome(outcome, emit),
            Engines::Stateless(_) => emit(outcome).map_err(RunError::Emit),
        }
    }

    /// Totals so far.
    pub fn stats(&self) -> Stats {
        match self {
            Engines::Sharded(shards) => shards.stats(),
            Engines::Stateless(pipeline) => pipeline.stats(),
        }
    }

    /// Processes what is pending and emits every outcome left; returns the totals.
    pub fn finish<E>(
        self,
        emit: &mut impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<Stats, RunError<E>> {
        match self {
            Engines::Sharded(shards) => shards.finish(emit),
            Engines::Stateless(pipeline) => Ok(pipeline.stats()),
        }
    }
}
