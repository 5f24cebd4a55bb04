//! Tests of the store that reach below its public interface: the journal's records as a crash
//! leaves them.

use super::*;
use crate::tree::{Branch, Fingerprint};

fn fingerprint(n: u8) -> (NodeId, Fingerprint) {
    let branch = Branch::from_names(vec!["example.com".into(), "news".into(), format!("a{n}")]);
    // Blocks 0–3 on every page (template), block 10 + n on this page alone.
    let blocks = vec![[0; 8], [1; 8], [2; 8], [3; 8], [10 + n; 8]];
    let fp = Fingerprint::new(
        i64::from(n),
        format!("http://example.com/news/a{n}"),
        branch.ids.clone(),
        blocks,
    );
    (branch.root(), fp)
}

/// A store in `dir` with the default options, the test pages `pages` inserted one batch each.
fn store_with(dir: &tempfile::TempDir, pages: std::ops::Range<u8>) -> (StateOptions, Store) {
    let options = StateOptions {
        path: dir.path().to_owned(),
        ..StateOptions::default()
    };
    let store = Store::open(&options).unwrap();
    insert(&store, pages);
    (options, store)
}

/// Inserts the test pages `pages`, one batch each.
fn insert(store: &Store, pages: std::ops::Range<u8>) {
    for n in pages {
        let mut txn = store.begin();
        let (root, fp) = fingerprint(n);
        txn.insert(root, &fp).unwrap();
        txn.commit().unwrap();
    }
}

fn journal_records(store: &Store) -> Vec<KeyValue> {
    entries(store.db(), "journal", "reading the journal").unwrap()
}

/// Every count of the test's blocks at every node of the test's branches.
fn reads(store: &Store) -> Vec<u64> {
    let keys: Vec<[u8; 8]> = (0u8..20).map(|b| [b; 8]).collect();
    let mut txn = store.begin();
    let mut out = Vec::new();
    for n in 0..4 {
        let (root, fp) = fingerprint(n);
        for &node in &fp.nodes {
            out.extend(txn.counts(root, node, &keys).unwrap());
        }
    }
    out
}

#[test]
fn records_a_fold_left_behind_are_skipped_and_deleted_when_the_store_opens() {
    let dir = tempfile::tempdir().unwrap();
    let (options, store) = store_with(&dir, 0..4);
    let records = journal_records(&store);
    assert_eq!(records.len(), 4, "one record per batch");
    let want = reads(&store);
    // The template blocks are counted at every node of the four pages' branches.
    assert!(want.contains(&4), "{want:?}");
    store.fold().unwrap();
    assert!(journal_records(&store).is_empty());
    assert_eq!(reads(&store), want);
    // A crash between the table file's ingestion and the records' deletion leaves them.
    let journal = store.cf("journal").unwrap();
    for (key, value) in &records {
        store.db().put_cf(journal, key, value).unwrap();
    }
    drop(store);
    let store = Store::open(&options).unwrap();
    assert!(journal_records(&store).is_empty());
    assert!(store.pending().is_empty());
    assert_eq!(reads(&store), want);
    // Journaling goes on after the fold's records.
    let mut txn = store.begin();
    let (root, fp) = fingerprint(9);
    txn.insert(root, &fp).unwrap();
    txn.commit().unwrap();
    let records = journal_records(&store);
    assert_eq!(records.len(), 1);
    assert_eq!(&records[0].0[..], &4u64.to_be_bytes()[..]);
}

#[test]
fn the_fold_mark_is_no_counter() {
    let dir = tempfile::tempdir().unwrap();
    let (_, store) = store_with(&dir, 0..1);
    store.compact().unwrap();
    let counts = store.cf("counts").unwrap();
    // Kept by compactions, left out of the logical state.
    let mark = store.db().get_cf(counts, journal::FOLDED).unwrap();
    assert_eq!(mark.as_deref(), Some(&1u64.to_be_bytes()[..]));
    let dump = store.dump().unwrap();
    assert!(
        dump.counts.iter().all(|(key, _)| key.len() == 16),
        "{dump:?}"
    );
    assert_eq!(store.stale_tallies().unwrap(), 0);
}

#[test]
fn folds_leave_a_file_per_slice_and_each_fold_is_followed_by_the_compaction_of_the_fullest() {
    let dir = tempfile::tempdir().unwrap();
    let options = StateOptions {
        path: dir.path().to_owned(),
        journal_counters: 64,
        ..StateOptions::default()
    };
    let store = Store::open(&options).unwrap();
    let level0 = |store: &Store| -> Vec<(usize, usize)> {
        let files = store.db().live_files().unwrap();
        files
            .iter()
            .filter(|f| f.column_family_name == "counts" && f.level == 0)
            .map(|f| {
                let slice = |key: &Option<Vec<u8>>| table_file::slice_of(key.as_deref().unwrap());
                (slice(&f.start_key), slice(&f.end_key))
            })
            .collect()
    };
    let mut most = 0;
    for n in 0..240u8 {
        insert(&store, n..n + 1);
        let files = level0(&store);
        assert!(files.iter().all(|(from, to)| from == to), "{files:?}");
        most = most.max(files.len());
    }
    let slices = table_file::SLICES;
    // Folds pile files up in level 0, and the compactions keep them to what the turn allows.
    assert!(most > slices, "{most}");
    assert!(most <= slices * (slices + 1) / 2, "{most}");
    // The counters read as those of a store that writes them directly, before and after a
    // full compaction.
    let direct_dir = tempfile::tempdir().unwrap();
    let direct = Store::open(&StateOptions {
        path: direct_dir.path().to_owned(),
        journal_counters: 0,
        ..StateOptions::default()
    })
    .unwrap();
    insert(&direct, 0..240);
    let want = reads(&direct);
    assert!(want.contains(&240), "{want:?}");
    assert_eq!(reads(&store), want);
    store.compact().unwrap();
    assert_eq!(reads(&store), want);
    assert_eq!(store.dump().unwrap(), direct.dump().unwrap());
}
