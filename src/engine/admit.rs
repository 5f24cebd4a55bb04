//! The admission stages: **decode** the record, compute its **key**, check for a **dup**licate,
//! split the page into **blocks**. Each either hands the page on or says why it cannot go on.

use crate::blocks::{Block, Tokenizer};
use crate::config::DomainCheck;
use crate::record::{ErrorKind, RawPage};
use crate::state::{StateError, Txn};
use crate::tree::{Branch, Fingerprint};
use crate::urlkey::{claimed_domain, UrlKey, UrlKeyer};

/// Why a record goes to the dead letters instead of on through the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Rejection {
    /// The dead letter's error kind.
    pub kind: ErrorKind,
    /// What was wrong, for a person to read.
    pub message: String,
}

impl Rejection {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Rejection {
        Rejection {
            kind,
            message: message.into(),
        }
    }
}

/// **Decode**: the record's JSON into a page, within `max_record_bytes`.
pub(super) fn decode(bytes: &[u8], max_record_bytes: usize) -> Result<RawPage, Rejection> {
    RawPage::decode(bytes, max_record_bytes).map_err(|e| Rejection::new(e.kind(), e.to_string()))
}

/// **Key**: the page's URL key and its branch in the tree. A `domain` the record claims must agree
/// with the URL's registrable domain (`Verify`), or files the page under the claimed domain
/// (`TrustRecord`).
pub(super) fn key(
    keyer: &UrlKeyer,
    domain_check: DomainCheck,
    page: &RawPage,
) -> Result<(UrlKey, Branch), Rejection> {
    let mut key = keyer
        .key(page.effective_url(), page.title.as_deref())
        .map_err(|e| Rejection::new(ErrorKind::BadUrl, e.to_string()))?;
    if let Some(claimed) = page.domain.as_deref() {
        let claimed = claimed_domain(claimed);
        if claimed != key.domain {
            match domain_check {
                DomainCheck::Verify => {
                    let message = format!(
                        "record domain {claimed:?} disagrees with the URL's registrable domain {:?} \
                         (to file such records under their domain field, as for pages an archive \
                         served from another host: --trust-record-domain, or [input] \
                         domain_check = \"trust-record\")",
                        key.domain
                    );
                    return Err(Rejection::new(ErrorKind::DomainMismatch, message));
                }
                DomainCheck::TrustRecord => rehome(&mut key, claimed),
            }
        }
    }
    let branch = Branch::of(&key);
    Ok((key, branch))
}

/// The document a page's URL key already holds in its domain: its sequence number and fingerprint.
pub(super) type HeldDoc = (u64, Fingerprint);

/// **Dedup**, first half: the document the page's URL key already holds in its domain, if any.
pub(super) fn held(
    txn: &mut Txn<'_>,
    branch: &Branch,
    key: &UrlKey,
) -> Result<Option<HeldDoc>, StateError> {
    txn.held(branch.root(), &key.key)
}

/// **Dedup**, second half: whether a re-fetched page is a duplicate of the document its key holds,
/// i.e. the tree would learn nothing from it: the same distinct block texts and element paths.
/// Otherwise it is a new version of the page.
pub(super) fn is_duplicate(held: &Fingerprint, fetched: &Fingerprint) -> bool {
    held.blocks == fetched.blocks && held.paths == fetched.paths
}

/// **Blocks**: the page's text blocks, in document order.
pub(super) fn blocks(tokenizer: &mut Tokenizer, page: &RawPage) -> Result<Vec<Block>, Rejection> {
    tokenizer
        .blocks_str(&page.html)
        .map_err(|e| Rejection::new(ErrorKind::BadHtml, e.to_string()))
}

/// Puts a page whose record names another registrable domain under that domain: the URL's host
/// becomes the first branch segment, so its pages still group by host.
fn rehome(key: &mut UrlKey, domain: String) {
    if key.segments.first() != Some(&key.host) {
        key.segments.insert(0, key.host.clone());
    }
    key.domain = domain;
}
