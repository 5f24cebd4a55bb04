//! Repetition (Sluban & Grčar 2013): a block whose text is counted more than `c_max` times at the
//! deciding node (the node and `c_max` of `relaxed-at-domain-500`) is template text. The block
//! identity already ignores digits and punctuation, so "© 2019" and "© 2020" are one block.
//! This is the tree's own verdict and cannot be switched off (the paper's heuristics are the
//! tree without the page's evidence, not `hybrid` without the tree).

use crate::tree::NodeFacts;

/// True when a block counted `count` times at `node` is repeated there.
pub fn is_repeated(count: u64, node: NodeFacts) -> bool {
    count > node.c_max
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, ARTICLE};
    use crate::tree::Reason;

    #[test]
    fn repeated_text_is_dropped_from_the_second_page_on() {
        let page = |count| {
            [
                block(&ARTICLE[0], 300, 0, 1, 2),
                block(&ARTICLE[1], 200, 0, 1, 2),
                block(&ARTICLE[2], 60, 0, count, 2),
            ]
        };
        assert_eq!(run(&page(1), 2)[2], Reason::Unique);
        assert_eq!(run(&page(2), 2)[2], Reason::Repeated);
    }
}
