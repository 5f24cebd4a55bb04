"""Stream a crawl through urltree's Extractor and write the clean-text records as JSONL.

The input is a WARC file (plain or gzip), a raw-html JSONL file (plain or gzip), or a folder of
them and of .html pages. urltree reads it with its own reader, as ``urltree extract`` does;
with ``--lines`` a JSONL input is read here instead, line by line, and handed to
``extract_many`` (the way to feed records from any Python source: a queue, a database, ...).

    python python/examples/stream.py crawl.warc.gz -o clean.jsonl --state crawl-state

The state directory keeps what the URL Tree learned of each site: the next run over the same
sites starts from it (and skips the pages it already holds). Without ``--state`` a temporary
one is used and removed at the end.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Iterator

import urltree


def jsonl_lines(path: Path) -> Iterator[bytes]:
    """The lines of a JSONL file, plain or gzip, as bytes (no parsing: the engine reads them)."""
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rb") as lines:
        for line in lines:
            if line.strip():
                yield line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", type=Path, help="WARC, JSONL or a folder")
    parser.add_argument("-o", "--output", type=Path, help="clean-text JSONL (default: stdout)")
    parser.add_argument("--errors", type=Path, help="dead letters as JSONL (default: dropped, counted)")
    parser.add_argument("--state", type=Path, help="state directory kept between runs")
    parser.add_argument("--markdown", action="store_true", help="add each page's Markdown")
    parser.add_argument("--lines", action="store_true", help="read a JSONL input here, line by line")
    args = parser.parse_args(argv)

    output = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
    errors = args.errors.open("w", encoding="utf-8") if args.errors else None
    started = time.perf_counter()
    pages = dead = 0
    with urltree.Extractor(args.state, markdown=args.markdown) as extractor:
        if args.lines:
            records = extractor.extract_many(jsonl_lines(args.input))
        else:
            records = extractor.extract_file(args.input)
        for record in records:
            if "error" in record:
                dead += 1
                if errors:
                    errors.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            pages += 1
            output.write(json.dumps(record, ensure_ascii=False) + "\n")
        stats = extractor.stats
    if output is not sys.stdout:
        output.close()
    if errors:
        errors.close()
    seconds = time.perf_counter() - started
    print(
        f"{pages} pages, {stats['duplicates']} duplicates, {dead} invalid, "
        f"{pages / max(seconds, 1e-9):.1f} pages/s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
