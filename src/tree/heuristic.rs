//! The paper's classification heuristics: which node decides, and how many repeats make boilerplate.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::classic::Method;

/// The paper's minimum node support for `strict` (`n_min`).
pub const STRICT_MIN_SUPPORT: u64 = 5;

/// Domain support after which `hybrid` allows two repeats, as `relaxed-at-domain-500` does.
pub const HYBRID_RELAXED_AFTER: u64 = 500;

/// A classification heuristic, selected by name in the config: the URL Tree paper's four,
/// `hybrid`, and the literature's methods by name ([`Method`]).
///
/// Every variant classifies after the page itself was inserted, so a block's count includes the page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Heuristic {
    /// `strict`: climb from the leaf to the first node with `n_s ≥ 5` (else the root); `c_max = 1`.
    Strict,
    /// `strict-support-N`: as `strict` with `n_s ≥ N`.
    StrictSupport(u64),
    /// `strict-at-domain`: always the domain node; `c_max = 1`.
    StrictAtDomain,
    /// `relaxed-at-domain-N`: the climb of `strict`, with `c_max = 2` once the domain node's support
    /// exceeds N (the climbing reading of the paper's rule; the paper's best with N = 500).
    RelaxedAtDomain(u64),
    /// `relaxed-domain-node-N`: always the domain node, with `c_max = 2` once its support exceeds N
    /// (the other reading of the paper's wording).
    RelaxedDomainNode(u64),
    /// `hybrid`: the node and threshold of `relaxed-at-domain-500`, with the tree's counts
    /// combined with the page's own structure, link density and the node's element-path counts
    /// (see [`crate::tree::hybrid`]). The default.
    #[default]
    Hybrid,
    /// One of the literature's methods (`ccb`, `accb`, `tccb`, `dsc`, `bte`, `boilerpipe`,
    /// `boilerpipe-tree`, `link-template`; see [`crate::tree::classic`]): each judges the page
    /// by itself, or by its mutually linked pages, not by the tree's counts; the deciding node
    /// is the leaf (no counts are read) and a page is never a cold start.
    Classic(Method),
}

/// The node a heuristic chose for one page and the threshold that applies there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Depth of the chosen node on the branch (0 = domain root).
    pub depth: usize,
    /// That node's support `n_s` (including the page).
    pub support: u64,
    /// A block counted more than this at the node is boilerplate.
    pub c_max: u64,
    /// True when no node had the support the heuristic asks for: the counts say little yet.
    pub cold_start: bool,
}

/// The verdict on one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    /// Kept in the output text.
    Content,
    /// Dropped from the output text.
    Boilerplate,
}

impl Heuristic {
    /// Every classifier by its default name, in the order tables list them: `hybrid`, the
    /// paper's four (its best relaxed variants with N = 500), the literature's methods.
    pub fn every() -> Vec<Heuristic> {
        let mut all = vec![
            Heuristic::Hybrid,
            Heuristic::Strict,
            Heuristic::StrictAtDomain,
            Heuristic::RelaxedAtDomain(HYBRID_RELAXED_AFTER),
            Heuristic::RelaxedDomainNode(HYBRID_RELAXED_AFTER),
        ];
        all.extend(Method::ALL.into_iter().map(Heuristic::Classic));
        all
    }

    /// Picks the deciding node from the supports along the branch (root first, leaf last).
    ///
    /// Guarantees: `depth < supports.len()`; an empty slice yields the root with support 0.
    pub fn choose(&self, supports: &[u64]) -> Choice {
        let root = supports.first().copied().unwrap_or(0);
        let climb = |n_min: u64| -> (usize, bool) {
            match supports.iter().rposition(|&s| s >= n_min) {
                Some(depth) => (depth, false),
                None => (0, true),
            }
        };
        let relaxed = |n: u64| if root > n { 2 } else { 1 };
        let (depth, cold_start, c_max) = match *self {
            Heuristic::Strict => {
                let (d, cold) = climb(STRICT_MIN_SUPPORT);
                (d, cold, 1)
            }
            Heuristic::StrictSupport(n) => {
                let (d, cold) = climb(n);
                (d, cold, 1)
            }
            Heuristic::StrictAtDomain => (0, root < STRICT_MIN_SUPPORT, 1),
            Heuristic::RelaxedAtDomain(n) => {
                let (d, cold) = climb(STRICT_MIN_SUPPORT);
                (d, cold, relaxed(n))
            }
            Heuristic::RelaxedDomainNode(n) => (0, root < STRICT_MIN_SUPPORT, relaxed(n)),
            Heuristic::Hybrid => {
                let (d, cold) = climb(STRICT_MIN_SUPPORT);
                (d, cold, relaxed(HYBRID_RELAXED_AFTER))
            }
            Heuristic::Classic(_) => (supports.len().saturating_sub(1), false, 1),
        };
        Choice {
            depth,
            support: supports.get(depth).copied().unwrap_or(0),
            c_max,
            cold_start,
        }
    }
}

impl Choice {
    /// Labels a block from its count at the chosen node; `None` (no letters) is never content.
    pub fn label(&self, hash_count: Option<u64>) -> Label {
        match hash_count {
            Some(count) if count <= self.c_max => Label::Content,
            _ => Label::Boilerplate,
        }
    }
}

/// A heuristic name that is not one of the known forms.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "unknown heuristic {0:?}: expected strict, strict-support-N, strict-at-domain, \
     relaxed-at-domain-N, relaxed-domain-node-N (N a whole number), hybrid, or one of the \
     literature's methods: ccb, accb, tccb, dsc, bte, boilerpipe, boilerpipe-tree, link-template"
)]
pub struct HeuristicParseError(pub String);

impl FromStr for Heuristic {
    type Err = HeuristicParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || HeuristicParseError(s.to_owned());
        let number = |rest: &str| rest.parse::<u64>().map_err(|_| err());
        match s {
            "strict" => Ok(Heuristic::Strict),
            "strict-at-domain" => Ok(Heuristic::StrictAtDomain),
            "hybrid" => Ok(Heuristic::Hybrid),
            _ => {
                if let Ok(method) = s.parse::<Method>() {
                    return Ok(Heuristic::Classic(method));
                }
                if let Some(rest) = s.strip_prefix("strict-support-") {
                    Ok(Heuristic::StrictSupport(number(rest)?))
                } else if let Some(rest) = s.strip_prefix("relaxed-at-domain-") {
                    Ok(Heuristic::RelaxedAtDomain(number(rest)?))
                } else if let Some(rest) = s.strip_prefix("relaxed-domain-node-") {
                    Ok(Heuristic::RelaxedDomainNode(number(rest)?))
                } else {
                    Err(err())
                }
            }
        }
    }
}

impl fmt::Display for Heuristic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Heuristic::Strict => write!(f, "strict"),
            Heuristic::StrictSupport(n) => write!(f, "strict-support-{n}"),
            Heuristic::StrictAtDomain => write!(f, "strict-at-domain"),
            Heuristic::RelaxedAtDomain(n) => write!(f, "relaxed-at-domain-{n}"),
            Heuristic::RelaxedDomainNode(n) => write!(f, "relaxed-domain-node-{n}"),
            Heuristic::Hybrid => write!(f, "hybrid"),
            Heuristic::Classic(method) => write!(f, "{method}"),
        }
    }
}

impl serde::Serialize for Heuristic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Heuristic {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_roundtrip() {
        for name in [
            "strict",
            "strict-support-20",
            "strict-at-domain",
            "relaxed-at-domain-500",
            "relaxed-domain-node-100",
            "hybrid",
            "ccb",
            "accb",
            "tccb",
            "dsc",
            "bte",
            "boilerpipe",
            "boilerpipe-tree",
            "link-template",
        ] {
            let h: Heuristic = name.parse().unwrap();
            assert_eq!(h.to_string(), name);
        }
        assert!("relaxed-at-domain-".parse::<Heuristic>().is_err());
        assert!("strict-support-x".parse::<Heuristic>().is_err());
        assert!("loose".parse::<Heuristic>().is_err());
        assert_eq!(Heuristic::default().to_string(), "hybrid");
    }

    #[test]
    fn strict_climbs_to_first_supported_node() {
        // root, section, subsection, leaf
        let c = Heuristic::Strict.choose(&[40, 12, 3, 1]);
        assert_eq!(
            (c.depth, c.support, c.c_max, c.cold_start),
            (1, 12, 1, false)
        );
        let c = Heuristic::Strict.choose(&[4, 2, 1]);
        assert_eq!((c.depth, c.support, c.cold_start), (0, 4, true));
        let c = Heuristic::StrictSupport(20).choose(&[40, 12, 1]);
        assert_eq!(c.depth, 0);
        assert!(!c.cold_start);
    }

    #[test]
    fn relaxed_readings_differ() {
        let supports = [600, 50, 1];
        let climb = Heuristic::RelaxedAtDomain(500).choose(&supports);
        assert_eq!((climb.depth, climb.c_max), (1, 2));
        let node = Heuristic::RelaxedDomainNode(500).choose(&supports);
        assert_eq!((node.depth, node.c_max), (0, 2));
        let young = Heuristic::RelaxedAtDomain(500).choose(&[500, 50, 1]);
        assert_eq!(young.c_max, 1);
        let at_domain = Heuristic::StrictAtDomain.choose(&supports);
        assert_eq!((at_domain.depth, at_domain.c_max), (0, 1));
    }

    #[test]
    fn labels_follow_c_max() {
        let c = Heuristic::Strict.choose(&[10, 1]);
        assert_eq!(c.label(Some(1)), Label::Content);
        assert_eq!(c.label(Some(2)), Label::Boilerplate);
        assert_eq!(c.label(None), Label::Boilerplate);
    }
}
