//! Which counters `counts` may hold: one Bloom filter per slice of the key space (see
//! `table_file::SLICES`), so that a key no table file holds is answered without a read.
//!
//! Most keys a page looks up that the hot counters do not know are blocks nothing has counted
//! (new text). RocksDB answers each of them by probing the filter of every table file of its
//! slice, through the block cache and its per-file bookkeeping. One probe of a filter in memory
//! answers most of them instead.
//!
//! Guarantees: [`Presence::may_hold`] is true for every key `counts` holds, because every key
//! written to `counts` is [inserted](Presence::insert) before the write, and a slice's filter is
//! only replaced by one built from a read of everything the slice holds and every journaled key
//! of it (taken under the journal's lock, which every commit holds while it inserts, so no write
//! falls between the read and the replacement). A filter answers true for some keys it does not
//! hold (about 1% of them at its planned size), never false for one it holds. Keys that leave
//! `counts` (counters back at zero, stale tallies) stay in a slice's filter until the slice is
//! read again; a filter that holds more keys than it was planned for is dropped (its slice may
//! hold anything again) rather than left to answer true for most keys.
//!
//! A slice has no filter until its first read, which follows its first compaction
//! (`Store::compact_slice`): opening a state reads nothing.

use super::keys;
use super::table_file::{self, SLICES};

/// Bits a filter plans per key: about a 1% rate of false answers for a blocked filter.
const BITS_PER_KEY: usize = 10;

/// Keys a slice's filter plans for on a fresh state (1.25 MiB a slice); past them it is dropped
/// and read again from the slice at a later compaction, planned for twice what it holds.
pub const FRESH_KEYS: usize = 1 << 20;

/// The most keys a slice's filter plans for (5 MiB a slice, 20 MiB in all): a slice that would
/// need more has no filter, and RocksDB's own filters answer its lookups, so the memory stays
/// bounded however large the state grows.
pub const MAX_SLICE_KEYS: usize = 1 << 22;

/// Bits set per key, each in the key's one 512-bit block.
const PROBES: u32 = 6;

/// A blocked Bloom filter over 16-byte keys: a key's bits all lie in one cache line.
#[derive(Clone, Debug)]
pub struct Bloom {
    blocks: Vec<[u64; 8]>,
    /// Keys added.
    keys: usize,
    /// Keys planned for.
    capacity: usize,
}

/// The hash of a key ([`keys::mix`], its low bits mixed too).
fn hash(key: &[u8; 16]) -> u64 {
    let h = keys::mix(key);
    h ^ (h >> 31)
}

impl Bloom {
    /// A filter planned for `keys` keys.
    pub fn with_capacity(keys: usize) -> Bloom {
        let blocks = (keys.max(1) * BITS_PER_KEY).div_ceil(512);
        Bloom {
            blocks: vec![[0; 8]; blocks],
            keys: 0,
            capacity: keys.max(1),
        }
    }

    /// Whether the filter holds more keys than planned.
    fn overfull(&self) -> bool {
        self.keys > self.capacity
    }

    /// The block of hash `h` and the bits of the key in it (word, mask).
    fn bits(&self, h: u64) -> (usize, impl Iterator<Item = (usize, u64)>) {
        let block = ((u128::from(h) * self.blocks.len() as u128) >> 64) as usize;
        let mut g = h.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(17);
        let bits = (0..PROBES).map(move |_| {
            let bit = (g & 511) as usize;
            g = g.rotate_right(9);
            (bit / 64, 1u64 << (bit % 64))
        });
        (block, bits)
    }

    /// Adds `key`.
    pub fn insert(&mut self, key: &[u8; 16]) {
        let (block, bits) = self.bits(hash(key));
        let words = &mut self.blocks[block];
        for (word, mask) in bits {
            words[word] |= mask;
        }
        self.keys += 1;
    }

    /// False only when `key` was never added.
    pub fn contains(&self, key: &[u8; 16]) -> bool {
        let (block, mut bits) = self.bits(hash(key));
        let words = &self.blocks[block];
        bits.all(|(word, mask)| words[word] & mask != 0)
    }

    /// Bytes of memory the filter takes.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.blocks.len() * 64
    }
}

/// See the module documentation.
#[derive(Debug)]
pub struct Presence {
    /// Per slice: its filter, or `None` while nothing is known (any key may be held).
    slices: Vec<Option<Bloom>>,
}

impl Default for Presence {
    fn default() -> Self {
        Presence {
            slices: vec![None; SLICES],
        }
    }
}

impl Presence {
    /// False only when `counts` does not hold `key`.
    pub fn may_hold(&self, key: &[u8; 16]) -> bool {
        self.slices[table_file::slice_of(key)]
            .as_ref()
            .is_none_or(|bloom| bloom.contains(key))
    }

    /// Records that `key` is about to be written to `counts` (a key of any other length is no
    /// counter and is never asked for). A filter that grows past its plan is dropped.
    pub fn insert(&mut self, key: &[u8]) {
        let Ok(key) = <&[u8; 16]>::try_from(key) else {
            return;
        };
        let slot = &mut self.slices[table_file::slice_of(key)];
        if let Some(bloom) = slot.as_mut() {
            bloom.insert(key);
            if bloom.overfull() {
                *slot = None;
            }
        }
    }

    /// Replaces the filter of `slice` with `bloom`, built from every key the slice holds.
    pub fn set(&mut self, slice: usize, bloom: Bloom) {
        self.slices[slice] = Some(bloom);
    }

    /// Drops the filter of `slice`: it may hold anything.
    pub fn forget(&mut self, slice: usize) {
        self.slices[slice] = None;
    }

    /// Filters of a `counts` that holds nothing, planned for [`FRESH_KEYS`] keys a slice.
    pub fn empty() -> Presence {
        Presence {
            slices: vec![Some(Bloom::with_capacity(FRESH_KEYS)); SLICES],
        }
    }

    /// Whether `slice` has a filter.
    pub fn knows(&self, slice: usize) -> bool {
        self.slices[slice].is_some()
    }

    /// Bytes of memory the filters take.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.slices.iter().flatten().map(Bloom::bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> [u8; 16] {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
        key[8..].copy_from_slice(&(i ^ 0x5555).to_le_bytes());
        key
    }

    #[test]
    fn a_filter_holds_every_key_added_and_few_others_at_its_planned_size() {
        let mut bloom = Bloom::with_capacity(10_000);
        for i in 0..10_000 {
            bloom.insert(&key(i));
        }
        assert!((0..10_000).all(|i| bloom.contains(&key(i))));
        let false_answers = (10_000..110_000)
            .filter(|&i| bloom.contains(&key(i)))
            .count();
        // About 1% planned; a broken hash or probe sequence gives far more.
        assert!(false_answers < 2_500, "{false_answers} of 100000");
        assert!(
            false_answers > 0,
            "a filter of 10 bits per key answers some keys falsely"
        );
    }

    #[test]
    fn an_unknown_slice_may_hold_anything_and_a_known_one_what_was_inserted() {
        let mut presence = Presence::default();
        let keys: Vec<[u8; 16]> = (0..4_000).map(key).collect();
        assert!(keys.iter().all(|k| presence.may_hold(k)));
        for slice in 0..SLICES {
            presence.set(slice, Bloom::with_capacity(1_000));
        }
        let held = keys.iter().filter(|k| presence.may_hold(k)).count();
        assert_eq!(held, 0, "empty filters hold nothing");
        for k in &keys[..1_000] {
            presence.insert(k);
        }
        presence.insert(&[0; 8]);
        assert!(keys[..1_000].iter().all(|k| presence.may_hold(k)));
        let others = keys[1_000..]
            .iter()
            .filter(|k| presence.may_hold(k))
            .count();
        assert!(others < 150, "{others} of 3000");
        assert!(presence.bytes() >= SLICES * 1_000 * BITS_PER_KEY / 8);
    }

    #[test]
    fn a_filter_grown_past_its_plan_is_dropped_and_its_slice_may_hold_anything() {
        let mut presence = Presence::default();
        for slice in 0..SLICES {
            presence.set(slice, Bloom::with_capacity(100));
        }
        let keys: Vec<[u8; 16]> = (0..2_000).map(key).collect();
        let slice = table_file::slice_of(&keys[0]);
        let same: Vec<&[u8; 16]> = keys
            .iter()
            .filter(|k| table_file::slice_of(&k[..]) == slice)
            .collect();
        for k in same.iter().take(100) {
            presence.insert(&k[..]);
        }
        assert!(presence.knows(slice));
        presence.insert(&same[100][..]);
        assert!(!presence.knows(slice));
        assert!(same.iter().all(|k| presence.may_hold(k)));
        assert!((0..SLICES)
            .filter(|&s| s != slice)
            .all(|s| presence.knows(s)));
    }
}
