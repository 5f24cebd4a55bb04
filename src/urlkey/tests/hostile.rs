//! Hostile and malformed URLs: each gives the right error (or a well-defined key), never a panic.

use crate::urlkey::{registrable_domain, KeyOptions, QueryRules, UrlKeyError, UrlKeyer};

fn keyer() -> UrlKeyer {
    UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default())
}

fn err(url: &str) -> UrlKeyError {
    match keyer().key(url, Some("title")) {
        Ok(k) => panic!("{url:?} gave key {}", k.key),
        Err(e) => e,
    }
}

#[test]
fn too_long() {
    let url = format!("http://example.com/{}", "a".repeat(16 * 1024));
    assert_eq!(
        err(&url),
        UrlKeyError::TooLong {
            len: url.len(),
            limit: 8192
        }
    );
    assert!(
        err(&url).to_string().contains("the limit is 8192"),
        "{}",
        err(&url)
    );
    let roomy = UrlKeyer::new(
        QueryRules::paper_default(),
        KeyOptions {
            max_url_bytes: 32 * 1024,
            strip_www: true,
        },
    );
    assert!(roomy.key(&url, None).is_ok());
}

#[test]
fn bad_percent_escapes_are_kept_literally() {
    let k = keyer().key("http://a.com/%zz%", None).unwrap();
    assert_eq!(k.key, "http://a.com/%25zz%25");
    assert_eq!(keyer().key(&k.key, None).unwrap().key, k.key);
    let q = keyer().key("http://a.com/x?id=%G1%&p=%4", None).unwrap();
    assert_eq!(q.key, "http://a.com/x?id=%25G1%25&p=%254");
}

#[test]
fn no_host() {
    assert_eq!(err("http:///x"), UrlKeyError::NoHost);
    assert_eq!(err("https:////x"), UrlKeyError::NoHost);
    assert_eq!(err("http://"), UrlKeyError::NoHost);
    assert_eq!(err("http://./x"), UrlKeyError::NoHost);
}

#[test]
fn non_http_schemes() {
    for (url, scheme) in [
        ("javascript:alert(1)", "javascript"),
        ("mailto:a@b.c", "mailto"),
        ("ftp://x.com", "ftp"),
        ("file:///etc/passwd", "file"),
        ("data:text/html,<script>alert(1)</script>", "data"),
        ("FTP://", "ftp"),
    ] {
        assert_eq!(
            err(url),
            UrlKeyError::UnsupportedScheme {
                scheme: scheme.into()
            },
            "{url}"
        );
    }
    let long_scheme = format!("{}:x", "s".repeat(500));
    match err(&long_scheme) {
        UrlKeyError::UnsupportedScheme { scheme } => {
            assert!(scheme.chars().count() <= 33, "{scheme}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn empty_and_blank() {
    assert_eq!(err(""), UrlKeyError::Empty);
    assert_eq!(err("   \t\n"), UrlKeyError::Empty);
    assert_eq!(err("\0"), UrlKeyError::Empty);
}

#[test]
fn nul_bytes_and_spaces() {
    assert!(matches!(
        err("http://a\0.com/"),
        UrlKeyError::Unparsable { .. }
    ));
    assert!(matches!(
        err("http://a b.com/"),
        UrlKeyError::Unparsable { .. }
    ));
    assert!(matches!(err("not a url"), UrlKeyError::Unparsable { .. }));
    assert!(matches!(
        err("/relative/path"),
        UrlKeyError::Unparsable { .. }
    ));
    assert!(matches!(
        err("http://[::1/"),
        UrlKeyError::Unparsable { .. }
    ));
    assert!(matches!(
        err("http://example.com:99999/"),
        UrlKeyError::Unparsable { .. }
    ));
    // In the path they are escaped, and the key is still a valid URL.
    assert_eq!(
        keyer().key("http://a.com/x\0y z", None).unwrap().key,
        "http://a.com/x%00y%20z"
    );
    assert_eq!(
        keyer().key("http://a.com/ x ?p= 1 ", None).unwrap().key,
        "http://a.com/%20x%20?p=%201"
    );
}

#[test]
fn bare_public_suffix_hosts() {
    for (url, host) in [
        ("http://co.uk/", "co.uk"),
        ("http://com/", "com"),
        ("http://localhost:8080/x", "localhost"),
    ] {
        assert_eq!(
            err(url),
            UrlKeyError::NoRegistrableDomain { host: host.into() },
            "{url}"
        );
    }
    assert!(err("http://co.uk/").to_string().contains("co.uk"));
}

#[test]
fn error_messages_name_the_problem() {
    assert_eq!(err("").to_string(), "empty URL");
    assert!(err("ftp://x.com").to_string().contains("`ftp`"));
    assert!(err("http://a b.com/")
        .to_string()
        .starts_with("unparsable URL: "));
    assert_eq!(err("http:///x").to_string(), "URL has no host");
}

#[test]
fn overlong_hosts() {
    let url = format!("http://{}example.com/", "a.".repeat(200));
    assert!(
        matches!(err(&url), UrlKeyError::InvalidHost { .. }),
        "{:?}",
        err(&url)
    );
    assert!(matches!(
        err(&format!("http://{}.com/", "b".repeat(64))),
        UrlKeyError::InvalidHost { .. }
    ));
    assert!(keyer()
        .key(&format!("http://{}.com/", "b".repeat(63)), None)
        .is_ok());
}

#[test]
fn registrable_domain_of_hostile_hosts() {
    assert!(registrable_domain(&"a.".repeat(5000)).is_err());
    assert!(registrable_domain("\0").is_err());
    assert!(registrable_domain("%").is_err());
    assert!(registrable_domain("[").is_err());
    assert!(registrable_domain("co.uk").is_err());
}
