//! The normalized URL key of a crawled page (DESIGN §2.1-2.3): its registrable domain by the Public Suffix
//! List, the normalized URL string (the key used for duplicates and for the URL tree) and the tree branch
//! `domain / segments… / leaf`, with query parameters filtered by query-normalization rules.
//!
//! ```
//! use urltree::urlkey::{KeyOptions, QueryRules, UrlKeyer};
//!
//! let keyer = UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default());
//! let key = keyer
//!     .key("http://abcnews.go.com/kabc/story?id=8691010&section=news/local", Some("Title"))
//!     .unwrap();
//! assert_eq!(key.key, "http://abcnews.go.com/kabc/story?id=8691010");
//! assert_eq!(key.domain, "go.com");
//! assert_eq!(key.segments, ["abcnews.go.com", "kabc"]);
//! assert_eq!(key.leaf, "story?id=8691010");
//! ```

mod domain;
mod error;
mod keyer;
mod normalize;
mod rules;

#[cfg(test)]
mod tests;

pub use domain::{claimed_domain, registrable_domain};
pub use error::{RulesError, UrlKeyError};
pub use keyer::{KeyOptions, UrlKey, UrlKeyer};
pub use normalize::CID_PARAM;
pub(crate) use normalize::{push_escaped, Component};
pub use rules::{QueryRule, QueryRules, RULES_SCHEMA_ID};
