//! What a mutation run found: kills, verdicts, kill rates per adapter, and its Markdown and JSON.

use super::*;

/// A failing row that a mutant caused: `case::check [adapter]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kill {
    pub case: String,
    pub check: String,
    pub adapter: String,
}

impl std::fmt::Display for Kill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}::{} [{}]", self.case, self.check, self.adapter)
    }
}

/// What running a mutant found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// Some row failed (or validation did) that passes with the original shader.
    Killed,
    /// Every row still passes.
    Survived,
    /// Equivalent to the original by construction: not scored.
    Equivalent,
    /// Does not parse or validate: discarded.
    Invalid,
    /// Not run (no adapter, or the original shader could not be read).
    #[serde(rename = "NOT RUN")]
    NotRun,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Killed => "KILLED",
            Status::Survived => "SURVIVED",
            Status::Equivalent => "EQUIVALENT",
            Status::Invalid => "INVALID",
            Status::NotRun => "NOT RUN",
        })
    }
}

/// One mutant and its fate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantResult {
    #[serde(flatten)]
    pub mutant: Mutant,
    pub status: Status,
    /// Adapters on which some row failed (every adapter when validation failed).
    pub killed_on: Vec<String>,
    /// The first few rows that killed it, per adapter.
    pub killed_by: Vec<Kill>,
    /// Wall time of its suite run.
    pub seconds: f64,
}

/// Per adapter: how many mutants it killed, and the rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdapterRate {
    pub adapter: String,
    pub killed: usize,
    pub survived: usize,
    pub equivalent: usize,
    pub invalid: usize,
    /// killed / (killed + survived); 0 when nothing was scored.
    pub rate: f64,
}

/// A mutation run: the baseline, every mutant, the kill rate per adapter.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MutationReport {
    pub shader: String,
    /// Adapter tags the suite ran on.
    pub adapters: Vec<String>,
    /// Why there is no adapter, when there is none.
    pub no_adapter: Option<String>,
    /// Rows that fail with the original shader (they cannot kill a mutant); should be empty.
    pub baseline_failures: Vec<String>,
    pub mutants: Vec<MutantResult>,
    pub wall_s: f64,
}

impl MutationReport {
    /// Per adapter: killed, survived, equivalent, invalid and the rate.
    pub fn rates(&self) -> Vec<AdapterRate> {
        let count = |s: Status| self.mutants.iter().filter(|m| m.status == s).count();
        self.adapters
            .iter()
            .map(|a| {
                let run = self
                    .mutants
                    .iter()
                    .filter(|m| matches!(m.status, Status::Killed | Status::Survived));
                let killed = run.clone().filter(|m| m.killed_on.contains(a)).count();
                let survived = run.count() - killed;
                AdapterRate {
                    adapter: a.clone(),
                    killed,
                    survived,
                    equivalent: count(Status::Equivalent),
                    invalid: count(Status::Invalid),
                    rate: if killed + survived == 0 {
                        0.0
                    } else {
                        killed as f64 / (killed + survived) as f64
                    },
                }
            })
            .collect()
    }

    /// The lowest per-adapter kill rate (the harness must be sensitive on every adapter); 0 with
    /// no adapter.
    pub fn kill_rate(&self) -> f64 {
        self.rates()
            .iter()
            .map(|r| r.rate)
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.min(r))))
            .unwrap_or(0.0)
    }

    /// Whether the original passes everywhere and every adapter kills at least `min` of the
    /// scored mutants.
    pub fn passes(&self, min: f64) -> bool {
        self.baseline_failures.is_empty()
            && !self.adapters.is_empty()
            && self.kill_rate() + 1e-12 >= min
    }

    /// The kill-rate tables: per adapter, then a row per mutant, then each mutant's diff.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# Mutation testing of `{}`\n", self.shader);
        let count = |s: Status| self.mutants.iter().filter(|m| m.status == s).count();
        let _ = writeln!(
            md,
            "{} mutants: {} killed, {} survived, {} equivalent, {} invalid, {} not run; lowest kill rate {:.1}%; wall time {:.1} s.\n",
            self.mutants.len(),
            count(Status::Killed),
            count(Status::Survived),
            count(Status::Equivalent),
            count(Status::Invalid),
            count(Status::NotRun),
            self.kill_rate() * 100.0,
            self.wall_s
        );
        if let Some(why) = &self.no_adapter {
            let _ = writeln!(md, "No adapter: {why}\n");
        }
        // A kind with no site in this shader has no mutant, so the kill rate says nothing of it.
        let absent: Vec<String> = Kind::ALL
            .iter()
            .filter(|k| !self.mutants.iter().any(|m| m.mutant.kind == **k))
            .map(|k| k.to_string())
            .collect();
        if !absent.is_empty() && !self.mutants.is_empty() {
            let _ = writeln!(
                md,
                "Kinds with no site in this shader, so no mutant and no say in the kill rate: {}.\n",
                absent.join(", ")
            );
        }
        if !self.baseline_failures.is_empty() {
            let _ = writeln!(
                md,
                "**The original shader fails {} rows** (they cannot kill a mutant): {}\n",
                self.baseline_failures.len(),
                self.baseline_failures.join(", ")
            );
        }
        let _ = writeln!(
            md,
            "| adapter | killed | survived | equivalent | invalid | kill rate |\n| --- | --- | --- | --- | --- | --- |"
        );
        for r in self.rates() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {:.1}% |",
                r.adapter,
                r.killed,
                r.survived,
                r.equivalent,
                r.invalid,
                r.rate * 100.0
            );
        }
        let _ = writeln!(
            md,
            "\n| mutant | kind | change | status | killed by, or what would catch it |\n| --- | --- | --- | --- | --- |"
        );
        for m in &self.mutants {
            let missed: Vec<&String> = self
                .adapters
                .iter()
                .filter(|a| !m.killed_on.contains(a))
                .collect();
            let detail = match m.status {
                Status::Killed => {
                    let by: Vec<String> = m.killed_by.iter().map(|k| format!("`{k}`")).collect();
                    let mut s = by.join(", ");
                    if !missed.is_empty() {
                        let _ = write!(
                            s,
                            "; survived on {}: {}",
                            missed
                                .iter()
                                .map(|a| a.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                            m.mutant.hint
                        );
                    }
                    s
                }
                Status::Survived => format!("hint: {}", m.mutant.hint),
                Status::Equivalent | Status::Invalid => match &m.mutant.verdict {
                    Verdict::Equivalent(why) | Verdict::Invalid(why) => {
                        why.lines().next().unwrap_or_default().to_string()
                    }
                    Verdict::Valid => String::new(),
                },
                Status::NotRun => "not run".into(),
            };
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} |",
                m.mutant.id,
                m.mutant.kind,
                m.mutant.description.replace('|', "\\|"),
                m.status,
                detail.replace('|', "\\|")
            );
        }
        let _ = writeln!(md, "\n## Diffs\n");
        for m in &self.mutants {
            let _ = writeln!(md, "`{}`:\n\n```diff", m.mutant.id);
            for c in &m.mutant.diff {
                let _ = writeln!(md, "@@ line {} @@\n- {}\n+ {}", c.line, c.before, c.after);
            }
            let _ = writeln!(md, "```\n");
        }
        md
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
