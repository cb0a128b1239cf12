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

/// The kill-rate threshold from `mutation.toml` at the project root: a `min_kill_rate = <0..1>`
/// line; `#` starts a comment; any other key is an error.
pub fn min_kill_rate(root: &Path) -> Result<f64, String> {
    let path = root.join("mutation.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse_min_kill_rate(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub(super) fn parse_min_kill_rate(text: &str) -> Result<f64, String> {
    let mut found = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!(
                "line {}: expected `key = value`, got `{line}`",
                n + 1
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        if key != "min_kill_rate" {
            return Err(format!(
                "line {}: unknown key `{key}` (known: min_kill_rate)",
                n + 1
            ));
        }
        if found.is_some() {
            return Err(format!("line {}: min_kill_rate given twice", n + 1));
        }
        let v: f64 = value
            .parse()
            .map_err(|_| format!("line {}: min_kill_rate: `{value}` is not a number", n + 1))?;
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "line {}: min_kill_rate must be between 0 and 1, got {v}",
                n + 1
            ));
        }
        found = Some(v);
    }
    found.ok_or_else(|| "no min_kill_rate line".to_string())
}
