//! Helpers shared by the integration tests (`tests/it/`, `tests/kafka/`): the tools `scripts/test`
//! installs under `target/tools/` and a tansu broker started per test on a free loopback port.
#![allow(dead_code)]

pub mod stream;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[cfg(feature = "kafka")]
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
#[cfg(feature = "kafka")]
use rdkafka::client::DefaultClientContext;
#[cfg(feature = "kafka")]
use rdkafka::ClientConfig;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/tools/<name>` as installed by `scripts/test-tools`; panics (failing the test, never
/// skipping it) when it is missing.
pub fn tool(name: &str) -> PathBuf {
    let path = root().join("target/tools").join(name);
    assert!(
        path.exists(),
        "{} is missing: run scripts/test-tools to install it",
        path.display()
    );
    path
}

/// Ports handed out by [`free_port`]: below Linux's ephemeral range (32768 and up), which the
/// system draws from for every outgoing connection and every bind to port 0, so no client socket
/// of a test running beside it takes the port between the check and the server's bind.
const TEST_PORTS: std::ops::Range<u16> = 20_000..32_000;

/// A loopback port that was free a moment ago, drawn at random from [`TEST_PORTS`] (so tests
/// running at once rarely draw the same one).
pub fn free_port() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    for _ in 0..1000 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(DRAWS.fetch_add(1, Ordering::Relaxed));
        hasher.write_u32(std::process::id());
        let span = u64::from(TEST_PORTS.end - TEST_PORTS.start);
        let port = TEST_PORTS.start + (hasher.finish() % span) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in {TEST_PORTS:?}");
}

/// A tansu broker on a free loopback port, killed on drop.
pub struct Broker {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Broker {
    /// Starts the broker (`URLTREE_TANSU` or `target/tools/tansu`) and waits until it accepts
    /// connections.
    pub fn start() -> Broker {
        // A broker that finds its port taken exits, and a connection to the port would then
        // reach whoever holds it: a test must talk to its own broker, so it starts again.
        for _ in 0..5 {
            if let Some(broker) = Broker::start_on(free_port()) {
                return broker;
            }
        }
        panic!("the broker did not start on any of five ports");
    }

    /// Starts the broker on `port`; `None` when it exits at start (its port was taken).
    fn start_on(port: u16) -> Option<Broker> {
        let binary = match std::env::var_os("URLTREE_TANSU") {
            Some(path) => PathBuf::from(path),
            None => tool("tansu"),
        };
        let url = format!("tcp://127.0.0.1:{port}");
        let child = Command::new(&binary)
            .args(["broker", "--listener-url", &url])
            .args(["--advertised-listener-url", &url])
            .args(["--storage-engine", "memory://tansu/"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the broker {}: {e}", binary.display()));
        let mut broker = Broker {
            child,
            addr: format!("127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&broker.addr).is_err() {
            if let Ok(Some(_)) = broker.child.try_wait() {
                return None;
            }
            assert!(Instant::now() < deadline, "the broker did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The port answers; it is this broker's only if the broker still runs once it has had
        // time to fail its bind.
        std::thread::sleep(Duration::from_millis(200));
        match broker.child.try_wait() {
            Ok(None) => Some(broker),
            _ => None,
        }
    }

    /// Creates topics of the given partition counts.
    #[cfg(feature = "kafka")]
    pub async fn create_topics(&self, topics: &[(&str, i32)]) {
        let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
            .set("bootstrap.servers", &self.addr)
            .create()
            .expect("admin client");
        let new: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|(name, n)| NewTopic::new(name, *n, TopicReplication::Fixed(1)))
            .collect();
        let results = admin
            .create_topics(&new, &AdminOptions::new())
            .await
            .expect("create topics");
        for result in results {
            result.expect("topic created");
        }
    }
}

impl Broker {
    /// The broker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Freezes the broker (`SIGSTOP`): connections stay open but nothing is answered, as with a
    /// broker that hangs or a network that drops every packet.
    pub fn pause(&self) {
        signal(self.pid(), "-STOP");
    }

    /// Lets a paused broker run again (`SIGCONT`).
    pub fn resume(&self) {
        signal(self.pid(), "-CONT");
    }
}

/// Sends `signal` (`-TERM`, `-STOP`, ...) to process `pid`; panics unless it was delivered.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill {signal}: {e}"));
    assert!(status.success(), "kill {signal} {pid} failed");
}

impl Drop for Broker {
    fn drop(&mut self) {
        // A paused broker still dies of SIGKILL; resuming first keeps nothing stopped around.
        let _ = Command::new("kill")
            .args(["-CONT", &self.pid().to_string()])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a command to completion; panics with its output unless it succeeds. Returns stdout.
pub fn run_ok(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    stdout_of_success(command, output)
}

/// Like [`run_ok`], with `input` written to the command's stdin.
pub fn run_ok_with_input(command: &mut Command, input: &[u8]) -> String {
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, input).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    stdout_of_success(command, output)
}

fn stdout_of_success(command: &Command, output: std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Reads a file inside the crate.
pub fn read(path: impl AsRef<Path>) -> String {
    let path = root().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// GET over plain HTTP/1.1 from a loopback port; returns (status code, body), or `None` while
/// nothing listens or the answer is cut short.
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    // A server that stops answering reads as `None`, not as a test that hangs.
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.get(9..12)?.parse().ok()?;
    let body = response.split_once("\r\n\r\n")?.1.to_owned();
    Some((status, body))
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The validator of `schemas/<name>`, itself checked against its meta-schema.
pub fn validator(name: &str) -> jsonschema::Validator {
    let schema = read_json(&root().join("schemas").join(name));
    jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Panics with every violation when `instance` does not validate.
pub fn assert_valid(v: &jsonschema::Validator, instance: &serde_json::Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}
