//! WARC files (1.0 and 1.1, plain, gzip per record or gzip whole) as an input: each HTML
//! `response` or `resource` record becomes one raw-html record; every other record is skipped
//! and counted by its reason.
//!
//! Records are parsed by `fastwarc`, streaming: a record's block is read only when it is an
//! HTML page within the size limit, and never beyond `max_record_bytes`.

mod stream;

use std::collections::BTreeMap;
use std::io::{self, Read, Seek};

use base64::Engine as _;
use fastwarc::stream_io::traits::WarcRead;
use fastwarc::warc::record::{AutoDecode, WarcRecord, WarcRecordType};

use self::stream::{Ahead, Overrun, Oversized, WarcStream};
use super::http;
use super::source::Item;
use crate::record::{DeadLetter, ErrorKind, Source};

/// The bytes a WARC stream starts with (after decompression).
pub const MAGIC: &[u8] = b"WARC/1.";

/// The longest WARC or HTTP header block read.
const MAX_HEADER_BYTES: usize = 64 << 10;

/// Why a WARC record was skipped: the names the summary counts them under.
pub mod skip {
    /// A `response` whose HTTP status is not 200.
    pub const NOT_200: &str = "HTTP status not 200";
    /// A `response` or `resource` whose content type is not HTML.
    pub const NOT_HTML: &str = "not HTML";
    /// A record the crawler cut short (`WARC-Truncated`).
    pub const TRUNCATED: &str = "truncated";
    /// A `response` whose payload is in a content encoding not undone here (e.g. `br`).
    pub const ENCODING: &str = "content encoding not supported";
    /// A `response` with no `WARC-Target-URI`.
    pub const NO_URI: &str = "no target URI";
    /// A record of a type without a page (`request`, `metadata`…) whose WARC header is over
    /// the 64 KiB bound: passed over, block and all (a `response` or `resource` is a
    /// `too-large` dead letter instead).
    pub const HEADER_TOO_LONG: &str = "WARC header over 64 KiB";
}

/// The records of one WARC stream, in stream order.
pub struct WarcReader {
    /// The stream, between records (`fastwarc` holds it while a record is read).
    stream: Option<Box<WarcStream>>,
    name: String,
    number: u64,
    complete: u64,
    max_record_bytes: usize,
    payload_bytes: usize,
    skipped: BTreeMap<&'static str, u64>,
}

impl WarcReader {
    /// Reads the WARC stream `reader` (plain, gzip, zstd or lz4, detected by its magic bytes);
    /// `name` is the input's display name for the records' [`Source`].
    pub fn new(
        reader: Box<dyn Read + Send>,
        name: &str,
        max_record_bytes: usize,
        payload_bytes: usize,
    ) -> WarcReader {
        WarcReader {
            stream: Some(Box::new(WarcStream::new(reader))),
            name: name.to_owned(),
            number: 0,
            complete: 0,
            max_record_bytes,
            payload_bytes,
            skipped: BTreeMap::new(),
        }
    }

    /// The input's display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of records read whole so far (every record counts, skipped ones too): where
    /// a read error happened.
    pub fn records_read(&self) -> u64 {
        self.complete
    }

    /// Records skipped so far, by reason ([`skip`], or the record type for `request`,
    /// `metadata`, `warcinfo`, `revisit` and the other types without a page).
    pub fn skipped(&self) -> &BTreeMap<&'static str, u64> {
        &self.skipped
    }

    /// The next page or dead letter, `Ok(None)` at the end of the stream, or the error that
    /// ended it (a record cut short, bytes that are no WARC record).
    pub fn next_item(&mut self) -> io::Result<Option<Item>> {
        loop {
            self.complete = self.number;
            let Some(mut stream) = self.stream.take() else {
                return Ok(None);
            };
            match stream.ahead(MAX_HEADER_BYTES)? {
                Ahead::End => return Ok(None),
                Ahead::Oversized(over) => {
                    self.stream = Some(stream);
                    self.number += 1;
                    match self.oversized(over) {
                        Some(item) => return Ok(Some(item)),
                        None => continue,
                    }
                }
                Ahead::Record => {}
            }
            let stream: Box<dyn WarcRead> = stream;
            let mut record = WarcRecord::from_reader_with_opts(stream, true, MAX_HEADER_BYTES)?;
            self.number += 1;
            let source = Source::line(&self.name, self.number);
            let page = self.page(&mut record, source)?;
            if self.stream.is_none() {
                consume(&mut record)?;
                self.stream = Some(detach(&mut record)?);
            }
            match page {
                Page::Item(item) => return Ok(Some(item)),
                Page::Skipped(reason) => *self.skipped.entry(reason).or_insert(0) += 1,
            }
        }
    }

    /// A record passed over for the size of its header: a `too-large` dead letter when it may
    /// have been a page (a `response` or `resource`), else counted; a warning either way.
    fn oversized(&mut self, over: Oversized) -> Option<Item> {
        let record_type = over.record_type.as_deref().unwrap_or("(none)");
        let uri = over.target_uri.as_deref().unwrap_or("");
        tracing::warn!(
            source = %self.name,
            record = self.number,
            "WARC record {} ({record_type} {uri}) has a header of {} bytes, over the bound of \
             {MAX_HEADER_BYTES}: passed over with its block of {} bytes",
            self.number,
            over.header_bytes,
            over.block_bytes,
        );
        let maybe_page = ["response", "resource"]
            .iter()
            .any(|t| record_type.eq_ignore_ascii_case(t));
        if !maybe_page {
            *self.skipped.entry(skip::HEADER_TOO_LONG).or_insert(0) += 1;
            return None;
        }
        let message = format!(
            "WARC record header is {} bytes, over the bound of {MAX_HEADER_BYTES}: the record \
             was passed over",
            over.header_bytes
        );
        let source = Source::line(&self.name, self.number);
        match self.dead_letter(ErrorKind::TooLarge, message, source, uri) {
            Page::Item(item) => Some(item),
            Page::Skipped(_) => None,
        }
    }

    /// A dead letter for the record of `url` (its URL is all the payload it keeps).
    fn dead_letter(&self, kind: ErrorKind, message: String, source: Source, url: &str) -> Page {
        Page::Item(Item::DeadLetter(DeadLetter::new(
            kind,
            message,
            source,
            url.as_bytes(),
            self.payload_bytes,
        )))
    }

    /// What one record is: a page, a dead letter, or skipped for a reason. Reading a page's
    /// block, it takes the stream back (into `self.stream`) to look past the block.
    fn page(&mut self, record: &mut WarcRecord, source: Source) -> io::Result<Page> {
        let is_response = match record.record_type() {
            WarcRecordType::Response => true,
            WarcRecordType::Resource => false,
            other => return Ok(Page::Skipped(other.as_str())),
        };
        if record.headers().contains_key("WARC-Truncated") {
            return Ok(Page::Skipped(skip::TRUNCATED));
        }
        let Some(url) = record
            .headers()
            .get("WARC-Target-URI")
            .map(|u| {
                u.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            })
            .filter(|u| !u.is_empty())
        else {
            return Ok(Page::Skipped(skip::NO_URI));
        };
        let block_bytes = record.content_length();
        if block_bytes > self.max_record_bytes as u64 {
            let message = format!(
                "WARC record is {block_bytes} bytes, over the limit of {}",
                self.max_record_bytes
            );
            consume(record)?;
            return Ok(self.dead_letter(ErrorKind::TooLarge, message, source, &url));
        }
        let mut headers = BTreeMap::new();
        let mut encodings = http::Encodings::default();
        if is_response {
            if let Err(e) = record.parse_http_with_opts(AutoDecode::None, MAX_HEADER_BYTES, true) {
                consume(record)?;
                let message = format!("cannot parse the HTTP response headers: {e}");
                return Ok(self.dead_letter(ErrorKind::InvalidField, message, source, &url));
            }
            let Some(http) = record.http_headers() else {
                return Ok(Page::Skipped(skip::NOT_HTML));
            };
            if http.status_code() != Some(200) {
                return Ok(Page::Skipped(skip::NOT_200));
            }
            if let Some(content_type) = http.get("Content-Type") {
                headers.insert("Content-Type".to_owned(), content_type.into_owned());
            }
            encodings = http::Encodings {
                transfer: http.get("Transfer-Encoding").map(|e| e.into_owned()),
                content: http.get("Content-Encoding").map(|e| e.into_owned()),
            };
        } else if let Some(content_type) = record.headers().get("Content-Type") {
            headers.insert("Content-Type".to_owned(), content_type.into_owned());
        }
        let content_type = headers.get("Content-Type").map(String::as_str);
        if content_type.is_some_and(|t| !http::is_html(t)) {
            return Ok(Page::Skipped(skip::NOT_HTML));
        }
        let expected = record.content_length();
        let reader = record
            .reader_mut()
            .ok_or_else(|| io::Error::other("WARC record without a stream"))?;
        let mut body = Vec::with_capacity(expected.min(self.max_record_bytes as u64) as usize);
        reader
            .take(self.max_record_bytes as u64 + 1)
            .read_to_end(&mut body)?;
        if (body.len() as u64) < expected {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "WARC record {} is cut short: {} of its {expected} payload bytes",
                    self.number,
                    body.len()
                ),
            ));
        }
        // The block read, what follows it: a block longer than its Content-Length is read
        // to the next record, and the page says so.
        let mut stream = detach(record)?;
        let overrun = stream.overrun(self.max_record_bytes.saturating_sub(body.len()));
        self.stream = Some(stream);
        let mut warnings = Vec::new();
        match overrun {
            Overrun::None => {}
            Overrun::Read(extra) => {
                warnings.push(format!(
                    "the WARC record's Content-Length ({block_bytes}) ends {} bytes before its \
                     block does: the page was read to the next record",
                    extra.len()
                ));
                body.extend_from_slice(&extra);
            }
            Overrun::TooLong => {
                let message = format!(
                    "the WARC record's Content-Length ({block_bytes}) ends before its block \
                     does, and the block runs on past the limit of {} bytes",
                    self.max_record_bytes
                );
                return Ok(self.dead_letter(ErrorKind::TooLarge, message, source, &url));
            }
        }
        let body = match http::decode_payload(body, &encodings, self.max_record_bytes) {
            Ok(body) => body,
            Err(http::PayloadError::Unsupported) => return Ok(Page::Skipped(skip::ENCODING)),
            Err(http::PayloadError::TooLarge) => {
                let message = format!(
                    "decoded payload is over the limit of {} bytes",
                    self.max_record_bytes
                );
                return Ok(self.dead_letter(ErrorKind::TooLarge, message, source, &url));
            }
            Err(http::PayloadError::Corrupt(why)) => {
                let message = format!("cannot decode the HTTP payload: {why}");
                return Ok(self.dead_letter(ErrorKind::BadEncoding, message, source, &url));
            }
        };
        if content_type.is_none() && !http::looks_like_html(&body) {
            return Ok(Page::Skipped(skip::NOT_HTML));
        }
        let mut page = serde_json::json!({
            "url": url,
            "html_base64": base64::engine::general_purpose::STANDARD.encode(&body),
        });
        if !headers.is_empty() {
            page["headers"] = serde_json::json!(headers);
        }
        if let Some(date) = record.headers().get("WARC-Date") {
            page["fetched_at"] = serde_json::json!(date.trim());
        }
        if let Some(id) = record.record_id() {
            page["warc_record_id"] = serde_json::json!(id.trim());
        }
        if !warnings.is_empty() {
            page["warnings"] = serde_json::json!(warnings);
        }
        let bytes = serde_json::to_vec(&page).map_err(io::Error::other)?;
        Ok(Page::Item(Item::Record { bytes, source }))
    }
}

/// What a record turned out to be.
enum Page {
    Item(Item),
    /// Skipped for a reason.
    Skipped(&'static str),
}

/// The stream a record was read from, taken back from it.
fn detach(record: &mut WarcRecord) -> io::Result<Box<WarcStream>> {
    record
        .detach_reader()
        .ok_or_else(|| io::Error::other("a WARC record without its stream"))?
        .into_any()
        .downcast::<WarcStream>()
        .map_err(|_| io::Error::other("a WARC record read from another stream"))
}

/// Reads the rest of a record's block, so that a record cut short is an error, not the end.
fn consume(record: &mut WarcRecord) -> io::Result<()> {
    let Some(reader) = record.reader_mut() else {
        return Ok(());
    };
    // The reader is limited to the block; its position is within the block.
    let remaining = reader.limit().saturating_sub(reader.stream_position()?);
    let read = io::copy(&mut reader.take(remaining), &mut io::sink())?;
    if read < remaining {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "a WARC record is cut short: {} of its block's bytes are missing",
                remaining - read
            ),
        ));
    }
    Ok(())
}

/// Whether `head`, the first bytes of a stream (after gzip decompression), is a WARC file's.
pub fn is_warc(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(max_record_bytes: usize) -> (Vec<Item>, BTreeMap<&'static str, u64>) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/warc/wget-plain.warc");
        let file = std::fs::File::open(path).unwrap();
        let mut reader = WarcReader::new(Box::new(file), "wget-plain.warc", max_record_bytes, 64);
        let mut items = Vec::new();
        while let Some(item) = reader.next_item().unwrap() {
            items.push(item);
        }
        (items, reader.skipped().clone())
    }

    #[test]
    fn a_record_over_the_limit_is_a_too_large_dead_letter() {
        let (all, skipped) = items(1 << 20);
        assert!(matches!(all.as_slice(), [Item::Record { .. }]), "{all:?}");
        assert_eq!(skipped.get("request"), Some(&1));
        let (small, _) = items(10_000);
        match small.as_slice() {
            [Item::DeadLetter(dead)] => {
                assert_eq!(dead.error.kind, ErrorKind::TooLarge);
                assert!(dead.error.message.contains("over the limit of 10000"));
                assert!(dead.payload.starts_with("http://127.0.0.1:"));
            }
            other => panic!("{other:?}"),
        }
    }

    fn response(uri: &str, block: &[u8]) -> Vec<u8> {
        let mut bytes = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        bytes.extend_from_slice(block);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }

    #[test]
    fn a_page_before_bytes_that_are_no_gzip_member_is_taken_then_the_error() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(
            &mut e,
            &response(
                "http://a.example/",
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>",
            ),
        )
        .unwrap();
        let mut gz = e.finish().unwrap();
        gz.extend_from_slice(b"bytes that are no gzip member\n");
        let mut reader = WarcReader::new(Box::new(io::Cursor::new(gz)), "t.warc.gz", 1 << 20, 64);
        match reader.next_item().unwrap() {
            Some(Item::Record { source, .. }) => assert_eq!(source.offset, 1),
            other => panic!("{other:?}"),
        }
        assert!(reader.next_item().is_err());
        assert_eq!(reader.records_read(), 1);
    }

    #[test]
    fn a_response_whose_http_headers_do_not_parse_is_a_dead_letter_and_reading_goes_on() {
        // A header block over the bound.
        let mut block = b"HTTP/1.1 200 OK\r\nX-Long: ".to_vec();
        block.extend(std::iter::repeat_n(b'a', MAX_HEADER_BYTES + 10));
        block.extend_from_slice(b"\r\nContent-Type: text/html\r\n\r\n<p>x</p>");
        let mut warc = response("http://a.example/", &block);
        warc.extend(response(
            "http://b.example/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>",
        ));
        let mut reader = WarcReader::new(Box::new(io::Cursor::new(warc)), "t.warc", 1 << 20, 64);
        match reader.next_item().unwrap() {
            Some(Item::DeadLetter(dead)) => {
                assert_eq!(dead.error.kind, ErrorKind::InvalidField);
                assert_eq!(dead.source.offset, 1);
            }
            other => panic!("{other:?}"),
        }
        match reader.next_item().unwrap() {
            Some(Item::Record { bytes, source }) => {
                let page: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(page["url"], "http://b.example/");
                assert_eq!(page["headers"]["Content-Type"], "text/html");
                assert_eq!(source.offset, 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(reader.next_item().unwrap().is_none());
    }
}
