//! Tests of the quality measure on the real evaluation corpus (`shared/corpus/<set>/docs.jsonl.gz`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use flate2::read::GzDecoder;
use serde_json::Value;

use super::report::EvalAccumulator;
use super::{render_svg, render_table, score_page, EvalReport};

fn corpus_dir() -> PathBuf {
    crate::corpus::require_shared_dir()
}

/// Up to `limit` records of a corpus set, in stream order.
fn records(set: &str, limit: usize) -> Vec<Value> {
    let path = corpus_dir().join(set).join("docs.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    BufReader::new(GzDecoder::new(file))
        .lines()
        .take(limit)
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect()
}

fn field<'a>(record: &'a Value, name: &str) -> &'a str {
    record[name].as_str().unwrap_or("")
}

/// The page's text with `script`/`style` contents and all tags removed, entities left as they are.
fn strip_tags(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    while i < html.len() {
        let rest = &lower[i..];
        let skip_to = if rest.starts_with("<script") {
            rest.find("</script").map(|k| k + "</script".len())
        } else if rest.starts_with("<style") {
            rest.find("</style").map(|k| k + "</style".len())
        } else if rest.starts_with('<') {
            rest.find('>').map(|k| k + 1)
        } else {
            let c = html[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        out.push(' ');
        i = skip_to.map_or(html.len(), |k| i + k);
    }
    out
}

#[test]
fn gold_against_itself_scores_one_and_raw_page_text_less() {
    // The first domain of the stream: articles, section fronts with a few words of gold, and
    // one page whose gold is empty.
    let pages = records("cleanportaleval", 12);
    assert_eq!(pages.len(), 12);
    let (mut articles, mut empty) = (0, 0);
    for page in &pages {
        let gold = field(page, "gold");
        let same = score_page(gold, gold);
        assert_eq!((same.f1, same.f1_bow), (1.0, 1.0));

        let raw = strip_tags(field(page, "html"));
        let s = score_page(&raw, gold);
        assert_eq!(s.gold_tokens, same.gold_tokens);
        assert!(s.extracted_tokens > s.gold_tokens);
        assert!(s.f1 < 1.0);
        assert!(
            s.f1_bow >= s.f1 - 1e-12,
            "bag of words never scores below the LCS"
        );
        if s.gold_tokens == 0 {
            empty += 1;
            assert_eq!(
                (s.precision, s.recall, s.f1, s.f1_bow),
                (0.0, 0.0, 0.0, 0.0)
            );
        } else if s.gold_tokens > 100 {
            articles += 1;
            // The gold text is on the page, so recall stays high; boilerplate costs precision.
            let url = field(page, "url");
            assert!(s.recall > 0.8, "recall {} for {url}", s.recall);
            assert!(s.precision < 0.9, "precision {} for {url}", s.precision);
            assert!(s.f1 > 0.1, "f1 {} for {url}", s.f1);
        }
    }
    assert!(
        articles >= 8 && empty == 1,
        "{articles} articles, {empty} empty"
    );
}

#[test]
fn whole_small_stream_aggregates_consistently() {
    let pages = records("cleanportaleval", usize::MAX);
    assert_eq!(pages.len(), 71);
    let mut acc = EvalAccumulator::new();
    for page in &pages {
        let s = score_page(&strip_tags(field(page, "html")), field(page, "gold"));
        acc.push(field(page, "domain"), &s);
    }
    let run = acc.finish("raw-text");
    assert_eq!(run.overall.pages, 71);
    assert_eq!(run.per_domain.len(), 4);
    let total: usize = run.per_domain.iter().map(|d| d.summary.pages).sum();
    assert_eq!(total, 71);
    assert_eq!(run.curve.len(), 71);
    assert!((run.curve[70] - run.overall.f1_lcs).abs() < 1e-12);
    assert!(run.overall.f1_lcs > 0.0 && run.overall.f1_lcs < 1.0);
    // Every domain has 12+ pages, so the cold-start split has both halves.
    assert!(run.overall.rest_f1.is_some());
    for d in &run.per_domain {
        assert_eq!(d.curve.len(), d.summary.pages);
    }

    let report = EvalReport {
        runs: vec![run.clone()],
        corpus: "cleanportaleval".to_owned(),
    };
    assert_eq!(EvalReport::from_json(&report.to_json()).unwrap(), report);
    let table = render_table(&report.runs, 10);
    for d in &run.per_domain {
        assert!(table.contains(&d.domain), "{table}");
    }
    let svg = render_svg(&report.runs);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let series = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("series"))
        .count();
    assert_eq!(series, 1 + 4);
}

#[test]
fn page_types_and_snippet_checks_of_a_labelled_corpus_are_reported() {
    // WCXB's dev split labels every page with its type and gives phrases its main text must and
    // must not contain. The gold text as the extraction passes nearly every check; the whole
    // text of the page keeps the main text but fails the must-not checks by the thousand. The
    // gold names every page the kind of its type, the raw text none.
    let path = corpus_dir().join("wcxb-dev");
    let (mut gold_acc, mut raw_acc) = (EvalAccumulator::new(), EvalAccumulator::new());
    crate::corpus::for_each_page(&path, |page| {
        let html: Value = serde_json::from_slice(&page.record).unwrap();
        let raw = strip_tags(field(&html, "html"));
        let kind = page.page_type.as_deref().and_then(super::expected_kind);
        for (acc, text, page_kind) in [
            (&mut gold_acc, page.gold.as_str(), kind),
            (&mut raw_acc, &raw, None),
        ] {
            let labels = super::PageLabels {
                page_type: page.page_type.as_deref(),
                snippets: Some(page.snippets.check(text)),
                page_kind,
            };
            acc.push_labelled(&page.domain, &score_page(text, &page.gold), labels);
        }
        Ok(())
    })
    .unwrap();
    let (gold, raw) = (gold_acc.finish("gold"), raw_acc.finish("raw"));
    let types: Vec<(&str, usize)> = gold
        .per_type
        .iter()
        .map(|t| (t.page_type.as_str(), t.summary.pages))
        .collect();
    assert_eq!(
        types,
        [
            ("article", 711),
            ("collection", 91),
            ("documentation", 89),
            ("forum", 112),
            ("listing", 98),
            ("product", 92),
            ("service", 165)
        ]
    );
    assert!(gold.per_type.iter().all(|t| t.summary.f1_bow == 1.0));
    assert!(
        raw.per_type.iter().all(|t| t.summary.f1_bow < 0.9),
        "{:?}",
        raw.per_type
    );
    let (g, r) = (gold.snippets.unwrap(), raw.snippets.unwrap());
    assert_eq!(
        (g.with_total, g.without_total),
        (r.with_total, r.without_total)
    );
    assert!(g.with_total > 6000 && g.without_total > 5000, "{g:?}");
    assert!(g.with_found * 100 >= g.with_total * 99, "{g:?}");
    assert!(g.without_found * 100 <= g.without_total, "{g:?}");
    assert!(r.without_found * 2 > r.without_total, "{r:?}");
    let by_type: usize = gold
        .per_type
        .iter()
        .filter_map(|t| t.snippets)
        .map(|c| c.with_total)
        .sum();
    assert_eq!(by_type, g.with_total);
    let forum = &gold.per_type[3];
    assert_eq!(forum.page_kinds.named(crate::tree::kind::Kind::Forum), 112);
    let raw_table = render_table(&[raw], 0);
    assert!(!raw_table.contains("page_kind"), "{raw_table}");
    let table = render_table(&[gold], 0);
    assert!(
        table.contains("page type") && table.contains("  forum"),
        "{table}"
    );
    assert!(table.contains("snippets: must contain"), "{table}");
    assert!(
        table.contains("  collection: 91/91 listing (100.0%)\n"),
        "{table}"
    );
    assert!(table.contains("  agreement: 1358/1358 (100.0%"), "{table}");
}
