//! Query-normalization rules: an ordered list of (regex over the normalized URL, query parameters to keep),
//! the JSON rules-file format (`schemas/url-rules.v1.schema.json`) and the default set (`rules/default.json`).
//!
//! Semantics. A rule *applies* to a URL when its pattern matches somewhere in the normalized URL (query sorted,
//! `_cid_` added) and the query holds at least one parameter the rule keeps; a rule with an empty `keep` list
//! applies on its pattern alone. The first rule that applies filters the query to the parameters it keeps; when
//! none applies, the query is kept minus the file's `strip` list (tracking and session parameters; a name ending
//! in `*` is a prefix) and minus `_cid_`, which only a rule naming it keeps (⊕: the paper dropped the whole
//! query, which merges distinct pages of forums, wikis and shops). Parameter names compare
//! ASCII-case-insensitively after percent-decoding.
//! The presence condition is the one of the authors' implementation (LATINO `UrlNormalizer`, which requires all
//! kept parameters; here one is enough so a rule may list alternatives): a site's rule for article pages does
//! not swallow its other pages, which fall through to later rules.
//!
//! The default set. Sluban & Grčar (CIKM 2013) give rules of this form in their Table 1. The site rules of
//! `rules/default.json` are those of the authors' public pipeline that runs their URL Tree implementation
//! (DacqPipe, `github.com/EU-FIRST/dacqpipe`, `Config/rules.txt`), rewritten for normalized keys: the default
//! port is dropped from the patterns, `www.` is optional, `https` matches too, the content-id parameter is
//! `_cid_`; its three rules that keep only a nameless parameter are left out. Its `strip` list names the
//! common tracking and session parameters (⊕); a rules file without `strip` uses that list.

use super::error::{clip, RulesError};
use super::normalize::{name_matches, name_matches_pattern, Query, CID_PARAM};
use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;

/// The default rules file, embedded.
const DEFAULT_RULES_JSON: &str = include_str!("../../rules/default.json");

/// One query-normalization rule: when `pattern` matches the normalized URL and the query has one of the
/// `keep` parameters, keep only the `keep` parameters. Guarantees: the pattern is a compiled, valid regex.
#[derive(Clone, Debug)]
pub struct QueryRule {
    pattern: Regex,
    keep: Vec<String>,
    comment: Option<String>,
}

impl QueryRule {
    /// Compiles a rule. Errors: `InvalidPattern` (with `index` 0) when `pattern` is empty or not a valid regex,
    /// `EmptyKeepName` when a kept name is empty.
    pub fn new(pattern: &str, keep: Vec<String>) -> Result<Self, RulesError> {
        Self::compile(0, pattern, keep, None)
    }

    fn compile(
        index: usize,
        pattern: &str,
        keep: Vec<String>,
        comment: Option<String>,
    ) -> Result<Self, RulesError> {
        let invalid = |reason: String| RulesError::InvalidPattern {
            index,
            pattern: clip(pattern, 200),
            reason,
        };
        if pattern.is_empty() {
            return Err(invalid("empty pattern".to_owned()));
        }
        let regex = Regex::new(pattern).map_err(|e| invalid(e.to_string()))?;
        if keep.iter().any(String::is_empty) {
            return Err(RulesError::EmptyKeepName { index });
        }
        Ok(Self {
            pattern: regex,
            keep,
            comment,
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        self.pattern.as_str()
    }

    /// The names of the parameters this rule keeps, as written.
    pub fn keep(&self) -> &[String] {
        &self.keep
    }

    /// The rule's comment, if any.
    pub fn comment(&self) -> Option<&str> {
        self.comment.as_deref()
    }

    /// Whether the normalized parameter name `name` is one this rule keeps.
    pub(crate) fn keeps(&self, name: &str) -> bool {
        self.keep.iter().any(|k| name_matches(name, k))
    }
}

/// Ordered list of rules; the first rule that applies wins; when none applies the query is kept minus the
/// `strip` parameters and `_cid_`. Guarantees: every pattern compiled, and one combined matcher built, so
/// selecting a rule is one regex pass.
#[derive(Clone, Debug)]
pub struct QueryRules {
    rules: Vec<QueryRule>,
    set: RegexSet,
    strip: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
    version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    strip: Option<Vec<String>>,
    rules: Vec<RuleSpec>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    pattern: String,
    keep: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
}

/// The `$id` of the rules-file schema, written by [`QueryRules::to_json`].
pub const RULES_SCHEMA_ID: &str = "https://urltree.dev/schemas/url-rules/v1.json";

impl QueryRules {
    /// A rule list from compiled rules, in order, with the default `strip` list. Errors: `InvalidPattern`
    /// when the combined matcher exceeds the regex size limit.
    pub fn new(rules: Vec<QueryRule>) -> Result<Self, RulesError> {
        let set = RegexSet::new(rules.iter().map(QueryRule::pattern)).map_err(|e| {
            RulesError::InvalidPattern {
                index: rules.len().saturating_sub(1),
                pattern: "(all patterns combined)".to_owned(),
                reason: e.to_string(),
            }
        })?;
        Ok(Self {
            rules,
            set,
            strip: default_strip(),
        })
    }

    /// No rules: every query is kept minus the default `strip` parameters and `_cid_`.
    pub fn empty() -> Self {
        Self {
            rules: Vec::new(),
            set: RegexSet::empty(),
            strip: default_strip(),
        }
    }

    /// The same rules with another `strip` list: the parameters dropped where no rule applies (a name ending
    /// in `*` is a prefix). Errors: `EmptyStripName` when a name is empty or only `*`.
    pub fn with_strip(mut self, strip: Vec<String>) -> Result<Self, RulesError> {
        if strip.iter().any(|n| n.trim_end_matches('*').is_empty()) {
            return Err(RulesError::EmptyStripName);
        }
        self.strip = strip;
        Ok(self)
    }

    /// The parameters dropped where no rule applies (a name ending in `*` is a prefix).
    pub fn strip(&self) -> &[String] {
        &self.strip
    }

    /// Whether the query parameter `name` stays in the key when no rule applies: it is neither a
    /// `strip` parameter nor `_cid_`.
    pub(crate) fn keeps_by_default(&self, name: &str) -> bool {
        !name_matches(name, CID_PARAM) && !self.strip.iter().any(|p| name_matches_pattern(name, p))
    }

    /// The default rule set (`rules/default.json`, embedded): the paper's site rules plus one generic rule;
    /// see the module documentation for their origin. Compiled once per process, then cloned cheaply.
    pub fn paper_default() -> Self {
        static DEFAULT: OnceLock<QueryRules> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                // The embedded file is part of the program and checked by the tests, not input.
                Self::from_json(DEFAULT_RULES_JSON).expect("embedded rules/default.json is valid")
            })
            .clone()
    }

    /// Parses and compiles a rules file (JSON, `schemas/url-rules.v1.schema.json`). Errors: `Json` (syntax,
    /// missing or unknown fields), `UnsupportedVersion`, `InvalidPattern` / `EmptyKeepName` naming the rule index.
    pub fn from_json(text: &str) -> Result<Self, RulesError> {
        let file: RulesFile = serde_json::from_str(text)?;
        if file.version != 1 {
            return Err(RulesError::UnsupportedVersion(file.version));
        }
        let rules = file
            .rules
            .into_iter()
            .enumerate()
            .map(|(i, r)| QueryRule::compile(i, &r.pattern, r.keep, r.comment))
            .collect::<Result<Vec<_>, _>>()?;
        let rules = Self::new(rules)?;
        match file.strip {
            Some(strip) => rules.with_strip(strip),
            None => Ok(rules),
        }
    }

    /// Reads and compiles a rules file. Errors: `Io` or `File`, both naming the path.
    pub fn load(path: &Path) -> Result<Self, RulesError> {
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json(&text).map_err(|e| RulesError::File {
            path: path.to_owned(),
            source: Box::new(e),
        })
    }

    /// The rules in the rules-file format (pretty JSON); `from_json` of it gives the same rules.
    pub fn to_json(&self) -> String {
        let file = RulesFile {
            schema: Some(RULES_SCHEMA_ID.to_owned()),
            version: 1,
            comment: None,
            strip: Some(self.strip.clone()),
            rules: self
                .rules
                .iter()
                .map(|r| RuleSpec {
                    pattern: r.pattern().to_owned(),
                    keep: r.keep.clone(),
                    comment: r.comment.clone(),
                })
                .collect(),
        };
        // Serializing plain strings and numbers cannot fail.
        serde_json::to_string_pretty(&file).unwrap_or_default()
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[QueryRule] {
        &self.rules
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule that applies to `url` with parameters `query` (see the module doc), if any.
    pub(crate) fn select(&self, url: &str, query: &Query) -> Option<&QueryRule> {
        if self.rules.is_empty() {
            return None;
        }
        self.set
            .matches(url)
            .into_iter()
            .filter_map(|i| self.rules.get(i))
            .find(|rule| rule.keep.is_empty() || rule.keep.iter().any(|k| query.has(k)))
    }
}

/// The `strip` list of the embedded default rules file (parsed once), used by rule sets that name none.
fn default_strip() -> Vec<String> {
    static STRIP: OnceLock<Vec<String>> = OnceLock::new();
    STRIP
        .get_or_init(|| {
            // The embedded file is part of the program and checked by the tests, not input.
            serde_json::from_str::<RulesFile>(DEFAULT_RULES_JSON)
                .ok()
                .and_then(|f| f.strip)
                .unwrap_or_default()
        })
        .clone()
}

impl Default for QueryRules {
    /// The default rule set, as [`QueryRules::paper_default`].
    fn default() -> Self {
        Self::paper_default()
    }
}
