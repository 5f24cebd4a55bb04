//! The bytes a WARC file's records are parsed from: decompressed here (gzip per record or
//! whole with `zlib-rs`, the inflater `fastwarc` uses; zstd and lz4 by `fastwarc`'s decoders)
//! into a buffer that looks ahead, so that
//!
//! - an empty gzip member (or zstd frame) is passed over, not taken for the end of the file;
//! - a record's header is known to fit the header bound before `fastwarc` parses it, and a
//!   record whose header does not is passed over whole, its block skipped by its
//!   `Content-Length` ([`WarcStream::ahead`]);
//! - the bytes after a page's block are looked at before the page is taken, so that a
//!   `Content-Length` shorter than the block is seen and the block read to its end
//!   ([`WarcStream::overrun`]).
//!
//! Records are handed to `fastwarc` one at a time on this stream and the stream is taken back
//! after each ([`WarcStream`] is the reader `fastwarc` reads).

use std::any::Any;
use std::io::{self, BufRead, Read, Seek, SeekFrom};

use fastwarc::stream_io::lz4::Lz4Reader;
use fastwarc::stream_io::traits::WarcRead;
use fastwarc::stream_io::zstd::ZstdReader;
use memchr::{memchr, memmem};
use zlib_rs::{Inflate, InflateFlush, Status};

/// The buffer's usual size; it grows only to hold a header or a page's overrun whole.
const BUFFER_BYTES: usize = 256 << 10;

/// Bytes of lines that are no WARC record's start looked through before a record's header is
/// left to `fastwarc` unchecked.
const JUNK_BYTES: usize = 64 << 10;

/// Bytes of each line of an oversized header kept for reading its fields.
const LINE_BYTES: usize = 8 << 10;

/// A WARC stream, decompressed, read through a look-ahead buffer.
pub struct WarcStream {
    source: Source,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// A read error met with bytes still held (reading ahead), answered once they are used
    /// up: a record complete before a corrupt stretch is taken.
    deferred: Option<io::Error>,
    /// Bytes consumed so far (decompressed).
    position: u64,
}

/// Where the bytes come from.
enum Source {
    /// Not read yet: its first bytes decide whether it is compressed.
    Unsniffed(Option<Box<dyn Read + Send>>),
    /// A plain WARC.
    Plain(Box<dyn Read + Send>),
    /// Gzip members, inflated here.
    Gzip(Box<Gzip>),
    /// A `fastwarc` decoder (zstd, lz4), and how far into its compressed input it was when it
    /// last answered nothing.
    Decoder(Box<dyn WarcRead>, u64),
}

/// What comes next in the stream.
#[derive(Debug)]
pub enum Ahead {
    /// Nothing (or only blank lines, or lines that are no record).
    End,
    /// A record whose header is within the bound (or bytes `fastwarc` will judge).
    Record,
    /// A record whose header is over the bound: it was passed over, block and all.
    Oversized(Oversized),
}

/// What the header of a record passed over for its size said.
#[derive(Debug, Default)]
pub struct Oversized {
    /// The header's length in bytes.
    pub header_bytes: u64,
    /// Its `WARC-Type`.
    pub record_type: Option<String>,
    /// Its `WARC-Target-URI` (the first bytes of it).
    pub target_uri: Option<String>,
    /// Its `Content-Length`: the bytes skipped after the header.
    pub block_bytes: u64,
}

/// What follows a page's block.
#[derive(Debug, PartialEq)]
pub enum Overrun {
    /// The end of the record: blank lines, then the next record or the end of the stream.
    None,
    /// Bytes that are no record's start, up to the next record (or the end): the rest of a block
    /// whose `Content-Length` is short. They were read (less the blank lines ending the record).
    Read(Vec<u8>),
    /// Such bytes, more of them than the room given: nothing was read.
    TooLong,
}

impl WarcStream {
    /// The WARC stream of `raw`: plain, gzip (one member per record, one for the whole file,
    /// empty members anywhere), zstd or lz4, told by its first bytes.
    pub fn new(raw: Box<dyn Read + Send>) -> WarcStream {
        WarcStream {
            source: Source::Unsniffed(Some(raw)),
            buf: vec![0; BUFFER_BYTES],
            start: 0,
            end: 0,
            eof: false,
            deferred: None,
            position: 0,
        }
    }

    /// The bytes held and not consumed.
    fn held(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Reads until `n` bytes are held or the stream ends; answers how many are held. A read
    /// error after some bytes are held is kept (see [`WarcStream::stalled`]) and answered once
    /// they are used up, so that a record read whole before a corrupt stretch is taken.
    fn ensure(&mut self, n: usize) -> io::Result<usize> {
        while self.end - self.start < n && !self.eof {
            if self.deferred.is_some() {
                if self.end > self.start {
                    break;
                }
                if let Some(e) = self.deferred.take() {
                    return Err(e);
                }
            }
            if self.end == self.buf.len() {
                if self.start > 0 {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                } else {
                    let grown = (self.buf.len() * 2).max(n);
                    self.buf.resize(grown, 0);
                }
            }
            match self.source.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(e) if self.end > self.start => self.deferred = Some(e),
                Err(e) => return Err(e),
            }
        }
        Ok(self.end - self.start)
    }

    /// Looks at the next record's header before it is parsed. A header longer than
    /// `max_header` bytes (from its `WARC/` line to the blank line ending it, as `fastwarc`
    /// counts) is read through here, keeping its type, target URI and `Content-Length`, and
    /// its block skipped: the stream is then at the record after it. A header that does not
    /// say how long its block is cannot be passed over: an `InvalidData` error.
    pub fn ahead(&mut self, max_header: usize) -> io::Result<Ahead> {
        // The start of the `WARC/` line, past blank lines and (as `fastwarc`'s quirks mode
        // reads) other lines before it.
        let mut line = 0;
        let status = loop {
            match memchr(b'\n', &self.held()[line..]) {
                Some(i) => {
                    if is_status_line(&self.held()[line..line + i + 1]) {
                        break line;
                    }
                    line += i + 1;
                    if line > JUNK_BYTES {
                        return Ok(Ahead::Record);
                    }
                }
                None if self.eof => {
                    let rest = &self.held()[line..];
                    return Ok(if is_status_line(rest) {
                        Ahead::Record
                    } else {
                        Ahead::End
                    });
                }
                None => {
                    self.raise_deferred()?;
                    let held = self.end - self.start;
                    self.ensure(held + 4096)?;
                }
            }
        };
        // The blank line that ends the header.
        let mut line = status;
        loop {
            match memchr(b'\n', &self.held()[line..]) {
                Some(i) => {
                    let next = line + i + 1;
                    if next - status > max_header {
                        break;
                    }
                    if line > status && self.held()[line..next].trim_ascii_end().is_empty() {
                        return Ok(Ahead::Record);
                    }
                    line = next;
                }
                // A header cut short by the end: `fastwarc` reads what there is.
                None if self.eof => return Ok(Ahead::Record),
                None => {
                    let held = self.end - self.start;
                    if held - status > max_header {
                        break;
                    }
                    self.raise_deferred()?;
                    self.ensure(held + 4096)?;
                }
            }
        }
        self.consume(status);
        self.pass_over()
    }

    /// Reads a header over the bound to its end and skips the block its `Content-Length` gives.
    fn pass_over(&mut self) -> io::Result<Ahead> {
        let mut over = Oversized::default();
        let mut content_length = None;
        let mut first = true;
        loop {
            let (kept, len) = self.take_line(LINE_BYTES)?;
            if len == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the stream ends inside a WARC record's header",
                ));
            }
            over.header_bytes += len as u64;
            if !first && len == kept.len() && kept.trim_ascii_end().is_empty() {
                break;
            }
            first = false;
            let Some(colon) = memchr(b':', &kept) else {
                continue;
            };
            let name = kept[..colon].trim_ascii();
            let value = || String::from_utf8_lossy(kept[colon + 1..].trim_ascii()).into_owned();
            if name.eq_ignore_ascii_case(b"Content-Length") {
                content_length = value().parse::<u64>().ok();
            } else if name.eq_ignore_ascii_case(b"WARC-Type") {
                over.record_type = Some(value());
            } else if name.eq_ignore_ascii_case(b"WARC-Target-URI") {
                let uri = value();
                over.target_uri =
                    Some(uri.trim_start_matches('<').trim_end_matches('>').to_owned());
            }
        }
        let Some(block_bytes) = content_length else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a WARC record's header of {} bytes has no valid Content-Length: where the \
                     record ends is unknown",
                    over.header_bytes
                ),
            ));
        };
        over.block_bytes = block_bytes;
        let mut left = block_bytes;
        while left > 0 {
            let held = self.fill_buf()?.len();
            if held == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("a WARC record is cut short: {left} of its block's bytes are missing"),
                ));
            }
            let n = (held as u64).min(left) as usize;
            self.consume(n);
            left -= n as u64;
        }
        Ok(Ahead::Oversized(over))
    }

    /// Consumes one line (to its `\n` or the end) and answers its first `keep` bytes and its
    /// length.
    fn take_line(&mut self, keep: usize) -> io::Result<(Vec<u8>, usize)> {
        let mut kept = Vec::new();
        let mut len = 0;
        loop {
            let chunk = self.fill_buf()?;
            if chunk.is_empty() {
                return Ok((kept, len));
            }
            let (n, done) = match memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let room = keep.saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&chunk[..room]);
            self.consume(n);
            len += n;
            if done {
                return Ok((kept, len));
            }
        }
    }

    /// Looks at what follows a page's block (the stream is at the block's end). When it is
    /// neither blank lines nor the next record, the block's `Content-Length` was short: the
    /// bytes up to the next `WARC/1.x` line (or the end) are read and answered, if there are
    /// at most `room` of them. A read error met on the way is answered by the next read, the
    /// bytes held before it taken as all there is.
    pub fn overrun(&mut self, room: usize) -> Overrun {
        let mut blank = 0;
        loop {
            self.look(blank + 8);
            let held = self.held();
            blank += held[blank..]
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let rest = &held[blank..];
            if rest.is_empty() && self.stalled() {
                return Overrun::None;
            }
            if rest.len() >= 8 || self.stalled() {
                if rest.starts_with(b"WARC/") || (self.stalled() && b"WARC/".starts_with(rest)) {
                    return Overrun::None;
                }
                break;
            }
        }
        let finder = memmem::Finder::new(b"\nWARC/");
        let mut from = 0;
        loop {
            let held = self.held();
            let found = finder
                .find_iter(&held[from..])
                .map(|i| from + i)
                .find(|&i| is_status_line(line_at(held, i + 1)));
            let end = match found {
                Some(i) => Some(i + 1),
                None if self.stalled() => Some(held.len()),
                None => None,
            };
            if let Some(end) = end {
                let mut extra = held[..end].to_vec();
                self.consume(end);
                while extra.last().is_some_and(|b| matches!(b, b'\r' | b'\n')) {
                    extra.pop();
                }
                if extra.len() > room {
                    return Overrun::TooLong;
                }
                return Overrun::Read(extra);
            }
            if held.len() > room.saturating_add(16) {
                return Overrun::TooLong;
            }
            // A `\nWARC/1.x` line may straddle the end of what is held.
            from = held.len().saturating_sub(16);
            let want = (held.len() * 2).max(held.len() + 4096);
            self.look(want);
        }
    }

    /// [`WarcStream::ensure`] for a look past a page's block: a read error is kept for the
    /// next read, and the bytes held so far are all there is to look at.
    fn look(&mut self, n: usize) {
        if let Err(e) = self.ensure(n) {
            self.deferred = Some(e);
        }
    }

    /// A kept read error, now that more bytes than those held are needed.
    fn raise_deferred(&mut self) -> io::Result<()> {
        match self.deferred.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether no more bytes come before the end or a kept read error.
    fn stalled(&self) -> bool {
        self.eof || self.deferred.is_some()
    }
}

/// The line of `bytes` starting at `at` (to its `\n`, or the rest).
fn line_at(bytes: &[u8], at: usize) -> &[u8] {
    let rest = &bytes[at.min(bytes.len())..];
    match memchr(b'\n', rest) {
        Some(i) => &rest[..=i],
        None => rest,
    }
}

/// Whether `line` is a WARC record's first line, as `fastwarc` tells it: `WARC/1.0`,
/// `WARC/1.1`, or ClueWeb's `WARC/0.x`.
fn is_status_line(line: &[u8]) -> bool {
    let line = line.trim_ascii_end();
    matches!(line, b"WARC/1.1" | b"WARC/1.0") || (line.starts_with(b"WARC/0.") && line.len() <= 9)
}

impl Source {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            match self {
                Source::Unsniffed(raw) => {
                    let Some(mut raw) = raw.take() else {
                        return Ok(0);
                    };
                    let mut head = Vec::with_capacity(4);
                    (&mut raw).take(4).read_to_end(&mut head)?;
                    let magic = head.clone();
                    let inner = Forward {
                        inner: io::Cursor::new(head).chain(raw),
                        position: 0,
                    };
                    *self = match magic.as_slice() {
                        [0x1f, 0x8b, 0x08, ..] => {
                            Source::Gzip(Box::new(Gzip::new(Box::new(inner))))
                        }
                        [0x28, 0xb5, 0x2f, 0xfd] | [0x5d, 0x2a, 0x4d, 0x18] => {
                            Source::Decoder(Box::new(ZstdReader::new(inner)), 0)
                        }
                        [0x04, 0x22, 0x4d, 0x18] => {
                            Source::Decoder(Box::new(Lz4Reader::new(inner)), 0)
                        }
                        _ => Source::Plain(Box::new(inner)),
                    };
                }
                Source::Plain(raw) => match raw.read(out) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => return other,
                },
                Source::Gzip(gzip) => return gzip.read(out),
                Source::Decoder(decoder, seen) => {
                    let chunk = decoder.fill_buf()?;
                    if !chunk.is_empty() {
                        let n = chunk.len().min(out.len());
                        out[..n].copy_from_slice(&chunk[..n]);
                        decoder.consume(n);
                        return Ok(n);
                    }
                    // A decoder answers nothing at the end of an empty member or frame as at
                    // the end of its input: only when it read no more input is it the end.
                    let now = decoder.inner_stream_position()?;
                    if now == *seen {
                        return Ok(0);
                    }
                    *seen = now;
                }
            }
        }
    }
}

/// Bytes of compressed input read at a time.
const GZIP_INPUT_BYTES: usize = 128 << 10;

/// Gzip members one after the other (`cat a.gz b.gz`), inflated straight into the caller's
/// buffer. An empty member yields nothing and is passed over; a stream that ends inside a member
/// is an `UnexpectedEof` error (so a whole-file gzip cut at a record's end is not taken for
/// the end); bytes after a member that are no member are an `InvalidData` error.
struct Gzip {
    raw: Box<dyn Read + Send>,
    input: Vec<u8>,
    at: usize,
    len: usize,
    raw_ended: bool,
    inflate: Inflate,
    /// A member was begun and has not ended.
    in_member: bool,
}

/// `zlib-rs`'s window bits for a gzip header and the largest window.
const GZIP_WINDOW_BITS: u8 = 16 + 15;

impl Gzip {
    fn new(raw: Box<dyn Read + Send>) -> Gzip {
        Gzip {
            raw,
            input: vec![0; GZIP_INPUT_BYTES],
            at: 0,
            len: 0,
            raw_ended: false,
            inflate: Inflate::new(true, GZIP_WINDOW_BITS),
            in_member: false,
        }
    }

    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at == self.len && !self.raw_ended {
                self.at = 0;
                self.len = loop {
                    match self.raw.read(&mut self.input) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        other => break other?,
                    }
                };
                self.raw_ended = self.len == 0;
            }
            if self.at == self.len {
                if self.in_member {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the gzip stream ends inside a member",
                    ));
                }
                return Ok(0);
            }
            let (total_in, total_out) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(&self.input[self.at..self.len], out, InflateFlush::NoFlush)
                .map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("gzip decompression error: {}", e.as_str()),
                    )
                })?;
            let used = (self.inflate.total_in() - total_in) as usize;
            let made = (self.inflate.total_out() - total_out) as usize;
            self.at += used;
            if used > 0 {
                self.in_member = true;
            }
            if status == Status::StreamEnd {
                self.inflate = Inflate::new(true, GZIP_WINDOW_BITS);
                self.in_member = false;
            } else if used == 0 && made == 0 && self.at < self.len {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "gzip decompression made no progress",
                ));
            }
            if made > 0 || out.is_empty() {
                return Ok(made);
            }
        }
    }
}

impl BufRead for WarcStream {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end && !self.eof {
            self.start = 0;
            self.end = 0;
            self.ensure(1)?;
        }
        Ok(self.held())
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.end - self.start);
        self.start += amount;
        self.position += amount as u64;
    }
}

impl Read for WarcStream {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let held = self.fill_buf()?;
        let n = held.len().min(out.len());
        out[..n].copy_from_slice(&held[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// The stream answers its position; it seeks forward only (stdin cannot seek).
impl Seek for WarcStream {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match pos {
            SeekFrom::Current(0) => Ok(self.position),
            SeekFrom::Current(n) if n > 0 => {
                let mut left = n as u64;
                while left > 0 {
                    let held = self.fill_buf()?.len();
                    if held == 0 {
                        break;
                    }
                    let step = (held as u64).min(left) as usize;
                    self.consume(step);
                    left -= step as u64;
                }
                Ok(self.position)
            }
            _ => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a WARC input is read forward only",
            )),
        }
    }
}

impl WarcRead for WarcStream {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn inner_seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.seek(pos)
    }

    fn inner_stream_position(&mut self) -> io::Result<u64> {
        Ok(self.position)
    }
}

/// A reader that counts what it reads and answers its position, the one seek the decoders make
/// on a stream; any other seek is refused.
struct Forward<R> {
    inner: R,
    position: u64,
}

impl<R: Read> Read for Forward<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.position += n as u64;
        Ok(n)
    }
}

impl<R> Seek for Forward<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match pos {
            SeekFrom::Current(0) => Ok(self.position),
            _ => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a WARC input is read forward only",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(bytes: Vec<u8>) -> WarcStream {
        WarcStream::new(Box::new(io::Cursor::new(bytes)))
    }

    fn all(mut stream: WarcStream) -> Vec<u8> {
        let mut out = Vec::new();
        stream.read_to_end(&mut out).unwrap();
        out
    }

    fn record(extra: &str, block: &[u8]) -> Vec<u8> {
        let mut bytes = format!(
            "WARC/1.0\r\nWARC-Type: response\r\n{extra}Content-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        bytes.extend_from_slice(block);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }

    #[test]
    fn empty_gzip_members_and_zstd_frames_are_passed_over() {
        let gzip = |bytes: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            io::Write::write_all(&mut e, bytes).unwrap();
            e.finish().unwrap()
        };
        let zstd = |bytes: &[u8]| zstd::encode_all(bytes, 3).unwrap();
        for pack in [&gzip as &dyn Fn(&[u8]) -> Vec<u8>, &zstd] {
            let mut packed = pack(b"");
            packed.extend(pack(b"WARC/1.0\r\n"));
            packed.extend(pack(b""));
            packed.extend(pack(b""));
            packed.extend(pack(b"one\r\n"));
            packed.extend(pack(b""));
            assert_eq!(all(stream(packed)), b"WARC/1.0\r\none\r\n");
        }
    }

    #[test]
    fn a_gzip_stream_that_ends_inside_a_member_is_an_error_not_the_end() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut e, b"WARC/1.0\r\nContent-Length: 0\r\n\r\n\r\n\r\n").unwrap();
        let whole = e.finish().unwrap();
        // Without its trailer: every byte of the record inflates, but the member is not done.
        let mut s = stream(whole[..whole.len() - 8].to_vec());
        let mut out = Vec::new();
        let error = s.read_to_end(&mut out).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            all(stream(whole)),
            b"WARC/1.0\r\nContent-Length: 0\r\n\r\n\r\n\r\n"
        );
    }

    #[test]
    fn a_header_over_the_bound_is_passed_over_with_its_block() {
        let long = format!(
            "WARC-Target-URI: <http://a.example/{}>\r\n",
            "x".repeat(300)
        );
        let mut bytes = b"\r\n".to_vec();
        bytes.extend(record(&long, b"block one"));
        let next = record("", b"block two");
        bytes.extend_from_slice(&next);
        let header = bytes.len() - next.len() - 2 - b"block one\r\n\r\n".len();
        // At the bound: a record as any other.
        let mut s = stream(bytes.clone());
        assert!(matches!(s.ahead(header).unwrap(), Ahead::Record));
        assert_eq!(all(s), bytes);
        // One byte over: passed over, the stream at the next record.
        let mut s = stream(bytes.clone());
        match s.ahead(header - 1).unwrap() {
            Ahead::Oversized(over) => {
                assert_eq!(over.header_bytes, header as u64);
                assert_eq!(over.block_bytes, 9);
                assert_eq!(over.record_type.as_deref(), Some("response"));
                let uri = over.target_uri.unwrap();
                assert!(uri.starts_with("http://a.example/xx") && uri.ends_with('x'));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(s.ahead(header - 1).unwrap(), Ahead::Record));
        let mut rest = all(s);
        while rest.first().is_some_and(|b| matches!(b, b'\r' | b'\n')) {
            rest.remove(0);
        }
        assert_eq!(rest, next);
        // Without a Content-Length there is no telling where it ends.
        let bare = format!("WARC/1.0\r\n{long}\r\nblock").into_bytes();
        let error = stream(bare).ahead(100).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        // Blank lines and the end: nothing ahead.
        assert!(matches!(
            stream(b"\r\n\n".to_vec()).ahead(100).unwrap(),
            Ahead::End
        ));
    }

    /// The stream after a block of `declared` bytes of `record` answers its overrun.
    fn overrun_after(bytes: &[u8], declared: usize, room: usize) -> (Overrun, Vec<u8>) {
        let mut s = stream(bytes.to_vec());
        let mut block = vec![0; declared];
        s.read_exact(&mut block).unwrap();
        let overrun = s.overrun(room);
        (overrun, all(s))
    }

    #[test]
    fn what_follows_a_block_is_the_next_record_or_the_rest_of_the_block() {
        let next = b"WARC/1.1\r\nWARC-Type: request\r\n\r\n".to_vec();
        // The end of the record, then the next one or the end: nothing.
        for tail in [&b"\r\n\r\n"[..], b"\n\n", b""] {
            let mut bytes = b"0123456789".to_vec();
            bytes.extend_from_slice(tail);
            bytes.extend_from_slice(&next);
            assert_eq!(overrun_after(&bytes, 10, 100).0, Overrun::None);
            bytes.truncate(10 + tail.len());
            assert_eq!(overrun_after(&bytes, 10, 100).0, Overrun::None);
        }
        // A short Content-Length: the rest of the block, to the next record or the end.
        let mut bytes = b"0123456789\r\n<p>more</p>\r\nWARC/1.0 is a format\r\n\r\n".to_vec();
        bytes.extend_from_slice(&next);
        let (overrun, rest) = overrun_after(&bytes, 10, 100);
        assert_eq!(
            overrun,
            Overrun::Read(b"\r\n<p>more</p>\r\nWARC/1.0 is a format".to_vec())
        );
        assert_eq!(rest, next);
        let (overrun, rest) = overrun_after(b"01234<p>more</p>\r\n\r\n", 5, 100);
        assert_eq!(overrun, Overrun::Read(b"<p>more</p>".to_vec()));
        assert!(rest.is_empty());
        // More than the room: nothing read.
        assert_eq!(overrun_after(&bytes, 10, 5).0, Overrun::TooLong);
        // Past the buffer: the next record found however far (within the room).
        let mut big = b"01234".to_vec();
        big.extend(std::iter::repeat_n(b'y', 3 * BUFFER_BYTES + 7));
        big.extend_from_slice(b"\r\n\r\n");
        big.extend_from_slice(&next);
        let (overrun, rest) = overrun_after(&big, 5, 4 * BUFFER_BYTES);
        assert_eq!(overrun, Overrun::Read(vec![b'y'; 3 * BUFFER_BYTES + 7]));
        assert_eq!(rest, next);
        assert_eq!(overrun_after(&big, 5, BUFFER_BYTES).0, Overrun::TooLong);
    }

    #[test]
    fn a_read_error_past_a_block_is_answered_by_the_next_read_not_the_look() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut e, b"0123456789\r\n\r\n").unwrap();
        let mut bytes = e.finish().unwrap();
        bytes.extend_from_slice(b"no gzip member\n");
        let mut s = stream(bytes);
        let mut block = [0; 10];
        s.read_exact(&mut block).unwrap();
        assert_eq!(s.overrun(100), Overrun::None);
        let mut rest = Vec::new();
        assert!(s.read_to_end(&mut rest).is_err());
    }
}
