//! The mutant kinds of normal and tangent skinning: the plain blended matrix for normals, the
//! renormalisation dropped, the tangent's handedness lost. Each applies only where the contract
//! has skinned normal or tangent outputs, which the normal checks read.

use super::kinds::candidate;
use super::site::{for_each_statement, Sites};
use super::*;
use crate::contract::Role;

/// Whether the harness reads back skinned normals or tangents from this shape.
fn has_frames(s: &Sites) -> bool {
    [Role::SkinnedNormals, Role::SkinnedTangents]
        .iter()
        .any(|r| s.contract.writes(*r))
}

/// `(inner)` for the one-argument call `span` if it reads as `name(inner)`. The argument is taken
/// from the text: naga's span of a `var` argument is the variable's declaration.
fn unwrap(s: &Sites, span: Range<usize>, name: &str) -> Option<Edit> {
    let text = s.text(&span);
    let inner = text
        .strip_prefix(name)?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    Some(Edit {
        range: span,
        text: format!("({inner})"),
    })
}

/// `(inner)` for `name(inner)`, found around the argument's span `arg`.
fn around(s: &Sites, arg: Range<usize>, name: &str) -> Option<Edit> {
    let before = s.src[..arg.start].trim_end().strip_suffix('(')?.trim_end();
    let start = before.strip_suffix(name).map(str::len)?;
    let after = &s.src[arg.end..];
    let close = after.len() - after.trim_start().len();
    after[close..].starts_with(')').then(|| Edit {
        range: start..arg.end + close + 1,
        text: format!("({})", s.text(&arg)),
    })
}

/// `(inner)` for the call `name(inner)` written at byte `at`, its closing parenthesis found by
/// nesting.
fn call_from(s: &Sites, at: usize, name: &str) -> Option<Edit> {
    let rest = s.src[at..].strip_prefix(name)?;
    let open = at + name.len() + (rest.len() - rest.trim_start().len());
    if !s.src[open..].starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in s.src[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let close = open + i;
                    return Some(Edit {
                        range: at..close + 1,
                        text: format!("({})", &s.src[open + 1..close]),
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// A call of a function from a matrix to a matrix of the same shape (the normal matrix: the
/// inverse transpose or the cofactor of the blended matrix) replaced by its argument, so
/// normals go through the plain blended matrix. Not where the profile says the shader skins
/// normals by the blended matrix itself.
pub(super) fn normal_plain_matrix(s: &Sites) -> Vec<Candidate> {
    let blended = s.contract.normal_matrix == crate::contract::NormalMatrix::Blended;
    if !s.contract.writes(Role::SkinnedNormals) || blended {
        return Vec::new();
    }
    let types = &s.module.types;
    let is_matrix = |h: Handle<naga::Type>| matches!(types[h].inner, TypeInner::Matrix { .. });
    let mut edits = Vec::new();
    for f in s.funcs() {
        let func = s.func(f);
        for_each_statement(&func.body, &mut |st| {
            let Statement::Call {
                function,
                result: Some(result),
                ..
            } = st
            else {
                return;
            };
            let callee = &s.module.functions[*function];
            let matrix_to_matrix = matches!((callee.arguments.as_slice(), &callee.result), ([a], Some(r)) if is_matrix(a.ty) && types[a.ty].inner == types[r.ty].inner);
            if !matrix_to_matrix {
                return;
            }
            let name = callee.name.as_deref().unwrap_or("");
            if let Some(span) = s.span(f, *result) {
                edits.extend(unwrap(s, span, name));
            }
        });
    }
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "normals by the plain blended matrix: the normal matrix (its inverse transpose) left out",
        "a posed case with a non-uniform scale (pose[].scale) whose normals are not along the scale's axes",
        edits,
    )]
}

/// Every `normalize(x)` becomes `(x)`: skinned normals and tangents keep the length the blend
/// gives them.
pub(super) fn renormalisation_dropped(s: &Sites) -> Vec<Candidate> {
    // Where a later stage renormalises (`frame_length: any`), lengths are not compared: the
    // mutant would be equivalent by the profile's own word.
    let any = crate::contract::FrameLength::Any;
    if !has_frames(s) || (s.contract.frame_length, s.contract.tangent_length) == (any, any) {
        return Vec::new();
    }
    let mut edits = Vec::new();
    for f in s.funcs() {
        for (handle, expr) in s.func(f).expressions.iter() {
            if let Expression::Math {
                fun: naga::MathFunction::Normalize,
                arg,
                ..
            } = *expr
            {
                // naga's span of a builtin call may be its name alone: the call is found
                // around its argument, or, where that span is a `var`'s declaration, from the
                // call's own span by its parentheses.
                let edit =
                    (s.span(f, arg).and_then(|arg| around(s, arg, "normalize"))).or_else(|| {
                        s.span(f, handle)
                            .and_then(|at| call_from(s, at.start, "normalize"))
                    });
                edits.extend(edit);
            }
        }
    }
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "skinned normals and tangents not renormalised (normalize left out)",
        "a posed case that blends joints rotated apart, or scales one: the blend shortens or stretches directions",
        edits,
    )]
}

/// The value stored to the skinned tangents written with w = 1, not the source's handedness: the
/// stored vec4 in a typed binding of its own, or in a byte-addressed output or stream the w
/// component stored into its word. Not where the tangents are vec3s, with no handedness.
pub(super) fn tangent_w_lost(s: &Sites) -> Vec<Candidate> {
    let c = s.contract;
    if !c.writes(Role::SkinnedTangents) || !c.tangent_handedness() {
        return Vec::new();
    }
    let Some(cs) = s.compute() else {
        return Vec::new();
    };
    let own = c.try_slot(Role::SkinnedTangents).is_some();
    let words = if own {
        Role::SkinnedTangents
    } else {
        Role::Skinned
    };
    let edits: Vec<Edit> = if own && !c.streams.skinned_tangents.byte_addressed {
        s.stored_to(cs, Role::SkinnedTangents)
            .into_iter()
            .filter_map(|value| s.span(cs, value))
            .map(|range| Edit {
                text: format!("vec4<f32>(({}).xyz, 1.0)", s.text(&range)),
                range,
            })
            .collect()
    } else {
        s.stored_to(cs, words)
            .into_iter()
            .filter_map(|value| fourth_component(s.func(cs), value))
            .filter_map(|w| s.span(cs, w))
            .map(|range| Edit {
                range,
                text: "1.0f".into(),
            })
            .collect()
    };
    if edits.is_empty() {
        return Vec::new();
    }
    vec![candidate(
        "the skinned tangent's handedness w written as 1, not the source's",
        "a case whose mesh has tangents of w = -1 (the built-in strip mirrors every other vertex)",
        edits,
    )]
}

/// The `v.w` (or `v[3]`) a stored value is, through a bitcast or conversion: in a byte-addressed
/// output only a tangent has a fourth component to store.
fn fourth_component(
    func: &naga::Function,
    mut e: Handle<Expression>,
) -> Option<Handle<Expression>> {
    loop {
        match func.expressions[e] {
            Expression::As { expr, .. } => e = expr,
            Expression::AccessIndex { index: 3, .. } => return Some(e),
            Expression::Access { index, .. }
                if matches!(
                    func.expressions[index],
                    Expression::Literal(naga::Literal::U32(3) | naga::Literal::I32(3))
                ) =>
            {
                return Some(e)
            }
            Expression::Load { pointer } => match func.expressions[pointer] {
                Expression::AccessIndex { index: 3, .. } => return Some(e),
                _ => return None,
            },
            _ => return None,
        }
    }
}
