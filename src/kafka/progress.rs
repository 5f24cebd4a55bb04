//! A partition's progress: the key under which its state records the next input offset applied,
//! and how that progress `P` is reconciled with the group's committed offset `C` when the
//! partition is assigned ([`plan`]). Shared by the partition worker and the changelog restore,
//! which both depend on this module and not on each other.

use super::config::DeliveryMode;

/// The progress key of a partition in its state.
pub fn progress_source(topic: &str, partition: i32) -> String {
    format!("{topic}/{partition}")
}

/// How a newly assigned partition starts, from the state's progress `P` and the group's committed
/// offset `C` (the rules are laid out in [`super::worker`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Fetch from the committed offset (or, with none, from the beginning).
    Resume,
    /// Fetch from this offset: the state's progress, ahead of any committed offset.
    SeekTo(u64),
    /// Rebuild the state from the changelog as of this committed offset, then fetch from it.
    Restore(u64),
}

/// Reconciles the state's progress with the committed offset for `mode`.
pub fn plan(mode: DeliveryMode, progress: Option<u64>, committed: Option<u64>) -> Start {
    match (progress, committed) {
        (None, None) => Start::Resume,
        (Some(p), None) => Start::SeekTo(p),
        (None, Some(c)) => Start::Restore(c),
        (Some(p), Some(c)) if p == c => Start::Resume,
        (Some(p), Some(c)) if p < c => Start::Restore(c),
        (Some(p), Some(c)) => match mode {
            DeliveryMode::AtLeastOnce => Start::SeekTo(p),
            DeliveryMode::ExactlyOnce => Start::Restore(c),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_position_decides_how_a_partition_starts() {
        use DeliveryMode::{AtLeastOnce as Alo, ExactlyOnce as Eos};
        for mode in [Alo, Eos] {
            assert_eq!(plan(mode, None, None), Start::Resume);
            assert_eq!(plan(mode, Some(5), None), Start::SeekTo(5));
            assert_eq!(plan(mode, None, Some(7)), Start::Restore(7));
            assert_eq!(plan(mode, Some(7), Some(7)), Start::Resume);
            assert_eq!(plan(mode, Some(3), Some(7)), Start::Restore(7));
        }
        assert_eq!(plan(Alo, Some(9), Some(7)), Start::SeekTo(9));
        assert_eq!(plan(Eos, Some(9), Some(7)), Start::Restore(7));
    }
}
