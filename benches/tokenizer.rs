//! Throughput of the block tokenizer over the first 300 crawl-to-the-future pages, next to
//! lol_html's bare parse (no handlers) and lol_html with only a text handler.

use std::hint::black_box;
use std::io::BufRead;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lol_html::{doc_text, HtmlRewriter, Settings};
use urltree::blocks::{ParseLimits, Tokenizer};

const PAGES: usize = 300;

/// The first `PAGES` pages of crawl-to-the-future, from the shared corpus
/// (`URLTREE_CORPUS_DIR`, else `shared/corpus` beside the checkout).
fn load() -> Vec<String> {
    let dir = urltree::corpus::require_shared_dir().display().to_string();
    let path = format!("{dir}/crawl-to-the-future/docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    std::io::BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .take(PAGES)
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
            v["html"].as_str().expect("html").to_owned()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let pages = load();
    let bytes: usize = pages.iter().map(String::len).sum();
    let mut group = c.benchmark_group("crawl-to-the-future-300");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);

    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    group.bench_function("blocks_tokenize_hash", |b| {
        b.iter(|| {
            let mut n = 0;
            for page in &pages {
                n += tokenizer
                    .blocks(black_box(page.as_bytes()))
                    .map_or(0, |v| v.len());
            }
            n
        })
    });
    group.bench_function("lol_html_bare_parse", |b| {
        b.iter(|| {
            for page in &pages {
                let mut rw = HtmlRewriter::new(Settings::new().with_strict(false), |_: &[u8]| {});
                rw.write(black_box(page.as_bytes())).expect("write");
                rw.end().expect("end");
            }
        })
    });
    group.bench_function("lol_html_text_handler_only", |b| {
        b.iter(|| {
            let mut n = 0;
            for page in &pages {
                let settings = Settings::new()
                    .with_strict(false)
                    .append_document_content_handler(doc_text!(|t| {
                        n += t.as_str().len();
                        Ok(())
                    }));
                let mut rw = HtmlRewriter::new(settings, |_: &[u8]| {});
                rw.write(black_box(page.as_bytes())).expect("write");
                rw.end().expect("end");
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
