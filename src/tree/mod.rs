//! The URL Tree of Sluban & Grčar (CIKM 2013) as pure data and decisions, free of I/O.
//!
//! A page's URL key gives a *branch* of node ids from its registrable domain down to its leaf
//! ([`branch`]); inserting a page adds one to the support `n_s` of every node on the branch and to the
//! count `c(b)` of each distinct block hash there ([`fingerprint`]); the [`heuristic`] picks the node
//! whose counts decide and the threshold `c_max`, and a [`Classifier`] (the paper's rule or
//! [`hybrid`]) labels the blocks, the latter reading the page's repeated units and kind from
//! [`kind`]; [`retention`] says which documents to forget; [`cluster`] splits a node's pages by
//! template (an option, off by default). The
//! storage of all this lives in [`crate::state`]; the wiring per page in [`crate::engine`].

pub mod branch;
pub mod classic;
pub mod classify;
pub mod cluster;
pub mod fingerprint;
pub mod heuristic;
pub mod hybrid;
pub mod kind;
pub mod retention;

pub use branch::{Branch, NodeId};
pub use classify::{classifier, BlockFacts, Classifier, NodeFacts, Page, Paper, Reason};
pub use cluster::TemplateClusters;
pub use fingerprint::{block_key, path_key, BlockKey, Fingerprint, FingerprintError};
pub use heuristic::{Choice, Heuristic, HeuristicParseError, Label};
pub use hybrid::{Comments, Focus, Hybrid, Prefs, Rules};
pub use retention::Retention;
