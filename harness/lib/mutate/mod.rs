//! Mutation testing of the shader under test: source-level mutants of the kinds real skinning bugs take, run through the whole suite, with the kill rate per adapter.
//!
//! Mutants are located with naga's parsed module and its spans (bindings and vertex inputs by
//! their role in the contract, struct member offsets, operands), so they apply to any shader with
//! the contract, not just the default one. Each kind is one function in `kinds::KINDS`. Each mutant must still parse and validate with naga, or it is listed as invalid; a
//! mutant whose compacted naga IR equals the original's is equivalent by construction and is left
//! out of the kill rate. The others run the whole suite (every case, every adapter); a mutant is
//! killed on an adapter when a row on that adapter fails that passed with the original shader.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use naga::{
    AddressSpace, BinaryOperator, Expression, Function, GlobalVariable, Handle, Literal, Module,
    ShaderStage, Statement, TypeInner,
};
use serde::{Deserialize, Serialize};

use crate::contract::Contract;
use crate::suite::Suite;

mod frames;
mod kinds;
mod report;
mod run;
mod site;
#[cfg(test)]
mod tests;

pub use report::{min_kill_rate, AdapterRate, Kill, MutantResult, MutationReport, Status};
pub use run::run;
use site::Sites;

/// The kinds of bug a mutant stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Two weight components swapped.
    WeightSwap,
    /// The homogeneous 1 of the position dropped (0 instead).
    HomogeneousDropped,
    /// The palette matrix transposed.
    PaletteTransposed,
    /// One influence dropped (loop bound 3, or the 4th weight zeroed).
    InfluenceDropped,
    /// One joint index used for another.
    JointIndexSwapped,
    /// A constant perturbed slightly.
    ConstantPerturbed,
    /// The vertex stage uses the unskinned position.
    SkinningSkipped,
    /// The 2D view transform altered.
    ViewTransform,
    /// The count guard's comparison changed.
    CountGuard,
    /// A uniform field read from the wrong offset.
    UniformField,
    /// The compute output's w written as 1 instead of 0.
    OutputW,
    /// The last influence set's weights dropped (read as 0).
    InfluenceSetDropped,
    /// A field of a byte-addressed buffer read or written one word (4 bytes) off its offset.
    ByteOffset,
    /// Normals transformed by the plain blended matrix, not its inverse transpose.
    NormalPlainMatrix,
    /// Skinned normals and tangents left unnormalised.
    RenormalisationDropped,
    /// The skinned tangent's handedness w written as 1, not the source's.
    TangentWLost,
    /// A vertex pool's region read or written at another region's start.
    RegionSwapped,
}

impl Kind {
    /// Whether the kind needs a shape the built-in contract lacks: two influence sets, a
    /// byte-addressed buffer, or a vertex pool.
    pub fn needs_layout(self) -> bool {
        matches!(
            self,
            Kind::InfluenceSetDropped | Kind::ByteOffset | Kind::RegionSwapped
        )
    }

    /// Every kind, in the order of `kinds::KINDS`, which registers them.
    pub const ALL: [Kind; kinds::KINDS.len()] = {
        let mut all = [Kind::WeightSwap; kinds::KINDS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = kinds::KINDS[i].0;
            i += 1;
        }
        all
    };

    /// As reports and mutant ids write it (`weight_swap`), from `kinds::KINDS`.
    pub fn name(self) -> &'static str {
        kinds::KINDS
            .iter()
            .find(|(kind, _, _, _)| *kind == self)
            .map_or("unregistered", |(_, name, _, _)| name)
    }

    /// Whether the kind changes the skinning math itself rather than the glue around it.
    pub fn on_skinning(self) -> bool {
        kinds::KINDS
            .iter()
            .any(|(kind, _, part, _)| *kind == self && *part == kinds::Part::Skinning)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One changed line of a mutant: its number (1-based) and its text before and after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineChange {
    pub line: usize,
    pub before: String,
    pub after: String,
}

/// What generation decided about a mutant before anything runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Parses and validates, and differs from the original: to be run.
    Valid,
    /// naga rejects the mutated source (the reason is its diagnostic); discarded.
    Invalid(String),
    /// Equivalent to the original by construction (the reason says why); not scored.
    Equivalent(String),
}

/// A source-level mutant of the shader under test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mutant {
    /// Unique within one generation, e.g. `weight_swap-1`.
    pub id: String,
    pub kind: Kind,
    pub description: String,
    pub diff: Vec<LineChange>,
    /// What kind of case would catch it, should it survive.
    pub hint: String,
    pub verdict: Verdict,
    /// The mutated WGSL.
    #[serde(skip)]
    pub source: String,
}

/// A text edit on the source: `range` replaced by `text` (an insertion when the range is empty).
#[derive(Clone, Debug)]
struct Edit {
    range: Range<usize>,
    text: String,
}

/// A mutant before it is applied and judged; its kind is the mutator's that found it.
struct Candidate {
    description: String,
    hint: String,
    edits: Vec<Edit>,
}

/// Every mutant of `source`, valid or not, with its sites found through `contract`'s roles. The
/// source must parse; otherwise there is nothing to mutate and the list is empty.
pub fn generate(source: &str, contract: &Contract) -> Vec<Mutant> {
    let Ok(module) = naga::front::wgsl::parse_str(source) else {
        return Vec::new();
    };
    let original = fingerprint(&module);
    let sites = Sites::new(source, &module, contract);
    let mut out = Vec::new();
    for (kind, name, _, find) in kinds::KINDS {
        for (n, c) in find(&sites).into_iter().enumerate() {
            out.push(judge(
                source,
                &original,
                kind,
                format!("{name}-{}", n + 1),
                c,
            ));
        }
    }
    out
}

/// Applies a candidate and decides whether it is valid, invalid or equivalent to the original
/// (`original` is its fingerprint).
fn judge(source: &str, original: &str, kind: Kind, id: String, c: Candidate) -> Mutant {
    let (mutated, verdict) = match apply(source, &c.edits) {
        Err(e) => (source.to_string(), Verdict::Invalid(e)),
        Ok(m) => {
            let verdict = match parse_and_validate(&m) {
                Err(e) => Verdict::Invalid(e),
                Ok(module) if fingerprint(&module) == original => Verdict::Equivalent(
                    "identical naga IR after the edit (compacted, spans ignored)".into(),
                ),
                Ok(_) => Verdict::Valid,
            };
            (m, verdict)
        }
    };
    Mutant {
        id,
        kind,
        description: c.description,
        diff: line_diff(source, &mutated),
        hint: c.hint,
        verdict,
        source: mutated,
    }
}

fn parse_and_validate(source: &str) -> Result<Module, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| e.emit_to_string_with_path(source, "mutant.wgsl"))?;
    crate::validator::strict()
        .validate(&module)
        .map_err(|e| e.emit_to_string_with_path(source, "mutant.wgsl"))?;
    Ok(module)
}

/// The module's IR as text, compacted (unused items dropped) and without spans, so two sources
/// that differ only in ways naga does not keep (formatting, dead code, a constant that rounds to
/// the same f32) compare equal.
fn fingerprint(module: &Module) -> String {
    let mut m = module.clone();
    naga::compact::compact(&mut m, naga::compact::KeepUnused::No);
    strip_spans(&format!("{m:?}"))
}

fn strip_spans(text: &str) -> String {
    const OPEN: &str = "Span { start: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match rest.find('}') {
            Some(end) => rest = &rest[end + 1..],
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// Applies non-overlapping edits.
fn apply(source: &str, edits: &[Edit]) -> Result<String, String> {
    let mut edits: Vec<&Edit> = edits.iter().collect();
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for e in edits {
        if e.range.start < at || e.range.end > source.len() || e.range.start > e.range.end {
            return Err(format!("overlapping or out-of-range edit at {:?}", e.range));
        }
        out.push_str(&source[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// The lines that differ; edits never add or remove a line, so lines pair up one to one.
fn line_diff(before: &str, after: &str) -> Vec<LineChange> {
    let (a, b): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    if a.len() != b.len() {
        return vec![LineChange {
            line: 0,
            before: format!("{} lines", a.len()),
            after: format!("{} lines", b.len()),
        }];
    }
    a.iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| LineChange {
            line: i + 1,
            before: x.trim().to_string(),
            after: y.trim().to_string(),
        })
        .collect()
}
