//! Rebuilding a state from a changelog of its documents (DESIGN §3: the tree is a pure function
//! of the retained fingerprints).
//!
//! [`Rebuild`] folds changelog records, in log order, into the set of retained documents: the last
//! record per document identity wins, a tombstone removes the document. Records whose input offset
//! is at or beyond the committed input position are ignored: they belong to transactions that
//! never committed (a broker may still return them) or to input that will be processed again.
//! [`Rebuild::apply`] then inserts the retained documents into an empty store in input order, in
//! batches, and records the progress in the last batch. Every counter is derived from the final
//! set, so a record read twice, a superseded record or an aborted one never counts twice.

use std::collections::HashMap;

use super::{StateError, Store};
use crate::tree::{Fingerprint, NodeId};

/// The documents a changelog retains up to an input position.
#[derive(Debug)]
pub struct Rebuild {
    upto: u64,
    docs: HashMap<[u8; 24], (i64, Option<Vec<u8>>)>,
    read: u64,
    ignored: u64,
}

/// Totals of a rebuild.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RebuildStats {
    /// Changelog records folded.
    pub read: u64,
    /// Records ignored: input offset at or beyond the position, or a malformed key.
    pub ignored: u64,
    /// Documents written to the state.
    pub documents: u64,
}

impl Rebuild {
    /// Starts a rebuild of the state as of input position `upto` (the next offset to process).
    pub fn new(upto: u64) -> Rebuild {
        Rebuild {
            upto,
            docs: HashMap::new(),
            read: 0,
            ignored: 0,
        }
    }

    /// Folds one changelog record: `key` the document identity (24 bytes, see
    /// [`super::keys::seen_key`]), `fingerprint` its encoding or `None` for a tombstone, `offset`
    /// the input offset that produced it. Returns whether the record was taken.
    pub fn push(&mut self, key: &[u8], fingerprint: Option<&[u8]>, offset: i64) -> bool {
        self.read += 1;
        let key: Option<[u8; 24]> = key.try_into().ok();
        match key {
            Some(key) if offset >= 0 && (offset as u64) < self.upto => {
                self.docs
                    .insert(key, (offset, fingerprint.map(<[u8]>::to_vec)));
                true
            }
            _ => {
                self.ignored += 1;
                false
            }
        }
    }

    /// Writes the retained documents into `store` (which must be empty) in input order,
    /// `batch_docs` per bulk write ([`super::Txn::ingest`]), with `progress_source` set to the
    /// position in the last one; nothing counts as progress until every document is in.
    pub fn apply(
        self,
        store: &Store,
        progress_source: &str,
        batch_docs: usize,
    ) -> Result<RebuildStats, StateError> {
        let mut retained: Vec<(i64, [u8; 24], Vec<u8>)> = self
            .docs
            .into_iter()
            .filter_map(|(key, (offset, fp))| fp.map(|fp| (offset, key, fp)))
            .collect();
        retained.sort_unstable_by_key(|a| (a.0, a.1));
        let documents = retained.len() as u64;
        let mut chunks = retained.chunks(batch_docs.max(1)).peekable();
        if chunks.peek().is_none() {
            let mut txn = store.begin();
            txn.set_progress(progress_source, self.upto);
            txn.commit()?;
        }
        while let Some(chunk) = chunks.next() {
            let mut txn = store.begin();
            for (_, key, bytes) in chunk {
                let fp = Fingerprint::decode(bytes).map_err(|e| StateError::Corrupt {
                    cf: "changelog",
                    detail: e.to_string(),
                })?;
                let mut domain = [0u8; 8];
                domain.copy_from_slice(&key[..8]);
                txn.insert(NodeId(domain), &fp)?;
            }
            if chunks.peek().is_none() {
                txn.set_progress(progress_source, self.upto);
            }
            txn.ingest()?;
        }
        Ok(RebuildStats {
            read: self.read,
            ignored: self.ignored,
            documents,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::keys::seen_key;
    use crate::state::StateOptions;

    fn fp(n: u8, url: &str) -> Fingerprint {
        Fingerprint::new(
            n as i64,
            url.into(),
            vec![NodeId([1; 8]), NodeId([n; 8])],
            vec![[n; 8], [200; 8]],
        )
    }

    fn store(dir: &std::path::Path) -> Store {
        Store::open(&StateOptions {
            path: dir.to_owned(),
            ..StateOptions::default()
        })
        .unwrap()
    }

    #[test]
    fn superseded_aborted_and_repeated_records_count_once() {
        let dir = tempfile::tempdir().unwrap();
        let domain = NodeId([1; 8]);
        let (a, b, c) = (fp(2, "a"), fp(3, "b"), fp(4, "c"));
        let key = |f: &Fingerprint| seen_key(domain, &f.url_key);

        // The reference: a, b, c inserted, a forgotten.
        let reference = store(&dir.path().join("ref"));
        let mut txn = reference.begin();
        for f in [&a, &b, &c] {
            txn.insert(domain, f).unwrap();
        }
        txn.forget_oldest(domain).unwrap();
        txn.set_progress("in/0", 10);
        txn.commit().unwrap();

        let mut rebuild = Rebuild::new(10);
        assert!(rebuild.push(&key(&a), Some(&a.encode()), 1));
        assert!(rebuild.push(&key(&b), Some(&b.encode()), 2));
        // A transaction that aborted and was produced again: the same records twice.
        assert!(rebuild.push(&key(&c), Some(&c.encode()), 3));
        assert!(rebuild.push(&key(&a), None, 3));
        assert!(rebuild.push(&key(&c), Some(&c.encode()), 3));
        assert!(rebuild.push(&key(&a), None, 3));
        // Beyond the committed position: ignored.
        assert!(!rebuild.push(&key(&b), None, 10));
        assert!(!rebuild.push(&seen_key(domain, "d"), Some(&fp(5, "d").encode()), 12));
        assert!(!rebuild.push(b"short", None, 1));
        let restored = store(&dir.path().join("restored"));
        let stats = rebuild.apply(&restored, "in/0", 1).unwrap();
        assert_eq!(
            stats,
            RebuildStats {
                read: 9,
                ignored: 3,
                documents: 2
            }
        );
        assert_eq!(restored.dump().unwrap(), reference.dump().unwrap());
        assert_eq!(restored.progress("in/0").unwrap(), Some(10));
    }

    #[test]
    fn an_empty_changelog_still_records_the_position() {
        let dir = tempfile::tempdir().unwrap();
        let restored = store(dir.path());
        let stats = Rebuild::new(7).apply(&restored, "in/3", 100).unwrap();
        assert_eq!(stats.documents, 0);
        assert_eq!(restored.progress("in/3").unwrap(), Some(7));
    }
}
