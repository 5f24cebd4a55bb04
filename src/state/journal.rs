//! The counter journal: a batch's `counts` writes kept as one record, folded into the counters
//! as one ingestion of table files once many batches have piled up.
//!
//! Most of a page's writes are counters of template blocks at the nodes of its branch, and the
//! next pages of the same site write the same counters again. Written key by key, each batch
//! pays a memtable insert (and later a flush) per counter, however often the next batches touch it
//! again. So a batch's counter writes go into the `journal` column family as one record, in the
//! same atomic write as the batch's documents and progress; in memory, [`Pending`] holds every
//! journaled write not yet folded, one operation per counter. Once it holds the journal's bound
//! of counters, the operations are sorted and written as table files (one per slice of the key
//! space) that RocksDB ingests into `counts` at once (no memtable, no write-ahead log, no flush):
//! a counter that twenty batches touched is written once, and a delta that came back to zero not
//! at all.
//!
//! Guarantees: the value of a counter is its value in `counts` with its pending operation applied
//! ([`Pending::overlay`]). The table files also hold the fold mark ([`FOLDED`]): the sequence of
//! the first journal record they do not hold. The files go in all or none, so a restart
//! (which rebuilds [`Pending`] from the records at or after the mark, [`Pending::load`]) neither
//! loses nor applies twice any write, whether or not the folded records were deleted before it.

use super::counter;
use super::keys::KeyMap;
use super::Write;

/// Counters the journal holds by default before they are folded into `counts`
/// ([`super::StateOptions::journal_counters`]): some twenty batches of 256 news pages in a steady
/// stream, about 12 MB of memory (and as much again while a fold sorts them).
pub const FOLD_KEYS: usize = 1 << 18;

/// The longest counter value: a root tally of one document (count and sequence number).
pub const MAX_VALUE: usize = 16;

/// The `counts` key of the fold mark, whose value is the sequence (8 bytes, big-endian) of the
/// first journal record not folded. Shorter than every counter key (16 bytes), it sorts before
/// all of them and lies in no domain's range of root tallies.
pub const FOLDED: [u8; 8] = [0; 8];

/// A counter value held inline (no counter value is longer than [`MAX_VALUE`] bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    len: u8,
    bytes: [u8; MAX_VALUE],
}

impl Value {
    /// `bytes` as a value, `None` when it is longer than any counter value.
    fn new(bytes: &[u8]) -> Option<Value> {
        let mut value = Value {
            len: u8::try_from(bytes.len()).ok()?,
            bytes: [0; MAX_VALUE],
        };
        value.bytes.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(value)
    }

    fn count(count: i64) -> Value {
        let mut value = Value {
            len: 8,
            bytes: [0; MAX_VALUE],
        };
        value.bytes[..8].copy_from_slice(&counter::encode(count));
        value
    }

    /// The stored bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// What the journal says of one counter: one write, or all of a counter's writes since the last
/// fold composed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Add this delta to the stored value (a merge).
    Add(i64),
    /// The value is this (`None`: deleted), whatever is stored.
    Set(Option<Value>),
}

impl Op {
    /// `write` as an operation; `None` for a value too long to be a counter's.
    pub fn of(write: &Write) -> Option<Op> {
        Some(match write {
            Write::Merge(delta) => Op::Add(*delta),
            Write::Put(value) => Op::Set(Some(Value::new(value)?)),
            Write::Delete => Op::Set(None),
        })
    }

    /// The operation equal to `self` followed by `next`.
    fn then(self, next: Op) -> Op {
        match (self, next) {
            (_, Op::Set(value)) => Op::Set(value),
            (Op::Add(a), Op::Add(b)) => Op::Add(a.wrapping_add(b)),
            (Op::Set(value), Op::Add(b)) => Op::Set(Some(Value::count(
                value
                    .as_ref()
                    .map_or(0, |v| counter::decode(v.as_bytes()))
                    .wrapping_add(b),
            ))),
        }
    }
}

/// One batch's counter writes as operations, in the batch's order; an error names a value too
/// long to be a counter's (nothing of the batch is then written).
pub fn ops(writes: &[([u8; 16], Write)]) -> Result<Vec<([u8; 16], Op)>, BadRecord> {
    writes
        .iter()
        .map(|(key, write)| {
            Op::of(write)
                .map(|op| (*key, op))
                .ok_or_else(|| BadRecord("a counter value longer than 16 bytes".into()))
        })
        .collect()
}

/// The journaled counter writes not yet folded into `counts`, and the journal's sequence: the
/// records `first..next` hold them.
#[derive(Debug, Default)]
pub struct Pending {
    ops: KeyMap<[u8; 16], Op>,
    /// The sequence number of the next journal record.
    next: u64,
    /// The first journal record not folded (the fold mark).
    first: u64,
}

/// A journal record, or the fold mark, did not decode.
#[derive(Debug, PartialEq, Eq)]
pub struct BadRecord(pub String);

fn seq_of(key: &[u8]) -> Result<u64, BadRecord> {
    <[u8; 8]>::try_from(key)
        .map(u64::from_be_bytes)
        .map_err(|_| BadRecord(format!("a {}-byte journal key", key.len())))
}

/// The fold mark as stored (`None`: no fold yet) as the sequence of the first record not folded.
pub fn folded_of(mark: Option<&[u8]>) -> Result<u64, BadRecord> {
    mark.map_or(Ok(0), |m| {
        seq_of(m).map_err(|_| BadRecord(format!("a {}-byte fold mark", m.len())))
    })
}

impl Pending {
    /// Rebuilds the pending writes from the journal's records (in key order) and the fold mark
    /// `folded`: the records before it are in `counts` already and are skipped. Also returns
    /// whether any was skipped (the fold's deletion of its records did not happen).
    pub fn load<'a>(
        records: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
        folded: u64,
    ) -> Result<(Pending, bool), BadRecord> {
        let mut pending = Pending {
            next: folded,
            first: folded,
            ..Pending::default()
        };
        let mut skipped = false;
        for (key, value) in records {
            let seq = seq_of(key)?;
            if seq < folded {
                skipped = true;
                continue;
            }
            pending.add(&decode(value)?);
            pending.next = pending.next.max(seq + 1);
        }
        Ok((pending, skipped))
    }

    /// Counters with a pending operation.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when no journal record is pending.
    pub fn is_empty(&self) -> bool {
        self.first == self.next
    }

    /// The keys of every pending operation.
    pub fn keys(&self) -> impl Iterator<Item = &[u8; 16]> {
        self.ops.keys()
    }

    /// The key of the next journal record.
    pub fn next_key(&self) -> [u8; 8] {
        self.next.to_be_bytes()
    }

    /// Follows the write of a batch's `ops` as the record [`Pending::next_key`].
    pub fn journaled(&mut self, ops: &[([u8; 16], Op)]) {
        self.add(ops);
        self.next += 1;
    }

    fn add(&mut self, ops: &[([u8; 16], Op)]) {
        for (key, op) in ops {
            let pending = self.ops.entry(*key).or_insert(Op::Add(0));
            *pending = pending.then(*op);
        }
    }

    /// The fold of everything pending: its counter operations in key order (those that add
    /// nothing left out), the fold mark's value, and the range of records it folds.
    pub fn fold(&self) -> Fold {
        let mut ops: Vec<([u8; 16], Op)> = self
            .ops
            .iter()
            .filter(|(_, op)| **op != Op::Add(0))
            .map(|(k, op)| (*k, *op))
            .collect();
        ops.sort_unstable_by_key(|(key, _)| u128::from_be_bytes(*key));
        Fold {
            ops,
            mark: self.next.to_be_bytes(),
            records: (self.first.to_be_bytes(), self.next.to_be_bytes()),
        }
    }

    /// Follows the ingestion of [`Pending::fold`]: nothing is pending.
    pub fn folded(&mut self) {
        self.ops.clear();
        self.first = self.next;
    }

    /// The value of `key` as the journal leaves it, from its value in `counts`; `None` when the
    /// journal does not touch it.
    pub fn overlay(&self, key: &[u8; 16], stored: Option<&[u8]>) -> Option<Option<Value>> {
        Some(match *self.ops.get(key)? {
            Op::Set(value) => value,
            Op::Add(delta) => Some(Value::count(
                stored.map_or(0, counter::decode).wrapping_add(delta),
            )),
        })
    }
}

/// What folding the journal writes (see [`Pending::fold`]).
#[derive(Debug)]
pub struct Fold {
    /// Counter operations, in key order, one per counter.
    pub ops: Vec<([u8; 16], Op)>,
    /// The value of [`FOLDED`] in `counts` once they are in.
    pub mark: [u8; 8],
    /// The journal records they come from, `from..to`, deleted once they are in.
    pub records: ([u8; 8], [u8; 8]),
}

impl Fold {
    /// The operation that writes the fold mark.
    pub fn mark_op(&self) -> Op {
        Op::Set(Value::new(&self.mark))
    }
}

const TAG_MERGE: u8 = 0;
const TAG_PUT: u8 = 1;
const TAG_DELETE: u8 = 2;

/// One batch's counter operations as a journal record: per operation, the 16-byte key, a tag, and
/// the delta (8 bytes) or the value (its length in one byte, then its bytes).
pub fn encode(ops: &[([u8; 16], Op)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ops.len() * 25);
    for (key, op) in ops {
        out.extend_from_slice(key);
        match op {
            Op::Add(delta) => {
                out.push(TAG_MERGE);
                out.extend_from_slice(&delta.to_le_bytes());
            }
            Op::Set(Some(value)) => {
                out.push(TAG_PUT);
                out.push(value.len);
                out.extend_from_slice(value.as_bytes());
            }
            Op::Set(None) => out.push(TAG_DELETE),
        }
    }
    out
}

/// The operations of a journal record.
pub fn decode(mut bytes: &[u8]) -> Result<Vec<([u8; 16], Op)>, BadRecord> {
    let short = || BadRecord("a journal record ends inside a write".into());
    let mut ops = Vec::new();
    while !bytes.is_empty() {
        let (key, rest) = bytes.split_first_chunk::<16>().ok_or_else(short)?;
        let (&tag, rest) = rest.split_first().ok_or_else(short)?;
        let (op, rest) = match tag {
            TAG_MERGE => {
                let (delta, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
                (Op::Add(i64::from_le_bytes(*delta)), rest)
            }
            TAG_PUT => {
                let (&len, rest) = rest.split_first().ok_or_else(short)?;
                let value = rest.get(..usize::from(len)).ok_or_else(short)?;
                let value = Value::new(value)
                    .ok_or_else(|| BadRecord(format!("a journal value of {len} bytes")))?;
                (Op::Set(Some(value)), &rest[usize::from(len)..])
            }
            TAG_DELETE => (Op::Set(None), rest),
            other => return Err(BadRecord(format!("a journal write of tag {other}"))),
        };
        ops.push((*key, op));
        bytes = rest;
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> [u8; 16] {
        [n; 16]
    }

    fn put(n: i64) -> Write {
        Write::Put(counter::encode(n).to_vec())
    }

    fn single(seq: u64) -> Vec<u8> {
        [counter::encode(1), seq.to_be_bytes()].concat()
    }

    fn count(n: i64) -> Option<Option<Value>> {
        Some(Some(Value::count(n)))
    }

    fn journal(pending: &mut Pending, writes: &[([u8; 16], Write)]) {
        pending.journaled(&ops(writes).unwrap());
    }

    #[test]
    fn records_decode_to_what_was_encoded() {
        let ops = ops(&[
            (key(1), Write::Merge(-3)),
            (key(2), put(7)),
            (key(3), Write::Delete),
            (key(4), Write::Put(single(9))),
        ])
        .unwrap();
        let bytes = encode(&ops);
        assert_eq!(decode(&bytes).unwrap(), ops);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        let mut bad = bytes.clone();
        bad[16] = 9;
        assert_eq!(
            decode(&bad).unwrap_err(),
            BadRecord("a journal write of tag 9".into())
        );
        let mut long = key(5).to_vec();
        long.extend_from_slice(&[TAG_PUT, 17]);
        long.extend_from_slice(&[0; 17]);
        assert_eq!(
            decode(&long).unwrap_err(),
            BadRecord("a journal value of 17 bytes".into())
        );
    }

    #[test]
    fn a_value_no_counter_has_is_refused_before_anything_is_written() {
        assert!(ops(&[(key(1), Write::Merge(1)), (key(2), Write::Put(vec![0; 17]))]).is_err());
        assert!(ops(&[(key(2), Write::Put(vec![0; 16]))]).is_ok());
    }

    #[test]
    fn pending_writes_compose_as_the_database_would_apply_them() {
        let mut pending = Pending::default();
        assert!(pending.is_empty());
        journal(
            &mut pending,
            &[(key(1), Write::Merge(2)), (key(2), Write::Delete)],
        );
        journal(
            &mut pending,
            &[
                (key(1), Write::Merge(3)),
                (key(2), Write::Merge(4)),
                (key(3), put(5)),
            ],
        );
        journal(&mut pending, &[(key(3), Write::Merge(-1))]);
        let stored = counter::encode(10);
        assert_eq!(pending.overlay(&key(1), Some(&stored)), count(15));
        assert_eq!(pending.overlay(&key(1), None), count(5));
        assert_eq!(pending.overlay(&key(2), Some(&stored)), count(4));
        assert_eq!(pending.overlay(&key(3), None), count(4));
        assert_eq!(pending.overlay(&key(4), Some(&stored)), None);
        journal(&mut pending, &[(key(2), Write::Delete)]);
        assert_eq!(pending.overlay(&key(2), Some(&stored)), Some(None));
        // A stored root tally of one document (16 bytes) reads as its count, 1.
        journal(&mut pending, &[(key(5), Write::Put(single(9)))]);
        assert_eq!(
            pending
                .overlay(&key(5), None)
                .flatten()
                .map(|v| v.as_bytes().to_vec()),
            Some(single(9))
        );
        journal(&mut pending, &[(key(6), Write::Merge(2))]);
        assert_eq!(pending.overlay(&key(6), Some(&single(4))), count(3));
        journal(
            &mut pending,
            &[(key(7), Write::Merge(2)), (key(7), Write::Merge(-2))],
        );
        // The fold writes each counter once, in key order, leaves out what adds nothing, and
        // names every record.
        let fold = pending.fold();
        assert_eq!(
            fold.ops,
            vec![
                (key(1), Op::Add(5)),
                (key(2), Op::Set(None)),
                (key(3), Op::Set(Some(Value::count(4)))),
                (key(5), Op::Set(Value::new(&single(9)))),
                (key(6), Op::Add(2)),
            ]
        );
        assert_eq!(fold.mark, 7u64.to_be_bytes());
        assert_eq!(fold.mark_op(), Op::Set(Value::new(&7u64.to_be_bytes())));
        assert_eq!(fold.records, (0u64.to_be_bytes(), 7u64.to_be_bytes()));
        pending.folded();
        assert!(pending.is_empty());
        assert_eq!(pending.len(), 0);
        assert_eq!(pending.overlay(&key(1), Some(&stored)), None);
        // The next fold starts where this one ended.
        journal(&mut pending, &[(key(1), Write::Merge(1))]);
        assert_eq!(
            pending.fold().records,
            (7u64.to_be_bytes(), 8u64.to_be_bytes())
        );
    }

    #[test]
    fn loading_the_records_gives_the_pending_writes_back() {
        // Batches of deltas and values folded now and then, the records, the fold mark and the
        // counters kept as the database keeps them. At every step, the journal and one loaded
        // from the records (with the folded records deleted or not, as after a crash between the
        // ingestion and the deletion) give every counter its value.
        let mut pending = Pending::default();
        let mut records: std::collections::BTreeMap<Vec<u8>, Vec<u8>> = Default::default();
        let mut stored: std::collections::BTreeMap<[u8; 16], i64> = Default::default();
        let mut totals = [0i64; 24];
        let mut mark = None;
        for round in 0..40u32 {
            let writes: Vec<([u8; 16], Write)> = (0..5u32)
                .map(|n| {
                    let k = ((n * 5 + round * 7) % 24) as u8;
                    let write = if round % 5 == 4 && n == 0 {
                        put(i64::from(round))
                    } else {
                        Write::Merge(i64::from(round % 4) + 1)
                    };
                    (key(k), write)
                })
                .collect();
            for (k, w) in &writes {
                let total = &mut totals[usize::from(k[0])];
                match w {
                    Write::Merge(d) => *total += d,
                    Write::Put(v) => *total = counter::decode(v),
                    Write::Delete => *total = 0,
                }
            }
            let ops = ops(&writes).unwrap();
            records.insert(pending.next_key().to_vec(), encode(&ops));
            pending.journaled(&ops);
            if round % 6 == 5 {
                let fold = pending.fold();
                for (k, op) in &fold.ops {
                    let v = stored.entry(*k).or_insert(0);
                    match op {
                        Op::Add(d) => *v += d,
                        Op::Set(value) => *v = value.map_or(0, |v| counter::decode(v.as_bytes())),
                    }
                }
                mark = Some(fold.mark);
                pending.folded();
                // Every other fold's records stay, as if the process stopped before deleting them.
                if round % 12 == 5 {
                    let (from, to) = fold.records;
                    records.retain(|k, _| !(k[..] >= from[..] && k[..] < to[..]));
                }
            }
            let folded = folded_of(mark.as_ref().map(|m| &m[..])).unwrap();
            let (loaded, skipped) =
                Pending::load(records.iter().map(|(k, v)| (&k[..], &v[..])), folded).unwrap();
            assert_eq!(
                skipped,
                records.keys().any(|k| seq_of(k).unwrap() < folded),
                "round {round}"
            );
            for (n, total) in totals.iter().enumerate() {
                let k = key(n as u8);
                let base = stored.get(&k).copied();
                let encoded = base.map(counter::encode);
                let value = |p: &Pending| {
                    p.overlay(&k, encoded.as_ref().map(|e| &e[..]))
                        .map_or(base.unwrap_or(0), |v| {
                            v.map_or(0, |v| counter::decode(v.as_bytes()))
                        })
                };
                assert_eq!(value(&pending), *total, "round {round} key {n}");
                assert_eq!(value(&loaded), *total, "loaded, round {round} key {n}");
            }
            assert_eq!(loaded.next_key(), pending.next_key(), "round {round}");
            assert_eq!(loaded.is_empty(), pending.is_empty(), "round {round}");
        }
        assert!(Pending::load([(&b"short"[..], &b""[..])], 0).is_err());
        assert_eq!(
            folded_of(Some(&b"short"[..])),
            Err(BadRecord("a 5-byte fold mark".into()))
        );
    }
}
