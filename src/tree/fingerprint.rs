//! The document fingerprint: everything the tree keeps of one page, and its byte encoding.
//!
//! The tree's counters are a pure function of the retained fingerprints (DESIGN §3): inserting a
//! fingerprint adds exactly what forgetting it subtracts.

use thiserror::Error;

use super::branch::NodeId;
use crate::blocks::BlockHash;

/// A block's identity in the tree: the first 8 bytes of its MD5 [`BlockHash`]. Within one node
/// two distinct blocks share a key with probability about n²/2⁶⁵ (n distinct blocks), which is
/// negligible for any node a domain can fill; half the bytes halve the state.
pub type BlockKey = [u8; 8];

/// The tree key of a block hash.
pub fn block_key(hash: &BlockHash) -> BlockKey {
    let mut key = [0u8; 8];
    key.copy_from_slice(&hash[..8]);
    key
}

const FORMAT_V1: u8 = 1;

/// What the tree retains of one accepted page.
///
/// Guarantees: `blocks` is sorted and free of duplicates, so each block counts once per page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Event time of the page (milliseconds since the Unix epoch).
    pub time_ms: i64,
    /// The page's URL key (the duplicate-check identity).
    pub url_key: String,
    /// Node ids of the page's branch, root first.
    pub nodes: Vec<NodeId>,
    /// The distinct block keys of the page, sorted.
    pub blocks: Vec<BlockKey>,
}

/// A stored fingerprint could not be decoded: the state is corrupt or from an unknown format.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum FingerprintError {
    /// The first byte names a format this build does not know.
    #[error("unknown fingerprint format {0}")]
    UnknownFormat(u8),
    /// The bytes end before the announced content.
    #[error("truncated fingerprint: needed {needed} bytes at offset {offset}, have {len}")]
    Truncated {
        /// Bytes needed at that point.
        needed: usize,
        /// Where decoding stopped.
        offset: usize,
        /// Total length.
        len: usize,
    },
    /// The URL key is not UTF-8.
    #[error("fingerprint URL key is not UTF-8")]
    BadUrlKey,
}

impl Fingerprint {
    /// Builds a fingerprint, sorting and de-duplicating the block hashes.
    pub fn new(
        time_ms: i64,
        url_key: String,
        nodes: Vec<NodeId>,
        mut blocks: Vec<BlockKey>,
    ) -> Fingerprint {
        blocks.sort_unstable();
        blocks.dedup();
        Fingerprint {
            time_ms,
            url_key,
            nodes,
            blocks,
        }
    }

    /// The compact binary form stored in RocksDB and written to the changelog.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            1 + 8 + 4 + self.url_key.len() + 2 + 8 * self.nodes.len() + 4 + 8 * self.blocks.len(),
        );
        out.push(FORMAT_V1);
        out.extend_from_slice(&self.time_ms.to_be_bytes());
        out.extend_from_slice(&(self.url_key.len() as u32).to_be_bytes());
        out.extend_from_slice(self.url_key.as_bytes());
        out.extend_from_slice(&(self.nodes.len() as u16).to_be_bytes());
        for node in &self.nodes {
            out.extend_from_slice(&node.0);
        }
        out.extend_from_slice(&(self.blocks.len() as u32).to_be_bytes());
        for block in &self.blocks {
            out.extend_from_slice(block);
        }
        out
    }

    /// Decodes [`Fingerprint::encode`]'s output; never panics on arbitrary bytes.
    pub fn decode(bytes: &[u8]) -> Result<Fingerprint, FingerprintError> {
        let mut reader = Reader { bytes, offset: 0 };
        let format = reader.take::<1>()?[0];
        if format != FORMAT_V1 {
            return Err(FingerprintError::UnknownFormat(format));
        }
        let time_ms = i64::from_be_bytes(reader.take::<8>()?);
        let key_len = u32::from_be_bytes(reader.take::<4>()?) as usize;
        let url_key = std::str::from_utf8(reader.slice(key_len)?)
            .map_err(|_| FingerprintError::BadUrlKey)?
            .to_owned();
        let n_nodes = u16::from_be_bytes(reader.take::<2>()?) as usize;
        let mut nodes = Vec::with_capacity(n_nodes.min(1024));
        for _ in 0..n_nodes {
            nodes.push(NodeId(reader.take::<8>()?));
        }
        let n_blocks = u32::from_be_bytes(reader.take::<4>()?) as usize;
        let mut blocks = Vec::with_capacity(n_blocks.min(1 << 16));
        for _ in 0..n_blocks {
            blocks.push(reader.take::<8>()?);
        }
        Ok(Fingerprint {
            time_ms,
            url_key,
            nodes,
            blocks,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    fn slice(&mut self, n: usize) -> Result<&'a [u8], FingerprintError> {
        let end = self
            .offset
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.offset..end];
                self.offset = end;
                Ok(s)
            }
            None => Err(FingerprintError::Truncated {
                needed: n,
                offset: self.offset,
                len: self.bytes.len(),
            }),
        }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], FingerprintError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.slice(N)?);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn new_sorts_and_dedups_blocks() {
        let fp = Fingerprint::new(
            5,
            "k".into(),
            vec![NodeId([1; 8])],
            vec![[3; 8], [1; 8], [3; 8]],
        );
        assert_eq!(fp.blocks, vec![[1; 8], [3; 8]]);
    }

    proptest! {
        #[test]
        fn roundtrip(time in any::<i64>(), key in ".{0,40}", nodes in prop::collection::vec(any::<[u8; 8]>(), 0..10),
                     blocks in prop::collection::vec(any::<[u8; 8]>(), 0..50)) {
            let fp = Fingerprint::new(time, key, nodes.into_iter().map(NodeId).collect(), blocks);
            prop_assert_eq!(Fingerprint::decode(&fp.encode()), Ok(fp));
        }

        #[test]
        fn decode_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = Fingerprint::decode(&bytes);
        }

        #[test]
        fn truncation_is_an_error(cut in 0usize..60) {
            let fp = Fingerprint::new(1, "http://a.com/x".into(), vec![NodeId([2; 8])], vec![[9; 8]]);
            let bytes = fp.encode();
            let cut = cut.min(bytes.len() - 1);
            prop_assert!(Fingerprint::decode(&bytes[..cut]).is_err());
        }
    }
}
