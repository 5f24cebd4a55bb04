//! The byte layout of every RocksDB key and small value (DESIGN §3).
//!
//! | column family | key | value |
//! |---|---|---|
//! | `counts` | node id (8) · block key or path key (8) | i64 count, merged; at a domain root a [`Tally`](super::counter::Tally): the count, or 1 and the sequence of the one document holding the block, which is then stored nowhere below (stale, and read as absent, once the domain's `first_seq` is past it) |
//! | `counts` | [`FOLDED`](super::journal::FOLDED): 8 zero bytes | the counter journal's fold mark: sequence (8, big-endian) of the first `journal` record not folded |
//! | `support` | node id (8) | i64 `n_s`, merged |
//! | `docs` | domain id (8) · sequence (8, big-endian) | [`Fingerprint`](crate::tree::Fingerprint) |
//! | `seen` | domain id (8) · MD5 of the URL key (16) | sequence (8) |
//! | `domains` | domain id (8) | [`DomainMeta`] (24 bytes, or 32 when it has gaps) |
//! | `progress` | source name (UTF-8) | next offset to apply (8) |
//! | `progress` | `0xff` · name (see [`super::delivery`]) | `urltree extract`'s delivery mark and outbox |
//! | `journal` | record sequence (8, big-endian) | one batch's `counts` writes not yet folded (see [`super::journal`]) |
//! | `clusters` | domain id (8) · node id (8) | the node's template clusters, [`NodeClusters`](crate::tree::cluster::NodeClusters) (only with `[tree.template_clusters]` on) |

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use md5::{Digest, Md5};

use crate::tree::{BlockKey, NodeId};

/// Hashes counter keys, which are already MD5-derived and uniformly distributed, by folding their
/// bytes into a word instead of running SipHash over them (the batch maps and the counter journal
/// see every block of every page).
#[derive(Default)]
pub struct FoldHasher(u64);

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(29) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map over keys of this module (MD5-derived bytes).
pub type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<FoldHasher>>;

/// Column family names, in the order they are opened.
pub const COLUMN_FAMILIES: [&str; 8] = [
    "counts", "support", "docs", "seen", "domains", "progress", "journal", "clusters",
];

/// A 64-bit hash of a 16-byte key for in-memory tables (the hot counters, the counters'
/// filters). The keys are MD5-derived bytes, so mixing their two halves is enough; the high bits
/// are the best mixed.
pub fn mix(key: &[u8; 16]) -> u64 {
    let (a, b) = key.split_at(8);
    let word = |half: &[u8]| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(half);
        u64::from_le_bytes(bytes)
    };
    (word(a).rotate_left(23) ^ word(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Key of the count of `block` at `node`.
pub fn count_key(node: NodeId, block: &BlockKey) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&node.0);
    key[8..].copy_from_slice(block);
    key
}

/// Key of the template clusters of `node` of `domain`.
pub fn clusters_key(domain: NodeId, node: NodeId) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&domain.0);
    key[8..].copy_from_slice(&node.0);
    key
}

/// Key of one retained document of a domain, ordered by arrival.
pub fn doc_key(domain: NodeId, seq: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&domain.0);
    key[8..].copy_from_slice(&seq.to_be_bytes());
    key
}

/// Key of a URL key's duplicate-check entry in its domain.
pub fn seen_key(domain: NodeId, url_key: &str) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..8].copy_from_slice(&domain.0);
    key[8..].copy_from_slice(&Md5::digest(url_key.as_bytes()));
    key
}

/// Per-domain bookkeeping: the arrival sequence numbers of the retained documents and the newest
/// event time. Derived from the `docs` column family; kept so eviction needs no scan.
///
/// The retained documents have sequence numbers in `first_seq..next_seq`, except for `gaps` of
/// them: documents replaced by a newer version of their page, which moved to the end. A gap is
/// skipped (and `first_seq` moves past it) when it becomes the oldest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainMeta {
    /// Sequence number of the oldest retained document, or of a gap before it.
    pub first_seq: u64,
    /// Sequence number the next document will get.
    pub next_seq: u64,
    /// Newest event time seen in the domain (ms since the epoch).
    pub newest_ms: i64,
    /// Sequence numbers in `first_seq..next_seq` that hold no document.
    pub gaps: u64,
}

impl DomainMeta {
    /// Documents retained.
    pub fn held(&self) -> u64 {
        self.next_seq - self.first_seq - self.gaps
    }

    /// The stored form: 24 bytes (first, next, newest), followed by the gaps only when there are
    /// any, so a domain without gaps is stored as before gaps existed.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32);
        out.extend_from_slice(&self.first_seq.to_be_bytes());
        out.extend_from_slice(&self.next_seq.to_be_bytes());
        out.extend_from_slice(&self.newest_ms.to_be_bytes());
        if self.gaps > 0 {
            out.extend_from_slice(&self.gaps.to_be_bytes());
        }
        out
    }

    /// Decodes [`DomainMeta::encode`]; `None` when the bytes are not 24 or 32 long or inconsistent.
    pub fn decode(bytes: &[u8]) -> Option<DomainMeta> {
        let first_seq = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        let next_seq = u64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?);
        let newest_ms = i64::from_be_bytes(bytes.get(16..24)?.try_into().ok()?);
        let gaps = match bytes.len() {
            24 => 0,
            32 => u64::from_be_bytes(bytes.get(24..32)?.try_into().ok()?),
            _ => return None,
        };
        (first_seq <= next_seq && gaps <= next_seq - first_seq).then_some(DomainMeta {
            first_seq,
            next_seq,
            newest_ms,
            gaps,
        })
    }
}

/// Decodes a stored 8-byte big-endian integer.
pub fn decode_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_keys_sort_by_sequence_within_a_domain() {
        let d = NodeId([7; 8]);
        assert!(doc_key(d, 2) < doc_key(d, 10));
        assert!(doc_key(d, 255) < doc_key(d, 256));
    }

    #[test]
    fn domain_meta_roundtrip_and_rejects_garbage() {
        let m = DomainMeta {
            first_seq: 3,
            next_seq: 9,
            newest_ms: -5,
            gaps: 0,
        };
        assert_eq!(m.encode().len(), 24);
        assert_eq!(DomainMeta::decode(&m.encode()), Some(m));
        assert_eq!(m.held(), 6);
        let gapped = DomainMeta { gaps: 2, ..m };
        assert_eq!(gapped.encode().len(), 32);
        assert_eq!(DomainMeta::decode(&gapped.encode()), Some(gapped));
        assert_eq!(gapped.held(), 4);
        assert_eq!(DomainMeta::decode(&[1, 2, 3]), None);
        assert_eq!(DomainMeta::decode(&[0; 28]), None);
        let bad = DomainMeta {
            first_seq: 9,
            next_seq: 3,
            newest_ms: 0,
            gaps: 0,
        };
        assert_eq!(DomainMeta::decode(&bad.encode()), None);
        let too_many_gaps = DomainMeta { gaps: 7, ..m };
        assert_eq!(DomainMeta::decode(&too_many_gaps.encode()), None);
    }
}
