//! The partitioner of Kafka's Java clients for keyed records (`Utils.murmur2`, librdkafka's
//! `murmur2_random`): `(murmur2(key) & 0x7fffffff) % partitions`. Producers that agree on it
//! put a key's records on the same partition, whichever client sent them.

/// Kafka's 32-bit murmur2 hash of `data` (seed `0x9747b28c`), as the Java client's
/// `Utils.murmur2` returns it (a signed `int`).
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h = SEED ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, byte) in tail.iter().enumerate().rev() {
            h ^= u32::from(*byte) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// The partition of a record keyed `key` in a topic of `partitions` partitions (positive):
/// `(murmur2(key) & 0x7fffffff) % partitions`, the Java clients' choice for keyed records.
pub fn partition_for(key: &[u8], partitions: i32) -> i32 {
    let positive = murmur2(key) & 0x7fff_ffff;
    positive % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's own vectors (`UtilsTest.testMurmur2` of the Java clients), and the empty key.
    #[test]
    fn murmur2_gives_the_java_clients_values() {
        let cases: [(&[u8], i32); 7] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
            (b"", 275_646_681),
        ];
        for (key, expected) in cases {
            assert_eq!(murmur2(key), expected, "{:?}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn partitions_are_the_positive_hash_modulo_the_count() {
        // murmur2("foobar") = -790332482; & 0x7fffffff = 1357151166; % 50 = 16.
        assert_eq!(partition_for(b"foobar", 50), 16);
        // A negative hash is made positive by masking, not by taking the absolute value.
        assert_eq!(
            partition_for(b"21", 1000),
            (-973_932_308i32 & 0x7fff_ffff) % 1000
        );
        for key in [&b"rust-lang.org"[..], b"example.com", b""] {
            for partitions in 1..=12 {
                let p = partition_for(key, partitions);
                assert!((0..partitions).contains(&p), "{p} of {partitions}");
            }
            assert_eq!(partition_for(key, 1), 0);
        }
    }
}
