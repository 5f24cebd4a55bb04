//! The JSON records urltree reads and writes (DESIGN §5; JSON Schemas in `schemas/`).
//!
//! [`raw`] decodes and validates an input page (its JSON read in one pass by `wire`, or member by
//! member by `fields` when a field has the wrong type; its bytes in the encoding [`charset`]
//! chooses), [`clean`] is the output record, [`dead_letter`] the record of an input that could
//! not be processed, [`source`] where an input came from.

pub mod charset;
pub mod clean;
pub mod dead_letter;
mod fields;
pub mod raw;
pub mod source;
mod wire;

pub use charset::{EncodingInfo, EncodingSource};
pub use clean::{BlockDetail, CleanRecord, ModelInfo};
pub use dead_letter::{DeadLetter, ErrorInfo, ErrorKind};
pub use raw::{RawPage, RecordError};
pub use source::Source;
