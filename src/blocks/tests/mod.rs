//! Tests of the block tokenizer on hand-written, real and hostile HTML, with shared helpers.

mod corpus;
mod handwritten;
mod hostile;
mod lexer;
mod marks;
mod props;

use super::{block_hash, Block, ParseLimits, Tokenizer};

/// Splits `html` with default limits.
fn split(html: &str) -> Vec<Block> {
    Tokenizer::new(ParseLimits::default())
        .blocks(html.as_bytes())
        .expect("blocks")
}

/// The texts of the blocks of `html`.
fn texts(html: &str) -> Vec<String> {
    split(html).into_iter().map(|b| b.text).collect()
}

/// Asserts every invariant a block must satisfy under `limits`.
fn check_invariants(blocks: &[Block], limits: &ParseLimits) {
    assert!(blocks.len() <= limits.max_blocks, "too many blocks");
    for b in blocks {
        assert!(!b.text.is_empty(), "empty block: {b:?}");
        assert!(!b.text.contains('\0'), "NUL in text: {b:?}");
        let collapsed;
        let t = if b.pre.is_some() {
            // Preformatted: white space as written, no blank line before the first visible
            // line, nothing trailing; counted as its collapsed form.
            let first_line = b.text.split('\n').next().unwrap_or_default();
            assert!(!first_line.trim().is_empty(), "leading blank line: {b:?}");
            assert_eq!(b.text.trim_end(), b.text, "trailing white space: {b:?}");
            assert!(
                !b.text
                    .chars()
                    .any(|c| c.is_whitespace() && !matches!(c, ' ' | '\t' | '\n')),
                "other white space: {b:?}"
            );
            collapsed = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
            &collapsed
        } else {
            &b.text
        };
        assert_eq!(t.trim(), t, "untrimmed: {b:?}");
        assert!(!t.contains("  "), "double space: {b:?}");
        assert!(
            !t.chars().any(|c| c.is_whitespace() && c != ' '),
            "non-space white space: {b:?}"
        );
        let kept = u32::try_from(t.chars().count()).expect("count");
        assert!(kept <= u32::try_from(limits.max_block_chars.max(1)).unwrap_or(u32::MAX));
        if b.truncated {
            assert!(b.chars > kept, "truncated but whole: {b:?}");
        } else {
            assert_eq!(b.chars, kept, "char count: {b:?}");
            assert_eq!(b.hash, block_hash(t), "hash: {b:?}");
            assert_eq!(b.hash.is_none(), !t.chars().any(char::is_alphabetic));
        }
        assert!(b.link_chars <= b.chars, "link chars: {b:?}");
        assert!(
            b.pre.is_none() || b.code_spans.is_empty(),
            "code in pre: {b:?}"
        );
        let mut last_end = 0;
        for &(start, end) in &b.code_spans {
            assert!(last_end <= start && start < end, "code spans: {b:?}");
            let (start, end) = (start as usize, end as usize);
            assert!(b.text.get(start..end).is_some(), "code span bounds: {b:?}");
            last_end = end as u32;
        }
        check_marks(b);
        let depth = if b.path.is_empty() {
            0
        } else {
            b.path.split('/').count()
        };
        assert!(depth <= limits.max_depth, "path too deep: {b:?}");
        assert!(b.path.split('/').all(|s| !s.is_empty()) || b.path.is_empty());
        assert_eq!(
            b.ancestors.len(),
            depth.min(limits.max_ancestors),
            "ancestors vs path: {b:?}"
        );
        assert!(
            b.ancestors.windows(2).all(|w| w[0] < w[1]),
            "ancestors out of order: {b:?}"
        );
    }
}

/// Asserts the invariants of a block's links, images and formulas: in order, not overlapping,
/// within its text and on character boundaries.
fn check_marks(b: &Block) {
    let on_boundary = |at: u32| b.text.is_char_boundary(at as usize);
    let mut last_end = 0;
    for l in &b.links {
        assert!(last_end <= l.start && l.start < l.end, "links: {b:?}");
        assert!(
            on_boundary(l.start) && on_boundary(l.end),
            "link bounds: {b:?}"
        );
        assert!(!l.href.is_empty() && l.href.trim() == l.href, "href: {b:?}");
        last_end = l.end;
    }
    let mut last_end = 0;
    for m in &b.math {
        assert!(last_end <= m.start && m.start < m.end, "math: {b:?}");
        assert!(
            on_boundary(m.start) && on_boundary(m.end),
            "math bounds: {b:?}"
        );
        last_end = m.end;
    }
    for i in &b.images {
        assert!(on_boundary(i.at), "image position: {b:?}");
        assert!(!i.src.is_empty(), "image source: {b:?}");
    }
}

/// One corpus record: the fields the tests use.
pub(super) struct Page {
    pub url: String,
    pub html: String,
    pub gold: String,
}

/// The first `limit` pages of a corpus set (stream order).
pub(super) fn corpus_pages(set: &str, limit: usize) -> Vec<Page> {
    use std::io::BufRead;
    let path = crate::corpus::require_shared_dir()
        .join(set)
        .join("docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .take(limit)
        .map(|line| {
            let v: serde_json::Value =
                serde_json::from_str(&line.expect("line")).expect("json record");
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            Page {
                url: field("url"),
                html: field("html"),
                gold: field("gold"),
            }
        })
        .collect()
}
