//! The counter journal: a batch's `counts` writes kept as one record, folded into the counters
//! themselves once many batches have piled up.
//!
//! Most of a page's writes are counters of template blocks at the nodes of its branch, and the
//! next pages of the same site write the same counters again. Written key by key, each batch
//! pays a memtable insert (and later a flush) per counter, however often the next batches touch it
//! again. So a batch's counter writes go into the `journal` column family as one record, in the
//! same atomic write as the batch's documents and progress; in memory, [`Pending`] holds every
//! journaled write not yet folded, one operation per counter. Once it holds the journal's bound
//! of counters, that generation is frozen and sorted, and folded into `counts` a slice per batch
//! over the next eight batches while a new generation fills: a counter that twenty batches
//! touched is written once, and no batch pays for a whole fold.
//!
//! Guarantees: the value of a counter is its value in `counts` with the frozen generation's
//! operation, then the newer one's, applied ([`Pending::overlay`]). Each slice is written with the
//! [`MARKER`] record naming the last counter folded, and a generation's records are deleted in the
//! write of its last slice, so a restart (which rebuilds [`Pending`] from the records,
//! [`Pending::load`], skipping the counters the marker says are done) neither loses nor applies
//! twice any write.

use super::keys::KeyMap;
use super::{counter, Write};

/// Counters the journal holds by default before they are folded into `counts`
/// ([`super::StateOptions::journal_counters`]): some twenty batches of 256 news pages in a steady
/// stream, about 12 MB of memory (and 11 MB more for the generation being folded).
pub const FOLD_KEYS: usize = 1 << 18;

/// The longest counter value: a root tally of one document (count and sequence number).
pub const MAX_VALUE: usize = 16;

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

/// What the journal says of one counter since it was last folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Add this delta to the stored value (a merge).
    Add(i64),
    /// The value is this (`None`: deleted), whatever is stored.
    Set(Option<Value>),
}

impl Op {
    /// The operation equal to `self` followed by `write`; `None` for a value too long to be a
    /// counter's.
    fn then(self, write: &Write) -> Option<Op> {
        Some(match (self, write) {
            (_, Write::Put(value)) => Op::Set(Some(Value::new(value)?)),
            (_, Write::Delete) => Op::Set(None),
            (Op::Add(a), Write::Merge(b)) => Op::Add(a.wrapping_add(*b)),
            (Op::Set(value), Write::Merge(b)) => Op::Set(Some(Value::count(
                value
                    .as_ref()
                    .map_or(0, |v| counter::decode(v.as_bytes()))
                    .wrapping_add(*b),
            ))),
        })
    }
}

/// Slices a frozen generation is folded in, one per batch.
const SLICES: usize = 8;

/// The key of the marker record: which records the frozen generation holds, and the last counter
/// of it already folded. Record sequences never reach it.
pub const MARKER: [u8; 8] = [0xFF; 8];

/// A generation of pending writes that reached the journal's bound: sorted, and folded into
/// `counts` a slice per batch, so that no batch pays for a whole fold.
#[derive(Debug)]
struct Frozen {
    ops: Vec<([u8; 16], Op)>,
    /// The first operation not yet folded.
    pos: usize,
    /// Operations folded per batch.
    step: usize,
    /// Its journal records: `first..end`.
    first: u64,
    end: u64,
}

impl Frozen {
    fn new(ops: Vec<([u8; 16], Op)>, first: u64, end: u64) -> Frozen {
        let step = ops.len().div_ceil(SLICES).max(1);
        Frozen {
            ops,
            pos: 0,
            step,
            first,
            end,
        }
    }

    fn get(&self, key: &[u8; 16]) -> Option<&Op> {
        let rest = &self.ops[self.pos..];
        rest.binary_search_by_key(key, |(k, _)| *k)
            .ok()
            .map(|i| &rest[i].1)
    }
}

/// The journaled counter writes not yet folded into `counts`, and the journal's sequence.
///
/// Two generations: the writes journaled since the last one reached the bound (a map), and the
/// frozen one being folded (sorted). A counter's value is its stored value with the frozen
/// generation's operation applied, then the newer one's.
#[derive(Debug, Default)]
pub struct Pending {
    ops: KeyMap<[u8; 16], Op>,
    /// The sequence number of the next journal record.
    next: u64,
    /// The first journal record of the newer generation.
    first: u64,
    frozen: Option<Frozen>,
}

/// A journal record did not decode.
#[derive(Debug, PartialEq, Eq)]
pub struct BadRecord(pub String);

/// What one commit does with the journal (see [`Pending::plan`]).
#[derive(Debug)]
pub struct Plan {
    /// Counter writes to put in the batch before its own, in order.
    pub writes: Vec<([u8; 16], Op)>,
    /// Journal records to delete: `from..to`.
    pub delete: Option<([u8; 8], [u8; 8])>,
    /// The marker's new value, or `None` to delete it; absent: left as it is.
    pub marker: Option<Option<Vec<u8>>>,
    /// True when the batch's own counter writes go to `counts` directly (everything pending is
    /// folded); false when they are journaled as the record [`Pending::next_key`].
    pub direct: bool,
    /// The generation this commit freezes, if any.
    freeze: Option<Frozen>,
    /// Where the frozen generation's fold stands after this commit.
    pos: usize,
}

fn sorted_ops(ops: &KeyMap<[u8; 16], Op>) -> Vec<([u8; 16], Op)> {
    let mut sorted: Vec<([u8; 16], Op)> = ops
        .iter()
        .filter(|(_, op)| **op != Op::Add(0))
        .map(|(k, op)| (*k, *op))
        .collect();
    sorted.sort_unstable_by_key(|(key, _)| *key);
    sorted
}

fn seq_of(key: &[u8]) -> Result<u64, BadRecord> {
    <[u8; 8]>::try_from(key)
        .map(u64::from_be_bytes)
        .map_err(|_| BadRecord(format!("a {}-byte journal key", key.len())))
}

impl Pending {
    /// Rebuilds the pending writes from the journal's records, in key order (the marker, if any,
    /// last): the frozen generation's records, but for the counters already folded, and the
    /// newer ones.
    pub fn load<'a>(
        records: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
    ) -> Result<Pending, BadRecord> {
        let mut list: Vec<(u64, &[u8])> = Vec::new();
        let mut marker = None;
        for (key, value) in records {
            if key == MARKER {
                marker = Some(value);
            } else {
                list.push((seq_of(key)?, value));
            }
        }
        let mut pending = Pending::default();
        let (frozen_range, done) = match marker {
            Some(m) if m.len() == 32 => {
                let first = seq_of(&m[..8])?;
                let end = seq_of(&m[8..16])?;
                let mut done = [0u8; 16];
                done.copy_from_slice(&m[16..]);
                (Some((first, end)), done)
            }
            Some(m) => return Err(BadRecord(format!("a {}-byte journal marker", m.len()))),
            None => (None, [0u8; 16]),
        };
        let mut frozen = Pending::default();
        let mut first_new = None;
        for (seq, value) in list {
            let target = match frozen_range {
                Some((first, end)) if (first..end).contains(&seq) => &mut frozen,
                _ => {
                    first_new.get_or_insert(seq);
                    &mut pending
                }
            };
            for (counter, write) in decode(value)? {
                target.add(counter, &write)?;
            }
            pending.next = pending.next.max(seq + 1);
        }
        if let Some((first, end)) = frozen_range {
            let ops: Vec<([u8; 16], Op)> = sorted_ops(&frozen.ops)
                .into_iter()
                .filter(|(k, _)| *k > done)
                .collect();
            pending.frozen = Some(Frozen::new(ops, first, end));
            pending.next = pending.next.max(end);
        }
        pending.first = first_new.unwrap_or(pending.next);
        Ok(pending)
    }

    /// Counters with a pending operation in the newer generation.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.frozen.is_none()
    }

    /// The key of the next journal record.
    pub fn next_key(&self) -> [u8; 8] {
        self.next.to_be_bytes()
    }

    /// What a commit of `writes` counter writes does with the journal whose bound is `bound`
    /// counters: with `all` (or a bound of 0), everything pending is folded and the batch's writes
    /// go to `counts`; else they are journaled, the newer generation is frozen once it reaches the
    /// bound, and a slice of the frozen one is folded.
    pub fn plan(&self, writes: usize, bound: usize, all: bool) -> Plan {
        let full = self.ops.len() + writes >= bound;
        if all || bound == 0 || (full && self.frozen.is_some()) {
            let mut out = Vec::new();
            if let Some(frozen) = &self.frozen {
                out.extend_from_slice(&frozen.ops[frozen.pos..]);
            }
            out.extend(sorted_ops(&self.ops));
            let from = self.frozen.as_ref().map_or(self.first, |f| f.first);
            return Plan {
                writes: out,
                delete: (from < self.next).then(|| (from.to_be_bytes(), self.next.to_be_bytes())),
                marker: self.frozen.is_some().then_some(None),
                direct: true,
                freeze: None,
                pos: 0,
            };
        }
        let freeze = (full && !self.ops.is_empty())
            .then(|| Frozen::new(sorted_ops(&self.ops), self.first, self.next));
        let Some(frozen) = freeze.as_ref().or(self.frozen.as_ref()) else {
            return Plan {
                writes: Vec::new(),
                delete: None,
                marker: None,
                direct: false,
                freeze: None,
                pos: 0,
            };
        };
        let pos = (frozen.pos + frozen.step).min(frozen.ops.len());
        let writes = frozen.ops[frozen.pos..pos].to_vec();
        let (delete, marker) = if pos == frozen.ops.len() {
            (
                Some((frozen.first.to_be_bytes(), frozen.end.to_be_bytes())),
                Some(None),
            )
        } else {
            let mut m = Vec::with_capacity(32);
            m.extend_from_slice(&frozen.first.to_be_bytes());
            m.extend_from_slice(&frozen.end.to_be_bytes());
            m.extend_from_slice(&frozen.ops[pos - 1].0);
            (None, Some(Some(m)))
        };
        Plan {
            writes,
            delete,
            marker,
            direct: false,
            freeze,
            pos,
        }
    }

    /// Follows a committed `plan`: the batch's `writes` were journaled as the record
    /// [`Pending::next_key`] unless the plan wrote them directly or there were none (a batch
    /// without counter writes leaves no record). The writes are those [`encode`] took; a value
    /// too long to be a counter's, which the record cuts, is an error here too.
    pub fn committed(&mut self, plan: Plan, writes: &[([u8; 16], Write)]) -> Result<(), BadRecord> {
        if plan.direct {
            self.ops.clear();
            self.frozen = None;
            self.first = self.next;
            return Ok(());
        }
        if let Some(frozen) = plan.freeze {
            self.frozen = Some(frozen);
            self.ops.clear();
            self.first = self.next;
        }
        if let Some(frozen) = &mut self.frozen {
            frozen.pos = plan.pos;
            if frozen.pos == frozen.ops.len() {
                self.frozen = None;
            }
        }
        if writes.is_empty() {
            return Ok(());
        }
        for (key, write) in writes {
            self.add(*key, write)?;
        }
        self.next += 1;
        Ok(())
    }

    fn add(&mut self, key: [u8; 16], write: &Write) -> Result<(), BadRecord> {
        let op = self.ops.entry(key).or_insert(Op::Add(0));
        *op = op
            .then(write)
            .ok_or_else(|| BadRecord("a counter value longer than 16 bytes".into()))?;
        Ok(())
    }

    /// The value of `key` as the journal leaves it, from its value in `counts`; `None` when the
    /// journal does not touch it.
    pub fn overlay(&self, key: &[u8; 16], stored: Option<&[u8]>) -> Option<Option<Value>> {
        let frozen = self.frozen.as_ref().and_then(|f| f.get(key));
        let newer = self.ops.get(key);
        if frozen.is_none() && newer.is_none() {
            return None;
        }
        let mut value: Option<Value> = stored.and_then(Value::new);
        let mut count = stored.map_or(0, counter::decode);
        for op in frozen.into_iter().chain(newer) {
            match *op {
                Op::Set(v) => {
                    value = v;
                    count = v.map_or(0, |v| counter::decode(v.as_bytes()));
                }
                Op::Add(delta) => {
                    count = count.wrapping_add(delta);
                    value = Some(Value::count(count));
                }
            }
        }
        Some(value)
    }
}

/// Adds a plan's writes to `batch`: its counter writes to `counts`, its record deletions and
/// marker to `journal`.
pub fn add_plan(
    batch: &mut rocksdb::WriteBatch,
    counts: &rocksdb::ColumnFamily,
    journal: &rocksdb::ColumnFamily,
    plan: &Plan,
) {
    for (key, op) in &plan.writes {
        write_op(batch, counts, key, op);
    }
    if let Some((from, to)) = plan.delete {
        batch.delete_range_cf(journal, from, to);
    }
    match &plan.marker {
        Some(Some(marker)) => batch.put_cf(journal, MARKER, marker),
        Some(None) => batch.delete_cf(journal, MARKER),
        None => {}
    }
}

/// Adds the write that applies `op` to `key` of column family `cf` to `batch`.
pub fn write_op(
    batch: &mut rocksdb::WriteBatch,
    cf: &rocksdb::ColumnFamily,
    key: &[u8; 16],
    op: &Op,
) {
    match op {
        Op::Add(delta) => batch.merge_cf(cf, key, counter::encode(*delta)),
        Op::Set(Some(value)) => batch.put_cf(cf, key, value.as_bytes()),
        Op::Set(None) => batch.delete_cf(cf, key),
    }
}

const TAG_MERGE: u8 = 0;
const TAG_PUT: u8 = 1;
const TAG_DELETE: u8 = 2;

/// One batch's counter writes as a journal record: per write, the 16-byte key, a tag, and the
/// delta (8 bytes) or the value (its length in one byte, then its bytes).
pub fn encode<'k>(writes: impl IntoIterator<Item = (&'k [u8; 16], &'k Write)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (key, write) in writes {
        out.extend_from_slice(key);
        match write {
            Write::Merge(delta) => {
                out.push(TAG_MERGE);
                out.extend_from_slice(&delta.to_le_bytes());
            }
            Write::Put(value) => {
                out.push(TAG_PUT);
                // Counter values are 8 or 16 bytes; a longer one is cut, never written.
                let len = value.len().min(usize::from(u8::MAX));
                out.push(len as u8);
                out.extend_from_slice(&value[..len]);
            }
            Write::Delete => out.push(TAG_DELETE),
        }
    }
    out
}

/// The writes of a journal record.
pub fn decode(mut bytes: &[u8]) -> Result<Vec<([u8; 16], Write)>, BadRecord> {
    let short = || BadRecord("a journal record ends inside a write".into());
    let mut writes = Vec::new();
    while !bytes.is_empty() {
        let (key, rest) = bytes.split_first_chunk::<16>().ok_or_else(short)?;
        let (&tag, rest) = rest.split_first().ok_or_else(short)?;
        let (write, rest) = match tag {
            TAG_MERGE => {
                let (delta, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
                (Write::Merge(i64::from_le_bytes(*delta)), rest)
            }
            TAG_PUT => {
                let (&len, rest) = rest.split_first().ok_or_else(short)?;
                let value = rest.get(..usize::from(len)).ok_or_else(short)?;
                (Write::Put(value.to_vec()), &rest[usize::from(len)..])
            }
            TAG_DELETE => (Write::Delete, rest),
            other => return Err(BadRecord(format!("a journal write of tag {other}"))),
        };
        writes.push((*key, write));
        bytes = rest;
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> [u8; 16] {
        [n; 16]
    }

    #[test]
    fn records_decode_to_what_was_encoded() {
        let writes = vec![
            (key(1), Write::Merge(-3)),
            (key(2), Write::Put(counter::encode(7).to_vec())),
            (key(3), Write::Delete),
            (
                key(4),
                Write::Put([counter::encode(1), 9u64.to_be_bytes()].concat()),
            ),
        ];
        let bytes = encode(writes.iter().map(|(k, w)| (k, w)));
        assert_eq!(decode(&bytes).unwrap(), writes);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        let mut bad = bytes.clone();
        bad[16] = 9;
        assert_eq!(
            decode(&bad).unwrap_err(),
            BadRecord("a journal write of tag 9".into())
        );
    }

    fn put(n: i64) -> Write {
        Write::Put(counter::encode(n).to_vec())
    }

    fn count(n: i64) -> Option<Option<Value>> {
        Some(Some(Value::count(n)))
    }

    /// Journals `writes` as one batch under `bound`, returning the plan's counter writes.
    fn journal(pending: &mut Pending, writes: &[([u8; 16], Write)], bound: usize) -> Plan {
        let plan = pending.plan(writes.len(), bound, false);
        let shown = Plan {
            writes: plan.writes.clone(),
            delete: plan.delete,
            marker: plan.marker.clone(),
            direct: plan.direct,
            freeze: None,
            pos: 0,
        };
        pending.committed(plan, writes).unwrap();
        shown
    }

    #[test]
    fn pending_writes_compose_as_the_database_would_apply_them() {
        let mut pending = Pending::default();
        journal(
            &mut pending,
            &[(key(1), Write::Merge(2)), (key(2), Write::Delete)],
            100,
        );
        journal(
            &mut pending,
            &[
                (key(1), Write::Merge(3)),
                (key(2), Write::Merge(4)),
                (key(3), put(5)),
            ],
            100,
        );
        journal(&mut pending, &[(key(3), Write::Merge(-1))], 100);
        let stored = counter::encode(10);
        assert_eq!(pending.overlay(&key(1), Some(&stored)), count(15));
        assert_eq!(pending.overlay(&key(1), None), count(5));
        assert_eq!(pending.overlay(&key(2), Some(&stored)), count(4));
        assert_eq!(pending.overlay(&key(3), None), count(4));
        assert_eq!(pending.overlay(&key(4), Some(&stored)), None);
        journal(&mut pending, &[(key(2), Write::Delete)], 100);
        assert_eq!(pending.overlay(&key(2), Some(&stored)), Some(None));
        let single = [counter::encode(1), 9u64.to_be_bytes()].concat();
        journal(&mut pending, &[(key(5), Write::Put(single.clone()))], 100);
        assert_eq!(
            pending
                .overlay(&key(5), None)
                .flatten()
                .map(|v| v.as_bytes().to_vec()),
            Some(single)
        );
        let plan = pending.plan(1, 100, false);
        assert!(pending
            .committed(plan, &[(key(6), Write::Put(vec![0; 17]))])
            .is_err());
        // Folding everything writes each counter once, in key order, and deletes every record.
        let plan = pending.plan(0, 100, true);
        assert!(plan.direct);
        assert_eq!(
            plan.writes,
            vec![
                (key(1), Op::Add(5)),
                (key(2), Op::Set(None)),
                (key(3), Op::Set(Some(Value::count(4)))),
                (
                    key(5),
                    Op::Set(Value::new(
                        &[counter::encode(1), 9u64.to_be_bytes()].concat()
                    ))
                ),
            ]
        );
        assert_eq!(plan.delete, Some((0u64.to_be_bytes(), 5u64.to_be_bytes())));
        pending.committed(plan, &[]).unwrap();
        assert!(pending.is_empty());
        assert_eq!(pending.plan(0, 100, true).delete, None);
    }

    #[test]
    fn a_full_generation_is_frozen_and_folded_a_slice_per_batch() {
        let mut pending = Pending::default();
        let writes: Vec<([u8; 16], Write)> = (0..16u8).map(|n| (key(n), Write::Merge(1))).collect();
        // 16 counters under a bound of 20: journaled whole.
        assert!(journal(&mut pending, &writes, 20).writes.is_empty());
        // 16 more writes reach the bound: the first generation freezes, its first slice is folded.
        let plan = journal(&mut pending, &writes, 20);
        assert_eq!(
            plan.writes,
            (0..2u8).map(|n| (key(n), Op::Add(1))).collect::<Vec<_>>()
        );
        let mut marker = 0u64.to_be_bytes().to_vec();
        marker.extend_from_slice(&1u64.to_be_bytes());
        marker.extend_from_slice(&key(1));
        assert_eq!(plan.marker, Some(Some(marker)));
        // A counter is its stored value plus both generations' deltas until its slice is folded.
        assert_eq!(pending.overlay(&key(0), None), count(1));
        assert_eq!(pending.overlay(&key(5), None), count(2));
        for slice in 1..7u8 {
            let plan = journal(&mut pending, &[], 20);
            let from = slice * 2;
            assert_eq!(
                plan.writes,
                (from..from + 2)
                    .map(|n| (key(n), Op::Add(1)))
                    .collect::<Vec<_>>()
            );
            assert!(matches!(plan.marker, Some(Some(_))));
        }
        let plan = journal(&mut pending, &[], 20);
        assert_eq!(
            plan.writes,
            (14..16u8).map(|n| (key(n), Op::Add(1))).collect::<Vec<_>>()
        );
        assert_eq!(plan.delete, Some((0u64.to_be_bytes(), 1u64.to_be_bytes())));
        assert_eq!(plan.marker, Some(None));
        assert_eq!(pending.overlay(&key(15), None), count(1));
        // A newer generation that fills up while one is still frozen folds everything.
        let plan = journal(&mut pending, &writes, 20);
        assert_eq!(plan.writes.len(), 2);
        assert!(pending.plan(16, 20, false).direct);
    }

    #[test]
    fn loading_the_records_gives_the_pending_writes_back() {
        // Batches of deltas under a small bound, the records, the marker and the counters kept
        // as the database keeps them. At every step, the journal and one loaded from the records
        // give every counter its total.
        let mut pending = Pending::default();
        let mut records: std::collections::BTreeMap<Vec<u8>, Vec<u8>> = Default::default();
        let mut stored: std::collections::BTreeMap<[u8; 16], i64> = Default::default();
        let mut totals = [0i64; 24];
        let apply =
            |stored: &mut std::collections::BTreeMap<[u8; 16], i64>, k: [u8; 16], op: Op| {
                let v = stored.entry(k).or_insert(0);
                match op {
                    Op::Add(d) => *v += d,
                    Op::Set(value) => *v = value.map_or(0, |v| counter::decode(v.as_bytes())),
                }
            };
        for round in 0..40u8 {
            let writes: Vec<([u8; 16], Write)> = (0..5u8)
                .map(|n| {
                    (
                        key(((u32::from(n) * 5 + u32::from(round) * 7) % 24) as u8),
                        Write::Merge(i64::from(round % 4) + 1),
                    )
                })
                .collect();
            for (k, w) in &writes {
                if let Write::Merge(d) = w {
                    totals[usize::from(k[0])] += d;
                }
            }
            let plan = pending.plan(writes.len(), 12, round % 13 == 12);
            for (k, op) in &plan.writes {
                apply(&mut stored, *k, *op);
            }
            if let Some((from, to)) = plan.delete {
                records.retain(|k, _| !(k[..] >= from[..] && k[..] < to[..]));
            }
            match &plan.marker {
                Some(Some(m)) => {
                    records.insert(MARKER.to_vec(), m.clone());
                }
                Some(None) => {
                    records.remove(&MARKER[..]);
                }
                None => {}
            }
            if plan.direct {
                for (k, w) in &writes {
                    if let Write::Merge(d) = w {
                        apply(&mut stored, *k, Op::Add(*d));
                    }
                }
            } else {
                records.insert(
                    pending.next_key().to_vec(),
                    encode(writes.iter().map(|(k, w)| (k, w))),
                );
            }
            pending.committed(plan, &writes).unwrap();
            let loaded = Pending::load(records.iter().map(|(k, v)| (&k[..], &v[..]))).unwrap();
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
            if !records.is_empty() {
                assert_eq!(loaded.next_key(), pending.next_key());
            }
        }
        assert!(records.len() < 12, "{} records left", records.len());
        assert!(Pending::load([(&b"short"[..], &b""[..])]).is_err());
        assert!(Pending::load([(&MARKER[..], &b"short"[..])]).is_err());
    }
}
