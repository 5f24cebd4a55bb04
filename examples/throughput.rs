//! Throughput of the block tokenizer on a corpus set, single thread, next to lol_html's bare parse
//! (no handlers) measured in the same run.
//!
//! `cargo run --release --example throughput -- [set] [rounds]` (default crawl-to-the-future, 5);
//! the corpus folder is `URLTREE_CORPUS_DIR`, else `shared/corpus` beside the checkout.
//! `cargo run --release --example throughput -- [set] dump N` prints the blocks of page N;
//! `... -- [set] tokenize-only-R` runs only the tokenizer, R passes (for profilers).

use std::io::BufRead;
use std::time::Instant;

use lol_html::{HtmlRewriter, Settings};
use urltree::blocks::{ParseLimits, Tokenizer};

fn load(set: &str) -> Vec<String> {
    let dir = urltree::corpus::require_shared_dir().display().to_string();
    let path = format!("{dir}/{set}/docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    reader
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
            v["html"].as_str().expect("html").to_owned()
        })
        .collect()
}

/// CPU time of this thread in seconds (user + system, 10 ms ticks), from /proc; 0 elsewhere.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    (field(11) + field(12)) as f64 / 100.0
}

/// Best wall time of `rounds` passes over all pages, and mean CPU time per pass (robust when
/// other processes share the cores).
fn best_secs(
    pages: &[String],
    rounds: usize,
    f: &mut dyn FnMut(&[u8]) -> usize,
) -> (f64, f64, usize) {
    let mut best = f64::MAX;
    let mut out = 0;
    let cpu0 = cpu_secs();
    for _ in 0..rounds {
        let t = Instant::now();
        out = pages.iter().map(|p| f(p.as_bytes())).sum();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, (cpu_secs() - cpu0) / rounds as f64, out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let set = args.get(1).map_or("crawl-to-the-future", String::as_str);
    let pages = load(set);
    if args.get(2).map(String::as_str) == Some("dump") {
        let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
        let blocks = Tokenizer::new(ParseLimits::default())
            .blocks(pages[n].as_bytes())
            .expect("blocks");
        for b in blocks {
            println!(
                "[{}] {} | {}/{} | {}",
                b.path,
                b.hash.is_some(),
                b.link_chars,
                b.chars,
                b.text
            );
        }
        return;
    }
    if let Some(rounds) = args.get(2).and_then(|a| a.strip_prefix("tokenize-only-")) {
        // For profilers: the tokenizer alone, `rounds` passes.
        let rounds: usize = rounds.parse().unwrap_or(1);
        let mut tokenizer = Tokenizer::new(ParseLimits::default());
        let mut n = 0;
        for _ in 0..rounds {
            n += pages
                .iter()
                .map(|p| tokenizer.blocks(p.as_bytes()).map_or(0, |b| b.len()))
                .sum::<usize>();
        }
        println!("{n} blocks");
        return;
    }
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let bytes: usize = pages.iter().map(String::len).sum();
    let mb = bytes as f64 / 1e6;
    println!("{set}: {} pages, {mb:.1} MB, best of {rounds}", pages.len());

    let (bare, bare_cpu, _) = best_secs(&pages, rounds, &mut |html| {
        let mut rw = HtmlRewriter::new(Settings::new().with_strict(false), |_: &[u8]| {});
        rw.write(html).expect("write");
        rw.end().expect("end");
        0
    });
    let (text_only, text_cpu, _) = best_secs(&pages, rounds, &mut |html| {
        let mut n = 0;
        let settings = Settings::new()
            .with_strict(false)
            .append_document_content_handler(lol_html::doc_text!(|t| {
                n += t.as_str().len();
                Ok(())
            }));
        let mut rw = HtmlRewriter::new(settings, |_: &[u8]| {});
        rw.write(html).expect("write");
        rw.end().expect("end");
        n
    });
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let (ours, ours_cpu, n) = best_secs(&pages, rounds, &mut |html| {
        tokenizer.blocks(html).map(|b| b.len()).unwrap_or(0)
    });
    println!("                                    best wall     mean CPU time");
    println!(
        "lol_html bare parse (no handlers): {:7.1} MB/s  {:7.1} MB/s",
        mb / bare,
        mb / bare_cpu
    );
    println!(
        "lol_html text handler only:        {:7.1} MB/s  {:7.1} MB/s",
        mb / text_only,
        mb / text_cpu
    );
    println!(
        "blocks tokenize+hash:              {:7.1} MB/s  {:7.1} MB/s",
        mb / ours,
        mb / ours_cpu
    );
    println!(
        "{n} blocks; tokenize+hash takes {:.2}x the bare parse time",
        ours / bare
    );
}
