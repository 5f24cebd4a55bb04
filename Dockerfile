# urltree container image: `docker build -t urltree .`
#
# The build stage compiles against Debian's RocksDB 7.8 (see docs/building.md), OpenSSL and zstd
# (librdkafka's TLS/SASL and zstd codec); the runtime stage is Debian slim with only those
# libraries' runtime packages, the binary and the default URL rules, running as an unprivileged
# user. tests/it/dockerfile.rs checks that the runtime packages cover every shared library the binary
# links.

FROM rust:1-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libclang-dev librocksdb-dev libssl-dev libzstd-dev pkg-config cmake \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin urltree \
 && strip target/release/urltree

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends librocksdb7.8 libssl3 libzstd1 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin urltree \
 && mkdir -p /var/lib/urltree && chown 10001:10001 /var/lib/urltree
COPY --from=build /src/target/release/urltree /usr/local/bin/urltree
COPY rules/ /etc/urltree/rules/
ENV URLTREE_STATE__PATH=/var/lib/urltree
USER 10001:10001
WORKDIR /var/lib/urltree
ENTRYPOINT ["urltree"]
CMD ["run"]
