//! Counters as RocksDB merge operands: inserting a page is a blind write of `+1` deltas.

use rocksdb::compaction_filter::Decision;
use rocksdb::MergeOperands;

/// Encodes a counter delta (or value) as stored.
pub fn encode(delta: i64) -> [u8; 8] {
    delta.to_le_bytes()
}

/// Decodes a stored counter; malformed bytes read as 0 rather than poisoning the sum.
pub fn decode(bytes: &[u8]) -> i64 {
    bytes.try_into().map(i64::from_le_bytes).unwrap_or(0)
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
