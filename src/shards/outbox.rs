//! What `urltree extract` keeps in a shard's state so that no outcome is lost between the
//! state's commit and the output file (DESIGN §4, `docs/extract-guarantees.md`):
//!
//! - every batch commits its outcomes, as the lines they become in the output and errors files,
//!   in an **outbox** entry of the same atomic write as its pages ([`Line`], [`encode_batch`]);
//! - the writer of the files makes them durable from time to time (complete lines, complete
//!   compressed members, `fsync`) and says so in a **mark** ([`Mark`]): the input records before
//!   `next_seq` are all in the files, which hold `output_bytes` and `errors_bytes` bytes;
//! - the next commit of every shard stores the newest mark and deletes the outbox entries the
//!   mark covers ([`ShardOutbox`]).
//!
//! A run that dies leaves marks and outbox entries behind. The next run on the state truncates
//! the files to the newest mark's lengths, skips the input records before its `next_seq`, writes
//! the outbox's lines of the records after it without processing them again, and processes the
//! rest: every record's outcome reaches the files once.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::engine::Outcome;
use crate::state::delivery::{outbox_key, MARK};

/// Which file a line goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The clean-text output.
    Output,
    /// The dead-letter file.
    Errors,
}

/// One outcome as written to its file: a JSON record and its newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The file.
    pub target: Target,
    /// The record's bytes, `\n` included.
    pub bytes: Vec<u8>,
}

impl Line {
    /// The line an outcome writes: a clean-text record to the output, a dead letter to the
    /// errors file; a duplicate writes none.
    pub fn of(outcome: &Outcome) -> Option<Line> {
        let (target, bytes) = match outcome {
            Outcome::Clean(record) => (Target::Output, serde_json::to_vec(record)),
            Outcome::Rejected(dead) => (Target::Errors, serde_json::to_vec(dead)),
            Outcome::Duplicate { .. } => return None,
        };
        // The records serialize to JSON by construction (string keys, finite numbers).
        let mut bytes = bytes.unwrap_or_else(|e| {
            tracing::error!("an outcome did not serialize: {e}");
            b"{}".to_vec()
        });
        bytes.push(b'\n');
        Some(Line { target, bytes })
    }
}

/// How far the output files are complete and durable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The run: one more than the newest run the state knew when it started; a resumed run
    /// keeps its number. Outbox entries belong to a run, and a run's marks say nothing of
    /// another's.
    pub run: u64,
    /// Input records (numbered in input order from 0) whose outcomes are all in the files.
    pub next_seq: u64,
    /// Bytes of the output file that hold them: whole lines and whole compressed members.
    pub output_bytes: u64,
    /// Bytes of the errors file that hold their dead letters.
    pub errors_bytes: u64,
    /// Digest of the input records before `next_seq` ([`InputDigest`]): a rerun checks that it
    /// reads the same input before it skips them.
    pub input_digest: u64,
    /// The output file, absolute (`-`: stdout).
    pub output: String,
    /// The errors file, absolute.
    pub errors: String,
    /// The run read its input to the end and every outcome is in the files.
    pub complete: bool,
}

impl Mark {
    /// The mark as stored.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A stored mark; `None` when it does not decode.
    pub fn decode(bytes: &[u8]) -> Option<Mark> {
        serde_json::from_slice(bytes).ok()
    }
}

/// A running digest of input records, in input order: each record's length, source and first
/// bytes (enough to tell another input apart, cheap enough for every record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputDigest(pub u64);

impl InputDigest {
    /// Bytes of a record's start taken into the digest.
    const HEAD: usize = 256;

    /// The digest of one record alone: what an outbox entry keeps of the input record it came
    /// from, so that a resumed run replays it only for the same record.
    pub fn of_record(bytes: &[u8], source: &str) -> u64 {
        let mut digest = InputDigest::default();
        digest.add(bytes, source);
        digest.0
    }

    /// Adds one record.
    pub fn add(&mut self, bytes: &[u8], source: &str) {
        let mut h = self.0 ^ 0x9E37_79B9_7F4A_7C15;
        let mut mix = |word: u64| {
            h = (h.rotate_left(27) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        };
        mix(bytes.len() as u64);
        for chunk in bytes[..bytes.len().min(Self::HEAD)]
            .chunks(8)
            .chain(source.as_bytes().chunks(8))
        {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            mix(u64::from_le_bytes(word));
        }
        self.0 = h;
    }
}

/// One record of an outbox entry: its sequence, the check of the input record it came from
/// ([`InputDigest::of_record`]), and its line (none for a duplicate).
pub type Entry<'a> = (u64, u64, Option<&'a Line>);

/// Encodes one batch's outbox entry: every record's sequence, check and line.
pub fn encode_batch<'a>(lines: impl Iterator<Item = Entry<'a>>) -> Vec<u8> {
    let mut out = Vec::new();
    for (seq, check, line) in lines {
        out.extend_from_slice(&seq.to_be_bytes());
        out.extend_from_slice(&check.to_be_bytes());
        match line {
            None => out.push(0),
            Some(line) => {
                out.push(match line.target {
                    Target::Output => 1,
                    Target::Errors => 2,
                });
                out.extend_from_slice(&(line.bytes.len() as u32).to_be_bytes());
                out.extend_from_slice(&line.bytes);
            }
        }
    }
    out
}

/// Decodes an outbox entry into (sequence, check, line); `None` when it is corrupt.
pub fn decode_batch(mut bytes: &[u8]) -> Option<Vec<(u64, u64, Option<Line>)>> {
    let mut entries = Vec::new();
    while !bytes.is_empty() {
        let seq = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        let check = u64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?);
        let kind = *bytes.get(16)?;
        bytes = &bytes[17..];
        let target = match kind {
            0 => {
                entries.push((seq, check, None));
                continue;
            }
            1 => Target::Output,
            2 => Target::Errors,
            _ => return None,
        };
        let len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let line = bytes.get(4..4 + len)?.to_vec();
        bytes = &bytes[4 + len..];
        entries.push((
            seq,
            check,
            Some(Line {
                target,
                bytes: line,
            }),
        ));
    }
    Some(entries)
}

/// A mark on its way to the shards: its `next_seq` and its stored bytes.
#[derive(Clone, Debug)]
pub struct MarkUpdate {
    /// [`Mark::run`].
    pub run: u64,
    /// [`Mark::next_seq`].
    pub next_seq: u64,
    /// [`Mark::complete`].
    pub complete: bool,
    /// [`Mark::encode`].
    pub bytes: Vec<u8>,
}

impl MarkUpdate {
    /// The update of `mark`.
    pub fn of(mark: &Mark) -> MarkUpdate {
        MarkUpdate {
            run: mark.run,
            next_seq: mark.next_seq,
            complete: mark.complete,
            bytes: mark.encode(),
        }
    }
}

/// One shard's side of the delivery: the outbox entries its state holds and the newest mark it
/// stored, and the writes of its next commit.
#[derive(Debug, Default)]
pub struct ShardOutbox {
    /// Entries held, as (run, first, last input sequence), in order.
    held: VecDeque<(u64, u64, u64)>,
    /// Run and `next_seq` of the mark stored last.
    stored: Option<(u64, u64)>,
}

/// The writes of one commit: keys and values of [`crate::state::delivery`], `None` deleting.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

impl ShardOutbox {
    /// The outbox of a state that holds `entries` (run, first and last sequence of each).
    pub fn holding(entries: impl Iterator<Item = (u64, u64, u64)>) -> ShardOutbox {
        ShardOutbox {
            held: entries.collect(),
            stored: None,
        }
    }

    /// Whether `mark` makes the held entry `(run, _, last)` useless: another run's, or covered.
    fn covers(mark: &MarkUpdate, (run, _, last): (u64, u64, u64)) -> bool {
        run != mark.run || mark.complete || last < mark.next_seq
    }

    /// The writes of a commit of the batch `batch` (sequences and lines; `None` when the commit
    /// carries no batch) with `mark` the newest: the deletion of the entries the mark makes
    /// useless (all of them once the run is complete), the mark when it is newer than the one
    /// stored, and the batch's entry, in that order (a batch's entry may take the key of an
    /// entry of another run that goes).
    pub fn writes(&self, batch: Option<&[Entry<'_>]>, mark: Option<&MarkUpdate>) -> Writes {
        let mut writes = Writes::new();
        if let Some(mark) = mark {
            for &entry in &self.held {
                if Self::covers(mark, entry) {
                    writes.push((outbox_key(entry.0, entry.1), None));
                }
            }
            if self.stored.is_none_or(|s| s < (mark.run, mark.next_seq)) || mark.complete {
                writes.push((MARK.to_vec(), Some(mark.bytes.clone())));
            }
        }
        if let (Some(batch), Some(mark)) = (batch.filter(|b| !b.is_empty()), mark) {
            writes.push((
                outbox_key(mark.run, batch[0].0),
                Some(encode_batch(batch.iter().copied())),
            ));
        }
        writes
    }

    /// Records that the writes of [`ShardOutbox::writes`] for the same arguments were committed.
    pub fn committed(&mut self, batch: Option<&[Entry<'_>]>, mark: Option<&MarkUpdate>) {
        let Some(mark) = mark else {
            return;
        };
        self.held.retain(|&entry| !Self::covers(mark, entry));
        let now = (mark.run, mark.next_seq);
        self.stored = Some(self.stored.map_or(now, |s| s.max(now)));
        if let Some(batch) = batch.filter(|b| !b.is_empty()) {
            let last = batch[batch.len() - 1].0;
            self.held.push_back((mark.run, batch[0].0, last));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_entry_reads_back_as_written() {
        let out = Line {
            target: Target::Output,
            bytes: b"{\"url\":\"a\"}\n".to_vec(),
        };
        let err = Line {
            target: Target::Errors,
            bytes: b"{}\n".to_vec(),
        };
        let encoded =
            encode_batch([(7, 70, Some(&out)), (9, 90, None), (12, 120, Some(&err))].into_iter());
        assert_eq!(
            decode_batch(&encoded).unwrap(),
            vec![(7, 70, Some(out)), (9, 90, None), (12, 120, Some(err))]
        );
        assert_eq!(decode_batch(&encoded[..encoded.len() - 1]), None);
        assert_eq!(decode_batch(&[]), Some(vec![]));
    }

    #[test]
    fn a_mark_deletes_the_entries_it_covers_and_is_stored_once() {
        let line = Line {
            target: Target::Output,
            bytes: b"x\n".to_vec(),
        };
        let mut outbox = ShardOutbox::holding([(1, 0, 3), (2, 0, 3), (2, 4, 9)].into_iter());
        let batch = [(10, 1, Some(&line)), (11, 2, None)];
        let mark = MarkUpdate::of(&Mark {
            run: 2,
            next_seq: 4,
            ..Mark::default()
        });
        let writes = outbox.writes(Some(&batch), Some(&mark));
        let keys: Vec<_> = writes
            .iter()
            .map(|(k, v)| (k.clone(), v.is_some()))
            .collect();
        assert_eq!(
            keys,
            vec![
                (outbox_key(1, 0), false),
                (outbox_key(2, 0), false),
                (MARK.to_vec(), true),
                (outbox_key(2, 10), true),
            ]
        );
        outbox.committed(Some(&batch), Some(&mark));
        // The same mark again is not stored again; a complete one deletes every entry.
        assert_eq!(outbox.writes(None, Some(&mark)), Writes::new());
        let done = MarkUpdate::of(&Mark {
            run: 2,
            next_seq: 12,
            complete: true,
            ..Mark::default()
        });
        let deleted: Vec<_> = outbox
            .writes(None, Some(&done))
            .into_iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k)
            .collect();
        assert_eq!(deleted, vec![outbox_key(2, 4), outbox_key(2, 10)]);
    }

    #[test]
    fn the_digest_tells_inputs_apart() {
        let digest = |records: &[&[u8]]| {
            let mut d = InputDigest::default();
            for r in records {
                d.add(r, "in.jsonl");
            }
            d
        };
        assert_eq!(digest(&[b"a", b"b"]), digest(&[b"a", b"b"]));
        assert_ne!(digest(&[b"a", b"b"]), digest(&[b"b", b"a"]));
        assert_ne!(digest(&[b"a"]), digest(&[b"a", b""]));
    }
}
