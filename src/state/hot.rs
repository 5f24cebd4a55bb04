//! The hot counters: a write-through copy of recently read or written `counts` values in memory.
//!
//! A site's template blocks are read at their node for every page the node classifies, and their
//! root tallies are read and rewritten for every page inserted and forgotten; in a state that
//! turns over, most of those values sit in table files, and each read is a search through every
//! memtable and level. The hot counters keep the last value seen for a key in a direct-mapped
//! table (a key's slot is a hash of it; a new key takes the slot over), so a value read or
//! written once is answered from memory until another key takes its slot.
//!
//! Guarantees: a value answered is the value stored, because every write of the `counts` column
//! family goes through [`HotCounters::apply`] after it is committed (a put or delete replaces the
//! slot's value, a merge adds to it), and a bulk load or a failed commit empties the table. The
//! absence of a key is kept too ("known absent"), so a counter deleted at zero is not looked up
//! again.

use std::sync::{Mutex, MutexGuard};

use super::{counter, keys, Write};

/// The fewest slots a table has, whatever its budget.
const MIN_SLOTS_LOG2: u32 = 10;

/// The longest value kept: a root tally of one document.
const MAX_VALUE: usize = 16;

#[derive(Clone, Copy)]
struct Slot {
    key: [u8; 16],
    /// 0: empty; 1: the key is absent; 2 + n: a value of n bytes.
    state: u8,
    value: [u8; MAX_VALUE],
}

const EMPTY: Slot = Slot {
    key: [0; 16],
    state: 0,
    value: [0; MAX_VALUE],
};

/// See the module documentation.
pub struct HotCounters {
    /// A power-of-two number of slots.
    slots: Mutex<Vec<Slot>>,
}

/// The slot of `key` in a table of `slots` slots (a power of two).
fn slot_of(key: &[u8; 16], slots: usize) -> usize {
    (keys::mix(key) >> (64 - slots.trailing_zeros())) as usize
}

/// The locked table, for a run of look-ups or updates.
pub struct Locked<'a>(MutexGuard<'a, Vec<Slot>>);

impl HotCounters {
    /// A table of as many slots as `bytes` holds, rounded down to a power of two (at least
    /// 1,024 slots).
    pub fn with_bytes(bytes: usize) -> HotCounters {
        let slots = (bytes / std::mem::size_of::<Slot>()).max(1);
        let slots_log2 = (usize::BITS - 1 - slots.leading_zeros()).max(MIN_SLOTS_LOG2);
        HotCounters {
            slots: Mutex::new(vec![EMPTY; 1 << slots_log2]),
        }
    }

    /// The bytes the table's slots take.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.lock().0.len() * std::mem::size_of::<Slot>()
    }

    /// Locks the table (a poisoned lock is recovered: the table holds plain values).
    pub fn lock(&self) -> Locked<'_> {
        Locked(self.slots.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Forgets everything (after a bulk load or a failed commit).
    pub fn clear(&self) {
        self.lock().0.fill(EMPTY);
    }

    /// Applies committed writes.
    pub fn apply<'k>(&self, writes: impl IntoIterator<Item = (&'k [u8; 16], &'k Write)>) {
        let mut table = self.lock();
        for (key, write) in writes {
            match write {
                Write::Put(value) => table.fill(key, Some(value)),
                Write::Delete => table.fill(key, None),
                Write::Merge(delta) => table.merge(key, *delta),
            }
        }
    }
}

impl Locked<'_> {
    /// What the table knows of `key`: `None` when nothing (read it from the database),
    /// `Some(None)` when the key is absent, `Some(Some(value))` its stored value.
    pub fn get(&self, key: &[u8; 16]) -> Option<Option<&[u8]>> {
        let slot = &self.0[slot_of(key, self.0.len())];
        if slot.state == 0 || slot.key != *key {
            return None;
        }
        Some(match slot.state {
            1 => None,
            n => Some(&slot.value[..usize::from(n - 2)]),
        })
    }

    /// Records `key`'s stored value (`None`: absent). A value too long to keep empties the slot
    /// if it held the key.
    pub fn fill(&mut self, key: &[u8; 16], value: Option<&[u8]>) {
        let i = slot_of(key, self.0.len());
        let slot = &mut self.0[i];
        match value {
            None => {
                slot.key = *key;
                slot.state = 1;
            }
            Some(v) if v.len() <= MAX_VALUE => {
                slot.key = *key;
                slot.state = 2 + v.len() as u8;
                slot.value[..v.len()].copy_from_slice(v);
            }
            Some(_) => {
                if slot.key == *key {
                    slot.state = 0;
                }
            }
        }
    }

    /// Adds a merged `delta` to `key`'s value where the table knows it; a merge into an absent
    /// key stores the delta, as the merge operator does.
    fn merge(&mut self, key: &[u8; 16], delta: i64) {
        let i = slot_of(key, self.0.len());
        let slot = &mut self.0[i];
        if slot.key != *key || slot.state == 0 {
            return;
        }
        let base = match slot.state {
            1 => 0,
            n => counter::decode(&slot.value[..usize::from(n - 2)]),
        };
        let sum = counter::encode(base.wrapping_add(delta));
        slot.state = 2 + sum.len() as u8;
        slot.value[..sum.len()].copy_from_slice(&sum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_answers_what_was_written_and_nothing_else() {
        let hot = HotCounters::with_bytes(1 << 20);
        let (a, b) = ([1u8; 16], [2u8; 16]);
        assert_eq!(hot.lock().get(&a), None);
        hot.lock().fill(&a, Some(&counter::encode(3)));
        assert_eq!(hot.lock().get(&a), Some(Some(&counter::encode(3)[..])));
        assert_eq!(hot.lock().get(&b), None);
        hot.apply([(&a, &Write::Merge(2)), (&b, &Write::Merge(5))]);
        assert_eq!(hot.lock().get(&a), Some(Some(&counter::encode(5)[..])));
        // A merge into a key the table does not know stays unknown.
        assert_eq!(hot.lock().get(&b), None);
        hot.apply([(&a, &Write::Delete)]);
        assert_eq!(hot.lock().get(&a), Some(None));
        hot.apply([(&a, &Write::Merge(1))]);
        assert_eq!(hot.lock().get(&a), Some(Some(&counter::encode(1)[..])));
        let single = [counter::encode(1), 9u64.to_be_bytes()].concat();
        hot.apply([(&b, &Write::Put(single.clone()))]);
        assert_eq!(hot.lock().get(&b), Some(Some(&single[..])));
        hot.lock().fill(&b, Some(&[0u8; 17]));
        assert_eq!(hot.lock().get(&b), None);
        hot.clear();
        assert_eq!(hot.lock().get(&a), None);
    }

    #[test]
    fn the_table_takes_the_largest_power_of_two_of_slots_its_budget_holds() {
        let slot = std::mem::size_of::<Slot>();
        assert_eq!(HotCounters::with_bytes(36 << 20).bytes(), (1 << 20) * slot);
        assert_eq!(
            HotCounters::with_bytes((1 << 20) * slot - 1).bytes(),
            (1 << 19) * slot
        );
        assert_eq!(
            HotCounters::with_bytes(0).bytes(),
            (1 << MIN_SLOTS_LOG2) * slot
        );
    }

    #[test]
    fn a_key_that_takes_a_slot_over_hides_the_one_before() {
        let hot = HotCounters::with_bytes(1 << 20);
        let a = [7u8; 16];
        let slots = hot.lock().0.len();
        let other = (0u32..)
            .map(|i| {
                let mut k = [0u8; 16];
                k[..4].copy_from_slice(&i.to_le_bytes());
                k
            })
            .find(|k| slot_of(k, slots) == slot_of(&a, slots) && *k != a)
            .unwrap_or(a);
        assert_ne!(other, a);
        hot.lock().fill(&a, None);
        hot.lock().fill(&other, Some(&counter::encode(4)));
        assert_eq!(hot.lock().get(&a), None);
        // A merge into the displaced key leaves the new one alone.
        hot.apply([(&a, &Write::Merge(1))]);
        assert_eq!(hot.lock().get(&other), Some(Some(&counter::encode(4)[..])));
    }
}
