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

/// Page `n` under `example.com/news` as a member of template cluster `cluster` of the `news`
/// node, with the element paths `paths`: its branch runs through the cluster's node.
fn clustered(n: u8, cluster: u8, paths: std::ops::Range<u8>) -> (NodeId, Fingerprint) {
    use crate::tree::cluster::{with_cluster, Membership};
    let branch = Branch::from_names(vec!["example.com".into(), "news".into(), format!("a{n}")]);
    let split = branch.ids[1];
    let branch = with_cluster(&branch, 1, cluster);
    let fp = Fingerprint::new(
        i64::from(n),
        format!("http://example.com/news/a{n}"),
        branch.stored().to_vec(),
        vec![[0; 8], [10 + n; 8]],
    )
    .with_paths(paths.map(|p| [p; 8]).collect())
    .with_template(Membership {
        node: split,
        cluster,
    });
    (branch.root(), fp)
}

#[test]
fn template_clusters_persist_across_reopen_rebuild_alike_and_go_with_their_last_member() {
    use crate::tree::cluster::cluster_node;
    let dir = tempfile::tempdir().unwrap();
    let options = StateOptions {
        path: dir.path().join("live"),
        ..StateOptions::default()
    };
    let store = Store::open(&options).unwrap();
    // Articles (paths 1–9) in cluster 0, galleries (paths 20–29) in cluster 1, one per batch.
    let pages = [
        (0, 0, 1..10),
        (1, 1, 20..30),
        (2, 0, 1..9),
        (3, 0, 2..10),
        (4, 1, 21..30),
    ];
    for (n, cluster, paths) in pages.clone() {
        let mut txn = store.begin();
        let (root, fp) = clustered(n, cluster, paths);
        txn.insert(root, &fp).unwrap();
        txn.commit().unwrap();
    }
    let (root, fp) = clustered(0, 0, 1..10);
    let news = fp.template.unwrap().node;
    let read = |store: &Store| {
        let mut txn = store.begin();
        let clusters = txn.clusters(root, news).unwrap().clone();
        let supports = txn
            .supports(&[news, cluster_node(news, 0), cluster_node(news, 1)])
            .unwrap();
        (clusters, supports)
    };
    let (clusters, supports) = read(&store);
    assert_eq!(supports, [5, 3, 2]);
    let members: Vec<(u8, u64, usize)> = clusters
        .clusters
        .iter()
        .map(|c| (c.id, c.members, c.representatives.len()))
        .collect();
    assert_eq!(members, [(0, 3, 3), (1, 2, 2)]);
    // A restart restores them.
    drop(store);
    let store = Store::open(&options).unwrap();
    assert_eq!(read(&store), (clusters.clone(), supports.clone()));
    // So does a rebuild from the changelog of the retained documents (a rebalance).
    let mut rebuild = Rebuild::new(100);
    for (offset, (_, bytes)) in store.retained().unwrap().into_iter().enumerate() {
        let fp = Fingerprint::decode(&bytes).unwrap();
        let key = keys::seen_key(root, &fp.url_key);
        rebuild.push(&key, Some(&bytes), offset as i64);
    }
    let restored = Store::open(&StateOptions {
        path: dir.path().join("restored"),
        ..StateOptions::default()
    })
    .unwrap();
    rebuild.apply(&restored, "in/0", 2).unwrap();
    assert_eq!(restored.dump().unwrap(), store.dump().unwrap());
    assert_eq!(read(&restored), (clusters, supports));
    // Retention forgets the oldest first: the galleries' cluster goes with its last member,
    // and the node's clusters with the last of all.
    let mut txn = store.begin();
    for _ in 0..2 {
        txn.forget_oldest(root).unwrap();
    }
    txn.commit().unwrap();
    let (clusters, supports) = read(&store);
    assert_eq!(supports, [3, 2, 1]);
    assert_eq!(clusters.clusters[1].representatives.len(), 1);
    let mut txn = store.begin();
    txn.forget_oldest(root).unwrap();
    txn.forget_oldest(root).unwrap();
    txn.commit().unwrap();
    let (clusters, supports) = read(&store);
    assert_eq!(supports, [1, 0, 1]);
    assert_eq!(clusters.clusters.len(), 1);
    let mut txn = store.begin();
    txn.forget_oldest(root).unwrap();
    txn.commit().unwrap();
    assert!(read(&store).0.is_empty());
    assert!(store.dump().unwrap().clusters.is_empty());
}
