//! Length of the longest common subsequence of two token-id sequences, computed bit-parallel
//! (Allison–Dix, in Hyyrö's formulation): one `u64` word per 64 tokens of the shorter sequence,
//! one pass over the longer one, O(n·m/64) time and O(m) memory beyond the match masks.

use std::collections::HashMap;

/// Symbols occurring at least this often in the shorter sequence (or `m / 256` times, if more)
/// get a precomputed match mask; rarer ones build theirs per row from their position list. This
/// bounds the mask table to at most `256 · m/64` words whatever the alphabet.
const DENSE_MIN_COUNT: usize = 64;

/// Length of the longest common subsequence of `a` and `b`: exact (for sequences below 2^31
/// tokens; beyond that only the common prefix and suffix count), symmetric, at most
/// `min(a.len(), b.len())`, and equal to `a.len()` when `a == b`. Never panics.
pub fn lcs_len(a: &[u32], b: &[u32]) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    prefix + suffix + bit_parallel(short, long)
}

/// Where a symbol of the shorter sequence keeps its match mask.
#[derive(Debug, Clone, Copy)]
struct Symbol {
    /// Index of its row in the dense mask table, or `u32::MAX` when it has none.
    dense: u32,
    /// Its positions in the shorter sequence: `positions[start..end]`, ascending.
    start: u32,
    end: u32,
}

/// Symbol id → index into the symbol table; a flat vector when ids are small, else a hash map.
enum SymbolIndex {
    Flat(Vec<u32>),
    Hashed(HashMap<u32, u32>),
}

impl SymbolIndex {
    fn for_sequences(short: &[u32], long: &[u32]) -> Self {
        let max = short.iter().copied().max().unwrap_or(0) as usize;
        if max <= 4 * (short.len() + long.len()) + 1024 {
            SymbolIndex::Flat(vec![u32::MAX; max + 1])
        } else {
            SymbolIndex::Hashed(HashMap::with_capacity(short.len()))
        }
    }

    fn get(&self, symbol: u32) -> Option<usize> {
        match self {
            SymbolIndex::Flat(v) => match v.get(symbol as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            },
            SymbolIndex::Hashed(m) => m.get(&symbol).map(|&i| i as usize),
        }
    }

    /// The index of `symbol`, or `next` after recording it (then the caller must push a symbol).
    fn get_or_insert(&mut self, symbol: u32, next: usize) -> usize {
        if let Some(i) = self.get(symbol) {
            return i;
        }
        let next32 = next as u32;
        match self {
            SymbolIndex::Flat(v) => {
                if let Some(slot) = v.get_mut(symbol as usize) {
                    *slot = next32;
                }
            }
            SymbolIndex::Hashed(m) => {
                m.insert(symbol, next32);
            }
        }
        next
    }
}

/// LCS length by the bit-vector recurrence `V' = (V + (V & M)) | (V & !M)` over the bits of
/// `short`; the answer is the number of zero bits of `V` at the end.
fn bit_parallel(short: &[u32], long: &[u32]) -> usize {
    let m = short.len();
    if m == 0 || long.is_empty() {
        return 0;
    }
    // Sequences longer than u32 positions cannot be indexed compactly; they also cannot be
    // scored in reasonable time, so the bound is never a practical limit.
    if m > u32::MAX as usize / 2 {
        return 0;
    }
    let words = m.div_ceil(64);

    // Symbol table with positions in CSR layout.
    let mut index = SymbolIndex::for_sequences(short, long);
    let mut counts: Vec<u32> = Vec::new();
    let mut sym_of_pos: Vec<u32> = Vec::with_capacity(m);
    for &s in short {
        let i = index.get_or_insert(s, counts.len());
        if i == counts.len() {
            counts.push(0);
        }
        counts[i] += 1;
        sym_of_pos.push(i as u32);
    }
    let dense_min = DENSE_MIN_COUNT.max(m / 256);
    let mut symbols = Vec::with_capacity(counts.len());
    let mut offset = 0u32;
    let mut dense_rows = 0u32;
    for &count in &counts {
        let dense = if count as usize >= dense_min {
            dense_rows += 1;
            dense_rows - 1
        } else {
            u32::MAX
        };
        symbols.push(Symbol {
            dense,
            start: offset,
            end: offset,
        });
        offset += count;
    }
    let mut positions = vec![0u32; m];
    let mut masks = vec![0u64; dense_rows as usize * words];
    for (pos, &i) in sym_of_pos.iter().enumerate() {
        let sym = &mut symbols[i as usize];
        positions[sym.end as usize] = pos as u32;
        sym.end += 1;
        if sym.dense != u32::MAX {
            masks[sym.dense as usize * words + pos / 64] |= 1u64 << (pos % 64);
        }
    }
    drop(sym_of_pos);

    let mut v = vec![u64::MAX; words];
    let mut scratch = vec![0u64; words];
    for &s in long {
        let Some(i) = index.get(s) else { continue };
        let sym = symbols[i];
        let pos = &positions[sym.start as usize..sym.end as usize];
        let (Some(&first), Some(&last)) = (pos.first(), pos.last()) else {
            continue;
        };
        let (first, last) = (first as usize / 64, last as usize / 64);
        if sym.dense != u32::MAX {
            let row = sym.dense as usize * words;
            step(&mut v, &masks[row..row + words], first, last);
        } else {
            for &p in pos {
                scratch[p as usize / 64] |= 1u64 << (p % 64);
            }
            step(&mut v, &scratch, first, last);
            for &p in pos {
                scratch[p as usize / 64] = 0;
            }
        }
    }

    let mut ones = 0usize;
    for (k, &word) in v.iter().enumerate() {
        let valid = if k + 1 == words && !m.is_multiple_of(64) {
            (1u64 << (m % 64)) - 1
        } else {
            u64::MAX
        };
        ones += (word & valid).count_ones() as usize;
    }
    m - ones
}

/// One row of the recurrence for a match mask whose non-zero words lie in `first..=last`: words
/// below `first` cannot change, and above `last` only a carry moves, so the loop stops as soon as
/// it dies out.
#[inline]
fn step(v: &mut [u64], mask: &[u64], first: usize, last: usize) {
    let mut carry = false;
    let end = (last + 1).min(v.len()).min(mask.len());
    let start = first.min(end);
    for (x, &mk) in v[start..end].iter_mut().zip(&mask[start..end]) {
        let u = *x & mk;
        let (sum, c1) = x.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        carry = c1 | c2;
        *x = sum | (*x & !mk);
    }
    for x in v.iter_mut().skip(end) {
        if !carry {
            break;
        }
        let (sum, c) = x.overflowing_add(1);
        carry = c;
        *x |= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Instant;

    /// The textbook O(n·m) dynamic programme, for reference.
    fn lcs_dp(a: &[u32], b: &[u32]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        let mut cur = vec![0usize; b.len() + 1];
        for &x in a {
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    cur[j].max(prev[j + 1])
                };
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[b.len()]
    }

    /// Deterministic pseudo-random sequence (xorshift) over `alphabet` symbols.
    fn pseudo_random(len: usize, alphabet: u32, seed: u64) -> Vec<u32> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % u64::from(alphabet)) as u32
            })
            .collect()
    }

    #[test]
    fn hand_computed_cases() {
        assert_eq!(lcs_len(&[], &[]), 0);
        assert_eq!(lcs_len(&[1, 2, 3], &[]), 0);
        assert_eq!(lcs_len(&[1, 2, 3], &[4, 5]), 0);
        assert_eq!(lcs_len(&[1, 2, 3], &[1, 2, 3]), 3);
        // ABCBDAB vs BDCABA: classic, LCS 4 (BCBA).
        assert_eq!(lcs_len(&[1, 2, 3, 2, 4, 1, 2], &[2, 4, 3, 1, 2, 1]), 4);
        assert_eq!(lcs_len(&[7, 7, 7], &[7]), 1);
    }

    #[test]
    fn large_ids_use_the_hashed_index() {
        let a = [u32::MAX, 5, u32::MAX - 1, 9];
        let b = [5, u32::MAX - 1, 1, u32::MAX, 9];
        assert_eq!(lcs_len(&a, &b), lcs_dp(&a, &b));
        assert_eq!(lcs_len(&a, &b), 3);
    }

    #[test]
    fn dense_and_sparse_masks_across_many_words_match_the_dp() {
        // Small alphabet: every symbol dense; large alphabet: all sparse; mixed in between.
        for (alphabet, seed) in [(2u32, 3u64), (30, 5), (400, 7), (5000, 11)] {
            let a = pseudo_random(1500, alphabet, seed);
            let b = pseudo_random(1300, alphabet, seed + 100);
            assert_eq!(lcs_len(&a, &b), lcs_dp(&a, &b), "alphabet {alphabet}");
        }
    }

    #[test]
    fn thirty_thousand_squared_is_fast_enough() {
        let a = pseudo_random(30_000, 3000, 1);
        let b = pseudo_random(30_000, 3000, 2);
        let t = Instant::now();
        let l = lcs_len(&a, &b);
        let elapsed = t.elapsed();
        assert!(l > 0 && l < 30_000);
        // Debug builds are far slower; the release figure is well under 100 ms.
        let limit = if cfg!(debug_assertions) { 20.0 } else { 0.1 };
        assert!(elapsed.as_secs_f64() < limit, "took {elapsed:?}");
    }

    proptest! {
        #[test]
        fn equals_the_dp(
            alphabet in 1u32..12,
            a in proptest::collection::vec(0u32..1000, 0..300),
            b in proptest::collection::vec(0u32..1000, 0..300),
        ) {
            let a: Vec<u32> = a.into_iter().map(|x| x % alphabet).collect();
            let b: Vec<u32> = b.into_iter().map(|x| x % alphabet).collect();
            prop_assert_eq!(lcs_len(&a, &b), lcs_dp(&a, &b));
            prop_assert_eq!(lcs_len(&b, &a), lcs_dp(&a, &b));
        }

        #[test]
        fn equals_the_dp_with_shared_prefix_and_suffix(
            head in proptest::collection::vec(0u32..4, 0..80),
            a in proptest::collection::vec(0u32..4, 0..200),
            b in proptest::collection::vec(0u32..4, 0..200),
            tail in proptest::collection::vec(0u32..4, 0..80),
        ) {
            let a: Vec<u32> = head.iter().chain(&a).chain(&tail).copied().collect();
            let b: Vec<u32> = head.iter().chain(&b).chain(&tail).copied().collect();
            prop_assert_eq!(lcs_len(&a, &b), lcs_dp(&a, &b));
        }
    }
}
