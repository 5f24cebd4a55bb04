//! Property tests of the URL Tree state in RocksDB: forgetting is the exact inverse of inserting,
//! and the state is a function of the documents it holds.

use proptest::prelude::*;
use urltree::state::{StateDump, StateOptions, Store};
use urltree::tree::{path_key, BlockKey, Branch, Fingerprint, NodeId};

#[derive(Clone, Debug)]
struct Page {
    domain: usize,
    path: Vec<u8>,
    blocks: Vec<u8>,
    /// Element paths of the page's blocks (indices into `ELEMENT_PATHS`).
    elements: Vec<u8>,
    id: u32,
}

const ELEMENT_PATHS: [&str; 4] = ["html/body/p", "html/body/div/p", "html/body/ul/li", ""];

fn page_strategy() -> impl Strategy<Value = Page> {
    (
        0usize..3,
        prop::collection::vec(0u8..3, 0..4),
        prop::collection::vec(0u8..12, 0..10),
        prop::collection::vec(0u8..4, 0..6),
        any::<u32>(),
    )
        .prop_map(|(domain, path, blocks, elements, id)| Page {
            domain,
            path,
            blocks,
            elements,
            id,
        })
}

const DOMAINS: [&str; 3] = ["example.com", "bbc.co.uk", "x.blogspot.com"];

impl Page {
    fn domain_id(&self) -> NodeId {
        self.branch().root()
    }

    fn branch(&self) -> Branch {
        let mut names = vec![DOMAINS[self.domain].to_owned()];
        names.extend(self.path.iter().map(|s| format!("s{s}")));
        names.push(format!("leaf{}", self.id));
        Branch::from_names(names)
    }

    fn fingerprint(&self, time_ms: i64) -> Fingerprint {
        let blocks: Vec<BlockKey> = self.blocks.iter().map(|&b| [b; 8]).collect();
        Fingerprint::new(
            time_ms,
            format!("http://{}/{}", DOMAINS[self.domain], self.id),
            self.branch().ids,
            blocks,
        )
        .with_paths(self.path_keys())
    }

    fn path_keys(&self) -> Vec<BlockKey> {
        self.elements
            .iter()
            .map(|&e| path_key(ELEMENT_PATHS[e as usize]))
            .collect()
    }
}

fn open() -> (tempfile::TempDir, Store) {
    open_with(StateOptions::default().journal_counters)
}

/// A store whose counter journal holds `journal` counters before they are folded.
fn open_with(journal: usize) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let options = StateOptions {
        path: dir.path().to_owned(),
        journal_counters: journal,
        ..StateOptions::default()
    };
    let store = Store::open(&options).unwrap();
    (dir, store)
}

/// Journal bounds: none (every batch's counters written directly), a few counters (folded as a
/// table file every batch or two), and the default (folded at the end).
fn journal_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        1usize..40,
        Just(StateOptions::default().journal_counters)
    ]
}

/// Inserts pages in batches of `batch` (each committed), skipping URL keys already held.
fn insert_all(store: &Store, pages: &[Page], batch: usize) {
    for (i, chunk) in pages.chunks(batch.max(1)).enumerate() {
        let mut txn = store.begin();
        for (j, page) in chunk.iter().enumerate() {
            let fp = page.fingerprint((i * 100 + j) as i64);
            if txn.held(page.domain_id(), &fp.url_key).unwrap().is_none() {
                txn.insert(page.domain_id(), &fp).unwrap();
            }
        }
        txn.commit().unwrap();
    }
}

/// Inserts pages at the given event times in batches of `batch`, each replacing the document its
/// URL key holds (a new version): the old one forgotten, the new one inserted.
fn replace_all(store: &Store, pages: &[(Page, i64)], batch: usize) {
    for chunk in pages.chunks(batch.max(1)) {
        let mut txn = store.begin();
        for (page, time) in chunk {
            let fp = page.fingerprint(*time);
            if let Some((seq, old)) = txn.held(page.domain_id(), &fp.url_key).unwrap() {
                txn.forget(page.domain_id(), seq, &old).unwrap();
            }
            txn.insert(page.domain_id(), &fp).unwrap();
        }
        txn.commit().unwrap();
    }
}

fn forget_domain_docs(store: &Store, domain: NodeId, n: usize, batch: usize) {
    let mut left = n;
    while left > 0 {
        let mut txn = store.begin();
        for _ in 0..batch.min(left) {
            txn.forget_oldest(domain).unwrap();
            left -= 1;
        }
        txn.commit().unwrap();
    }
}

fn dump(store: &Store) -> StateDump {
    store.compact().unwrap();
    store.dump().unwrap()
}

/// One step of a stream over a store.
#[derive(Clone, Debug)]
enum Op {
    /// Insert the page into the pending batch, replacing the version its URL key holds.
    Insert(Page),
    /// Forget up to this many of the domain's oldest documents in the pending batch.
    Forget(usize, usize),
    /// Commit the pending batch.
    Commit,
    /// Commit, then flush the memtables to table files.
    Flush,
    /// Commit, then flush and compact every column family.
    Compact,
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        // Few URL keys per domain, so pages come back as new versions.
        6 => page_strategy().prop_map(|p| Op::Insert(Page { id: p.id % 8, ..p })),
        3 => (0usize..3, 1usize..4).prop_map(|(d, n)| Op::Forget(d, n)),
        2 => Just(Op::Commit),
        1 => Just(Op::Flush),
        1 => Just(Op::Compact),
    ]
}

/// Runs `ops` over `store`, committing at the end.
fn stream(store: &Store, ops: &[Op]) {
    let mut txn = store.begin();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Insert(page) => {
                // A URL key already held is a new version of its page: the old one goes first.
                let fp = page.fingerprint(i as i64);
                if let Some((seq, old)) = txn.held(page.domain_id(), &fp.url_key).unwrap() {
                    txn.forget(page.domain_id(), seq, &old).unwrap();
                }
                txn.insert(page.domain_id(), &fp).unwrap();
            }
            Op::Forget(domain, n) => {
                let domain = Branch::from_names(vec![DOMAINS[*domain].to_owned()]).root();
                for _ in 0..*n {
                    txn.forget_oldest(domain).unwrap();
                }
            }
            Op::Commit | Op::Flush | Op::Compact => {
                std::mem::replace(&mut txn, store.begin()).commit().unwrap();
                match op {
                    Op::Flush => store.flush().unwrap(),
                    Op::Compact => store.compact().unwrap(),
                    _ => {}
                }
            }
        }
    }
    txn.commit().unwrap();
}

/// A fresh store holding `store`'s retained documents alone, inserted in their arrival order.
fn fresh_from_retained(store: &Store) -> (tempfile::TempDir, Store) {
    let (dir, fresh) = open();
    let mut txn = fresh.begin();
    for (domain, bytes) in store.retained().unwrap() {
        txn.insert(domain, &Fingerprint::decode(&bytes).unwrap())
            .unwrap();
    }
    txn.commit().unwrap();
    (dir, fresh)
}

proptest! {
    // Each case opens two stores and flushes and compacts them several times: mostly disk waits.
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Whatever order inserts, new versions, forgets, flushes and compactions come in, the state on
    /// disk holds exactly the counts a fresh state of the retained documents holds (no counter left
    /// at zero, path counters included) and about the same room: a block that two documents held
    /// and one forgot stays counted below the root of the other's branch, where a fresh state
    /// counts it at the root alone, so the streamed state may be a little larger, never smaller.
    #[test]
    fn the_state_on_disk_is_that_of_the_retained_documents(ops in prop::collection::vec(op_strategy(), 1..80), journal in journal_strategy()) {
        let (_dir, store) = open_with(journal);
        stream(&store, &ops);
        let (_fresh_dir, fresh) = fresh_from_retained(&store);
        // Before any compaction of its own: a counter that came back to zero is already gone.
        let streamed = store.dump().unwrap();
        prop_assert!(streamed.counts.iter().chain(&streamed.supports).all(|(_, v)| *v > 0), "{:?}", streamed);
        prop_assert_eq!(&streamed, &dump(&fresh));
        prop_assert_eq!(&dump(&store), &streamed);
        // Compacted: the tallies of forgotten documents left in place are gone from disk too.
        prop_assert_eq!(store.stale_tallies().unwrap(), 0);
        // A stream that folded its journal keeps the fold mark, which a fresh state that never
        // folded lacks: when nothing else is left, a table file of its own (about 1.1 KB).
        let (a, b) = (store.sizes().unwrap().sst_bytes, fresh.sizes().unwrap().sst_bytes);
        prop_assert!(a + b / 100 + 512 >= b && a <= b + b / 5 + 1536, "streamed {} bytes, fresh {} bytes", a, b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// A restart (here, reopening the store between runs of operations, with journal records
    /// pending, folded, or both, and the bound changed between runs) neither loses nor applies
    /// twice a journaled write: every read right after reopening, before anything is folded,
    /// and the state are those of the retained documents.
    #[test]
    fn the_counter_journal_survives_reopening(chunks in prop::collection::vec((prop::collection::vec(op_strategy(), 1..25), journal_strategy()), 1..5)) {
        let dir = tempfile::tempdir().unwrap();
        let options = |journal| StateOptions {
            path: dir.path().to_owned(),
            journal_counters: journal,
            ..StateOptions::default()
        };
        for (chunk, journal) in &chunks {
            let store = Store::open(&options(*journal)).unwrap();
            assert_reads_match_retained(&store)?;
            stream(&store, chunk);
        }
        let store = Store::open(&options(StateOptions::default().journal_counters)).unwrap();
        assert_reads_match_retained(&store)?;
        let (_fresh_dir, fresh) = fresh_from_retained(&store);
        prop_assert_eq!(store.dump().unwrap(), dump(&fresh));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn forgetting_everything_leaves_nothing(pages in prop::collection::vec(page_strategy(), 1..40), batch in 1usize..8) {
        let (_dir, store) = open();
        insert_all(&store, &pages, batch);
        for name in DOMAINS {
            let domain = Branch::from_names(vec![name.to_owned()]).root();
            let held = { store.begin().domain(domain).unwrap().held() };
            forget_domain_docs(&store, domain, held as usize + 1, batch);
        }
        let state = dump(&store);
        prop_assert_eq!(state, StateDump::default());
    }

    #[test]
    fn a_then_b_then_forget_a_equals_b(a in prop::collection::vec(page_strategy(), 1..15),
                                       b in prop::collection::vec(page_strategy(), 1..15),
                                       batch in 1usize..6) {
        // Keep A and B apart: one domain, distinct ids, so "forget A" is "forget the oldest |A|".
        let a: Vec<Page> = a.into_iter().enumerate().map(|(i, p)| Page { domain: 0, id: i as u32, ..p }).collect();
        let b: Vec<Page> = b.into_iter().enumerate().map(|(i, p)| Page { domain: 0, id: 1000 + i as u32, ..p }).collect();
        let (_d1, both) = open();
        insert_all(&both, &a, batch);
        // B's event times must match the B-alone run: re-insert with the same batch layout.
        let (_d2, only_b) = open();
        insert_all(&only_b, &b, batch);
        insert_all(&both, &b, batch);
        forget_domain_docs(&both, a[0].domain_id(), a.len(), batch);
        prop_assert_eq!(dump(&both), dump(&only_b));
    }
}

proptest! {
    // Two stores and four dumps a case: fewer cases keep the test within seconds of CPU time.
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn new_versions_equal_a_stream_of_the_last_versions(pages in prop::collection::vec(page_strategy(), 1..40),
                                                        batch in 1usize..8, keep in 1usize..6) {
        // Few URL keys, so pages come back as new versions within and across batches.
        let pages: Vec<(Page, i64)> = pages
            .into_iter()
            .enumerate()
            .map(|(i, p)| (Page { id: p.id % 5, ..p }, i as i64))
            .collect();
        let (_d1, versions) = open();
        replace_all(&versions, &pages, batch);
        // The reference never saw a replaced version: each key's last version, in arrival order.
        let last: Vec<(Page, i64)> = pages
            .iter()
            .enumerate()
            .filter(|(i, (p, _))| {
                !pages[i + 1..].iter().any(|(q, _)| q.domain == p.domain && q.id == p.id)
            })
            .map(|(_, page)| page.clone())
            .collect();
        let (_d2, reference) = open();
        replace_all(&reference, &last, batch);
        prop_assert_eq!(dump(&versions), dump(&reference));
        // Retention then forgets in the same order in both, skipping the replaced versions' places,
        // down to nothing.
        let domains: Vec<NodeId> = DOMAINS
            .iter()
            .map(|name| Branch::from_names(vec![(*name).to_owned()]).root())
            .collect();
        for &domain in &domains {
            let held = { versions.begin().domain(domain).unwrap().held() } as usize;
            let forget = held.saturating_sub(keep);
            forget_domain_docs(&versions, domain, forget, batch);
            forget_domain_docs(&reference, domain, forget, batch);
        }
        prop_assert_eq!(dump(&versions), dump(&reference));
        for &domain in &domains {
            forget_domain_docs(&versions, domain, keep + 1, batch);
        }
        prop_assert_eq!(dump(&versions), StateDump::default());
    }
}

#[test]
fn reads_see_the_pending_batch_and_commit_is_atomic() {
    let (_dir, store) = open();
    let page = Page {
        domain: 0,
        path: vec![1, 2],
        blocks: vec![1, 2, 3],
        elements: vec![0, 2, 0],
        id: 7,
    };
    let fp = page.fingerprint(5);
    let branch = page.branch();
    {
        let mut txn = store.begin();
        txn.insert(page.domain_id(), &fp).unwrap();
        assert_eq!(
            txn.supports(&branch.ids).unwrap(),
            vec![1; branch.ids.len()]
        );
        assert_eq!(
            txn.counts(branch.ids[0], branch.ids[1], &fp.blocks)
                .unwrap(),
            vec![1, 1, 1]
        );
        assert_eq!(
            txn.counts(branch.ids[0], branch.ids[1], &fp.paths).unwrap(),
            vec![1, 1],
            "each distinct element path counts once per page"
        );
        assert_eq!(
            txn.held(page.domain_id(), &fp.url_key).unwrap(),
            Some((0, fp.clone()))
        );
        // Dropped without commit: nothing reaches the database.
    }
    assert_eq!(dump(&store), StateDump::default());
    let mut txn = store.begin();
    txn.insert(page.domain_id(), &fp).unwrap();
    txn.set_progress("raw-html/0", 42);
    txn.commit().unwrap();
    let mut txn = store.begin();
    assert_eq!(
        txn.counts(branch.ids[0], branch.ids[0], &fp.blocks)
            .unwrap(),
        vec![1, 1, 1]
    );
    assert_eq!(txn.domain(page.domain_id()).unwrap().held(), 1);
    assert_eq!(store.progress("raw-html/0").unwrap(), Some(42));
    assert_eq!(store.progress("raw-html/1").unwrap(), None);
}

#[test]
fn state_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let options = StateOptions {
        path: dir.path().to_owned(),
        ..StateOptions::default()
    };
    let pages: Vec<Page> = (0..5)
        .map(|i| Page {
            domain: 1,
            path: vec![0],
            blocks: vec![1, 2],
            elements: vec![i as u8 % 2],
            id: i,
        })
        .collect();
    {
        let store = Store::open(&options).unwrap();
        insert_all(&store, &pages, 2);
    }
    let store = Store::open(&options).unwrap();
    let mut txn = store.begin();
    let branch = pages[0].branch();
    assert_eq!(txn.supports(&branch.ids[..2]).unwrap(), vec![5, 5]);
    assert_eq!(
        txn.counts(branch.ids[0], branch.ids[1], &[[1; 8], [2; 8], [3; 8]])
            .unwrap(),
        vec![5, 5, 0]
    );
    // Pages 0, 2, 4 used the first element path, pages 1 and 3 the second.
    let paths = [
        path_key(ELEMENT_PATHS[0]),
        path_key(ELEMENT_PATHS[1]),
        path_key(ELEMENT_PATHS[2]),
    ];
    assert_eq!(
        txn.counts(branch.ids[0], branch.ids[1], &paths).unwrap(),
        vec![3, 2, 0]
    );
}

#[test]
fn forgetting_subtracts_path_counts() {
    let (_dir, store) = open();
    let pages: Vec<Page> = (0..3)
        .map(|i| Page {
            domain: 0,
            path: vec![],
            blocks: vec![i as u8],
            elements: vec![0, 1],
            id: i,
        })
        .collect();
    insert_all(&store, &pages, 2);
    let root = pages[0].domain_id();
    let keys = pages[0].path_keys();
    assert_eq!(store.begin().counts(root, root, &keys).unwrap(), vec![3, 3]);
    forget_domain_docs(&store, root, 1, 1);
    assert_eq!(store.begin().counts(root, root, &keys).unwrap(), vec![2, 2]);
    forget_domain_docs(&store, root, 2, 1);
    assert_eq!(dump(&store), StateDump::default());
}

#[test]
fn a_domain_whose_bookkeeping_does_not_decode_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let options = StateOptions {
        path: dir.path().to_owned(),
        ..StateOptions::default()
    };
    let page = |domain: usize| Page {
        domain,
        path: vec![],
        blocks: vec![1],
        elements: vec![],
        id: 0,
    };
    {
        let store = Store::open(&options).unwrap();
        insert_all(&store, &[page(0), page(1)], 2);
        // In table files, so the raw open below has no log to replay without the merge operator.
        store.flush().unwrap();
    }
    {
        // A damaged entry for the first domain, written behind the store's back.
        let mut opts = rocksdb::Options::default();
        opts.create_if_missing(false);
        let names = urltree::state::keys::COLUMN_FAMILIES;
        let db = rocksdb::DB::open_cf(&opts, dir.path(), names).unwrap();
        let cf = db.cf_handle("domains").unwrap();
        db.put_cf(&cf, page(0).domain_id().0, b"garbage").unwrap();
    }
    // The store opens; the damaged domain reports itself, the other works.
    let store = Store::open(&options).unwrap();
    let err = store.begin().domain(page(0).domain_id()).unwrap_err();
    assert!(err.to_string().contains("domains"), "{err}");
    assert_eq!(store.begin().domain(page(1).domain_id()).unwrap().held(), 1);
}

#[test]
fn the_oldest_documents_unique_blocks_go_stale_then_compact_away() {
    let (_dir, store) = open();
    // Block 1 is held by the first page alone, block 2 by both.
    let page = |id: u32, blocks: Vec<u8>| Page {
        domain: 0,
        path: vec![0],
        blocks,
        elements: vec![],
        id,
    };
    let (a, b) = (page(0, vec![1, 2]), page(1, vec![2]));
    insert_all(&store, &[a.clone(), b.clone()], 2);
    let root = a.domain_id();
    let leaf = *a.branch().ids.last().unwrap();
    let keys = [[1u8; 8], [2u8; 8]];
    assert_eq!(store.begin().counts(root, leaf, &keys).unwrap(), vec![1, 1]);
    forget_domain_docs(&store, root, 1, 1);
    // The first page's tally is left in place, and read as absent at every node.
    assert_eq!(store.stale_tallies().unwrap(), 1);
    assert_eq!(store.begin().counts(root, root, &keys).unwrap(), vec![0, 1]);
    assert_eq!(store.begin().counts(root, leaf, &keys).unwrap(), vec![0, 0]);
    // A new holder of the block starts its count again from one, over the stale tally.
    insert_all(&store, &[page(2, vec![1]), page(3, vec![4])], 2);
    assert_eq!(store.begin().counts(root, root, &keys).unwrap(), vec![1, 1]);
    assert_eq!(store.stale_tallies().unwrap(), 0);
    // The second page's shared block goes at once; the third page's is left stale.
    forget_domain_docs(&store, root, 2, 2);
    assert_eq!(store.begin().counts(root, root, &keys).unwrap(), vec![0, 0]);
    assert_eq!(store.stale_tallies().unwrap(), 1);
    store.compact().unwrap();
    assert_eq!(store.stale_tallies().unwrap(), 0);
    assert_eq!(dump(&store), fresh_from_retained(&store).1.dump().unwrap());
}

#[test]
fn a_domain_that_empties_numbers_its_documents_again_without_old_tallies() {
    let (_dir, store) = open();
    let page = |id: u32, blocks: Vec<u8>| Page {
        domain: 1,
        path: vec![],
        blocks,
        elements: vec![],
        id,
    };
    insert_all(&store, &[page(0, vec![1]), page(1, vec![2])], 1);
    let root = page(0, vec![]).domain_id();
    // Forgetting the oldest leaves its tally stale; forgetting the last empties the domain.
    forget_domain_docs(&store, root, 1, 1);
    assert_eq!(store.stale_tallies().unwrap(), 1);
    forget_domain_docs(&store, root, 1, 1);
    assert_eq!(store.begin().domain(root).unwrap().next_seq, 0);
    // Sequence numbers start from 0 again: the old tally of document 0 must not count.
    insert_all(&store, &[page(5, vec![3])], 1);
    let keys = [[1u8; 8], [2u8; 8], [3u8; 8]];
    assert_eq!(
        store.begin().counts(root, root, &keys).unwrap(),
        vec![0, 0, 1]
    );
    assert_eq!(store.stale_tallies().unwrap(), 0);
    assert_eq!(dump(&store), fresh_from_retained(&store).1.dump().unwrap());
}

/// Counts by (node, key) of the documents `docs` holds, as the paper defines them: at each node,
/// the number of documents through it that hold the block (or element path).
fn model_counts<'a>(
    docs: impl Iterator<Item = &'a Fingerprint>,
) -> std::collections::HashMap<(NodeId, BlockKey), u64> {
    let mut counts = std::collections::HashMap::new();
    for fp in docs {
        for node in &fp.nodes {
            for key in fp.blocks.iter().chain(&fp.paths) {
                *counts.entry((*node, *key)).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// Every count a reader can ask for — at each node of every domain's branches, for every block
/// and element path the pages use, and for keys no page has — against the model.
fn assert_reads_match(
    txn: &mut urltree::state::Txn<'_>,
    model: &std::collections::HashMap<(NodeId, BlockKey), u64>,
    pages: &[Page],
) -> Result<(), TestCaseError> {
    let mut keys: Vec<BlockKey> = (0u8..14).map(|b| [b; 8]).collect();
    keys.extend(ELEMENT_PATHS.iter().map(|p| path_key(p)));
    for page in pages {
        let branch = page.branch();
        let root = branch.root();
        for &node in branch.stored() {
            let read = txn.counts(root, node, &keys).unwrap();
            let want: Vec<u64> = keys
                .iter()
                .map(|k| model.get(&(node, *k)).copied().unwrap_or(0))
                .collect();
            prop_assert_eq!(read, want, "node {:?} of {:?}", node, branch.names);
        }
    }
    Ok(())
}

/// Every count a reader can ask for at the nodes of the retained documents' branches, for the
/// blocks and element paths they hold and for keys none holds, against the model of the
/// retained documents.
fn assert_reads_match_retained(store: &Store) -> Result<(), TestCaseError> {
    let retained: Vec<(NodeId, Fingerprint)> = store
        .retained()
        .unwrap()
        .into_iter()
        .map(|(domain, bytes)| (domain, Fingerprint::decode(&bytes).unwrap()))
        .collect();
    let model = model_counts(retained.iter().map(|(_, fp)| fp));
    let mut keys: Vec<BlockKey> = (0u8..14).map(|b| [b; 8]).collect();
    keys.extend(ELEMENT_PATHS.iter().map(|p| path_key(p)));
    let mut txn = store.begin();
    for (root, fp) in &retained {
        for &node in &fp.nodes {
            let read = txn.counts(*root, node, &keys).unwrap();
            let want: Vec<u64> = keys
                .iter()
                .map(|k| model.get(&(node, *k)).copied().unwrap_or(0))
                .collect();
            prop_assert_eq!(read, want, "node {:?}", node);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Reads of `c(b)` at any node, in the pending batch and after commits, equal the counts of
    /// the documents held, whether a block is held by one document (counted at its root alone) or
    /// by several, and however it got there (new versions, forgetting, second holders).
    #[test]
    fn reads_at_every_node_count_the_documents_held(ops in prop::collection::vec(op_strategy(), 1..60), journal in journal_strategy()) {
        let (_dir, store) = open_with(journal);
        let mut held: Vec<Fingerprint> = Vec::new();
        let mut pages: Vec<Page> = Vec::new();
        let mut txn = store.begin();
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Insert(page) => {
                    let fp = page.fingerprint(i as i64);
                    if let Some((seq, old)) = txn.held(page.domain_id(), &fp.url_key).unwrap() {
                        txn.forget(page.domain_id(), seq, &old).unwrap();
                        let at = held.iter().position(|f| *f == old).unwrap();
                        held.remove(at);
                    }
                    txn.insert(page.domain_id(), &fp).unwrap();
                    held.push(fp);
                    pages.push(page.clone());
                }
                Op::Forget(domain, n) => {
                    let domain = Branch::from_names(vec![DOMAINS[*domain].to_owned()]).root();
                    for _ in 0..*n {
                        if let Some(gone) = txn.forget_oldest(domain).unwrap() {
                            let at = held.iter().position(|f| *f == gone).unwrap();
                            held.remove(at);
                        }
                    }
                }
                Op::Commit | Op::Flush | Op::Compact => {
                    assert_reads_match(&mut txn, &model_counts(held.iter()), &pages)?;
                    std::mem::replace(&mut txn, store.begin()).commit().unwrap();
                    match op {
                        Op::Flush => store.flush().unwrap(),
                        Op::Compact => store.compact().unwrap(),
                        _ => {}
                    }
                    assert_reads_match(&mut store.begin(), &model_counts(held.iter()), &pages)?;
                }
            }
        }
        assert_reads_match(&mut txn, &model_counts(held.iter()), &pages)?;
        txn.commit().unwrap();
        assert_reads_match(&mut store.begin(), &model_counts(held.iter()), &pages)?;
    }
}
