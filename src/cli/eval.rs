//! `urltree eval`: quality against gold corpora (DESIGN §8).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use urltree::config::Config;
use urltree::corpus::{self, Evaluation};
use urltree::eval::{self, RunReport};
use urltree::eval::{MetricsTable, SummaryTable};
use urltree::tree::{Heuristic, HeuristicParseError, Rules};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Corpus: a `docs.jsonl.gz` file, a folder holding one, or a folder of such folders (every
    /// set in it, by name); repeat for several.
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// Heuristic to evaluate; repeat to compare several on the same stream, or `all` for every
    /// classifier (`hybrid`, the paper's four, the literature's methods) in one table
    /// (default: the configured one).
    #[arg(long)]
    heuristic: Vec<HeuristicArg>,
    #[command(flatten)]
    prefs: super::prefs::PrefsArgs,
    /// Write the results as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw the cumulative moving-average F1 curves as SVG here (with several corpora, one file
    /// per corpus: the corpus name is added before the extension).
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Domains listed per run in the table.
    #[arg(long, default_value_t = 10)]
    domains: usize,
    /// Engines in parallel over each corpus, each domain's pages on one (the scores are the
    /// same; default: the machine's cores).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Also run `hybrid` with each of its rules switched off in turn, and print what each rule
    /// changes on every corpus (the ablation table).
    #[arg(long)]
    ablate: bool,
}

/// A `--heuristic` value: one heuristic, or every classifier.
#[derive(Clone, Debug)]
enum HeuristicArg {
    One(Heuristic),
    All,
}

impl std::str::FromStr for HeuristicArg {
    type Err = HeuristicParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(HeuristicArg::All),
            _ => s.parse().map(HeuristicArg::One),
        }
    }
}

/// One configuration evaluated on every corpus: a heuristic, or `hybrid` with a rule off.
struct Variant {
    label: String,
    heuristic: Heuristic,
    rules: Rules,
}

#[derive(serde::Serialize)]
struct CorpusResult {
    corpus: String,
    runs: Vec<RunReport>,
    duplicates: Vec<u64>,
    versions: Vec<u64>,
    rejected: Vec<u64>,
}

pub fn run(args: Args, mut config: Config) -> anyhow::Result<ExitCode> {
    args.prefs.configure(&mut config);
    let mut heuristics = Vec::new();
    for choice in &args.heuristic {
        let chosen = match choice {
            HeuristicArg::One(heuristic) => vec![*heuristic],
            HeuristicArg::All => Heuristic::every(),
        };
        for heuristic in chosen {
            if !heuristics.contains(&heuristic) {
                heuristics.push(heuristic);
            }
        }
    }
    if heuristics.is_empty() {
        heuristics.push(config.tree.heuristic);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let mut variants: Vec<Variant> = heuristics
        .iter()
        .map(|&heuristic| Variant {
            label: heuristic.to_string(),
            heuristic,
            rules: config.tree.rules,
        })
        .collect();
    if args.ablate {
        for name in Rules::NAMES {
            if let Some(rules) = config.tree.rules.without(name) {
                if rules != config.tree.rules {
                    variants.push(Variant {
                        label: format!("hybrid -{name}"),
                        heuristic: Heuristic::Hybrid,
                        rules,
                    });
                }
            }
        }
    }
    let mut corpora = Vec::new();
    for path in &args.corpus {
        corpora
            .extend(corpus::sets_in(path).with_context(|| format!("reading {}", path.display()))?);
    }
    let mut results = Vec::new();
    for path in &corpora {
        let name = corpus::corpus_name(path);
        let mut result = CorpusResult {
            corpus: name.clone(),
            runs: Vec::new(),
            duplicates: Vec::new(),
            versions: Vec::new(),
            rejected: Vec::new(),
        };
        for variant in &variants {
            let heuristic = variant.heuristic;
            let mut config = config.clone();
            config.tree.rules = variant.rules;
            let started = Instant::now();
            let Evaluation {
                report,
                duplicates,
                versions,
                rejected,
            } = corpus::evaluate_sharded(path, &config, heuristic, jobs)
                .with_context(|| format!("evaluating {} with {}", path.display(), variant.label))?;
            let mut report = report;
            report.heuristic = variant.label.clone();
            tracing::info!(
                corpus = %name,
                heuristic = %variant.label,
                pages = report.overall.pages,
                f1 = report.overall.f1_lcs,
                duplicates,
                versions,
                rejected,
                seconds = started.elapsed().as_secs_f64(),
                "evaluated"
            );
            result.runs.push(report);
            result.duplicates.push(duplicates);
            result.versions.push(versions);
            result.rejected.push(rejected);
        }
        println!("== {name}");
        println!("{}", eval::render_table(&result.runs, args.domains));
        for (i, run) in result.runs.iter().enumerate() {
            let (dups, versions, rejected) =
                (result.duplicates[i], result.versions[i], result.rejected[i]);
            if dups > 0 || versions > 0 || rejected > 0 {
                println!(
                    "   {}: {dups} duplicate pages skipped (not scored), {versions} new versions of a held URL (scored), {rejected} rejected (scored as empty)",
                    run.heuristic
                );
            }
        }
        if let Some(plot) = &args.plot {
            let target = if corpora.len() == 1 {
                plot.clone()
            } else {
                with_suffix(plot, &name)
            };
            let mut file = std::fs::File::create(&target)
                .with_context(|| format!("creating {}", target.display()))?;
            eval::write_svg(&result.runs, &mut file)
                .with_context(|| format!("writing {}", target.display()))?;
            eprintln!("plot: {}", target.display());
        }
        results.push(result);
    }
    if results.len() > 1 || args.ablate {
        let table = SummaryTable {
            columns: variants.iter().map(|v| v.label.clone()).collect(),
            rows: results
                .iter()
                .map(|r| {
                    let f1s = r.runs.iter().map(|run| run.overall.f1_lcs).collect();
                    (r.corpus.clone(), f1s)
                })
                .collect(),
        };
        println!("== F1 (word LCS) over {} corpora", results.len());
        print!("{}", table.render());
        if variants.len() > 1 {
            let metrics = MetricsTable::of(
                results
                    .iter()
                    .map(|r| r.runs.as_slice())
                    .collect::<Vec<_>>()
                    .as_slice(),
            );
            println!(
                "== every measure, macro over {} corpora (σ: the standard deviation of the pages' F1; ms/kB: CPU milliseconds of the pipeline per kB of HTML)",
                results.len()
            );
            print!("{}", metrics.render());
        }
        if args.ablate {
            println!("== ablation: the change in F1 when each hybrid rule is off");
            print!("{}", table.render_deltas());
        }
    }
    if let Some(types) = type_table(&results) {
        println!("== bag-of-words F1 by page type (macro: the mean over the types)");
        print!("{}", types.render());
        if args.ablate {
            println!("== ablation by page type: the change in bag-of-words F1");
            print!("{}", types.render_deltas());
        }
    }
    if let Some(json) = &args.json {
        let value = if results.len() == 1 {
            let result = &results[0];
            let mut value = if result.runs.len() == 1 {
                serde_json::to_value(&result.runs[0])?
            } else {
                serde_json::json!({ "runs": result.runs })
            };
            if let Some(object) = value.as_object_mut() {
                object.insert("corpus".into(), result.corpus.clone().into());
                object.insert("duplicates".into(), serde_json::json!(result.duplicates));
                object.insert("versions".into(), serde_json::json!(result.versions));
                object.insert("rejected".into(), serde_json::json!(result.rejected));
            }
            value
        } else {
            serde_json::json!({ "corpora": results })
        };
        let text = serde_json::to_string_pretty(&value)?;
        std::fs::write(json, text).with_context(|| format!("writing {}", json.display()))?;
        eprintln!("json: {}", json.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Bag-of-words F1 of each run on each page type of the corpora that label their pages with one,
/// a row per corpus and type; `None` when no corpus does.
fn type_table(results: &[CorpusResult]) -> Option<SummaryTable> {
    let columns: Vec<String> = results
        .first()?
        .runs
        .iter()
        .map(|r| r.heuristic.clone())
        .collect();
    let mut rows = Vec::new();
    for result in results {
        let Some(first) = result.runs.first() else {
            continue;
        };
        for (i, t) in first.per_type.iter().enumerate() {
            let f1s = result
                .runs
                .iter()
                .map(|run| run.per_type.get(i).map_or(0.0, |t| t.summary.f1_bow))
                .collect();
            rows.push((format!("{} {}", result.corpus, t.page_type), f1s));
        }
    }
    (!rows.is_empty()).then_some(SummaryTable { columns, rows })
}

fn with_suffix(path: &std::path::Path, name: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "svg".into());
    path.with_file_name(format!("{stem}-{name}.{ext}"))
}
