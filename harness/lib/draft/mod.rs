//! A first layout profile for a shader, drafted from naga's reading of it: each role guessed from
//! the types and names of its entry points' inputs and bindings, every guess written with why, and
//! what could not be guessed left as a `TODO` comment.
//!
//! A draft is a start, not a verdict: the harness validates it against the shader as it validates
//! any profile, and the suite then says what the guesses got wrong.

use std::fmt::Write as _;

use crate::compose::{undecorate, Define};
use naga::{AddressSpace, ImageClass, ImageDimension, Module, ScalarKind, TypeInner};

mod compute;
mod flow;
mod gates;
mod modules;
mod orient;
mod read;
mod strides;
#[cfg(test)]
mod tests;
mod texels;
mod vertex;
mod words;

use compute::{compute_section, Extra};
pub use modules::{compose, translate};
use read::{has_matrix, skinning_vertex, PALETTE_WORDS};
use read::{matrices, named, struct_of, used_globals, Global, Matrices, OFFSET_WORDS};
use vertex::{fragment_stage, vertex_section, Stage};

pub(super) use crate::naga_walk::{called, calls, reachable};

/// Why no draft could be made.
#[derive(Debug)]
pub enum DraftError {
    /// naga cannot parse or validate the shader (composed, where it is split into modules).
    Parse(String),
    /// No entry point the harness can test: no vertex or compute stage.
    NoStage,
}

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DraftError::Parse(e) => write!(
                f,
                "naga cannot read the shader, so nothing can be drafted from it:\n{e}"
            ),
            DraftError::NoStage => write!(
                f,
                "the shader has no vertex or compute entry point, so there is no skinning stage to describe"
            ),
        }
    }
}

impl std::error::Error for DraftError {}

/// A drafted profile: its YAML text, and how many fields are left as `TODO`.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub yaml: String,
    pub todos: usize,
}

/// The text of a drafted profile, line by line.
struct Writer {
    out: String,
    todos: usize,
}

impl Writer {
    /// A line; the names of imported items in its comment as their modules write them (a value
    /// keeps the composed name, which is what the profile resolves).
    fn line(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        let comment = text.find('#').unwrap_or(text.len());
        self.out.push_str(&text[..comment]);
        self.out.push_str(&undecorate(&text[comment..]));
        self.out.push('\n');
    }

    /// The skinned directions drafted so far, by the lines that name them: (normals, tangents).
    fn skinned_frames(&self) -> (bool, bool) {
        let lines = || self.out.lines().map(str::trim_start);
        let has = |stream: &str, field: &str| {
            lines().any(|l| {
                l.starts_with(stream)
                    || (l.starts_with("output:") && l.contains(&format!(" {field}:")))
            })
        };
        (
            has("skinned_normal", "normal"),
            has("skinned_tangent", "tangent"),
        )
    }

    /// The group and binding drafted so far for the compute stream `field` (`skinned_normals: {
    /// group: 0, binding: 6, ... }`).
    fn stream_binding(&self, field: &str) -> Option<(u32, u32)> {
        let line = (self.out.lines().map(str::trim_start))
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?;
        let number = |key: &str| -> Option<u32> {
            let rest = &line[line.find(key)? + key.len()..];
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        };
        Some((number("group:")?, number("binding:")?))
    }

    fn todo(&mut self, text: impl AsRef<str>) {
        self.todos += 1;
        let _ = writeln!(self.out, "# TODO: {}", undecorate(text.as_ref()));
    }
}

/// How a shader split into modules was composed for its draft: written as the profile's
/// `modules` section.
#[derive(Clone, Debug, PartialEq)]
pub struct Composition {
    /// The folders the imported modules were found in, relative to the profile's folder.
    pub folders: Vec<String>,
    /// Every define the modules read, with the value composed under and whether it was given
    /// (one not given was composed as `false`, left off).
    pub defines: Vec<(String, Define, bool)>,
}

/// How a GLSL or SPIR-V shader was read for its draft (`foreign`): its language, and for GLSL
/// every define it reads, with the value read under and whether it was given (one not given was
/// read as `false`, undefined), written as the profile's `defines`.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    pub language: &'static str,
    pub defines: Vec<(String, Define, bool)>,
}

/// What the drafted WGSL is of the shader's file.
#[derive(Clone, Copy)]
enum Made<'a> {
    /// The file itself.
    File,
    Composed(&'a Composition),
    Translated(&'a Translation),
}

/// Drafts a profile for the shader `file_name` holding `source`.
pub fn draft(file_name: &str, source: &str) -> Result<Draft, DraftError> {
    draft_with(file_name, source, Made::File)
}

/// Drafts a profile for the GLSL or SPIR-V shader `file_name` from `wgsl` (what naga writes
/// from it, `foreign::translate`), read `how`.
pub fn draft_translated(
    file_name: &str,
    wgsl: &str,
    how: &Translation,
) -> Result<Draft, DraftError> {
    draft_with(file_name, wgsl, Made::Translated(how))
}

/// Drafts a profile for the shader `file_name`, split into modules, from `composed` (the one WGSL
/// text its modules compose into, `compose::compose`), with `how` it was composed.
pub fn draft_composed(
    file_name: &str,
    composed: &str,
    how: &Composition,
) -> Result<Draft, DraftError> {
    draft_with(file_name, composed, Made::Composed(how))
}

/// The `modules` section of a draft for `file_name`, composed `how`.
fn modules_section(file_name: &str, how: &Composition, w: &mut Writer) {
    w.line("# Split into modules: composed from this entry module and the modules it imports, found in");
    w.line("# the folders below, under the defines below (the draft read the composed shader).");
    w.line("modules:");
    w.line(format!("  entry: {file_name}"));
    if !how.folders.is_empty() {
        w.line(format!("  folders: [{}]", how.folders.join(", ")));
    }
    defines_lines(&how.defines, "  ", "the modules", w);
}

/// A drafted `defines` map, its key at `indent`: each define with the value it was read under,
/// one `reader` reads that was not given left undefined and to do.
fn defines_lines(defines: &[(String, Define, bool)], indent: &str, reader: &str, w: &mut Writer) {
    if defines.is_empty() {
        return;
    }
    w.line(format!("{indent}defines:"));
    for (name, value, given) in defines {
        if !given {
            w.todo(format!(
                "`{name}` is read by {reader} and was not given (`--define {name}[=VALUE]`): left undefined here; set it as the shader ships"
            ));
        }
        w.line(format!("{indent}  {name}: {value}"));
    }
}

/// The head of a draft for a GLSL or SPIR-V shader `file_name`, read `how`: how it was read,
/// and a GLSL shader's `defines`.
fn translation_section(file_name: &str, how: &Translation, w: &mut Writer) {
    w.line(format!(
        "# Shipped as {}: read as wgpu reads it, and drafted from the WGSL naga writes from it, which",
        how.language
    ));
    w.line(format!(
        "# `cargo run --release --bin skinproof -- wgsl {file_name}` prints (the lines messages point to)."
    ));
    defines_lines(&how.defines, "", "the shader", w);
}

fn draft_with(file_name: &str, source: &str, made: Made) -> Result<Draft, DraftError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| DraftError::Parse(e.emit_to_string_with_path(source, file_name)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| DraftError::Parse(crate::validator::emitted(&e, &module, (source, file_name))))?;
    let compute = read::skinning_compute(&module, &info);
    let vertex = skinning_vertex(&module);
    if compute.is_none() && vertex.is_none() {
        return Err(DraftError::NoStage);
    }
    let mut w = Writer {
        out: String::new(),
        todos: 0,
    };
    w.line(format!(
        "# A draft layout profile for {file_name}, from naga's reading of it: each field is a guess from"
    ));
    w.line("# the types and names of the entry points' inputs and bindings, with why. Check each against");
    w.line("# the shader (field reference: shaders/README.md); the suite validates the profile and says");
    w.line("# what a wrong guess breaks.");
    w.line(format!("shader: {file_name}"));
    match made {
        Made::File => {}
        Made::Composed(how) => modules_section(file_name, how, &mut w),
        Made::Translated(how) => translation_section(file_name, how, &mut w),
    }
    let fragment = vertex.and_then(|_| fragment_stage(&module, &info));
    let eps: Vec<usize> = (compute.into_iter())
        .chain(vertex)
        .chain(fragment.as_ref().and_then(|f| f.kept))
        .collect();
    let globals = used_globals(&module, &info, &eps);
    let mut taken: Vec<(u32, u32)> = Vec::new();
    let stage = compute.or(vertex).map(|i| (&info, i));
    let (palette, switches) = palette(&module, &globals, stage, &mut w, &mut taken);
    let mut extras = Vec::new();
    // The compute stage's skinned directions are not renormalised where it calls no function
    // that could (`normalize`, `inverseSqrt`, `length`).
    let mut compute_unnormalised = false;
    // Or it calls one, but a stream of skinned directions of its own takes a value without.
    let mut stored_unnormalised_only = false;
    let (mut sets, mut lanes) = (1, 4);
    let mut implied = false;
    if let Some(i) = compute {
        let ep = &module.entry_points[i];
        let traced = (i, palette.and_then(|p| palette_target(&module, p)));
        let compute_sets;
        (extras, compute_sets) =
            compute_section(&module, &info, &globals, traced, &mut w, &mut taken);
        sets = compute_sets;
        let frames = w.skinned_frames();
        compute_unnormalised = (frames.0 || frames.1) && !renormalises(&module, ep);
        // Where it could, each stream of skinned directions of its own holds renormalised ones
        // only if every skinned value stored there may be.
        let streams: Vec<_> = ["skinned_normals", "skinned_tangents"]
            .iter()
            .filter_map(|field| w.stream_binding(field))
            .filter_map(|at| globals.iter().find(|g| (g.group, g.binding) == at))
            .filter_map(|g| g.variable(&module))
            .collect();
        // Only where the palette is known: a store of no skinned value (a fallback copying the
        // source) says nothing.
        let stored_unnormalised = traced.1.is_some_and(|palette| {
            (streams.iter()).any(|&g| {
                !flow::stores_renormalised(&module, reachable(&module, &[ep]), g, Some(palette))
            })
        });
        stored_unnormalised_only = stored_unnormalised && !compute_unnormalised;
    }
    let mut unnormalised = Vec::new();
    if let Some(i) = vertex {
        let vertex = Stage {
            index: i,
            fragment: fragment.as_ref(),
        };
        let v = vertex_section(
            &module,
            &info,
            &globals,
            vertex,
            (palette, &switches),
            &mut w,
            &mut taken,
        );
        (sets, lanes, unnormalised) = (v.sets, v.lanes, v.unnormalised);
        implied = v.implied;
    }
    let palette_array = palette.is_some_and(|p| matches!(p.ty, TypeInner::Array { .. }));
    bindings(
        &module,
        &globals,
        &taken,
        &extras,
        palette_array,
        &switches,
        &mut w,
    );
    if sets > 1 {
        w.line(format!(
            "# {sets} joint and weight inputs each: {sets} influence sets of 4 (JOINTS_0/WEIGHTS_0, JOINTS_1/WEIGHTS_1, ...)"
        ));
        w.line(format!("influence_sets: {sets}"));
    }
    if lanes < 4 {
        w.line(format!(
            "# The joints and weights are vec{lanes}s: the shader reads {lanes} influences a vertex (the harness stores 4 and puts a vertex's influences in the first slots)"
        ));
        w.line(format!("max_influences: {lanes}"));
    }
    if implied {
        w.line("# Three weights beside four joints: the shader takes the fourth as one minus the others");
        w.line("last_weight: implied");
    }
    if flow::multiplies_stored_w(&module) {
        w.line("# A stored vec4 position is multiplied as it is, its w taken as a point's: the engine stores points with w 1");
        w.line("position_w: 1");
    }
    if compute_unnormalised {
        w.line("# The compute stage calls no `normalize` (nor `inverseSqrt`, `length`): its skinned normals and tangents are blended, not renormalised; compared by direction");
        w.line("frame_length: any");
    } else if stored_unnormalised_only {
        w.line("# The compute stage stores a skinned normal or tangent computed with no `normalize` (nor `inverseSqrt`, `length`): blended, not renormalised (a later stage does); compared by direction");
        w.line("frame_length: any");
    } else if !unnormalised.is_empty() {
        w.line(format!(
            "# The vertex stage returns {} without renormalising (a `normalize` it does not call): a later stage does, after interpolation; compared by direction",
            quoted(unnormalised.iter().map(|(n, _)| n))
        ));
        // The tangent alone, beside a skinned normal the stage renormalises (Qt Quick 3D's).
        let tangent_alone = w.skinned_frames().0 && unnormalised.iter().all(|(_, t)| *t);
        w.line(match tangent_alone {
            true => "tangent_length: any",
            false => "frame_length: any",
        });
    }
    normal_matrix(&module, palette, &mut w);
    tangent_frame(&module, &mut w);
    constants(&module, &mut w);
    immediates(&module, &mut w);
    expectations(source, &globals, &mut w);
    Ok(Draft {
        yaml: w.out,
        todos: w.todos,
    })
}

/// The shader's immediate data (`var<immediate>`, push constants), which the harness sets before
/// each draw and dispatch: zeros, or identities where it holds matrices (a model matrix pushed
/// per draw), which zeros would make singular; the vertex count where a compute stage's guard
/// reads it there.
fn immediates(module: &Module, w: &mut Writer) {
    let Some((handle, var)) =
        (module.global_variables.iter()).find(|(_, v)| v.space == AddressSpace::Immediate)
    else {
        return;
    };
    let name = var.name.as_deref().unwrap_or_default();
    let mut fields = Vec::new();
    if has_matrix(module, var.ty) {
        w.line(format!(
            "# `{name}` is immediate data (push constants) holding matrices: the identity's, set before each draw and dispatch"
        ));
        fields.push("fill: identity".to_string());
    }
    if let Some(path) = compute::immediate_count(module, handle) {
        w.line(format!(
            "# `{name}.{path}` bounds the compute stage's invocations: the vertex count, written per case"
        ));
        fields.push(format!("count: {path}"));
    }
    if !fields.is_empty() {
        w.line(format!("immediates: {{ {} }}", fields.join(", ")));
    }
}

/// The `expect` entries the draft's layout needs: the cases past a palette of fixed length (or
/// past `u8` joints) by their joint count, so that a case added later is covered unnamed; the
/// cases with a vertex of more influences than the shader reads (`influences_above`); the
/// shader's Tint trial where the stages bind groups past the 4 WebGPU guarantees (a native
/// engine's layout: wgpu runs them where the adapter has more, Dawn, as browsers, refuses).
fn expectations(source: &str, globals: &[Global], w: &mut Writer) {
    let mut entries: Vec<[String; 2]> = Vec::new();
    let reads = crate::shader::contract_of(source, &w.out).map(|c| c.reads());
    if let Some(c) = reads.as_ref().and_then(|r| r.capacity.as_ref()) {
        let (n, fixed) = (c.joints, &c.fixed);
        entries.push([
            format!(
                "# {}{}: a case with more than {n} joints cannot be drawn with this layout",
                fixed[..1].to_uppercase(),
                &fixed[1..]
            ),
            format!(
                "  - case: \"*\"\n    joints_above: {n}\n    matches: \"{fixed}\"\n    reason: the layout holds {n} joints (raise the length where the engine's skeletons need more)"
            ),
        ]);
    }
    if let Some(n) = reads.as_ref().map(|r| r.most()).filter(|&n| n < 4) {
        entries.push([
            format!("# The shader reads {n} influences a vertex: a case with a vertex of more cannot be tested with it"),
            format!(
                "  - case: \"*\"\n    influences_above: {n}\n    matches: \"{}\"\n    reason: the shader reads {n} influences a vertex, and dropping one would test another deformation than the case's (an engine that keeps {n} reweights its meshes as it imports them)",
                crate::format::MORE_THAN_READ
            ),
        ]);
    }
    if let Some(r) = reads
        .as_ref()
        .filter(|r| r.joints == crate::format::JointFormat::U8x4)
    {
        let n = r.joints.max_index() as usize + 1;
        let name = r.joints.name();
        entries.push([
            format!("# {name} joints index {n} joints: a case using more cannot be loaded"),
            format!(
                "  - case: \"*\"\n    joints_above: {n}\n    matches: \"joint format {name}\"\n    reason: {name} joints index joints 0 to {}",
                n - 1
            ),
        ]);
    }
    if let Some(last) = (globals.iter().map(|g| g.group).max()).filter(|&g| g >= 4) {
        entries.push([
            format!(
                "# The stages bind groups 0 to {last}, past the 4 WebGPU guarantees: wgpu runs them on adapters with more (their `max_bind_groups`), Dawn does not"
            ),
            format!(
                "  - case: shader\n    checks: [tint_accepts]\n    matches: bindGroupLayoutCount\n    reason: the stages bind {} groups and Dawn, as browsers, binds 4 (remove this entry where the shader must run in a browser)",
                last + 1
            ),
        ]);
    }
    if entries.is_empty() {
        return;
    }
    for [comment, _] in &entries {
        w.line(comment);
    }
    w.line("expect:");
    for [_, entry] in &entries {
        for line in entry.lines() {
            w.line(line);
        }
    }
}

/// Whether entry point `ep`, or a function it calls, calls `normalize`, `inverseSqrt` or
/// `length`: a renormalisation it may do.
fn renormalises(module: &Module, ep: &naga::EntryPoint) -> bool {
    reachable(module, &[ep]).any(|f| f.expressions.iter().any(|(_, e)| flow::renormalising(e)))
}

/// `normal_matrix: blended` where the draft has skinned normals that the shader cannot move by an
/// inverse: no function the entry points call computes an `inverse`, a cross product of a matrix's
/// columns (a cofactor), a division by a determinant (an adjugate over it) or by a column's
/// squared length (an inverse scale); `per_joint` where one is called with a joint's own matrix,
/// or where that normal matrix is in the palette's drafted fields.
fn normal_matrix(module: &Module, palette: Option<&Global>, w: &mut Writer) {
    use naga::{Expression, MathFunction};
    let (skins_normals, _) = w.skinned_frames();
    if !skins_normals || w.out.contains("normal_member") || w.out.contains("normal_texels") {
        return;
    }
    // A cross product of a matrix's columns (`cross(m[1], m[2])`: a cofactor), not of two
    // directions (a binormal, `cross(normal, tangent)`, which war3's shader computes beside
    // normals moved by the blended matrix).
    let column = |f: &naga::Function, mut e: naga::Handle<Expression>| loop {
        match f.expressions[e] {
            Expression::Swizzle { vector, .. } => e = vector,
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                // Where the base's type shows, a matrix's column and not a struct's member
                // (an input struct's `v.normal`).
                let ty = match f.expressions[base] {
                    Expression::FunctionArgument(i) => Some(f.arguments[i as usize].ty),
                    Expression::Load { pointer } => match f.expressions[pointer] {
                        Expression::LocalVariable(l) => Some(f.local_variables[l].ty),
                        _ => None,
                    },
                    Expression::Compose { ty, .. } => Some(ty),
                    _ => None,
                };
                return ty
                    .is_none_or(|t| matches!(module.types[t].inner, TypeInner::Matrix { .. }));
            }
            _ => return false,
        }
    };
    let inverting = |f: &naga::Function| {
        f.expressions.iter().any(|(_, e)| match *e {
            Expression::Math {
                fun: MathFunction::Cross,
                arg,
                arg1,
                ..
            } => column(f, arg) || arg1.is_some_and(|a| column(f, a)),
            Expression::Math {
                fun: MathFunction::Inverse,
                ..
            } => true,
            // A determinant inverts where something is divided by it (an adjugate over it), not
            // where only its sign is taken (blade's mirrored bitangent); a transpose alone
            // inverts nothing (a row matrix turned to columns).
            Expression::Binary {
                op: naga::BinaryOperator::Divide,
                right,
                ..
            } => determinant(module, f, right) || column_scale(f, right, &column),
            _ => false,
        })
    };
    let inverts = reachable(module, &entries(module)).any(inverting);
    if inverts && per_joint(module, palette, &inverting) {
        w.line("# A function that inverts is called with a palette matrix itself: each joint's own normal");
        w.line("# matrix, blended by the weights");
        w.line("normal_matrix: per_joint");
    }
    if !inverts {
        w.line("# No function the entry points call inverts (an `inverse`, a cross product of a matrix's columns,");
        w.line("# a division by a determinant or a column's squared length): the normals move by the blended");
        w.line("# matrix itself, not its inverse transpose (or by each joint's own normal matrix where the");
        w.line("# palette holds one: `per_joint`)");
        w.line("normal_matrix: blended");
    }
}

/// Whether `e` is a column's squared length, `dot(m[0].xyz, m[0].xyz)`: dividing by it undoes
/// the column's scale twice over (rend3's `get_inv_scale_squared`), which is the inverse
/// transpose of a matrix whose columns are orthogonal.
fn column_scale(
    f: &naga::Function,
    e: naga::Handle<naga::Expression>,
    column: &dyn Fn(&naga::Function, naga::Handle<naga::Expression>) -> bool,
) -> bool {
    use naga::{Expression, MathFunction};
    match f.expressions[e] {
        Expression::Splat { value, .. } => column_scale(f, value, column),
        // `n / vec3(dot(c0, c0), dot(c1, c1), dot(c2, c2))`: every scale at once.
        Expression::Compose { ref components, .. } => {
            !components.is_empty() && components.iter().all(|&c| column_scale(f, c, column))
        }
        Expression::Math {
            fun: MathFunction::Dot,
            arg,
            arg1: Some(arg1),
            ..
        } => column(f, arg) && column(f, arg1),
        _ => false,
    }
}

/// `tangent_frame: orthogonal` where the draft has skinned tangents beside skinned normals and a
/// function the vertex or compute stages call takes a Gram-Schmidt step, `t - dot(t, n) * n`: the tangent
/// made perpendicular to the normal (yhwh's vertex stage, as engines build a tangent frame).
fn tangent_frame(module: &Module, w: &mut Writer) {
    use naga::{BinaryOperator as B, Expression as E};
    if w.skinned_frames() != (true, true) {
        return;
    }
    let dot = |f: &naga::Function, e: naga::Handle<E>| match f.expressions[e] {
        E::Math {
            fun: naga::MathFunction::Dot,
            arg,
            arg1: Some(arg1),
            ..
        } => Some((arg, arg1)),
        _ => None,
    };
    // `t - dot(t, n) * n`, the factors either way round and the dot's arguments too.
    let step = |f: &naga::Function, t, p| {
        let E::Binary {
            op: B::Multiply,
            left,
            right,
        } = f.expressions[p]
        else {
            return false;
        };
        [(left, right), (right, left)].into_iter().any(|(d, n)| {
            dot(f, d).is_some_and(|(a, b)| {
                (same(f, a, t) && same(f, b, n)) || (same(f, b, t) && same(f, a, n))
            })
        })
    };
    // In the stages that skin: a fragment stage building its own frame (crafty's, voplay's)
    // compares nothing.
    let skinning: Vec<_> = (module.entry_points.iter())
        .filter(|e| e.stage != naga::ShaderStage::Fragment)
        .collect();
    let orthogonalises = reachable(module, &skinning).any(|f| {
        f.expressions.iter().any(|(_, e)| match *e {
            E::Binary {
                op: B::Subtract,
                left,
                right,
            } => step(f, left, right),
            _ => false,
        })
    });
    if orthogonalises {
        w.line("# The tangent is made perpendicular to the normal (`t - dot(t, n) * n`): compared against the");
        w.line("# reference's moved tangent made so");
        w.line("tangent_frame: orthogonal");
    }
}

/// Whether `a` and `b` are the same value: one expression, or loads of one local variable (or
/// one of its members, or swizzles of them alike), which WGSL writes as two uses of its name.
fn same(
    f: &naga::Function,
    a: naga::Handle<naga::Expression>,
    b: naga::Handle<naga::Expression>,
) -> bool {
    use naga::Expression as E;
    if a == b {
        return true;
    }
    match (&f.expressions[a], &f.expressions[b]) {
        (E::Load { pointer: p }, E::Load { pointer: q }) => same(f, *p, *q),
        (E::LocalVariable(x), E::LocalVariable(y)) => x == y,
        (E::GlobalVariable(x), E::GlobalVariable(y)) => x == y,
        (E::FunctionArgument(x), E::FunctionArgument(y)) => x == y,
        (E::AccessIndex { base: p, index: i }, E::AccessIndex { base: q, index: j }) => {
            i == j && same(f, *p, *q)
        }
        (
            E::Swizzle {
                size: s,
                vector: p,
                pattern: x,
            },
            E::Swizzle {
                size: t,
                vector: q,
                pattern: y,
            },
        ) => s == t && x == y && same(f, *p, *q),
        _ => false,
    }
}

/// Whether `e` is a determinant written out: a sum or difference of terms in which a matrix's
/// elements (`m[1][1]`) are multiplied together, as WGSL, which has no `inverse`, makes one
/// (naga's `_naga_inverse_3x3_f32` for GLSL's `inverse`, an engine's own).
fn written_determinant(
    module: &Module,
    f: &naga::Function,
    e: naga::Handle<naga::Expression>,
) -> bool {
    use naga::{BinaryOperator as Op, Expression};
    // `m[i][j]` of a matrix argument or local.
    let element = |e: naga::Handle<Expression>| {
        let (Expression::Access { base, .. } | Expression::AccessIndex { base, .. }) =
            f.expressions[e]
        else {
            return false;
        };
        let (Expression::Access { base, .. } | Expression::AccessIndex { base, .. }) =
            f.expressions[base]
        else {
            return false;
        };
        let ty = match f.expressions[base] {
            Expression::FunctionArgument(i) => f.arguments[i as usize].ty,
            Expression::Load { pointer } => match f.expressions[pointer] {
                Expression::LocalVariable(l) => f.local_variables[l].ty,
                _ => return false,
            },
            _ => return false,
        };
        // A matrix's element, not an array of vectors'.
        matches!(module.types[ty].inner, TypeInner::Matrix { .. })
    };
    // Whether a term holds an element, and whether two are multiplied in it.
    fn walk(
        f: &naga::Function,
        e: naga::Handle<Expression>,
        element: &dyn Fn(naga::Handle<Expression>) -> bool,
        depth: usize,
    ) -> (bool, bool) {
        if depth > 8 {
            return (false, false);
        }
        match f.expressions[e] {
            _ if element(e) => (true, false),
            Expression::Unary { expr, .. } => walk(f, expr, element, depth + 1),
            Expression::Binary { op, left, right }
                if matches!(op, Op::Add | Op::Subtract | Op::Multiply) =>
            {
                let (l, r) = (
                    walk(f, left, element, depth + 1),
                    walk(f, right, element, depth + 1),
                );
                let product = op == Op::Multiply && l.0 && r.0;
                (l.0 || r.0, product || l.1 || r.1)
            }
            _ => (false, false),
        }
    }
    let summed = matches!(
        f.expressions[e],
        Expression::Binary {
            op: Op::Add | Op::Subtract,
            ..
        }
    );
    summed && walk(f, e, &element, 0).1
}

/// Whether `e` is a determinant (`determinant(m)`, or written out): computed there, or loaded
/// from a local one is stored in.
fn determinant(module: &Module, f: &naga::Function, e: naga::Handle<naga::Expression>) -> bool {
    use naga::{Expression, MathFunction};
    let is_det = |e: naga::Handle<Expression>| {
        let called = matches!(
            f.expressions[e],
            Expression::Math {
                fun: MathFunction::Determinant,
                ..
            }
        );
        called || written_determinant(module, f, e)
    };
    match f.expressions[e] {
        // `v / det` splats the scalar over the vector.
        Expression::Splat { value, .. } => determinant(module, f, value),
        Expression::Load { pointer } => {
            let Expression::LocalVariable(local) = f.expressions[pointer] else {
                return false;
            };
            let mut stored = f.local_variables[local].init.is_some_and(is_det);
            crate::shader::for_each_statement(&f.body, &mut |s| {
                if let naga::Statement::Store { pointer: p, value } = *s {
                    stored |= matches!(f.expressions[p], Expression::LocalVariable(l) if l == local)
                        && is_det(value);
                }
            });
            stored
        }
        _ => is_det(e),
    }
}

/// Whether a function that `inverts` is called with a matrix read from the palette (Renderide's
/// `normal_matrix(bone_matrices[idx.x])`): normals by each joint's own normal matrix.
fn per_joint(
    module: &Module,
    palette: Option<&Global>,
    inverts: &dyn Fn(&naga::Function) -> bool,
) -> bool {
    let Some(target) = palette.and_then(|p| palette_target(module, p)) else {
        return false;
    };
    // A pointer into the palette: some link of its chain is the palette (its member, where the
    // palette is one member of a struct: not a post transform beside it, as blade's).
    let into_palette = |f: &naga::Function, mut e: naga::Handle<naga::Expression>| loop {
        if flow::reads_palette(module, f, &f.expressions[e], target) {
            return true;
        }
        match f.expressions[e] {
            naga::Expression::GlobalVariable(g) => return g == target.0 && target.1.is_none(),
            naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. } => {
                e = base
            }
            _ => return false,
        }
    };
    reachable(module, &entries(module)).any(|f| {
        let mut found = false;
        crate::shader::for_each_statement(&f.body, &mut |s| {
            if let naga::Statement::Call {
                function,
                ref arguments,
                ..
            } = *s
            {
                let from_palette = arguments
                    .iter()
                    .any(|&a| joint_matrix(module, f, a, &into_palette, 4));
                let mut callee = called(module, [function]).map(|h| &module.functions[h]);
                found |= from_palette && callee.any(inverts);
            }
        });
        found
    })
}

/// Whether `e` is one joint's matrix read from the palette, not a blend of them: loaded through a
/// pointer `into_palette`, returned by a call whose every return is one (rend3's
/// `get_joint_matrix(j)`, to a depth of `depth` calls), or made of one's columns alone
/// (`mat3x3(m[0].xyz, m[1].xyz, m[2].xyz)`).
fn joint_matrix(
    module: &Module,
    f: &naga::Function,
    e: naga::Handle<naga::Expression>,
    into_palette: &dyn Fn(&naga::Function, naga::Handle<naga::Expression>) -> bool,
    depth: u8,
) -> bool {
    use naga::Expression as E;
    let one = |e| joint_matrix(module, f, e, into_palette, depth);
    match f.expressions[e] {
        E::Load { pointer } => into_palette(f, pointer),
        E::Swizzle { vector, .. } => one(vector),
        E::AccessIndex { base, .. } => one(base),
        E::Compose { ref components, .. } => {
            !components.is_empty() && components.iter().all(|&c| one(c))
        }
        E::CallResult(callee) if depth > 0 => {
            let callee = &module.functions[callee];
            let returns = flow::returns(callee);
            !returns.is_empty()
                && (returns.into_iter())
                    .all(|v| joint_matrix(module, callee, v, into_palette, depth - 1))
        }
        _ => false,
    }
}

/// Every entry point of the module.
fn entries(module: &Module) -> Vec<&naga::EntryPoint> {
    module.entry_points.iter().collect()
}

/// The integer member of `g` (a struct, or an array of them: element 0's) named as a skin offset.
fn offset_member(module: &Module, g: &Global, others: &[Global]) -> Option<String> {
    let named_offset = |g: &Global| int_member(module, g, |name| named(name, OFFSET_WORDS));
    let read = |g: &Global, name: &str| {
        g.variable(module)
            .is_some_and(|v| gates::reads_member(module, v, name))
    };
    let name = named_offset(g)?;
    // Two bindings may both declare one (an entity's and an instance's), and the shader read
    // only one of them: one this reading sees unread gives way to one it sees read (a read it
    // cannot follow, through a helper's argument, keeps the first).
    let rival = (others.iter())
        .filter(|o| (o.group, o.binding) != (g.group, g.binding))
        .any(|o| named_offset(o).is_some_and(|n| read(o, &n)));
    (read(g, &name) || !rival).then_some(name)
}

/// The u32 or i32 member of a filled binding's struct (or its element 0's) named as the number
/// of joints (`jointCount`, `num_bones`), which the harness writes per case: zero there may
/// mean an unskinned mesh.
fn joint_count_member(module: &Module, g: &Global) -> Option<String> {
    int_member(module, g, joint_count_name)
}

/// Whether `name` names the number of joints (`jointCount`, `num_bones`, `bone_count`), not the
/// influences a vertex has (`num_bone_influences`), which stay the engine's.
fn joint_count_name(name: &str) -> bool {
    named(name, &["joint", "bone"])
        && named(name, &["count", "num", "number", "total"])
        && !named(name, &["influence", "weight", "pervertex"])
}

/// The member of `g` a switch of the skinning tests that the shader reads into a `let` named as
/// the number of joints (`let bone_count = model.flags.z; if (bone_count > 0u)`), as the profile
/// names it (`flags.z`), with that name.
fn joint_count_switch(
    module: &Module,
    g: &Global,
    switches: &[gates::Switch],
) -> Option<(String, String)> {
    let var = g.variable(module);
    (switches.iter())
        // An integer member (or a lane of a vector of them), as validation reads the profile's.
        .filter(|s| {
            Some(s.global) == var
                && !s.basis
                && crate::shader::int_offset(module, g.handle, &s.read_path(), "").is_ok()
        })
        .find_map(|s| {
            let name = s.named.as_ref().filter(|n| joint_count_name(n))?;
            Some((s.read_path(), name.clone()))
        })
}

/// The draft's comment on member `m` of `global` drafted as its `joint_count` (read into a `let`
/// of the name `read_as`, where that names it), and on the branch on it the count takes where one
/// `gates` the skinning.
fn joint_count_comment(global: &str, m: &str, read_as: Option<&str>, gates: bool) -> String {
    let named = match read_as {
        Some(n) => format!("is read as `{n}`, named"),
        None => "is named".into(),
    };
    format!(
        "# `{global}`'s integer member `{m}` {named} as the number of joints: the harness writes the case's{}",
        if gates {
            ", which takes the skinning path its branch tests"
        } else {
            ""
        }
    )
}

/// The first 32-bit integer member of a binding's struct (or its element 0's) whose name `is`
/// accepts.
fn int_member(module: &Module, g: &Global, is: impl Fn(&str) -> bool) -> Option<String> {
    scalar_member(module, g, &[ScalarKind::Uint, ScalarKind::Sint], is)
}

/// The first 32-bit scalar member of one of these `kinds` of `g`'s struct (or its element 0's)
/// whose name `is` takes.
fn scalar_member(
    module: &Module,
    g: &Global,
    kinds: &[ScalarKind],
    is: impl Fn(&str) -> bool,
) -> Option<String> {
    let ty = match g.ty {
        TypeInner::Array { base, .. } => &module.types[*base].inner,
        t => t,
    };
    let TypeInner::Struct { members, .. } = ty else {
        return None;
    };
    members.iter().find_map(|m| {
        let name = m.name.as_deref()?;
        let kind = matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if kinds.contains(&s.kind) && s.width == 4);
        (kind && is(name)).then(|| name.to_string())
    })
}

/// The u32, i32 or f32 member of a filled binding's struct (or its element 0's) named as a bone
/// texture's width or size (`boneTextureWidth`, three.js's `boneTextureSize`; not a material's
/// `texelSize`).
fn texture_width_member(module: &Module, g: &Global) -> Option<String> {
    let kinds = [ScalarKind::Uint, ScalarKind::Sint, ScalarKind::Float];
    scalar_member(module, g, &kinds, |name| {
        named(name, &["width", "size"]) && named(name, &["bone", "joint"])
    })
}

/// A bone texture, written as the palette: the 2D float texture named as joints, else the one the
/// shader reads texel by texel (`textureLoad`, where material textures are sampled); its texels a
/// joint and its width as its loads read them, and the sampler it is sampled through, if any.
fn palette_texture<'a>(
    module: &Module,
    globals: &'a [Global],
    w: &mut Writer,
) -> Option<(&'a Global<'a>, Option<&'a Global<'a>>)> {
    let textures: Vec<&Global> = (globals.iter())
        .filter(|g| {
            matches!(
                g.ty,
                // As the palette is bound: not an array (an engine's morph targets), one sample.
                TypeInner::Image {
                    dim: ImageDimension::D2,
                    arrayed: false,
                    class: ImageClass::Sampled {
                        kind: ScalarKind::Float,
                        multi: false,
                    },
                }
            )
        })
        .collect();
    let only = textures.len() == 1;
    let read = |t: &Global| {
        (t.variable(module))
            .map(|h| texels::loads(module, h, only))
            .unwrap_or_default()
    };
    // Else one with a word of poses or matrices is a bone texture too (Defold's
    // `pose_matrix_cache`): a texture holds no other matrices.
    let posed = |g: &&&Global| {
        (vertex::words(&g.name).iter())
            .any(|w| ["pose", "poses", "matrix", "matrices"].contains(&w.as_str()))
    };
    let named_so = (textures.iter().find(|g| named(&g.name, PALETTE_WORDS)))
        .or_else(|| textures.iter().find(posed));
    let (t, why) = match named_so {
        Some(t) => (*t, "a texture named as joints"),
        None => {
            let loaded: Vec<&&Global> = textures.iter().filter(|t| read(t).count > 0).collect();
            // Beside another read texel by texel (a morph target's, one texel a vertex): the
            // one whose loads read a run of a joint's texels.
            let runs: Vec<&&Global> = (loaded.iter().copied())
                .filter(|t| read(t).run >= 3)
                .collect();
            match (&loaded[..], &runs[..]) {
                ([t], _) => (
                    **t,
                    "the texture the shader reads texel by texel (`textureLoad`), as a bone texture is read",
                ),
                (_, [t]) => (
                    **t,
                    "the texture the shader reads texel by texel (`textureLoad`) in runs of a joint's texels, as a bone texture is read",
                ),
                _ => return None,
            }
        }
    };
    let loads = read(t);
    let (texels, what) = match loads.run {
        3 => (
            3,
            "three texels a joint (its loads read index + 0 to + 2): an affine's rows",
        ),
        4 => (
            4,
            "four texels a joint (its loads read index + 0 to + 3): its matrix's columns",
        ),
        _ => (
            4,
            "four texels a joint (its matrix's columns), a guess: `texels: 3` for an affine's rows",
        ),
    };
    let (width, laid) = match (loads.one_row, loads.width, loads.run) {
        (true, _, _) if loads.count == 0 => (
            "row".to_string(),
            "in one row (every sample reads one constant row; a shader given the width in a uniform, not by `textureDimensions`, needs that member named `texture_width` in `bindings`)",
        ),
        (true, _, _) => ("row".to_string(), "in one row (every load reads row 0)"),
        (false, None, run @ 3..=4) if loads.own_rows => (
            run.to_string(),
            "a joint a row (its loads read columns 0 to the last of the joint's row)",
        ),
        (false, Some(n), _) => (n.to_string(), "rows as wide as the shader divides by"),
        // A joint's texels read from its first one's place lie in one row, as one row holds
        // them: a shader that reads its texture's width wraps whole joints, and one row is that.
        (false, None, 2..) => (
            "row".to_string(),
            "in one row (its loads step from a joint's first texel, so no joint may cross a row; the shader reads the width)",
        ),
        (false, None, _) => (
            "square".to_string(),
            "in a power-of-two square; `width: row` or a number as the shader lays it out",
        ),
    };
    w.line(format!(
        "# `{}` is {why}: a bone texture, {what}, {laid}",
        t.name
    ));
    // A joint index multiplied by twice its matrix's texels: its normal matrix's after them; or
    // by 2 where the reader multiplies its index by the texels (Qt Quick 3D's
    // `qt_getTexMatrix(j * 2)`, `(j * 2 + 1)`, reading `index * 4` on).
    let strides = texels::joint_strides(module);
    let run = texels as i64;
    let normal = if strides.contains(&(2 * run)) || (strides.contains(&2) && strides.contains(&run))
    {
        w.line(format!(
            "# joint indices are multiplied by {}: each joint's normal matrix in the {texels} texels after its matrix's",
            2 * texels
        ));
        format!(", normal_texels: {texels}")
    } else {
        String::new()
    };
    // The sampler it is sampled through (three.js reads its bone texture with `texture2D`).
    let sampler = (t.variable(module))
        .and_then(|h| texels::sampler_of(module, h, only))
        .and_then(|s| globals.iter().find(|g| g.variable(module) == Some(s)));
    let through = match sampler {
        Some(s) => {
            w.line(format!(
                "# `{}` samples it: the palette's sampler (nearest, clamped, so a texel's centre reads that texel)",
                s.name
            ));
            format!(
                ", sampler: {{ group: {}, binding: {} }}",
                s.group, s.binding
            )
        }
        None => String::new(),
    };
    w.line(format!(
        "palette: {{ group: {}, binding: {}, form: texture, texels: {texels}{normal}, width: {width}{through} }}",
        t.group, t.binding
    ));
    Some((t, sampler))
}

/// The integer members of a filled binding's struct (scalars or vectors: their lanes) named as
/// flags, modes or switches (Renderide's `flags`, whose bit turns tangent skinning on; ssbh's
/// `enable_skinning: vec4<u32>`): zeros turn what they gate off.
fn switch_members(module: &Module, g: &Global) -> Vec<(String, u8)> {
    let TypeInner::Struct { members, .. } = g.ty else {
        return Vec::new();
    };
    let integer = |s: naga::Scalar| matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint);
    (members.iter())
        .filter_map(|m| {
            let lanes = match module.types[m.ty].inner {
                TypeInner::Scalar(s) if integer(s) => 1,
                TypeInner::Vector { size, scalar } if integer(scalar) => size as u8,
                _ => return None,
            };
            Some((m.name.clone()?, lanes))
        })
        .filter(|(n, _)| {
            named(
                n,
                &["flag", "mode", "enable", "option", "setting", "toggle"],
            )
        })
        .collect()
}

/// The palette's global, and its member where the palette is one of its struct's.
type Target = Option<(naga::Handle<naga::GlobalVariable>, Option<u32>)>;

/// The palette's global `g` and its member, as a trace follows them.
fn palette_target(module: &Module, g: &Global) -> Target {
    let var = g.variable(module)?;
    let member = match matrices(module, g) {
        Some((Matrices::Member(m, ..), _)) => struct_of(module, g)
            .and_then(|ms| {
                ms.iter()
                    .position(|x| x.name.as_deref() == Some(m.as_str()))
            })
            .map(|k| k as u32),
        _ => None,
    };
    Some((var, member))
}

/// The switches of the skinning (see [`gates`]) where `g` is the palette, and the basis vectors
/// directions are rebuilt from ([`gates::basis`]).
fn palette_switches(module: &Module, g: &Global) -> Vec<gates::Switch> {
    let mut out =
        palette_target(module, g).map_or_else(Vec::new, |(v, m)| gates::switches(module, v, m));
    out.extend(gates::basis(module));
    out
}

/// Why the draft gives switches and basis vectors their values, for its comment.
fn switch_comment(switches: &[&gates::Switch]) -> String {
    let tests = |basis: bool| -> Vec<String> {
        (switches.iter())
            .filter(|s| s.basis == basis)
            .map(|s| format!("`{}`", s.test))
            .collect()
    };
    let mut parts = Vec::new();
    let gates = tests(false);
    if !gates.is_empty() {
        parts.push(format!(
            "the shader skins only where {} holds: {} set so, the path under test",
            gates.join(" and "),
            if gates.len() == 1 {
                "its member"
            } else {
                "their members"
            }
        ));
    }
    let basis = tests(true);
    if !basis.is_empty() {
        parts.push(format!(
            "a direction or a matrix is rebuilt from {} (each member a basis vector): the identity's, where zeros would collapse it",
            basis.join(", ")
        ));
    }
    parts.join("; ")
}

/// Names in backticks, joined by commas.
fn quoted<'a>(names: impl Iterator<Item = &'a String>) -> String {
    names
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The f32 members of a filled binding's struct (or of its array's element 0) named as a factor,
/// a scale, a visibility or an opacity (Babylon's `yFactor_`, which flips clip y; a mesh's
/// `visibility`): filled with 1, as zeros would collapse what they multiply.
fn unit_members(module: &Module, g: &Global) -> Vec<String> {
    let ty = match g.ty {
        TypeInner::Array { base, .. } => &module.types[*base].inner,
        t => t,
    };
    let TypeInner::Struct { members, .. } = ty else {
        return Vec::new();
    };
    (members.iter())
        .filter(
            |m| matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if s == naga::Scalar::F32),
        )
        .filter_map(|m| m.name.clone())
        .filter(|n| named(n, &["factor", "scale", "visib", "opacity"]))
        .collect()
}

/// Whether every array of matrices in `g`'s type (through structs and the elements of arrays of
/// structs) is a fixed array of one: a draw's transform kept as an array of the draws (Magnum's
/// `transformationMatrices[DRAW_COUNT]`, one draw), seldom a skeleton's palette.
fn one_matrix(module: &Module, g: &Global) -> bool {
    let mut arrays = Vec::new();
    let mut todo = vec![g.handle];
    while let Some(ty) = todo.pop() {
        match module.types[ty].inner {
            TypeInner::Array { base, size, .. } => match module.types[base].inner {
                TypeInner::Matrix { .. } => arrays.push(size),
                _ => todo.push(base),
            },
            TypeInner::Struct { ref members, .. } => todo.extend(members.iter().map(|m| m.ty)),
            _ => {}
        }
    }
    let one = naga::ArraySize::Constant(std::num::NonZeroU32::MIN);
    !arrays.is_empty() && arrays.iter().all(|&size| size == one)
}

/// The palette's binding, form and member, written; the global it is, if one was found.
fn palette<'a>(
    module: &Module,
    globals: &'a [Global],
    stage: Option<(&naga::valid::ModuleInfo, usize)>,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> (Option<&'a Global<'a>>, Vec<gates::Switch>) {
    let candidates: Vec<(&Global, (Matrices, bool))> = (globals.iter())
        .filter(|g| g.space != AddressSpace::Handle)
        .filter_map(|g| matrices(module, g).map(|m| (g, m)))
        .collect();
    // A global named as joints beats one named as matrices alone, which beats one not named so;
    // then one with more than a fixed array of one matrix (Magnum's `transformationMatrices` of
    // its one draw, beside `jointMatrices`); inverse binds are the palette's companion.
    let inverse = |g: &Global| named(&g.name, &["inverse", "invbind", "bindpose"]);
    // Ties go to the first binding (max_by_key keeps the last of equals).
    let chosen = candidates
        .iter()
        .filter(|(g, _)| !inverse(g))
        .max_by_key(|(g, _)| {
            (
                read::palette_score(&g.name),
                !one_matrix(module, g),
                std::cmp::Reverse((g.group, g.binding)),
            )
        });
    let Some((g, (form_kind, rows))) = chosen else {
        if let Some((t, sampler)) = palette_texture(module, globals, w) {
            taken.push((t.group, t.binding));
            taken.extend(sampler.map(|s| (s.group, s.binding)));
            return (Some(t), palette_switches(module, t));
        }
        w.todo("no binding holds mat4x4<f32> joint matrices the harness could find: give the palette's group and binding (and `form`)");
        w.line("palette: { group: 0, binding: 0 }");
        return (None, Vec::new());
    };
    taken.push((g.group, g.binding));
    let switches = palette_switches(module, g);
    let form = match g.space {
        AddressSpace::Uniform => "uniform",
        _ => "storage",
    };
    let mut fields = format!("group: {}, binding: {}, form: {form}", g.group, g.binding);
    // Three slots a joint whose w the stage gathers into a translation: its columns.
    // Bare vec4 slots: the array itself, or the member the palette is.
    let slots = read::slot_place(module, g).filter(|p| match (form_kind, p.member) {
        (Matrices::Array, None) => true,
        (Matrices::Member(m, ..), Some(k)) => {
            let member = struct_of(module, g).and_then(|ms| ms.get(k as usize));
            member.and_then(|x| x.name.as_deref()) == Some(m.as_str())
        }
        _ => false,
    });
    let columns_translation = *rows
        && slots.is_some_and(|v| {
            crate::slots::per_joint(module, v) == Some(3)
                && crate::slots::columns_translation(module, v)
        });
    let why = match form_kind {
        Matrices::Array if read::holds_vec4(module, g) => {
            let slots = (g.variable(module))
                .and_then(|v| crate::slots::per_joint(module, v))
                .unwrap_or(4);
            format!(
                "`{}` is an array of vec4<f32> read at a joint's index times {slots}: each joint's {}",
                g.name,
                match (*rows, slots) {
                    _ if columns_translation => "columns' xyz, each with a translation component in w (the stage gathers the translation from their w: `vec4(v1.w, v2.w, v3.w, 1)`)",
                    (true, 3) => "affine rows",
                    (true, _) => "rows",
                    _ => "columns",
                }
            )
        }
        Matrices::Array => format!("`{}` is an array of joint matrices", g.name),
        Matrices::Member(m, normal, element) => {
            let _ = write!(fields, ", member: {m}");
            if let Some(e) = &element {
                let _ = write!(fields, ", element_member: {e}");
            }
            // The joint count beside the joints, written for each case (which takes a branch on
            // it, so no value of its own).
            let count = joint_count_member(module, g);
            if let Some(n) = &count {
                let _ = write!(fields, ", joint_count: {n}");
            }
            let others = struct_of(module, g).is_some_and(|ms| {
                (ms.iter()).any(|x| matches!(module.types[x.ty].inner, TypeInner::Matrix { .. }))
            });
            if others {
                fields.push_str(", fill: identity");
            }
            let var = g.variable(module);
            // Not the palette itself (a joint's slots, read as a matrix's columns).
            let gated: Vec<&gates::Switch> = (switches.iter())
                .filter(|s| Some(s.global) == var && Some(&s.path) != count.as_ref())
                .filter(|s| s.path != *m)
                .collect();
            if let Some(n) = &count {
                let gates = (switches.iter()).any(|s| Some(s.global) == var && &s.path == n);
                w.line(joint_count_comment(&g.name, n, None, gates));
            }
            if !gated.is_empty() {
                w.line(format!("# `{}`: {}", g.name, switch_comment(&gated)));
                let values: Vec<String> = (gated.iter())
                    .map(|s| format!("{}: {}", s.path, s.yaml_value()))
                    .collect();
                let _ = write!(fields, ", members: {{ {} }}", values.join(", "));
            }
            let held = match slots.and_then(|v| crate::slots::per_joint(module, v)) {
                Some(k) => format!(
                    "its joints in member `{m}`, vec4<f32> slots read at a joint's index times {k} (each joint's {})",
                    if *rows { "rows" } else { "columns" }
                ),
                None => format!("its joint matrices in member `{m}`"),
            };
            format!(
                "`{}` holds {held}{}{}",
                g.name,
                if others {
                    ", beside other matrices (a model, a view, a post transform), which become identities"
                } else {
                    ""
                },
                normal_beside(&mut fields, normal.as_deref(), "array member")
            )
        }
        Matrices::Element(m, normal) => {
            let _ = write!(fields, ", element_member: {m}");
            format!(
                "`{}` is an array of structs, each joint's matrix in `{m}`{}",
                g.name,
                normal_beside(&mut fields, normal.as_deref(), "member")
            )
        }
    };
    if columns_translation {
        fields.push_str(", matrix: columns_translation");
    } else if *rows {
        fields.push_str(", matrix: rows");
    }
    // A mat4x4 the stage applies transposed (row vectors, `p * m`): stored by rows.
    let mat4 = slots.is_none();
    let transposed = stage
        .zip(palette_target(module, g))
        .is_some_and(|((info, i), target)| {
            orient::transposed(module, info, i, target) == Some(true)
        });
    if !*rows && mat4 && transposed {
        w.line("# The stage applies each joint's matrix transposed (`p * m`, row vectors, or `transpose(m) * p`):");
        w.line("# its mat4x4s hold the matrices' rows");
        fields.push_str(", matrix: rows");
    }
    if let Some((inv, _)) = candidates.iter().find(|(g, _)| inverse(g)) {
        taken.push((inv.group, inv.binding));
        let _ = write!(
            fields,
            ", inverse_binds: {{ group: {}, binding: {} }}",
            inv.group, inv.binding
        );
        w.line(format!(
            "# `{}` is named as inverse binds: a split palette, the shader multiplying each global by its inverse bind",
            inv.name
        ));
    }
    w.line(format!("# {why}: the palette"));
    w.line(format!("palette: {{ {fields} }}"));
    (Some(g), switches)
}

/// `normal_member` in the palette's fields where a `kind` beside the joints' matrices is named as
/// their normal matrices, and why, for the palette's comment.
fn normal_beside(fields: &mut String, normal: Option<&str>, kind: &str) -> String {
    let Some(n) = normal else {
        return String::new();
    };
    let _ = write!(fields, ", normal_member: {n}");
    format!(", and each joint's normal matrix in the {kind} `{n}`, named so (the normals' reference: `per_joint`)")
}

/// The pipeline-overridable constants without a default, each given a placeholder to replace:
/// the pipeline must set them.
fn constants(module: &Module, w: &mut Writer) {
    let open: Vec<String> = (module.overrides.iter())
        .filter(|(_, o)| o.init.is_none())
        .map(|(_, o)| {
            let key = match (o.id, &o.name) {
                (Some(id), _) => id.to_string(),
                (None, Some(name)) => name.clone(),
                (None, None) => "0".into(),
            };
            // A workgroup size of 0 would fail the pipeline before the guess could be checked.
            let size = o
                .name
                .as_deref()
                .is_some_and(|n| named(n, &["workgroup", "wgsize"]));
            // A switch named after the skinning (`SECOND_SET`, `USE_SKINNING`): on, the path
            // under test; another off.
            let skinning = o.name.as_deref().is_some_and(|n| {
                named(n, &["skin", "set", "influence", "joint", "bone", "weight"])
            });
            let value = match module.types[o.ty].inner {
                TypeInner::Scalar(naga::Scalar {
                    kind: ScalarKind::Bool,
                    ..
                }) if skinning => "true",
                TypeInner::Scalar(naga::Scalar {
                    kind: ScalarKind::Bool,
                    ..
                }) => "false",
                _ if size => "64",
                _ => "0",
            };
            let name = o.name.clone().unwrap_or_default();
            format!("  {key}: {value}   # `{name}`")
        })
        .collect();
    if open.is_empty() {
        return;
    }
    w.todo("each override below has no default: give the value the engine's pipeline sets (these are placeholders)");
    w.line("constants:");
    for line in open {
        w.line(line);
    }
}

/// The other buffers the stages read, each a filled binding (identities where its type holds
/// matrices); textures and samplers the harness cannot fill are named.
fn bindings(
    module: &Module,
    globals: &[Global],
    taken: &[(u32, u32)],
    extras: &[Extra],
    palette_array: bool,
    switches: &[gates::Switch],
    w: &mut Writer,
) {
    let rest: Vec<&Global> = (globals.iter())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let (buffers, handles): (Vec<&Global>, Vec<&Global>) = rest
        .into_iter()
        .partition(|g| g.space != AddressSpace::Handle);
    // One binding at most says where joint 0 lies, and only beside a palette that is an array.
    let mut offset_free =
        palette_array && !extras.iter().any(|(_, e)| e.contains("palette_offset"));
    // One binding at most holds the palette texture's width, and only beside a palette texture.
    let mut width_free =
        (w.out.lines()).any(|l| l.starts_with("palette:") && l.contains("form: texture"));
    let (bound, unbound): (Vec<_>, Vec<_>) = (handles.into_iter())
        .map(|g| (g, crate::resource::Resource::of(&module.types, g.handle)))
        .partition(|(_, r)| r.is_ok());
    if !buffers.is_empty() {
        w.line("# Other buffers the stages read, filled by the harness: zeros, identities in their matrices");
    }
    if !bound.is_empty() {
        w.line("# Textures and samplers the stages read, bound by the harness as the shader declares them: a texture of one texel a layer, zeros (`floats` give the texel), a clamped sampler");
    }
    if !buffers.is_empty() || !bound.is_empty() {
        w.line("bindings:");
    }
    for g in buffers {
        let holds_matrix = has_matrix(module, g.handle);
        let table = read::index_table(module, g);
        let fill = match (table, holds_matrix) {
            (true, _) => ", fill: sequence",
            (_, true) => ", fill: identity",
            _ => "",
        };
        if table {
            w.line(format!(
                    "  # `{}` is an array of indices named so: each element its own index (`sequence`), an index table the shader reads through, which zeros would send every read to element 0",
                    g.name
                ));
        }
        let mut extra = (extras.iter())
            .find(|(at, _)| *at == (g.group, g.binding))
            .map_or(String::new(), |(_, e)| e.clone());
        let mut values: Vec<String> = Vec::new();
        let units = unit_members(module, g);
        if !units.is_empty() {
            w.line(format!(
                    "  # `{}`'s {} named as a factor, scale or visibility: 1, where 0 would scale what it multiplies to nothing",
                    g.name,
                    quoted(units.iter())
                ));
            values.extend(units.iter().map(|m| format!("{m}: 1")));
        }
        let var = g.variable(module);
        // A branch on the joint count (`jointCount > 0u`) is taken by the count the harness
        // writes there, which a value of its own would contradict.
        let (count, read_as) = match joint_count_member(module, g) {
            Some(m) => (Some(m), None),
            None => joint_count_switch(module, g, switches)
                .map_or((None, None), |(m, n)| (Some(m), Some(n))),
        };
        let is_count = |s: &gates::Switch| {
            count
                .as_ref()
                .is_some_and(|c| *c == s.path || *c == s.read_path())
        };
        let count_gates = (switches.iter()).any(|s| Some(s.global) == var && is_count(s));
        let gated: Vec<&gates::Switch> = (switches.iter())
            .filter(|s| Some(s.global) == var && !is_count(s))
            .collect();
        if !gated.is_empty() {
            w.line(format!("  # `{}`: {}", g.name, switch_comment(&gated)));
            values.extend(
                gated
                    .iter()
                    .map(|s| format!("{}: {}", s.path, s.yaml_value())),
            );
        }
        // Named as enabling skinning (ssbh's `enable_skinning`), not a mode whose values only
        // the shader knows (the WebGPU samples' `skin_mode`, 0 for skinned).
        let (on, switches): (Vec<_>, Vec<_>) = (switch_members(module, g).into_iter())
            .filter(|(n, _)| !gated.iter().any(|s| &s.path == n))
            .partition(|(n, _)| named(n, &["skin"]) && named(n, &["enable", "use", "active"]));
        if !on.is_empty() {
            w.line(format!(
                    "  # `{}`'s {} named as turning skinning on: on (every lane 1), the path under test",
                    g.name,
                    quoted(on.iter().map(|(n, _)| n))
                ));
            values.extend(on.iter().map(|(n, lanes)| match lanes {
                1 => format!("{n}: 1"),
                k => format!("{n}: [{}]", vec!["1"; *k as usize].join(", ")),
            }));
        }
        if !switches.is_empty() {
            w.line(format!(
                    "  # `{}`'s {} may switch paths of the shader on or off: filled with 0 here; give the values your engine sets (`members`)",
                    g.name,
                    quoted(switches.iter().map(|(n, _)| n))
                ));
        }
        if !values.is_empty() && !extra.contains("members") {
            let _ = write!(extra, ", members: {{ {} }}", values.join(", "));
        }
        if let Some(m) = count {
            w.line(format!(
                "  {}",
                joint_count_comment(&g.name, &m, read_as.as_deref(), count_gates)
            ));
            let _ = write!(extra, ", joint_count: {m}");
        }
        // The palette texture's width, where the shader is given it beside the texture rather
        // than asking the texture (Babylon.js's `boneTextureWidth`).
        if let Some(m) = width_free
            .then(|| texture_width_member(module, g))
            .flatten()
        {
            width_free = false;
            w.line(format!(
                "  # `{}`'s member `{m}` is named as the bone texture's width: the harness writes each case's there",
                g.name
            ));
            let _ = write!(extra, ", texture_width: {m}");
        }
        let offset = offset_free
            .then(|| offset_member(module, g, globals))
            .flatten();
        if let Some(m) = &offset {
            offset_free = false;
            w.line(format!(
                    "  # `{}`'s integer member `{m}` is named as where the mesh's joint 0 lies in the palette: the harness puts other matrices first and writes their count there",
                    g.name
                ));
            let _ = write!(extra, ", palette_offset: {m}");
        }
        w.line(format!(
            "  - {{ group: {}, binding: {}{fill}{extra} }}   # `{}`",
            g.group, g.binding, g.name
        ));
    }
    for (g, r) in bound {
        let what = r.map_or(String::new(), |r| r.wgsl());
        w.line(format!(
            "  - {{ group: {}, binding: {} }}   # `{}`, a {what}",
            g.group, g.binding, g.name
        ));
    }
    for (g, why) in unbound {
        w.todo(format!(
            "`{}` (@group({}) @binding({})) is {}, which the stages read: where only the fragment stage does, leave `vertex.fragment` out; otherwise the stage cannot run as it is declared",
            g.name,
            g.group,
            g.binding,
            why.err().unwrap_or_default()
        ));
    }
}
