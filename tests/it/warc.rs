//! `urltree extract` on WARC files written by wget and warcio (tests/data/warc, made by
//! scripts/make-warc-fixtures) and by a small writer here, and compressed output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urltree"));
    cmd.env_remove("URLTREE_CONFIG").env("RUST_LOG", "warn");
    cmd
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/warc")
        .join(name)
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/rust-books.jsonl.gz")
}

/// The sample's records as JSON values, in file order.
fn sample_records(n: usize) -> Vec<Value> {
    urltree::corpus::load(&sample())
        .unwrap()
        .into_iter()
        .take(n)
        .map(|p| serde_json::from_slice(&p.record).unwrap())
        .collect()
}

fn parse_jsonl(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    parse_jsonl(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
}

/// Runs `extract INPUT -o OUT` with a state of its own (and `stdin` piped in when given);
/// returns the exit code and stderr.
fn extract(dir: &Path, input: &str, out: &Path, stdin: Option<&[u8]>) -> (i32, String) {
    let state = dir.join(format!(
        "state-{}",
        out.file_name().unwrap().to_string_lossy()
    ));
    let mut child = bin()
        .args(["extract", input, "-o", out.to_str().unwrap()])
        .args(["--state", state.to_str().unwrap(), "--quiet"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).unwrap();
    }
    drop(pipe);
    let result = child.wait_with_output().unwrap();
    (
        result.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

fn texts(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect()
}

/// The count the summary line gives a skip reason, e.g. `1 not HTML`.
fn skipped(stderr: &str, reason: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.contains("without a page ("))
        .unwrap_or_else(|| panic!("no skipped line: {stderr}"));
    let list = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
    list.split(", ")
        .find_map(|item| {
            let (n, name) = item.split_once(' ')?;
            (name == reason).then(|| n.parse().unwrap())
        })
        .unwrap_or(0)
}

/// Writes the sample's pages as a WARC: a warcinfo record, then for each page a request and a
/// response record, each its own gzip member when `gzip_members`.
fn sample_warc(pages: &[Value], gzip_members: bool) -> Vec<u8> {
    let mut warc = Vec::new();
    let mut record = |kind: &str, uri: Option<&str>, content_type: &str, block: &[u8]| {
        let mut bytes = format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{:012}>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\n",
            warc.len()
        )
        .into_bytes();
        if let Some(uri) = uri {
            bytes.extend_from_slice(format!("WARC-Target-URI: {uri}\r\n").as_bytes());
        }
        bytes.extend_from_slice(
            format!(
                "Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
                block.len()
            )
            .as_bytes(),
        );
        bytes.extend_from_slice(block);
        bytes.extend_from_slice(b"\r\n\r\n");
        if gzip_members {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            warc.extend_from_slice(&e.finish().unwrap());
        } else {
            warc.extend_from_slice(&bytes);
        }
    };
    record(
        "warcinfo",
        None,
        "application/warc-fields",
        b"software: urltree tests\r\n",
    );
    for page in pages {
        let url = page["url"].as_str().unwrap();
        let html = page["html"].as_str().unwrap().as_bytes();
        let request = format!("GET {url} HTTP/1.1\r\nHost: x\r\n\r\n");
        record(
            "request",
            Some(url),
            "application/http; msgtype=request",
            request.as_bytes(),
        );
        let mut response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            html.len()
        )
        .into_bytes();
        response.extend_from_slice(html);
        record(
            "response",
            Some(url),
            "application/http; msgtype=response",
            &response,
        );
    }
    warc
}

#[test]
fn a_warc_of_the_sample_gives_the_same_text_as_the_jsonl_record_for_record() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_records(200);
    assert_eq!(pages.len(), 200);
    let (code, stderr) = extract(
        dir.path(),
        sample().to_str().unwrap(),
        &dir.path().join("jsonl.jsonl"),
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let from_jsonl = read_jsonl(&dir.path().join("jsonl.jsonl"));
    assert_eq!(from_jsonl.len(), 200, "{stderr}");

    // Gzip per record from a file; the same bytes on stdin, told by content.
    let warc = sample_warc(&pages, true);
    let path = dir.path().join("sample.warc.gz");
    std::fs::write(&path, &warc).unwrap();
    let (code, stderr) = extract(
        dir.path(),
        path.to_str().unwrap(),
        &dir.path().join("warc.jsonl"),
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let from_warc = read_jsonl(&dir.path().join("warc.jsonl"));
    assert_eq!(texts(&from_warc), texts(&from_jsonl));
    assert_eq!(skipped(&stderr, "request"), 200, "{stderr}");
    assert_eq!(skipped(&stderr, "warcinfo"), 1, "{stderr}");
    for (record, page) in from_warc.iter().zip(&pages) {
        assert_eq!(record["url"], page["url"]);
        assert_eq!(record["fetched_at"], "2024-05-01T10:00:00Z");
        assert!(record["warc_record_id"]
            .as_str()
            .unwrap()
            .starts_with("<urn:uuid:"));
        assert_eq!(record["encoding"]["source"], "content-type");
    }

    let (code, stderr) = extract(
        dir.path(),
        "-",
        &dir.path().join("stdin.jsonl"),
        Some(&warc),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        texts(&read_jsonl(&dir.path().join("stdin.jsonl"))),
        texts(&from_jsonl)
    );

    // Plain WARC, and one gzip member for the whole file.
    let plain = sample_warc(&pages[..20], false);
    let mut whole = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    whole.write_all(&plain).unwrap();
    for (name, bytes) in [
        ("plain.warc", plain.clone()),
        ("whole.warc.gz", whole.finish().unwrap()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = dir.path().join(format!("{name}.jsonl"));
        let (code, stderr) = extract(dir.path(), path.to_str().unwrap(), &out, None);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(texts(&read_jsonl(&out)), texts(&from_jsonl[..20]), "{name}");
    }
}

#[test]
fn a_warc_cut_mid_record_keeps_every_complete_record_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_records(5);
    for gzip_members in [true, false] {
        let mut warc = sample_warc(&pages, gzip_members);
        // Into the last response record: 1 warcinfo + 4 × 2 complete records + its request.
        let cut = warc.len() - 3000;
        warc.truncate(cut);
        let name = format!("cut-{gzip_members}.warc");
        let path = dir.path().join(&name);
        std::fs::write(&path, &warc).unwrap();
        let out = dir.path().join(format!("{name}.jsonl"));
        let (code, stderr) = extract(dir.path(), path.to_str().unwrap(), &out, None);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("after record 10"), "{stderr}");
        assert!(stderr.contains(&name), "{stderr}");
        let records = read_jsonl(&out);
        assert_eq!(records.len(), 4, "{stderr}");
        for (record, page) in records.iter().zip(&pages) {
            assert_eq!(record["url"], page["url"]);
        }
    }
}

#[test]
fn wget_warcs_give_the_pages_text_and_skip_the_rest_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wget.jsonl");
    let (code, stderr) = extract(
        dir.path(),
        fixture("wget-pages.warc.gz").to_str().unwrap(),
        &out,
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let records = read_jsonl(&out);
    let urls: Vec<&str> = records.iter().map(|r| r["url"].as_str().unwrap()).collect();
    assert_eq!(urls.len(), 3, "{stderr}");
    for (i, url) in urls.iter().enumerate() {
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with(&format!("/page{}.html", i + 1)),
            "{url}"
        );
    }
    assert_eq!(skipped(&stderr, "HTTP status not 200"), 1, "{stderr}");
    // notes.txt, and the resource records of wget's arguments and log (text/plain).
    assert_eq!(skipped(&stderr, "not HTML"), 3, "{stderr}");
    assert_eq!(skipped(&stderr, "warcinfo"), 1, "{stderr}");
    assert_eq!(skipped(&stderr, "metadata"), 1, "{stderr}");
    assert!(skipped(&stderr, "request") >= 5, "{stderr}");
    for record in &records {
        assert!(record["warc_record_id"]
            .as_str()
            .unwrap()
            .starts_with("<urn:uuid:"));
        assert!(record["fetched_at"].is_string());
    }

    // The same pages as JSONL records under the URLs wget fetched them from: the same text.
    let mut jsonl = String::new();
    for (page, url) in sample_records(3).iter_mut().zip(&urls) {
        page["url"] = Value::from(*url);
        page.as_object_mut().unwrap().remove("domain");
        jsonl.push_str(&page.to_string());
        jsonl.push('\n');
    }
    let jsonl_path = dir.path().join("same.jsonl");
    std::fs::write(&jsonl_path, jsonl).unwrap();
    let same = dir.path().join("same.out.jsonl");
    let (code, stderr) = extract(dir.path(), jsonl_path.to_str().unwrap(), &same, None);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(texts(&records), texts(&read_jsonl(&same)));

    // A plain WARC (wget --no-warc-compression) in a directory beside an .html file.
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("example.org")).unwrap();
    std::fs::copy(fixture("wget-plain.warc"), site.join("a.warc")).unwrap();
    std::fs::write(
        site.join("example.org/b.html"),
        "<html><body><article><p>A page of its own beside the WARC file, long enough to be a text.</p></article></body></html>",
    )
    .unwrap();
    let out = dir.path().join("dir.jsonl");
    let (code, stderr) = extract(dir.path(), site.to_str().unwrap(), &out, None);
    assert_eq!(code, 0, "{stderr}");
    let records_dir = read_jsonl(&out);
    let urls: Vec<&str> = records_dir
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls.len(), 2, "{stderr}");
    assert!(urls[0].ends_with("/page1.html"), "{urls:?}");
    assert_eq!(urls[1], "http://example.org/b.html");
    assert_eq!(records_dir[0]["text"], records[0]["text"]);
}

#[test]
fn warcio_cases_decode_chunked_gzip_and_http_charsets_and_skip_the_rest_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cases.jsonl");
    let (code, stderr) = extract(
        dir.path(),
        fixture("warcio-cases.warc.gz").to_str().unwrap(),
        &out,
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let records = read_jsonl(&out);
    let by_url = |url: &str| {
        records
            .iter()
            .find(|r| r["url"] == url)
            .unwrap_or_else(|| panic!("{url} missing: {stderr}"))
    };
    // The chunked, gzip-encoded response gives the page the resource record holds as it is.
    let chunked = by_url("http://chunked.example.org/book/page.html");
    let resource = by_url("http://res.example.org/page.html");
    assert!(chunked["text"].as_str().unwrap().len() > 100);
    assert_eq!(chunked["text"], resource["text"]);
    // windows-1251 named only in the HTTP header.
    let russian = by_url("http://ru.example.org/stat.html");
    assert_eq!(russian["encoding"]["name"], "windows-1251");
    assert_eq!(russian["encoding"]["source"], "content-type");
    assert!(
        russian["text"].as_str().unwrap().contains("туннелей"),
        "{russian}"
    );
    assert_eq!(records.len(), 3, "{stderr}");
    assert_eq!(skipped(&stderr, "truncated"), 1, "{stderr}");
    assert_eq!(skipped(&stderr, "revisit"), 1, "{stderr}");
    assert_eq!(skipped(&stderr, "not HTML"), 1, "{stderr}");
}

fn gunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// The records without `processed_at`, the wall clock for pages without `fetched_at`.
fn timeless(text: &str) -> Vec<Value> {
    let mut records = parse_jsonl(text);
    for r in &mut records {
        r.as_object_mut().unwrap().remove("processed_at");
    }
    records
}

#[test]
fn outputs_named_gz_and_zst_are_compressed_and_read_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for page in sample_records(30) {
        input.push_str(&page.to_string());
        input.push('\n');
    }
    input.push_str("{not json\n");
    let input_path = dir.path().join("in.jsonl");
    std::fs::write(&input_path, input).unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let (code, stderr) = extract(dir.path(), input_path.to_str().unwrap(), &out, None);
        assert_eq!(code, 0, "{stderr}");
        out
    };
    let plain = std::fs::read_to_string(run("out.jsonl")).unwrap();
    let plain_errors = std::fs::read_to_string(dir.path().join("out.errors.jsonl")).unwrap();
    assert_eq!(timeless(&plain).len(), 30);

    let gz = std::fs::read(run("out.jsonl.gz")).unwrap();
    assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    assert_eq!(timeless(&gunzip(&gz)), timeless(&plain));
    let gz_errors = std::fs::read(dir.path().join("out.errors.jsonl.gz")).unwrap();
    assert_eq!(gunzip(&gz_errors), plain_errors);

    let zst = std::fs::read(run("out.jsonl.zst")).unwrap();
    let text = String::from_utf8(zstd::decode_all(&zst[..]).unwrap()).unwrap();
    assert_eq!(timeless(&text), timeless(&plain));
    let zst_errors = std::fs::read(dir.path().join("out.errors.jsonl.zst")).unwrap();
    assert_eq!(
        String::from_utf8(zstd::decode_all(&zst_errors[..]).unwrap()).unwrap(),
        plain_errors
    );
}

/// One WARC record: its header (with `extra` header lines, each ending in CRLF) and block;
/// `content_length` is what the header claims (the block's length when `None`).
fn warc_record(
    kind: &str,
    uri: &str,
    extra: &str,
    block: &[u8],
    content_length: Option<usize>,
) -> Vec<u8> {
    let content_type = match kind {
        "request" => "application/http; msgtype=request",
        _ => "application/http; msgtype=response",
    };
    let mut bytes = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}-{uri}>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\nWARC-Target-URI: {uri}\r\n{extra}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        content_length.unwrap_or(block.len())
    )
    .into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\r\n\r\n");
    bytes
}

/// The HTTP response of a sample page, as a crawler stores it.
fn http_response(page: &Value) -> Vec<u8> {
    let html = page["html"].as_str().unwrap().as_bytes();
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        html.len()
    )
    .into_bytes();
    response.extend_from_slice(html);
    response
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The records one after the other, each its own gzip member when `gzip_members`.
fn concat(records: &[Vec<u8>], gzip_members: bool) -> Vec<u8> {
    let mut warc = Vec::new();
    for record in records {
        if gzip_members {
            warc.extend(gzip(record));
        } else {
            warc.extend_from_slice(record);
        }
    }
    warc
}

/// The text `extract` gives each of `pages` read as JSONL.
fn jsonl_texts(dir: &Path, pages: &[Value]) -> Vec<Value> {
    let mut jsonl = String::new();
    for page in pages {
        jsonl.push_str(&page.to_string());
        jsonl.push('\n');
    }
    let path = dir.join("pages.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    let out = dir.join("pages.out.jsonl");
    let (code, stderr) = extract(dir, path.to_str().unwrap(), &out, None);
    assert_eq!(code, 0, "{stderr}");
    read_jsonl(&out)
}

#[test]
fn a_warc_gz_with_empty_gzip_members_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_records(15);
    let expected = jsonl_texts(dir.path(), &pages);
    assert_eq!(expected.len(), 15);
    // An empty member as gzip writes it for an empty input: header and trailer, no data.
    let empty = gzip(b"");
    assert_eq!(empty.len(), 20);
    // Gzip per record, empty members first, between records (two in a row) and last; then a
    // whole-file member of five more pages.
    let mut warc = Vec::new();
    warc.extend_from_slice(&empty);
    warc.extend(sample_warc(&pages[..5], true));
    warc.extend_from_slice(&empty);
    warc.extend_from_slice(&empty);
    warc.extend(sample_warc(&pages[5..10], true));
    warc.extend_from_slice(&empty);
    warc.extend(gzip(&sample_warc(&pages[10..], false)));
    warc.extend_from_slice(&empty);
    let path = dir.path().join("empty-members.warc.gz");
    std::fs::write(&path, &warc).unwrap();
    for (input, stdin) in [(path.to_str().unwrap(), None), ("-", Some(&warc[..]))] {
        let out = dir.path().join(format!("empty-{}.jsonl", stdin.is_some()));
        let (code, stderr) = extract(dir.path(), input, &out, stdin);
        assert_eq!(code, 0, "{stderr}");
        let records = read_jsonl(&out);
        assert_eq!(texts(&records), texts(&expected), "{stderr}");
        assert_eq!(skipped(&stderr, "warcinfo"), 3, "{stderr}");
        assert_eq!(skipped(&stderr, "request"), 15, "{stderr}");
    }
}

#[test]
fn a_warc_record_whose_header_is_over_64_kib_is_passed_over_not_the_rest_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_records(4);
    let expected = jsonl_texts(dir.path(), &pages);
    let url = |i: usize| pages[i]["url"].as_str().unwrap().to_owned();
    // A header line of 70 KB (a cookie, say): the header is over the 64 KiB bound.
    let big = format!("X-Cookie: {}\r\n", "a".repeat(70_000));
    let records = [
        warc_record("response", &url(0), "", &http_response(&pages[0]), None),
        warc_record("response", &url(1), &big, &http_response(&pages[1]), None),
        warc_record("request", &url(2), &big, b"GET / HTTP/1.1\r\n\r\n", None),
        warc_record("response", &url(2), "", &http_response(&pages[2]), None),
        // Just within the bound: read as usual.
        warc_record("response", &url(3), "", &http_response(&pages[3]), None),
    ];
    for gzip_members in [false, true] {
        let warc = concat(&records, gzip_members);
        let path = dir.path().join(format!("big-header-{gzip_members}.warc"));
        std::fs::write(&path, &warc).unwrap();
        let out = dir.path().join(format!("big-header-{gzip_members}.jsonl"));
        let (code, stderr) = extract(dir.path(), path.to_str().unwrap(), &out, None);
        assert_eq!(code, 0, "{stderr}");
        let got = read_jsonl(&out);
        let urls: Vec<&str> = got.iter().map(|r| r["url"].as_str().unwrap()).collect();
        assert_eq!(urls, [url(0), url(2), url(3)], "{stderr}");
        assert_eq!(got[1]["text"], expected[2]["text"]);
        assert_eq!(got[2]["text"], expected[3]["text"]);
        // The response is a dead letter that names it; the request is counted; both warned.
        let errors = read_jsonl(
            &dir.path()
                .join(format!("big-header-{gzip_members}.errors.jsonl")),
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0]["error"]["kind"], "too-large", "{errors:?}");
        let message = errors[0]["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("header") && message.contains("65536"),
            "{message}"
        );
        assert_eq!(errors[0]["source"]["offset"], 2, "{errors:?}");
        assert_eq!(errors[0]["payload"], url(1), "{errors:?}");
        assert_eq!(skipped(&stderr, "WARC header over 64 KiB"), 1, "{stderr}");
        assert_eq!(
            stderr.matches("over the bound of 65536").count(),
            2,
            "{stderr}"
        );
    }
}

#[test]
fn a_short_content_length_is_read_to_the_next_record_and_the_page_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_records(3);
    let expected = jsonl_texts(dir.path(), &pages);
    let url = |i: usize| pages[i]["url"].as_str().unwrap().to_owned();
    // The block of the first and the last record is longer than its Content-Length says (by
    // more than half the page, as a writer that counts characters for bytes can leave it).
    let short = |i: usize| {
        let block = http_response(&pages[i]);
        let claimed = block.len() / 3;
        warc_record("response", &url(i), "", &block, Some(claimed))
    };
    let records = [
        short(0),
        warc_record("response", &url(1), "", &http_response(&pages[1]), None),
        short(2),
    ];
    for gzip_members in [false, true] {
        let warc = concat(&records, gzip_members);
        let name = format!("short-{gzip_members}.warc");
        let path = dir.path().join(&name);
        std::fs::write(&path, &warc).unwrap();
        let out = dir.path().join(format!("{name}.jsonl"));
        let (code, stderr) = extract(dir.path(), path.to_str().unwrap(), &out, None);
        assert_eq!(code, 0, "{stderr}");
        let got = read_jsonl(&out);
        assert_eq!(texts(&got), texts(&expected), "{stderr}");
        for i in [0, 2] {
            let warnings = got[i]["warnings"].as_array().expect("warnings");
            assert!(
                warnings
                    .iter()
                    .any(|w| w.as_str().unwrap().contains("Content-Length")),
                "{warnings:?}"
            );
        }
        assert!(got[1]["warnings"].as_array().is_none_or(|w| w.is_empty()));
        assert!(!dir
            .path()
            .join(format!("{name}.errors.jsonl"))
            .metadata()
            .is_ok_and(|m| m.len() > 0));
    }
}
