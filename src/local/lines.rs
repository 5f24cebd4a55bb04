//! A line reader with a length bound: a hostile input cannot make it buffer more than the bound.

use std::io::{self, BufRead, BufReader, Read};

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its newline) and its 1-based number.
    Record {
        /// 1-based line number.
        number: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A line over the bound: its first bytes, its full length and its number.
    TooLong {
        /// 1-based line number.
        number: u64,
        /// The first `max` bytes.
        prefix: Vec<u8>,
        /// Full length in bytes.
        len: usize,
    },
}

/// Splits a byte stream into lines of at most `max` bytes; blank lines are skipped (but counted).
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    number: u64,
}

impl<R: Read> LineReader<R> {
    /// Wraps a reader.
    pub fn new(inner: R, max: usize) -> LineReader<R> {
        LineReader {
            inner: BufReader::with_capacity(1 << 16, inner),
            max,
            number: 0,
        }
    }

    /// The number of the last line read (blank ones included): the position of a read error.
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// The next non-blank line, or `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            let mut bytes = Vec::new();
            let mut len = 0usize;
            let mut saw_any = false;
            loop {
                let chunk = self.inner.fill_buf()?;
                if chunk.is_empty() {
                    break;
                }
                saw_any = true;
                let (take, done) = match memchr::memchr(b'\n', chunk) {
                    Some(i) => (i, true),
                    None => (chunk.len(), false),
                };
                let room = self.max.saturating_sub(bytes.len());
                bytes.extend_from_slice(&chunk[..take.min(room)]);
                len += take;
                self.inner.consume(if done { take + 1 } else { take });
                if done {
                    break;
                }
            }
            if !saw_any {
                return Ok(None);
            }
            self.number += 1;
            if bytes.last() == Some(&b'\r') && len <= self.max {
                bytes.pop();
                len -= 1;
            }
            if len > self.max {
                return Ok(Some(Line::TooLong {
                    number: self.number,
                    prefix: bytes,
                    len,
                }));
            }
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Ok(Some(Line::Record {
                number: self.number,
                bytes,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn splits_and_numbers_lines() {
        let lines = all(b"a\r\n\n  \nbc\nlast", 10);
        assert_eq!(
            lines,
            vec![
                Line::Record {
                    number: 1,
                    bytes: b"a".to_vec()
                },
                Line::Record {
                    number: 4,
                    bytes: b"bc".to_vec()
                },
                Line::Record {
                    number: 5,
                    bytes: b"last".to_vec()
                },
            ]
        );
    }

    #[test]
    fn long_lines_are_bounded() {
        let mut input = vec![b'x'; 200_000];
        input.extend_from_slice(b"\nok\n");
        let lines = all(&input, 100);
        assert_eq!(lines.len(), 2);
        match &lines[0] {
            Line::TooLong {
                number,
                prefix,
                len,
            } => {
                assert_eq!((*number, prefix.len(), *len), (1, 100, 200_000));
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
        assert_eq!(
            lines[1],
            Line::Record {
                number: 2,
                bytes: b"ok".to_vec()
            }
        );
    }
}
