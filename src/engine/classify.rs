//! The **classify** stage: the page's blocks and the tree's evidence as the classifier's facts,
//! and one reason per block from the configured [`Classifier`].

use super::lookup::Evidence;
use crate::blocks::Block;
use crate::tree::{BlockFacts, Classifier, NodeFacts, Reason};

/// What the classifier is told of each block, in block order.
pub(super) fn facts<'b>(blocks: &'b [Block], evidence: &Evidence) -> Vec<BlockFacts<'b>> {
    blocks
        .iter()
        .zip(&evidence.counts)
        .zip(&evidence.path_counts)
        .map(|((b, &count), &path_count)| BlockFacts::of(b, count, path_count))
        .collect()
}

/// One reason per block, in block order.
pub(super) fn classify(
    classifier: &dyn Classifier,
    blocks: &[Block],
    evidence: &Evidence,
) -> Vec<Reason> {
    let mut reasons = Vec::with_capacity(blocks.len());
    classifier.classify(
        &facts(blocks, evidence),
        NodeFacts {
            support: evidence.choice.support,
            c_max: evidence.choice.c_max,
        },
        &mut reasons,
    );
    reasons
}
