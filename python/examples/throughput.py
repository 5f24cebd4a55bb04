"""Pages per second of ``Extractor.extract_many`` against ``urltree extract --jobs 1`` on the same
corpus, interleaved in one run, each on a fresh temporary state; prints the ratio per round.

    python python/examples/throughput.py ../shared/corpus/crawl-to-the-future --bin target/release/urltree

Both sides read the same gzip JSONL file: the CLI with its own reader, Python line by line with
``gzip`` (records passed as bytes) or, with ``--dicts``, parsed with ``json.loads`` first. CPU
seconds (user + system) are reported beside wall seconds: on a shared machine they are the
steadier measure.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import urltree


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_cli(binary: Path, corpus: Path) -> tuple[int, float, float]:
    with tempfile.TemporaryDirectory() as state:
        cpu, wall = cpu_children(), time.perf_counter()
        result = subprocess.run(
            [str(binary), "extract", str(corpus), "-o", os.devnull, "--state", state,
             "--jobs", "1", "-q", "--trust-record-domain"],
            capture_output=True, text=True, check=True,
        )
        wall, cpu = time.perf_counter() - wall, cpu_children() - cpu
    pages = int(result.stderr.split("urltree extract: ")[1].split(" pages")[0])
    return pages, wall, cpu


def run_python(corpus: Path, dicts: bool) -> tuple[int, float, float]:
    cpu, wall = cpu_self(), time.perf_counter()
    pages = 0
    config = {"input": {"domain_check": "trust-record"}}
    with gzip.open(corpus, "rb") as lines, urltree.Extractor(config=config) as extractor:
        records = (json.loads(line) for line in lines) if dicts else lines
        for record in extractor.extract_many(records, errors="skip"):
            pages += 1
    return pages, time.perf_counter() - wall, cpu_self() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a docs.jsonl.gz or the folder holding one")
    parser.add_argument("--bin", type=Path, default=Path("target/release/urltree"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dicts", action="store_true", help="hand Python dicts, not JSON lines")
    args = parser.parse_args()
    corpus = args.corpus / "docs.jsonl.gz" if args.corpus.is_dir() else args.corpus
    print("round  cli pages/s (cpu)  python pages/s (cpu)  ratio wall  ratio cpu")
    for n in range(1, args.rounds + 1):
        cli_pages, cli_wall, cli_cpu = run_cli(args.bin, corpus)
        py_pages, py_wall, py_cpu = run_python(corpus, args.dicts)
        if py_pages != cli_pages:
            print(f"pages differ: cli {cli_pages}, python {py_pages}", file=sys.stderr)
            return 1
        print(
            f"{n:5}  {cli_pages / cli_wall:8.1f} ({cli_pages / cli_cpu:6.1f})"
            f"  {py_pages / py_wall:11.1f} ({py_pages / py_cpu:6.1f})"
            f"  {cli_wall / py_wall:10.2f}  {cli_cpu / py_cpu:9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
