//! The **look up** stage: the node whose counts decide (chosen by the classifier from the supports
//! along the branch) and, at that node, the count of every block and the element-path counts the
//! classifier asks for. One multi-get of supports and one of counters per page.

use std::convert::Infallible;

use super::learn::Learned;
use crate::blocks::Block;
use crate::state::{StateError, Txn};
use crate::tree::{block_key, BlockKey, Branch, Choice, Classifier, NodeId};

/// What the tree says of one page, after the page was inserted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Evidence {
    /// The deciding node, its support and threshold.
    pub choice: Choice,
    /// Each block's text count at the node, in block order (`None` for blocks without letters).
    pub counts: Vec<Option<u64>>,
    /// Each block's element-path count, in block order, at the node of `path_support` pages:
    /// the deciding node, or the node a deciding template cluster splits; 0 where the
    /// classifier does not read it ([`Classifier::wants_path_count`]) and for blocks without
    /// letters.
    pub path_counts: Vec<u64>,
    /// The support of the node whose path counts `path_counts` are.
    pub path_support: u64,
}

/// Reads the evidence for a page already inserted into the tree. The page's template cluster, if
/// it joined one, decides only once it holds `cluster_support` pages: below that the heuristic
/// climbs past it as past any node without the support it asks for.
pub(super) fn look_up(
    txn: &mut Txn<'_>,
    classifier: &dyn Classifier,
    branch: &Branch,
    blocks: &[Block],
    learned: &Learned,
    cluster_support: u64,
) -> Result<Evidence, StateError> {
    // The leaf holds this page alone (see `Branch`): support 1, every block counted once.
    let mut supports = txn.supports(branch.stored())?;
    supports.push(1);
    if let Some(template) = learned.fp.template {
        if let Some(split) = branch.ids.iter().position(|id| *id == template.node) {
            if let Some(support) = supports.get_mut(split + 1) {
                if *support < cluster_support {
                    *support = 0;
                }
            }
        }
    }
    evidence(
        classifier,
        branch,
        blocks,
        learned,
        &supports,
        |node, keys| txn.counts(branch.root(), node, keys),
    )
}

/// The evidence for a page in a tree that holds it alone, as a fresh state gives it right after
/// inserting the page: every node of its branch has support 1 and counts each of the page's
/// distinct blocks and element paths once. No state is read.
pub(super) fn alone(
    classifier: &dyn Classifier,
    branch: &Branch,
    blocks: &[Block],
    learned: &Learned,
) -> Evidence {
    let supports = vec![1; branch.ids.len()];
    let counted_once = |_: NodeId, keys: &[BlockKey]| Ok::<_, Infallible>(vec![1; keys.len()]);
    match evidence(classifier, branch, blocks, learned, &supports, counted_once) {
        Ok(evidence) => evidence,
        Err(never) => match never {},
    }
}

/// The evidence from the supports along the branch (root first, leaf last) and the counts
/// `read_counts` gives at the chosen node for a list of block and path keys.
fn evidence<E>(
    classifier: &dyn Classifier,
    branch: &Branch,
    blocks: &[Block],
    learned: &Learned,
    supports: &[u64],
    mut read_counts: impl FnMut(NodeId, &[BlockKey]) -> Result<Vec<u64>, E>,
) -> Result<Evidence, E> {
    let choice = classifier.choose(supports);
    let fp = &learned.fp;
    // A template cluster put its pages together for their element paths: where it decides,
    // the path counts are those of the node it splits (its parent on the branch).
    let path_depth = match fp.template {
        Some(template)
            if choice.depth > 0 && branch.ids.get(choice.depth - 1) == Some(&template.node) =>
        {
            choice.depth - 1
        }
        _ => choice.depth,
    };
    let path_support = supports.get(path_depth).copied().unwrap_or(0);
    // The path counts the classifier asks for, sorted and distinct.
    let mut paths: Vec<BlockKey> = blocks
        .iter()
        .zip(&learned.block_paths)
        .filter(|(b, _)| classifier.wants_path_count(b.chars, path_support))
        .filter_map(|(_, path)| *path)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let wanted = fp.blocks.len() + paths.len();
    let mut stored = if choice.depth == branch.leaf_depth() {
        vec![1; wanted]
    } else if paths.is_empty() || path_depth != choice.depth {
        read_counts(branch.ids[choice.depth], &fp.blocks)?
    } else {
        let mut keys = Vec::with_capacity(wanted);
        keys.extend_from_slice(&fp.blocks);
        keys.extend_from_slice(&paths);
        read_counts(branch.ids[choice.depth], &keys)?
    };
    if path_depth != choice.depth && !paths.is_empty() {
        stored.extend(read_counts(branch.ids[path_depth], &paths)?);
    }
    let (text_counts, path_counts) = stored.split_at(fp.blocks.len().min(stored.len()));
    let count_of = |key: BlockKey| -> u64 {
        fp.blocks
            .binary_search(&key)
            .map(|i| text_counts[i])
            .unwrap_or(0)
    };
    let path_count_of = |key: BlockKey| -> u64 {
        paths
            .binary_search(&key)
            .ok()
            .and_then(|i| path_counts.get(i).copied())
            .unwrap_or(0)
    };
    Ok(Evidence {
        choice,
        counts: blocks
            .iter()
            .map(|b| b.hash.as_ref().map(|h| count_of(block_key(h))))
            .collect(),
        path_counts: learned
            .block_paths
            .iter()
            .map(|path| path.map(path_count_of).unwrap_or(0))
            .collect(),
        path_support,
    })
}
