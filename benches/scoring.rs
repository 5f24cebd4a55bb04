//! Throughput of the evaluation's scorer (word-LCS, character-LCS and bag-of-words F1 of one
//! page): the first 300 crawl-to-the-future pages' whole text (every block, as if nothing were
//! dropped: the longest extraction a page can give) scored against their gold text.

use std::hint::black_box;
use std::io::BufRead;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use urltree::blocks::{ParseLimits, Tokenizer};
use urltree::eval::score_page;

/// Pages scored by `cargo bench`; `cargo test --benches` runs the benchmark once, on a few.
const PAGES: usize = 300;
const PAGES_IN_TESTS: usize = 5;

/// The first `pages` pages of crawl-to-the-future as (every block's text, gold), from the shared
/// corpus (`URLTREE_CORPUS_DIR`, else `shared/corpus` beside the checkout).
fn load(pages: usize) -> Vec<(String, String)> {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let dir = urltree::corpus::require_shared_dir().display().to_string();
    let path = format!("{dir}/crawl-to-the-future/docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    std::io::BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .take(pages)
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
            let text = |name: &str| v[name].as_str().expect(name).to_owned();
            let blocks = tokenizer.blocks(text("html").as_bytes()).expect("blocks");
            let whole: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
            (whole.join("\n"), text("gold"))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let benching = std::env::args().any(|arg| arg == "--bench");
    let pages = load(if benching { PAGES } else { PAGES_IN_TESTS });
    let bytes: usize = pages.iter().map(|(text, _)| text.len()).sum();
    let mut group = c.benchmark_group("crawl-to-the-future");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("score_page_whole_text_against_gold", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|(text, gold)| score_page(black_box(text), black_box(gold)).f1)
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
