//! urltree in a program: one page in, its main text out ([`extract`], [`PageExtractor`]), or a
//! stream of pages through the URL Tree over a state of its own ([`Extractor`]).
//!
//! - [`page`]: a page and what the crawler knows of it ([`Page`], [`Html`]), as a raw-html record;
//! - [`one_page`]: one page at a time without a state, the cold-start path;
//! - [`stream`]: the [`Extractor`], the engine's batches over a state on disk or a temporary one;
//! - [`error`]: why a page or a stream could not be processed.
//!
//! Both paths run the engine's stages ([`crate::engine`]), so a page gives the same record here as
//! through `urltree extract`.

pub mod error;
pub mod one_page;
pub mod page;
pub mod stream;

#[cfg(test)]
mod tests;

pub use error::{Error, Rejected};
pub use one_page::{extract, extract_with, PageExtractor};
pub use page::{Html, Page, UNKNOWN_URL};
pub use stream::{ExtractMany, Extractor, InputError, StateDir};

/// The record of one extracted page: its main text, title, metadata, language and the node that
/// decided (the clean-text record of DESIGN §5, as `urltree extract` writes it).
pub type Extracted = crate::record::CleanRecord;
