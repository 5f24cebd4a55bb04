//! Template clusters: the pages of one URL node split by the template that made them.
//!
//! Reference: T. Gottron, "Clustering Template Based Web Documents", ECIR 2008, and his
//! dissertation "Content Extraction: Identifying the Main Content in HTML Documents"
//! (Mainz, 2008/2009), chapter on template detection: the distance of two pages is read from
//! their DOM structure (common paths, common path shingles, tag-sequence shingles), and single
//! linkage over *common paths* separated the pages of five news sites by template without an
//! error.
//!
//! A site serves pages of several templates under one URL node (an article and a gallery under
//! `/2024/05/`), and the URL Tree counts their blocks together: a block that is on every gallery
//! page is on a small share of the node's pages. Here a page's *signature* is its set of element
//! paths (Gottron's common paths; the tree already keeps each distinct element path of a page's
//! blocks as a [`path_key`](super::path_key)), as a bottom-k sample of [`SIGNATURE_KEYS`]
//! keys; two signatures' similarity is the sample's estimate of the Jaccard coefficient of the
//! two sets. A node holds at most [`MAX_CLUSTERS`] clusters, each with the signatures of its
//! [`REPRESENTATIVES`] newest members; a page joins the cluster whose nearest representative is
//! most similar, at least [`TemplateClusters::similarity`] (streaming single linkage), or starts
//! a new one. The cluster is a virtual child of the node ([`cluster_node`]): the page's
//! counts go there as to every node of its branch, so the node and its ancestors count every
//! page and the cluster the pages of its template alone.
//!
//! Pure data and decisions, free of I/O: the state keeps a node's [`NodeClusters`] and updates
//! them as documents are inserted and forgotten; the engine asks [`NodeClusters::assign`].

use md5::{Digest, Md5};

use super::branch::{Branch, NodeId};
use super::fingerprint::BlockKey;
use super::heuristic::STRICT_MIN_SUPPORT;

/// Element-path keys a signature keeps: the smallest ones (a bottom-k sample). Most pages have
/// fewer distinct element paths than this (a median of 12 to 33 on the corpus's sets), so their
/// signature is the whole set.
pub const SIGNATURE_KEYS: usize = 32;

/// Members of a cluster whose signatures are kept: the newest ones.
pub const REPRESENTATIVES: usize = 4;

/// The most clusters a node can hold, whatever the configuration.
pub const MAX_CLUSTERS: usize = 32;

/// The default [`TemplateClusters::decide_support`].
pub const DECIDE_SUPPORT: u64 = 20;

/// `[tree.template_clusters]`: whether a node's pages are split by template, and how.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TemplateClusters {
    /// Split the pages of a node by template (off by default; see docs/ablation.md).
    pub enabled: bool,
    /// Least estimated Jaccard similarity of the element-path sets of a page and of one of a
    /// cluster's representatives for the page to join the cluster.
    pub similarity: f64,
    /// Support a node needs before its pages are clustered: the deepest node of the page's
    /// branch with at least this many pages is the one split.
    pub min_support: u64,
    /// Clusters a node holds at most (at most [`MAX_CLUSTERS`]); a page like none of them when
    /// the node is full joins none and is counted at the node alone.
    pub max_clusters: usize,
    /// Pages a cluster needs before it decides for its pages; below that the heuristic climbs
    /// past it to the node it splits (or further), as past any node short of support. Twenty by
    /// default: below twenty pages `hybrid`'s share test (a block on more than a tenth of the
    /// node's pages) adds nothing to `c_max`, and a cluster of a few pages takes the same story
    /// published twice, or a text shared by two pages of a kind, for its template.
    pub decide_support: u64,
}

impl Default for TemplateClusters {
    fn default() -> Self {
        TemplateClusters {
            enabled: false,
            similarity: 0.5,
            min_support: STRICT_MIN_SUPPORT,
            max_clusters: 8,
            decide_support: DECIDE_SUPPORT,
        }
    }
}

impl TemplateClusters {
    /// Checks the ranges no type can express; `Err` names the field and the reason.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.similarity > 0.0 && self.similarity <= 1.0) {
            return Err((
                "tree.template_clusters.similarity",
                "must be above 0 and at most 1".into(),
            ));
        }
        if self.min_support == 0 {
            return Err((
                "tree.template_clusters.min_support",
                "must be at least 1".into(),
            ));
        }
        if self.max_clusters == 0 || self.max_clusters > MAX_CLUSTERS {
            return Err((
                "tree.template_clusters.max_clusters",
                format!("must be between 1 and {MAX_CLUSTERS}"),
            ));
        }
        Ok(())
    }
}

/// A page's template signature: the [`SIGNATURE_KEYS`] smallest of its element-path keys, each
/// by its first four bytes (big-endian), sorted and distinct.
///
/// The keys are MD5-derived, so the smallest ones are a uniform sample of the set (a bottom-k
/// sketch, Cohen & Kaplan 2007), and their first four bytes order them as the whole keys do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature(pub Vec<u32>);

impl Signature {
    /// The signature of a page from its element-path keys, sorted and distinct as a
    /// [`Fingerprint`](super::Fingerprint) keeps them.
    pub fn of(paths: &[BlockKey]) -> Signature {
        let mut keys: Vec<u32> = paths
            .iter()
            .map(|k| u32::from_be_bytes([k[0], k[1], k[2], k[3]]))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.truncate(SIGNATURE_KEYS);
        Signature(keys)
    }

    /// The estimated Jaccard coefficient of the two pages' element-path sets, in `[0, 1]`: of
    /// the [`SIGNATURE_KEYS`] smallest keys of the two signatures together, the share both
    /// hold (the bottom-k estimator). Exact when both pages have at most [`SIGNATURE_KEYS`]
    /// element paths; 0 when either is empty.
    pub fn similarity(&self, other: &Signature) -> f64 {
        let (a, b) = (&self.0, &other.0);
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        let (mut i, mut j) = (0usize, 0usize);
        let (mut seen, mut both) = (0u32, 0u32);
        while (seen as usize) < SIGNATURE_KEYS && (i < a.len() || j < b.len()) {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x < y => i += 1,
                (Some(_), None) => i += 1,
                _ => j += 1,
            }
            seen += 1;
        }
        f64::from(both) / seen as f64
    }
}

/// The identity of a cluster's member: a hash of its URL key, which a rebuild from the
/// changelog gives alike.
pub fn member_id(url_key: &str) -> u64 {
    let digest = Md5::digest(url_key.as_bytes());
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(id)
}

/// The virtual child of `node` that counts the pages of its cluster `cluster`. The hashed input
/// holds a NUL byte, which no URL segment does, so it names no node of any branch.
pub fn cluster_node(node: NodeId, cluster: u8) -> NodeId {
    let mut md5 = Md5::new();
    md5.update(node.0);
    md5.update(b"\0template\0");
    md5.update([cluster]);
    let digest = md5.finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    NodeId(id)
}

/// The name of a cluster node in a branch's readable path.
pub fn cluster_name(cluster: u8) -> String {
    format!("~template-{cluster}")
}

/// Where a page of a node's template cluster goes: the node split (`node`, at `depth` of the
/// page's branch) and the cluster's number there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membership {
    /// The node whose pages are split.
    pub node: NodeId,
    /// The cluster's number at that node (below [`MAX_CLUSTERS`]).
    pub cluster: u8,
}

/// The branch of a page that joined a cluster: `branch` with the cluster node inserted below the
/// node at `depth`, so the page's counts go to the node, its ancestors and the cluster.
pub fn with_cluster(branch: &Branch, depth: usize, cluster: u8) -> Branch {
    let mut ids = branch.ids.clone();
    let mut names = branch.names.clone();
    let at = (depth + 1).min(ids.len().saturating_sub(1));
    ids.insert(at, cluster_node(branch.ids[at - 1], cluster));
    names.insert(at, cluster_name(cluster));
    Branch { ids, names }
}

/// The deepest node of a branch whose support (`supports`, root first, of the stored nodes
/// before the page is inserted) is at least `min_support`: the node whose pages are split.
pub fn split_depth(supports: &[u64], min_support: u64) -> Option<usize> {
    supports.iter().rposition(|&s| s >= min_support)
}

/// One template cluster of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Its number at the node.
    pub id: u8,
    /// Retained documents in it.
    pub members: u64,
    /// The signatures of its newest members (at most [`REPRESENTATIVES`]), oldest first, each
    /// with the member's [`member_id`].
    pub representatives: Vec<(u64, Signature)>,
}

/// The template clusters of one node, as the state keeps them.
///
/// Guarantees: at most [`MAX_CLUSTERS`] clusters of distinct numbers, each with at least one
/// member and at most [`REPRESENTATIVES`] representatives; a cluster whose last member is
/// forgotten is gone, and its number free again (nothing is counted at its node any more).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeClusters {
    /// The clusters, by number.
    pub clusters: Vec<Cluster>,
}

/// What [`NodeClusters::assign`] decided for a page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Assignment {
    /// It joins cluster `id`, whose nearest representative is `similarity` alike.
    Join {
        /// The cluster.
        id: u8,
        /// Its nearest representative's similarity.
        similarity: f64,
    },
    /// It starts cluster `id`.
    New {
        /// The cluster.
        id: u8,
    },
    /// It is like no cluster and the node is full: it joins none.
    Full,
}

impl Assignment {
    /// The cluster the page goes to, if any.
    pub fn cluster(self) -> Option<u8> {
        match self {
            Assignment::Join { id, .. } | Assignment::New { id } => Some(id),
            Assignment::Full => None,
        }
    }
}

impl NodeClusters {
    /// True when the node holds no cluster.
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    /// Single linkage: the cluster with the representative most similar to `signature`, when
    /// that similarity reaches `params.similarity` (the lower number on a tie); else a new
    /// cluster with the smallest free number, unless the node holds `params.max_clusters`.
    pub fn assign(&self, signature: &Signature, params: &TemplateClusters) -> Assignment {
        let mut best: Option<(u8, f64)> = None;
        for cluster in &self.clusters {
            for (_, rep) in &cluster.representatives {
                let s = signature.similarity(rep);
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((cluster.id, s));
                }
            }
        }
        if let Some((id, similarity)) = best.filter(|(_, s)| *s >= params.similarity) {
            return Assignment::Join { id, similarity };
        }
        let limit = params.max_clusters.min(MAX_CLUSTERS);
        if self.clusters.len() >= limit {
            return Assignment::Full;
        }
        let free = (0..MAX_CLUSTERS as u8)
            .find(|id| self.clusters.iter().all(|c| c.id != *id))
            .unwrap_or(0);
        Assignment::New { id: free }
    }

    /// Adds a member to cluster `id` (created when absent): one more member, and its signature
    /// as the newest representative (the oldest dropped beyond [`REPRESENTATIVES`]).
    pub fn add(&mut self, id: u8, member: u64, signature: Signature) {
        let at = match self.clusters.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                let at = self.clusters.partition_point(|c| c.id < id);
                self.clusters.insert(
                    at,
                    Cluster {
                        id,
                        members: 0,
                        representatives: Vec::new(),
                    },
                );
                at
            }
        };
        let cluster = &mut self.clusters[at];
        cluster.members += 1;
        cluster.representatives.retain(|(m, _)| *m != member);
        cluster.representatives.push((member, signature));
        if cluster.representatives.len() > REPRESENTATIVES {
            cluster.representatives.remove(0);
        }
    }

    /// Removes a member from cluster `id`: one member less, its representative (if it is one)
    /// dropped, and the cluster gone with its last member. A cluster the node does not hold is
    /// left as it is.
    pub fn remove(&mut self, id: u8, member: u64) {
        let Some(at) = self.clusters.iter().position(|c| c.id == id) else {
            return;
        };
        let cluster = &mut self.clusters[at];
        cluster.members = cluster.members.saturating_sub(1);
        cluster.representatives.retain(|(m, _)| *m != member);
        if cluster.members == 0 {
            self.clusters.remove(at);
        }
    }

    /// The stored form: a format byte, then per cluster its number, members, and
    /// representatives (member id and signature keys).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![NODE_CLUSTERS_V1, self.clusters.len() as u8];
        for cluster in &self.clusters {
            out.push(cluster.id);
            out.extend_from_slice(&cluster.members.to_be_bytes());
            out.push(cluster.representatives.len() as u8);
            for (member, signature) in &cluster.representatives {
                out.extend_from_slice(&member.to_be_bytes());
                out.push(signature.0.len() as u8);
                for key in &signature.0 {
                    out.extend_from_slice(&key.to_be_bytes());
                }
            }
        }
        out
    }

    /// Decodes [`NodeClusters::encode`]'s output; `None` for bytes it did not write (never
    /// panics).
    pub fn decode(bytes: &[u8]) -> Option<NodeClusters> {
        let mut cursor = Cursor(bytes);
        if cursor.take(1)?[0] != NODE_CLUSTERS_V1 {
            return None;
        }
        let n = usize::from(cursor.take(1)?[0]);
        if n > MAX_CLUSTERS {
            return None;
        }
        let mut clusters = Vec::with_capacity(n);
        for _ in 0..n {
            let id = cursor.take(1)?[0];
            let members = u64::from_be_bytes(cursor.take(8)?.try_into().ok()?);
            let reps = usize::from(cursor.take(1)?[0]);
            if reps > REPRESENTATIVES {
                return None;
            }
            let mut representatives = Vec::with_capacity(reps);
            for _ in 0..reps {
                let member = u64::from_be_bytes(cursor.take(8)?.try_into().ok()?);
                let keys = usize::from(cursor.take(1)?[0]);
                if keys > SIGNATURE_KEYS {
                    return None;
                }
                let mut signature = Vec::with_capacity(keys);
                for _ in 0..keys {
                    signature.push(u32::from_be_bytes(cursor.take(4)?.try_into().ok()?));
                }
                representatives.push((member, Signature(signature)));
            }
            clusters.push(Cluster {
                id,
                members,
                representatives,
            });
        }
        cursor.0.is_empty().then_some(NodeClusters { clusters })
    }
}

/// The unread rest of an encoding.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// The next `n` bytes, `None` past the end.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(n)?;
        self.0 = tail;
        Some(head)
    }
}

/// The format byte of [`NodeClusters::encode`].
const NODE_CLUSTERS_V1: u8 = 1;

#[cfg(test)]
mod tests {
    use std::io::BufRead;

    use super::*;
    use crate::blocks::{ParseLimits, Tokenizer};
    use crate::tree::{block_key, path_key};
    use proptest::prelude::*;

    /// The signatures of the crawl-to-the-future pages at `urls`, in that order, as the engine
    /// computes them: the element-path keys of the blocks with letters.
    fn corpus_signatures(urls: &[&str]) -> Vec<Signature> {
        let path = crate::corpus::require_shared_dir()
            .join("crawl-to-the-future")
            .join("docs.jsonl.gz");
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut found: Vec<Option<Signature>> = vec![None; urls.len()];
        let mut tokenizer = Tokenizer::new(ParseLimits::default());
        for line in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let line = line.expect("line");
            let Some(i) = urls.iter().position(|u| line.contains(&format!("\"{u}\""))) else {
                continue;
            };
            let record: serde_json::Value = serde_json::from_str(&line).expect("record");
            if record["url"].as_str() != Some(urls[i]) {
                continue;
            }
            let html = record["html"].as_str().expect("html");
            let blocks = tokenizer.blocks_str(html).expect("blocks");
            let mut paths: Vec<BlockKey> = blocks
                .iter()
                .filter(|b| b.hash.is_some())
                .map(|b| path_key(&b.path))
                .collect();
            paths.sort_unstable();
            paths.dedup();
            found[i] = Some(Signature::of(&paths));
        }
        found
            .into_iter()
            .zip(urls)
            .map(|(s, u)| s.unwrap_or_else(|| panic!("{u} is not in the corpus")))
            .collect()
    }

    /// MSN Entertainment's movie section in 2005, one URL node: two movie pages, two news
    /// articles and two features, three templates.
    const MSN_MOVIES: [&str; 6] = [
        "http://entertainment.msn.com/movies/movie.aspx?m=553499",
        "http://entertainment.msn.com/movies/article.aspx?news=192052",
        "http://entertainment.msn.com/movies/hitlist/11-22-05",
        "http://entertainment.msn.com/movies/movie.aspx?m=562330",
        "http://entertainment.msn.com/movies/article.aspx?news=194668",
        "http://entertainment.msn.com/movies/hotgossipb5",
    ];

    #[test]
    fn pages_of_one_template_join_and_pages_of_others_start_their_own() {
        let signatures = corpus_signatures(&MSN_MOVIES);
        let params = TemplateClusters::default();
        for (i, a) in signatures.iter().enumerate() {
            for (j, b) in signatures.iter().enumerate() {
                let s = a.similarity(b);
                if i % 3 == j % 3 {
                    assert!(s >= 0.8, "same template {i} {j}: {s}");
                } else {
                    assert!(s < params.similarity, "other templates {i} {j}: {s}");
                }
            }
        }
        let mut node = NodeClusters::default();
        let mut ids = Vec::new();
        for (i, signature) in signatures.into_iter().enumerate() {
            let assignment = node.assign(&signature, &params);
            let id = assignment.cluster().expect("room for three clusters");
            assert_eq!(matches!(assignment, Assignment::New { .. }), i < 3, "{i}");
            node.add(id, i as u64, signature);
            ids.push(id);
        }
        assert_eq!(ids, [0, 1, 2, 0, 1, 2]);
        assert!(node.clusters.iter().all(|c| c.members == 2));
    }

    fn signature(keys: impl IntoIterator<Item = u32>) -> Signature {
        let paths: Vec<BlockKey> = keys
            .into_iter()
            .map(|k| {
                let mut key = [0u8; 8];
                key[..4].copy_from_slice(&k.to_be_bytes());
                key
            })
            .collect();
        Signature::of(&paths)
    }

    #[test]
    fn similarity_is_the_jaccard_coefficient_of_small_sets_and_its_estimate_beyond() {
        let a = signature(1..=10);
        let b = signature(6..=15);
        assert!((a.similarity(&b) - 5.0 / 15.0).abs() < 1e-9);
        assert_eq!(a.similarity(&a), 1.0);
        assert_eq!(a.similarity(&Signature::default()), 0.0);
        // Beyond the sample: the smallest keys of the union decide.
        let big = signature(0..1000);
        assert_eq!(big.0.len(), SIGNATURE_KEYS);
        let half = signature((0..1000).filter(|k| k % 2 == 0));
        let s = big.similarity(&half);
        assert!((s - 0.5).abs() < 0.05, "{s}");
        // The first four bytes of a key order it as the whole key.
        let key = block_key(&[9; 16]);
        assert_eq!(Signature::of(&[key]).0, [0x0909_0909]);
    }

    #[test]
    fn representatives_and_clusters_are_bounded_and_the_last_member_frees_its_number() {
        let params = TemplateClusters {
            max_clusters: 2,
            ..TemplateClusters::default()
        };
        let mut node = NodeClusters::default();
        for member in 0..10 {
            node.add(0, member, signature(0..10));
        }
        let cluster = &node.clusters[0];
        assert_eq!(cluster.members, 10);
        let kept: Vec<u64> = cluster.representatives.iter().map(|r| r.0).collect();
        assert_eq!(kept, [6, 7, 8, 9]);
        assert_eq!(
            node.assign(&signature(100..110), &params),
            Assignment::New { id: 1 }
        );
        node.add(1, 20, signature(100..110));
        assert_eq!(node.assign(&signature(200..210), &params), Assignment::Full);
        assert_eq!(Assignment::Full.cluster(), None);
        // Forgetting a representative drops its signature; the last member the cluster.
        node.remove(0, 9);
        assert_eq!(node.clusters[0].members, 9);
        assert_eq!(node.clusters[0].representatives.len(), 3);
        node.remove(1, 20);
        assert_eq!(node.clusters.len(), 1);
        assert_eq!(
            node.assign(&signature(200..210), &params),
            Assignment::New { id: 1 }
        );
        node.remove(7, 1);
        assert_eq!(node.clusters.len(), 1);
    }

    #[test]
    fn a_cluster_is_a_child_of_the_node_it_splits() {
        let branch = Branch::from_names(
            ["x.com", "2024", "05", "story"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        let clustered = with_cluster(&branch, 2, 3);
        assert_eq!(clustered.ids.len(), 5);
        assert_eq!(clustered.ids[..3], branch.ids[..3]);
        assert_eq!(clustered.ids[3], cluster_node(branch.ids[2], 3));
        assert_eq!(clustered.ids[4], branch.ids[3]);
        assert_eq!(clustered.path_to(3), "x.com/2024/05/~template-3");
        assert_ne!(
            cluster_node(branch.ids[2], 3),
            cluster_node(branch.ids[2], 4)
        );
        assert!(!branch.ids.contains(&cluster_node(branch.ids[2], 3)));
        assert_eq!(split_depth(&[40, 12, 3], 5), Some(1));
        assert_eq!(split_depth(&[4, 2], 5), None);
    }

    #[test]
    fn the_parameters_are_checked() {
        assert!(TemplateClusters::default().validate().is_ok());
        for bad in [
            TemplateClusters {
                similarity: 0.0,
                ..TemplateClusters::default()
            },
            TemplateClusters {
                similarity: 1.5,
                ..TemplateClusters::default()
            },
            TemplateClusters {
                min_support: 0,
                ..TemplateClusters::default()
            },
            TemplateClusters {
                max_clusters: MAX_CLUSTERS + 1,
                ..TemplateClusters::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn clusters_roundtrip(members in prop::collection::vec((0u8..4, any::<u64>(), prop::collection::vec(any::<u32>(), 0..40)), 0..30)) {
            let mut node = NodeClusters::default();
            for (id, member, keys) in members {
                node.add(id, member, signature(keys));
            }
            prop_assert_eq!(NodeClusters::decode(&node.encode()), Some(node));
        }

        #[test]
        fn decode_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = NodeClusters::decode(&bytes);
        }
    }
}
