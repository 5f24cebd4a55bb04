//! `urltree._urltree`: the Python module over urltree's library API (`urltree::embed`). It only
//! converts: Python arguments into a page, a configuration or a record, the library's records
//! into JSON text, its errors into the exceptions of `urltree/_errors.py`. The package
//! `urltree` (python/urltree) wraps it with trafilatura's argument names and docstrings.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use pyo3::call::PyCallArgs;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use urltree::config::Config;
use urltree::embed::{self, Html, InputError, Page, StateDir};
use urltree::engine::Outcome;
use urltree::local::{InputSpec, OpenError, RecordSource};

/// Raises the exception class `name` of `urltree._errors` with `args`.
fn raise<'py>(py: Python<'py>, name: &str, args: impl PyCallArgs<'py>) -> PyErr {
    let class = py
        .import("urltree._errors")
        .and_then(|module| module.getattr(name));
    match class.and_then(|class| class.call1(args)) {
        Ok(error) => PyErr::from_value(error),
        Err(e) => e,
    }
}

/// The Python exception of a library error.
fn error(py: Python<'_>, e: embed::Error) -> PyErr {
    match e {
        embed::Error::Rejected(rejected) => rejected_error(py, rejected),
        embed::Error::Config(e) => raise(py, "ConfigError", (e.to_string(),)),
        embed::Error::Rules(e) => raise(py, "ConfigError", (e.to_string(),)),
        embed::Error::State(e) => raise(py, "StateError", (e.to_string(),)),
        embed::Error::TempDir(e) => raise(py, "StateError", (e.to_string(),)),
        embed::Error::Closed => raise(py, "ClosedError", ("the Extractor is closed",)),
    }
}

/// The exception of a rejected page: the class of its dead-letter kind.
fn rejected_error(py: Python<'_>, rejected: embed::Rejected) -> PyErr {
    raise(
        py,
        "_rejected",
        (rejected.kind.as_str(), rejected.message.clone()),
    )
}

/// The configuration: defaults, or the TOML text given (no environment overrides).
fn config(py: Python<'_>, toml: Option<&str>) -> PyResult<Config> {
    match toml {
        None => Ok(Config::default()),
        Some(text) => Config::from_toml(text, Some("config".into()), std::iter::empty())
            .map_err(|e| raise(py, "ConfigError", (e.to_string(),))),
    }
}

/// The TOML text of `text` (a config file's, named `origin` in errors) with the sections of the
/// JSON object `overrides` laid over it, field by field; checked to be a valid configuration.
#[pyfunction]
fn config_toml(
    py: Python<'_>,
    text: String,
    origin: String,
    overrides: String,
) -> PyResult<String> {
    let invalid = |message: String| raise(py, "ConfigError", (message,));
    let mut table: toml::Table = text
        .parse()
        .map_err(|e| invalid(format!("invalid config in {origin}: {e}")))?;
    let overrides: toml::Table = serde_json::from_str(&overrides)
        .map_err(|e| invalid(format!("invalid config values: {e}")))?;
    for (name, value) in overrides {
        match (table.get_mut(&name), value) {
            (Some(toml::Value::Table(section)), toml::Value::Table(fields)) => {
                section.extend(fields)
            }
            (_, value) => {
                table.insert(name, value);
            }
        }
    }
    let text = table.to_string();
    Config::from_toml(&text, Some(origin), std::iter::empty())
        .map_err(|e| invalid(e.to_string()))?;
    Ok(text)
}

/// A page's HTML as the library takes it: `str` as text, `bytes` (or `bytearray`) as fetched.
enum OwnedHtml {
    Text(String),
    Bytes(Vec<u8>),
}

impl OwnedHtml {
    fn of(html: &Bound<'_, PyAny>) -> PyResult<OwnedHtml> {
        if let Ok(text) = html.cast::<PyString>() {
            return Ok(OwnedHtml::Text(text.to_cow()?.into_owned()));
        }
        if let Ok(bytes) = html.cast::<PyBytes>() {
            return Ok(OwnedHtml::Bytes(bytes.as_bytes().to_vec()));
        }
        match html.extract::<Vec<u8>>() {
            Ok(bytes) => Ok(OwnedHtml::Bytes(bytes)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "html must be str or bytes, not {}",
                html.get_type().name()?
            ))),
        }
    }

    fn as_html(&self) -> Html<'_> {
        match self {
            OwnedHtml::Text(text) => Html::Text(text),
            OwnedHtml::Bytes(bytes) => Html::Bytes(bytes),
        }
    }
}

/// One raw-html record from Python: a JSON line as `bytes` or `str`.
fn record_bytes(record: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = record.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(text) = record.cast::<PyString>() {
        return Ok(text.to_cow()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "a record must be a dict, or one raw-html JSON record as str or bytes, not {}",
        record.get_type().name()?
    )))
}

/// What `output` asks of a record: its `text`, its `markdown`, or all of it as JSON.
fn select(record: &embed::Extracted, output: &str) -> PyResult<Option<String>> {
    if record.text.is_empty() {
        return Ok(None);
    }
    match output {
        "text" => Ok(Some(record.text.clone())),
        "markdown" => Ok(record.markdown.clone()),
        "json" => serde_json::to_string(record)
            .map(Some)
            .map_err(|e| PyRuntimeError::new_err(e.to_string())),
        other => Err(PyTypeError::new_err(format!("unknown output {other:?}"))),
    }
}

/// One page without a state: its `text`, `markdown` or JSON record (`output`), `None` when it
/// has no main text. The work runs detached from the interpreter.
#[pyfunction]
#[pyo3(signature = (html, url, output, *, title=None, config_toml=None))]
fn extract_page(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<String>,
    output: String,
    title: Option<String>,
    config_toml: Option<String>,
) -> PyResult<Option<String>> {
    let html = OwnedHtml::of(html)?;
    let config = config(py, config_toml.as_deref())?;
    let url = url.unwrap_or_else(|| embed::UNKNOWN_URL.to_owned());
    let result = py.detach(|| {
        let mut page = Page::new(&url, html.as_html());
        page.title = title.as_deref();
        embed::extract_with(&page, &config)
    });
    match result {
        Ok(record) => select(&record, &output),
        Err(e) => Err(error(py, e)),
    }
}

/// A local input opened for an extractor: JSONL, WARC, a directory, one HTML page.
#[pyclass(module = "urltree._urltree")]
struct Input {
    source: Mutex<RecordSource>,
}

/// The URL Tree over a stream: `urltree.Extractor`'s engine.
#[pyclass(module = "urltree._urltree")]
struct Extractor {
    inner: Mutex<Option<embed::Extractor>>,
    config: Config,
    path: PathBuf,
    temporary: bool,
}

impl Extractor {
    fn lock(&self) -> PyResult<MutexGuard<'_, Option<embed::Extractor>>> {
        self.inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the Extractor failed in another thread"))
    }

    /// Runs `f` on the open extractor, detached from the interpreter.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut embed::Extractor) -> Result<T, embed::Error> + Send,
    ) -> PyResult<T> {
        let result = py.detach(|| {
            let mut guard = self.lock()?;
            Ok::<_, PyErr>(match guard.as_mut() {
                Some(extractor) => f(extractor),
                None => Err(embed::Error::Closed),
            })
        })?;
        result.map_err(|e| error(py, e))
    }
}

/// An outcome as `(kind, json)`: `("clean", record)`, `("rejected", dead letter)` or
/// `("duplicate", {"url_key", "domain"})`.
fn outcome_json(outcome: &Outcome) -> PyResult<(&'static str, String)> {
    let json = match outcome {
        Outcome::Clean(record) => serde_json::to_string(record).map(|j| ("clean", j)),
        Outcome::Rejected(dead) => serde_json::to_string(dead).map(|j| ("rejected", j)),
        Outcome::Duplicate { url_key, domain } => Ok((
            "duplicate",
            serde_json::json!({"url_key": url_key, "domain": domain}).to_string(),
        )),
    };
    json.map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymethods]
impl Extractor {
    /// Opens the state at `state` (a temporary one when `None`) with the TOML configuration.
    #[new]
    #[pyo3(signature = (state=None, config_toml=None))]
    fn new(py: Python<'_>, state: Option<PathBuf>, config_toml: Option<String>) -> PyResult<Self> {
        let config = config(py, config_toml.as_deref())?;
        let temporary = state.is_none();
        let dir = match state {
            Some(path) => StateDir::Path(path),
            None => StateDir::Temporary,
        };
        let extractor = py
            .detach(|| embed::Extractor::open(&config, dir))
            .map_err(|e| error(py, e))?;
        Ok(Extractor {
            path: extractor.path().to_owned(),
            inner: Mutex::new(Some(extractor)),
            config,
            temporary,
        })
    }

    /// Opens a local input with the extractor's limits (nothing is read but a sniff of its
    /// first bytes).
    #[pyo3(signature = (path, *, url=None, base_url=None))]
    fn open_input(
        &self,
        py: Python<'_>,
        path: PathBuf,
        url: Option<String>,
        base_url: Option<String>,
    ) -> PyResult<Input> {
        let spec = InputSpec {
            path,
            url,
            base_url,
            max_record_bytes: self.config.input.max_record_bytes,
            dead_letter_payload_bytes: self.config.output.dead_letter_payload_bytes,
        };
        match py.detach(|| RecordSource::open(&spec)) {
            Ok(source) => Ok(Input {
                source: Mutex::new(source),
            }),
            Err(OpenError::NeedsUrl(path)) => Err(PyValueError::new_err(format!(
                "{path} is one HTML page: give its URL with url="
            ))),
            Err(e @ OpenError::HtmlWithoutUrl(..)) => Err(PyValueError::new_err(format!(
                "{e}; from Python, give one page with url="
            ))),
            Err(OpenError::Io(e)) => Err(raise(py, "InputError", (e.to_string(),))),
        }
    }

    /// Takes up to `max` items of `input`; returns True once the input has ended.
    fn push_input(&self, py: Python<'_>, input: &Input, max: usize) -> PyResult<bool> {
        let result = py.detach(|| {
            let mut source = input
                .source
                .lock()
                .map_err(|_| PyRuntimeError::new_err("the input failed in another thread"))?;
            let mut guard = self.lock()?;
            Ok::<_, PyErr>(match guard.as_mut() {
                Some(extractor) => extractor.push_input(&mut source, max),
                None => Err(InputError::Extractor(embed::Error::Closed)),
            })
        })?;
        match result {
            Ok(ended) => Ok(ended),
            Err(InputError::Read(e)) => Err(raise(py, "InputError", (e.to_string(),))),
            Err(InputError::Extractor(e)) => Err(error(py, e)),
        }
    }

    /// The state directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether the state is a temporary directory, removed on close.
    #[getter]
    fn temporary(&self) -> bool {
        self.temporary
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> PyResult<bool> {
        Ok(self.lock()?.is_none())
    }

    /// One page through the tree in a batch of its own: the record's JSON, `None` for a
    /// duplicate; a rejected page raises.
    #[pyo3(signature = (url, html, *, response_url=None, title=None, fetched_at=None, charset=None, headers=None, domain=None))]
    #[allow(clippy::too_many_arguments)]
    fn extract(
        &self,
        py: Python<'_>,
        url: String,
        html: &Bound<'_, PyAny>,
        response_url: Option<String>,
        title: Option<String>,
        fetched_at: Option<String>,
        charset: Option<String>,
        headers: Option<&Bound<'_, PyDict>>,
        domain: Option<String>,
    ) -> PyResult<Option<String>> {
        let html = OwnedHtml::of(html)?;
        let headers: Vec<(String, String)> = match headers {
            Some(headers) => headers
                .iter()
                .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<String>()?)))
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        let record = self.with(py, |extractor| {
            let mut page = Page::new(&url, html.as_html());
            page.response_url = response_url.as_deref();
            page.title = title.as_deref();
            page.fetched_at = fetched_at.as_deref();
            page.charset = charset.as_deref();
            page.domain = domain.as_deref();
            page.headers = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            extractor.extract(&page)
        })?;
        match record {
            Some(record) => serde_json::to_string(&record)
                .map(Some)
                .map_err(|e| PyRuntimeError::new_err(e.to_string())),
            None => Ok(None),
        }
    }

    /// Takes one raw-html record (a JSON line as `bytes` or `str`); a full batch is processed.
    fn push(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<()> {
        let record = record_bytes(record)?;
        self.with(py, |extractor| extractor.push(record))
    }

    /// Processes the records taken and not yet processed.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, embed::Extractor::flush)
    }

    /// The ready outcomes, in input order, as `(kind, json)` pairs.
    fn pop_ready(&self) -> PyResult<Vec<(&'static str, String)>> {
        let mut guard = self.lock()?;
        let Some(extractor) = guard.as_mut() else {
            return Ok(Vec::new());
        };
        let mut ready = Vec::with_capacity(extractor.ready());
        while let Some(outcome) = extractor.pop() {
            ready.push(outcome_json(&outcome)?);
        }
        Ok(ready)
    }

    /// Totals since the extractor was opened, as JSON.
    fn stats(&self) -> PyResult<String> {
        let guard = self.lock()?;
        let stats = guard
            .as_ref()
            .map(embed::Extractor::stats)
            .unwrap_or_default();
        serde_json::to_string(&stats).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Processes what is pending, closes the state and removes a temporary one; returns the
    /// outcomes not yet taken. Closing twice does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<Vec<(&'static str, String)>> {
        let outcomes = py.detach(|| {
            let taken = self.lock()?.take();
            Ok::<_, PyErr>(taken.map(embed::Extractor::close))
        })?;
        match outcomes {
            None => Ok(Vec::new()),
            Some(Ok(outcomes)) => outcomes.iter().map(outcome_json).collect(),
            Some(Err(e)) => Err(error(py, e)),
        }
    }
}

/// The native part of the `urltree` package.
#[pymodule]
fn _urltree(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(extract_page, module)?)?;
    module.add_function(wrap_pyfunction!(config_toml, module)?)?;
    module.add_class::<Extractor>()?;
    module.add_class::<Input>()?;
    module.add("UNKNOWN_URL", embed::UNKNOWN_URL)?;
    Ok(())
}
