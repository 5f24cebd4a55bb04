//! The `urltree` binary end to end: extract with bad lines, a second run that keeps learning,
//! directory input, eval and bench JSON, config printing.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urltree"));
    cmd.env_remove("URLTREE_CONFIG").env("RUST_LOG", "warn");
    cmd
}

/// Runs `cmd` and fails the test, with its stderr, unless it succeeds.
fn success(cmd: &mut Command) -> std::process::Output {
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/rust-books.jsonl.gz")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn extract_sends_bad_lines_to_the_errors_file_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let good = |n: u32| {
        serde_json::json!({
            "url": format!("https://example.org/docs/page{n}.html"),
            "title": format!("Page {n}"),
            "html": format!("<html><body><nav>Menu of the site</nav><p>Body text number {n} of the page.</p></body></html>"),
        })
        .to_string()
    };
    let long_line = format!(
        r#"{{"url":"https://example.org/big","html":"{}"}}"#,
        "x".repeat(3000)
    );
    let lines = [
        good(1),
        "{broken json".to_owned(),
        good(2),
        r#"{"url":"mailto:someone@example.org","html":"<p>x</p>"}"#.to_owned(),
        long_line,
        String::new(),
        good(3),
        good(1),
    ];
    std::fs::write(&input, lines.join("\n")).unwrap();
    let out = dir.path().join("out/clean.jsonl");
    let state = dir.path().join("state");
    let result = bin()
        .args([
            "extract",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
        ])
        .env("URLTREE_INPUT__MAX_RECORD_BYTES", "2048")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        stderr.contains("3 pages (0 new versions), 1 duplicate, 3 invalid"),
        "{stderr}"
    );

    let clean = read_jsonl(&out);
    assert_eq!(clean.len(), 3);
    assert_eq!(clean[0]["source"]["offset"], 1);
    assert_eq!(clean[2]["source"]["offset"], 7);
    assert!(clean[0]["text"]
        .as_str()
        .unwrap()
        .contains("Body text number 1"));

    let errors = read_jsonl(&dir.path().join("out/clean.errors.jsonl"));
    let kinds: Vec<(&str, i64)> = errors
        .iter()
        .map(|e| {
            (
                e["error"]["kind"].as_str().unwrap(),
                e["source"]["offset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![("invalid-json", 2), ("bad-url", 4), ("too-large", 5)]
    );
    assert_eq!(errors[2]["payload_truncated"], true);
}

#[test]
fn a_second_run_keeps_learning_from_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let run = |input: &Path, out: &Path| {
        let result = success(bin().args([
            "extract",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
            "-q",
        ]));
        (
            read_jsonl(out),
            String::from_utf8_lossy(&result.stderr).into_owned(),
        )
    };
    let (first, _) = run(&sample(), &dir.path().join("a.jsonl"));
    assert_eq!(first.len(), 200);
    assert_eq!(first[0]["model"]["cold_start"], true);
    // Same input to the same output: every page is now a duplicate, so the run would replace
    // the first run's records with none; it is refused and the file stays whole.
    let refused = bin()
        .args(["extract", sample().to_str().unwrap(), "-o"])
        .arg(dir.path().join("a.jsonl"))
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("--overwrite to replace the file"),
        "{message}"
    );
    assert_eq!(read_jsonl(&dir.path().join("a.jsonl")), first);
    // Same input to another output: every page is a duplicate, and the run says why its output
    // is empty.
    let (again, stderr) = run(&sample(), &dir.path().join("b.jsonl"));
    assert!(again.is_empty());
    assert!(stderr.contains("200 duplicates"), "{stderr}");
    assert!(
        stderr.contains("no output: 200 pages are duplicates of pages the state at"),
        "{stderr}"
    );
    // A new page of the same site is classified with all 200 pages behind it.
    let new_page = dir.path().join("new.jsonl");
    let first_record: Value =
        serde_json::from_str(&String::from_utf8(flate2_first_line(&sample())).unwrap()).unwrap();
    let mut rec = first_record.clone();
    rec["url"] = Value::String("https://doc.rust-lang.org/1.63.0/book/ch99-00-new.html".into());
    std::fs::write(&new_page, rec.to_string()).unwrap();
    let (third, _) = run(&new_page, &dir.path().join("c.jsonl"));
    assert_eq!(third.len(), 1);
    assert!(
        third[0]["model"]["support"].as_u64().unwrap() >= 5,
        "{}",
        third[0]["model"]
    );
    assert_eq!(third[0]["model"]["cold_start"], false);
    // The first page re-fetched after an update is a new version: emitted with its new text.
    let updated = dir.path().join("updated.jsonl");
    let mut rec = first_record;
    let html = rec["html"].as_str().unwrap().replacen(
        "<main>",
        "<main><p>This page was revised with a paragraph that no other page has.</p>",
        1,
    );
    assert_ne!(
        html,
        rec["html"].as_str().unwrap(),
        "the sample page has a <main>"
    );
    rec["html"] = Value::String(html);
    std::fs::write(&updated, rec.to_string()).unwrap();
    let (fourth, stderr) = run(&updated, &dir.path().join("d.jsonl"));
    assert_eq!(fourth.len(), 1, "{stderr}");
    assert_eq!(fourth[0]["url_key"], first[0]["url_key"]);
    assert!(fourth[0]["text"]
        .as_str()
        .unwrap()
        .contains("revised with a paragraph"));
    assert!(
        stderr.contains("1 page (1 new version), 0 duplicates"),
        "{stderr}"
    );
}

fn flate2_first_line(path: &Path) -> Vec<u8> {
    let pages = urltree::corpus::load(path).unwrap();
    pages[0].record.clone()
}

#[test]
fn extract_reads_a_directory_of_html_files() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site/www.example.net/blog");
    std::fs::create_dir_all(&site).unwrap();
    for n in 0..3 {
        std::fs::write(
            site.join(format!("post{n}.html")),
            format!("<html><body><div>Blog header</div><p>Post {n} says something new.</p></body></html>"),
        )
        .unwrap();
    }
    let out = dir.path().join("out.jsonl");
    success(
        bin()
            .args([
                "extract",
                dir.path().join("site").to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args([
                "--state",
                dir.path().join("state").to_str().unwrap(),
                "--blocks",
            ]),
    );
    let clean = read_jsonl(&out);
    assert_eq!(clean.len(), 3);
    assert_eq!(clean[0]["url"], "http://www.example.net/blog/post0.html");
    assert_eq!(clean[0]["domain"], "example.net");
    assert!(clean[2]["blocks"].as_array().unwrap().len() >= 2);
}

/// `html` in `encoding`, as bytes.
fn encoded(html: &str, encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
    encoding.encode(html).0.into_owned()
}

#[test]
fn pages_are_decoded_in_the_encoding_they_declare_or_show() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site/news.example.ru");
    std::fs::create_dir_all(&site).unwrap();
    let russian = "<html><head><meta charset=\"windows-1251\"></head><body><p>Это статья на русском языке.</p></body></html>";
    let japanese = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"></head><body><p>日本語のニュース記事です。</p></body></html>";
    let chinese =
        "<html><body><p>这是一篇中文新闻文章。今天天气很好，我们去公园散步了。</p></body></html>";
    std::fs::write(
        site.join("a.html"),
        encoded(russian, encoding_rs::WINDOWS_1251),
    )
    .unwrap();
    std::fs::write(
        site.join("b.html"),
        encoded(japanese, encoding_rs::SHIFT_JIS),
    )
    .unwrap();
    // A detector weighs the host's country: this page is served from China.
    let cn = dir.path().join("site/news.example.cn");
    std::fs::create_dir_all(&cn).unwrap();
    std::fs::write(cn.join("c.html?id=3"), encoded(chinese, encoding_rs::GBK)).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(site.join("missing.html"), site.join("d.html")).unwrap();
    std::fs::write(site.join("e #2.html"), "<p>Plain page.</p>").unwrap();
    let out = dir.path().join("out.jsonl");
    let result = success(bin().args([
        "extract",
        dir.path().join("site").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--state",
        dir.path().join("state").to_str().unwrap(),
        "-q",
    ]));
    let clean = read_jsonl(&out);
    let got: Vec<(&str, &str, &str, &str)> = clean
        .iter()
        .map(|r| {
            (
                r["url"].as_str().unwrap(),
                r["text"].as_str().unwrap(),
                r["encoding"]["name"].as_str().unwrap(),
                r["encoding"]["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "http://news.example.cn/c.html?id=3",
                "这是一篇中文新闻文章。今天天气很好，我们去公园散步了。",
                "GBK",
                "detected"
            ),
            (
                "http://news.example.ru/a.html",
                "Это статья на русском языке.",
                "windows-1251",
                "meta"
            ),
            (
                "http://news.example.ru/b.html",
                "日本語のニュース記事です。",
                "Shift_JIS",
                "meta"
            ),
            (
                "http://news.example.ru/e%20%232.html",
                "Plain page.",
                "windows-1252",
                "default"
            ),
        ]
    );
    // The dangling link is a dead letter; the run went on.
    #[cfg(unix)]
    {
        let errors = read_jsonl(&dir.path().join("out.errors.jsonl"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0]["error"]["kind"], "unreadable");
        assert_eq!(errors[0]["source"]["offset"], 4);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(
            stderr.contains("4 pages (0 new versions), 0 duplicates, 1 invalid"),
            "{stderr}"
        );
    }

    // The same bytes as a JSONL record without charset or headers.
    let input = dir.path().join("in.jsonl");
    let record = serde_json::json!({
        "url": "http://ru.example.com/a",
        "html_base64": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, encoded(russian, encoding_rs::WINDOWS_1251)),
    });
    std::fs::write(&input, record.to_string()).unwrap();
    let out = dir.path().join("out2.jsonl");
    success(bin().args([
        "extract",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--state",
        dir.path().join("state2").to_str().unwrap(),
    ]));
    let clean = read_jsonl(&out);
    assert_eq!(clean[0]["text"], "Это статья на русском языке.");
    assert_eq!(clean[0]["encoding"]["name"], "windows-1251");
}

#[test]
fn eval_and_bench_write_their_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("eval.json");
    let plot = dir.path().join("curve.svg");
    let result = success(
        bin()
            .args([
                "eval",
                "--corpus",
                sample().to_str().unwrap(),
                "--heuristic",
                "strict",
            ])
            .args([
                "--heuristic",
                "relaxed-at-domain-500",
                "--json",
                json.to_str().unwrap(),
                "--plot",
                plot.to_str().unwrap(),
            ]),
    );
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(stdout.contains("rust-lang.org"), "{stdout}");
    let report = read_json(&json);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["heuristic"], "strict");
    assert_eq!(runs[1]["overall"]["pages"], 200);
    let f1 = runs[1]["overall"]["f1_lcs"].as_f64().unwrap();
    assert!(f1 > 0.5 && f1 <= 1.0, "{f1}");
    assert!(
        std::fs::read_to_string(&plot).unwrap().starts_with("<svg")
            || std::fs::read_to_string(&plot).unwrap().starts_with("<?xml")
    );

    let bench = dir.path().join("bench.json");
    success(bin().args([
        "bench",
        "--corpus",
        sample().to_str().unwrap(),
        "--json",
        bench.to_str().unwrap(),
        "--rounds",
        "3",
    ]));
    let b = read_json(&bench);
    // Three passes on fresh state; the reported throughput is the median one's.
    assert_eq!(b["rounds"], 3);
    let mut rounds: Vec<f64> = b["mb_per_sec_rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_f64().unwrap())
        .collect();
    rounds.sort_by(f64::total_cmp);
    assert_eq!(rounds.len(), 3);
    assert_eq!(b["mb_per_sec"].as_f64().unwrap(), rounds[1], "{b}");
    for field in [
        "pages_per_sec",
        "mb_per_sec",
        "parse_share",
        "state_bytes_per_1000_docs",
        "peak_rss_bytes",
    ] {
        assert!(b[field].as_f64().unwrap() > 0.0, "{field}: {b}");
    }
    assert_eq!(b["pages"], 200);
}

#[test]
fn bench_copies_streams_new_pages_and_keeps_the_state_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("steady.json");
    let result = success(bin().args([
        "bench",
        "--corpus",
        sample().to_str().unwrap(),
        "--copies",
        "3",
        "--json",
        json.to_str().unwrap(),
    ]));
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(stdout.contains("3 copies of 200 pages"), "{stdout}");
    let b = read_json(&json);
    let copies = b["copies"].as_array().unwrap();
    assert_eq!(copies.len(), 3, "{b}");
    for (i, copy) in copies.iter().enumerate() {
        assert_eq!(copy["copy"], i + 1);
        // Every copy is new: no page of a later copy is a duplicate of an earlier one.
        assert_eq!(copy["pages"], 200, "{copy}");
        assert_eq!(copy["html_bytes"], copies[0]["html_bytes"]);
        for field in [
            "mb_per_sec",
            "pages_per_sec",
            "cpu_seconds",
            "peak_rss_bytes",
        ] {
            assert!(copy[field].as_f64().unwrap() > 0.0, "{field}: {copy}");
        }
        assert!(copy["wal_bytes_max"].as_u64().unwrap() > 0, "{copy}");
        assert!(
            copy["state"]["memtable_bytes"].as_u64().unwrap() > 0,
            "{copy}"
        );
    }
    // Each copy is newer than the age limit allows: retention forgets the older copies down to
    // the `min_keep` newest (100) while the next copy comes in.
    assert_eq!(copies[0]["forgotten"], 0);
    assert!(copies[1]["forgotten"].as_u64().unwrap() >= 100, "{b}");
    assert!(copies[2]["docs_retained"].as_u64().unwrap() <= 200, "{b}");
    // What the stream leaves on disk is what the retained documents alone make.
    let ratio = b["state_vs_fresh"].as_f64().unwrap();
    assert!((0.95..=1.05).contains(&ratio), "{b}");
    assert!(b["reopen_seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(
        b["docs_retained"], copies[2]["docs_retained"],
        "the run's retained documents are the last copy's"
    );
}

#[test]
fn config_is_printed_and_bad_config_is_a_clear_error() {
    let result = success(
        bin()
            .args(["config"])
            .env("URLTREE_TREE__HEURISTIC", "strict"),
    );
    let text = String::from_utf8_lossy(&result.stdout);
    assert!(text.contains("heuristic = \"strict\""), "{text}");

    let result = bin()
        .args(["config"])
        .env("URLTREE_TREE__HEURISTIC", "magic")
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    let err = String::from_utf8_lossy(&result.stderr);
    assert!(err.contains("unknown heuristic"), "{err}");
}

#[test]
fn extract_markdown_keeps_the_sample_code_listing_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let state = dir.path().join("state");
    success(bin().args([
        "extract",
        sample().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--markdown",
        "-q",
    ]));
    let clean = read_jsonl(&out);
    // The sample's first page, "Creating a Library": its listing line for line, indented.
    let page = &clean[0];
    let listing = "pub fn public_function() {\n    println!(\"called rary's `public_function()`\");\n}\n\nfn private_function() {";
    assert!(page["text"].as_str().unwrap().contains(listing), "{page}");
    let markdown = page["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("\n\n```shell\n$ rustc --crate-type=lib rary.rs\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("```rust\n{listing}")),
        "{markdown}"
    );
    assert!(markdown.contains("`--crate-name`"), "{markdown}");
    assert_eq!(page["lang"]["code"], "en");
    assert!(page["description"]
        .as_str()
        .unwrap()
        .starts_with("Rust by Example"));
    // Without the flag there is no markdown.
    let plain = dir.path().join("plain.jsonl");
    success(bin().args([
        "extract",
        sample().to_str().unwrap(),
        "-o",
        plain.to_str().unwrap(),
        "--state",
        dir.path().join("state2").to_str().unwrap(),
        "-q",
    ]));
    assert!(read_jsonl(&plain)[0].get("markdown").is_none());
}

/// `n` records of the sample, as JSONL lines.
fn sample_lines(n: usize) -> Vec<Vec<u8>> {
    urltree::corpus::load(&sample())
        .unwrap()
        .into_iter()
        .take(n)
        .map(|p| p.record)
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Runs `extract INPUT -o OUT` with a state of its own; returns the exit code and stderr.
fn extract(dir: &Path, input: &Path, out: &Path, extra: &[&str]) -> (i32, String) {
    let state = dir.join(format!(
        "state-{}",
        out.file_name().unwrap().to_string_lossy()
    ));
    let result = bin()
        .args([
            "extract",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--state", state.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    (
        result.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

#[test]
fn a_read_error_keeps_every_complete_record_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let lines = sample_lines(40);
    let mut jsonl = lines.join(&b'\n');
    jsonl.push(b'\n');
    let gz = gzip(&jsonl);

    // A truncated gzip file: every complete line before the cut comes out, then exit 2.
    let truncated = dir.path().join("truncated.jsonl.gz");
    std::fs::write(&truncated, &gz[..gz.len() * 2 / 3]).unwrap();
    let mut readable = Vec::new();
    let _ = std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gz[..gz.len() * 2 / 3]),
        &mut readable,
    );
    let complete = readable.iter().filter(|&&b| b == b'\n').count();
    assert!(complete > 5 && complete < 40, "{complete}");
    let out = dir.path().join("a.jsonl");
    let (code, stderr) = extract(dir.path(), &truncated, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(read_jsonl(&out).len(), complete, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "every complete record before it was processed ({complete} written to the output)"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("after line"), "{stderr}");

    // A valid gzip file followed by garbage: every record, then exit 2 naming the garbage.
    let garbage = dir.path().join("garbage.jsonl.gz");
    let mut bytes = gz.clone();
    bytes.extend_from_slice(b"this is not gzip\n");
    std::fs::write(&garbage, &bytes).unwrap();
    let out = dir.path().join("b.jsonl");
    let (code, stderr) = extract(dir.path(), &garbage, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(read_jsonl(&out).len(), 40, "{stderr}");
    assert!(stderr.contains("no gzip member"), "{stderr}");

    // Two members, as `cat a.gz b.gz` writes them, the first without a final newline: all read.
    let two = dir.path().join("two.jsonl.gz");
    let mut bytes = gzip(&lines[..10].join(&b'\n'));
    bytes.extend_from_slice(&gzip(&[b"\n".to_vec(), lines[10..].join(&b'\n')].concat()));
    std::fs::write(&two, &bytes).unwrap();
    let out = dir.path().join("c.jsonl");
    let (code, stderr) = extract(dir.path(), &two, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_jsonl(&out).len(), 40, "{stderr}");
}

#[test]
fn an_output_over_the_input_is_refused_and_a_missing_input_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let content = sample_lines(3).join(&b'\n');
    std::fs::write(&input, &content).unwrap();
    let (code, stderr) = extract(dir.path(), &input, &input, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is the input: refusing to overwrite it"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        content,
        "the input is intact"
    );
    let spelled_otherwise = dir.path().join(".").join("in.jsonl");
    let (code, _) = extract(dir.path(), &input, &spelled_otherwise, &[]);
    assert_eq!(code, 2);
    let out = dir.path().join("out.jsonl");
    let (code, stderr) = extract(
        dir.path(),
        &input,
        &out,
        &["--errors", out.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is the output"), "{stderr}");
    assert!(!out.exists());

    // A missing input: exit 2, one mention of the OS error, no state and no output created.
    let missing = dir.path().join("missing.jsonl");
    let out = dir.path().join("never.jsonl");
    let (code, stderr) = extract(dir.path(), &missing, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
    assert_eq!(stderr.matches("missing.jsonl").count(), 1, "{stderr}");
    assert!(!out.exists());
    assert!(!dir.path().join("state-never.jsonl").exists());
}

#[test]
fn exit_codes_say_whether_records_were_dead_lettered_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    std::fs::write(
        &input,
        "{broken\n{\"url\":\"mailto:x@example.org\",\"html\":\"x\"}\n",
    )
    .unwrap();
    let (code, stderr) = extract(dir.path(), &input, &dir.path().join("a.jsonl"), &[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = extract(
        dir.path(),
        &input,
        &dir.path().join("b.jsonl"),
        &["--strict"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("2 invalid"), "{stderr}");
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, sample_lines(2).join(&b'\n')).unwrap();
    let (code, stderr) = extract(
        dir.path(),
        &good,
        &dir.path().join("c.jsonl"),
        &["--strict"],
    );
    assert_eq!(code, 0, "{stderr}");
    // A usage error is 2.
    let result = bin().args(["extract", "--no-such-flag"]).output().unwrap();
    assert_eq!(result.status.code(), Some(2));
}

#[test]
fn quiet_silences_per_record_warnings_not_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    std::fs::write(&input, "{broken\n").unwrap();
    let (_, loud) = extract(dir.path(), &input, &dir.path().join("a.jsonl"), &[]);
    assert!(loud.contains("rejected (invalid-json)"), "{loud}");
    let (_, quiet) = extract(dir.path(), &input, &dir.path().join("b.jsonl"), &["-q"]);
    assert!(!quiet.contains("rejected"), "{quiet}");
    assert!(quiet.contains("1 invalid"), "{quiet}");
}

#[test]
fn one_html_file_or_html_on_stdin_with_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let html = "<html><body><p>One page of its own, with a paragraph of text.</p></body></html>";
    std::fs::write(&page, html).unwrap();
    let out = dir.path().join("a.jsonl");
    let (code, stderr) = extract(
        dir.path(),
        &page,
        &out,
        &["--url", "https://www.example.com/news/page.html"],
    );
    assert_eq!(code, 0, "{stderr}");
    let clean = read_jsonl(&out);
    assert_eq!(clean.len(), 1);
    assert_eq!(clean[0]["url"], "https://www.example.com/news/page.html");
    assert!(clean[0]["text"]
        .as_str()
        .unwrap()
        .contains("One page of its own"));
    // Without a URL the file is not taken for JSONL: the error says what to give.
    let (code, stderr) = extract(dir.path(), &page, &dir.path().join("b.jsonl"), &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("give its URL with --url"), "{stderr}");
    // HTML on stdin.
    let out = dir.path().join("c.jsonl");
    let mut child = bin()
        .args([
            "extract",
            "-",
            "-o",
            out.to_str().unwrap(),
            "--url",
            "http://example.org/x",
        ])
        .args(["--state", dir.path().join("stdin-state").to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), html.as_bytes()).unwrap();
    drop(child.stdin.take());
    let result = child.wait_with_output().unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let clean = read_jsonl(&out);
    assert_eq!(clean[0]["domain"], "example.org");
}

#[test]
fn one_page_without_state_writes_none_and_comes_out_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample_lines(1).remove(0);
    let record: Value = serde_json::from_slice(&sample).unwrap();
    let html = record["html"].as_str().unwrap();
    let url = record["url"].as_str().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, html).unwrap();
    let run = |args: &[&str], stdin: Option<&str>| {
        let mut child = bin()
            .current_dir(dir.path())
            .arg("extract")
            .args(args)
            .args(["--url", url])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut input, stdin.unwrap_or("").as_bytes()).unwrap();
        drop(input);
        let result = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
        assert!(result.status.success(), "{stderr}");
        let records: Vec<Value> = String::from_utf8_lossy(&result.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (records, stderr)
    };
    let (first, stderr) = run(&["page.html"], None);
    assert!(stderr.contains("state:  none"), "{stderr}");
    let (second, _) = run(&["page.html"], None);
    let (piped, _) = run(&["-"], Some(html));
    let (with_state, stderr) = run(&["page.html", "--state", "asked"], None);
    assert!(stderr.contains("state:  asked"), "{stderr}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n == "urltree-state"),
        "one page without --state writes no state: {names:?}"
    );
    assert!(names.iter().any(|n| n == "asked"), "{names:?}");
    for records in [&first, &second, &piped, &with_state] {
        assert_eq!(records.len(), 1, "the page comes out every time");
    }
    let text = first[0]["text"].as_str().unwrap();
    assert!(text.len() > 200, "{text}");
    // The cold-start path gives what a fresh state gives the page.
    for other in [&second, &piped, &with_state] {
        let (mut a, mut b) = (first[0].clone(), other[0].clone());
        for r in [&mut a, &mut b] {
            r["processed_at"] = Value::Null;
            r["source"] = Value::Null;
        }
        assert_eq!(a, b);
    }
}

#[test]
fn extract_links_and_images_flags() {
    let dir = tempfile::tempdir().unwrap();
    // The flags come before the input, whose path a flag's optional value must not take.
    let run = |name: &str, flags: &[&str]| -> Vec<Value> {
        let out = dir.path().join(format!("{name}.jsonl"));
        let state = dir.path().join(format!("state-{name}"));
        let mut cmd = bin();
        cmd.arg("extract")
            .args(flags)
            .args([sample().to_str().unwrap(), "-o"])
            .arg(&out)
            .arg("--state")
            .arg(&state)
            .args(["-q", "-j", "1"]);
        success(&mut cmd);
        read_jsonl(&out)
    };
    let field = |records: &[Value], name: &str| -> String {
        records
            .iter()
            .map(|r| r[name].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The Markdown links to the pages the book links to, absolute; the text stays plain.
    let default = run("default", &["--markdown"]);
    let markdown = field(&default, "markdown");
    assert!(markdown.contains("](https://"), "{markdown}");
    // `none`: their text alone in the Markdown; the text is the same either way (the book's
    // own text quotes Markdown with a link: `[Here is a link!](https://www.rust-lang.org)`).
    let none = run("none", &["--markdown", "--links=none"]);
    let plain_text = field(&default, "text");
    assert_eq!(plain_text, field(&none, "text"));
    let marks = |s: &str| s.matches("](https://").count();
    assert!(marks(&field(&none, "markdown")) < marks(&markdown) / 10);
    // `all` (or `--links` alone without `--markdown`): in the text too.
    let all = run("all", &["--links"]);
    let linked_text = field(&all, "text");
    assert!(
        marks(&linked_text) > marks(&plain_text) + 100,
        "{linked_text}"
    );
    assert!(all[0].get("markdown").is_none());
    assert_eq!(
        default.iter().map(|r| r["url"].clone()).collect::<Vec<_>>(),
        all.iter().map(|r| r["url"].clone()).collect::<Vec<_>>()
    );
    // A word the flag does not know is a clear usage error.
    let result = bin()
        .args(["extract", "--links=sometimes", sample().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    let err = String::from_utf8_lossy(&result.stderr);
    assert!(err.contains("expected none, markdown or all"), "{err}");
}
