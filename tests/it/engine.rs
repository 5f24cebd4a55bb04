//! The per-page pipeline end to end over real HTML: template learning, duplicates, bad input,
//! retention, persistence and the paper's URL key example.

use urltree::config::{Config, DomainCheck};
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::{CleanRecord, ErrorKind, Source};
use urltree::tree::Heuristic;

fn config(dir: &std::path::Path) -> Config {
    let mut c = Config::default();
    c.state.path = dir.to_owned();
    c
}

const NAMES: [&str; 10] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
];

/// A news page on a shared template: navigation, an article, a footer.
fn page(n: usize) -> String {
    format!(
        r#"<html><head><title>Story {n}</title><script>var tracking = {n};</script></head><body>
        <div id="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World news</a></li>
        <li><a href="/sport">Sport</a></li></ul></div>
        <div id="main"><h1>Headline {name} about {topic}</h1>
        <p>This is the unique first paragraph of story {name}, reporting on {topic} in detail.</p>
        <p>A second paragraph with <b>bold</b> and <a href="/x">a link</a> about {topic} and {name}.</p></div>
        <div id="footer"><p>Copyright Example News Corporation, all rights reserved.</p>
        <p>Contact us &amp; follow us on social media</p></div></body></html>"#,
        topic = ["elections", "weather", "markets", "football", "science"][n % 5],
        // Block identity ignores digits, so pages differ by words.
        name = NAMES[n % NAMES.len()],
    )
}

fn record(n: usize) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "url": format!("http://www.example-news.com/world/story{n}.html?utm_source=feed"),
        "title": format!("Story {n}"),
        "html": page(n),
        "fetched_at": format!("2024-01-{:02}T10:00:00Z", 1 + n % 28),
    }))
    .unwrap()
}

fn run(engine: &mut Engine, records: &[Vec<u8>]) -> Vec<Outcome> {
    let inputs: Vec<Input<'_>> = records
        .iter()
        .enumerate()
        .map(|(i, bytes)| Input::new(bytes, Source::line("test", i as u64)))
        .collect();
    engine.process_batch(&inputs, None).unwrap()
}

fn clean(outcome: &Outcome) -> &CleanRecord {
    match outcome {
        Outcome::Clean(record) => record,
        other => panic!("expected a clean record, got {other:?}"),
    }
}

#[test]
fn learns_the_template_and_keeps_the_article() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.tree.heuristic = Heuristic::Strict;
    let mut engine = Engine::open(&c).unwrap();
    let records: Vec<Vec<u8>> = (0..8).map(record).collect();
    let out = run(&mut engine, &records[..1]);
    let first = clean(&out[0]);
    // Cold start: nothing is known, every block is content.
    assert!(first.model.cold_start);
    assert!(first.text.contains("Copyright Example News Corporation"));
    assert!(first.text.contains("unique first paragraph of story alpha"));
    assert!(
        !first.text.contains("tracking"),
        "script text must never appear"
    );
    assert_eq!(first.domain, "example-news.com");

    let out = run(&mut engine, &records[1..]);
    let last = clean(out.last().unwrap());
    assert!(!last.model.cold_start, "{:?}", last.model);
    assert!(last.model.support >= 5);
    assert!(
        last.text.contains("unique first paragraph of story hotel"),
        "{}",
        last.text
    );
    assert!(last.text.contains("Headline hotel"), "{}", last.text);
    assert!(
        !last.text.contains("Copyright"),
        "footer is template: {}",
        last.text
    );
    assert!(
        !last.text.contains("World news"),
        "navigation is template: {}",
        last.text
    );
    assert!(!last.text.contains("Contact us"), "{}", last.text);
    let stats = engine.stats();
    assert_eq!((stats.pages, stats.duplicates, stats.rejected), (8, 0, 0));
}

#[test]
fn duplicates_are_counted_not_inserted() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = Engine::open(&config(dir.path())).unwrap();
    let out = run(&mut engine, &[record(1), record(1), record(2)]);
    assert!(matches!(out[0], Outcome::Clean(_)));
    assert!(matches!(out[1], Outcome::Duplicate { .. }), "{:?}", out[1]);
    // The duplicate did not count: the template blocks were seen twice, not three times.
    let third = clean(&out[2]);
    assert_eq!(third.model.support, 2);
    // And across batches too.
    let out = run(&mut engine, &[record(2)]);
    assert!(matches!(out[0], Outcome::Duplicate { .. }));
    assert_eq!(engine.stats().duplicates, 2);
}

/// Page `n`'s record with another page's content: a re-fetch of `n` after the site changed it.
fn refetch(n: usize, content: usize) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "url": format!("http://www.example-news.com/world/story{n}.html"),
        "title": format!("Story {n}"),
        "html": page(content),
        "fetched_at": "2024-02-01T10:00:00Z",
    }))
    .unwrap()
}

#[test]
fn a_changed_page_is_a_new_version_that_replaces_the_old_one_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.retention.max_docs = 3;
    c.retention.min_keep = 1;
    c.retention.max_age_secs = 10 * 365 * 24 * 3600;
    let mut engine = Engine::open(&c).unwrap();
    // 0, 1, 2 new; 1 again with 2's words changed to 7's: a new version, emitted with its new text.
    let out = run(
        &mut engine,
        &[record(0), record(1), record(2), refetch(1, 7)],
    );
    let version = clean(&out[3]);
    assert!(version.text.contains("story hotel"), "{}", version.text);
    assert_eq!(version.url_key, "http://example-news.com/world/story1.html");
    let stats = engine.stats();
    assert_eq!((stats.pages, stats.versions, stats.duplicates), (4, 1, 0));
    // The tree holds 0, 2 and the new 1, as if the old 1 had never been: the same state as a
    // fresh run of those three pages in that order.
    let fresh_dir = tempfile::tempdir().unwrap();
    let mut fresh_config = config(fresh_dir.path());
    fresh_config.retention = c.retention;
    let mut fresh = Engine::open(&fresh_config).unwrap();
    run(&mut fresh, &[record(0), record(2), refetch(1, 7)]);
    engine.store().compact().unwrap();
    fresh.store().compact().unwrap();
    assert_eq!(
        engine.store().dump().unwrap(),
        fresh.store().dump().unwrap()
    );
    // Retention forgets in arrival order, skipping the old version's place: 0 goes, then 2,
    // then the new 1.
    run(&mut engine, &[record(3), record(4)]);
    run(&mut fresh, &[record(3), record(4)]);
    engine.store().compact().unwrap();
    fresh.store().compact().unwrap();
    assert_eq!(
        engine.store().dump().unwrap(),
        fresh.store().dump().unwrap()
    );
    assert_eq!(engine.store().dump().unwrap().docs.len(), 3);
    // The same content fetched again is a duplicate; so is a re-fetch whose only change is in
    // numbers and scripts (block identity ignores digits).
    let out = run(&mut engine, &[refetch(1, 7), refetch(1, 17)]);
    assert!(matches!(out[0], Outcome::Duplicate { .. }), "{:?}", out[0]);
    assert!(matches!(out[1], Outcome::Duplicate { .. }), "{:?}", out[1]);
    assert_eq!(engine.stats().versions, 1);
    assert_eq!(engine.stats().duplicates, 2);
}

#[test]
fn the_changelog_of_new_versions_rebuilds_the_same_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.retention.max_docs = 4;
    c.retention.min_keep = 1;
    c.retention.max_age_secs = 10 * 365 * 24 * 3600;
    let mut engine = Engine::open(&c).unwrap();
    // Versions within a batch and across batches, an eviction of a replaced page's successor.
    let stream: Vec<Vec<Vec<u8>>> = vec![
        vec![
            record(0),
            record(1),
            refetch(1, 5),
            record(2),
            refetch(0, 6),
        ],
        vec![
            refetch(1, 8),
            record(3),
            record(4),
            refetch(1, 8),
            refetch(4, 9),
        ],
    ];
    let mut changelog = Vec::new();
    let mut offset = 0i64;
    for batch in &stream {
        let inputs: Vec<Input<'_>> = batch
            .iter()
            .map(|bytes| {
                offset += 1;
                Input::new(bytes, Source::line("in", offset as u64))
            })
            .collect();
        engine
            .process_batch_then(&inputs, Some(("in", offset as u64 + 1)), |_, changes| {
                changelog.extend_from_slice(changes);
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap();
    }
    assert_eq!(engine.stats().versions, 4);
    assert_eq!(engine.stats().forgotten, 1);
    // A new version is one record under its page's key, never a tombstone: the tombstones are
    // retention's alone.
    let tombstones = changelog.iter().filter(|c| c.fingerprint.is_none()).count();
    assert_eq!(tombstones as u64, engine.stats().forgotten);
    let mut rebuild = urltree::state::Rebuild::new(offset as u64 + 1);
    for change in &changelog {
        assert!(rebuild.push(&change.key, change.fingerprint.as_deref(), change.offset));
    }
    let restored_dir = tempfile::tempdir().unwrap();
    let restored = urltree::state::Store::open(&urltree::state::StateOptions {
        path: restored_dir.path().to_owned(),
        ..Default::default()
    })
    .unwrap();
    rebuild.apply(&restored, "in", 2).unwrap();
    engine.store().compact().unwrap();
    restored.compact().unwrap();
    assert_eq!(restored.dump().unwrap(), engine.store().dump().unwrap());
}

#[test]
fn an_event_time_far_in_the_future_is_clamped_and_forgets_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = Engine::open(&config(dir.path())).unwrap();
    // 120 pages fetched over four weeks: more than min_keep, some forgotten by age already.
    let pages: Vec<Vec<u8>> = (0..120).map(record).collect();
    run(&mut engine, &pages);
    let forgotten = engine.stats().forgotten;
    let future = serde_json::to_vec(&serde_json::json!({
        "url": "http://www.example-news.com/world/from-the-future.html",
        "html": page(3),
        "fetched_at": "9999-12-31T23:59:59Z",
    }))
    .unwrap();
    let out = run(&mut engine, &[future]);
    let record = clean(&out[0]);
    assert_eq!(record.warnings.len(), 1, "{:?}", record.warnings);
    assert!(
        record.warnings[0].contains("9999-12-31T23:59:59Z"),
        "{:?}",
        record.warnings
    );
    assert_eq!(engine.stats().clamped_times, 1);
    assert_eq!(
        engine.stats().forgotten,
        forgotten,
        "retention must not trust the future time"
    );
    // The pages held before are still held: fetched again, they are duplicates.
    let out = run(&mut engine, &pages[100..]);
    assert!(
        out.iter().all(|o| matches!(o, Outcome::Duplicate { .. })),
        "{out:?}"
    );
    // With a record time, the reference is the record's time; a day of clock skew is tolerated.
    let skewed = serde_json::to_vec(&serde_json::json!({
        "url": "http://www.example-news.com/world/skewed.html",
        "html": page(4),
        "fetched_at": "2024-01-02T09:00:00Z",
    }))
    .unwrap();
    let january_first = 1_704_103_200_000; // 2024-01-01T10:00:00Z
    let inputs = [Input {
        bytes: &skewed,
        source: Source::line("test", 0),
        timestamp_ms: Some(january_first),
    }];
    let out = engine.process_batch(&inputs, None).unwrap();
    assert!(clean(&out[0]).warnings.is_empty());
    assert_eq!(engine.stats().clamped_times, 1);
}

#[test]
fn bad_records_are_rejected_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = Engine::open(&config(dir.path())).unwrap();
    let bad: Vec<(Vec<u8>, ErrorKind)> = vec![
        (b"{not json".to_vec(), ErrorKind::InvalidJson),
        (br#"{"html":"<p>x</p>"}"#.to_vec(), ErrorKind::MissingField),
        (
            br#"{"url":"javascript:alert(1)","html":"<p>x</p>"}"#.to_vec(),
            ErrorKind::BadUrl,
        ),
        (
            br#"{"url":"http:///nohost","html":"<p>x</p>"}"#.to_vec(),
            ErrorKind::BadUrl,
        ),
        (
            br#"{"url":"http://a.example.org/","domain":"other.org","html":"<p>x</p>"}"#.to_vec(),
            ErrorKind::DomainMismatch,
        ),
        (
            br#"{"url":["http://a.example.org/"],"html":"x"}"#.to_vec(),
            ErrorKind::InvalidField,
        ),
    ];
    let mut records: Vec<Vec<u8>> = bad.iter().map(|(r, _)| r.clone()).collect();
    records.push(record(3));
    let out = run(&mut engine, &records);
    for (i, (_, kind)) in bad.iter().enumerate() {
        match &out[i] {
            Outcome::Rejected(dead) => {
                assert_eq!(dead.error.kind, *kind, "record {i}: {}", dead.error.message);
                assert_eq!(dead.source.offset, i as i64);
                assert_eq!(dead.payload.as_bytes(), &records[i][..]);
            }
            other => panic!("record {i}: expected a rejection, got {other:?}"),
        }
    }
    assert!(matches!(out.last().unwrap(), Outcome::Clean(_)));
    assert_eq!(engine.stats().rejected, bad.len() as u64);
    // A bad optional field costs the field, not the page.
    let out = run(
        &mut engine,
        &[br#"{"url":"http://a.example.org/","html":"<p>Kept</p>","fetched_at":"soon","title":7}"#.to_vec()],
    );
    let kept = clean(&out[0]);
    assert_eq!(kept.text, "Kept");
    assert_eq!(kept.warnings.len(), 2, "{:?}", kept.warnings);
    assert_eq!(engine.stats().dropped_fields, 2);
}

#[test]
fn trusted_record_domain_files_the_page_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.input.domain_check = DomainCheck::TrustRecord;
    let mut engine = Engine::open(&c).unwrap();
    let rec = br#"{"url":"http://www.newyorkmetro.com/news/a.html","domain":"nymag.com","html":"<p>Hello there</p>"}"#;
    let out = run(&mut engine, &[rec.to_vec()]);
    let r = clean(&out[0]);
    assert_eq!(r.domain, "nymag.com");
    assert!(r.model.node.starts_with("nymag.com"), "{}", r.model.node);
}

#[test]
fn retention_keeps_at_most_max_docs_and_equals_a_fresh_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.retention.max_docs = 3;
    c.retention.min_keep = 1;
    let mut engine = Engine::open(&c).unwrap();
    let records: Vec<Vec<u8>> = (0..7).map(record).collect();
    run(&mut engine, &records[..4]);
    run(&mut engine, &records[4..]);
    assert_eq!(engine.stats().forgotten, 4);

    let dir2 = tempfile::tempdir().unwrap();
    let mut c2 = config(dir2.path());
    c2.retention = c.retention;
    let mut fresh = Engine::open(&c2).unwrap();
    run(&mut fresh, &records[4..]);
    engine.store().compact().unwrap();
    fresh.store().compact().unwrap();
    let (a, b) = (
        engine.store().dump().unwrap(),
        fresh.store().dump().unwrap(),
    );
    assert_eq!(a.counts, b.counts);
    assert_eq!(a.supports, b.supports);
    assert_eq!(a.docs, b.docs);
    assert_eq!(a.seen, b.seen);
    assert_eq!(a.held, b.held);
    // A forgotten page is no longer a duplicate.
    let out = run(&mut engine, &records[..1]);
    assert!(matches!(out[0], Outcome::Clean(_)));
}

#[test]
fn a_second_run_keeps_learning() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<Vec<u8>> = (0..6).map(record).collect();
    {
        let mut engine = Engine::open(&config(dir.path())).unwrap();
        run(&mut engine, &records[..5]);
    }
    let mut engine = Engine::open(&config(dir.path())).unwrap();
    let out = run(&mut engine, &records[5..]);
    let r = clean(&out[0]);
    assert_eq!(r.model.support, 6);
    assert!(!r.text.contains("Copyright"), "{}", r.text);
}

#[test]
fn the_papers_url_key_example() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = Engine::open(&config(dir.path())).unwrap();
    let rec = serde_json::json!({
        "url": "http://news.google.com/news/url?sa=t&fd=R&usg=AFQjCNEzsnMgX5xBUPyZ5rYhDxtL0PdVvw&url=http%3A%2F%2Fabcnews.go.com%2Fkabc%2Fstory%3Fid%3D8691010",
        "response_url": "http://abcnews.go.com/kabc/story?id=8691010&section=news/local",
        "title": "Fire crews battle blaze",
        "html": "<p>Fire crews battle a blaze in the hills.</p>"
    });
    let out = run(&mut engine, &[serde_json::to_vec(&rec).unwrap()]);
    let r = clean(&out[0]);
    assert_eq!(r.url_key, "http://abcnews.go.com/kabc/story?id=8691010");
    assert_eq!(r.domain, "go.com");
    assert_eq!(r.model.node, "go.com");
}
