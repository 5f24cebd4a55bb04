//! An HTTP payload as a crawler stored it, made the page's bytes: chunked transfer encoding and
//! gzip/deflate content encoding undone, within a size bound.
//!
//! Crawlers differ: wget stores the payload as received (chunked, compressed), Common Crawl
//! stores it decoded but keeps the headers that say otherwise. So an encoding is undone only
//! when the bytes show it (chunk-size lines, a gzip or zlib header); otherwise they are taken
//! as they are.

use std::io::Read;

use flate2::read::{DeflateDecoder, GzDecoder, ZlibDecoder};

/// The encodings an HTTP response names.
#[derive(Clone, Debug, Default)]
pub struct Encodings {
    /// `Transfer-Encoding`.
    pub transfer: Option<String>,
    /// `Content-Encoding`.
    pub content: Option<String>,
}

/// Why a payload could not be made the page's bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// A content encoding other than gzip, deflate or identity.
    Unsupported,
    /// The decoded payload is over the size bound.
    TooLarge,
    /// The bytes claim an encoding (a gzip header) but do not decode.
    Corrupt(String),
}

/// Whether a `Content-Type` value names HTML (`text/html`, `application/xhtml+xml`).
pub fn is_html(content_type: &str) -> bool {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(media.as_str(), "text/html" | "application/xhtml+xml")
}

/// Whether bytes without a content type look like HTML: a `<` first, after white space and a
/// byte-order mark.
pub fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<')
}

/// The page's bytes of a stored payload: de-chunked when it is chunked, decompressed when it is
/// gzip or deflate, never more than `max_bytes`.
pub fn decode_payload(
    body: Vec<u8>,
    encodings: &Encodings,
    max_bytes: usize,
) -> Result<Vec<u8>, PayloadError> {
    let chunked = encodings
        .transfer
        .as_deref()
        .is_some_and(|t| names(t).any(|e| e == "chunked"));
    let body = match chunked.then(|| dechunk(&body)).flatten() {
        Some(plain) => plain,
        None => body,
    };
    let Some(content) = encodings.content.as_deref() else {
        return Ok(body);
    };
    let mut body = body;
    for encoding in names(content).collect::<Vec<_>>().into_iter().rev() {
        body = match encoding.as_str() {
            "identity" | "" => body,
            "gzip" | "x-gzip" if body.starts_with(&[0x1f, 0x8b]) => {
                inflate(GzDecoder::new(&body[..]), max_bytes)?
            }
            "deflate" if is_zlib(&body) => inflate(ZlibDecoder::new(&body[..]), max_bytes)?,
            "deflate" if !looks_like_html(&body) => {
                inflate(DeflateDecoder::new(&body[..]), max_bytes)?
            }
            // Stored decoded, the header kept.
            "gzip" | "x-gzip" | "deflate" => body,
            _ => return Err(PayloadError::Unsupported),
        };
    }
    Ok(body)
}

/// The lower-case names of a comma-separated encoding list.
fn names(list: &str) -> impl Iterator<Item = String> + '_ {
    list.split(',').map(|e| e.trim().to_ascii_lowercase())
}

/// Whether bytes start with a zlib header (RFC 1950: deflate, and a check sum over the two).
fn is_zlib(body: &[u8]) -> bool {
    body.len() >= 2
        && body[0] & 0x0f == 8
        && (u16::from(body[0]) << 8 | u16::from(body[1])) % 31 == 0
}

fn inflate(decoder: impl Read, max_bytes: usize) -> Result<Vec<u8>, PayloadError> {
    let mut out = Vec::new();
    decoder
        .take(max_bytes as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| PayloadError::Corrupt(e.to_string()))?;
    if out.len() > max_bytes {
        return Err(PayloadError::TooLarge);
    }
    Ok(out)
}

/// The data of a chunked body (RFC 9112 §7.1), or `None` when the bytes are not chunked (a
/// crawler that stored the payload de-chunked). A body cut after complete chunks keeps them.
fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size_text = line.split(';').next()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if rest.len() < size {
            out.extend_from_slice(rest);
            return Some(out);
        }
        out.extend_from_slice(&rest[..size]);
        rest = rest[size..].strip_prefix(b"\r\n").unwrap_or(&rest[size..]);
        if rest.is_empty() {
            return Some(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn encodings(transfer: Option<&str>, content: Option<&str>) -> Encodings {
        Encodings {
            transfer: transfer.map(str::to_owned),
            content: content.map(str::to_owned),
        }
    }

    #[test]
    fn chunked_and_gzip_are_undone_in_order() {
        let page = b"<html><p>caf\xc3\xa9</p></html>".to_vec();
        let zipped = gzip(&page);
        let (a, b) = zipped.split_at(7);
        let mut chunked = Vec::new();
        for part in [a, b] {
            chunked.extend_from_slice(format!("{:x};ext=1\r\n", part.len()).as_bytes());
            chunked.extend_from_slice(part);
            chunked.extend_from_slice(b"\r\n");
        }
        chunked.extend_from_slice(b"0\r\n\r\n");
        let both = encodings(Some("chunked"), Some("gzip"));
        assert_eq!(decode_payload(chunked, &both, 1000).unwrap(), page);
        // Stored decoded with the headers kept (Common Crawl): taken as it is.
        assert_eq!(decode_payload(page.clone(), &both, 1000).unwrap(), page);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(&page).unwrap();
        let deflate = encodings(None, Some("deflate"));
        assert_eq!(
            decode_payload(zlib.finish().unwrap(), &deflate, 1000).unwrap(),
            page
        );
    }

    #[test]
    fn bounds_and_unknown_encodings() {
        let big = gzip(&vec![b'a'; 10_000]);
        let gz = encodings(None, Some("gzip"));
        assert_eq!(decode_payload(big, &gz, 100), Err(PayloadError::TooLarge));
        let br = encodings(None, Some("br"));
        assert_eq!(
            decode_payload(b"\x0b\x02".to_vec(), &br, 100),
            Err(PayloadError::Unsupported)
        );
        let mut cut = gzip(b"<p>hello there</p>");
        cut.truncate(12);
        assert!(matches!(
            decode_payload(cut, &gz, 100),
            Err(PayloadError::Corrupt(_))
        ));
        assert!(is_html("Text/HTML; charset=ISO-8859-1"));
        assert!(!is_html("application/json"));
    }
}
