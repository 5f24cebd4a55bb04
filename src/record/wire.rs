//! The raw-html record's JSON fields, read in one pass.
//!
//! [`Wire::parse`] reads the top-level object by hand and unescapes each string field in a single
//! scan that copies eight bytes at a time; values of other fields are handed to serde_json. It
//! accepts only what `serde_json::from_slice::<Wire>` accepts, with the same field values, and
//! answers `None` for anything else (malformed JSON, a non-string field, a duplicate field, an
//! escaped key, a lone surrogate…), so that the caller can run serde_json for its error.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;

/// The fields of a raw-html record that decoding uses, before validation.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
pub(crate) struct Wire {
    pub url: Option<String>,
    pub response_url: Option<String>,
    pub title: Option<String>,
    pub html: Option<String>,
    pub html_base64: Option<String>,
    pub charset: Option<String>,
    pub fetched_at: Option<String>,
    pub domain: Option<String>,
    pub warc_record_id: Option<String>,
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub warnings: Option<Vec<String>>,
}

impl Wire {
    /// The fields of `bytes`, or `None` when the one-pass reader does not accept it. Whenever it
    /// answers `Some(wire)`, `serde_json::from_slice::<Wire>(bytes)` is `Ok(wire)`.
    pub fn parse(bytes: &[u8]) -> Option<Wire> {
        let mut wire = Wire::default();
        let mut seen = 0u16;
        let mut i = skip_ws(bytes, 0);
        if *bytes.get(i)? != b'{' {
            return None;
        }
        i = skip_ws(bytes, i + 1);
        if *bytes.get(i)? == b'}' {
            i += 1;
        } else {
            loop {
                let (key, after_key) = parse_key(bytes, i)?;
                i = skip_ws(bytes, after_key);
                if *bytes.get(i)? != b':' {
                    return None;
                }
                i = skip_ws(bytes, i + 1);
                match FIELDS.iter().position(|&name| name == key) {
                    Some(field) => {
                        // serde_json rejects a repeated known field; so does this reader.
                        if seen & (1 << field) != 0 {
                            return None;
                        }
                        seen |= 1 << field;
                        if let Some(slot) = wire.string_field(field) {
                            // The page itself is most of the record: room for all of the
                            // rest spares the copies of growing, and the excess is returned.
                            let room = if field == HTML || field == HTML_BASE64 {
                                bytes.len() - i
                            } else {
                                0
                            };
                            let (value, end) = parse_string_or_null(bytes, i, room)?;
                            *slot = value;
                            i = end;
                        } else if field == WARNINGS {
                            let (warnings, end) = with_serde(bytes, i)?;
                            wire.warnings = warnings;
                            i = end;
                        } else {
                            let (headers, end) = with_serde(bytes, i)?;
                            wire.headers = headers;
                            i = end;
                        }
                    }
                    None => {
                        // An unknown field: validated and skipped as serde_json would.
                        let (IgnoredAny, end) = with_serde(bytes, i)?;
                        i = end;
                    }
                }
                i = skip_ws(bytes, i);
                match *bytes.get(i)? {
                    b',' => i = skip_ws(bytes, i + 1),
                    b'}' => {
                        i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        (skip_ws(bytes, i) == bytes.len()).then_some(wire)
    }
}

/// The index of `html` in [`FIELDS`].
const HTML: usize = 3;
/// The index of `html_base64` in [`FIELDS`].
const HTML_BASE64: usize = 4;

/// The index of `warnings` in [`FIELDS`].
const WARNINGS: usize = 10;

/// The field names, in the order of [`Wire::string_field`]'s indices.
const FIELDS: [&[u8]; 11] = [
    b"url",
    b"response_url",
    b"title",
    b"html",
    b"html_base64",
    b"charset",
    b"fetched_at",
    b"domain",
    b"headers",
    b"warc_record_id",
    b"warnings",
];

impl Wire {
    /// The string field named `FIELDS[index]`; `None` for `headers` and `warnings`.
    fn string_field(&mut self, index: usize) -> Option<&mut Option<String>> {
        Some(match index {
            0 => &mut self.url,
            1 => &mut self.response_url,
            2 => &mut self.title,
            3 => &mut self.html,
            4 => &mut self.html_base64,
            5 => &mut self.charset,
            6 => &mut self.fetched_at,
            7 => &mut self.domain,
            9 => &mut self.warc_record_id,
            _ => return None,
        })
    }
}

/// The index of the first non-whitespace byte at or after `i` (JSON whitespace, as serde_json).
fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

/// An object key starting at its quote `bytes[i]`: its bytes and the index after the closing
/// quote. Keys with escapes are left to serde_json (`None`).
fn parse_key(bytes: &[u8], i: usize) -> Option<(&[u8], usize)> {
    if *bytes.get(i)? != b'"' {
        return None;
    }
    let len = memchr::memchr2(b'"', b'\\', bytes.get(i + 1..)?)?;
    let key = &bytes[i + 1..i + 1 + len];
    if bytes[i + 1 + len] != b'"' || key.iter().any(|&b| b < 0x20) {
        return None;
    }
    std::str::from_utf8(key).ok()?;
    Some((key, i + 2 + len))
}

/// One value deserialized by serde_json from `bytes[i..]`, and the index after it.
fn with_serde<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], i: usize) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_slice(bytes.get(i..)?).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, i + stream.byte_offset()))
}

/// `null` or a string at `bytes[i]` (see [`parse_string`]), and the index after it.
fn parse_string_or_null(bytes: &[u8], i: usize, room: usize) -> Option<(Option<String>, usize)> {
    match *bytes.get(i)? {
        b'"' => parse_string(bytes, i + 1, room).map(|(s, end)| (Some(s), end)),
        b'n' if bytes.get(i..i + 4)? == b"null" => Some((None, i + 4)),
        _ => None,
    }
}

const ONES: u64 = u64::MAX / 255;
const HIGH_BITS: u64 = ONES << 7;

/// High bit set in the lowest byte of `word` that is a quote, a backslash or a control character
/// (bits above it may be set too: only the lowest is meaningful).
#[inline(always)]
fn special_bytes(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGH_BITS
}

/// What each single-character escape `\x` stands for; 0 where `x` is not one.
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The content of the JSON string starting at `bytes[start]` (just after its opening quote),
/// unescaped, and the index after its closing quote. `None` wherever serde_json would reject
/// the string as a `String`: a control character, a bad escape, a lone surrogate, invalid UTF-8,
/// no closing quote. The text is unescaped into a buffer of `room` bytes to start with, grown as
/// needed and shrunk to fit at the end.
fn parse_string(bytes: &[u8], start: usize, room: usize) -> Option<(String, usize)> {
    let mut out: Vec<u8> = Vec::with_capacity(room);
    let mut i = start;
    loop {
        // Copy eight bytes at a time, keeping only those before the first special byte; the
        // last few bytes one at a time.
        while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            let special = special_bytes(u64::from_le_bytes(*chunk));
            out.extend_from_slice(chunk);
            if special != 0 {
                let clean = (special.trailing_zeros() / 8) as usize;
                out.truncate(out.len() - 8 + clean);
                i += clean;
                break;
            }
            i += 8;
        }
        while let Some(&b) = bytes.get(i) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            out.push(b);
            i += 1;
        }
        // At a special byte: escapes, often several in a row (`\r\n`), or the closing quote.
        loop {
            match *bytes.get(i)? {
                b'\\' => {
                    let escape = *bytes.get(i + 1)?;
                    let simple = SIMPLE_ESCAPES[usize::from(escape)];
                    if simple != 0 {
                        out.push(simple);
                        i += 2;
                    } else if escape == b'u' {
                        let (c, len) = unicode_escape(bytes, i)?;
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        i += len;
                    } else {
                        return None;
                    }
                }
                b'"' => {
                    // Runs are cut only at ASCII bytes and escapes encode whole characters, so
                    // this checks exactly the raw string's own bytes, as serde_json does.
                    let mut text = String::from_utf8(out).ok()?;
                    text.shrink_to_fit();
                    return Some((text, i + 1));
                }
                0..0x20 => return None,
                _ => break,
            }
        }
    }
}

/// The character of the `\uXXXX` escape at `bytes[i]` (a backslash), with its trailing
/// `\uXXXX` when it is a leading surrogate, and the escape's length in bytes. Surrogates must
/// pair, as serde_json requires for strings.
fn unicode_escape(bytes: &[u8], i: usize) -> Option<(char, usize)> {
    let unit = hex4(bytes, i + 2)?;
    match unit {
        0xD800..=0xDBFF => {
            if bytes.get(i + 6..i + 8)? != b"\\u" {
                return None;
            }
            let low = hex4(bytes, i + 8)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let code = 0x1_0000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
            Some((char::from_u32(code)?, 12))
        }
        _ => Some((char::from_u32(u32::from(unit))?, 6)),
    }
}

/// Four hex digits at `bytes[i..i + 4]`.
fn hex4(bytes: &[u8], i: usize) -> Option<u16> {
    bytes.get(i..i + 4)?.iter().try_fold(0u16, |acc, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        Some(acc << 4 | u16::from(digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RawPage;
    use proptest::prelude::*;

    /// The `html` string as serde_json reads it into a `Value`, or `None` if it rejects the record.
    fn html_via_value(record: &[u8]) -> Option<String> {
        let value: serde_json::Value = serde_json::from_slice(record).ok()?;
        value.get("html")?.as_str().map(str::to_owned)
    }

    /// `{"url":…,"html":"<body>"}` with `body` inserted verbatim between the quotes.
    fn record_with_body(body: &str) -> Vec<u8> {
        format!(r#"{{"url": "http://a.com/", "html": "{body}", "gold": "x"}}"#).into_bytes()
    }

    /// Asserts that the one-pass reader agrees with serde_json on `record`: when it accepts, serde
    /// accepts with the same fields and the same `html` as a `Value`.
    fn assert_agrees(record: &[u8]) -> Option<Wire> {
        let fast = Wire::parse(record);
        let serde = serde_json::from_slice::<Wire>(record).ok();
        if let Some(wire) = &fast {
            assert_eq!(
                Some(wire),
                serde.as_ref(),
                "{:?}",
                String::from_utf8_lossy(record)
            );
        }
        if serde.is_none() {
            assert_eq!(fast, None);
        }
        fast
    }

    /// One character written the way a JSON encoder might, choosing by `how`: raw where JSON
    /// allows it, a short escape (`\n`, `\/`…) or `\u` escapes in either case (a surrogate
    /// pair beyond the BMP).
    fn encode_char(c: char, how: u8, out: &mut String) {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '/' => Some("\\/"),
            _ => None,
        };
        let must_escape = (c as u32) < 0x20 || c == '"' || c == '\\';
        let unicode = |out: &mut String| {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                if how & 4 == 0 {
                    out.push_str(&format!("\\u{unit:04x}"));
                } else {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        };
        match (how & 3, short) {
            // Always \u.
            (1, _) => unicode(out),
            // A short escape wherever there is one (`\/` included).
            (0, Some(escape)) => out.push_str(escape),
            // Otherwise only what must be escaped, short where possible.
            (_, Some(escape)) if must_escape => out.push_str(escape),
            (_, None) if must_escape => unicode(out),
            _ => out.push(c),
        }
    }

    #[test]
    fn reads_fields_and_unescapes() {
        let record = br#" {"url":"http://a.com/x","title":null,"html":"<p a=\"1\">\u00e9\ud83d\ude00\/\\</p>\r\n","extra":[1,{"a":true}],"headers":{"Content-Type":"text/html"}} "#;
        let wire = assert_agrees(record).unwrap();
        assert_eq!(wire.html.as_deref(), Some("<p a=\"1\">é😀/\\</p>\r\n"));
        assert_eq!(wire.title, None);
        assert_eq!(
            wire.headers
                .unwrap()
                .get("Content-Type")
                .map(String::as_str),
            Some("text/html")
        );
        assert_eq!(assert_agrees(b"{}"), Some(Wire::default()));
    }

    #[test]
    fn leaves_what_it_does_not_take_to_serde() {
        for body in [
            r"\ud800",
            r"a\ud800b",
            r"\ud800\u0041",
            r"\ud800\n",
            r"\udc00",
            r"\ud83d\ud83d",
            r"\x",
            r"\u12G4",
            r"\u12",
            "tab\there",
            "nul\0",
            "\\",
        ] {
            let record = record_with_body(body);
            assert_eq!(Wire::parse(&record), None, "{body:?}");
            assert!(serde_json::from_slice::<Wire>(&record).is_err(), "{body:?}");
        }
        for record in [
            &br#"{"url":"a","url":"b"}"#[..],
            br#"{"html":null,"html":"b"}"#,
            br#"{"headers":null,"headers":{}}"#,
            br#"{"url":"a",}"#,
            br#"{"url":"a"} x"#,
            br#"{"url":5}"#,
            br#"{"url":"a" "title":"b"}"#,
            br#"{"x":01}"#,
            br#"{"x":nul}"#,
            br#"["a"]"#,
            b"{\"url\":\"\xff\"}",
            b"{\"x\xff\":1}",
        ] {
            assert_eq!(
                Wire::parse(record),
                None,
                "{:?}",
                String::from_utf8_lossy(record)
            );
        }
        // Accepted by serde_json but left to it: an escaped key.
        let escaped_key = br#"{"h\u0074ml":"x"}"#;
        assert_eq!(Wire::parse(escaped_key), None);
        assert_eq!(
            serde_json::from_slice::<Wire>(escaped_key)
                .unwrap()
                .html
                .as_deref(),
            Some("x")
        );
    }

    proptest! {
        #[test]
        fn html_matches_serde_value(text in "(?s).{0,300}", hows in prop::collection::vec(any::<u8>(), 300)) {
            // As serde_json writes it.
            let record = serde_json::json!({"url": "http://a.com/", "html": text}).to_string();
            let wire = assert_agrees(record.as_bytes());
            prop_assert_eq!(wire.and_then(|w| w.html), Some(text.clone()));
            // As other encoders write it: \u escapes in both cases, \/ and surrogate pairs.
            let mut body = String::new();
            for (c, how) in text.chars().zip(hows.iter().cycle()) {
                encode_char(c, *how, &mut body);
            }
            let record = record_with_body(&body);
            let wire = assert_agrees(&record);
            prop_assert_eq!(html_via_value(&record), Some(text.clone()));
            prop_assert_eq!(wire.and_then(|w| w.html), Some(text));
        }

        #[test]
        fn any_string_body_agrees_with_serde(pieces in prop::collection::vec(prop_oneof![
            Just("\\".to_owned()), Just("\"".to_owned()), Just("\\u".to_owned()),
            Just("\\ud83d".to_owned()), Just("\\uDE00".to_owned()), Just("\\u00E9".to_owned()),
            Just("\\n".to_owned()), Just("\\/".to_owned()), Just("\u{1}".to_owned()),
            "[0-9a-fA-FgxuU]{1,4}", "(?s).{0,12}",
        ], 0..24)) {
            let body = pieces.concat();
            let record = record_with_body(&body);
            let wire = assert_agrees(&record);
            prop_assert_eq!(wire.and_then(|w| w.html), html_via_value(&record));
        }

        #[test]
        fn any_record_shape_agrees_with_serde(tokens in prop::collection::vec(prop_oneof![
            Just("{"), Just("}"), Just(":"), Just(","), Just(" "), Just("\n"), Just("null"),
            Just("\"url\""), Just("\"html\""), Just("\"title\""), Just("\"headers\""),
            Just("\"gold\""), Just("\"a\\\"b\""), Just("\"\\u00e9\""), Just("1.5e3"), Just("-0"),
            Just("[1,[]]"), Just("{\"k\":\"v\"}"), Just("true"), Just("\"x\""), Just("01"),
        ], 0..16)) {
            let record = tokens.concat();
            assert_agrees(record.as_bytes());
            let page = RawPage::decode(record.as_bytes(), 1 << 20);
            prop_assert_eq!(page, RawPage::decode_with_serde(record.as_bytes(), 1 << 20));
        }
    }

    /// Every record of every shared corpus set decodes as serde_json alone decodes it, and all
    /// of them through the one-pass reader.
    #[test]
    fn corpus_records_decode_as_with_serde() {
        let dir = crate::corpus::require_shared_dir();
        for set in crate::corpus::SETS {
            let pages = crate::corpus::load(&dir.join(set)).unwrap();
            assert!(!pages.is_empty(), "{set}");
            for page in &pages {
                let record = &page.record;
                let wire = Wire::parse(record);
                assert!(wire.is_some(), "{set}:{} not read in one pass", page.line);
                assert_eq!(
                    wire.as_ref(),
                    serde_json::from_slice::<Wire>(record).ok().as_ref()
                );
                assert_eq!(
                    RawPage::decode(record, usize::MAX),
                    RawPage::decode_with_serde(record, usize::MAX),
                    "{set}:{}",
                    page.line
                );
            }
        }
    }
}
