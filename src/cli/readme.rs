//! Every command the documentation shows parses: README.md's and the `docs/` pages' `urltree`
//! command lines are run through the clap definitions (subcommand, flags and values), and every
//! synopsis (a line with `[optional]` parts) names flags the subcommand has and lists all of them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};

use super::Cli;

/// One command line shown in a document, with where it is.
#[derive(Debug)]
struct Shown {
    place: String,
    words: Vec<String>,
    synopsis: bool,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut paths = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    paths.extend(pages);
    paths
}

/// The shell lines of a document's `sh`/`bash` code blocks, with their line numbers: a line
/// ending in `\` and an indented line starting with `[` (a synopsis going on) continue the one
/// before; comments are left out.
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut in_shell = false;
    let mut in_block = false;
    let mut continued = false;
    for (n, line) in text.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            in_block = !in_block;
            in_shell = in_block && matches!(info.trim(), "sh" | "bash" | "shell" | "console");
            continued = false;
            continue;
        }
        if !in_shell || line.trim_start().starts_with('#') {
            continue;
        }
        let synopsis_goes_on = line.starts_with(' ') && line.trim_start().starts_with('[');
        let body = line.trim().trim_end_matches('\\').trim_end();
        match lines.last_mut() {
            Some((_, last)) if continued || synopsis_goes_on => {
                last.push(' ');
                last.push_str(body);
            }
            _ => lines.push((n + 1, body.to_owned())),
        }
        continued = line.trim_end().ends_with('\\');
    }
    lines
}

/// Splits a shell line into words (single and double quotes, no expansions), and into simple
/// commands at `&&`, `||`, `|` and `;`.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut all = vec![Vec::new()];
    let mut word = String::new();
    let mut quote = None;
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            // A comment runs to the end of the line.
            (None, '#') if !in_word => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    all.last_mut().unwrap().push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '&' | '|' | ';') => {
                if in_word {
                    all.last_mut().unwrap().push(std::mem::take(&mut word));
                    in_word = false;
                }
                if matches!(chars.peek(), Some('&' | '|')) {
                    chars.next();
                }
                all.push(Vec::new());
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        all.last_mut().unwrap().push(word);
    }
    // Redirections (`< in.html`, `> out`, `2> err`) are the shell's, not the command's.
    for command in &mut all {
        let mut kept = Vec::new();
        let mut words = command.drain(..);
        while let Some(w) = words.next() {
            if matches!(w.as_str(), "<" | ">" | ">>" | "2>" | "2>>") {
                words.next();
            } else if !(w.starts_with('<') || w.starts_with('>') || w.starts_with("2>")) {
                kept.push(w);
            }
        }
        drop(words);
        *command = kept;
    }
    all.retain(|c| !c.is_empty());
    all
}

/// The `urltree` arguments of a simple command, when it runs urltree: `urltree …`,
/// `./target/release/urltree …`, `cargo run [cargo options] -- …`.
fn urltree_args(words: &[String]) -> Option<Vec<String>> {
    let first = words.first()?.as_str();
    if first == "urltree" || first.ends_with("/urltree") {
        return Some(words[1..].to_vec());
    }
    if first == "cargo" && words.get(1).map(String::as_str) == Some("run") {
        let dash = words.iter().position(|w| w == "--")?;
        // `cargo run --example …` runs another binary.
        if words[..dash]
            .iter()
            .any(|w| w == "--example" || w == "--bin")
        {
            return None;
        }
        return Some(words[dash + 1..].to_vec());
    }
    None
}

/// Every urltree command line the documents show.
fn shown() -> Vec<Shown> {
    let mut all = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let name = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        for (line, shell) in shell_lines(&text) {
            for command in commands(&shell) {
                if let Some(args) = urltree_args(&command) {
                    let synopsis = command.iter().any(|w| w.starts_with('['));
                    let mut words = vec!["urltree".to_owned()];
                    words.extend(args);
                    all.push(Shown {
                        place: format!("{name}:{line}"),
                        words,
                        synopsis,
                    });
                }
            }
        }
    }
    all
}

/// The long and short flags of a subcommand, global ones included.
fn flags(command: &clap::Command) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for arg in command.get_arguments() {
        if let Some(long) = arg.get_long() {
            names.insert(format!("--{long}"));
        }
        if let Some(short) = arg.get_short() {
            names.insert(format!("-{short}"));
        }
    }
    names.insert("--help".into());
    names.insert("-h".into());
    names
}

/// The flags a user gives to a subcommand (not hidden, not global, not help), each as its
/// long form and its short one, either of which a synopsis may show.
fn own_flags(command: &clap::Command) -> Vec<(String, Option<String>)> {
    command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_global_set())
        .filter_map(|a| {
            let long = format!("--{}", a.get_long()?);
            Some((long, a.get_short().map(|s| format!("-{s}"))))
        })
        .filter(|(long, _)| long != "--help")
        .collect()
}

#[test]
fn every_command_in_the_documentation_parses() {
    let shown = shown();
    let readme = shown
        .iter()
        .filter(|s| s.place.starts_with("README.md"))
        .count();
    assert!(
        readme >= 6,
        "README shows {readme} urltree commands: {shown:#?}"
    );
    let cli = Cli::command();
    let mut failures = Vec::new();
    for s in shown.iter().filter(|s| !s.synopsis) {
        if let Err(e) = Cli::try_parse_from(&s.words) {
            use clap::error::ErrorKind;
            if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                failures.push(format!(
                    "{}: `{}`: {}",
                    s.place,
                    s.words.join(" "),
                    e.kind()
                ));
            }
        }
    }
    for s in shown.iter().filter(|s| s.synopsis) {
        let Some(sub) = s.words.get(1).and_then(|name| cli.find_subcommand(name)) else {
            failures.push(format!(
                "{}: `{}`: no such subcommand",
                s.place,
                s.words.join(" ")
            ));
            continue;
        };
        let known = flags(sub)
            .union(&flags(&cli))
            .cloned()
            .collect::<BTreeSet<_>>();
        for word in &s.words[2..] {
            let flag = flag_of(word);
            if flag.starts_with('-') && flag.len() > 1 && !known.contains(&flag) {
                failures.push(format!("{}: {} has no flag {flag}", s.place, s.words[1]));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The flag a synopsis word shows: `[--jobs`, `--links[=WHERE]]` and `-q]` show `--jobs`,
/// `--links` and `-q`.
fn flag_of(word: &str) -> String {
    let word = word.trim_matches(|c| "[]().,|".contains(c));
    word.split(['=', '[']).next().unwrap_or(word).to_owned()
}

#[test]
fn every_synopsis_lists_every_flag_of_its_subcommand() {
    let cli = Cli::command();
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for s in shown().iter().filter(|s| s.synopsis) {
        let Some(sub) = s.words.get(1).and_then(|name| cli.find_subcommand(name)) else {
            continue;
        };
        seen.insert(sub.get_name().to_owned());
        let listed: BTreeSet<String> = s.words[2..].iter().map(|w| flag_of(w)).collect();
        // A subcommand shown in several synopses (one per mode) lists each flag in one of them.
        let all_shown: BTreeSet<String> = shown()
            .iter()
            .filter(|o| o.synopsis && o.place.split(':').next() == s.place.split(':').next())
            .filter(|o| o.words.get(1) == s.words.get(1))
            .flat_map(|o| o.words[2..].to_vec())
            .map(|w| flag_of(&w))
            .collect();
        for (long, short) in own_flags(sub) {
            let shown = |f: &String| listed.contains(f) || all_shown.contains(f);
            if !shown(&long) && !short.as_ref().is_some_and(shown) {
                failures.push(format!(
                    "{}: the {} synopsis leaves out {long}",
                    s.place,
                    sub.get_name()
                ));
            }
        }
    }
    assert!(seen.contains("extract"), "no synopsis of extract: {seen:?}");
    failures.sort();
    failures.dedup();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_readme_gives_the_two_commands_and_ci_runs_the_second() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines: Vec<String> = shell_lines(&readme).into_iter().map(|(_, l)| l).collect();
    let quick = "scripts/setup && cargo run --release --no-default-features -- extract samples/rust-books.jsonl.gz -o out/clean.jsonl --state out/state";
    assert!(lines.iter().any(|l| l == quick), "{lines:#?}");
    assert!(lines.iter().any(|l| l == "scripts/test"), "{lines:#?}");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "exec scripts/test"), "{ci}");
    for script in [
        "scripts/setup",
        "scripts/test",
        "scripts/test-tools",
        "samples/rust-books.jsonl.gz",
    ] {
        assert!(Path::new(&root().join(script)).is_file(), "{script}");
    }
    assert!(
        readme.lines().count() <= 300,
        "README.md has {} lines; the details belong in docs/",
        readme.lines().count()
    );
}

#[test]
fn shell_lines_are_split_like_a_shell() {
    let text = "```sh\n# a comment\nurltree extract in.jsonl \\\n  -o 'out file.jsonl' 2>log && urltree config < x\nurltree eval --corpus C [--json OUT]\n             [--jobs N]\n```\n```toml\nurltree = 1\n```\n";
    let lines = shell_lines(text);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let commands = commands(&lines[0].1);
    assert_eq!(
        commands,
        [
            vec!["urltree", "extract", "in.jsonl", "-o", "out file.jsonl"],
            vec!["urltree", "config"]
        ]
    );
    assert!(lines[1].1.ends_with("[--jobs N]"), "{lines:?}");
    assert_eq!(
        urltree_args(&commands[1]).unwrap(),
        vec!["config".to_owned()]
    );
    let cargo: Vec<String> = ["cargo", "run", "--release", "--", "bench", "--corpus", "x"]
        .map(String::from)
        .to_vec();
    assert_eq!(urltree_args(&cargo).unwrap(), ["bench", "--corpus", "x"]);
}
