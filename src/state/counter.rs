//! Counters as stored: values that RocksDB merge operands add to, and the tally of a block at
//! its domain root, which also says whether the block is counted anywhere else.

use rocksdb::compaction_filter::Decision;
use rocksdb::MergeOperands;

/// Encodes a counter delta (or value) as stored.
pub fn encode(delta: i64) -> [u8; 8] {
    delta.to_le_bytes()
}

/// Decodes a stored counter (a [`Tally::Single`] reads as its count, 1); malformed bytes read as
/// 0 rather than poisoning the sum.
pub fn decode(bytes: &[u8]) -> i64 {
    bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(i64::from_le_bytes)
        .unwrap_or(0)
}

/// The count of a block (or element path) at its domain root, which every document of the domain
/// passes through, so no node below counts it more often.
///
/// Most text of a site is on one page only: an article's paragraphs. Such a block is counted at
/// the root alone, as [`Tally::Single`] with the sequence number of its document; its count below
/// the root is 1 on that document's branch and 0 elsewhere, derived, not stored. A block is
/// counted at every node of its documents' branches ([`Tally::Counted`]) from the moment a second
/// document holds it, and stays so until no retained document does. Inserting an article thus
/// writes one counter per block instead of one per node of its branch; forgetting it as the
/// domain's oldest writes none for those blocks: the tally is left in place, stale once the
/// domain's oldest retained sequence number has moved past it, read as absent, and removed by
/// compactions (see [`super::low_water`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tally {
    /// No retained document holds the block.
    Absent,
    /// Exactly one retained document holds it: the document with this sequence number in the
    /// domain. Nothing is stored for it below the root.
    Single(u64),
    /// Held by this many documents (at least one) and counted at every node of their branches.
    Counted(i64),
}

impl Tally {
    /// Decodes a stored root value: 16 bytes (count 1 and a sequence number) for a single
    /// document, 8 for a count; a count of zero or less, or a malformed value, is absent.
    pub fn decode(bytes: Option<&[u8]>) -> Tally {
        match bytes {
            Some(b) if b.len() == 16 => {
                let mut seq = [0u8; 8];
                seq.copy_from_slice(&b[8..]);
                Tally::Single(u64::from_be_bytes(seq))
            }
            Some(b) => match decode(b) {
                n if n > 0 => Tally::Counted(n),
                _ => Tally::Absent,
            },
            None => Tally::Absent,
        }
    }

    /// The stored form, `None` for an absent tally (deleted). A single document's value starts
    /// with the count 1, so [`decode`] reads any tally as its count.
    pub fn encode(&self) -> Option<Vec<u8>> {
        match *self {
            Tally::Absent => None,
            Tally::Single(seq) => {
                let mut out = encode(1).to_vec();
                out.extend_from_slice(&seq.to_be_bytes());
                Some(out)
            }
            Tally::Counted(n) => Some(encode(n).to_vec()),
        }
    }

    /// Documents that hold the block.
    pub fn count(&self) -> i64 {
        match *self {
            Tally::Absent => 0,
            Tally::Single(_) => 1,
            Tally::Counted(n) => n,
        }
    }
}

/// The associative merge operator: the sum of the existing value and all operands.
pub fn merge_add(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &MergeOperands,
) -> Option<Vec<u8>> {
    let mut sum = existing.map(decode).unwrap_or(0);
    for op in operands {
        sum = sum.wrapping_add(decode(op));
    }
    Some(encode(sum).to_vec())
}

/// Compaction filter: a stored zero is removed when a compaction reads it. Commits delete a
/// counter that reaches zero (see `Txn::commit`), so this only clears zeros that a state written
/// before that rule left behind by merging (RocksDB does not filter a merge's own result).
pub fn drop_zero(_level: u32, _key: &[u8], value: &[u8]) -> Decision {
    if decode(value) == 0 {
        Decision::Remove
    } else {
        Decision::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_roundtrip_and_read_as_counts() {
        for tally in [Tally::Single(0), Tally::Single(u64::MAX), Tally::Counted(7)] {
            let bytes = tally.encode().unwrap();
            assert_eq!(Tally::decode(Some(&bytes)), tally);
            assert_eq!(decode(&bytes), tally.count());
        }
        assert_eq!(Tally::Absent.encode(), None);
        assert_eq!(Tally::decode(None), Tally::Absent);
        assert_eq!(Tally::decode(Some(&encode(0))), Tally::Absent);
        assert_eq!(Tally::decode(Some(&[1, 2, 3])), Tally::Absent);
    }
}
