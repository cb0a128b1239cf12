//! The mutant kinds: one function per kind, registered in [`KINDS`] with its name; a new kind is one function and one line there.

use super::site::{float_literal, for_each_statement, int_literal, perturb};
use super::site::{Func, Sites};
use super::*;
use crate::contract::Role;

/// What a kind changes: the skinning math itself (weights, joints, palette, the homogeneous 1),
/// or the glue around it (stage inputs and outputs, the view, the count guard, uniform fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Skinning,
    Glue,
}

/// Where a kind of mutant applies in a shader: its mutants, possibly none.
pub(super) type Mutator = fn(&Sites) -> Vec<Candidate>;

/// Every kind, with its name, the part of the shader it changes and its mutator, in the order
/// mutants are generated and listed.
pub(super) const KINDS: [(Kind, &str, Part, Mutator); 17] = [
    (Kind::WeightSwap, "weight_swap", Part::Skinning, weight_swap),
    (
        Kind::HomogeneousDropped,
        "homogeneous_dropped",
        Part::Skinning,
        homogeneous_dropped,
    ),
    (
        Kind::PaletteTransposed,
        "palette_transposed",
        Part::Skinning,
        palette_transposed,
    ),
    (
        Kind::InfluenceDropped,
        "influence_dropped",
        Part::Skinning,
        influence_dropped,
    ),
    (
        Kind::JointIndexSwapped,
        "joint_index_swapped",
        Part::Skinning,
        joint_index_swapped,
    ),
    (
        Kind::ConstantPerturbed,
        "constant_perturbed",
        Part::Skinning,
        constant_perturbed,
    ),
    (
        Kind::SkinningSkipped,
        "skinning_skipped",
        Part::Glue,
        skinning_skipped,
    ),
    (
        Kind::ViewTransform,
        "view_transform",
        Part::Glue,
        view_transform,
    ),
    (Kind::CountGuard, "count_guard", Part::Glue, count_guard),
    (Kind::OutputW, "output_w", Part::Glue, output_w),
    (
        Kind::UniformField,
        "uniform_field",
        Part::Glue,
        uniform_field,
    ),
    (
        Kind::InfluenceSetDropped,
        "influence_set_dropped",
        Part::Skinning,
        influence_set_dropped,
    ),
    (Kind::ByteOffset, "byte_offset", Part::Glue, byte_offset),
    (
        Kind::NormalPlainMatrix,
        "normal_plain_matrix",
        Part::Skinning,
        super::frames::normal_plain_matrix,
    ),
    (
        Kind::RenormalisationDropped,
        "renormalisation_dropped",
        Part::Skinning,
        super::frames::renormalisation_dropped,
    ),
    (
        Kind::TangentWLost,
        "tangent_w_lost",
        Part::Skinning,
        super::frames::tangent_w_lost,
    ),
    (
        Kind::RegionSwapped,
        "region_swapped",
        Part::Glue,
        region_swapped,
    ),
];

pub(super) fn candidate(description: impl Into<String>, hint: &str, edits: Vec<Edit>) -> Candidate {
    Candidate {
        description: description.into(),
        hint: hint.into(),
        edits,
    }
}

/// A swizzle of the `lanes` components a shader reads, `order` giving each one's source
/// (`[1, 0, 2, 3]` of 3: `yxz`).
fn swizzle(order: [usize; 4], lanes: usize) -> String {
    order[..lanes]
        .iter()
        .map(|&i| ['x', 'y', 'z', 'w'][i])
        .collect()
}

/// `1st`, `2nd`, `3rd`, `4th`.
fn ordinal(n: usize) -> String {
    let suffix = match n {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The hint for a mutant of the last influences a shader reads: a case with that many (`of`:
/// what else their weights must be), whose last two joints move differently.
fn last_hint(lanes: usize, of: &str) -> String {
    format!(
        "a case with {lanes} nonzero influences{of} (mesh.influences: {lanes}) whose {} and {} joints move differently",
        ordinal(lanes - 1),
        ordinal(lanes)
    )
}

/// Mutants that read `role`'s vector through a swizzle of the `lanes` the shader reads, where it
/// enters each skinning site: `first` (its order and what it does, its hint), then, where more
/// than 2 are read, the last two's (`last` of the lane count: the order and what it does; its
/// hint asks for weights `of` what), each described with its swizzle of `letter`.
fn swizzled(
    s: &Sites,
    (role, letter, of): (Role, char, &str),
    first: ([usize; 4], &str, &str),
    last: fn(usize) -> ([usize; 4], String),
) -> Vec<Candidate> {
    let sources = s.sources(role);
    // A pair's lanes are one influence's joint and weight, not the set's joints: a swizzle of
    // them would not type (`joint_index_swapped` reads each pair the other way round instead).
    if sources.is_empty() || s.contract.paired() {
        return Vec::new();
    }
    let n = match role {
        Role::Weights => s.contract.weight_lanes(),
        _ => s.contract.lanes,
    };
    // Each value swizzled whole: a vec4 in storage keeps its 4th lane where the shader reads 3.
    let one = |order: [usize; 4], what: &str, hint: &str| {
        candidate(
            format!("{what} ({letter}.{})", swizzle(order, n)),
            hint,
            s.rebind_sized(&sources, |v, width| {
                format!("{v}.{}", swizzle(order, width.clamp(n, 4)))
            }),
        )
    };
    let mut out = vec![one(first.0, first.1, first.2)];
    if n > 2 {
        let (order, what) = last(n);
        out.push(one(order, &what, &last_hint(n, of)));
    }
    out
}

/// Two weight components swapped, where the weights enter each skinning site: the first two, and
/// the last two the shader reads (4, or its `max_influences`).
fn weight_swap(s: &Sites) -> Vec<Candidate> {
    swizzled(
        s,
        (Role::Weights, 'w', " of unequal weights"),
        (
            [1, 0, 2, 3],
            "the weights of influences 1 and 2 swapped",
            "a posed case whose vertices blend two joints that move differently, with unequal weights",
        ),
        |n| {
            let mut order = [0, 1, 2, 3];
            order.swap(n - 2, n - 1);
            (order, format!("the weights of influences {} and {n} swapped", n - 1))
        },
    )
}

fn homogeneous_dropped(s: &Sites) -> Vec<Candidate> {
    let ones = s.homogeneous_ones();
    if ones.is_empty() {
        return Vec::new();
    }
    let edits = ones
        .into_iter()
        .map(|range| Edit {
            range,
            text: "0.0".into(),
        })
        .collect();
    vec![candidate(
        "the position's homogeneous 1 dropped: (p, 0) instead of (p, 1)",
        "a posed case whose palette carries a translation (bend a joint away from the origin, or translate one)",
        edits,
    )]
}

/// Every access into the palette wrapped in `transpose`.
fn palette_transposed(s: &Sites) -> Vec<Candidate> {
    // A mat3x4 of rows transposed is a mat4x3: another type, not a wrong value (a mat4x4 of
    // rows transposed is one).
    let e = &s.contract.palette_element;
    if e.rows && !e.four_rows {
        return Vec::new();
    }
    let mut accesses = Vec::new();
    for f in s.funcs() {
        accesses.extend(s.palette_reads(f).into_iter().filter_map(|e| s.span(f, e)));
    }
    if accesses.is_empty() {
        return Vec::new();
    }
    let edits = accesses
        .iter()
        .map(|r| Edit {
            range: r.clone(),
            text: format!("transpose({})", s.text(r)),
        })
        .collect();
    vec![candidate(
        "the palette matrix transposed (row-major read of column-major data)",
        "a posed case with a rotation and a translation in the palette",
        edits,
    )]
}

/// The integer a loop bound `e` of `exprs` is, and whether it is a literal: a literal, a named
/// constant (`MAX_WEIGHTS`), or an override (the profile's value where it gives one, by `@id`
/// else by name, else its default).
fn bound(
    s: &Sites,
    exprs: &naga::Arena<Expression>,
    e: naga::Handle<Expression>,
) -> Option<(i64, bool)> {
    let global = |init| int_literal(&s.module.global_expressions[init]);
    let named = match exprs[e] {
        Expression::Constant(c) => global(s.module.constants[c].init),
        Expression::Override(o) => {
            let o = &s.module.overrides[o];
            let key = o.id.map(|i| i.to_string()).or_else(|| o.name.clone());
            (s.contract.constants.iter())
                .find(|(k, _)| Some(k) == key.as_ref())
                .map(|&(_, v)| v as i64)
                .or_else(|| o.init.and_then(global))
        }
        _ => None,
    };
    match int_literal(&exprs[e]) {
        Some(v) => Some((v, true)),
        None => named.map(|v| (v, false)),
    }
}

/// One influence dropped, the last the shader reads (the 4th, or its `max_influences`'): a loop
/// bound `< n` becomes `< n - 1` (a literal, a named constant or an override), or else that
/// weight is zeroed.
fn influence_dropped(s: &Sites) -> Vec<Candidate> {
    let n = s.contract.lanes;
    let mut bounds = Vec::new();
    for f in s.blend_sites() {
        let exprs = &s.func(f).expressions;
        for (_, e) in exprs.iter() {
            if let Expression::Binary {
                op: op @ (BinaryOperator::Less | BinaryOperator::LessEqual),
                right,
                ..
            } = *e
            {
                let want = if op == BinaryOperator::Less { n } else { n - 1 } as i64;
                if let Some((_, literal)) = bound(s, exprs, right).filter(|b| b.0 == want) {
                    if let Some(r) = s.span(f, right) {
                        // A literal keeps its suffix; a named bound becomes an abstract
                        // integer, which either signedness takes.
                        let text = s.text(&r);
                        let suffix = match literal {
                            true => {
                                let digits =
                                    text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                                &text[digits.len()..]
                            }
                            false => "",
                        };
                        bounds.push(Edit {
                            range: r,
                            text: format!("{}{suffix}", want - 1),
                        });
                    }
                }
            }
        }
    }
    let last = ordinal(n);
    let hint = format!(
        "a case with {n} nonzero influences (mesh.influences: {n}) posed so the {last} joint moves"
    );
    if !bounds.is_empty() {
        return vec![candidate(
            format!(
                "the {last} influence dropped: the influence loop runs to {}",
                n - 1
            ),
            &hint,
            bounds,
        )];
    }
    let weights = s.sources(Role::Weights);
    // An implied last weight is not read, so cannot be read as 0.
    if weights.is_empty() || s.contract.weight_lanes() < n {
        return Vec::new();
    }
    // The value as wide as it is (a vec4 in storage where the shader reads 3), that lane 0.
    let zeroed = |v: &str, width: usize| {
        if width <= n {
            return format!("vec{n}<f32>({v}.{}, 0.0)", swizzle([0, 1, 2, 3], n - 1));
        }
        let lanes: Vec<String> = (0..width.min(4))
            .map(|i| match i == n - 1 {
                true => "0.0".to_string(),
                false => format!("{v}.{}", ['x', 'y', 'z', 'w'][i]),
            })
            .collect();
        format!("vec{}<f32>({})", lanes.len(), lanes.join(", "))
    };
    vec![candidate(
        format!("the {last} influence dropped: its weight read as 0"),
        &hint,
        s.rebind_sized(&weights, zeroed),
    )]
}

/// One joint index used for another, where the joints enter each skinning site: the 2nd the
/// 1st's, and the last the shader reads its neighbour's. Where each influence is a (joint,
/// weight) pair (`vertex.pairs`), each pair read the other way round instead: its weight taken
/// as the joint index (a pair enters through a helper's one parameter as often as not, so one
/// influence cannot be told from another).
fn joint_index_swapped(s: &Sites) -> Vec<Candidate> {
    if s.contract.paired() {
        let sources = s.sources(Role::Joints);
        if sources.is_empty() {
            return Vec::new();
        }
        // Two pairs where a vec4 enters whole (`format: vec4`) are each read the other way
        // round; a vec4 split into its pairs before a helper takes them enters as vec2s.
        let swizzle = |width: usize| if width == 4 { "yxwz" } else { "yx" };
        let wide = (sources.iter()).filter(|s| s.width() == 4).count();
        let what = match wide {
            0 => "each (joint, weight) pair read as (weight, joint) (p.yx)",
            n if n == sources.len() => "each (joint, weight) pair read as (weight, joint) (p.yxwz)",
            _ => "each (joint, weight) pair read as (weight, joint) (p.yx, or p.yxwz for two in a vec4)",
        };
        return vec![candidate(
            what,
            "a posed case whose vertices blend joints other than joint 0",
            s.rebind_sized(&sources, |v, width| format!("{v}.{}", swizzle(width))),
        )];
    }
    swizzled(
        s,
        (Role::Joints, 'j', ""),
        (
            [0, 0, 2, 3],
            "influence 2 uses the joint index of influence 1",
            "a posed case whose vertices blend two joints that move differently",
        ),
        |n| {
            let mut order = [0, 1, 2, 3];
            order[n - 1] = n - 2;
            let what = format!("influence {n} uses the joint index of influence {}", n - 1);
            (order, what)
        },
    )
}

/// Constants perturbed by 1.25e-4 relative: the homogeneous 1, arithmetic constants in the
/// skinning sites, and arithmetic constants of the vertex stage (the tint's divisor).
fn constant_perturbed(s: &Sites) -> Vec<Candidate> {
    let sites = s.skin_sites();
    let mut constants: Vec<(Range<usize>, f64, &str, bool)> = s
        .homogeneous_ones()
        .into_iter()
        .map(|r| (r, 1.0, "the homogeneous 1", false))
        .collect();
    for &f in &sites {
        for (r, v) in s.operand_literals(f) {
            constants.push((r, v, "a skinning constant", false));
        }
    }
    if let Some(f) = s.vertex().filter(|f| !sites.contains(f)) {
        for (r, v) in s.operand_literals(f) {
            constants.push((r, v, "a vertex-stage constant", true));
        }
    }
    constants
        .into_iter()
        .map(|(r, v, what, in_vertex)| {
            let text = s.text(&r);
            let suffix = if text.ends_with('f') { "f" } else { "" };
            let new = perturb(v);
            candidate(
                format!("{what} perturbed: {text} -> {new}{suffix}"),
                if in_vertex {
                    "a golden compared with channel_tolerance: 0 and subpixel: false over a long tint gradient (e.g. a chain of 8 joints, 256 vertices, a bend at joint 3, 128x128): a perturbation below one 8-bit step only flips the rounding of some pixels where joints.x is 4 or more"
                } else {
                    "a posed case with large translations (long segments or a translated joint) and a tight tolerance (max_abs_error 1e-5 or less)"
                },
                vec![Edit {
                    range: r,
                    text: format!("{new}{suffix}"),
                }],
            )
        })
        .collect()
}

/// Skinning skipped in the vertex stage: the call to the skinning function replaced by its
/// position argument.
fn skinning_skipped(s: &Sites) -> Vec<Candidate> {
    let Some(vs) = s.vertex() else {
        return Vec::new();
    };
    let paths = s.skin_paths();
    let mut edits = Vec::new();
    for_each_statement(&s.func(vs).body, &mut |st| {
        if let Statement::Call {
            function,
            arguments,
            result: Some(result),
        } = st
        {
            if !paths.contains(&Func::Helper(*function)) {
                return;
            }
            let position = arguments
                .iter()
                .position(|&a| s.role(vs, a) == Some(Role::Positions));
            if let (Some(call), Some(arg)) = (
                s.span(vs, *result),
                position.and_then(|i| s.span(vs, arguments[i])),
            ) {
                edits.push(Edit {
                    range: call,
                    text: s.text(&arg).to_string(),
                });
            }
        }
    });
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "the vertex stage draws the unskinned position",
        "a posed case with render checks (render_changes_after_pose, a golden)",
        edits,
    )]
}

/// The view transform: x multiplied by half_width instead of divided; offset_y's sign.
fn view_transform(s: &Sites) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut divides = Vec::new();
    if let Some(half_width) = s.field(Role::View, "half_width") {
        for f in s.funcs() {
            for (e, expr) in s.func(f).expressions.iter() {
                if let Expression::Binary {
                    op: BinaryOperator::Divide,
                    right,
                    ..
                } = *expr
                {
                    if s.reads_member(f, right, Role::View, half_width) {
                        divides.extend(s.operator(f, e, "/"));
                    }
                }
            }
        }
    }
    if !divides.is_empty() {
        let edits = divides
            .into_iter()
            .map(|range| Edit {
                range,
                text: "*".into(),
            })
            .collect();
        out.push(candidate(
            "x multiplied by half_width instead of divided",
            "a golden render whose render.view.half_width is not 1",
            edits,
        ));
    }
    let offsets = s
        .field(Role::View, "offset_y")
        .map_or(Vec::new(), |offset| s.member_reads(Role::View, offset));
    if !offsets.is_empty() {
        let edits = offsets
            .iter()
            .map(|(_, r)| Edit {
                range: r.clone(),
                text: format!("(-{})", s.text(r)),
            })
            .collect();
        out.push(candidate(
            "offset_y applied with the wrong sign",
            "a golden render whose render.view.offset_y is not 0",
            edits,
        ));
    }
    out
}

/// The count guard: `>=` -> `>` (and the like), so one invocation past the count runs. The count
/// is the count uniform's, or where the contract has none, a filled binding's count member (or a
/// range's length from it, `end - start`) or an input's `arrayLength` (or it divided by the words
/// a vertex). Not an output's: the harness then binds the output as exactly
/// the case's vertices, and WebGPU drops the extra invocation's write there, so no case sees it.
fn count_guard(s: &Sites) -> Vec<Candidate> {
    let Some(cs) = s.compute() else {
        return Vec::new();
    };
    let count = s.field(Role::Count, "count");
    let uncounted = s.contract.try_slot(Role::Count).is_none();
    let func = s.func(cs);
    let outputs = [Role::Skinned, Role::SkinnedNormals, Role::SkinnedTangents];
    let outputs: Vec<_> = outputs.iter().filter_map(|r| s.globals.get(r)).collect();
    let of_input = |e: Handle<Expression>| match func.expressions[e] {
        Expression::ArrayLength(p) => {
            super::site::root_global(func, p).is_some_and(|g| !outputs.contains(&&g))
        }
        _ => false,
    };
    // `e`, or its left operand where `e` is `op` of two: a length divided by the words a vertex,
    // a range's end less its start.
    let left_of = |e: Handle<Expression>, op: BinaryOperator| match func.expressions[e] {
        Expression::Binary { op: o, left, .. } if o == op => left,
        _ => e,
    };
    let is_length = |e| of_input(left_of(e, BinaryOperator::Divide));
    // Or a filled uniform's member the profile names as the count.
    let filled = (s.contract.filled.iter())
        .filter_map(|f| Some((f.role, f.count.as_ref()?.offset?)))
        .collect::<Vec<_>>();
    let reads_count = |e: Handle<Expression>| match count {
        Some(count) => s.reads_member(cs, e, Role::Count, count),
        None => {
            filled.iter().any(|&m| s.nested_member(cs, e) == Some(m))
                || (uncounted && filled.is_empty() && is_length(e))
        }
    };
    // The count, or a range's length from its end (`end - start`).
    let is_count = |e| reads_count(left_of(e, BinaryOperator::Subtract));
    let mut edits = Vec::new();
    for (e, expr) in func.expressions.iter() {
        let Expression::Binary { op, left, right } = *expr else {
            continue;
        };
        let on_count = is_count(left) || is_count(right);
        let swap = match op {
            BinaryOperator::GreaterEqual => Some((">=", ">")),
            BinaryOperator::Greater => Some((">", ">=")),
            BinaryOperator::Less => Some(("<", "<=")),
            BinaryOperator::LessEqual => Some(("<=", "<")),
            _ => None,
        };
        if let (true, Some((from, to))) = (on_count, swap) {
            if let Some(r) = s.operator(cs, e, from) {
                edits.push(Edit {
                    range: r,
                    text: to.into(),
                });
            }
        }
    }
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "the count guard lets one invocation past the count through",
        "vertex count not a multiple of 64 with a guard check: the skinned buffer is exactly count long, so bounds checks clamp or drop the extra invocation's write; catching it needs an output buffer longer than the count whose tail must stay untouched",
        edits,
    )]
}

/// The compute output's w: a literal 0 as the last component of a vec4 stored to the output.
fn output_w(s: &Sites) -> Vec<Candidate> {
    let Some(cs) = s.compute() else {
        return Vec::new();
    };
    let func = s.func(cs);
    let edits: Vec<Edit> = s
        .stored_to(cs, Role::Skinned)
        .into_iter()
        .filter_map(|value| match &func.expressions[value] {
            // The w is the last component: `vec4(p, 0.0)` composes a vec3 and a scalar.
            Expression::Compose { components, .. } if !components.is_empty() => {
                let w = *components.last()?;
                (float_literal(&func.expressions[w]) == Some(0.0))
                    .then(|| s.span(cs, w))
                    .flatten()
            }
            _ => None,
        })
        .map(|range| Edit {
            range,
            text: "1.0".into(),
        })
        .collect();
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "the compute output's w written as 1 instead of 0",
        "any case: the compute comparisons hold every output w to 0",
        edits,
    )]
}

/// A uniform field read from the wrong offset: (role, field read, field read instead, hint).
const MISREAD: [(Role, &str, &str, &str); 4] = [
    (
        Role::View,
        "scale",
        "half_width",
        "a view whose scale and half_width differ",
    ),
    (
        Role::View,
        "half_width",
        "scale",
        "a view whose scale and half_width differ",
    ),
    (
        Role::View,
        "offset_y",
        "pad",
        "a golden render whose render.view.offset_y is not 0",
    ),
    (
        Role::Count,
        "count",
        "pad0",
        "any case with vertices (the count read as 0 skips every vertex)",
    ),
];

fn uniform_field(s: &Sites) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (role, field, instead, hint) in MISREAD {
        let (Some(from), Some(to)) = (s.field(role, field), s.field(role, instead)) else {
            continue;
        };
        let (Some(a), Some(b)) = (s.member_name(role, from), s.member_name(role, to)) else {
            continue;
        };
        let edits: Vec<Edit> = s
            .member_reads(role, from)
            .iter()
            .filter_map(|(_, r)| {
                let text = s.text(r);
                let dot = text.rfind('.')?;
                (text[dot + 1..].trim() == a).then(|| Edit {
                    range: r.start + dot + 1..r.end,
                    text: b.clone(),
                })
            })
            .collect();
        if !edits.is_empty() {
            let binding = s.contract.binding(role);
            out.push(candidate(
                format!("binding {binding}: `{a}` (offset {from}) read from `{b}` (offset {to})"),
                hint,
                edits,
            ));
        }
    }
    out
}

/// A vertex pool's start read from the member of the next region in the profile's order (the
/// last's from the first's), one mutant a region: each read of its start, wherever the shader
/// takes it, then lands on another stream. Starts in nested structs are swapped only within one
/// struct, where the member's last name is all that differs.
fn region_swapped(s: &Sites) -> Vec<Candidate> {
    let Some(filled) = s.contract.filled.iter().find(|f| !f.starts.is_empty()) else {
        return Vec::new();
    };
    let starts = &filled.starts;
    let split = |path: &str| -> (String, String) {
        match path.rsplit_once('.') {
            Some((parent, last)) => (parent.to_string(), last.to_string()),
            None => (String::new(), path.to_string()),
        }
    };
    let mut out = Vec::new();
    for (k, (stream, member)) in starts.iter().enumerate() {
        let (other_stream, other) = &starts[(k + 1) % starts.len()];
        let (Some(offset), (parent, last), (other_parent, instead)) =
            (member.offset, split(&member.name), split(&other.name))
        else {
            continue;
        };
        if parent != other_parent {
            continue;
        }
        let mut edits: Vec<Edit> = Vec::new();
        for f in s.funcs() {
            for (e, _) in s.func(f).expressions.iter() {
                if s.nested_member(f, e) != Some((filled.role, offset)) {
                    continue;
                }
                let Some(r) = s.span(f, e) else { continue };
                let text = s.text(&r);
                let Some(dot) = text.rfind('.') else { continue };
                let at = r.start + dot + 1..r.end;
                if text[dot + 1..].trim() == last && !edits.iter().any(|x| x.range == at) {
                    edits.push(Edit {
                        range: at,
                        text: instead.clone(),
                    });
                }
            }
        }
        if !edits.is_empty() {
            out.push(candidate(
                format!(
                    "the vertex pool's `{}` region taken at `{}`'s start (`{last}` read as `{instead}`)",
                    stream.name(),
                    other_stream.name()
                ),
                "any case: the harness places every region apart, so a stream read or written at another's start reads or overwrites the wrong bytes",
                edits,
            ));
        }
    }
    out
}

/// The last influence set dropped: its weights read as 0 where they enter the skinning, so a
/// vertex with more than 4 influences keeps only its first 4.
fn influence_set_dropped(s: &Sites) -> Vec<Candidate> {
    let last = s.contract.influence_sets.saturating_sub(1);
    if last == 0 {
        return Vec::new();
    }
    let weights = s.sources_of_set(Role::Weights, last);
    if weights.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        format!("influence set {} dropped: its weights read as 0", last + 1),
        "a case whose vertices have more than 4 influences, posed so their 5th to 8th joints move (mesh.influences: max)",
        s.rebind(&weights, |_| "vec4<f32>(0.0)".into()),
    )]
}

/// A byte-addressed field read or written one word off: a named integer constant that is one of
/// the profile's byte offsets (or that offset in words) moved by 4 bytes (one word), or else each
/// index into a byte-addressed buffer moved by one word.
fn byte_offset(s: &Sites) -> Vec<Candidate> {
    let c = s.contract;
    let mut offsets: Vec<u32> = Vec::new();
    for (_, p) in c.pulled_all() {
        offsets.extend(p.fields().iter().map(|f| f.1));
    }
    if let Some(p) = &c.packed {
        offsets.extend(p.fields().iter().map(|f| f.1));
    }
    let buffers: Vec<_> = [Role::Positions, Role::Joints, Role::Skinned]
        .into_iter()
        .filter(|&r| {
            c.try_slot(r).is_some_and(|s| {
                matches!(
                    s.ty,
                    crate::contract::Want::Words | crate::contract::Want::OutputWords
                )
            })
        })
        .filter_map(|r| s.globals.get(&r).copied())
        .collect();
    if buffers.is_empty() {
        return Vec::new();
    }
    let hint = "any case: a byte-addressed field read one word off reads another field's bits";
    let mut out = Vec::new();
    for (_, constant) in s.module.constants.iter() {
        let Some(name) = &constant.name else { continue };
        let Some(value) = int_literal(&s.module.global_expressions[constant.init]) else {
            continue;
        };
        let Ok(value) = u32::try_from(value) else {
            continue;
        };
        let step = if value != 0 && offsets.contains(&value) {
            4
        } else if value != 0 && offsets.iter().any(|o| o / 4 == value && o % 4 == 0) {
            1
        } else {
            continue;
        };
        let Some(r) = s
            .module
            .global_expressions
            .get_span(constant.init)
            .to_range()
            .filter(|r| r.start < r.end && r.end <= s.src.len())
        else {
            continue;
        };
        let text = s.text(&r);
        let digits = text.trim_end_matches(|ch: char| ch.is_ascii_alphabetic());
        let suffix = &text[digits.len()..];
        out.push(candidate(
            format!("`{name}` one word off: {text} -> {}{suffix}", value + step),
            hint,
            vec![Edit {
                range: r,
                text: format!("{}{suffix}", value + step),
            }],
        ));
    }
    if !out.is_empty() {
        return out;
    }
    for f in s.funcs() {
        let exprs = &s.func(f).expressions;
        for (_, e) in exprs.iter() {
            let Expression::Access { base, index } = *e else {
                continue;
            };
            if !matches!(exprs[base], Expression::GlobalVariable(g) if buffers.contains(&g)) {
                continue;
            }
            if let Some(r) = s.span(f, index) {
                let text = s.text(&r).to_string();
                out.push(candidate(
                    format!("index `{text}` one word (4 bytes) off"),
                    hint,
                    vec![Edit {
                        range: r,
                        text: format!("({text}) + 1u"),
                    }],
                ));
            }
        }
    }
    out
}
