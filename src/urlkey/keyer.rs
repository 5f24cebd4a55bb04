//! The URL key of a page (DESIGN §2.1-2.2): [`UrlKeyer`] turns a response (or request) URL and the page title
//! into a [`UrlKey`]: the normalized URL string, the registrable domain and the branch of the URL tree.

use super::domain::{check_dns_lengths, domain_of, strip_www};
use super::error::{clip, UrlKeyError};
use super::normalize::{push_normalized, Component, Query};
use super::rules::QueryRules;
use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// Options of URL normalization (from the config file). Unknown fields are rejected.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct KeyOptions {
    /// Drop a leading `www.` label of the host (when it is a subdomain label), so `www.x.com` and `x.com` give
    /// one key. Default true.
    pub strip_www: bool,
    /// Longest URL (bytes) that gets a key; longer ones are `TooLong`. Default 8192.
    pub max_url_bytes: usize,
}

impl Default for KeyOptions {
    /// `strip_www: true`, `max_url_bytes: 8192`.
    fn default() -> Self {
        Self {
            strip_www: true,
            max_url_bytes: 8192,
        }
    }
}

/// The key of one page. Guarantees: `key` is a valid absolute http(s) URL string that the URL parser leaves
/// unchanged, deterministic for equal inputs; `domain`, `host`, `segments` and `leaf` are derived from it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UrlKey {
    /// The normalized URL, e.g. `http://abcnews.go.com/kabc/story?id=8691010`.
    pub key: String,
    /// Registrable domain by the Public Suffix List, lower-case, punycode (`go.com`); an IP host is its own.
    pub domain: String,
    /// Normalized host without port (`abcnews.go.com`; `www.` stripped when `strip_www`).
    pub host: String,
    /// The port when it is not the scheme's default.
    pub port: Option<u16>,
    /// The branch between domain and leaf: the authority (host, plus `:port` if any) first when it differs
    /// from the domain, then the directory segments of the path (percent-normalized), e.g.
    /// `["abcnews.go.com", "kabc"]`.
    pub segments: Vec<String>,
    /// The last path segment plus `?` and the kept query, e.g. `story?id=8691010`; `""` for `/` without query.
    pub leaf: String,
}

/// Computes URL keys with one rule set and one set of options. Cheap to clone; `Send + Sync`.
#[derive(Clone, Debug)]
pub struct UrlKeyer {
    rules: QueryRules,
    options: KeyOptions,
}

impl UrlKeyer {
    /// A keyer with these rules and options.
    pub fn new(rules: QueryRules, options: KeyOptions) -> Self {
        Self { rules, options }
    }

    /// The rules in use.
    pub fn rules(&self) -> &QueryRules {
        &self.rules
    }

    /// The options in use.
    pub fn options(&self) -> &KeyOptions {
        &self.options
    }

    /// The key of a page. `url` is the response URL if known, else the request URL; `title` the page title
    /// (`None` or blank: no `_cid_`). Steps: WHATWG parsing (lower-case scheme and host, IDN to punycode,
    /// default port and dot segments removed), fragment and user info dropped, trailing dot and (option)
    /// `www.` dropped from the host, percent-encoding normalized, query parameters sorted by name (stable),
    /// `_cid_=<md5 hex of the trimmed title>` added (replacing any `_cid_` of the URL), then the first rule
    /// that applies filters the query; where none applies, the query is kept minus the rules' `strip`
    /// parameters (tracking, session ids) and `_cid_`. Never panics; errors say why there is no key.
    pub fn key(&self, url: &str, title: Option<&str>) -> Result<UrlKey, UrlKeyError> {
        if url.len() > self.options.max_url_bytes {
            return Err(UrlKeyError::TooLong {
                len: url.len(),
                limit: self.options.max_url_bytes,
            });
        }
        // The URL parser strips leading and trailing C0 controls and spaces too.
        let input = url.trim_matches(|c: char| c <= ' ');
        if input.is_empty() {
            return Err(UrlKeyError::Empty);
        }
        let parsed = Url::parse(input).map_err(|e| parse_error(input, e))?;
        let scheme = parsed.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(UrlKeyError::UnsupportedScheme {
                scheme: clip(scheme, 32),
            });
        }
        if has_empty_authority(input) {
            return Err(UrlKeyError::NoHost);
        }
        let (full_host, domain) = match parsed.host() {
            None => return Err(UrlKeyError::NoHost),
            Some(Host::Domain(name)) => {
                let name = name.strip_suffix('.').unwrap_or(name);
                if name.is_empty() {
                    return Err(UrlKeyError::NoHost);
                }
                check_dns_lengths(name)?;
                let domain = domain_of(name).ok_or_else(|| UrlKeyError::NoRegistrableDomain {
                    host: clip(name, 256),
                })?;
                (name, domain)
            }
            Some(Host::Ipv4(_) | Host::Ipv6(_)) => {
                let ip = parsed.host_str().unwrap_or_default();
                (ip, ip)
            }
        };
        let host = strip_www(full_host, domain, self.options.strip_www);
        let port = parsed.port();

        let mut key = String::with_capacity(input.len() + 48);
        key.push_str(scheme);
        key.push_str("://");
        let authority_start = key.len();
        key.push_str(host);
        if let Some(port) = port {
            key.push(':');
            key.push_str(&port.to_string());
        }
        let authority_end = key.len();
        push_normalized(parsed.path(), Component::Path, &mut key);
        let path_end = key.len();

        let title = title.map(str::trim).filter(|t| !t.is_empty());
        let mut query = Query::parse(parsed.query().unwrap_or(""), title.is_some());
        if let Some(title) = title {
            query.push_cid(title);
        }
        if !query.params.is_empty() {
            query.sort();
            query.push_to(&mut key, |_| true);
            let rule = self.rules.select(&key, &query);
            key.truncate(path_end);
            match rule {
                Some(rule) => query.push_to(&mut key, |name| rule.keeps(name)),
                None => query.push_to(&mut key, |name| self.rules.keeps_by_default(name)),
            }
        }
        debug_assert!(
            Url::parse(&key).is_ok_and(|u| u.as_str() == key),
            "key is not a fixed point: {key}"
        );

        let authority = &key[authority_start..authority_end];
        let path = &key[authority_end..path_end];
        let mut segments = Vec::new();
        if authority != domain {
            segments.push(authority.to_owned());
        }
        // Special-scheme paths always start with '/'.
        let last_slash = path.rfind('/').unwrap_or(0);
        if last_slash > 0 {
            segments.extend(path[1..last_slash].split('/').map(str::to_owned));
        }
        let mut leaf = String::with_capacity(key.len() - authority_end - last_slash);
        leaf.push_str(path.get(last_slash + 1..).unwrap_or(""));
        leaf.push_str(&key[path_end..]);

        Ok(UrlKey {
            domain: domain.to_owned(),
            host: host.to_owned(),
            port,
            segments,
            leaf,
            key,
        })
    }
}

/// The error for a URL the parser rejected: a non-http(s) scheme first, then the parser's reason.
fn parse_error(input: &str, error: url::ParseError) -> UrlKeyError {
    if let Some(scheme) = syntactic_scheme(input) {
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return UrlKeyError::UnsupportedScheme {
                scheme: clip(&scheme.to_ascii_lowercase(), 32),
            };
        }
    }
    match error {
        url::ParseError::EmptyHost => UrlKeyError::NoHost,
        other => UrlKeyError::Unparsable {
            reason: other.to_string(),
        },
    }
}

/// The scheme of `input` by RFC 3986 syntax (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), if any.
fn syntactic_scheme(input: &str) -> Option<&str> {
    let (scheme, _) = input.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// Whether the authority is empty as written (`http:///x`), which the WHATWG parser would read as host `x`.
fn has_empty_authority(input: &str) -> bool {
    input.split_once(':').is_some_and(|(_, rest)| {
        rest.bytes()
            .take_while(|b| matches!(b, b'/' | b'\\'))
            .count()
            >= 3
    })
}
