//! `--jobs N`: several engines, each domain on one, with the output of one engine, in input order;
//! a state keeps its shard count; the domain a record is routed by is the engine's.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use urltree::config::Config;
use urltree::engine::{Engine, Input, Outcome};
use urltree::local::{self, Line};
use urltree::record::Source;
use urltree::shards::route::record_domain;
use urltree::urlkey::{QueryRules, UrlKeyer};

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urltree"));
    cmd.env_remove("URLTREE_CONFIG").env("RUST_LOG", "warn");
    cmd
}

fn corpus(set: &str) -> PathBuf {
    urltree::corpus::require_shared_dir()
        .join(set)
        .join("docs.jsonl.gz")
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/rust-books.jsonl.gz")
}

/// Runs `urltree extract` and returns its exit code and stderr.
fn extract(input: &Path, out: &Path, state: &Path, extra: &[&str]) -> (i32, String) {
    extract_batches(input, out, state, extra, None)
}

/// [`extract`] with batches of `batch_size` records when given.
fn extract_batches(
    input: &Path,
    out: &Path,
    state: &Path,
    extra: &[&str],
    batch_size: Option<usize>,
) -> (i32, String) {
    let mut cmd = bin();
    if let Some(size) = batch_size {
        cmd.env("URLTREE_INPUT__BATCH_SIZE", size.to_string());
    }
    let output = cmd
        .arg("extract")
        .arg(input)
        .arg("-o")
        .arg(out)
        .arg("--state")
        .arg(state)
        .arg("-q")
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The file's bytes, with the `processed_at` of every record without a `fetched_at` blanked:
/// that one value is the wall clock when the record's batch started (the clean-text record's
/// contract), so no two runs share it. Every other byte is compared.
fn comparable(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let wall_clock = record.get("fetched_at").is_none_or(Value::is_null);
        match record.get("processed_at").and_then(Value::as_str) {
            Some(at) if wall_clock => {
                let field = format!("\"processed_at\":\"{at}\"");
                assert_eq!(line.matches(&field).count(), 1, "{line}");
                out.push_str(&line.replace(&field, "\"processed_at\":\"\""));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Extracts `input` with each `--jobs` (and batch size, when given) into fresh states and asserts
/// that the outputs and the errors files are the same.
fn assert_same_output(input: &Path, jobs: &[(&str, Option<usize>)]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let mut first: Option<(String, Option<Vec<u8>>)> = None;
    let mut records = 0;
    for (run, &(j, batch_size)) in jobs.iter().enumerate() {
        let out = dir.path().join(format!("out-{run}.jsonl"));
        let state = dir.path().join(format!("state-{run}"));
        let (code, stderr) = extract_batches(input, &out, &state, &["--jobs", j], batch_size);
        assert_eq!(code, 0, "{stderr}");
        let shards: usize = j.parse().unwrap();
        assert_eq!(
            stderr.contains(&format!("({shards} shards)")),
            shards > 1,
            "{stderr}"
        );
        let output = comparable(&out);
        records = output.lines().count();
        let errors = std::fs::read(dir.path().join(format!("out-{run}.errors.jsonl"))).ok();
        match &first {
            None => first = Some((output, errors)),
            Some((want_output, want_errors)) => {
                assert!(
                    output == *want_output,
                    "--jobs {j} (batches of {batch_size:?}): the output differs from {:?}",
                    jobs[0]
                );
                assert!(
                    errors == *want_errors,
                    "--jobs {j}: the errors file differs"
                );
            }
        }
    }
    records
}

#[test]
fn extract_over_shards_writes_what_one_engine_writes_in_input_order() {
    // 1,381 pages of 609 domains (1,140 accepted), none with a time of its own.
    // Batches of 5 over 3 shards: at most 45 records between the oldest not yet written and the
    // newest read, so the reader keeps waiting for the slowest shard.
    let records = assert_same_output(
        &corpus("dragnet"),
        &[("1", None), ("2", None), ("3", Some(5))],
    );
    assert_eq!(records, 1140);
    // One domain: every page on one shard, the others idle.
    let records = assert_same_output(&sample(), &[("1", None), ("2", None)]);
    assert!(records > 100, "{records}");
}

/// The first `n` lines of a gzip corpus as a plain JSONL file.
fn head(input: &Path, n: usize, out: &Path) {
    let mut lines = local::open_jsonl(input, usize::MAX).unwrap().lines;
    let mut text = Vec::new();
    for _ in 0..n {
        match lines.next_line().unwrap() {
            Some(Line::Record { bytes, .. }) => {
                text.extend_from_slice(&bytes);
                text.push(b'\n');
            }
            _ => break,
        }
    }
    std::fs::write(out, text).unwrap();
}

#[test]
fn a_state_of_shards_keeps_learning_and_keeps_its_shard_count() {
    let dir = tempfile::tempdir().unwrap();
    let scrapinghub = corpus("scrapinghub-aeb");
    let half = dir.path().join("half.jsonl");
    head(&scrapinghub, 90, &half);
    // A first run over half of the set, a second over all of it (the first half again is
    // duplicates), with one engine and with two shards.
    let mut seconds = Vec::new();
    for jobs in ["1", "2"] {
        let state = dir.path().join(format!("state-{jobs}"));
        let first = dir.path().join(format!("first-{jobs}.jsonl"));
        let (code, stderr) = extract(&half, &first, &state, &["--jobs", jobs]);
        assert_eq!(code, 0, "{stderr}");
        let second = dir.path().join(format!("second-{jobs}.jsonl"));
        // Without --jobs, a state's own count is used.
        let (code, stderr) = extract(&scrapinghub, &second, &state, &[]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stderr.contains("(2 shards)"), jobs == "2", "{stderr}");
        seconds.push(comparable(&second));
    }
    assert!(seconds[0] == seconds[1], "the second runs differ");
    assert_eq!(seconds[0].lines().count(), 181 - 90);

    // Another count is refused, naming the state's, and writes nothing.
    let sharded = dir.path().join("state-2");
    let map = std::fs::read(sharded.join("domains.jsonl")).unwrap();
    for jobs in ["1", "3"] {
        let out = dir.path().join(format!("refused-{jobs}.jsonl"));
        let (code, stderr) = extract(&half, &out, &sharded, &["--jobs", jobs]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("holds 2 shards") && stderr.contains("--jobs 2"),
            "{stderr}"
        );
        assert!(!out.exists());
    }
    assert_eq!(std::fs::read(sharded.join("domains.jsonl")).unwrap(), map);
    let single = dir.path().join("state-1");
    let out = dir.path().join("refused.jsonl");
    let (code, stderr) = extract(&half, &out, &single, &["--jobs", "2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("holds 1 shard ") && stderr.contains("--jobs 1"),
        "{stderr}"
    );
    assert!(!single.join("shard-0-of-2").exists());
}

#[test]
fn eval_and_bench_over_shards_report_what_one_engine_reports() {
    let dir = tempfile::tempdir().unwrap();
    let set = corpus("scrapinghub-aeb");
    let mut reports = Vec::new();
    for jobs in ["1", "2"] {
        let json = dir.path().join(format!("eval-{jobs}.json"));
        let output = bin()
            .args(["eval", "--jobs", jobs, "--corpus"])
            .arg(&set)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut report: Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        // The CPU time per kB measures the run; every score must be the same.
        let time = report
            .as_object_mut()
            .and_then(|r| r.remove("cpu_ms_per_kb"));
        assert!(time.is_some_and(|t| t.as_f64().is_some_and(|t| t > 0.0)));
        reports.push(report);
    }
    assert_eq!(reports[0], reports[1]);
    let report = &reports[0];
    assert_eq!(report["overall"]["pages"], 181, "{report}");

    let mut benches = Vec::new();
    for jobs in ["1", "2"] {
        let json = dir.path().join(format!("bench-{jobs}.json"));
        let output = bin()
            .args(["bench", "--jobs", jobs, "--corpus"])
            .arg(sample())
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["jobs"], jobs.parse::<u64>().unwrap(), "{report}");
        assert!(
            report["pages_per_wall_sec"].as_f64().unwrap() > 0.0,
            "{report}"
        );
        benches.push(report);
    }
    // The shards retain the documents one engine retains.
    assert_eq!(benches[0]["docs_retained"], benches[1]["docs_retained"]);
    assert_eq!(benches[0]["pages"], benches[1]["pages"]);
}

#[test]
fn the_domain_a_record_is_routed_by_is_the_engines() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.state.path = dir.path().join("state");
    config.validate().unwrap();
    let keyer = UrlKeyer::new(QueryRules::paper_default(), config.url.clone());
    let mut engine = Engine::open(&config).unwrap();
    let mut accepted = 0;
    for set in ["dragnet", "crawl-to-the-future"] {
        let mut lines = local::open_jsonl(&corpus(set), usize::MAX).unwrap().lines;
        while let Some(line) = lines.next_line().unwrap() {
            let Line::Record { number, bytes } = line else {
                continue;
            };
            let input = Input::new(&bytes, Source::line(set, number));
            let outcomes = engine.process_batch(&[input], None).unwrap();
            let routed = record_domain(&bytes, &keyer, config.input.max_record_bytes);
            match &outcomes[0] {
                Outcome::Clean(record) => {
                    accepted += 1;
                    assert_eq!(
                        routed.as_deref(),
                        Some(record.domain.as_str()),
                        "{set}:{number}"
                    );
                }
                Outcome::Duplicate { domain, .. } => {
                    assert_eq!(routed.as_deref(), Some(domain.as_str()), "{set}:{number}")
                }
                Outcome::Rejected(_) => {}
            }
        }
    }
    assert!(accepted > 2000, "{accepted}");
}
