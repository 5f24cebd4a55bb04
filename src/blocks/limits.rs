//! Parse limits: the bounds that keep one hostile page from costing unbounded time or memory.
//! The lexer reads a page in place and buffers nothing of its own, so a page's size bounds the
//! parse's memory; these bound what the page turns into.

/// Bounds applied to every page. All limits are enforced without panicking; see each field for
/// what happens when a page exceeds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParseLimits {
    /// Largest page accepted, in bytes; a larger page is rejected with `BlockError::TooLarge`.
    /// Default 16 MiB.
    pub max_html_bytes: usize,
    /// Path segments kept per block (the innermost ones). Default 64.
    pub max_depth: usize,
    /// Element ordinals kept in `Block::ancestors` (the innermost ones). Default 64.
    pub max_ancestors: usize,
    /// Open elements tracked at once; deeper start tags still split blocks but are not pushed
    /// (browsers cap tree depth the same way). Default 512.
    pub max_open_elements: usize,
    /// Blocks returned per page; the page is cut after this many blocks and parsing stops.
    /// Default 100,000.
    pub max_blocks: usize,
    /// Characters of text kept per block. Longer text is truncated at a character boundary, but
    /// `Block::chars`, `Block::link_chars` and `Block::hash` still describe the whole block.
    /// Values below 1 act as 1. Default 1 Mi characters.
    pub max_block_chars: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        Self {
            max_html_bytes: 16 << 20,
            max_depth: 64,
            max_ancestors: 64,
            max_open_elements: 512,
            max_blocks: 100_000,
            max_block_chars: 1 << 20,
        }
    }
}
