//! Each stage of the page pipeline on its own, over real HTML and a real (temporary) state.

use super::admit::{self, Rejection};
use super::assemble::{self, Classified};
use super::{classify, learn, lookup};
use crate::blocks::{ParseLimits, Tokenizer};
use crate::config::{DomainCheck, OutputOptions};
use crate::record::{ErrorKind, Source};
use crate::state::{StateOptions, Store};
use crate::tree::{classifier, Heuristic, Label, Reason, Retention};
use crate::urlkey::{QueryRules, UrlKeyer};

fn keyer() -> UrlKeyer {
    UrlKeyer::new(QueryRules::paper_default(), Default::default())
}

fn store(dir: &std::path::Path) -> Store {
    Store::open(&StateOptions {
        path: dir.to_owned(),
        ..StateOptions::default()
    })
    .unwrap()
}

/// A page of a small site: a navigation list, a headline, one paragraph of its own, a footer.
fn record(n: usize, story: &str) -> Vec<u8> {
    let html = format!(
        "<html><body><nav><a href=\"/\">Home</a> <a href=\"/news\">News</a></nav>\
         <div class=\"story\"><h1>{story}</h1><p>The whole of {story} is told in this one \
         paragraph, which no other page of the site repeats, long enough to be a text.</p></div>\
         <p class=\"legal\">Every page of this site ends with this same notice.</p></body></html>"
    );
    serde_json::to_vec(&serde_json::json!({
        "url": format!("https://www.example.org/news/{n}.html"),
        "html": html,
        "fetched_at": "2025-03-01T12:00:00Z",
    }))
    .unwrap()
}

#[test]
fn decode_rejects_what_is_not_a_record() {
    let rejection = admit::decode(b"{\"url\": ", 1 << 20).unwrap_err();
    assert_eq!(rejection.kind, ErrorKind::InvalidJson);
    let rejection = admit::decode(b"{\"html\": \"<p>x</p>\"}", 1 << 20).unwrap_err();
    assert_eq!(rejection.kind, ErrorKind::MissingField);
    let page = admit::decode(&record(1, "Alpha"), 1 << 20).unwrap();
    assert_eq!(page.url, "https://www.example.org/news/1.html");
}

#[test]
fn key_checks_the_claimed_domain() {
    let bytes = serde_json::to_vec(&serde_json::json!({
        "url": "https://shop.example.co.uk/a/b?utm_source=x",
        "domain": "other.org",
        "html": "<p>x</p>",
    }))
    .unwrap();
    let page = admit::decode(&bytes, 1 << 20).unwrap();
    let Err(Rejection { kind, message }) = admit::key(&keyer(), DomainCheck::Verify, &page) else {
        panic!("a disagreeing domain must be rejected");
    };
    assert_eq!(kind, ErrorKind::DomainMismatch);
    assert!(message.contains("example.co.uk"), "{message}");
    let (key, branch) = admit::key(&keyer(), DomainCheck::TrustRecord, &page).unwrap();
    assert_eq!(key.domain, "other.org");
    assert_eq!(
        branch.path_to(1),
        "other.org/shop.example.co.uk",
        "the host is the first segment under the claimed domain"
    );
}

#[test]
fn a_unicode_domain_agrees_with_its_punycode_url() {
    for (url, domain) in [
        ("https://www.bücher.de/a", "bücher.de"),
        ("https://www.xn--bcher-kva.de/a", "Bücher.DE."),
        ("https://www.bücher.de/a", "xn--bcher-kva.de"),
        ("http://例え.jp/x", "例え.jp"),
    ] {
        let bytes = serde_json::to_vec(&serde_json::json!({
            "url": url, "domain": domain, "html": "<p>x</p>",
        }))
        .unwrap();
        let page = admit::decode(&bytes, 1 << 20).unwrap();
        let (key, _) = admit::key(&keyer(), DomainCheck::Verify, &page)
            .unwrap_or_else(|r| panic!("{url} {domain}: {}", r.message));
        assert!(key.domain.starts_with("xn--"), "{}", key.domain);
    }
    let bytes = serde_json::to_vec(&serde_json::json!({
        "url": "https://www.bucher.de/a", "domain": "bücher.de", "html": "x",
    }))
    .unwrap();
    let page = admit::decode(&bytes, 1 << 20).unwrap();
    let rejection = admit::key(&keyer(), DomainCheck::Verify, &page).unwrap_err();
    assert_eq!(rejection.kind, ErrorKind::DomainMismatch);
}

#[test]
fn blocks_reject_a_page_over_the_limit() {
    let mut tokenizer = Tokenizer::new(ParseLimits {
        max_html_bytes: 64,
        ..ParseLimits::default()
    });
    let page = admit::decode(&record(1, "Alpha"), 1 << 20).unwrap();
    assert_eq!(
        admit::blocks(&mut tokenizer, &page).unwrap_err().kind,
        ErrorKind::BadHtml
    );
}

/// Runs `stories` through every stage up to classification against one state, returning the
/// last page's blocks' texts and reasons.
fn stream(
    heuristic: Heuristic,
    stories: &[&str],
) -> (Vec<String>, Vec<Reason>, lookup::Evidence, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path());
    let classifier = classifier(
        heuristic,
        crate::tree::Rules::default(),
        crate::tree::Prefs::default(),
    );
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let mut last = None;
    for (n, story) in stories.iter().enumerate() {
        let mut txn = store.begin();
        let page = admit::decode(&record(n, story), 1 << 20).unwrap();
        let (key, branch) = admit::key(&keyer(), DomainCheck::Verify, &page).unwrap();
        assert!(admit::held(&mut txn, &branch, &key).unwrap().is_none());
        let blocks = admit::blocks(&mut tokenizer, &page).unwrap();
        let learned = learn::fingerprint(&key, &branch, &blocks, 0);
        let mut changes = Vec::new();
        let forgotten = learn::learn(
            &mut txn,
            branch.root(),
            &learned,
            Retention::default(),
            n as i64,
            &mut changes,
        )
        .unwrap();
        assert_eq!((forgotten, changes.len()), (0, 1));
        let (_, held) = admit::held(&mut txn, &branch, &key).unwrap().unwrap();
        assert_eq!(held, learned.fp);
        assert!(admit::is_duplicate(&held, &learned.fp));
        let evidence =
            lookup::look_up(&mut txn, classifier.as_ref(), &branch, &blocks, &learned, 0).unwrap();
        let documentation_url = crate::tree::kind::documentation_url(&key);
        let (reasons, layout) = classify::classify(
            classifier.as_ref(),
            &blocks,
            (
                page.html.len(),
                tokenizer.stats(),
                None,
                None,
                documentation_url,
                false,
            ),
            &evidence,
            None,
        );
        let (record, tally) = assemble::record(
            Classified {
                page,
                key,
                branch: &branch,
                blocks: &blocks,
                evidence: &evidence,
                reasons: &reasons,
                layout,
                heuristic,
                meta: tokenizer.take_meta(),
                documentation_url,
            },
            &Source::line("test", n as u64),
            None,
            "2025-03-01T12:00:00Z",
            &OutputOptions {
                blocks: true,
                markdown: true,
                ..OutputOptions::default()
            },
        );
        assert_eq!(
            (tally.content + tally.boilerplate) as usize,
            blocks.len(),
            "every block is tallied once"
        );
        assert_eq!(record.blocks.as_ref().map(Vec::len), Some(blocks.len()));
        // The Markdown holds the same content, the headline marked as one.
        let markdown = record.markdown.clone().unwrap();
        assert_eq!(markdown.replace("# ", ""), record.text);
        txn.commit().unwrap();
        last = Some((
            blocks.iter().map(|b| b.text.clone()).collect(),
            reasons,
            evidence,
            record.text,
        ));
    }
    last.unwrap()
}

#[test]
fn the_tree_counts_what_recurs_and_the_paper_rule_drops_it() {
    let stories = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"];
    let (texts, reasons, evidence, text) = stream(Heuristic::Strict, &stories);
    // Six pages under /news: the node is supported, the notice and navigation counted six times.
    assert_eq!(evidence.choice.support, 6);
    let notice = texts
        .iter()
        .position(|t| t.starts_with("Every page"))
        .unwrap();
    assert_eq!(evidence.counts[notice], Some(6));
    assert_eq!(reasons[notice], Reason::Repeated);
    let story = texts
        .iter()
        .position(|t| t.contains("Foxtrot is told"))
        .unwrap();
    assert_eq!(evidence.counts[story], Some(1));
    assert_eq!(reasons[story], Reason::Unique);
    assert_eq!(text, "Foxtrot\n\nThe whole of Foxtrot is told in this one paragraph, which no other page of the site repeats, long enough to be a text.");
    assert!(
        evidence.path_counts.iter().all(|&c| c == 0),
        "the paper rule reads no paths"
    );
}

#[test]
fn hybrid_reads_path_counts_and_judges_a_first_page_alone() {
    let (texts, reasons, evidence, _) = stream(Heuristic::Hybrid, &["Alpha"]);
    assert!(evidence.choice.cold_start);
    let nav = texts.iter().position(|t| t.starts_with("Home")).unwrap();
    assert_eq!(reasons[nav].label(), Label::Boilerplate);
    let story = texts
        .iter()
        .position(|t| t.contains("Alpha is told"))
        .unwrap();
    assert_eq!(reasons[story], Reason::Unique);

    let stories = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"];
    let (texts, _, evidence, text) = stream(Heuristic::Hybrid, &stories);
    let headline = texts.iter().position(|t| t == "Foxtrot").unwrap();
    assert_eq!(
        evidence.path_counts[headline], 6,
        "a short block's path count is read at a trusted node"
    );
    assert!(text.contains("Foxtrot is told"));
    assert!(!text.contains("Every page"));
}

/// A blog's post, the first page of its domain: the site's name is the page's `<h1>`, the post's
/// title an `<h3>` that links to the post, as many blog themes render them.
fn blog_post(title: Option<&str>) -> Vec<u8> {
    let html = r#"<html><head><title>Crafty Notes: Folding a paper crane</title></head>
<body><div id="outer-wrapper"><div id="header"><h1><a href="/">Crafty Notes</a></h1>
<p class="description">Things people make out of paper.</p></div>
<div id="main-wrapper"><div class="widget Blog" id="Blog1"><div class="blog-posts">
<h2 class="date-header">Monday, March 3, 2025</h2>
<div class="post"><h3 class="post-title"><a href="https://crafty.example.net/2025/03/crane.html">Folding a paper crane</a></h3>
<div class="post-body"><p>Start with a square sheet, coloured side down, and fold it in half along both diagonals.</p>
<p>Turn it over, fold it in half both ways, then collapse it along the creases into a small square base.</p>
<p>Fold the lower edges of the top layer to the centre line, lift the bottom point and flatten it into a long diamond.</p></div>
<div class="post-footer">Posted by Ann at 9:15 AM</div></div></div></div></div>
<div id="sidebar-wrapper"><div class="widget"><h2>Blog Archive</h2><ul><li><a href="/2025/03/">March</a></li><li><a href="/2025/02/">February</a></li></ul></div></div>
</div></body></html>"#;
    let mut record = serde_json::json!({
        "url": "https://crafty.example.net/2025/03/crane.html",
        "html": html,
        "fetched_at": "2025-03-03T10:00:00Z",
    });
    if let Some(title) = title {
        record["title"] = title.into();
    }
    serde_json::to_vec(&record).unwrap()
}

#[test]
fn the_heading_the_page_title_names_is_the_text_title() {
    for title in [None, Some("Folding a paper crane | Crafty Notes")] {
        let dir = tempfile::tempdir().unwrap();
        let mut config = crate::config::Config::default();
        config.state.path = dir.path().to_owned();
        let mut engine = super::Engine::open(&config).unwrap();
        let bytes = blog_post(title);
        let outcomes = engine
            .process_batch(&[super::Input::new(&bytes, Source::line("test", 1))], None)
            .unwrap();
        let super::Outcome::Clean(record) = &outcomes[0] else {
            panic!("{:?}", outcomes[0]);
        };
        assert!(
            record
                .text
                .starts_with("Folding a paper crane\n\nStart with a square sheet"),
            "{title:?}: {}",
            record.text
        );
        assert!(!record.text.contains("Crafty Notes"), "{}", record.text);
        // The record's own title, else the page's.
        assert_eq!(
            record.title.as_deref(),
            Some(title.unwrap_or("Crafty Notes: Folding a paper crane"))
        );
    }
}

#[test]
fn a_page_cut_at_the_parse_limits_says_so_in_its_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = crate::config::Config::default();
    config.state.path = dir.path().to_owned();
    config.parse.max_blocks = 3;
    config.parse.max_block_chars = 20;
    let mut engine = super::Engine::open(&config).unwrap();
    let bytes = record(1, "Alpha");
    let inputs = [super::Input::new(&bytes, Source::line("in", 1))];
    let outcomes = engine.process_batch(&inputs, None).unwrap();
    let super::Outcome::Clean(record) = &outcomes[0] else {
        panic!("{:?}", outcomes[0]);
    };
    assert!(
        record
            .warnings
            .iter()
            .any(|w| w.contains("parse.max_blocks")),
        "{:?}",
        record.warnings
    );
    assert!(
        record
            .warnings
            .iter()
            .any(|w| w.contains("parse.max_block_chars")),
        "{:?}",
        record.warnings
    );
}

/// The records of the crawl-to-the-future set at `urls`, in that order, as JSON lines.
fn corpus_records(urls: &[&str]) -> Vec<Vec<u8>> {
    use std::io::BufRead;
    let path = crate::corpus::require_shared_dir()
        .join("crawl-to-the-future")
        .join("docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut found: Vec<Option<Vec<u8>>> = vec![None; urls.len()];
    for line in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let line = line.expect("line");
        for (i, url) in urls.iter().enumerate() {
            if line.contains(&format!("\"url\": \"{url}\"")) {
                found[i] = Some(line.clone().into_bytes());
            }
        }
    }
    found
        .into_iter()
        .zip(urls)
        .map(|(r, u)| r.unwrap_or_else(|| panic!("{u} is not in the corpus")))
        .collect()
}

#[test]
fn template_clusters_split_a_node_by_template_and_a_restart_keeps_them() {
    use crate::tree::cluster::{cluster_node, member_id};
    use crate::tree::Fingerprint;
    // MSN Entertainment's movie section in 2005: movie pages, news articles, features.
    let urls = [
        "http://entertainment.msn.com/movies/movie.aspx?m=553499",
        "http://entertainment.msn.com/movies/article.aspx?news=192052",
        "http://entertainment.msn.com/movies/hitlist/11-22-05",
        "http://entertainment.msn.com/movies/movie.aspx?m=562330",
        "http://entertainment.msn.com/movies/article.aspx?news=194668",
        "http://entertainment.msn.com/movies/hotgossipb5",
        "http://entertainment.msn.com/movies/movie.aspx?m=543674",
    ];
    let records = corpus_records(&urls);
    let run = |enabled: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut config = crate::config::Config::default();
        config.state.path = dir.path().to_owned();
        // Clusters from a node's second page, deciding from their second, so that seven pages
        // show them.
        config.tree.heuristic = Heuristic::StrictSupport(2);
        config.tree.template_clusters.enabled = enabled;
        config.tree.template_clusters.min_support = 1;
        config.tree.template_clusters.decide_support = 2;
        let process = |engine: &mut super::Engine, range: std::ops::Range<usize>| {
            let inputs: Vec<super::Input<'_>> = range
                .map(|i| super::Input::new(&records[i], Source::line("msn", i as u64)))
                .collect();
            engine.process_batch(&inputs, None).unwrap()
        };
        let mut engine = super::Engine::open(&config).unwrap();
        process(&mut engine, 0..6);
        // A restart: the clusters are read back from the state.
        drop(engine);
        let mut engine = super::Engine::open(&config).unwrap();
        let outcomes = process(&mut engine, 6..7);
        let super::Outcome::Clean(last) = &outcomes[0] else {
            panic!("{:?}", outcomes[0]);
        };
        let mut clusters = vec![None; urls.len()];
        for (_, bytes) in engine.store().retained().unwrap() {
            let fp = Fingerprint::decode(&bytes).unwrap();
            let i = urls
                .iter()
                .position(|u| {
                    fp.url_key
                        .ends_with(&u["http://entertainment.msn.com".len()..])
                })
                .unwrap();
            if let Some(t) = fp.template {
                assert!(fp.nodes.contains(&cluster_node(t.node, t.cluster)));
            }
            clusters[i] = fp.template.map(|t| t.cluster);
        }
        (clusters, last.model.node.clone())
    };
    let (clusters, node) = run(true);
    // The first page finds no node with support to split; then each template has its cluster.
    assert_eq!(
        clusters,
        [None, Some(0), Some(1), Some(2), Some(0), Some(1), Some(2)]
    );
    assert_eq!(
        node, "msn.com/entertainment.msn.com/movies/~template-2",
        "the third movie page is judged among the movie pages"
    );
    let (clusters, node) = run(false);
    assert_eq!(clusters, [None; 7]);
    assert_eq!(node, "msn.com/entertainment.msn.com/movies");
    assert_ne!(member_id(urls[0]), member_id(urls[1]));
}
