//! Every URL of the evaluation corpus (`shared/corpus/*/docs.jsonl.gz`): each http(s) URL gets a key, keys are
//! idempotent, and the registrable domain agrees with the record's `domain` field for at least 90% of records.

use crate::urlkey::{registrable_domain, KeyOptions, QueryRules, UrlKeyer};
use serde::Deserialize;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct Record {
    url: Option<String>,
    domain: Option<String>,
    title: Option<String>,
    #[serde(default)]
    url_synthetic: bool,
    // Other fields (the large `html`, `gold`) are skipped without building strings.
}

fn corpus_dir() -> PathBuf {
    crate::corpus::require_shared_dir()
}

#[derive(Default)]
struct Tally {
    records: usize,
    http: usize,
    keyed: usize,
    domain_match: usize,
    synthetic: usize,
    mismatches: Vec<String>,
    failures: Vec<String>,
    time_in_key: Duration,
}

#[test]
fn every_corpus_url_gets_a_key_and_the_domain_agrees() {
    let keyer = UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default());
    let mut sets: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir readable")
        .filter_map(|e| e.ok().map(|e| e.path().join("docs.jsonl.gz")))
        .filter(|p| p.is_file())
        .collect();
    sets.sort();
    assert!(sets.len() >= 5, "expected the corpus sets, found {sets:?}");
    let mut total = Tally::default();
    for set in &sets {
        let name = set
            .parent()
            .and_then(|p| p.file_name())
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut t = Tally::default();
        let file = std::fs::File::open(set).expect("corpus file");
        let reader = std::io::BufReader::with_capacity(1 << 20, flate2::read::GzDecoder::new(file));
        for line in reader.lines() {
            let line = line.expect("gzip JSONL line");
            let rec: Record = serde_json::from_str(&line).expect("corpus record");
            t.records += 1;
            let url = rec.url.unwrap_or_default();
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                continue;
            }
            t.http += 1;
            let start = Instant::now();
            let key = keyer.key(&url, rec.title.as_deref());
            t.time_in_key += start.elapsed();
            let key = match key {
                Ok(k) => k,
                Err(e) => {
                    t.failures.push(format!("{url}: {e}"));
                    continue;
                }
            };
            t.keyed += 1;
            let again = keyer.key(&key.key, None).map(|k| k.key);
            assert_eq!(
                again.as_deref(),
                Ok(key.key.as_str()),
                "not idempotent: {url}"
            );
            let domain = rec.domain.unwrap_or_default();
            // The record's domain is itself a registrable domain (some synthetic ones are not lower-case).
            let own = registrable_domain(&domain)
                .unwrap_or_else(|e| panic!("record domain of {url}: {e}"));
            assert!(
                own.eq_ignore_ascii_case(&domain),
                "record domain {domain} of {url} -> {own}"
            );
            if key.domain == domain {
                t.domain_match += 1;
            } else if rec.url_synthetic {
                // e.g. http://unknown.invalid/dragnet/R1.html, domain unknown-dragnet-R1.invalid
                t.synthetic += 1;
            } else {
                t.mismatches
                    .push(format!("{url} -> {} (record: {domain})", key.domain));
            }
        }
        eprintln!(
            "{name}: {} records, {} http(s), {} keyed, {} domain mismatches (+{} synthetic URLs), {:.1} us/key",
            t.records,
            t.http,
            t.keyed,
            t.mismatches.len(),
            t.synthetic,
            t.time_in_key.as_secs_f64() * 1e6 / t.http.max(1) as f64
        );
        for m in t.mismatches.iter().take(3) {
            eprintln!("  e.g. {m}");
        }
        if name == "crawl-to-the-future" {
            // Its README counts 87 pages whose URL host is under another domain than the collection site.
            assert_eq!(t.mismatches.len(), 87, "{:#?}", t.mismatches);
        } else {
            assert!(
                t.mismatches.len() * 10 <= t.http,
                "{name}: {:#?}",
                t.mismatches
            );
        }
        total.records += t.records;
        total.http += t.http;
        total.keyed += t.keyed;
        total.domain_match += t.domain_match;
        total.synthetic += t.synthetic;
        total.mismatches.extend(t.mismatches);
        total.failures.extend(t.failures);
        total.time_in_key += t.time_in_key;
    }
    eprintln!(
        "all: {} records, {} http(s), {} keyed, {} domain matches, {} mismatches (+{} synthetic URLs), {:.1} us/key",
        total.records,
        total.http,
        total.keyed,
        total.domain_match,
        total.mismatches.len(),
        total.synthetic,
        total.time_in_key.as_secs_f64() * 1e6 / total.http.max(1) as f64
    );
    assert!(total.records > 5000, "{}", total.records);
    assert!(
        total.failures.is_empty(),
        "http(s) URLs without a key: {:#?}",
        total.failures
    );
    assert_eq!(total.keyed, total.http);
    // At least 90% of all records, synthetic URLs included.
    assert!(
        total.domain_match * 10 >= total.records * 9,
        "{} of {}",
        total.domain_match,
        total.records
    );
}
