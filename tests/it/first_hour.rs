//! What a new user meets in a first hour with `urltree extract`, each the way they meet it: HTML
//! piped in without its URL, `-o /dev/null`, Wayback pages whose `domain` field differs from
//! their URL, the default engine count on a small input, the summary's wording, log colours in
//! a pipe, the progress bar on a terminal, and `--help`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urltree"));
    cmd.env_remove("URLTREE_CONFIG")
        .env_remove("NO_COLOR")
        .env("RUST_LOG", "warn");
    cmd
}

/// Runs `urltree [GLOBAL…] extract INPUT ARGS…` in `dir` to its end.
fn extract(dir: &Path, global: &[&str], input: &Path, args: &[&str]) -> Output {
    bin()
        .args(global)
        .arg("extract")
        .arg(input)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/rust-books.jsonl.gz")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `cmd` with `input` on its stdin.
fn with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The process may refuse the input before reading it all.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

/// One raw-html record of `url`, claiming `domain` when given.
fn record(url: &str, domain: Option<&str>, body: &str) -> String {
    let mut record = serde_json::json!({
        "url": url,
        "html": format!("<html><body><nav>Home · About</nav><p>{body}</p></body></html>"),
    });
    if let Some(domain) = domain {
        record["domain"] = domain.into();
    }
    record.to_string()
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn html_piped_in_without_its_url_is_refused_with_what_to_add() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let page =
        "<!DOCTYPE html>\n<html><head><title>A</title></head>\n<body><p>Text.</p></body></html>\n"
            .repeat(200);
    let output = with_stdin(
        bin()
            .args(["extract", "-", "--state"])
            .arg(&state)
            .current_dir(dir.path()),
        page.as_bytes(),
    );
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("stdin holds HTML") && message.contains("--url"),
        "{message}"
    );
    // One message, not a warning per line; nothing created.
    assert!(!message.contains("invalid-json"), "{message}");
    assert!(output.stdout.is_empty());
    assert!(!state.exists());
    assert!(!dir.path().join("urltree-errors.jsonl").exists());

    // The same page in a file whose name does not say HTML, and gzipped.
    let file = dir.path().join("page.txt");
    std::fs::write(&file, &page).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(page.as_bytes()).unwrap();
    let gzipped = dir.path().join("page.gz");
    std::fs::write(&gzipped, gz.finish().unwrap()).unwrap();
    for input in [&file, &gzipped] {
        let output = extract(dir.path(), &[], input, &["--state", "state"]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{message}");
        assert!(
            message.contains("holds HTML") && message.contains("--url"),
            "{message}"
        );
    }
    // With --url the page on stdin is read.
    let output = with_stdin(
        bin()
            .args([
                "extract",
                "-",
                "--url",
                "https://example.com/a.html",
                "--state",
            ])
            .arg(&state)
            .current_dir(dir.path()),
        page.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let line: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(line["domain"], "example.com");
}

#[test]
fn the_errors_of_an_output_to_dev_null_go_to_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let lines = [
        record("https://example.org/a.html", None, "A page of text."),
        "{not json".to_owned(),
    ];
    std::fs::write(&input, lines.join("\n")).unwrap();
    // What `/dev/null.errors.jsonl` is before (another program may have made it): this run
    // leaves it as it was.
    let in_dev = || {
        std::fs::metadata("/dev/null.errors.jsonl")
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let before = in_dev();
    let output = extract(
        dir.path(),
        &[],
        &input,
        &["-o", "/dev/null", "--state", "state"],
    );
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert_eq!(in_dev(), before);
    assert!(!message.contains("/dev/null.errors"), "{message}");
    let errors = dir.path().join("urltree-errors.jsonl");
    let letters = read_jsonl(&errors);
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0]["error"]["kind"], "invalid-json");
    assert!(
        message.contains("errors: urltree-errors.jsonl (1 record)"),
        "{message}"
    );
}

#[test]
fn a_domain_mismatch_names_the_flag_that_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("wayback.jsonl");
    // A capture served by the archive, filed by the collection under the site it shows.
    let capture = record(
        "https://web.archive.org/web/2005/http://www.example.com/news/1.html",
        Some("example.com"),
        "The news of the day, as the archive kept it.",
    );
    std::fs::write(&input, format!("{capture}\n")).unwrap();
    let run = |extra: &[&str], out: &str| {
        let state = format!("state-{out}");
        let args = [&["-o", out, "--state", &state], extra].concat();
        extract(dir.path(), &[], &input, &args)
    };
    let output = run(&[], "a.jsonl");
    assert!(output.status.success(), "{}", stderr(&output));
    let letters = read_jsonl(&dir.path().join("a.errors.jsonl"));
    assert_eq!(letters[0]["error"]["kind"], "domain-mismatch");
    let message = letters[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("--trust-record-domain"), "{message}");
    assert!(stderr(&output).contains("--trust-record-domain"));
    // The flag the message names files the page under its domain field.
    let output = run(&["--trust-record-domain"], "b.jsonl");
    assert!(output.status.success(), "{}", stderr(&output));
    let clean = read_jsonl(&dir.path().join("b.jsonl"));
    assert_eq!(clean[0]["domain"], "example.com");
    assert!(!dir.path().join("b.errors.jsonl").exists());
}

#[test]
fn a_fresh_state_starts_with_one_engine_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let output = extract(
        dir.path(),
        &[],
        &sample(),
        &["-o", "out.jsonl", "--state", "state"],
    );
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    // One database in the state directory itself, whatever the machine's cores: the sample is
    // one domain, which one shard of two would hold while the other idled.
    assert!(state.join("CURRENT").is_file(), "{message}");
    let shard_dirs: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("shard-"))
        .collect();
    assert!(shard_dirs.is_empty(), "{shard_dirs:?}");
    assert!(!message.contains("shards)"), "{message}");
    // Parallelism is asked for when a state starts, and the state keeps it.
    let args = ["-o", "out4.jsonl", "--state", "state4", "--jobs", "4"];
    let output = extract(dir.path(), &[], &sample(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(dir.path().join("state4/shard-3-of-4").is_dir());
    let args = ["-o", "again.jsonl", "--state", "state4"];
    let output = extract(dir.path(), &[], &sample(), &args);
    assert!(
        stderr(&output).contains("(4 shards)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_summary_counts_in_the_singular_and_the_plural() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("one.jsonl");
    let page = record("https://example.org/a.html", None, "One page of text.");
    std::fs::write(&input, format!("{page}\n{page}\n")).unwrap();
    let output = extract(
        dir.path(),
        &[],
        &input,
        &["-o", "out.jsonl", "--state", "state"],
    );
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(
        message.contains("urltree extract: 1 page (0 new versions), 1 duplicate, 0 invalid"),
        "{message}"
    );
    assert!(message.contains("(1 record)"), "{message}");
    // Word by word, so that a rate such as "37.1 pages/s" is no count of one.
    let words: Vec<&str> = message
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    for pair in words.windows(2) {
        let plural = ["pages", "duplicates", "records", "blocks"].contains(&pair[1]);
        assert!(!(pair[0] == "1" && plural), "1 {}: {message}", pair[1]);
    }
    // Everything again is a duplicate: one of them, in the singular.
    std::fs::write(&input, format!("{page}\n")).unwrap();
    let args = ["-o", "again.jsonl", "--state", "state"];
    let output = extract(dir.path(), &[], &input, &args);
    let message = stderr(&output);
    assert!(
        message.contains("no output: 1 page is a duplicate of pages"),
        "{message}"
    );
}

#[test]
fn human_logs_written_into_a_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    std::fs::write(&input, "{not json\n").unwrap();
    let output = extract(
        dir.path(),
        &["--log-format", "human"],
        &input,
        &["-o", "out.jsonl", "--state", "state"],
    );
    let message = stderr(&output);
    assert!(message.contains("rejected (invalid-json)"), "{message}");
    assert!(!message.contains('\u{1b}'), "{message:?}");
}

#[test]
fn the_progress_bar_on_a_terminal_ends_full_with_the_time_left() {
    // `script` (util-linux) runs the command on a pseudo-terminal, as a user's shell would.
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} extract {} -o out.jsonl --state state",
        env!("CARGO_BIN_EXE_urltree"),
        sample().display()
    );
    let output = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .env("TERM", "xterm")
        .env("COLUMNS", "160")
        .env_remove("NO_COLOR")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs the command on a terminal");
    let screen = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{screen}");
    assert!(screen.contains("100%"), "{screen:?}");
    assert!(screen.contains("ETA"), "{screen:?}");
    // The bar's last state is full, with the pages counted, above the summary.
    let last_bar = screen.rsplit("100%").next().unwrap();
    assert!(last_bar.contains("200 pages"), "{screen:?}");
    assert!(screen.contains("urltree extract: 200 pages"), "{screen:?}");
}

#[test]
fn the_help_says_what_extract_reads() {
    let output = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("extract"))
        .unwrap_or_else(|| panic!("{help}"));
    for kind in ["JSONL", "WARC", "HTML"] {
        assert!(line.contains(kind), "{line}");
    }
    let output = bin().args(["extract", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.lines().next().unwrap().contains("WARC"), "{help}");
    assert!(help.contains("--trust-record-domain"), "{help}");
}
