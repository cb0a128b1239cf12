//! What the mutation engine hands the report (its mutation section, filled from the mutants), and the kill-rate threshold from `mutation.toml`.

use super::*;

pub use crate::report::mutation::{
    AdapterRate, Kill, MutantRow as MutantResult, MutantStatus as Status,
    MutationSection as MutationReport,
};
use crate::report::mutation::{ChangedLine, MutantInfo, MutantVerdict};

/// Every kind's name, for the section to name the kinds with no site in a shader.
pub fn kind_names() -> Vec<String> {
    Kind::ALL.iter().map(|k| k.to_string()).collect()
}

/// The names of the kinds that change the skinning math itself, for the section to list them
/// apart from the glue.
pub fn skinning_kinds() -> Vec<String> {
    Kind::ALL
        .iter()
        .filter(|k| k.on_skinning())
        .map(|k| k.to_string())
        .collect()
}

impl From<Mutant> for MutantInfo {
    fn from(m: Mutant) -> MutantInfo {
        MutantInfo {
            id: m.id,
            kind: m.kind.to_string(),
            description: m.description,
            diff: m
                .diff
                .into_iter()
                .map(|c| ChangedLine {
                    line: c.line,
                    before: c.before,
                    after: c.after,
                })
                .collect(),
            hint: m.hint,
            verdict: match m.verdict {
                Verdict::Valid => MutantVerdict::Valid,
                Verdict::Invalid(why) => MutantVerdict::Invalid(why),
                Verdict::Equivalent(why) => MutantVerdict::Equivalent(why),
            },
        }
    }
}

/// What is wrong with `mutation.toml`.
#[derive(Debug, thiserror::Error)]
pub enum ThresholdError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: String,
        source: crate::file::ReadError,
    },
    #[error("{path}: {problem}")]
    Invalid { path: String, problem: LineProblem },
}

/// A line of `mutation.toml` that does not give the threshold, or no such line.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum LineProblem {
    #[error("line {line}: expected `key = value`, got `{text}`")]
    NotKeyValue { line: usize, text: String },
    #[error("line {line}: unknown key `{key}` (known: min_kill_rate)")]
    UnknownKey { line: usize, key: String },
    #[error("line {line}: min_kill_rate given twice")]
    Twice { line: usize },
    #[error("line {line}: min_kill_rate: `{value}` is not a number")]
    NotANumber { line: usize, value: String },
    #[error("line {line}: min_kill_rate must be between 0 and 1, got {value}")]
    OutOfRange { line: usize, value: f64 },
    #[error("no min_kill_rate line")]
    Missing,
}

/// The kill-rate threshold from `mutation.toml` at the project root: a `min_kill_rate = <0..1>`
/// line; `#` starts a comment; any other key is an error.
pub fn min_kill_rate(root: &Path) -> Result<f64, ThresholdError> {
    let path = root.join("mutation.toml");
    let shown = || path.display().to_string();
    let read = crate::file::read_text_limited(&path, crate::file::MAX_SMALL_BYTES);
    let text = read.map_err(|source| ThresholdError::Read {
        path: shown(),
        source,
    })?;
    parse_min_kill_rate(&text).map_err(|problem| ThresholdError::Invalid {
        path: shown(),
        problem,
    })
}

pub(super) fn parse_min_kill_rate(text: &str) -> Result<f64, LineProblem> {
    let mut found = None;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let text = raw.split('#').next().unwrap_or_default().trim();
        if text.is_empty() {
            continue;
        }
        let Some((key, value)) = text.split_once('=') else {
            return Err(LineProblem::NotKeyValue {
                line,
                text: text.to_string(),
            });
        };
        let (key, value) = (key.trim(), value.trim());
        if key != "min_kill_rate" {
            return Err(LineProblem::UnknownKey {
                line,
                key: key.to_string(),
            });
        }
        if found.is_some() {
            return Err(LineProblem::Twice { line });
        }
        let v: f64 = value.parse().map_err(|_| LineProblem::NotANumber {
            line,
            value: value.to_string(),
        })?;
        if !(0.0..=1.0).contains(&v) {
            return Err(LineProblem::OutOfRange { line, value: v });
        }
        found = Some(v);
    }
    found.ok_or(LineProblem::Missing)
}
