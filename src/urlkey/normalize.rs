//! Percent-encoding normalization of paths and queries, query parameters (split, sort, match by name) and
//! the `_cid_` content id derived from the page title.
//!
//! Percent-encoding rule (RFC 3986 §6.2.2.2 plus a fixed form for the rest, so equivalent spellings give one
//! key): an escape of an unreserved character (`A-Za-z0-9-._~`) is decoded; any other escape gets upper-case
//! hex; a `%` not followed by two hex digits is itself escaped (`%zz` -> `%25zz`, never an error); a character
//! that RFC 3986 does not allow raw in that component (space, `"<>[]\^`{|}`, controls, non-ASCII) is escaped.

use md5::{Digest, Md5};
use std::ops::Range;

/// Name of the content-id query parameter.
pub const CID_PARAM: &str = "_cid_";

/// Which URL component a string is, for the characters allowed raw in it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
    Path,
    Query,
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Characters kept raw: RFC 3986 `pchar` (path) and `query`, less `%` (handled apart).
fn is_raw(b: u8, component: Component) -> bool {
    is_unreserved(b)
        || matches!(
            b,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'/'
        )
        || (component == Component::Query && b == b'?')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

fn push_escape(out: &mut String, b: u8) {
    out.push('%');
    out.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
    out.push(char::from(HEX_UPPER[usize::from(b & 15)]));
}

/// Appends `input` to `out` in the normalized percent-encoding of `component` (see the module doc). The
/// output is ASCII and a fixed point: normalizing it again gives it unchanged.
pub(crate) fn push_normalized(input: &str, component: Component, out: &mut String) {
    let bytes = input.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let pair = bytes
                .get(i + 1)
                .copied()
                .and_then(hex_value)
                .zip(bytes.get(i + 2).copied().and_then(hex_value));
            match pair {
                Some((hi, lo)) => {
                    let v = hi << 4 | lo;
                    if is_unreserved(v) {
                        out.push(char::from(v));
                    } else {
                        push_escape(out, v);
                    }
                    i += 3;
                }
                None => {
                    out.push_str("%25");
                    i += 1;
                }
            }
        } else {
            if is_raw(b, component) {
                out.push(char::from(b));
            } else {
                push_escape(out, b);
            }
            i += 1;
        }
    }
}

/// Appends `bytes` to `out` with every byte that `component` does not allow raw percent-encoded,
/// `%` included: for names that hold no escapes of their own, like file names.
pub(crate) fn push_escaped(bytes: &[u8], component: Component, out: &mut String) {
    for &b in bytes {
        if is_raw(b, component) {
            out.push(char::from(b));
        } else {
            push_escape(out, b);
        }
    }
}

/// Whether the normalized parameter name `name` equals `wanted` after percent-decoding, ASCII case ignored.
pub(crate) fn name_matches(name: &str, wanted: &str) -> bool {
    name_compare(name, wanted, false)
}

/// Whether the normalized parameter name `name` matches `pattern` after percent-decoding, ASCII case
/// ignored, where a `pattern` ending in `*` matches every name that starts with the rest (`utm_*`).
pub(crate) fn name_matches_pattern(name: &str, pattern: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name_compare(name, prefix, true),
        None => name_compare(name, pattern, false),
    }
}

/// Compares a normalized name, decoded byte by byte, with `wanted`; with `prefix`, `wanted` need
/// only be a prefix of the decoded name.
fn name_compare(name: &str, wanted: &str, prefix: bool) -> bool {
    let n = name.as_bytes();
    let mut w = wanted.as_bytes().iter();
    let mut i = 0;
    while i < n.len() {
        let b = if n[i] == b'%' && i + 2 < n.len() {
            match (hex_value(n[i + 1]), hex_value(n[i + 2])) {
                (Some(hi), Some(lo)) => {
                    i += 3;
                    hi << 4 | lo
                }
                _ => {
                    i += 1;
                    b'%'
                }
            }
        } else {
            i += 1;
            n[i - 1]
        };
        match w.next() {
            Some(&c) if c.eq_ignore_ascii_case(&b) => {}
            None if prefix => return true,
            _ => return false,
        }
    }
    w.next().is_none()
}

/// One query parameter: byte ranges into the buffer of normalized parameters.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    /// The whole `name=value` (or `name`).
    pub all: Range<usize>,
    /// The name.
    pub name: Range<usize>,
}

/// The normalized query parameters of one URL, in one buffer.
#[derive(Default, Debug)]
pub(crate) struct Query {
    pub buf: String,
    pub params: Vec<Param>,
}

impl Query {
    /// Parses `raw` (the query without `?`): splits on `&`, drops empty pieces, normalizes each piece.
    /// When `drop_cid` is set, parameters named `_cid_` are left out (a title-derived one replaces them).
    pub(crate) fn parse(raw: &str, drop_cid: bool) -> Self {
        let mut q = Query {
            buf: String::with_capacity(raw.len() + 40),
            params: Vec::new(),
        };
        for piece in raw.split('&').filter(|p| !p.is_empty()) {
            // `&amp;` is an HTML-escaped separator copied into the URL: the parameter follows it.
            let piece = match piece.get(..4) {
                Some(amp) if amp.eq_ignore_ascii_case("amp;") && piece.len() > 4 => &piece[4..],
                _ => piece,
            };
            let start = q.buf.len();
            push_normalized(piece, Component::Query, &mut q.buf);
            let end = q.buf.len();
            let name_end = q.buf[start..end].find('=').map_or(end, |i| start + i);
            if drop_cid && name_matches(&q.buf[start..name_end], CID_PARAM) {
                q.buf.truncate(start);
                continue;
            }
            q.params.push(Param {
                all: start..end,
                name: start..name_end,
            });
        }
        q
    }

    /// Appends the `_cid_` parameter: the lower-case hex MD5 of `title` (trimmed).
    pub(crate) fn push_cid(&mut self, title: &str) {
        let digest = Md5::digest(title.trim().as_bytes());
        let start = self.buf.len();
        self.buf.push_str(CID_PARAM);
        let name_end = self.buf.len();
        self.buf.push('=');
        for b in digest.iter() {
            self.buf
                .push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
            self.buf
                .push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
        }
        self.params.push(Param {
            all: start..self.buf.len(),
            name: start..name_end,
        });
    }

    /// Sorts the parameters by name (byte order), stable for equal names.
    pub(crate) fn sort(&mut self) {
        let buf = &self.buf;
        self.params
            .sort_by(|a, b| buf[a.name.clone()].cmp(&buf[b.name.clone()]));
    }

    /// The name of a parameter.
    pub(crate) fn name(&self, p: &Param) -> &str {
        &self.buf[p.name.clone()]
    }

    /// Whether any parameter's name matches `wanted` (see [`name_matches`]).
    pub(crate) fn has(&self, wanted: &str) -> bool {
        self.params
            .iter()
            .any(|p| name_matches(self.name(p), wanted))
    }

    /// Appends `?` and the parameters accepted by `keep`, joined by `&`, in their current order; nothing when
    /// none is accepted.
    pub(crate) fn push_to(&self, out: &mut String, mut keep: impl FnMut(&str) -> bool) {
        let mut first = true;
        for p in &self.params {
            if !keep(self.name(p)) {
                continue;
            }
            out.push(if first { '?' } else { '&' });
            first = false;
            out.push_str(&self.buf[p.all.clone()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str, c: Component) -> String {
        let mut out = String::new();
        push_normalized(s, c, &mut out);
        out
    }

    #[test]
    fn percent_escapes_are_normalized() {
        assert_eq!(
            norm("/%7euser/%41%62%2d%5F%2E", Component::Path),
            "/~user/Ab-_."
        );
        assert_eq!(norm("/a%2fb%c3%bc", Component::Path), "/a%2Fb%C3%BC");
        assert_eq!(norm("/%zz%", Component::Path), "/%25zz%25");
        assert_eq!(norm("/%4", Component::Path), "/%254");
        assert_eq!(
            norm("/a b|{}^`[]\"\\", Component::Path),
            "/a%20b%7C%7B%7D%5E%60%5B%5D%22%5C"
        );
        assert_eq!(norm("/a?b", Component::Path), "/a%3Fb");
        assert_eq!(norm("a=b?c/d", Component::Query), "a=b?c/d");
        assert_eq!(norm("/ü", Component::Path), "/%C3%BC");
        assert_eq!(norm("x=%26%3d", Component::Query), "x=%26%3D");
    }

    #[test]
    fn escaping_takes_percent_literally() {
        let mut out = String::new();
        push_escaped("a b#1 100%41ü".as_bytes(), Component::Path, &mut out);
        assert_eq!(out, "a%20b%231%20100%2541%C3%BC");
        let mut out = String::new();
        push_escaped(b"t=7&f=/2?", Component::Query, &mut out);
        assert_eq!(out, "t=7&f=/2?");
    }

    #[test]
    fn normalization_is_a_fixed_point() {
        for s in [
            "/%7e%zz%C3%bc ~x",
            "/a%2",
            "%%%",
            "/%25zz",
            "q=%41&b=%e2%82%ac",
        ] {
            let once = norm(s, Component::Query);
            assert_eq!(norm(&once, Component::Query), once, "{s}");
        }
    }

    #[test]
    fn names_match_decoded_and_case_insensitive() {
        assert!(name_matches("storyID", "storyid"));
        assert!(name_matches("global%5B_id%5D", "global[_id]"));
        assert!(name_matches("%C3%BC", "ü"));
        assert!(!name_matches("ids", "id"));
        assert!(!name_matches("i", "id"));
        assert!(name_matches("%", "%"));
        assert!(name_matches("%2", "%2"));
        assert!(name_matches("%25", "%"));
        assert!(!name_matches("%25", "%25"));
        assert!(name_matches_pattern("UTM_Source", "utm_*"));
        assert!(name_matches_pattern("utm_", "utm_*"));
        assert!(name_matches_pattern("utm%5Fx", "utm_*"));
        assert!(!name_matches_pattern("utm", "utm_*"));
        assert!(!name_matches_pattern("xutm_a", "utm_*"));
        assert!(name_matches_pattern("fbclid", "FBCLID"));
        assert!(!name_matches_pattern("fbclid2", "fbclid"));
    }

    #[test]
    fn html_escaped_separators_are_read_as_separators() {
        let q = Query::parse("a=1&amp;b=2&AMP;c=3&amp;&amp;=4", false);
        let mut out = String::new();
        q.push_to(&mut out, |_| true);
        assert_eq!(out, "?a=1&b=2&c=3&amp;&=4");
    }

    #[test]
    fn query_parse_sort_and_cid() {
        let mut q = Query::parse("b=2&a=1&&a=0&_cid_=x&c", true);
        q.push_cid("  Title ");
        q.sort();
        let mut out = String::new();
        q.push_to(&mut out, |_| true);
        let cid: String = Md5::digest(b"Title")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(out, format!("?_cid_={cid}&a=1&a=0&b=2&c"));
        let mut out = String::new();
        q.push_to(&mut out, |n| n == "zzz");
        assert_eq!(out, "");
        assert!(q.has("A"));
        assert!(!Query::parse("_cid_=1", true).has(CID_PARAM));
        assert!(Query::parse("_cid_=1", false).has(CID_PARAM));
    }
}
