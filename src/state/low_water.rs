//! The low-water marks: the oldest retained sequence number of each domain, in memory, so a root
//! tally of a forgotten document can be recognised as stale without deleting it.
//!
//! Retention forgets a domain's documents oldest first. A block that only the oldest document
//! held has a [`Tally::Single`] naming it at the domain root; deleting that tally when the
//! document goes costs a write per unique block of every forgotten page, as many writes as
//! inserting the page cost. Instead, once a domain's oldest retained sequence number
//! ([`DomainMeta::first_seq`]) has moved past a tally's document, the tally is stale: readers take
//! it as absent (`Txn` checks it against the domain it reads), and the counters' compaction filter
//! removes it with the marks kept here. A document forgotten out of order (a page's new version
//! replaces it) leaves a gap above the mark, so its tallies are still deleted when it goes.
//!
//! Guarantees: a mark is never above the committed `first_seq` of its domain (marks are set after
//! a commit succeeds and read back from the `domains` column family when the store opens), so
//! the filter removes only tallies of documents no retained state can hold. A domain without a
//! mark keeps all its tallies. A domain that empties is deleted with its root tallies (a range
//! deletion in the same commit) and loses its mark, so the sequence numbers it starts again from
//! are not mistaken for old ones.

use std::collections::HashMap;
use std::sync::RwLock;

use super::counter::Tally;
use super::keys::DomainMeta;

/// See the module documentation.
#[derive(Default)]
pub struct LowWater {
    marks: RwLock<HashMap<[u8; 8], u64>>,
}

impl LowWater {
    /// Records a domain's committed bookkeeping: its mark is its `first_seq`, none once it holds
    /// no document.
    pub fn set(&self, domain: [u8; 8], meta: &DomainMeta) {
        let mut marks = self.marks.write().unwrap_or_else(|e| e.into_inner());
        if meta.held() == 0 {
            marks.remove(&domain);
        } else {
            marks.insert(domain, meta.first_seq);
        }
    }

    /// True when the stored `counts` entry `key` → `value` is a domain root's tally of one
    /// document that the domain no longer retains.
    pub fn is_stale(&self, key: &[u8], value: &[u8]) -> bool {
        let Tally::Single(seq) = Tally::decode(Some(value)) else {
            return false;
        };
        let Some(domain) = key.get(..8).and_then(|d| <[u8; 8]>::try_from(d).ok()) else {
            return false;
        };
        let marks = self.marks.read().unwrap_or_else(|e| e.into_inner());
        marks.get(&domain).is_some_and(|&first| seq < first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(first_seq: u64, next_seq: u64) -> DomainMeta {
        DomainMeta {
            first_seq,
            next_seq,
            newest_ms: 0,
            gaps: 0,
        }
    }

    #[test]
    fn a_single_tally_below_its_domains_mark_is_stale() {
        let marks = LowWater::default();
        let domain = [7u8; 8];
        let key = [&domain[..], &[1u8; 8]].concat();
        let single = |seq| Tally::Single(seq).encode().unwrap_or_default();
        // No mark: nothing is stale.
        assert!(!marks.is_stale(&key, &single(0)));
        marks.set(domain, &meta(5, 9));
        assert!(marks.is_stale(&key, &single(4)));
        assert!(!marks.is_stale(&key, &single(5)));
        // Counts are never stale, whatever their value; other domains have no mark.
        assert!(!marks.is_stale(&key, &Tally::Counted(1).encode().unwrap_or_default()));
        let other = [&[8u8; 8][..], &[1u8; 8]].concat();
        assert!(!marks.is_stale(&other, &single(0)));
        // An emptied domain starts its numbers again: its mark goes.
        marks.set(domain, &meta(9, 9));
        assert!(!marks.is_stale(&key, &single(4)));
    }
}
