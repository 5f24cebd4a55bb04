//! Node identities: a branch is the chain of nodes from the domain root to the page's leaf.

use md5::{Digest, Md5};

use crate::urlkey::UrlKey;

/// Identity of one URL Tree node: the first 8 bytes of the MD5 of its path from the domain root.
///
/// Guarantees: equal paths give equal ids across processes and versions; the root of a domain is the id
/// of the domain name alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub [u8; 8]);

impl NodeId {
    /// The big-endian bytes used in storage keys.
    pub fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }
}

/// The nodes a page touches, root (its registrable domain) first, leaf last, with their readable names.
///
/// The leaf stands for the page's own URL key. A key holds one document at a time (an equal key is
/// a duplicate, never inserted, or a new version, inserted after the old one is forgotten), so a
/// leaf holds exactly one document: its support is 1 and every block of the page counts 1 there.
/// The tree therefore stores only the interior nodes ([`Branch::stored`]) and derives the leaf.
///
/// Guarantees: `ids.len() == names.len() >= 2` (root and leaf), `ids[0]` is the domain root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// Node ids, root first.
    pub ids: Vec<NodeId>,
    /// Node names, root first: the domain, the branch segments, the leaf.
    pub names: Vec<String>,
}

impl Branch {
    /// The branch `domain / seg1 / … / segN / leaf` of a URL key (DESIGN §2.5).
    pub fn of(key: &UrlKey) -> Branch {
        let mut names = Vec::with_capacity(key.segments.len() + 2);
        names.push(key.domain.clone());
        names.extend(key.segments.iter().cloned());
        names.push(key.leaf.clone());
        Branch::from_names(names)
    }

    /// A branch from explicit node names, root first (used by tests and by [`Branch::of`]).
    pub fn from_names(names: Vec<String>) -> Branch {
        let mut hasher = Md5::new();
        let mut ids = Vec::with_capacity(names.len());
        for (depth, name) in names.iter().enumerate() {
            if depth > 0 {
                // A separator no URL segment contains keeps `a/bc` and `ab/c` apart.
                hasher.update([0u8]);
            }
            hasher.update(name.as_bytes());
            let digest = hasher.clone().finalize();
            let mut id = [0u8; 8];
            id.copy_from_slice(&digest[..8]);
            ids.push(NodeId(id));
        }
        Branch { ids, names }
    }

    /// The domain root.
    pub fn root(&self) -> NodeId {
        self.ids[0]
    }

    /// The nodes whose counts are stored: all but the leaf.
    pub fn stored(&self) -> &[NodeId] {
        &self.ids[..self.ids.len().saturating_sub(1).max(1)]
    }

    /// Depth of the leaf.
    pub fn leaf_depth(&self) -> usize {
        self.ids.len() - 1
    }

    /// The path of the node at `depth` as readable text (`domain/seg/…`).
    pub fn path_to(&self, depth: usize) -> String {
        let end = (depth + 1).min(self.names.len());
        self.names[..end].join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shared_prefixes_share_ids() {
        let a = Branch::from_names(names(&["go.com", "abcnews.go.com", "kabc", "story?id=1"]));
        let b = Branch::from_names(names(&["go.com", "abcnews.go.com", "kabc", "story?id=2"]));
        assert_eq!(a.ids[..3], b.ids[..3]);
        assert_ne!(a.ids[3], b.ids[3]);
        assert_eq!(a.root(), b.root());
        assert_eq!(a.path_to(2), "go.com/abcnews.go.com/kabc");
    }

    #[test]
    fn segment_boundaries_matter() {
        let a = Branch::from_names(names(&["x.com", "a", "bc"]));
        let b = Branch::from_names(names(&["x.com", "ab", "c"]));
        assert_ne!(a.ids[2], b.ids[2]);
        assert_ne!(a.ids[1], b.ids[1]);
    }
}
