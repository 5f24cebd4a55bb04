//! The byte layout of every RocksDB key and small value (DESIGN §3).
//!
//! | column family | key | value |
//! |---|---|---|
//! | `counts` | node id (8) · block key or path key (8) | i64 count, merged |
//! | `support` | node id (8) | i64 `n_s`, merged |
//! | `docs` | domain id (8) · sequence (8, big-endian) | [`Fingerprint`](crate::tree::Fingerprint) |
//! | `seen` | domain id (8) · MD5 of the URL key (16) | sequence (8) |
//! | `domains` | domain id (8) | [`DomainMeta`] |
//! | `progress` | source name (UTF-8) | next offset to apply (8) |

use md5::{Digest, Md5};

use crate::tree::{BlockKey, NodeId};

/// Column family names, in the order they are opened.
pub const COLUMN_FAMILIES: [&str; 6] = ["counts", "support", "docs", "seen", "domains", "progress"];

/// Key of the count of `block` at `node`.
pub fn count_key(node: NodeId, block: &BlockKey) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&node.0);
    key[8..].copy_from_slice(block);
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainMeta {
    /// Sequence number of the oldest retained document.
    pub first_seq: u64,
    /// Sequence number the next document will get.
    pub next_seq: u64,
    /// Newest event time seen in the domain (ms since the epoch).
    pub newest_ms: i64,
}

impl DomainMeta {
    /// Documents retained.
    pub fn held(&self) -> u64 {
        self.next_seq - self.first_seq
    }

    /// The 24-byte stored form.
    pub fn encode(&self) -> [u8; 24] {
        let mut out = [0u8; 24];
        out[..8].copy_from_slice(&self.first_seq.to_be_bytes());
        out[8..16].copy_from_slice(&self.next_seq.to_be_bytes());
        out[16..].copy_from_slice(&self.newest_ms.to_be_bytes());
        out
    }

    /// Decodes [`DomainMeta::encode`]; `None` when the bytes are not 24 long or inconsistent.
    pub fn decode(bytes: &[u8]) -> Option<DomainMeta> {
        let first_seq = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        let next_seq = u64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?);
        let newest_ms = i64::from_be_bytes(bytes.get(16..24)?.try_into().ok()?);
        (bytes.len() == 24 && first_seq <= next_seq).then_some(DomainMeta {
            first_seq,
            next_seq,
            newest_ms,
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
        };
        assert_eq!(DomainMeta::decode(&m.encode()), Some(m));
        assert_eq!(m.held(), 6);
        assert_eq!(DomainMeta::decode(&[1, 2, 3]), None);
        let bad = DomainMeta {
            first_seq: 9,
            next_seq: 3,
            newest_ms: 0,
        };
        assert_eq!(DomainMeta::decode(&bad.encode()), None);
    }
}
