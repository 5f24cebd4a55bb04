//! Criterion micro-benchmarks of the URL Tree state: inserting a page (one batch of merges) and
//! classifying it (supports plus one multi-get of its block counts).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use urltree::state::{StateOptions, Store};
use urltree::tree::{Branch, Fingerprint, Heuristic};

const BLOCKS: usize = 120;

fn fingerprint(i: u64) -> Fingerprint {
    let section = format!("section{}", i % 7);
    let names = vec![
        "example.com".to_owned(),
        "news".to_owned(),
        section,
        format!("story{i}"),
    ];
    let branch = Branch::from_names(names);
    // Two thirds template (shared by every page), one third unique to the page.
    let blocks = (0..BLOCKS as u64)
        .map(|b| {
            let id = if b % 3 == 0 { (i << 16) | b } else { b };
            id.to_be_bytes()
        })
        .collect();
    Fingerprint::new(
        i as i64,
        format!("http://example.com/news/{i}"),
        branch.ids,
        blocks,
    )
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&StateOptions {
        path: dir.path().to_owned(),
        ..StateOptions::default()
    })
    .expect("open store");
    // Warm the tree with 2,000 pages.
    for chunk in (0..2000u64).collect::<Vec<_>>().chunks(250) {
        let mut txn = store.begin();
        for &i in chunk {
            let fp = fingerprint(i);
            txn.insert(fp.nodes[0], &fp).expect("insert");
        }
        txn.commit().expect("commit");
    }
    let mut next = 2000u64;
    let mut group = c.benchmark_group("tree");
    group.throughput(Throughput::Elements(1));
    group.bench_function("insert+classify page (batch of 64)", |b| {
        b.iter_batched(
            || {
                let pages: Vec<Fingerprint> = (next..next + 64).map(fingerprint).collect();
                next += 64;
                pages
            },
            |pages| {
                let mut txn = store.begin();
                for fp in &pages {
                    txn.insert(fp.nodes[0], fp).expect("insert");
                    let supports = txn.supports(&fp.nodes).expect("supports");
                    let choice = Heuristic::default().choose(&supports);
                    let counts = txn
                        .counts(fp.nodes[0], fp.nodes[choice.depth], &fp.blocks)
                        .expect("counts");
                    std::hint::black_box(counts);
                }
                txn.commit().expect("commit");
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
