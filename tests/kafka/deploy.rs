//! The operational package checked against the code: the Helm chart lints, renders (default
//! values and every optional feature on) and validates against the Kubernetes 1.30 schemas (its
//! custom resources against structural schemas of their CRDs); the config it renders follows
//! `schemas/config.v1.schema.json` and loads in the binary; the alert rules pass promtool's check
//! and unit tests, one firing and one silent case per alert; and a live `urltree run` against a
//! real broker serves a `/metrics` page that passes `promtool check metrics` and holds every
//! metric the dashboard and the alerts query, and a Prometheus server scraping it answers every
//! dashboard query with series while no alert expression holds.
//!
//! helm, kubernetes-validate (with PyYAML) and promtool come from `scripts/test-tools`
//! (`target/tools/`); a missing tool fails the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{free_port, get, read, root, run_ok, run_ok_with_input, tool, Broker};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::ClientConfig;
use serde_json::Value;

const CHART: &str = "helm/urltree";
const ALL_FEATURES: &str = "helm/urltree/ci/all-features-values.yaml";
const CRD_KINDS: [&str; 3] = ["ServiceMonitor", "PrometheusRule", "ScaledObject"];

/// `helm template` of the chart, with the default values or with a values file.
fn render(values: Option<&str>) -> String {
    let mut helm = Command::new(tool("helm"));
    helm.current_dir(root())
        .args(["template", "urltree", CHART]);
    if let Some(values) = values {
        helm.args(["-f", values]);
    }
    run_ok(&mut helm)
}

/// The documents of a YAML stream, parsed by PyYAML (installed beside kubernetes-validate).
fn yaml_docs(yaml: &str) -> Vec<Value> {
    let json = run_ok_with_input(
        Command::new("python3")
            .arg(root().join("tests/deploy/yaml2json.py"))
            .env("PYTHONPATH", tool("kubernetes-validate")),
        yaml.as_bytes(),
    );
    match serde_json::from_str(&json).unwrap() {
        Value::Array(docs) => docs,
        other => panic!("not a list of documents: {other}"),
    }
}

fn kind_of(doc: &Value) -> &str {
    doc["kind"].as_str().unwrap_or_default()
}

/// The one document of `kind` whose name ends with `suffix`.
fn find<'a>(docs: &'a [Value], kind: &str, suffix: &str) -> &'a Value {
    let found: Vec<&Value> = docs
        .iter()
        .filter(|d| {
            kind_of(d) == kind
                && d["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.ends_with(suffix))
        })
        .collect();
    assert_eq!(found.len(), 1, "{kind} *{suffix}: {found:?}");
    found[0]
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::meta::validate(schema).unwrap_or_else(|e| panic!("schema: {e}"));
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("schema: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

fn json_file(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn toml_to_json(text: &str) -> Value {
    let table: toml::Table = text.parse().unwrap_or_else(|e| panic!("TOML: {e}\n{text}"));
    serde_json::to_value(table).unwrap()
}

#[test]
fn chart_lints_renders_and_validates_against_kubernetes_schemas() {
    let crd_schemas: BTreeMap<&str, jsonschema::Validator> = CRD_KINDS
        .iter()
        .map(|kind| {
            let path = format!("tests/deploy/crds/{}.schema.json", kind.to_lowercase());
            (*kind, validator(&json_file(&path)))
        })
        .collect();
    for values in [None, Some(ALL_FEATURES)] {
        let what = values.unwrap_or("default values");
        let mut lint = Command::new(tool("helm"));
        lint.current_dir(root()).args(["lint", "--strict", CHART]);
        if let Some(values) = values {
            lint.args(["-f", values]);
        }
        run_ok(&mut lint);

        let rendered = render(values);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rendered.yaml");
        std::fs::write(&file, &rendered).unwrap();
        let output = Command::new(tool("kubernetes-validate/bin/kubernetes-validate"))
            .env("PYTHONPATH", tool("kubernetes-validate"))
            .args(["--strict", "-k", "1.30.0"])
            .arg(&file)
            .output()
            .expect("kubernetes-validate");
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{what}: {report}");

        let docs = yaml_docs(&rendered);
        let (crds, builtin): (Vec<&Value>, Vec<&Value>) =
            docs.iter().partition(|d| CRD_KINDS.contains(&kind_of(d)));
        // Every built-in resource passed; the only schema-less kinds are the CRDs, which are
        // checked here against structural schemas instead.
        let passed = report
            .lines()
            .filter(|l| l.contains(" passed for resource "))
            .count();
        assert_eq!(passed, builtin.len(), "{what}: {report}");
        for line in report.lines().filter(|l| l.starts_with("WARN")) {
            assert!(
                CRD_KINDS
                    .iter()
                    .any(|k| line.contains(&format!("schema for kind {k} "))),
                "{what}: unexpected warning {line}"
            );
        }
        for doc in &crds {
            assert_valid(&crd_schemas[kind_of(doc)], doc, what);
        }
        let kinds: BTreeSet<&str> = docs.iter().map(kind_of).collect();
        for kind in [
            "StatefulSet",
            "Service",
            "ConfigMap",
            "PodDisruptionBudget",
            "ServiceAccount",
        ] {
            assert!(kinds.contains(kind), "{what}: no {kind}");
        }
        let optional_on = values.is_some();
        for kind in CRD_KINDS {
            assert_eq!(kinds.contains(kind), optional_on, "{what}: {kind}");
        }

        // The pod: static membership from the pod name, non-root and read-only, probes, state on
        // the per-pod volume, and time for the graceful shutdown.
        let sts = find(&docs, "StatefulSet", "urltree");
        assert_eq!(sts["spec"]["podManagementPolicy"], "Parallel");
        assert_eq!(
            sts["spec"]["serviceName"],
            find(&docs, "Service", "-headless")["metadata"]["name"]
        );
        assert_eq!(
            find(&docs, "Service", "-headless")["spec"]["clusterIP"],
            "None"
        );
        let pod = &sts["spec"]["template"]["spec"];
        let container = &pod["containers"][0];
        let env = container["env"].as_array().unwrap();
        assert!(env.iter().any(|e| e["name"] == "POD_NAME"
            && e["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"));
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
        assert_eq!(
            pod["securityContext"]["seccompProfile"]["type"],
            "RuntimeDefault"
        );
        let sc = &container["securityContext"];
        assert_eq!(sc["readOnlyRootFilesystem"], true);
        assert_eq!(sc["allowPrivilegeEscalation"], false);
        assert_eq!(sc["capabilities"]["drop"], serde_json::json!(["ALL"]));
        assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz");
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
        let mounts: BTreeMap<&str, &str> = container["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["name"].as_str().unwrap(),
                    m["mountPath"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(mounts["state"], "/var/lib/urltree");
        assert_eq!(mounts["tmp"], "/tmp");
        assert_eq!(
            sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"],
            "state"
        );
        let config = toml_to_json(
            find(&docs, "ConfigMap", "urltree")["data"]["urltree.toml"]
                .as_str()
                .unwrap(),
        );
        assert_eq!(config["state"]["path"], "/var/lib/urltree");
        let shutdown = config["kafka"]["shutdown_timeout_secs"].as_i64().unwrap();
        let grace = pod["terminationGracePeriodSeconds"].as_i64().unwrap();
        assert!(
            grace >= shutdown + 5,
            "{what}: grace {grace} for {shutdown}"
        );

        // The shipped dashboard and alert rules are the files, byte for byte.
        if let Some(dashboard) = docs.iter().find(|d| {
            kind_of(d) == "ConfigMap"
                && d["metadata"]["name"]
                    .as_str()
                    .unwrap()
                    .ends_with("-dashboard")
        }) {
            assert_eq!(dashboard["metadata"]["labels"]["grafana_dashboard"], "1");
            assert_eq!(
                dashboard["data"]["urltree.json"].as_str().unwrap().trim(),
                read("helm/urltree/dashboards/urltree.json").trim()
            );
        } else {
            panic!("{what}: no dashboard ConfigMap");
        }
        if optional_on {
            let rule = find(&docs, "PrometheusRule", "urltree");
            let file = yaml_docs(&read("helm/urltree/files/alerts.yaml"));
            assert_eq!(
                rule["spec"], file[0],
                "PrometheusRule differs from files/alerts.yaml"
            );
            let sasl: Vec<&str> = env
                .iter()
                .filter(|e| e["valueFrom"]["secretKeyRef"].is_object())
                .map(|e| e["name"].as_str().unwrap())
                .collect();
            assert_eq!(
                sasl,
                [
                    "URLTREE_KAFKA__PROPERTIES__SASL.USERNAME",
                    "URLTREE_KAFKA__PROPERTIES__SASL.PASSWORD"
                ]
            );
            assert!(sts["spec"].get("replicas").is_none(), "KEDA owns replicas");
        }
    }
}

/// The environment the chart gives the container, with secrets and the pod name filled in.
fn container_env(docs: &[Value]) -> Vec<(String, String)> {
    let sts = find(docs, "StatefulSet", "urltree");
    sts["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let name = e["name"].as_str().unwrap().to_owned();
            let value = if let Some(v) = e["value"].as_str() {
                v.to_owned()
            } else if let Some(key) = e["valueFrom"]["secretKeyRef"]["key"].as_str() {
                format!("0x{key}-from-secret")
            } else {
                "urltree-0".to_owned()
            };
            (name, value)
        })
        .collect()
}

/// Writes the chart's ConfigMap files into `dir` (standing in for the /etc/urltree/config mount).
fn write_config_files(docs: &[Value], dir: &Path) {
    let data = &find(docs, "ConfigMap", "urltree")["data"];
    for name in ["urltree.toml", "url-rules.json"] {
        std::fs::write(dir.join(name), data[name].as_str().unwrap()).unwrap();
    }
}

/// `urltree` with the given environment only (no URLTREE_* variables of the test's own).
fn urltree(env: &[(String, String)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_urltree"));
    for (name, _) in std::env::vars() {
        if name.starts_with("URLTREE_") {
            command.env_remove(name);
        }
    }
    command.envs(env.iter().map(|(k, v)| (k, v)));
    command
}

#[test]
fn chart_config_follows_the_schema_and_loads_in_the_binary() {
    let config_schema = validator(&json_file("schemas/config.v1.schema.json"));
    let rules_schema = validator(&json_file("schemas/url-rules.v1.schema.json"));
    for values in [None, Some(ALL_FEATURES)] {
        let what = values.unwrap_or("default values");
        let docs = yaml_docs(&render(values));
        let data = &find(&docs, "ConfigMap", "urltree")["data"];
        let text = data["urltree.toml"].as_str().unwrap();
        assert_valid(&config_schema, &toml_to_json(text), what);
        let rules: Value = serde_json::from_str(data["url-rules.json"].as_str().unwrap()).unwrap();
        assert_valid(&rules_schema, &rules, what);
        if values.is_none() {
            assert_eq!(rules, json_file("rules/default.json"));
        }

        // The binary loads it with the pod's environment, config path rewritten to a local copy.
        let dir = tempfile::tempdir().unwrap();
        write_config_files(&docs, dir.path());
        let mut env = container_env(&docs);
        for (name, value) in &mut env {
            if name == "URLTREE_CONFIG" {
                assert_eq!(value, "/etc/urltree/config/urltree.toml");
                *value = dir.path().join("urltree.toml").display().to_string();
            }
        }
        let printed = run_ok(urltree(&env).arg("config"));
        let effective = toml_to_json(&printed);
        assert_valid(&config_schema, &effective, "effective config");
        assert_eq!(effective["state"]["path"], "/var/lib/urltree");
        assert_eq!(
            effective["rules"]["file"],
            "/etc/urltree/config/url-rules.json"
        );
        if values.is_some() {
            let props = &effective["kafka"]["properties"];
            // `urltree config` never prints a secret; the loader gets it verbatim through the
            // environment.
            assert!(!printed.contains("0xpassword-from-secret"), "{printed}");
            assert_eq!(props["sasl.password"], "<redacted>");
            let loaded = urltree::config::Config::from_toml(
                &std::fs::read_to_string(dir.path().join("urltree.toml")).unwrap(),
                None,
                env.clone(),
            )
            .unwrap();
            assert_eq!(
                loaded.kafka.properties["sasl.password"].as_str(),
                Some("0xpassword-from-secret")
            );
            // librdkafka takes these settings (SASL_SSL, SCRAM, zstd): its clients are created.
            // The TLS files exist only in the pod, so their paths are left out here.
            let mut kafka = loaded.kafka.clone();
            kafka.properties.retain(|k, _| !k.ends_with(".location"));
            assert_eq!(
                kafka.producer_properties["compression.type"].as_str(),
                Some("zstd")
            );
            kafka
                .consumer_config()
                .create::<rdkafka::consumer::BaseConsumer>()
                .unwrap_or_else(|e| panic!("{what}: consumer: {e}"));
            kafka
                .transactional_producer_config(0)
                .create::<rdkafka::producer::BaseProducer>()
                .unwrap_or_else(|e| panic!("{what}: producer: {e}"));
            assert_eq!(props["sasl.username"], "0xusername-from-secret");
            assert_eq!(props["ssl.ca.location"], "/etc/urltree/tls/ca.crt");
            assert_eq!(effective["input"]["batch_size"], 512);
            assert_eq!(effective["tree"]["heuristic"], "relaxed-at-domain-500");
        }
    }
}

#[test]
fn alert_rules_pass_promtool_and_every_alert_has_firing_and_silent_tests() {
    let promtool = tool("promtool");
    run_ok(Command::new(&promtool).current_dir(root()).args([
        "check",
        "rules",
        "helm/urltree/files/alerts.yaml",
    ]));
    let out = run_ok(Command::new(&promtool).current_dir(root()).args([
        "test",
        "rules",
        "tests/deploy/alerts.test.yaml",
    ]));
    assert!(out.contains("SUCCESS"), "{out}");

    let rules = &yaml_docs(&read("helm/urltree/files/alerts.yaml"))[0];
    let alerts: BTreeSet<&str> = rules["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .filter_map(|r| r["alert"].as_str())
        .collect();
    assert_eq!(alerts.len(), 6, "{alerts:?}");
    let tests = &yaml_docs(&read("tests/deploy/alerts.test.yaml"))[0];
    let (mut firing, mut silent) = (BTreeSet::new(), BTreeSet::new());
    for case in tests["tests"].as_array().unwrap() {
        for check in case["alert_rule_test"].as_array().unwrap() {
            let name = check["alertname"].as_str().unwrap();
            if check["exp_alerts"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
            {
                firing.insert(name);
            } else {
                silent.insert(name);
            }
        }
    }
    assert_eq!(firing, alerts, "alerts without a firing test");
    assert_eq!(silent, alerts, "alerts without a silent test");
}

/// The metric names a PromQL expression reads: identifiers outside strings, label matchers,
/// ranges and grouping clauses that are not functions, aggregations or keywords.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let mut plain = String::new();
    let mut closing = None;
    for c in expr.chars() {
        match (closing, c) {
            (None, '"') => closing = Some('"'),
            (None, '{') => closing = Some('}'),
            (None, '[') => closing = Some(']'),
            (None, c) => plain.push(c),
            (Some(end), c) if c == end => {
                closing = None;
                plain.push(' ');
            }
            _ => {}
        }
    }
    let grouping =
        regex::Regex::new(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
            .unwrap();
    let plain = grouping.replace_all(&plain, " ");
    let ident = regex::Regex::new(r"[A-Za-z_:][A-Za-z0-9_:]*").unwrap();
    const KEYWORDS: [&str; 8] = [
        "and",
        "or",
        "unless",
        "bool",
        "offset",
        "inf",
        "group_left",
        "group_right",
    ];
    ident
        .find_iter(&plain)
        .filter(|m| {
            let before = plain[..m.start()].chars().last();
            let after = plain[m.end()..].trim_start().chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
                && after != Some('(')
                && !KEYWORDS.contains(&m.as_str())
        })
        .map(|m| m.as_str().to_owned())
        .collect()
}

#[test]
fn metric_name_extraction_reads_only_metrics() {
    let names = metric_names(
        r#"histogram_quantile(0.95, sum by (le, stage) (rate(urltree_batch_seconds_bucket{stage="total", pod=~"a|b"}[5m]))) / on (pod) group_left sum(x_total offset 5m) > bool 1e-9"#,
    );
    assert_eq!(
        names,
        BTreeSet::from([
            "urltree_batch_seconds_bucket".to_owned(),
            "x_total".to_owned()
        ])
    );
}

/// Every PromQL expression of the dashboard (panel targets and template-variable queries, with
/// Grafana's variables replaced) and of the alert rules, with where it comes from.
fn queries() -> Vec<(String, String)> {
    let grafana = |expr: &str| {
        expr.replace("$__rate_interval", "5m")
            .replace("$__range", "1h")
            .replace("$namespace", ".*")
            .replace("$pod", ".*")
    };
    let dashboard = json_file("helm/urltree/dashboards/urltree.json");
    let mut out = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let title = panel["title"].as_str().unwrap_or_default();
            out.push((
                format!("dashboard panel {title:?}"),
                grafana(target["expr"].as_str().unwrap()),
            ));
        }
    }
    let label_values = regex::Regex::new(r"^label_values\((.*),\s*[A-Za-z_]+\)$").unwrap();
    for var in dashboard["templating"]["list"].as_array().unwrap() {
        if let Some(query) = var["query"]["query"].as_str() {
            let selector = label_values
                .captures(query)
                .unwrap_or_else(|| panic!("unexpected variable query {query}"))[1]
                .to_owned();
            out.push((
                format!("dashboard variable {}", var["name"]),
                grafana(&selector),
            ));
        }
    }
    let rules = &yaml_docs(&read("helm/urltree/files/alerts.yaml"))[0];
    for group in rules["groups"].as_array().unwrap() {
        for rule in group["rules"].as_array().unwrap() {
            out.push((
                format!("alert {}", rule["alert"]),
                rule["expr"].as_str().unwrap().to_owned(),
            ));
        }
    }
    out
}

#[test]
fn every_dashboard_and_alert_query_parses() {
    let queries = queries();
    assert!(queries.len() > 25, "{}", queries.len());
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, (_, expr)) in queries.iter().enumerate() {
        rules.push_str(&format!(
            "      - record: urltree:query:{i}\n        expr: {}\n",
            serde_json::to_string(expr).unwrap()
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("queries.yaml");
    std::fs::write(&file, &rules).unwrap();
    let out = run_ok(
        Command::new(tool("promtool"))
            .args(["check", "rules"])
            .arg(&file),
    );
    assert!(
        out.contains(&format!("SUCCESS: {} rules found", queries.len())),
        "{out}"
    );
}

/// Sample names (`_bucket`, `_sum`, `_count` included) of a Prometheus text page.
fn scraped_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(str::to_owned)
        .collect()
}

fn sum_of(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The worker process, sent SIGTERM and reaped on drop.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Registered in the code but only present in a scrape while a partition restores its state
/// (a per-partition gauge without fixed label values).
const ONLY_WHILE_RESTORING: [&str; 1] = ["urltree_restore_remaining_records"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_scrape_passes_promtool_and_holds_every_queried_metric() {
    let broker = Broker::start();
    broker
        .create_topics(&[
            ("raw-html", 2),
            ("clean-text", 2),
            ("urltree-dead-letters", 1),
            ("urltree-changelog", 2),
        ])
        .await;
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", &broker.addr)
        .set("message.max.bytes", "10000000")
        .create()
        .unwrap();
    let sample = urltree::corpus::load(&root().join("samples/rust-books.jsonl.gz")).unwrap();
    let mut records: Vec<(&str, Vec<u8>)> = sample
        .iter()
        .take(24)
        .map(|p| ("rust-lang.org", p.record.clone()))
        .collect();
    records.push(("example.org", b"{\"url\": 1}".to_vec()));
    records.push(("example.org", b"not json".to_vec()));
    for (key, payload) in &records {
        producer
            .send(
                FutureRecord::<str, [u8]>::to("raw-html")
                    .key(*key)
                    .payload(payload),
                Duration::from_secs(10),
            )
            .await
            .map_err(|(e, _)| e)
            .unwrap();
    }

    // The worker as the chart runs it: its rendered config and environment, with the broker,
    // paths and port of this machine.
    let docs = yaml_docs(&render(None));
    let dir = tempfile::tempdir().unwrap();
    write_config_files(&docs, dir.path());
    let port = free_port();
    let mut env = container_env(&docs);
    let local = |p: &str| dir.path().join(p).display().to_string();
    env.retain(|(name, _)| name != "URLTREE_CONFIG");
    env.extend(
        [
            ("URLTREE_CONFIG", local("urltree.toml")),
            ("URLTREE_KAFKA__BROKERS", broker.addr.clone()),
            ("URLTREE_STATE__PATH", local("state")),
            ("URLTREE_RULES__FILE", local("url-rules.json")),
            ("URLTREE_KAFKA__HTTP_LISTEN", format!("127.0.0.1:{port}")),
            (
                "URLTREE_KAFKA__CONSUMER_PROPERTIES__SESSION.TIMEOUT.MS",
                "6000".into(),
            ),
            (
                "URLTREE_KAFKA__CONSUMER_PROPERTIES__STATISTICS.INTERVAL.MS",
                "200".into(),
            ),
        ]
        .map(|(k, v)| (k.to_owned(), v)),
    );
    let _worker = Worker(
        urltree(&env)
            .args(["run", "--log-format", "json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("urltree run"),
    );

    // Scrape until every page is counted and the per-partition series exist.
    let deadline = Instant::now() + Duration::from_secs(90);
    let text = loop {
        if let Some((200, text)) = get(port, "/metrics") {
            if sum_of(&text, "urltree_pages_total") >= records.len() as f64
                && text.contains("urltree_consumer_lag_records{")
                && text.contains("urltree_state_bytes{")
            {
                break text;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the worker did not process {} records in time",
            records.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(get(port, "/healthz").map(|r| r.0), Some(200));
    // The readiness metric the alerts use says what /readyz says.
    assert_eq!(get(port, "/readyz").map(|r| r.0), Some(200));
    let ready = get(port, "/metrics").unwrap().1;
    assert_eq!(sum_of(&ready, "urltree_ready"), 1.0, "{ready}");
    assert!(sum_of(&text, "urltree_dead_letters_total") >= 2.0, "{text}");
    assert!(sum_of(&text, "urltree_blocks_total") > 0.0, "{text}");

    // promtool's linter accepts the exposition.
    run_ok_with_input(
        Command::new(tool("promtool")).args(["check", "metrics"]),
        text.as_bytes(),
    );

    // Every metric the dashboard and the alerts read is in the scrape.
    let scraped = scraped_names(&text);
    let registered = read("src/kafka/metrics.rs");
    let mut used = BTreeSet::new();
    for (origin, expr) in queries() {
        for name in metric_names(&expr) {
            if ONLY_WHILE_RESTORING.contains(&name.as_str()) {
                assert!(registered.contains(&format!("\"{name}\"")), "{name}");
            } else {
                assert!(
                    scraped.contains(&name),
                    "{origin} reads {name}, not in\n{text}"
                );
            }
            used.insert(name);
        }
    }
    assert!(used.len() >= 20, "{used:?}");

    // A Prometheus server scraping the worker answers every dashboard query with series.
    prometheus_answers_every_dashboard_query(port).await;
}

/// A Prometheus server on loopback, killed on drop.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET /api/v1/<path>` of the Prometheus at `port`, as JSON (`None` while it is not up).
fn prometheus_api(port: u16, path: &str) -> Option<Value> {
    let (status, body) = get(port, &format!("/api/v1/{path}"))?;
    (status == 200).then(|| serde_json::from_str(&body).ok())?
}

fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn prometheus_answers_every_dashboard_query(worker_port: u16) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: urltree\n    \
             static_configs:\n      - targets: ['127.0.0.1:{worker_port}']\n        \
             labels: {{namespace: crawl, pod: urltree-0}}\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let _server = Prometheus(
        Command::new(tool("prometheus/usr/bin/prometheus"))
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus"),
    );
    // Wait for three scrapes, so rates have points to work with.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let scrapes =
            prometheus_api(port, "query?query=count_over_time(up%5B1m%5D)").and_then(|v| {
                v["data"]["result"][0]["value"][1]
                    .as_str()?
                    .parse::<f64>()
                    .ok()
            });
        if scrapes.is_some_and(|n| n >= 3.0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus did not scrape the worker"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let up = prometheus_api(port, "query?query=up").unwrap();
    assert_eq!(up["data"]["result"][0]["value"][1], "1", "{up}");

    for (origin, expr) in queries() {
        let answer = prometheus_api(port, &format!("query?query={}", encode(&expr)))
            .unwrap_or_else(|| panic!("{origin}: no answer for {expr}"));
        assert_eq!(answer["status"], "success", "{origin}: {answer}");
        let reads_restore_only = metric_names(&expr)
            .iter()
            .any(|n| ONLY_WHILE_RESTORING.contains(&n.as_str()));
        // Dashboard queries show data for a running worker; alert expressions are silent.
        let series = answer["data"]["result"].as_array().map_or(0, Vec::len);
        if origin.starts_with("dashboard") && !reads_restore_only {
            assert!(series > 0, "{origin}: no series for {expr}");
        } else if origin.starts_with("alert") {
            assert_eq!(series, 0, "{origin} fires on a healthy worker: {answer}");
        }
    }
    // The template variables list the scrape's namespace and pod.
    let namespaces =
        prometheus_api(port, "label/namespace/values?match[]=urltree_pages_total").unwrap();
    assert_eq!(namespaces["data"], serde_json::json!(["crawl"]));
}

/// Dotted paths of the chart's values down to free-form maps and lists.
fn value_paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
    const FREE_FORM: [&str; 6] = [
        "config",
        "resources",
        "podSecurityContext",
        "securityContext",
        "livenessProbe",
        "readinessProbe",
    ];
    for (key, sub) in value.as_object().unwrap() {
        let path = format!("{prefix}{key}");
        match sub {
            Value::Object(map) if !map.is_empty() && !FREE_FORM.contains(&key.as_str()) => {
                value_paths(sub, &format!("{path}."), out)
            }
            _ => out.push(path),
        }
    }
}

#[test]
fn chart_readme_documents_every_value_and_the_schema_knows_them() {
    let values = &yaml_docs(&read("helm/urltree/values.yaml"))[0];
    let readme = read("helm/urltree/README.md");
    let schema = json_file("helm/urltree/values.schema.json");
    let mut paths = Vec::new();
    value_paths(values, "", &mut paths);
    assert!(paths.len() > 50, "{paths:?}");
    for path in &paths {
        assert!(
            readme.contains(&format!("`{path}`")),
            "helm/urltree/README.md does not document `{path}`"
        );
        let mut node = &schema;
        for part in path.split('.') {
            node = &node["properties"][part];
        }
        assert!(node.is_object(), "values.schema.json lacks {path}");
    }
}

#[test]
fn dashboard_has_the_structure_grafana_imports() {
    let dashboard = json_file("helm/urltree/dashboards/urltree.json");
    let schema = validator(&json_file("tests/deploy/grafana-dashboard.schema.json"));
    assert_valid(&schema, &dashboard, "dashboard");
    // Unique ids, and no two panels share a cell of the grid.
    let panels = dashboard["panels"].as_array().unwrap();
    let mut ids = BTreeSet::new();
    let mut cells = BTreeMap::new();
    for panel in panels {
        assert!(
            ids.insert(panel["id"].as_i64().unwrap()),
            "duplicate id {panel}"
        );
        let g = &panel["gridPos"];
        let [h, w, x, y] = ["h", "w", "x", "y"].map(|k| g[k].as_i64().unwrap());
        assert!(x + w <= 24, "{} overflows the grid", panel["title"]);
        for row in y..y + h {
            for col in x..x + w {
                if let Some(other) = cells.insert((row, col), panel["title"].clone()) {
                    panic!("{} overlaps {other}", panel["title"]);
                }
            }
        }
    }
    // The panels the dashboard promises.
    let titles: BTreeSet<&str> = panels.iter().filter_map(|p| p["title"].as_str()).collect();
    for title in [
        "Pages/s by outcome",
        "Consumer lag per partition",
        "Time to catch up",
        "Batch latency p50 / p95 / p99",
        "Content share of blocks",
        "Duplicates and dead letters/s",
        "Transaction aborts",
        "Restore progress",
        "Readiness and partitions",
        "RocksDB state size",
        "CPU",
        "Memory",
    ] {
        assert!(titles.contains(title), "no panel {title:?}");
    }
}

#[test]
fn chart_refuses_unsafe_or_unknown_values() {
    for (set, message) in [
        (
            "terminationGracePeriodSeconds=20",
            "must exceed config.kafka.shutdown_timeout_secs",
        ),
        (
            "kafka.sasl.enabled=true",
            "kafka.sasl.enabled needs kafka.sasl.existingSecret",
        ),
        (
            "kafka.tls.enabled=true",
            "kafka.tls.enabled needs kafka.tls.existingSecret",
        ),
        ("replicaCount=-1", "/replicaCount"),
        ("persistance.size=1Gi", "persistance"),
        ("config.kafkaa.brokers=x", "kafkaa"),
    ] {
        let output = Command::new(tool("helm"))
            .current_dir(root())
            .args(["template", "urltree", CHART, "--set", set])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{set} rendered");
        assert!(stderr.contains(message), "{set}: {stderr}");
    }
}
