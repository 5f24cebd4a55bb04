#!/usr/bin/env bash
# The Kafka benchmark: end-to-end throughput and latency through a local tansu broker (1 and 2
# workers, exactly-once) and the restore of a partition holding 10,000 documents from the
# changelog. Both are ignored tests of tests/kafka/worker.rs run in release; they start their own
# broker (target/tools/tansu from scripts/test-tools, or URLTREE_TANSU) and fail when it cannot start.
#
#   benches/kafka.sh      # the crawl-to-the-future set of the shared corpus
#   URLTREE_KAFKA_BENCH_CORPUS=../shared/corpus/NAME/docs.jsonl.gz benches/kafka.sh
#
# Both need the shared corpus (URLTREE_CORPUS_DIR, or shared/corpus beside the checkout). The
# test's own fallback, the 200-page Rust-books sample, is one domain in one partition and fits in
# a single batch, too small for a throughput figure.
# Numbers go to stdout; the throughput and latency runs are also written as JSON to
# URLTREE_KAFKA_BENCH_OUT (default target/kafka-bench.json), printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus_dir="${URLTREE_CORPUS_DIR:-../shared/corpus}"
if [ -z "${URLTREE_KAFKA_BENCH_CORPUS:-}" ]; then
    export URLTREE_KAFKA_BENCH_CORPUS="$corpus_dir/crawl-to-the-future/docs.jsonl.gz"
fi
if [ ! -f "$URLTREE_KAFKA_BENCH_CORPUS" ]; then
    echo "benches/kafka.sh: $URLTREE_KAFKA_BENCH_CORPUS not found (set URLTREE_CORPUS_DIR or" \
        "URLTREE_KAFKA_BENCH_CORPUS)" >&2
    exit 1
fi

scripts/test-tools
for test in throughput_through_the_broker restore_speed_of_10000_documents; do
    cargo test --release --locked --test kafka -- --ignored --exact "worker::$test" --nocapture
done

out="${URLTREE_KAFKA_BENCH_OUT:-target/kafka-bench.json}"
echo "== $out"
cat "$out"
echo
