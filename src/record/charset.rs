//! The character encoding of a page's bytes, chosen as browsers choose it (the WHATWG HTML
//! standard's encoding sniffing): a byte-order mark, else the transport's charset (the record's
//! `charset` field, else the `Content-Type` header's), else a `<meta>` declaration found by the
//! prescan of the first 1024 bytes, else a detector (`chardetng`, Firefox's) for a page that
//! declares nothing, else windows-1252. Pure functions of the bytes and labels; no I/O.

use std::collections::BTreeMap;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How many bytes the `<meta>` prescan reads, as in the standard.
pub const PRESCAN_BYTES: usize = 1024;

/// How many bytes of an undeclared page the detector reads: plenty of text for a guess, and a
/// bound on its cost for huge pages.
const DETECT_BYTES: usize = 64 << 10;

/// Where the encoding of a page came from, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncodingSource {
    /// The record's `html` field: JSON text, already decoded.
    Text,
    /// A byte-order mark at the start of the bytes.
    Bom,
    /// The record's `charset` field.
    Charset,
    /// The `charset` parameter of the record's `Content-Type` header.
    ContentType,
    /// A `<meta charset>` or `<meta http-equiv="Content-Type">` in the first 1024 bytes.
    Meta,
    /// Guessed by the detector from the bytes of a page that declares nothing.
    Detected,
    /// Nothing to go by (no byte outside ASCII, which every candidate decodes alike): windows-1252.
    Default,
}

impl EncodingSource {
    /// The name used in output records.
    pub fn as_str(self) -> &'static str {
        match self {
            EncodingSource::Text => "text",
            EncodingSource::Bom => "bom",
            EncodingSource::Charset => "charset",
            EncodingSource::ContentType => "content-type",
            EncodingSource::Meta => "meta",
            EncodingSource::Detected => "detected",
            EncodingSource::Default => "default",
        }
    }
}

/// The encoding a page was decoded with and how it was chosen (the clean-text record's
/// `encoding`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EncodingInfo {
    /// The encoding's WHATWG name, e.g. `UTF-8`, `windows-1251`, `Shift_JIS`.
    pub name: String,
    /// How it was chosen.
    pub source: EncodingSource,
}

impl EncodingInfo {
    /// The encoding of a record that carried its page as JSON text.
    pub fn text() -> EncodingInfo {
        EncodingInfo {
            name: UTF_8.name().to_owned(),
            source: EncodingSource::Text,
        }
    }
}

/// The declared and sniffed evidence for one page's bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Declared<'a> {
    /// The record's `charset` field.
    pub charset: Option<&'a str>,
    /// The record's HTTP headers (the `Content-Type` header's `charset` is read).
    pub headers: Option<&'a BTreeMap<String, String>>,
    /// The page's host (its last label steers the detector's guess, as in browsers).
    pub host: Option<&'a str>,
}

/// Chooses the encoding of `bytes` in the standard's order and decodes them, malformed sequences
/// as U+FFFD (a page is never rejected for its bytes). A BOM is removed. An unknown label is
/// ignored, as browsers do, and the next source is tried.
pub fn decode(bytes: &[u8], declared: Declared<'_>) -> (String, EncodingInfo) {
    let (encoding, source) = choose(bytes, declared);
    // `decode` sniffs and removes a BOM itself; when there is one it is also the choice.
    let (text, _, _) = encoding.decode(bytes);
    let info = EncodingInfo {
        name: encoding.name().to_owned(),
        source,
    };
    (text.into_owned(), info)
}

/// The encoding of `bytes` and how it was chosen.
fn choose(bytes: &[u8], declared: Declared<'_>) -> (&'static Encoding, EncodingSource) {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return (encoding, EncodingSource::Bom);
    }
    if let Some(encoding) = declared.charset.and_then(label) {
        return (encoding, EncodingSource::Charset);
    }
    if let Some(encoding) = declared
        .headers
        .and_then(content_type)
        .and_then(|value| charset_parameter(value.as_bytes()))
        .and_then(|value| Encoding::for_label(value))
    {
        return (encoding, EncodingSource::ContentType);
    }
    if let Some(encoding) = prescan(&bytes[..bytes.len().min(PRESCAN_BYTES)]) {
        return (encoding, EncodingSource::Meta);
    }
    if bytes.is_ascii() {
        return (WINDOWS_1252, EncodingSource::Default);
    }
    if std::str::from_utf8(bytes).is_ok() {
        return (UTF_8, EncodingSource::Detected);
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let sample = &bytes[..bytes.len().min(DETECT_BYTES)];
    detector.feed(sample, sample.len() == bytes.len());
    let tld = declared.host.and_then(tld);
    let guess = detector.guess(tld.as_deref().map(str::as_bytes), Utf8Detection::Allow);
    (guess, EncodingSource::Detected)
}

/// The encoding a label names (`utf8`, `latin1`, `Shift_JIS`, …), if any.
fn label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// The host's last label in the form the detector wants: lower-case ASCII without dots, or none.
fn tld(host: &str) -> Option<String> {
    let last = host.trim_end_matches('.').rsplit('.').next()?;
    // An IP address has no top-level domain.
    let valid = last.bytes().any(|b| b.is_ascii_alphabetic())
        && last.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    valid.then(|| last.to_ascii_lowercase())
}

/// The value of the `Content-Type` header, if any (names compare case-insensitively).
fn content_type(headers: &BTreeMap<String, String>) -> Option<&str> {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.as_str())
}

/// The `charset` parameter of a `Content-Type` value (`text/html; charset="utf-8"`).
fn charset_parameter(value: &[u8]) -> Option<&[u8]> {
    value.split(|&b| b == b';').skip(1).find_map(|param| {
        let eq = param.iter().position(|&b| b == b'=')?;
        let name = param[..eq].trim_ascii();
        name.eq_ignore_ascii_case(b"charset").then(|| {
            let value = param[eq + 1..].trim_ascii();
            value
                .strip_prefix(b"\"")
                .map(|v| v.strip_suffix(b"\"").unwrap_or(v))
                .unwrap_or(value)
        })
    })
}

/// The standard's "prescan a byte stream to determine its encoding" over `head` (the first 1024
/// bytes): the first `<meta>` that declares a supported encoding, skipping comments and the
/// attributes of other tags. UTF-16 declared in a `<meta>` means UTF-8, x-user-defined means
/// windows-1252, as the standard says.
pub fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < head.len() {
        let rest = &head[i..];
        if rest.starts_with(b"<!--") {
            // The comment's `-->` may share its dashes with the opening `<!--`.
            i += 2 + find(&rest[2..], b"-->").map_or(rest.len(), |end| end + 3);
        } else if starts_with_ignore_case(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            let (found, end) = meta(head, i + 6);
            if found.is_some() {
                return found;
            }
            i = end;
        } else if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            // Another tag: skip its name, then its attributes (a `>` in a quoted value is no end).
            i += 1;
            while i < head.len() && !is_space(head[i]) && head[i] != b'>' {
                i += 1;
            }
            while let Some((_, _, next)) = attribute(head, i) {
                i = next;
            }
            i += 1;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += find(rest, b">").map_or(rest.len(), |end| end + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// The attributes of a `<meta` tag from `start`: the encoding it declares, if it declares one,
/// and where scanning goes on.
fn meta(head: &[u8], start: usize) -> (Option<&'static Encoding>, usize) {
    let (mut got_pragma, mut need_pragma, mut charset) = (false, None, None);
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut i = start;
    while let Some((name, value, next)) = attribute(head, i) {
        i = next;
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value.eq_ignore_ascii_case(b"content-type"),
            b"content" if charset.is_none() => {
                if let Some(found) = charset_in_content(&value).and_then(Encoding::for_label) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(value.trim_ascii());
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let declared = match need_pragma {
        Some(true) if !got_pragma => None,
        Some(_) => charset,
        None => None,
    };
    let encoding = declared.map(|e| {
        if e == UTF_16BE || e == UTF_16LE {
            UTF_8
        } else if e == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            e
        }
    });
    (encoding, i + 1)
}

/// The standard's "get an attribute" at `i`: the lower-cased name, the value and where the next
/// one starts, or `None` at the tag's end (`>` or the end of the bytes).
fn attribute(head: &[u8], mut i: usize) -> Option<(Vec<u8>, Vec<u8>, usize)> {
    while i < head.len() && (is_space(head[i]) || head[i] == b'/') {
        i += 1;
    }
    if i >= head.len() || head[i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    // The first character joins the name even when it is `=`.
    name.push(head[i].to_ascii_lowercase());
    i += 1;
    while i < head.len() && !matches!(head[i], b'=' | b'/' | b'>') && !is_space(head[i]) {
        name.push(head[i].to_ascii_lowercase());
        i += 1;
    }
    while i < head.len() && is_space(head[i]) {
        i += 1;
    }
    if i >= head.len() || head[i] != b'=' {
        return Some((name, Vec::new(), i));
    }
    i += 1;
    while i < head.len() && is_space(head[i]) {
        i += 1;
    }
    let mut value = Vec::new();
    match head.get(i) {
        None => return None,
        Some(&quote @ (b'"' | b'\'')) => {
            i += 1;
            while i < head.len() && head[i] != quote {
                value.push(head[i].to_ascii_lowercase());
                i += 1;
            }
            if i >= head.len() {
                return None;
            }
            i += 1;
        }
        Some(b'>') => return Some((name, value, i)),
        Some(_) => {
            while i < head.len() && !is_space(head[i]) && head[i] != b'>' {
                value.push(head[i].to_ascii_lowercase());
                i += 1;
            }
        }
    }
    Some((name, value, i))
}

/// The standard's "extract a character encoding from a meta element": the label after
/// `charset=` in a `content` value.
fn charset_in_content(content: &[u8]) -> Option<&[u8]> {
    let mut from = 0;
    loop {
        let at = from + find_ignore_case(&content[from..], b"charset")?;
        let mut i = at + 7;
        while i < content.len() && is_space(content[i]) {
            i += 1;
        }
        if content.get(i) != Some(&b'=') {
            from = at + 7;
            continue;
        }
        i += 1;
        while i < content.len() && is_space(content[i]) {
            i += 1;
        }
        return match content.get(i)? {
            &quote @ (b'"' | b'\'') => {
                let end = content[i + 1..].iter().position(|&b| b == quote)?;
                Some(&content[i + 1..i + 1 + end])
            }
            _ => {
                let end = content[i..]
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(content.len() - i);
                Some(&content[i..i + end])
            }
        };
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniffed(bytes: &[u8]) -> (&'static str, EncodingSource) {
        let (_, info) = decode(bytes, Declared::default());
        (
            Encoding::for_label(info.name.as_bytes()).unwrap().name(),
            info.source,
        )
    }

    #[test]
    fn meta_declarations_are_found_as_browsers_find_them() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"<meta charset=\"windows-1251\">", Some("windows-1251")),
            (b"<META CHARSET=koi8-r>", Some("KOI8-R")),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">",
                Some("Shift_JIS"),
            ),
            (
                b"<meta content='text/html;charset=\"gbk\"' http-equiv=content-type>",
                Some("GBK"),
            ),
            // A content charset without the pragma does not count; a charset attribute does.
            (b"<meta content=\"text/html; charset=gbk\">", None),
            (
                b"<meta name=x content=\"charset=gbk\" charset=euc-kr>",
                Some("EUC-KR"),
            ),
            // UTF-16 in a meta means UTF-8; x-user-defined means windows-1252.
            (b"<meta charset=utf-16le>", Some("UTF-8")),
            (b"<meta charset=x-user-defined>", Some("windows-1252")),
            // Unknown labels, comments and attribute values are no declarations.
            (
                b"<meta charset=klingon><meta charset=iso-8859-2>",
                Some("ISO-8859-2"),
            ),
            (b"<!-- <meta charset=gbk> --><p>", None),
            (b"<!--><meta charset=gbk>", Some("GBK")),
            (b"<div title='<meta charset=gbk>'><p>", None),
            (b"<metadata charset=gbk>", None),
            (
                b"<?xml version='1.0' encoding='gbk'?><meta charset=big5>",
                Some("Big5"),
            ),
            (b"<meta charset=\"gbk", None),
        ];
        for (html, want) in cases {
            let got = prescan(html).map(Encoding::name);
            assert_eq!(got, *want, "{}", String::from_utf8_lossy(html));
        }
        // Only the first 1024 bytes are read.
        let mut late = vec![b' '; PRESCAN_BYTES];
        late.extend_from_slice(b"<meta charset=gbk>");
        assert_eq!(sniffed(&late), ("windows-1252", EncodingSource::Default));
    }

    #[test]
    fn the_order_is_bom_transport_meta_detector_default() {
        let cp1251 = "<html><head><meta charset=\"windows-1251\"></head><body><p>Это статья на русском языке.</p></body></html>";
        let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(cp1251);
        let (text, info) = decode(&bytes, Declared::default());
        assert_eq!(text, cp1251);
        assert_eq!(
            (info.name.as_str(), info.source),
            ("windows-1251", EncodingSource::Meta)
        );
        // The record's charset wins over the meta; the header comes after the field.
        let headers = BTreeMap::from([(
            "Content-Type".to_owned(),
            "text/html; charset=\"koi8-r\"".to_owned(),
        )]);
        let field = Declared {
            charset: Some("iso-8859-5"),
            headers: Some(&headers),
            host: None,
        };
        assert_eq!(decode(&bytes, field).1.source, EncodingSource::Charset);
        let header = Declared {
            headers: Some(&headers),
            ..Declared::default()
        };
        assert_eq!(decode(&bytes, header).1.name, "KOI8-R");
        // An unknown transport label is ignored: the meta decides.
        let klingon = Declared {
            charset: Some("klingon"),
            ..Declared::default()
        };
        assert_eq!(decode(&bytes, klingon).1.source, EncodingSource::Meta);
        // A BOM wins over everything, and is removed.
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice("<meta charset=gbk><p>café</p>".as_bytes());
        let (text, info) = decode(&bom, field);
        assert_eq!(
            (text.as_str(), info.source),
            ("<meta charset=gbk><p>café</p>", EncodingSource::Bom)
        );
        // Undeclared: UTF-8 when the bytes are UTF-8, else the detector; ASCII alone, the default.
        assert_eq!(
            sniffed("<p>naïve</p>".as_bytes()),
            ("UTF-8", EncodingSource::Detected)
        );
        assert_eq!(
            sniffed(b"<p>plain</p>"),
            ("windows-1252", EncodingSource::Default)
        );
    }

    #[test]
    fn undeclared_legacy_pages_are_detected() {
        let pages: &[(&str, &'static Encoding, Option<&str>)] = &[
            ("<html><body><p>日本語のニュース記事です。今日は天気がいいので、公園を散歩しました。</p></body></html>", encoding_rs::SHIFT_JIS, Some("jp")),
            ("<html><body><p>这是一篇中文新闻文章。今天天气很好，我们去公园散步了。</p></body></html>", encoding_rs::GBK, Some("cn")),
            ("<html><body><p>Это статья на русском языке о погоде и новостях города.</p></body></html>", encoding_rs::WINDOWS_1251, Some("ru")),
            ("<html><body><p>Ceci est un article en français, écrit à la maison près du lac.</p></body></html>", encoding_rs::WINDOWS_1252, None),
        ];
        for (html, encoding, host_tld) in pages {
            let (bytes, _, _) = encoding.encode(html);
            let host = host_tld.map(|t| format!("news.example.{t}"));
            let declared = Declared {
                host: host.as_deref(),
                ..Declared::default()
            };
            let (text, info) = decode(&bytes, declared);
            assert_eq!(info.source, EncodingSource::Detected, "{html}");
            assert_eq!(info.name, encoding.name(), "{html}");
            assert_eq!(&text, html);
        }
    }

    #[test]
    fn charset_parameters_and_tlds() {
        assert_eq!(
            charset_parameter(b"text/html; Charset=\"UTF-8\""),
            Some(&b"UTF-8"[..])
        );
        assert_eq!(
            charset_parameter(b"text/html;charset=gbk;x=1"),
            Some(&b"gbk"[..])
        );
        assert_eq!(charset_parameter(b"text/html"), None);
        assert_eq!(
            charset_in_content(b"text/html; charset = 'koi8-r'"),
            Some(&b"koi8-r"[..])
        );
        assert_eq!(
            charset_in_content(b"charsetx; charset=big5;"),
            Some(&b"big5"[..])
        );
        assert_eq!(charset_in_content(b"charset='big5"), None);
        assert_eq!(tld("www.Example.RU."), Some("ru".to_owned()));
        assert_eq!(tld("10.0.0.1"), None);
        assert_eq!(tld("ex.ample.b\u{fc}cher"), None);
    }
}
