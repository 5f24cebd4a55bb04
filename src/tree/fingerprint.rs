//! The document fingerprint: everything the tree keeps of one page, and its byte encoding.
//!
//! The tree's counters are a pure function of the retained fingerprints (DESIGN §3): inserting a
//! fingerprint adds exactly what forgetting it subtracts.

use md5::{Digest, Md5};
use thiserror::Error;

use super::branch::NodeId;
use super::classic::link_template::LinkProfile;
use super::cluster::Membership;
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

/// The tree key of a block's element path (`Block::path`), counted beside the text keys so the
/// tree sees template *structure* as well as template text. The hashed input starts with a NUL
/// byte, which no block's letter string contains, so path keys and text keys come from disjoint
/// inputs and meet only by hash collision.
pub fn path_key(path: &str) -> BlockKey {
    let mut md5 = Md5::new();
    md5.update(b"\0path\0");
    md5.update(path.as_bytes());
    let digest = md5.finalize();
    let mut key = [0u8; 8];
    key.copy_from_slice(&digest[..8]);
    key
}

/// The first format: no path keys.
const FORMAT_V1: u8 = 1;
/// V1 followed by the path keys: the format of a fingerprint without links.
const FORMAT_V2: u8 = 2;
/// V2 followed by the page's [`LinkProfile`] (`link-template`).
const FORMAT_V3: u8 = 3;
/// V2 followed by a byte of flags saying what follows: the page's [`LinkProfile`] (bit 0) and
/// its template cluster's [`Membership`] (bit 1). Written only for a page of a template
/// cluster, so the state of a tree without clusters is unchanged.
const FORMAT_V4: u8 = 4;
/// [`FORMAT_V4`]'s flag of a link profile.
const HAS_LINKS: u8 = 1;
/// [`FORMAT_V4`]'s flag of a cluster membership.
const HAS_TEMPLATE: u8 = 2;

/// What the tree retains of one accepted page.
///
/// Guarantees: `blocks` and `paths` are sorted and free of duplicates, so each block and each
/// element path counts once per page.
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
    /// The distinct element-path keys ([`path_key`]) of the page's blocks, sorted.
    pub paths: Vec<BlockKey>,
    /// The page's same-site links and element signatures, kept for `link-template` only.
    pub links: Option<LinkProfile>,
    /// The template cluster the page joined ([`crate::tree::cluster`]); its cluster's node is
    /// then one of `nodes`.
    pub template: Option<Membership>,
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
            paths: Vec::new(),
            links: None,
            template: None,
        }
    }

    /// Adds the page's element-path keys, sorting and de-duplicating them.
    pub fn with_paths(mut self, mut paths: Vec<BlockKey>) -> Fingerprint {
        paths.sort_unstable();
        paths.dedup();
        self.paths = paths;
        self
    }

    /// Adds the page's link profile (its lists sorted and de-duplicated).
    pub fn with_links(mut self, mut links: LinkProfile) -> Fingerprint {
        links.out.sort_unstable();
        links.out.dedup();
        links.signatures.sort_unstable();
        links.signatures.dedup();
        self.links = Some(links);
        self
    }

    /// Records the template cluster the page joined.
    pub fn with_template(mut self, template: Membership) -> Fingerprint {
        self.template = Some(template);
        self
    }

    /// The compact binary form stored in RocksDB and written to the changelog (the second
    /// format when the fingerprint has no links and no cluster, the third with links alone, so
    /// the state of a tree without template clusters is unchanged).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            1 + 8
                + 4
                + self.url_key.len()
                + 2
                + 8 * self.nodes.len()
                + 4
                + 8 * self.blocks.len()
                + 4
                + 8 * self.paths.len(),
        );
        out.push(match (&self.links, &self.template) {
            (_, Some(_)) => FORMAT_V4,
            (Some(_), None) => FORMAT_V3,
            (None, None) => FORMAT_V2,
        });
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
        out.extend_from_slice(&(self.paths.len() as u32).to_be_bytes());
        for path in &self.paths {
            out.extend_from_slice(path);
        }
        if self.template.is_some() {
            let links = if self.links.is_some() { HAS_LINKS } else { 0 };
            out.push(links | HAS_TEMPLATE);
        }
        if let Some(links) = &self.links {
            out.extend_from_slice(&links.id.to_be_bytes());
            for list in [&links.out, &links.signatures] {
                out.extend_from_slice(&(list.len() as u32).to_be_bytes());
                for value in list {
                    out.extend_from_slice(&value.to_be_bytes());
                }
            }
        }
        if let Some(template) = &self.template {
            out.extend_from_slice(&template.node.0);
            out.push(template.cluster);
        }
        out
    }

    /// Decodes [`Fingerprint::encode`]'s output (and the first format, which has no path keys);
    /// never panics on arbitrary bytes.
    pub fn decode(bytes: &[u8]) -> Result<Fingerprint, FingerprintError> {
        let mut reader = Reader { bytes, offset: 0 };
        let format = reader.take::<1>()?[0];
        if !matches!(format, FORMAT_V1 | FORMAT_V2 | FORMAT_V3 | FORMAT_V4) {
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
        let mut paths = Vec::new();
        if format >= FORMAT_V2 {
            let n_paths = u32::from_be_bytes(reader.take::<4>()?) as usize;
            paths.reserve(n_paths.min(1 << 16));
            for _ in 0..n_paths {
                paths.push(reader.take::<8>()?);
            }
        }
        let flags = match format {
            FORMAT_V3 => HAS_LINKS,
            FORMAT_V4 => reader.take::<1>()?[0],
            _ => 0,
        };
        if flags & !(HAS_LINKS | HAS_TEMPLATE) != 0 {
            return Err(FingerprintError::UnknownFormat(format));
        }
        let links = if flags & HAS_LINKS != 0 {
            let id = u64::from_be_bytes(reader.take::<8>()?);
            let mut lists = [Vec::new(), Vec::new()];
            for list in &mut lists {
                let n = u32::from_be_bytes(reader.take::<4>()?) as usize;
                list.reserve(n.min(1 << 16));
                for _ in 0..n {
                    list.push(u64::from_be_bytes(reader.take::<8>()?));
                }
            }
            let [out, signatures] = lists;
            Some(LinkProfile {
                id,
                out,
                signatures,
            })
        } else {
            None
        };
        let template = if flags & HAS_TEMPLATE != 0 {
            let node = NodeId(reader.take::<8>()?);
            let cluster = reader.take::<1>()?[0];
            Some(Membership { node, cluster })
        } else {
            None
        };
        Ok(Fingerprint {
            time_ms,
            url_key,
            nodes,
            blocks,
            paths,
            links,
            template,
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
        let fp = fp.with_paths(vec![[5; 8], [2; 8], [5; 8]]);
        assert_eq!(fp.paths, vec![[2; 8], [5; 8]]);
    }

    #[test]
    fn first_format_decodes_without_paths() {
        let fp = Fingerprint::new(7, "k".into(), vec![NodeId([1; 8])], vec![[3; 8]]);
        let mut v1 = fp.encode();
        v1[0] = FORMAT_V1;
        v1.truncate(v1.len() - 4);
        assert_eq!(Fingerprint::decode(&v1), Ok(fp));
    }

    #[test]
    fn path_keys_are_apart_from_text_keys() {
        assert_ne!(path_key("html/body/p"), path_key("html/body/div/p"));
        let text = crate::blocks::block_hash("html body p").unwrap();
        assert_ne!(path_key("htmlbodyp"), block_key(&text));
    }

    proptest! {
        #[test]
        fn roundtrip(time in any::<i64>(), key in ".{0,40}", nodes in prop::collection::vec(any::<[u8; 8]>(), 0..10),
                     blocks in prop::collection::vec(any::<[u8; 8]>(), 0..50),
                     paths in prop::collection::vec(any::<[u8; 8]>(), 0..20)) {
            let fp = Fingerprint::new(time, key, nodes.into_iter().map(NodeId).collect(), blocks)
                .with_paths(paths);
            prop_assert_eq!(Fingerprint::decode(&fp.encode()), Ok(fp.clone()));
            let links = LinkProfile { id: time as u64, out: vec![3, 1, 3], signatures: vec![9, 2] };
            let linked = fp.clone().with_links(links);
            prop_assert_eq!(linked.links.as_ref().map(|l| l.out.clone()), Some(vec![1, 3]));
            prop_assert_eq!(Fingerprint::decode(&linked.encode()), Ok(linked.clone()));
            let member = Membership { node: NodeId([7; 8]), cluster: (time & 31) as u8 };
            let clustered = fp.clone().with_template(member);
            prop_assert_eq!(clustered.encode()[0], FORMAT_V4);
            prop_assert_eq!(Fingerprint::decode(&clustered.encode()), Ok(clustered));
            let both = linked.with_template(member);
            prop_assert_eq!(Fingerprint::decode(&both.encode()), Ok(both));
        }

        #[test]
        fn decode_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = Fingerprint::decode(&bytes);
        }

        #[test]
        fn truncation_is_an_error(cut in 0usize..60) {
            let fp = Fingerprint::new(1, "http://a.com/x".into(), vec![NodeId([2; 8])], vec![[9; 8]])
                .with_paths(vec![[4; 8]]);
            let bytes = fp.encode();
            let cut = cut.min(bytes.len() - 1);
            prop_assert!(Fingerprint::decode(&bytes[..cut]).is_err());
        }
    }
}
