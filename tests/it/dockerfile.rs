//! The container image's runtime stage installs what the binary links: every shared library `ldd`
//! lists for the built binary belongs to a Debian package that the Dockerfile's runtime packages
//! pull in (themselves or through their dependencies).

use std::collections::BTreeSet;
use std::process::Command;

/// Packages `apt-get install` names in the Dockerfile's last stage.
fn runtime_packages(dockerfile: &str) -> Vec<String> {
    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap_or_default();
    let mut packages = Vec::new();
    for line in last_stage.replace("\\\n", " ").lines() {
        if let Some((_, rest)) = line.split_once("apt-get install") {
            let words = rest.split("&&").next().unwrap_or_default();
            packages.extend(
                words
                    .split_whitespace()
                    .filter(|w| !w.starts_with('-'))
                    .map(str::to_owned),
            );
        }
    }
    packages
}

fn dpkg_query(args: &[&str]) -> Option<String> {
    let out = Command::new("dpkg-query").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A package and everything it depends on, transitively (all alternatives), as installed here.
fn closure(roots: &[String]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.to_vec();
    while let Some(pkg) = todo.pop() {
        if !seen.insert(pkg.clone()) {
            continue;
        }
        let Some(depends) = dpkg_query(&["-W", "-f=${Depends},${Pre-Depends}", &pkg]) else {
            continue;
        };
        for dep in depends.split([',', '|']) {
            let name = dep.split_whitespace().next().unwrap_or_default();
            let name = name.split(':').next().unwrap_or_default();
            if !name.is_empty() {
                todo.push(name.to_owned());
            }
        }
    }
    seen
}

#[test]
fn runtime_stage_covers_every_linked_library() {
    let dockerfile =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Dockerfile")).unwrap();
    let roots = runtime_packages(&dockerfile);
    assert!(roots.contains(&"librocksdb7.8".to_owned()), "{roots:?}");
    for root in &roots {
        assert!(
            dpkg_query(&["-W", root]).is_some(),
            "runtime package {root} is not a Debian package installed here"
        );
    }
    let provided = closure(&roots);

    let ldd = Command::new("ldd")
        .arg(env!("CARGO_BIN_EXE_urltree"))
        .output()
        .expect("ldd runs");
    assert!(ldd.status.success());
    let mut libraries = 0;
    for line in String::from_utf8_lossy(&ldd.stdout).lines() {
        let Some((_, path)) = line.split_once("=> ") else {
            continue;
        };
        let path = path.split_whitespace().next().unwrap_or_default();
        if !path.starts_with('/') {
            continue;
        }
        let real = std::fs::canonicalize(path).unwrap();
        let owner = dpkg_query(&["-S", real.to_str().unwrap()])
            .or_else(|| dpkg_query(&["-S", path]))
            .unwrap_or_else(|| panic!("no Debian package owns {path}"));
        let package = owner
            .split(':')
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        assert!(
            provided.contains(&package),
            "{path} comes from {package}, which the runtime stage does not install"
        );
        libraries += 1;
    }
    assert!(libraries >= 3, "ldd listed too few libraries");
}
