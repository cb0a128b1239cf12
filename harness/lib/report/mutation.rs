//! The report's mutation section, which the mutation engine fills: every mutant's fate, the kill rate per adapter, and its Markdown.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

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
pub enum MutantStatus {
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

impl std::fmt::Display for MutantStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MutantStatus::Killed => "KILLED",
            MutantStatus::Survived => "SURVIVED",
            MutantStatus::Equivalent => "EQUIVALENT",
            MutantStatus::Invalid => "INVALID",
            MutantStatus::NotRun => "NOT RUN",
        })
    }
}

/// One changed line of a mutant: its number (1-based) and its text before and after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangedLine {
    pub line: usize,
    pub before: String,
    pub after: String,
}

/// What generation decided about a mutant before anything ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantVerdict {
    /// Parses and validates, and differs from the original: run.
    Valid,
    /// naga rejects the mutated source (the reason is its diagnostic).
    Invalid(String),
    /// Equivalent to the original by construction (the reason says why).
    Equivalent(String),
}

/// A mutant as the report describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MutantInfo {
    /// Unique within one generation, e.g. `weight_swap-1`.
    pub id: String,
    /// The kind of bug it stands for, e.g. `weight_swap`.
    pub kind: String,
    pub description: String,
    pub diff: Vec<ChangedLine>,
    /// What kind of case would catch it, should it survive.
    pub hint: String,
    pub verdict: MutantVerdict,
}

/// One mutant and its fate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantRow {
    #[serde(flatten)]
    pub mutant: MutantInfo,
    pub status: MutantStatus,
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
pub struct MutationSection {
    pub shader: String,
    /// Adapter tags the suite ran on.
    pub adapters: Vec<String>,
    /// Why there is no adapter, when there is none.
    pub no_adapter: Option<String>,
    /// Rows that fail with the original shader (they cannot kill a mutant); should be empty.
    pub baseline_failures: Vec<String>,
    pub mutants: Vec<MutantRow>,
    pub wall_s: f64,
    /// Every kind of mutant the engine makes, to name those with no site in this shader; left
    /// out of the JSON, whose fields stay those of a `report.json` already written.
    #[serde(skip)]
    pub kinds: Vec<String>,
    /// The kinds that change the skinning math itself (the others change the glue around it),
    /// listed apart; out of the JSON for the same reason.
    #[serde(skip)]
    pub skinning_kinds: Vec<String>,
}

impl MutationSection {
    /// Per adapter: killed, survived, equivalent, invalid and the rate.
    pub fn rates(&self) -> Vec<AdapterRate> {
        let count = |s: MutantStatus| self.mutants.iter().filter(|m| m.status == s).count();
        self.adapters
            .iter()
            .map(|a| {
                let run = self
                    .mutants
                    .iter()
                    .filter(|m| matches!(m.status, MutantStatus::Killed | MutantStatus::Survived));
                let killed = run.clone().filter(|m| m.killed_on.contains(a)).count();
                let survived = run.count() - killed;
                AdapterRate {
                    adapter: a.clone(),
                    killed,
                    survived,
                    equivalent: count(MutantStatus::Equivalent),
                    invalid: count(MutantStatus::Invalid),
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
        let count = |s: MutantStatus| self.mutants.iter().filter(|m| m.status == s).count();
        let _ = writeln!(
            md,
            "{} mutants: {} killed, {} survived, {} equivalent, {} invalid, {} not run; lowest kill rate {:.1}%; wall time {:.1} s.\n",
            self.mutants.len(),
            count(MutantStatus::Killed),
            count(MutantStatus::Survived),
            count(MutantStatus::Equivalent),
            count(MutantStatus::Invalid),
            count(MutantStatus::NotRun),
            self.kill_rate() * 100.0,
            self.wall_s
        );
        if let Some(why) = &self.no_adapter {
            let _ = writeln!(md, "No adapter: {why}\n");
        }
        // A kind with no site in this shader has no mutant, so the kill rate says nothing of it.
        let absent: Vec<&str> = self
            .kinds
            .iter()
            .filter(|k| !self.mutants.iter().any(|m| &m.mutant.kind == *k))
            .map(String::as_str)
            .collect();
        if !absent.is_empty() && !self.mutants.is_empty() {
            let _ = writeln!(
                md,
                "Kinds with no site in this shader, so no mutant and no say in the kill rate: {}.\n",
                absent.join(", ")
            );
        }
        if !self.skinning_kinds.is_empty() && !self.mutants.is_empty() {
            let part = |skinning: bool| {
                let rows: Vec<&MutantRow> = self
                    .mutants
                    .iter()
                    .filter(|m| self.skinning_kinds.contains(&m.mutant.kind) == skinning)
                    .collect();
                let killed = rows
                    .iter()
                    .filter(|m| m.status == MutantStatus::Killed)
                    .count();
                let mut kinds: Vec<&str> = rows.iter().map(|m| m.mutant.kind.as_str()).collect();
                kinds.dedup();
                format!(
                    "{killed} of {} killed ({})",
                    rows.len(),
                    if kinds.is_empty() {
                        "none".to_string()
                    } else {
                        kinds.join(", ")
                    }
                )
            };
            let _ = writeln!(
                md,
                "On the skinning math: {}. On the glue around it (stage inputs and outputs, view, count guard, uniforms): {}.\n",
                part(true),
                part(false)
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
                MutantStatus::Killed => {
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
                MutantStatus::Survived => format!("hint: {}", m.mutant.hint),
                MutantStatus::Equivalent | MutantStatus::Invalid => match &m.mutant.verdict {
                    MutantVerdict::Equivalent(why) | MutantVerdict::Invalid(why) => {
                        why.lines().next().unwrap_or_default().to_string()
                    }
                    MutantVerdict::Valid => String::new(),
                },
                MutantStatus::NotRun => "not run".into(),
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
