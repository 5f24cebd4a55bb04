//! Template structure (Alarte et al., ETDM): a short block whose *element path* recurs on nearly
//! every page of the node while its words do not is a template slot (dates, counters, labels
//! around the text). Path counts are kept per node beside the text counts; they are trusted once
//! the node's support gives them a [`confidence`] of one half. Inside the main subtree, where
//! every paragraph's path recurs, a short block is kept with its text.

use super::{confidence, Params};
use crate::tree::{BlockFacts, NodeFacts};

/// Share of the node's other pages on which an element path must recur to be a template slot.
pub const TEMPLATE_PATH_SHARE: f64 = 0.8;

/// Characters below which a block in a recurring path is a template slot (a date, a byline, a
/// counter): shorter than one plain sentence.
pub const TEMPLATE_SLOT_CHARS: u32 = 40;

/// True when the classifier uses the path count of a block of `chars` characters at a node of
/// `support` pages: only short blocks can be template slots, and only at a trusted node. The
/// caller may leave the other path counts unread.
pub fn uses_path_count(chars: u32, support: u64, params: &Params) -> bool {
    params.rules.template
        && chars < params.template_slot_chars
        && confidence(support, params.support_half) >= 0.5
}

/// True when `block` is a short block whose element path recurs on nearly every other page of a
/// trusted `node` (the node whose path counts the facts hold, [`NodeFacts::path_support`]).
pub fn is_slot(block: &BlockFacts<'_>, node: NodeFacts, params: &Params) -> bool {
    let others = node.path_support.saturating_sub(1) as f64;
    uses_path_count(block.chars, node.path_support, params)
        && (block.path_count.saturating_sub(1) as f64) >= params.template_path_share * others
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with, ARTICLE};
    use super::super::Rules;
    use crate::tree::Reason;

    #[test]
    fn recurring_paths_mark_short_slots_once_the_node_is_trusted() {
        // A short date in the page header whose path is on every page, words unique, beside the
        // article; and a short line inside the article in a path as common.
        let header = [0, 1, 11, 12];
        let blocks = [
            block(&ARTICLE[0], 300, 0, 1, 3),
            block(&ARTICLE[1], 20, 0, 1, 10),
            block(&header, 20, 0, 1, 10),
        ];
        assert_ne!(
            run(&blocks, 3)[2],
            Reason::Template,
            "support 3: not trusted yet"
        );
        assert_eq!(run(&blocks, 10)[2], Reason::Template);
        // Inside the main text a recurring path is every paragraph's: the line is kept.
        assert_eq!(run(&blocks, 10)[1], Reason::Unique);
        // Long text in a recurring path is prose, not a slot.
        let long = [block(&ARTICLE[0], 300, 0, 1, 10)];
        assert_eq!(run(&long, 10)[0], Reason::Unique);
        // Switched off, no block is a template slot.
        let off = Rules::default().without("template").unwrap();
        assert!(!run_with(&blocks, 10, off).contains(&Reason::Template));
    }
}
