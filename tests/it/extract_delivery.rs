//! `urltree extract` delivers every record exactly once across crashes and full disks
//! (DESIGN §4, docs/extract-guarantees.md): runs over real corpus pages killed at chosen points
//! (`URLTREE_TEST_CRASH`: in the middle of a line, right after the files were synced) with
//! `--jobs 1` and `--jobs 2`, plain, gzip and zstd output, each resumed by the same command; and
//! runs whose state or output is on a small tmpfs that fills up, resumed once there is room.
//! Every resumed output must equal an uninterrupted run's, record for record.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urltree"));
    cmd.env_remove("URLTREE_CONFIG")
        .env_remove("URLTREE_TEST_CRASH")
        .env("RUST_LOG", "warn")
        // Small batches: a run of a few hundred pages makes many commits and checkpoints.
        .env("URLTREE_INPUT__BATCH_SIZE", "16");
    cmd
}

/// The first `n` pages of crawl-to-the-future (ten sites, so two shards both work), as raw-html
/// JSONL.
fn corpus_input(dir: &Path, n: usize) -> PathBuf {
    let set = urltree::corpus::require_shared_dir().join("crawl-to-the-future");
    let pages = urltree::corpus::load(&set).unwrap();
    let mut bytes = Vec::new();
    for page in pages.into_iter().take(n) {
        bytes.extend_from_slice(&page.record);
        bytes.push(b'\n');
    }
    let path = dir.join("in.jsonl");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The decompressed bytes of an output file (plain, `.gz` with any number of members, `.zst`
/// with any number of frames); panics when a compressed stream is cut short.
fn decompressed(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.to_string_lossy();
    let mut out = Vec::new();
    if name.ends_with(".gz") {
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{name}: not a complete gzip stream: {e}"));
    } else if name.ends_with(".zst") {
        out = zstd::decode_all(&raw[..])
            .unwrap_or_else(|e| panic!("{name}: not a complete zstd stream: {e}"));
    } else {
        out = raw;
    }
    out
}

/// The records of an output by input line, each once (panics on a duplicate, a cut line or a
/// line that is no JSON), with `processed_at` (the wall clock) left out.
fn records(path: &Path) -> BTreeMap<i64, Value> {
    let bytes = decompressed(path);
    assert!(
        bytes.is_empty() || bytes.ends_with(b"\n"),
        "{}: the last line is cut",
        path.display()
    );
    let mut records = BTreeMap::new();
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut record: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "{}: a line is no JSON ({e}): {}",
                path.display(),
                String::from_utf8_lossy(&line[..line.len().min(200)])
            )
        });
        record.as_object_mut().unwrap().remove("processed_at");
        let offset = record["source"]["offset"].as_i64().unwrap();
        assert!(
            records.insert(offset, record).is_none(),
            "{}: input line {offset} written twice",
            path.display()
        );
    }
    records
}

fn extract(input: &Path, out: &Path, state: &Path, jobs: &str, crash: Option<&str>) -> Output {
    let mut cmd = bin();
    cmd.args(["extract", "-q", "--jobs", jobs])
        .arg(input)
        .arg("-o")
        .arg(out)
        .arg("--state")
        .arg(state);
    if let Some(crash) = crash {
        cmd.env("URLTREE_TEST_CRASH", crash);
    }
    cmd.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The run ended with exit code 2 and a message that says `why`.
fn refused_with(output: &Output, why: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    assert!(stderr(output).contains(why), "{}", stderr(output));
}

/// Runs that die at the given crash points, one after the other, then a run to the end: the
/// output equals `reference`, each record once.
fn trial(
    dir: &Path,
    input: &Path,
    reference: &BTreeMap<i64, Value>,
    jobs: &str,
    suffix: &str,
    crashes: &[&str],
) {
    let name = format!("out-{jobs}-{}{suffix}", crashes.join("-").replace(':', ""));
    let out = dir.join(&name);
    let state = dir.join(format!("state-{name}"));
    for crash in crashes {
        let killed = extract(input, &out, &state, jobs, Some(crash));
        assert_eq!(
            killed.status.code(),
            None,
            "{name}: {crash} did not abort the run: {}",
            stderr(&killed)
        );
    }
    let resumed = extract(input, &out, &state, jobs, None);
    assert!(resumed.status.success(), "{name}: {}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("resuming the interrupted run"),
        "{name}: {}",
        stderr(&resumed)
    );
    let got = records(&out);
    let missing: Vec<_> = reference.keys().filter(|k| !got.contains_key(k)).collect();
    assert!(
        missing.is_empty(),
        "{name}: lines never written: {missing:?}"
    );
    assert_eq!(got.len(), reference.len(), "{name}: records written");
    for (line, record) in reference {
        assert_eq!(
            &got[line], record,
            "{name}: the record of input line {line}"
        );
    }
    // A run after a complete one is a new run: it does not resume. Its pages are duplicates to
    // the state now, so it would replace the complete output with nothing: refused, the file
    // left whole, unless asked for with --overwrite.
    let before = std::fs::read(&out).unwrap();
    let again = extract(input, &out, &state, jobs, None);
    refused_with(&again, "holds the records the last run on the state at");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "{name}: the output was touched"
    );
    let again = bin()
        .args(["extract", "-q", "--overwrite", "--jobs", jobs])
        .arg(input)
        .arg("-o")
        .arg(&out)
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    assert!(again.status.success(), "{name}: {}", stderr(&again));
    assert!(
        !stderr(&again).contains("resuming"),
        "{name}: {}",
        stderr(&again)
    );
}

#[test]
fn runs_killed_at_any_point_resume_with_every_record_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus_input(dir.path(), 160);
    for jobs in ["1", "2"] {
        let reference_out = dir.path().join(format!("reference-{jobs}.jsonl"));
        let run = extract(
            &input,
            &reference_out,
            &dir.path().join(format!("reference-state-{jobs}")),
            jobs,
            None,
        );
        assert!(run.status.success(), "{}", stderr(&run));
        let reference = records(&reference_out);
        assert!(reference.len() > 140, "{}", reference.len());
        // In the middle of a line, before any checkpoint, right after one, twice in a row
        // (the resumed run killed too), in plain, gzip and zstd output.
        trial(dir.path(), &input, &reference, jobs, ".jsonl", &["write:7"]);
        trial(
            dir.path(),
            &input,
            &reference,
            jobs,
            ".jsonl",
            &["write:90"],
        );
        trial(
            dir.path(),
            &input,
            &reference,
            jobs,
            ".jsonl.gz",
            &["checkpoint:3"],
        );
        trial(
            dir.path(),
            &input,
            &reference,
            jobs,
            ".jsonl.zst",
            &["write:50", "checkpoint:2", "write:30"],
        );
        trial(
            dir.path(),
            &input,
            &reference,
            jobs,
            ".jsonl.gz",
            &["write:120"],
        );
    }
}

#[test]
fn a_resumed_run_refuses_another_input_or_output_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus_input(dir.path(), 60);
    let out = dir.path().join("out.jsonl");
    let state = dir.path().join("state");
    let killed = extract(&input, &out, &state, "1", Some("checkpoint:2"));
    assert_eq!(killed.status.code(), None, "{}", stderr(&killed));

    // Another output: refused, naming the interrupted run's.
    let elsewhere = dir.path().join("elsewhere.jsonl");
    let refused = extract(&input, &elsewhere, &state, "1", None);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("holds an interrupted run that wrote to")
            && stderr(&refused).contains("out.jsonl"),
        "{}",
        stderr(&refused)
    );
    assert!(!elsewhere.exists());

    // Another input (the same records in another order): refused, whether the interrupted run's
    // mark covers its first records or the outbox holds them.
    let text = std::fs::read_to_string(&input).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, lines.join("\n") + "\n").unwrap();
    let refused = extract(&other, &out, &state, "1", None);
    refused_with(&refused, "not the same input");
    // The right input then finishes the run, every record once.
    let resumed = extract(&input, &out, &state, "1", None);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let reference_out = dir.path().join("reference.jsonl");
    let run = extract(
        &input,
        &reference_out,
        &dir.path().join("ref-state"),
        "1",
        None,
    );
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(records(&out), records(&reference_out));

    // --no-resume starts a new run over a state that holds an interrupted one.
    let killed = extract(
        &input,
        &dir.path().join("again.jsonl"),
        &state,
        "1",
        Some("write:20"),
    );
    assert_eq!(killed.status.code(), None, "{}", stderr(&killed));
    let fresh = bin()
        .args(["extract", "-q", "--no-resume"])
        .arg(&other)
        .arg("-o")
        .arg(&elsewhere)
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert!(
        stderr(&fresh).contains("is not finished"),
        "{}",
        stderr(&fresh)
    );
}

/// Runs `script` with `sh` in a mount namespace of its own (as root), so that the tmpfs it
/// mounts disappears with it.
fn in_mount_namespace(script: &str) -> Output {
    let output = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-ec", script])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("unshare failed"),
        "this test mounts a small tmpfs to fill, as root (CI runs as root): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A run whose state (`what` = "state") or output (`what` = "output") is on a tmpfs of
/// `small` that fills up: exit 2 with a message that says how far the output is written, no
/// abort; then the tmpfs grows and the same command finishes, every record once.
fn full_disk(what: &str, small: &str, jobs: &str, suffix: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus_input(dir.path(), 160);
    let reference_out = dir.path().join(format!("reference{suffix}"));
    let run = extract(
        &input,
        &reference_out,
        &dir.path().join("reference-state"),
        jobs,
        None,
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let reference = records(&reference_out);

    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let (state, out) = match what {
        "state" => (disk.join("state"), dir.path().join(format!("out{suffix}"))),
        _ => (dir.path().join("state"), disk.join(format!("out{suffix}"))),
    };
    let copy = dir.path().join(format!("copy{suffix}"));
    let command = format!(
        "{bin} extract -q --jobs {jobs} {input} -o {out} --state {state}",
        bin = env!("CARGO_BIN_EXE_urltree"),
        input = input.display(),
        out = out.display(),
        state = state.display(),
    );
    let script = format!(
        "mount -t tmpfs -o size={small} tmpfs {disk}\n\
         set +e\n\
         URLTREE_INPUT__BATCH_SIZE=16 {command}\n\
         echo \"first: $?\" >&2\n\
         mount -o remount,size=256m {disk}\n\
         URLTREE_INPUT__BATCH_SIZE=16 {command}\n\
         echo \"second: $?\" >&2\n\
         cp {out} {copy}\n",
        disk = disk.display(),
        out = out.display(),
        copy = copy.display(),
    );
    let output = in_mount_namespace(&script);
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{log}");
    assert!(
        log.contains("first: 2\n"),
        "the full disk is exit 2, not an abort: {log}"
    );
    assert!(log.contains("No space left on device"), "{log}");
    assert!(
        log.contains("run the same command again"),
        "the message says how to finish: {log}"
    );
    assert!(log.contains("second: 0\n"), "{log}");
    assert!(log.contains("resuming the interrupted run"), "{log}");
    let got = records(&copy);
    assert_eq!(got.len(), reference.len(), "{log}");
    for (line, record) in &reference {
        assert_eq!(&got[line], record, "the record of input line {line}");
    }
}

#[test]
fn a_full_disk_under_the_state_is_an_error_and_the_rerun_finishes() {
    full_disk("state", "1m", "1", ".jsonl");
    full_disk("state", "1m", "2", ".jsonl.gz");
}

#[test]
fn a_full_disk_under_the_output_is_an_error_and_the_rerun_finishes() {
    full_disk("output", "512k", "1", ".jsonl");
    full_disk("output", "256k", "2", ".jsonl.zst");
}

#[test]
fn an_output_that_is_the_input_by_another_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus_input(dir.path(), 5);
    let content = std::fs::read(&input).unwrap();
    let state = dir.path().join("state");
    // A hard link to the input.
    let link = dir.path().join("link.jsonl");
    std::fs::hard_link(&input, &link).unwrap();
    let refused = extract(&input, &link, &state, "1", None);
    refused_with(&refused, "is the input");
    // The input on stdin, redirected from the output file.
    let refused = bin()
        .args(["extract", "-q", "-", "-o"])
        .arg(&link)
        .arg("--state")
        .arg(&state)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    refused_with(&refused, "is the input");
    assert!(
        std::fs::read(&input).unwrap() == content,
        "the input is intact"
    );
}

#[test]
fn a_state_in_use_by_another_run_is_refused_before_its_layout_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus_input(dir.path(), 5);
    let state = dir.path().join("state");
    let held = urltree::shards::StateLock::acquire(&state).unwrap();
    let out = dir.path().join("out.jsonl");
    let refused = extract(&input, &out, &state, "2", None);
    refused_with(&refused, "in use by another urltree process");
    // Nothing was laid out: a run with another shard count is not refused once the lock goes.
    assert_eq!(
        urltree::shards::Layout::of(&state).unwrap(),
        urltree::shards::Layout::Fresh
    );
    drop(held);
    let run = extract(&input, &out, &state, "1", None);
    assert!(run.status.success(), "{}", stderr(&run));
}
