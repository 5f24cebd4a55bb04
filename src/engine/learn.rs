//! The **learn** stage: the page's fingerprint goes into the tree, and retention forgets the
//! domain's oldest documents when it says so. Every change to the retained documents is recorded
//! as a [`Change`] for the changelog.

use std::collections::HashMap;

use time::OffsetDateTime;

use super::Change;
use crate::blocks::Block;
use crate::record::RawPage;
use crate::state::keys::seen_key;
use crate::state::{StateError, Txn};
use crate::tree::cluster::{self, Signature};
use crate::tree::{
    block_key, path_key, BlockKey, Branch, Fingerprint, NodeId, Retention, TemplateClusters,
};
use crate::urlkey::UrlKey;

/// What the tree takes in of one page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Learned {
    /// The page's fingerprint (distinct block and path keys, branch, time).
    pub fp: Fingerprint,
    /// The element-path key of each block with letters, in block order (`None` for the others).
    pub block_paths: Vec<Option<BlockKey>>,
}

/// How far an event time may lie ahead of its reference (the input record's timestamp, or the
/// wall clock when that is earlier or missing): a crawler's clock may be off by hours, a page
/// is not fetched tomorrow.
pub const MAX_AHEAD_MS: i64 = 24 * 3600 * 1000;

/// The page's event time in milliseconds — its `fetched_at`, else the input record's own
/// timestamp, else the wall clock — and whether it was clamped: a time more than
/// [`MAX_AHEAD_MS`] ahead of the reference (the record's timestamp, or the wall clock when that
/// is earlier or missing) is replaced by the reference (and the caller takes no later time than
/// the domain's newest), so one record dated 9999 cannot make retention forget a domain. A
/// replay of older input gets the same times as the first run.
pub(super) fn event_time_ms(page: &RawPage, record_ms: Option<i64>) -> (i64, bool) {
    let now = (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64;
    let reference = record_ms.map_or(now, |ms| ms.min(now));
    let time = page
        .fetched_at
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
        .or(record_ms)
        .unwrap_or(now);
    if time > reference.saturating_add(MAX_AHEAD_MS) {
        (reference, true)
    } else {
        (time, false)
    }
}

/// The page's fingerprint: pure, from its key, branch, blocks and time.
pub(super) fn fingerprint(
    key: &UrlKey,
    branch: &Branch,
    blocks: &[Block],
    time_ms: i64,
) -> Learned {
    // A page repeats few paths over many blocks: each distinct path is hashed once.
    let mut path_keys: HashMap<&str, BlockKey> = HashMap::with_capacity(blocks.len() / 4);
    let block_paths: Vec<Option<BlockKey>> = blocks
        .iter()
        .map(|b| {
            b.hash.as_ref().map(|_| {
                *path_keys
                    .entry(b.path.as_str())
                    .or_insert_with(|| path_key(&b.path))
            })
        })
        .collect();
    let fp = Fingerprint::new(
        time_ms,
        key.key.clone(),
        branch.stored().to_vec(),
        blocks
            .iter()
            .filter_map(|b| b.hash.as_ref().map(block_key))
            .collect(),
    )
    .with_paths(block_paths.iter().flatten().copied().collect());
    Learned { fp, block_paths }
}

/// The template cluster of a page about to be inserted (Gottron's single linkage, see
/// [`crate::tree::cluster`]): the deepest stored node of its branch with `params.min_support`
/// pages is split, and the page joins the cluster there whose nearest representative is alike
/// enough, or starts one. Returns that node's depth and the cluster's number; `None` when no
/// node has the support yet, the page has no element paths, or the node is full and like none
/// of its clusters.
pub(super) fn template_cluster(
    txn: &mut Txn<'_>,
    params: &TemplateClusters,
    branch: &Branch,
    fp: &Fingerprint,
) -> Result<Option<(usize, u8)>, StateError> {
    let signature = Signature::of(&fp.paths);
    if signature.0.is_empty() {
        return Ok(None);
    }
    let supports = txn.supports(branch.stored())?;
    let Some(depth) = cluster::split_depth(&supports, params.min_support) else {
        return Ok(None);
    };
    let clusters = txn.clusters(branch.root(), branch.ids[depth])?;
    Ok(clusters
        .assign(&signature, params)
        .cluster()
        .map(|id| (depth, id)))
}

/// Inserts the page into `domain` and forgets what retention says. Records the insertion and
/// every eviction in `changes`, with the input `offset`; returns how many documents were
/// forgotten.
pub(super) fn learn(
    txn: &mut Txn<'_>,
    domain: NodeId,
    learned: &Learned,
    retention: Retention,
    offset: i64,
    changes: &mut Vec<Change>,
) -> Result<u64, StateError> {
    txn.insert(domain, &learned.fp)?;
    changes.push(Change {
        key: seen_key(domain, &learned.fp.url_key),
        fingerprint: Some(learned.fp.encode()),
        offset,
    });
    forget(txn, domain, retention, offset, changes)
}

/// Forgets the domain's oldest documents while retention says so; returns how many.
fn forget(
    txn: &mut Txn<'_>,
    domain: NodeId,
    retention: Retention,
    offset: i64,
    changes: &mut Vec<Change>,
) -> Result<u64, StateError> {
    let mut forgotten = 0;
    loop {
        let meta = txn.domain(domain)?;
        let held = meta.held();
        if held <= retention.min_keep && held <= retention.max_docs {
            return Ok(forgotten);
        }
        let Some((seq, oldest)) = txn.oldest(domain)? else {
            return Ok(forgotten);
        };
        if !retention.evicts(held, oldest.time_ms, meta.newest_ms) {
            return Ok(forgotten);
        }
        // Read once: the document found is the one forgotten.
        txn.forget(domain, seq, &oldest)?;
        changes.push(Change {
            key: seen_key(domain, &oldest.url_key),
            fingerprint: None,
            offset,
        });
        forgotten += 1;
    }
}
