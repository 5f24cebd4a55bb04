//! Hosts and registrable domains: the Public Suffix List lookup (its ICANN and private sections, so
//! `x.blogspot.com` is a domain of its own) and the `www.` rule.

use super::error::{clip, UrlKeyError};
use url::Host;

/// Registrable domain of `host` by the Public Suffix List (ICANN and private sections): lower-case, IDN labels in
/// punycode, without a trailing dot. An IP address is its own domain (IPv6 in brackets, e.g. `[::1]`).
/// Accepts any host spelling a URL may carry (upper case, Unicode, a trailing dot, `www.` or deeper subdomains),
/// so it also checks a record's own `domain` field. Errors: `NoHost` for an empty host, `InvalidHost` when it is
/// not a host at all, `NoRegistrableDomain` for a bare public suffix (`co.uk`) or a name not under one.
pub fn registrable_domain(host: &str) -> Result<String, UrlKeyError> {
    let host = host.trim();
    if host.is_empty() {
        return Err(UrlKeyError::NoHost);
    }
    // A bare IPv6 address (no brackets) is accepted too.
    let parsed = if host.contains(':') && !host.starts_with('[') {
        Host::parse(&format!("[{host}]"))
    } else {
        Host::parse(host)
    };
    match parsed {
        Ok(Host::Domain(name)) => {
            let name = name.strip_suffix('.').unwrap_or(&name);
            check_dns_lengths(name)?;
            match domain_of(name) {
                Some(domain) => Ok(domain.to_owned()),
                None => Err(UrlKeyError::NoRegistrableDomain {
                    host: clip(name, 256),
                }),
            }
        }
        Ok(Host::Ipv4(ip)) => Ok(ip.to_string()),
        Ok(Host::Ipv6(ip)) => Ok(format!("[{ip}]")),
        Err(e) => Err(UrlKeyError::InvalidHost {
            host: clip(host, 256),
            reason: e.to_string(),
        }),
    }
}

/// A record's `domain` in the form of the key's: IDNA-normalized (`Bücher.de` is
/// `xn--bcher-kva.de`), lower-case, without a trailing dot. A value that is no host name is only
/// trimmed and lower-cased, and so disagrees with every URL.
pub fn claimed_domain(claimed: &str) -> String {
    let trimmed = claimed.trim().trim_end_matches('.');
    match url::Host::parse(trimmed) {
        Ok(url::Host::Domain(ascii)) => ascii,
        _ => trimmed.to_lowercase(),
    }
}

/// DNS limits: a name of at most 253 bytes, labels of at most 63. Longer hosts cannot be real crawled hosts.
pub(crate) fn check_dns_lengths(name: &str) -> Result<(), UrlKeyError> {
    if name.len() > 253 || name.split('.').any(|label| label.len() > 63) {
        return Err(UrlKeyError::InvalidHost {
            host: clip(name, 256),
            reason: "longer than DNS allows (253 bytes, labels of 63)".to_owned(),
        });
    }
    Ok(())
}

/// The registrable domain of a normalized DNS name (lower-case ASCII, no trailing dot), as a suffix of `name`;
/// `None` for a public suffix, a name not under one, or a name with empty labels.
pub(crate) fn domain_of(name: &str) -> Option<&str> {
    if name.is_empty() || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return None;
    }
    let found = psl::domain(name.as_bytes())?;
    let len = found.as_bytes().len();
    // The list returns a suffix of its input; take it from `name` to stay in `str`.
    let start = name.len().checked_sub(len)?;
    let domain = name.get(start..)?;
    if domain.is_empty() || (start > 0 && !name[..start].ends_with('.')) {
        return None;
    }
    Some(domain)
}

/// `host` without its leading `www.` labels when `strip` is set, as long as they are subdomain labels (not the
/// registrable label itself: `www.com` stays). Every `www.` goes, so the result is stable when stripped again.
pub(crate) fn strip_www<'a>(host: &'a str, domain: &str, strip: bool) -> &'a str {
    let mut host = host;
    if strip {
        while let Some(rest) = host
            .strip_prefix("www.")
            .filter(|rest| rest.len() >= domain.len())
        {
            host = rest;
        }
    }
    host
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psl_icann_and_private_sections() {
        assert_eq!(domain_of("news.bbc.co.uk"), Some("bbc.co.uk"));
        assert_eq!(domain_of("x.blogspot.com"), Some("x.blogspot.com"));
        assert_eq!(domain_of("a.b.x.blogspot.com"), Some("x.blogspot.com"));
        assert_eq!(domain_of("abcnews.go.com"), Some("go.com"));
        assert_eq!(domain_of("co.uk"), None);
        assert_eq!(domain_of("com"), None);
        assert_eq!(domain_of("localhost"), None);
        assert_eq!(domain_of("a..com"), None);
        assert_eq!(domain_of(""), None);
    }

    #[test]
    fn registrable_domain_accepts_any_spelling() {
        assert_eq!(registrable_domain("News.BBC.co.uk").unwrap(), "bbc.co.uk");
        assert_eq!(registrable_domain("www.forbes.com.").unwrap(), "forbes.com");
        assert_eq!(
            registrable_domain("bücher.example.de").unwrap(),
            "example.de"
        );
        assert_eq!(
            registrable_domain("216.31.193.173").unwrap(),
            "216.31.193.173"
        );
        assert_eq!(registrable_domain("::1").unwrap(), "[::1]");
        assert_eq!(
            registrable_domain("[2001:DB8::1]").unwrap(),
            "[2001:db8::1]"
        );
        assert!(matches!(
            registrable_domain("co.uk"),
            Err(UrlKeyError::NoRegistrableDomain { .. })
        ));
        assert!(matches!(
            registrable_domain("a b.com"),
            Err(UrlKeyError::InvalidHost { .. })
        ));
        assert_eq!(registrable_domain("  "), Err(UrlKeyError::NoHost));
        let label63 = "a".repeat(63);
        assert_eq!(
            registrable_domain(&format!("{label63}.com")).unwrap(),
            format!("{label63}.com")
        );
        assert!(matches!(
            registrable_domain(&format!("a{label63}.com")),
            Err(UrlKeyError::InvalidHost { .. })
        ));
        let long = format!("{}example.com", "a.".repeat(121));
        assert_eq!(long.len(), 253);
        assert_eq!(registrable_domain(&long).unwrap(), "example.com");
        assert!(matches!(
            registrable_domain(&format!("a.{long}")),
            Err(UrlKeyError::InvalidHost { .. })
        ));
    }

    #[test]
    fn www_is_stripped_only_as_a_subdomain() {
        assert_eq!(
            strip_www("www.example.com", "example.com", true),
            "example.com"
        );
        assert_eq!(
            strip_www("www.example.com", "example.com", false),
            "www.example.com"
        );
        assert_eq!(strip_www("www.com", "www.com", true), "www.com");
        assert_eq!(
            strip_www("www.x.blogspot.com", "x.blogspot.com", true),
            "x.blogspot.com"
        );
        assert_eq!(
            strip_www("www2.example.com", "example.com", true),
            "www2.example.com"
        );
    }
}
