"""`urltree.Extractor`: the URL Tree over a stream, as `urltree extract` runs it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import threading

import pytest

import urltree
from conftest import read_jsonl_gz


def _comparable(record: dict) -> dict:
    record = dict(record)
    record.pop("processed_at", None)
    record.pop("source", None)
    return record


def test_a_stream_gives_what_urltree_extract_gives(sample_path, sample_lines, urltree_bin, tmp_path):
    out = tmp_path / "cli.jsonl"
    subprocess.run(
        [str(urltree_bin), "extract", str(sample_path), "-o", str(out), "--state",
         str(tmp_path / "cli-state"), "--jobs", "1", "-q"],
        check=True,
        capture_output=True,
        env={**os.environ, "RUST_LOG": "error"},
    )
    cli = [json.loads(line) for line in out.read_text().splitlines()]
    with urltree.Extractor() as extractor:
        python = list(extractor.extract_many(sample_lines))
        stats = extractor.stats
    assert len(python) == len(cli) == stats["pages"] > 150
    assert stats["records"] == len(sample_lines)
    learned = 0
    for got, want in zip(python, cli):
        assert _comparable(got) == _comparable(want), want["url"]
        learned += not got["model"]["cold_start"]
    assert learned > 100, "the tree decided the later pages"
    # Input order, numbered from 1.
    offsets = [r["source"]["offset"] for r in python]
    assert offsets == sorted(offsets) and offsets[0] == 1


def test_records_may_be_dicts_str_or_bytes_and_come_out_in_order(sample_lines):
    records = [json.loads(line) for line in sample_lines[:60]]
    mixed = []
    for n, record in enumerate(records):
        if n % 3 == 0:
            mixed.append(record)
        elif n % 3 == 1:
            mixed.append(json.dumps(record))
        else:
            as_bytes = dict(record)
            as_bytes["html"] = record["html"].encode("utf-8")
            mixed.append(as_bytes)
    with urltree.Extractor(config={"input": {"batch_size": 16}}) as extractor:
        got = list(extractor.extract_many(mixed))
    with urltree.Extractor(config={"input": {"batch_size": 16}}) as extractor:
        want = list(extractor.extract_many(sample_lines[:60]))
    assert [r["url"] for r in got] == [r["url"] for r in want]
    assert [r["text"] for r in got] == [r["text"] for r in want]


def test_bad_records_are_yielded_as_dead_letters_in_place(sample_lines):
    records = [
        sample_lines[0],
        b"{not json",
        {"url": "mailto:x@example.org", "html": "<p>x</p>"},
        {"html": "<p>no url</p>"},
        {"url": 5, "html": "x"},
        sample_lines[1],
        sample_lines[0],  # a duplicate: counted, not yielded
    ]
    with urltree.Extractor() as extractor:
        out = list(extractor.extract_many(records))
        assert extractor.stats["duplicates"] == 1
        assert extractor.stats["rejected"] == 4
        skipped = list(extractor.extract_many(records[1:5], errors="skip"))
    kinds = [r["error"]["kind"] if "error" in r else "clean" for r in out]
    assert kinds == ["clean", "invalid-json", "bad-url", "missing-field", "invalid-field", "clean"]
    assert out[1]["payload"] == "{not json"
    assert [r["source"]["offset"] for r in out] == [1, 2, 3, 4, 5, 6]
    assert skipped == []
    with pytest.raises(TypeError, match="record 1"):
        with urltree.Extractor() as extractor:
            list(extractor.extract_many([12]))
    with pytest.raises(TypeError, match="record 2 cannot be a JSON record"):
        with urltree.Extractor() as extractor:
            list(extractor.extract_many([{"url": "http://a.org/", "html": "x"}, {"url": {1, 2}}]))


def test_a_named_state_persists_and_a_temporary_one_is_removed(tmp_path, sample_lines):
    record = json.loads(sample_lines[0])
    state = tmp_path / "state"
    with urltree.Extractor(state) as extractor:
        assert extractor.path == state
        first = extractor.extract(record["url"], record["html"], title=record.get("title"))
        assert first is not None and first["text"]
        assert extractor.extract(record["url"], record["html"], title=record.get("title")) is None
    assert (state / "CURRENT").is_file()
    with urltree.Extractor(state) as extractor:
        assert extractor.extract(record["url"], record["html"], title=record.get("title")) is None
        changed = extractor.extract(record["url"], record["html"].replace("Rust", "Rost"))
        assert changed is not None, "a new version of the page"
        assert extractor.stats["versions"] == 1
    extractor = urltree.Extractor()
    temporary = extractor.path
    assert temporary.is_dir() and "temporary" in repr(extractor)
    extractor.close()
    extractor.close()
    assert not temporary.exists()
    assert extractor.closed and "closed" in repr(extractor)
    with pytest.raises(urltree.ClosedError):
        extractor.extract(record["url"], record["html"])
    with pytest.raises(urltree.ClosedError):
        list(extractor.extract_many(sample_lines[:2]))


def test_a_state_written_by_the_cli_is_read_with_its_shards(sample_path, sample_lines, urltree_bin, tmp_path):
    state = tmp_path / "state"
    subprocess.run(
        [str(urltree_bin), "extract", str(sample_path), "-o", str(tmp_path / "out.jsonl"),
         "--state", str(state), "--jobs", "2", "-q"],
        check=True,
        capture_output=True,
        env={**os.environ, "RUST_LOG": "error"},
    )
    with urltree.Extractor(state) as extractor:
        assert list(extractor.extract_many(sample_lines)) == []
        assert extractor.stats["duplicates"] == len(sample_lines)


def test_errors_of_the_state_and_the_extract_call(tmp_path, sample_lines):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(urltree.StateError):
        urltree.Extractor(blocker)
    state = tmp_path / "busy"
    with urltree.Extractor(state):
        with pytest.raises(urltree.StateError, match="lock"):
            urltree.Extractor(state)
    with pytest.raises(urltree.ConfigError, match="batch_size"):
        urltree.Extractor(config={"input": {"batch_size": 0}})
    with urltree.Extractor() as extractor:
        with pytest.raises(urltree.BadUrlError):
            extractor.extract("ftp://example.org/a", "<p>x</p>")
        with pytest.raises(urltree.DomainMismatchError):
            extractor.extract("https://example.org/a", "<p>x</p>", domain="example.com")
        with pytest.raises(TypeError):
            extractor.extract("https://example.org/a", None)
        record = extractor.extract(
            "https://example.org/a",
            "<p>A paragraph with enough words to be taken for the text of the page.</p>",
            fetched_at="2025-01-02T03:04:05Z",
            headers={"Content-Type": "text/html; charset=utf-8"},
        )
        assert record["fetched_at"] == "2025-01-02T03:04:05Z"
        assert record["processed_at"] == "2025-01-02T03:04:05Z"


def test_extractors_on_two_threads_give_the_same_records(corpus):
    lines = read_jsonl_gz(corpus / "crawl-to-the-future" / "docs.jsonl.gz", limit=120)
    results: dict[int, list] = {}

    # The corpus's `domain` names the collection site, where a page was served from another host.
    config = {"input": {"domain_check": "trust-record"}}

    def run(n: int) -> None:
        with urltree.Extractor(config=config) as extractor:
            results[n] = [r["text"] for r in extractor.extract_many(lines)]

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0] == results[1] and len(results[0]) > 100
