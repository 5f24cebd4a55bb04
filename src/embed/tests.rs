//! The library API over real pages: the one-page path against a fresh state, the extractor
//! against the engine, and what each says of bad input.

use std::collections::HashSet;

use super::{extract, Error, Extractor, Page, PageExtractor, StateDir};
use crate::config::{Config, DomainCheck};
use crate::corpus::{for_each_page, require_shared_dir, sets_in, CorpusPage};
use crate::engine::{Engine, Input, Outcome};
use crate::record::{CleanRecord, ErrorKind, Source};

/// The corpus's configuration: its `domain` fields name the collection site.
fn corpus_config() -> Config {
    let mut config = Config::default();
    config.input.domain_check = DomainCheck::TrustRecord;
    config.output.markdown = true;
    config.output.blocks = true;
    config
}

/// The first `per_set` pages of distinct domains of every shared set.
fn first_pages(per_set: usize) -> Vec<Vec<CorpusPage>> {
    let corpus = require_shared_dir();
    sets_in(&corpus)
        .unwrap()
        .iter()
        .map(|set| {
            let mut seen = HashSet::new();
            let mut pages = Vec::new();
            for_each_page(set, |page| {
                if pages.len() < per_set && seen.insert(page.domain.clone()) {
                    pages.push(page);
                }
                Ok(())
            })
            .unwrap();
            pages
        })
        .collect()
}

fn clean(outcome: Outcome) -> CleanRecord {
    match outcome {
        Outcome::Clean(record) => *record,
        other => panic!("expected a clean record, got {other:?}"),
    }
}

/// A record with the fields that depend on the run (the wall clock, the input's name) blanked.
fn comparable(mut record: CleanRecord) -> CleanRecord {
    record.processed_at.clear();
    record.source = Source::line("", 0);
    record
}

#[test]
fn one_page_gives_what_a_fresh_state_gives_on_every_shared_set() {
    let config = corpus_config();
    let mut one_page = PageExtractor::new(&config).unwrap();
    let mut compared = 0;
    for pages in first_pages(8) {
        // Each page is the first of its domain, so one state serves the set.
        let dir = tempfile::tempdir().unwrap();
        let mut stateful = config.clone();
        stateful.state.path = dir.path().to_owned();
        let mut engine = Engine::open(&stateful).unwrap();
        let inputs: Vec<Input<'_>> = pages
            .iter()
            .map(|p| Input::new(&p.record, Source::line("corpus", p.line)))
            .collect();
        let fresh = engine.process_batch(&inputs, None).unwrap();
        for (page, fresh) in pages.iter().zip(fresh) {
            let fresh = comparable(clean(fresh));
            assert!(fresh.model.cold_start, "{}", fresh.url);
            let alone = comparable(one_page.extract_record(&page.record).unwrap());
            assert_eq!(alone, fresh, "{}", fresh.url);
            compared += 1;
        }
    }
    assert!(compared >= 13 * 3, "{compared} pages compared");
}

#[test]
fn the_extractor_gives_what_the_engine_gives_over_a_stream() {
    let corpus = require_shared_dir();
    let mut records = Vec::new();
    for_each_page(&corpus.join("debdocs-rust-books"), |page| {
        if records.len() < 300 {
            records.push(page.record);
        }
        Ok(())
    })
    .unwrap();
    let mut config = corpus_config();
    config.input.batch_size = 64;
    let dir = tempfile::tempdir().unwrap();
    let mut stateful = config.clone();
    stateful.state.path = dir.path().to_owned();
    let mut engine = Engine::open(&stateful).unwrap();
    let mut expected = Vec::new();
    for chunk in records.chunks(64) {
        let inputs: Vec<Input<'_>> = chunk
            .iter()
            .map(|r| Input::new(r, Source::line("-", 0)))
            .collect();
        expected.extend(engine.process_batch(&inputs, None).unwrap());
    }
    let mut extractor = Extractor::open(&config, StateDir::Temporary).unwrap();
    let temporary = extractor.path().to_owned();
    assert!(temporary.is_dir());
    let outcomes: Vec<Outcome> = extractor
        .extract_many(records.iter().cloned())
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(outcomes.len(), expected.len());
    let mut learned = 0;
    for (got, want) in outcomes.into_iter().zip(expected) {
        match (got, want) {
            (Outcome::Clean(got), Outcome::Clean(want)) => {
                learned += usize::from(!want.model.cold_start);
                assert_eq!(comparable(*got), comparable(*want));
            }
            (Outcome::Duplicate { url_key: a, .. }, Outcome::Duplicate { url_key: b, .. }) => {
                assert_eq!(a, b)
            }
            (got, want) => panic!("{got:?} != {want:?}"),
        }
    }
    assert!(learned > 100, "the tree decided {learned} pages");
    assert_eq!(extractor.stats().records, records.len() as u64);
    assert!(extractor.close().unwrap().is_empty());
    assert!(!temporary.exists(), "a temporary state is removed on close");
}

#[test]
fn an_extractor_keeps_a_named_state_and_reads_a_sharded_one() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let page = Page::new(
        "https://www.example.org/a",
        "<html><body><p>A paragraph of this page's own text, long enough to be a text.</p></body></html>",
    );
    let mut extractor = Extractor::open(&Config::default(), StateDir::Path(state.clone())).unwrap();
    assert!(extractor.extract(&page).unwrap().is_some());
    assert!(extractor.extract(&page).unwrap().is_none(), "a duplicate");
    extractor.close().unwrap();
    // Reopened, it still holds the page.
    let mut extractor = Extractor::open(&Config::default(), StateDir::Path(state.clone())).unwrap();
    assert!(extractor.extract(&page).unwrap().is_none());
    extractor.close().unwrap();
    assert!(state.join("CURRENT").is_file());
    // A state of two shards, as `urltree extract --jobs 2` writes it, is read with both.
    let sharded = dir.path().join("sharded");
    let mut config = Config::default();
    config.state.path = sharded.clone();
    crate::shards::Sharded::open(&config, 2)
        .unwrap()
        .finish(&mut |_| Ok::<(), std::convert::Infallible>(()))
        .unwrap();
    let mut extractor = Extractor::open(&Config::default(), StateDir::Path(sharded)).unwrap();
    assert!(extractor.extract(&page).unwrap().is_some());
    assert!(extractor.extract(&page).unwrap().is_none());
    extractor.close().unwrap();
}

#[test]
fn bad_pages_are_rejected_with_their_dead_letter_kinds() {
    let html = "<p>Some text of a page.</p>";
    let kind = |e: super::Rejected| e.kind;
    assert_eq!(
        extract(html, "mailto:someone@example.org").map_err(kind),
        Err(ErrorKind::BadUrl)
    );
    assert_eq!(
        extract(html, "").map_err(kind),
        Err(ErrorKind::MissingField)
    );
    assert_eq!(
        extract(html, "http://localhost/a").map_err(kind),
        Err(ErrorKind::BadUrl)
    );
    let mut config = Config::default();
    config.input.max_record_bytes = 1000;
    let big = "<p>word </p>".repeat(200);
    let error =
        super::extract_with(&Page::new("https://example.org/", big.as_str()), &config).unwrap_err();
    assert!(
        matches!(&error, Error::Rejected(r) if r.kind == ErrorKind::TooLarge),
        "{error}"
    );
    // Bytes that are no HTML, and invalid UTF-8, still come out as text (or nothing).
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    assert!(extract(png, "https://example.org/i.png").is_ok());
    let latin1 = b"<p>Caf\xe9 cr\xe8me, \xe0 la fran\xe7aise, with invalid UTF-8.</p>";
    let record = extract(latin1, "https://example.fr/").unwrap();
    assert!(record.text.contains("Café crème"), "{}", record.text);
    // An invalid configuration is refused before any page.
    config.input.batch_size = 0;
    assert!(matches!(PageExtractor::new(&config), Err(Error::Config(_))));
    assert!(matches!(
        Extractor::open(&config, StateDir::Temporary),
        Err(Error::Config(_))
    ));
}

#[test]
fn a_page_without_a_url_is_filed_under_the_unknown_one() {
    let html = "<html><head><title>T</title></head><body><article><p>The only paragraph of \
                this article, which has words enough to be its text.</p></article></body></html>";
    let record = extract(html, super::UNKNOWN_URL).unwrap();
    assert_eq!(record.domain, "unknown.invalid");
    assert!(record.text.contains("only paragraph"));
}
