//! Mutation testing of the shader under test: source-level mutants of the kinds real skinning bugs take, run through the whole suite, with the kill rate per adapter.
//!
//! Mutants are located with naga's parsed module and its spans (bindings, entry-point arguments,
//! struct member offsets, operands), so they apply to any shader with the contract, not just the
//! default one. Each mutant must still parse and validate with naga, or it is listed as invalid; a
//! mutant whose compacted naga IR equals the original's is equivalent by construction and is left
//! out of the kill rate. The others run the whole suite (every case, every adapter); a mutant is
//! killed on an adapter when a row on that adapter fails that passed with the original shader.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use naga::{
    AddressSpace, BinaryOperator, Block, Expression, Function, GlobalVariable, Handle, Literal,
    Module, ShaderStage, Statement, TypeInner,
};
use serde::{Deserialize, Serialize};

use crate::suite::Suite;

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
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::WeightSwap,
        Kind::HomogeneousDropped,
        Kind::PaletteTransposed,
        Kind::InfluenceDropped,
        Kind::JointIndexSwapped,
        Kind::ConstantPerturbed,
        Kind::SkinningSkipped,
        Kind::ViewTransform,
        Kind::CountGuard,
        Kind::UniformField,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::WeightSwap => "weight_swap",
            Kind::HomogeneousDropped => "homogeneous_dropped",
            Kind::PaletteTransposed => "palette_transposed",
            Kind::InfluenceDropped => "influence_dropped",
            Kind::JointIndexSwapped => "joint_index_swapped",
            Kind::ConstantPerturbed => "constant_perturbed",
            Kind::SkinningSkipped => "skinning_skipped",
            Kind::ViewTransform => "view_transform",
            Kind::CountGuard => "count_guard",
            Kind::UniformField => "uniform_field",
        }
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

/// A mutant before it is applied and judged.
struct Candidate {
    kind: Kind,
    description: String,
    hint: String,
    edits: Vec<Edit>,
}

/// Every mutant of `source`, valid or not. The source must parse; otherwise there is nothing to
/// mutate and the list is empty.
pub fn generate(source: &str) -> Vec<Mutant> {
    let Ok(module) = naga::front::wgsl::parse_str(source) else {
        return Vec::new();
    };
    let original = fingerprint(&module);
    let shader = Located::new(source, &module);
    let mut counts: HashMap<Kind, usize> = HashMap::new();
    shader
        .candidates()
        .into_iter()
        .map(|c| {
            let n = counts.entry(c.kind).or_default();
            *n += 1;
            let id = format!("{}-{n}", c.kind.name());
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
                kind: c.kind,
                description: c.description,
                diff: line_diff(source, &mutated),
                hint: c.hint,
                verdict,
                source: mutated,
            }
        })
        .collect()
}

fn parse_and_validate(source: &str) -> Result<Module, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| e.emit_to_string_with_path(source, "mutant.wgsl"))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
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

/// Which contract input a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Role {
    Position,
    Joints,
    Weights,
}

/// A function of the module: a helper or an entry point's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Func {
    Helper(Handle<Function>),
    Entry(usize),
}

/// Where a per-vertex input value (joints, weights) enters a skinning site.
enum Source {
    /// A function parameter: rebound at the top of the body.
    Param {
        name: String,
        name_span: Range<usize>,
        body: usize,
    },
    /// An expression (e.g. `weights[i]`): wrapped in place.
    Expr(Range<usize>),
}

/// The module with its source, and what was found in it.
struct Located<'a> {
    src: &'a str,
    module: &'a Module,
    /// Global variable per contract binding (group 0).
    bindings: HashMap<u32, Handle<GlobalVariable>>,
    /// Roles of helper parameters, from the arguments their callers pass.
    param_roles: HashMap<(Handle<Function>, usize), Role>,
}

impl<'a> Located<'a> {
    fn new(src: &'a str, module: &'a Module) -> Self {
        let bindings = module
            .global_variables
            .iter()
            .filter_map(|(h, g)| {
                let b = g.binding.as_ref()?;
                (b.group == 0).then_some((b.binding, h))
            })
            .collect();
        let mut me = Located {
            src,
            module,
            bindings,
            param_roles: HashMap::new(),
        };
        let mut roles = HashMap::new();
        for f in me.funcs() {
            let func = me.func(f);
            for_each_statement(&func.body, &mut |s| {
                if let Statement::Call {
                    function,
                    arguments,
                    ..
                } = s
                {
                    for (i, &arg) in arguments.iter().enumerate() {
                        if let Some(role) = me.role(f, arg) {
                            roles.insert((*function, i), role);
                        }
                    }
                }
            });
        }
        me.param_roles = roles;
        me
    }

    fn funcs(&self) -> Vec<Func> {
        self.module
            .functions
            .iter()
            .map(|(h, _)| Func::Helper(h))
            .chain((0..self.module.entry_points.len()).map(Func::Entry))
            .collect()
    }

    fn func(&self, f: Func) -> &'a Function {
        match f {
            Func::Helper(h) => &self.module.functions[h],
            Func::Entry(i) => &self.module.entry_points[i].function,
        }
    }

    fn stage(&self, f: Func) -> Option<ShaderStage> {
        match f {
            Func::Helper(_) => None,
            Func::Entry(i) => Some(self.module.entry_points[i].stage),
        }
    }

    fn span(&self, f: Func, e: Handle<Expression>) -> Option<Range<usize>> {
        self.func(f)
            .expressions
            .get_span(e)
            .to_range()
            .filter(|r| r.start < r.end && r.end <= self.src.len())
    }

    fn text(&self, r: &Range<usize>) -> &'a str {
        &self.src[r.clone()]
    }

    fn binding_of(&self, g: Handle<GlobalVariable>) -> Option<u32> {
        self.module.global_variables[g]
            .binding
            .as_ref()
            .filter(|b| b.group == 0)
            .map(|b| b.binding)
    }

    /// Which contract input an expression in `f` is, if it is one.
    fn role(&self, f: Func, e: Handle<Expression>) -> Option<Role> {
        let func = self.func(f);
        let mut e = e;
        loop {
            e = match func.expressions[e] {
                Expression::Load { pointer } => pointer,
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => base,
                Expression::Swizzle { vector, .. } => vector,
                Expression::GlobalVariable(g) => {
                    return match self.binding_of(g)? {
                        1 => Some(Role::Position),
                        2 => Some(Role::Joints),
                        3 => Some(Role::Weights),
                        _ => None,
                    }
                }
                Expression::FunctionArgument(i) => {
                    return match f {
                        Func::Helper(h) => self.param_roles.get(&(h, i as usize)).copied(),
                        Func::Entry(_) => match func.arguments.get(i as usize)?.binding {
                            Some(naga::Binding::Location { location: 0, .. }) => {
                                Some(Role::Position)
                            }
                            Some(naga::Binding::Location { location: 1, .. }) => Some(Role::Joints),
                            Some(naga::Binding::Location { location: 2, .. }) => {
                                Some(Role::Weights)
                            }
                            _ => None,
                        },
                    }
                }
                _ => return None,
            };
        }
    }

    /// A read of a uniform struct member: (binding, byte offset of the member, member index).
    fn member_read(&self, f: Func, e: Handle<Expression>) -> Option<(u32, u32, u32)> {
        let exprs = &self.func(f).expressions;
        let Expression::AccessIndex { base, index } = exprs[e] else {
            return None;
        };
        let Expression::GlobalVariable(g) = exprs[base] else {
            return None;
        };
        let var = &self.module.global_variables[g];
        if var.space != AddressSpace::Uniform {
            return None;
        }
        let TypeInner::Struct { members, .. } = &self.module.types[var.ty].inner else {
            return None;
        };
        Some((
            self.binding_of(g)?,
            members.get(index as usize)?.offset,
            index,
        ))
    }

    /// The name of the member at `offset` in the struct of uniform binding `binding`.
    fn member_name(&self, binding: u32, offset: u32) -> Option<String> {
        let g = *self.bindings.get(&binding)?;
        let TypeInner::Struct { members, .. } =
            &self.module.types[self.module.global_variables[g].ty].inner
        else {
            return None;
        };
        members
            .iter()
            .find(|m| m.offset == offset)
            .and_then(|m| m.name.clone())
    }

    /// Every read of uniform member (binding, offset): (function, expression, span).
    fn member_reads(&self, binding: u32, offset: u32) -> Vec<(Func, Range<usize>)> {
        let mut out = Vec::new();
        for f in self.funcs() {
            for (e, _) in self.func(f).expressions.iter() {
                if self
                    .member_read(f, e)
                    .is_some_and(|(b, o, _)| b == binding && o == offset)
                {
                    if let Some(r) = self.span(f, e) {
                        out.push((f, r));
                    }
                }
            }
        }
        out
    }

    /// Whether `e` in `f` reads uniform member (binding, offset), directly or through a load.
    fn reads_member(&self, f: Func, e: Handle<Expression>, binding: u32, offset: u32) -> bool {
        let exprs = &self.func(f).expressions;
        let e = match exprs[e] {
            Expression::Load { pointer } => pointer,
            _ => e,
        };
        self.member_read(f, e)
            .is_some_and(|(b, o, _)| b == binding && o == offset)
    }

    /// Functions that index the palette themselves: where skinning happens.
    fn skin_sites(&self) -> Vec<Func> {
        let Some(&palette) = self.bindings.get(&0) else {
            return Vec::new();
        };
        self.funcs()
            .into_iter()
            .filter(|&f| {
                self.func(f)
                    .expressions
                    .iter()
                    .any(|(_, e)| matches!(e, Expression::GlobalVariable(g) if *g == palette))
            })
            .collect()
    }

    fn entry(&self, stage: ShaderStage) -> Option<Func> {
        self.funcs()
            .into_iter()
            .find(|&f| self.stage(f) == Some(stage))
    }

    /// Where the per-vertex input `role` enters each skinning site.
    fn sources(&self, role: Role) -> Vec<Source> {
        let mut out = Vec::new();
        for f in self.skin_sites() {
            let func = self.func(f);
            match f {
                Func::Helper(h) => {
                    for (i, _) in func.arguments.iter().enumerate() {
                        if self.param_roles.get(&(h, i)) == Some(&role) {
                            out.extend(self.param_source(f, i));
                        }
                    }
                }
                Func::Entry(_) if self.stage(f) == Some(ShaderStage::Vertex) => {
                    for (i, a) in func.arguments.iter().enumerate() {
                        let want = match role {
                            Role::Position => 0,
                            Role::Joints => 1,
                            Role::Weights => 2,
                        };
                        if matches!(a.binding, Some(naga::Binding::Location { location, .. }) if location == want)
                        {
                            out.extend(self.param_source(f, i));
                        }
                    }
                }
                Func::Entry(_) => {
                    // An inlined compute path: wrap each whole-element load of the input buffer.
                    for (e, expr) in func.expressions.iter() {
                        if let Expression::Load { pointer } = *expr {
                            let whole = matches!(func.expressions[pointer], Expression::Access { base, .. } | Expression::AccessIndex { base, .. } if matches!(func.expressions[base], Expression::GlobalVariable(_)));
                            if whole && self.role(f, e) == Some(role) {
                                out.extend(self.span(f, e).map(Source::Expr));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    fn param_source(&self, f: Func, index: usize) -> Option<Source> {
        let func = self.func(f);
        let name = func.arguments.get(index)?.name.clone()?;
        let (e, _) = func
            .expressions
            .iter()
            .find(|(_, e)| matches!(e, Expression::FunctionArgument(i) if *i as usize == index))?;
        let name_span = self.span(f, e)?;
        if self.text(&name_span) != name {
            return None;
        }
        let body = body_open(self.src, name_span.end)?;
        Some(Source::Param {
            name,
            name_span,
            body,
        })
    }

    /// Edits that replace every use of the sources' value `v` with `transform(v)`.
    fn rebind(&self, sources: &[Source], transform: impl Fn(&str) -> String) -> Vec<Edit> {
        let mut edits = Vec::new();
        for s in sources {
            match s {
                Source::Param {
                    name,
                    name_span,
                    body,
                } => {
                    let renamed = format!("{name}_mutant");
                    edits.push(Edit {
                        range: name_span.clone(),
                        text: renamed.clone(),
                    });
                    edits.push(Edit {
                        range: *body..*body,
                        text: format!(" let {name} = {};", transform(&renamed)),
                    });
                }
                Source::Expr(r) => edits.push(Edit {
                    range: r.clone(),
                    text: transform(&format!("({})", self.text(r))),
                }),
            }
        }
        edits
    }

    /// The operator token of a binary expression, located between its operands.
    fn operator(&self, f: Func, e: Handle<Expression>, token: &str) -> Option<Range<usize>> {
        let Expression::Binary { left, right, .. } = self.func(f).expressions[e] else {
            return None;
        };
        let whole = self.span(f, e)?;
        let inside = |r: &Option<Range<usize>>| {
            r.as_ref()
                .filter(|r| r.start >= whole.start && r.end <= whole.end)
                .cloned()
        };
        let lo = inside(&self.span(f, left)).map_or(whole.start, |r| r.end);
        let hi = inside(&self.span(f, right)).map_or(whole.end, |r| r.start);
        if lo >= hi {
            return None;
        }
        let between = &self.src[lo..hi];
        let bytes = between.as_bytes();
        let is_op = |b: u8| b"<>=!".contains(&b);
        let hits: Vec<usize> = between
            .match_indices(token)
            .map(|(i, _)| i)
            .filter(|&i| {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + token.len()).copied();
                !before.is_some_and(is_op) && !after.is_some_and(is_op)
            })
            .collect();
        match hits.as_slice() {
            [i] => Some(lo + i..lo + i + token.len()),
            _ => None,
        }
    }

    /// Non-zero float literals in `f` that are arithmetic operands (not comparisons, not vector
    /// components), as (span, value).
    fn operand_literals(&self, f: Func) -> Vec<(Range<usize>, f64)> {
        let exprs = &self.func(f).expressions;
        let mut out = Vec::new();
        for (_, e) in exprs.iter() {
            let Expression::Binary { op, left, right } = *e else {
                continue;
            };
            if !matches!(
                op,
                BinaryOperator::Add
                    | BinaryOperator::Subtract
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
            ) {
                continue;
            }
            for side in [left, right] {
                if let Some(v) = float_literal(&exprs[side]).filter(|v| *v != 0.0) {
                    out.extend(self.span(f, side).map(|r| (r, v)));
                }
            }
        }
        out
    }

    /// Every mutant this module offers, in kind order.
    fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let weights = self.sources(Role::Weights);
        let joints = self.sources(Role::Joints);
        let sites = self.skin_sites();
        let compute = self.entry(ShaderStage::Compute);
        let vertex = self.entry(ShaderStage::Vertex);

        if !weights.is_empty() {
            out.push(Candidate {
                kind: Kind::WeightSwap,
                description: "the weights of influences 1 and 2 swapped (w.yxzw)".into(),
                hint: "a posed case whose vertices blend two joints that move differently, with unequal weights".into(),
                edits: self.rebind(&weights, |v| format!("{v}.yxzw")),
            });
            out.push(Candidate {
                kind: Kind::WeightSwap,
                description: "the weights of influences 3 and 4 swapped (w.xywz)".into(),
                hint: "a case with 4 nonzero influences of unequal weights (mesh.influences: 4) whose 3rd and 4th joints move differently".into(),
                edits: self.rebind(&weights, |v| format!("{v}.xywz")),
            });
        }

        // The homogeneous 1: the last component of a vec4 built in a skinning site.
        let mut homogeneous = Vec::new();
        for &f in &sites {
            let exprs = &self.func(f).expressions;
            for (_, e) in exprs.iter() {
                if let Expression::Compose { components, .. } = e {
                    let Some(&last) = components.last() else {
                        continue;
                    };
                    if components.len() >= 2 && float_literal(&exprs[last]) == Some(1.0) {
                        homogeneous.extend(self.span(f, last));
                    }
                }
            }
        }
        if !homogeneous.is_empty() {
            out.push(Candidate {
                kind: Kind::HomogeneousDropped,
                description: "the position's homogeneous 1 dropped: (p, 0) instead of (p, 1)".into(),
                hint: "a posed case whose palette carries a translation (bend a joint away from the origin, or translate one)".into(),
                edits: homogeneous
                    .iter()
                    .map(|r| Edit {
                        range: r.clone(),
                        text: "0.0".into(),
                    })
                    .collect(),
            });
        }

        if let Some(&palette) = self.bindings.get(&0) {
            let mut accesses = Vec::new();
            for f in self.funcs() {
                let exprs = &self.func(f).expressions;
                for (e, expr) in exprs.iter() {
                    if let Expression::Access { base, .. } | Expression::AccessIndex { base, .. } =
                        *expr
                    {
                        if matches!(exprs[base], Expression::GlobalVariable(g) if g == palette) {
                            accesses.extend(self.span(f, e));
                        }
                    }
                }
            }
            if !accesses.is_empty() {
                out.push(Candidate {
                    kind: Kind::PaletteTransposed,
                    description: "the palette matrix transposed (row-major read of column-major data)".into(),
                    hint: "a posed case with a rotation and a translation in the palette".into(),
                    edits: accesses
                        .iter()
                        .map(|r| Edit {
                            range: r.clone(),
                            text: format!("transpose({})", self.text(r)),
                        })
                        .collect(),
                });
            }
        }

        // One influence dropped: a loop bound `< 4` becomes `< 3`, or else the 4th weight is zeroed.
        let mut bounds = Vec::new();
        for &f in &sites {
            let exprs = &self.func(f).expressions;
            for (_, e) in exprs.iter() {
                if let Expression::Binary {
                    op: op @ (BinaryOperator::Less | BinaryOperator::LessEqual),
                    right,
                    ..
                } = *e
                {
                    let want = if op == BinaryOperator::Less { 4 } else { 3 };
                    if int_literal(&exprs[right]) == Some(want) {
                        if let Some(r) = self.span(f, right) {
                            let text = self.text(&r);
                            let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                            let suffix = &text[digits.len()..];
                            bounds.push(Edit {
                                range: r,
                                text: format!("{}{suffix}", want - 1),
                            });
                        }
                    }
                }
            }
        }
        let influence_hint =
            "a case with 4 nonzero influences (mesh.influences: 4) posed so the 4th joint moves";
        if !bounds.is_empty() {
            out.push(Candidate {
                kind: Kind::InfluenceDropped,
                description: "the 4th influence dropped: the influence loop runs to 3".into(),
                hint: influence_hint.into(),
                edits: bounds,
            });
        } else if !weights.is_empty() {
            out.push(Candidate {
                kind: Kind::InfluenceDropped,
                description: "the 4th influence dropped: its weight read as 0".into(),
                hint: influence_hint.into(),
                edits: self.rebind(&weights, |v| format!("vec4<f32>({v}.xyz, 0.0)")),
            });
        }

        if !joints.is_empty() {
            out.push(Candidate {
                kind: Kind::JointIndexSwapped,
                description: "influence 2 uses the joint index of influence 1 (j.xxzw)".into(),
                hint: "a posed case whose vertices blend two joints that move differently".into(),
                edits: self.rebind(&joints, |v| format!("{v}.xxzw")),
            });
            out.push(Candidate {
                kind: Kind::JointIndexSwapped,
                description: "influence 4 uses the joint index of influence 3 (j.xyzz)".into(),
                hint: "a case with 4 nonzero influences (mesh.influences: 4) whose 3rd and 4th joints move differently".into(),
                edits: self.rebind(&joints, |v| format!("{v}.xyzz")),
            });
        }

        // Constants perturbed by 1.25e-4 relative: the homogeneous 1, arithmetic constants in the
        // skinning sites, and arithmetic constants of the vertex stage (the tint's divisor).
        let mut constants: Vec<(Range<usize>, f64, &str, bool)> = homogeneous
            .iter()
            .map(|r| (r.clone(), 1.0, "the homogeneous 1", false))
            .collect();
        for &f in &sites {
            for (r, v) in self.operand_literals(f) {
                constants.push((r, v, "a skinning constant", false));
            }
        }
        if let Some(f) = vertex.filter(|f| !sites.contains(f)) {
            for (r, v) in self.operand_literals(f) {
                constants.push((r, v, "a vertex-stage constant", true));
            }
        }
        for (r, v, what, in_vertex) in constants {
            let text = self.text(&r);
            let suffix = if text.ends_with('f') { "f" } else { "" };
            let new = perturb(v);
            out.push(Candidate {
                kind: Kind::ConstantPerturbed,
                description: format!("{what} perturbed: {text} -> {new}{suffix}"),
                hint: if in_vertex {
                    "a golden compared with channel_tolerance: 0 over a long tint gradient (e.g. a chain of 8 joints, 256 vertices, a bend at joint 3, 128x128): a perturbation below one 8-bit step only flips the rounding of some pixels where joints.x is 4 or more".into()
                } else {
                    "a posed case with large translations (long segments or a translated joint) and a tight tolerance (max_abs_error 1e-5 or less)".into()
                },
                edits: vec![Edit {
                    range: r,
                    text: format!("{new}{suffix}"),
                }],
            });
        }

        // Skinning skipped in the vertex stage: the call to the skinning function replaced by its
        // position argument.
        if let Some(vs) = vertex {
            let func = self.func(vs);
            let mut edits = Vec::new();
            for_each_statement(&func.body, &mut |s| {
                if let Statement::Call {
                    function,
                    arguments,
                    result: Some(result),
                } = s
                {
                    if !sites.contains(&Func::Helper(*function)) {
                        return;
                    }
                    let position = arguments
                        .iter()
                        .position(|&a| self.role(vs, a) == Some(Role::Position));
                    if let (Some(call), Some(arg)) = (
                        self.span(vs, *result),
                        position.and_then(|i| self.span(vs, arguments[i])),
                    ) {
                        edits.push(Edit {
                            range: call,
                            text: self.text(&arg).to_string(),
                        });
                    }
                }
            });
            if !edits.is_empty() {
                out.push(Candidate {
                    kind: Kind::SkinningSkipped,
                    description: "the vertex stage draws the unskinned position".into(),
                    hint: "a posed case with render checks (render_changes_after_pose, a golden)"
                        .into(),
                    edits,
                });
            }
        }

        // The view transform: x multiplied by half_width instead of divided; offset_y's sign.
        let mut divides = Vec::new();
        for f in self.funcs() {
            for (e, expr) in self.func(f).expressions.iter() {
                if let Expression::Binary {
                    op: BinaryOperator::Divide,
                    right,
                    ..
                } = *expr
                {
                    if self.reads_member(f, right, 6, 8) {
                        divides.extend(self.operator(f, e, "/"));
                    }
                }
            }
        }
        if !divides.is_empty() {
            out.push(Candidate {
                kind: Kind::ViewTransform,
                description: "x multiplied by half_width instead of divided".into(),
                hint: "a golden render whose render.view.half_width is not 1".into(),
                edits: divides
                    .into_iter()
                    .map(|r| Edit {
                        range: r,
                        text: "*".into(),
                    })
                    .collect(),
            });
        }
        let offsets = self.member_reads(6, 4);
        if !offsets.is_empty() {
            out.push(Candidate {
                kind: Kind::ViewTransform,
                description: "offset_y applied with the wrong sign".into(),
                hint: "a golden render whose render.view.offset_y is not 0".into(),
                edits: offsets
                    .iter()
                    .map(|(_, r)| Edit {
                        range: r.clone(),
                        text: format!("(-{})", self.text(r)),
                    })
                    .collect(),
            });
        }

        // The count guard: `>=` -> `>` (and the like), so one invocation past the count runs.
        if let Some(cs) = compute {
            let mut edits = Vec::new();
            for (e, expr) in self.func(cs).expressions.iter() {
                let Expression::Binary { op, left, right } = *expr else {
                    continue;
                };
                let on_count =
                    self.reads_member(cs, left, 5, 0) || self.reads_member(cs, right, 5, 0);
                let swap = match op {
                    BinaryOperator::GreaterEqual => Some((">=", ">")),
                    BinaryOperator::Greater => Some((">", ">=")),
                    BinaryOperator::Less => Some(("<", "<=")),
                    BinaryOperator::LessEqual => Some(("<=", "<")),
                    _ => None,
                };
                if let (true, Some((from, to))) = (on_count, swap) {
                    if let Some(r) = self.operator(cs, e, from) {
                        edits.push(Edit {
                            range: r,
                            text: to.into(),
                        });
                    }
                }
            }
            if !edits.is_empty() {
                out.push(Candidate {
                    kind: Kind::CountGuard,
                    description: "the count guard lets one invocation past the count through".into(),
                    hint: "vertex count not a multiple of 64 with a guard check: the skinned buffer is exactly count long, so bounds checks clamp or drop the extra invocation's write; catching it needs an output buffer longer than the count whose tail must stay untouched".into(),
                    edits,
                });
            }
        }

        // A uniform field read from the wrong offset.
        for (binding, from, to, hint) in [
            (6, 0, 8, "a view whose scale and half_width differ"),
            (6, 8, 0, "a view whose scale and half_width differ"),
            (
                6,
                4,
                12,
                "a golden render whose render.view.offset_y is not 0",
            ),
            (
                5,
                0,
                4,
                "any case with vertices (the count read as 0 skips every vertex)",
            ),
        ] {
            let (Some(a), Some(b)) = (
                self.member_name(binding, from),
                self.member_name(binding, to),
            ) else {
                continue;
            };
            let reads = self.member_reads(binding, from);
            let edits: Vec<Edit> = reads
                .iter()
                .filter_map(|(_, r)| {
                    let text = self.text(r);
                    let dot = text.rfind('.')?;
                    (text[dot + 1..].trim() == a).then(|| Edit {
                        range: r.start + dot + 1..r.end,
                        text: b.clone(),
                    })
                })
                .collect();
            if !edits.is_empty() {
                out.push(Candidate {
                    kind: Kind::UniformField,
                    description: format!(
                        "binding {binding}: `{a}` (offset {from}) read from `{b}` (offset {to})"
                    ),
                    hint: hint.into(),
                    edits,
                });
            }
        }
        out
    }
}

/// `v` moved by 1.25e-4 of itself (1.0 -> 1.000125, 8.0 -> 8.001); 0 moves by 1.25e-4.
fn perturb(v: f64) -> String {
    let p = if v == 0.0 {
        1.25e-4
    } else {
        v + v.abs() * 1.25e-4
    };
    let s = format!("{p}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

fn float_literal(e: &Expression) -> Option<f64> {
    match e {
        Expression::Literal(Literal::F32(v)) => Some(*v as f64),
        Expression::Literal(Literal::F64(v)) | Expression::Literal(Literal::AbstractFloat(v)) => {
            Some(*v)
        }
        _ => None,
    }
}

fn int_literal(e: &Expression) -> Option<i64> {
    match e {
        Expression::Literal(Literal::U32(v)) => Some(*v as i64),
        Expression::Literal(Literal::I32(v)) => Some(*v as i64),
        Expression::Literal(Literal::AbstractInt(v)) => Some(*v),
        _ => None,
    }
}

fn for_each_statement(block: &Block, visit: &mut impl FnMut(&Statement)) {
    for s in block.iter() {
        visit(s);
        match s {
            Statement::Block(b) => for_each_statement(b, visit),
            Statement::If { accept, reject, .. } => {
                for_each_statement(accept, visit);
                for_each_statement(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    for_each_statement(&c.body, visit);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                for_each_statement(body, visit);
                for_each_statement(continuing, visit);
            }
            _ => {}
        }
    }
}

/// Just after the `{` that opens the body of the function whose parameter list contains `from`:
/// the parameter list is closed (parentheses balanced, line comments skipped), then the next `{`.
fn body_open(src: &str, from: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut depth = 1i32;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'{' if depth == 0 => return Some(i + 1),
            b'{' | b'}' | b';' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

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

fn parse_min_kill_rate(text: &str) -> Result<f64, String> {
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

/// What one suite run (the original or a mutant) found.
struct SuiteRun {
    adapters: Vec<String>,
    no_adapter: Option<String>,
    /// Failing rows, in report order; validation failure as `shader::validates [all adapters]`.
    failures: Vec<Kill>,
    /// The validation (or configuration) failed: every adapter counts as killing.
    invalid: bool,
    seconds: f64,
}

/// Only settings that change what a mutant is judged on pass through; bless is always off.
const PASSED_THROUGH: [&str; 2] = ["SKINPROOF_CASES", "SKINPROOF_TIMEOUT_S"];

/// Runs every case against `shader`: on fresh devices, or on `base`'s devices when given.
/// Returns what it found and the suite, whose devices later runs may share.
fn run_suite(
    root: &Path,
    shader: &Path,
    reports: &Path,
    base: Option<&Suite>,
) -> (SuiteRun, Option<Suite>) {
    use crate::config::{Config, Require};
    let start = Instant::now();
    let vars: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| PASSED_THROUGH.contains(&k.as_str()))
        .collect();
    let mut config = match Config::from_vars(root, vars) {
        Ok(c) => c,
        Err(e) => {
            let run = SuiteRun {
                adapters: Vec::new(),
                no_adapter: Some(e.clone()),
                failures: vec![Kill {
                    case: "harness".into(),
                    check: format!("config ({e})"),
                    adapter: "all adapters".into(),
                }],
                invalid: true,
                seconds: 0.0,
            };
            return (run, None);
        }
    };
    config.shader = shader.to_path_buf();
    config.reports = reports.to_path_buf();
    config.goldens = root.join("golden");
    config.bless = crate::golden::Bless::Off;
    config.require = Require::Nothing;
    config.extra_cases = 0;
    config.bench = "off".into();
    let suite = match base {
        Some(base) => Suite::sharing(config, base),
        None => Suite::discover(config),
    };
    suite.run_all();
    let report = suite
        .report
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let mut failures = Vec::new();
    let invalid = report.validation.as_ref().is_some_and(|v| v.status.fails());
    if invalid {
        failures.push(Kill {
            case: "shader".into(),
            check: "validates".into(),
            adapter: "all adapters".into(),
        });
    }
    failures.extend(
        report
            .rows
            .iter()
            .filter(|r| r.outcome.status.fails())
            .map(|r| Kill {
                case: r.case.clone(),
                check: r.check.clone(),
                adapter: r.adapter.clone(),
            }),
    );
    let run = SuiteRun {
        adapters: report.adapters.iter().map(|a| a.tag.clone()).collect(),
        no_adapter: suite.no_adapter.clone(),
        failures,
        invalid,
        seconds: start.elapsed().as_secs_f64(),
    };
    (run, Some(suite))
}

/// How many killing rows to keep per adapter.
const KILLS_KEPT: usize = 3;

/// Generates the mutants of `shader`, runs the original and every valid mutant through the whole
/// suite (`parallel` suites at a time, sharing the original's devices), and scores them.
pub fn run(root: &Path, shader: &Path, parallel: usize) -> MutationReport {
    let start = Instant::now();
    let shown = shader
        .strip_prefix(root)
        .unwrap_or(shader)
        .display()
        .to_string();
    let mut report = MutationReport {
        shader: shown,
        ..Default::default()
    };
    let source = match std::fs::read_to_string(shader) {
        Ok(s) => s,
        Err(e) => {
            report
                .baseline_failures
                .push(format!("cannot read {}: {e}", shader.display()));
            return report;
        }
    };
    let mutants = generate(&source);
    let scratch = root.join("target").join("mutants");
    // Job 0 is the original shader; then each valid mutant.
    let mut jobs: Vec<(String, PathBuf)> = vec![("original".into(), shader.to_path_buf())];
    for m in &mutants {
        if m.verdict == Verdict::Valid {
            let dir = scratch.join(&m.id);
            let _ = std::fs::remove_dir_all(&dir);
            let path = dir.join("mutant.wgsl");
            if let Err(e) =
                std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &m.source))
            {
                report
                    .baseline_failures
                    .push(format!("cannot write {}: {e}", path.display()));
                return report;
            }
            jobs.push((m.id.clone(), path));
        }
    }
    let results: Mutex<Vec<Option<SuiteRun>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    // The original first, on fresh devices; the mutants then share those devices.
    let (original, base) = run_suite(
        root,
        &jobs[0].1,
        &scratch.join("original").join("reports"),
        None,
    );
    results.lock().unwrap_or_else(|p| p.into_inner())[0] = Some(original);
    let next = AtomicUsize::new(1);
    std::thread::scope(|s| {
        for _ in 0..parallel.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((id, path)) = jobs.get(i) else {
                    break;
                };
                let (run, _) =
                    run_suite(root, path, &scratch.join(id).join("reports"), base.as_ref());
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(run);
            });
        }
    });
    let mut runs: HashMap<String, SuiteRun> = jobs
        .iter()
        .map(|(id, _)| id.clone())
        .zip(results.into_inner().unwrap_or_else(|p| p.into_inner()))
        .filter_map(|(id, r)| r.map(|r| (id, r)))
        .collect();
    let baseline = runs.remove("original");
    let baseline_failed: BTreeSet<String> = baseline
        .as_ref()
        .map(|b| b.failures.iter().map(|k| k.to_string()).collect())
        .unwrap_or_default();
    if let Some(b) = &baseline {
        report.adapters = b.adapters.clone();
        report.no_adapter = b.no_adapter.clone();
        report.baseline_failures = baseline_failed.iter().cloned().collect();
    }
    for m in mutants {
        let mut result = MutantResult {
            status: match m.verdict {
                Verdict::Valid => Status::NotRun,
                Verdict::Invalid(_) => Status::Invalid,
                Verdict::Equivalent(_) => Status::Equivalent,
            },
            killed_on: Vec::new(),
            killed_by: Vec::new(),
            seconds: 0.0,
            mutant: m,
        };
        if let Some(run) = runs.remove(&result.mutant.id) {
            result.seconds = run.seconds;
            let new: Vec<&Kill> = run
                .failures
                .iter()
                .filter(|k| !baseline_failed.contains(&k.to_string()))
                .collect();
            let mut kept: HashMap<&str, usize> = HashMap::new();
            for k in &new {
                let n = kept.entry(k.adapter.as_str()).or_default();
                if *n < KILLS_KEPT {
                    *n += 1;
                    result.killed_by.push((*k).clone());
                }
            }
            result.killed_on = report
                .adapters
                .iter()
                .filter(|a| run.invalid || new.iter().any(|k| &k.adapter == *a))
                .cloned()
                .collect();
            let killed = run.invalid || !new.is_empty();
            if report.adapters.is_empty() && !killed {
                // Nothing could judge it.
                result.status = Status::NotRun;
            } else {
                result.status = if killed {
                    Status::Killed
                } else {
                    Status::Survived
                };
            }
        }
        report.mutants.push(result);
    }
    report.wall_s = start.elapsed().as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::tests::default_source;

    #[test]
    fn every_kind_is_generated_for_the_default_shader() {
        let mutants = generate(&default_source());
        for kind in Kind::ALL {
            assert!(
                mutants.iter().any(|m| m.kind == kind),
                "no {kind} mutant: {:#?}",
                mutants.iter().map(|m| &m.id).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn every_mutant_parses_validates_and_differs() {
        let source = default_source();
        let mutants = generate(&source);
        assert!(mutants.len() >= 15, "{}", mutants.len());
        for m in &mutants {
            assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
            parse_and_validate(&m.source).unwrap_or_else(|e| panic!("{}: {e}", m.id));
            assert_ne!(m.source, source, "{}", m.id);
            assert!(!m.diff.is_empty(), "{}", m.id);
            assert!(!m.hint.is_empty() && !m.description.is_empty(), "{}", m.id);
        }
        let ids: BTreeSet<&str> = mutants.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids.len(), mutants.len(), "ids must be unique");
    }

    #[test]
    fn mutants_make_the_intended_edits() {
        let mutants = generate(&default_source());
        let after = |id: &str| -> String {
            let m = mutants.iter().find(|m| m.id == id).unwrap();
            m.diff
                .iter()
                .map(|c| c.after.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(after("weight_swap-1").contains("let w = w_mutant.yxzw;"));
        assert!(after("homogeneous_dropped-1").contains("vec4<f32>(p, 0.0)"));
        assert!(after("palette_transposed-1").contains("transpose(palette[j[k]])"));
        assert!(after("influence_dropped-1").contains("k < 3u"));
        assert!(after("skinning_skipped-1").contains("let p = position;"));
        assert!(after("count_guard-1").contains("i > params.count"));
        assert!(after("view_transform-1").contains("p.x * view.half_width"));
        assert!(after("view_transform-2").contains("+ (-view.offset_y)"));
        let constants: Vec<String> = mutants
            .iter()
            .filter(|m| m.kind == Kind::ConstantPerturbed)
            .map(|m| m.description.clone())
            .collect();
        assert!(
            constants.iter().any(|d| d.ends_with("1.0 -> 1.000125"))
                && constants.iter().any(|d| d.ends_with("8.0 -> 8.001")),
            "{constants:?}"
        );
        let fields: Vec<String> = mutants
            .iter()
            .filter(|m| m.kind == Kind::UniformField)
            .map(|m| after(&m.id))
            .collect();
        assert!(
            fields.iter().any(|a| a.contains("p.y * view.half_width")),
            "{fields:?}"
        );
        assert!(
            fields.iter().any(|a| a.contains("i >= params._pad0")),
            "{fields:?}"
        );
    }

    #[test]
    fn located_by_naga_not_by_our_names() {
        // The same shader with every name changed and the skinning loop unrolled by hand: the
        // mutants are still found from bindings, locations and member offsets.
        let source = default_source()
            .replace("palette", "bones")
            .replace("weights", "wts")
            .replace("half_width", "hw")
            .replace("offset_y", "oy")
            .replace("fn skin(", "fn deform(")
            .replace("= skin(", "= deform(")
            .replace("skin(positions", "deform(positions")
            .replace("(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>)", "(pos: vec3<f32>, ji: vec4<u32>, wi: vec4<f32>)")
            .replace("vec4<f32>(p, 1.0)", "vec4<f32>(pos, 1.0)")
            .replace(
                "for (var k = 0u; k < 4u; k = k + 1u) {\n        if (w[k] != 0.0) {\n            acc = acc + w[k] * (bones[j[k]] * h).xyz;\n        }\n    }",
                "acc = wi.x * (bones[ji.x] * h).xyz + wi.y * (bones[ji.y] * h).xyz + wi.z * (bones[ji.z] * h).xyz + wi.w * (bones[ji.w] * h).xyz;",
            );
        assert!(source.contains("wi.w * (bones[ji.w]"), "{source}");
        parse_and_validate(&source).unwrap();
        let mutants = generate(&source);
        for kind in Kind::ALL {
            assert!(mutants.iter().any(|m| m.kind == kind), "no {kind} mutant");
        }
        for m in &mutants {
            assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
        }
        let dropped = mutants
            .iter()
            .find(|m| m.kind == Kind::InfluenceDropped)
            .unwrap();
        assert!(
            dropped.diff[0]
                .after
                .contains("let wi = vec4<f32>(wi_mutant.xyz, 0.0);"),
            "{:?}",
            dropped.diff
        );
    }

    #[test]
    fn identical_ir_is_equivalent() {
        let source = default_source();
        let original = fingerprint(&naga::front::wgsl::parse_str(&source).unwrap());
        // A constant that rounds to the same f32, and formatting: the same IR.
        let same = source
            .replace("/ 8.0;", "/ 8.0000000001;")
            .replace("let i = id.x;", "let i  =  id.x;");
        assert_eq!(
            fingerprint(&naga::front::wgsl::parse_str(&same).unwrap()),
            original
        );
        let different = source.replace("/ 8.0;", "/ 8.001;");
        assert_ne!(
            fingerprint(&naga::front::wgsl::parse_str(&different).unwrap()),
            original
        );
    }

    #[test]
    fn edits_apply_and_refuse_overlaps() {
        let e = |a: usize, b: usize, t: &str| Edit {
            range: a..b,
            text: t.into(),
        };
        assert_eq!(
            apply("abcdef", &[e(4, 5, "E"), e(0, 1, "A"), e(2, 2, "+")]).unwrap(),
            "Ab+cdEf"
        );
        assert!(apply("abcdef", &[e(0, 3, "x"), e(2, 4, "y")]).is_err());
        assert_eq!(perturb(8.0), "8.001");
        assert_eq!(perturb(1.0), "1.000125");
        assert_eq!(perturb(0.0), "0.000125");
    }

    #[test]
    fn config_file_parser() {
        assert_eq!(
            parse_min_kill_rate("# comment\nmin_kill_rate = 0.9  # trailing\n").unwrap(),
            0.9
        );
        assert_eq!(parse_min_kill_rate("min_kill_rate=1").unwrap(), 1.0);
        for bad in [
            "",
            "# only a comment",
            "min_kill_rate = 1.5",
            "min_kill_rate = much",
            "min_kill_rates = 1.0",
            "min_kill_rate 1.0",
            "min_kill_rate = 1.0\nmin_kill_rate = 0.5",
        ] {
            assert!(parse_min_kill_rate(bad).is_err(), "{bad:?}");
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let min = min_kill_rate(root).unwrap();
        assert!((0.0..=1.0).contains(&min));
        assert!(min_kill_rate(&root.join("no-such-dir")).is_err());
    }

    #[test]
    fn rates_per_adapter_and_markdown() {
        let mutant = |id: &str| Mutant {
            id: id.into(),
            kind: Kind::WeightSwap,
            description: "d".into(),
            diff: vec![LineChange {
                line: 1,
                before: "a".into(),
                after: "b".into(),
            }],
            hint: "a hint".into(),
            verdict: Verdict::Valid,
            source: String::new(),
        };
        let result = |id: &str, status: Status, on: &[&str]| MutantResult {
            mutant: mutant(id),
            status,
            killed_on: on.iter().map(|s| s.to_string()).collect(),
            killed_by: on
                .iter()
                .map(|a| Kill {
                    case: "c".into(),
                    check: "k".into(),
                    adapter: a.to_string(),
                })
                .collect(),
            seconds: 0.1,
        };
        let report = MutationReport {
            shader: "s.wgsl".into(),
            adapters: vec!["vulkan/x".into(), "gl/x".into()],
            mutants: vec![
                result("a", Status::Killed, &["vulkan/x", "gl/x"]),
                result("b", Status::Killed, &["vulkan/x"]),
                result("c", Status::Equivalent, &[]),
                result("d", Status::Survived, &[]),
            ],
            ..Default::default()
        };
        let rates = report.rates();
        assert_eq!((rates[0].killed, rates[0].survived), (2, 1));
        assert_eq!((rates[1].killed, rates[1].survived), (1, 2));
        assert_eq!(rates[0].equivalent, 1);
        assert!((report.kill_rate() - 1.0 / 3.0).abs() < 1e-12);
        assert!(report.passes(0.3) && !report.passes(0.5));
        let md = report.markdown();
        assert!(md.contains("| gl/x | 1 | 2 | 1 | 0 | 33.3% |"), "{md}");
        assert!(
            md.contains("`c::k [vulkan/x]`; survived on gl/x: a hint"),
            "{md}"
        );
        assert!(
            md.contains("| `d` | weight_swap | d | SURVIVED | hint: a hint |"),
            "{md}"
        );
        let json = serde_json::to_string(&report).unwrap();
        let back: MutationReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.mutants.len(), 4);
        assert!(!MutationReport::default().passes(0.0));
    }
}
