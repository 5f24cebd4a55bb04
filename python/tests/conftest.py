"""Fixtures over real pages: the bundled sample, the shared corpus and the `urltree` binary."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _corpus_dir() -> Path:
    explicit = os.environ.get("URLTREE_CORPUS_DIR")
    if explicit:
        return Path(explicit)
    for parent in [REPO, *REPO.parents]:
        candidate = parent / "shared" / "corpus"
        if candidate.is_dir():
            return candidate
    raise RuntimeError(
        "evaluation corpus not found: put shared/corpus beside the checkout or set URLTREE_CORPUS_DIR"
    )


def read_jsonl_gz(path: Path, limit: int | None = None) -> list[bytes]:
    lines = []
    with gzip.open(path, "rb") as f:
        for line in f:
            if line.strip():
                lines.append(line.rstrip(b"\n"))
            if limit is not None and len(lines) >= limit:
                break
    return lines


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return REPO / "samples" / "rust-books.jsonl.gz"


@pytest.fixture(scope="session")
def sample_lines(sample_path: Path) -> list[bytes]:
    return read_jsonl_gz(sample_path)


@pytest.fixture(scope="session")
def corpus() -> Path:
    return _corpus_dir()


@pytest.fixture(scope="session")
def urltree_bin() -> Path:
    """The `urltree` binary of this checkout: $URLTREE_BIN, else target/debug or target/release
    (`cargo build` makes it; `cargo test` too)."""
    explicit = os.environ.get("URLTREE_BIN")
    candidates = [Path(explicit)] if explicit else [
        REPO / "target" / "debug" / "urltree",
        REPO / "target" / "release" / "urltree",
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise RuntimeError(
        f"no urltree binary at {', '.join(map(str, candidates))}: run `cargo build` first"
    )


def corpus_pages(corpus: Path, per_set: int) -> list[dict]:
    """The first `per_set` pages of distinct domains of every shared set."""
    pages = []
    for docs in sorted(corpus.glob("*/docs.jsonl.gz")):
        seen: set[str] = set()
        with gzip.open(docs, "rt", encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if record["domain"] in seen or "html" not in record:
                    continue
                seen.add(record["domain"])
                record["set"] = docs.parent.name
                pages.append(record)
                if len(seen) >= per_set:
                    break
    return pages
