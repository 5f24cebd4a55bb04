"""The streaming example over a JSONL file and a WARC file, against `urltree extract`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "stream.py"


def _texts(path: Path) -> list[tuple[str, str]]:
    return [(r["url"], r["text"]) for r in map(json.loads, path.read_text().splitlines())]


@pytest.mark.parametrize(
    "input_, reader",
    [
        ("samples/rust-books.jsonl.gz", []),
        ("samples/rust-books.jsonl.gz", ["--lines"]),
        ("tests/data/warc/wget-pages.warc.gz", []),
    ],
)
def test_the_example_streams_a_crawl_like_the_cli(repo, urltree_bin, tmp_path, input_, reader):
    source = repo / input_
    out = tmp_path / "example.jsonl"
    state = tmp_path / "state"
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), str(source), "-o", str(out), "--state", str(state), *reader],
        capture_output=True,
        text=True,
        check=True,
    )
    assert " pages, " in result.stderr
    cli = tmp_path / "cli.jsonl"
    subprocess.run(
        [str(urltree_bin), "extract", str(source), "-o", str(cli), "--state",
         str(tmp_path / "cli-state"), "--jobs", "1", "-q"],
        check=True,
        capture_output=True,
        env={**os.environ, "RUST_LOG": "error"},
    )
    assert _texts(out) == _texts(cli)
    assert len(_texts(out)) >= 3
    # A second run over the same state has learned every page already.
    again = subprocess.run(
        [sys.executable, str(EXAMPLE), str(source), "-o", str(tmp_path / "again.jsonl"),
         "--state", str(state), *reader],
        capture_output=True,
        text=True,
        check=True,
    )
    assert again.stderr.startswith("0 pages"), again.stderr
