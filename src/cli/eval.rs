//! `urltree eval`: quality against gold corpora (DESIGN §8).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use urltree::config::Config;
use urltree::corpus::{self, Evaluation};
use urltree::eval::{self, RunReport};
use urltree::tree::Heuristic;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Corpus: a `docs.jsonl.gz` file or a folder holding one; repeat for several.
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// Heuristic to evaluate; repeat to compare several (default: the configured one).
    #[arg(long)]
    heuristic: Vec<Heuristic>,
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
}

#[derive(serde::Serialize)]
struct CorpusResult {
    corpus: String,
    runs: Vec<RunReport>,
    duplicates: Vec<u64>,
    versions: Vec<u64>,
    rejected: Vec<u64>,
}

pub fn run(args: Args, config: Config) -> anyhow::Result<ExitCode> {
    let heuristics = if args.heuristic.is_empty() {
        vec![config.tree.heuristic]
    } else {
        args.heuristic.clone()
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let mut results = Vec::new();
    for path in &args.corpus {
        let name = corpus::corpus_name(path);
        let mut result = CorpusResult {
            corpus: name.clone(),
            runs: Vec::new(),
            duplicates: Vec::new(),
            versions: Vec::new(),
            rejected: Vec::new(),
        };
        for &heuristic in &heuristics {
            let started = Instant::now();
            let Evaluation {
                report,
                duplicates,
                versions,
                rejected,
            } = corpus::evaluate_sharded(path, &config, heuristic, jobs)
                .with_context(|| format!("evaluating {} with {heuristic}", path.display()))?;
            tracing::info!(
                corpus = %name,
                %heuristic,
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
            let target = if args.corpus.len() == 1 {
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
    if results.len() > 1 {
        println!("== macro mean over {} corpora", results.len());
        for (i, heuristic) in heuristics.iter().enumerate() {
            let f1s: Vec<f64> = results.iter().map(|r| r.runs[i].overall.f1_lcs).collect();
            let mean = f1s.iter().sum::<f64>() / f1s.len() as f64;
            println!("   {heuristic:<28} F1 {mean:.3}");
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
