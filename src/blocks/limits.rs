//! Parse limits: the bounds that keep one hostile page from costing unbounded time or memory, and
//! the lol_html memory settings derived from them.

use lol_html::MemorySettings;

/// Bounds applied to every page. All limits are enforced without panicking; see each field for
/// what happens when a page exceeds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParseLimits {
    /// Largest page accepted, in bytes; a larger page is rejected with `BlockError::TooLarge`.
    /// Default 16 MiB.
    pub max_html_bytes: usize,
    /// lol_html's `MemorySettings::max_allowed_memory_usage`: a hard cap on the parser's internal
    /// buffers (they only grow to hold a token cut off by the end of the input). Exceeding it is
    /// `BlockError::MemoryLimit`. Default 64 MiB.
    pub max_memory_bytes: usize,
    /// Path segments kept per block (the innermost ones). Default 64.
    pub max_depth: usize,
    /// Element ordinals kept in `Block::ancestors` (the innermost ones). Default 16.
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
            max_memory_bytes: 64 << 20,
            max_depth: 64,
            max_ancestors: 16,
            max_open_elements: 512,
            max_blocks: 100_000,
            max_block_chars: 1 << 20,
        }
    }
}

/// Bytes lol_html preallocates for its parsing buffer (never more than the memory limit).
const PREALLOCATED_PARSING_BUFFER: usize = 1024;

impl ParseLimits {
    /// The lol_html memory settings for these limits: the memory cap, and a preallocated parsing
    /// buffer that never exceeds it.
    pub fn memory_settings(&self) -> MemorySettings {
        MemorySettings::new()
            .with_max_allowed_memory_usage(self.max_memory_bytes)
            .with_preallocated_parsing_buffer_size(
                PREALLOCATED_PARSING_BUFFER.min(self.max_memory_bytes),
            )
    }
}
