//! How a shader strides an array it writes per vertex: element `i * k + c` for slot `c` of `k`,
//! read from its stores (`out[i * 2u] = position; out[i * 2u + 1u] = normal;`).

use naga::{BinaryOperator, Block, Expression, Handle, Module, Statement};

use super::texels::constant;

/// The slots a vertex takes in the array global `var`, as its stores index it: `(k, slots)`, k
/// greater than 1 and the slots `c` stored at `i * k + c`, in order; None where a store indexes
/// it otherwise or none strides it.
pub(super) fn slots(module: &Module, var: Handle<naga::GlobalVariable>) -> Option<(i64, Vec<i64>)> {
    let mut seen: Vec<(i64, i64)> = Vec::new();
    for f in crate::shader::all_functions(module) {
        let mut stores = Vec::new();
        collect(&f.body, &mut stores);
        for pointer in stores {
            let Expression::Access { base, index } = f.expressions[pointer] else {
                continue;
            };
            if root(f, base) != Some(var) {
                continue;
            }
            seen.push(slot(module, f, index)?);
        }
    }
    let k = seen.first()?.0;
    if k < 2 || seen.iter().any(|s| s.0 != k) {
        return None;
    }
    let mut cs: Vec<i64> = seen.iter().map(|s| s.1).collect();
    cs.sort_unstable();
    cs.dedup();
    Some((k, cs))
}

/// Whether a function loads from global `g` (a buffer the shader reads, not only writes).
pub(super) fn reads(module: &Module, g: &super::read::Global) -> bool {
    let Some(var) = g.variable(module) else {
        return false;
    };
    crate::shader::all_functions(module).any(|f| {
        f.expressions.iter().any(|(_, e)| match *e {
            Expression::Load { pointer } => crate::shader::root_global(f, pointer) == Some(var),
            _ => false,
        })
    })
}

/// Whether a function stores into field `field` (a member's name, or its byte offset) of an
/// element of global `g`, an array of structs `members`: into the member itself (or a component
/// of it, `dst[i].normal.x`), or the whole element (LÖVR's skinner writes its vertices' position and normal, and not their tangent).
pub(super) fn writes_field(
    module: &Module,
    g: &super::read::Global,
    members: &[naga::StructMember],
    field: &str,
) -> bool {
    let Some(var) = g.variable(module) else {
        return false;
    };
    let Some(k) = (members.iter())
        .position(|m| m.name.as_deref() == Some(field) || m.offset.to_string() == field)
    else {
        return false;
    };
    crate::shader::all_functions(module).any(|f| {
        let mut pointers = Vec::new();
        collect(&f.body, &mut pointers);
        // The array (the global, or the one member of its struct), and an element of it.
        let array = |e: Handle<Expression>| match f.expressions[e] {
            Expression::GlobalVariable(_) => true,
            Expression::AccessIndex { base, .. } => {
                matches!(f.expressions[base], Expression::GlobalVariable(_))
            }
            _ => false,
        };
        let element = |e: Handle<Expression>| {
            matches!(f.expressions[e], Expression::Access { base, .. } if array(base))
        };
        pointers.into_iter().any(|p| {
            // Up from a component of the member (`dst[i].normal.x`) to the member, or the
            // element itself.
            let mut at = p;
            let into = loop {
                match f.expressions[at] {
                    _ if element(at) => break true,
                    Expression::AccessIndex { base, index } if element(base) => {
                        break index as usize == k
                    }
                    Expression::AccessIndex { base, .. } | Expression::Access { base, .. } => {
                        at = base
                    }
                    _ => break false,
                }
            };
            into && crate::shader::root_global(f, p) == Some(var)
        })
    })
}

/// The pointers of every store in `block`, nested blocks included.
fn collect(block: &Block, out: &mut Vec<Handle<Expression>>) {
    crate::shader::for_each_statement(block, &mut |s| {
        if let Statement::Store { pointer, .. } = s {
            out.push(*pointer);
        }
    });
}

/// The global a pointer is into, through a struct that wraps the array.
fn root(f: &naga::Function, e: Handle<Expression>) -> Option<Handle<naga::GlobalVariable>> {
    match f.expressions[e] {
        Expression::GlobalVariable(g) => Some(g),
        Expression::AccessIndex { base, .. } => root(f, base),
        _ => None,
    }
}

/// `(k, c)` of an index `i * k + c` (or `c + i * k`, `i * k`: c 0; `k * i` too); None for another
/// form, a bare `i` included (one slot a vertex).
fn slot(module: &Module, f: &naga::Function, index: Handle<Expression>) -> Option<(i64, i64)> {
    let times = |e: Handle<Expression>| match f.expressions[e] {
        Expression::Binary {
            op: BinaryOperator::Multiply,
            left,
            right,
        } => constant(module, f, right).or_else(|| constant(module, f, left)),
        _ => None,
    };
    match f.expressions[index] {
        Expression::Binary {
            op: BinaryOperator::Add,
            left,
            right,
        } => match (times(left), constant(module, f, right)) {
            (Some(k), Some(c)) => Some((k, c)),
            _ => Some((times(right)?, constant(module, f, left)?)),
        },
        _ => Some((times(index)?, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str) -> Option<(i64, Vec<i64>)> {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let (g, _) = (module.global_variables.iter())
            .find(|(_, g)| g.name.as_deref() == Some("out"))
            .unwrap();
        slots(&module, g)
    }

    const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
const SLOTS: u32 = 3u;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
";

    #[test]
    fn stores_at_whole_multiples_give_the_slots() {
        let two = format!(
            "{HEAD}    out[i * 2u] = vec4<f32>(1.0);\n    out[i * 2u + 1u] = vec4<f32>(0.0);\n}}"
        );
        assert_eq!(of(&two), Some((2, vec![0, 1])));
        // A named constant, the constant first, a slot stored inside a branch.
        let three = format!("{HEAD}    if (i > 3u) {{ out[2u + SLOTS * i] = vec4<f32>(1.0); }}\n    out[i * SLOTS] = vec4<f32>(0.0);\n}}");
        assert_eq!(of(&three), Some((3, vec![0, 2])));
    }

    #[test]
    fn one_slot_or_mixed_strides_give_none() {
        let one = format!("{HEAD}    out[i] = vec4<f32>(1.0);\n}}");
        assert_eq!(of(&one), None);
        let mixed = format!(
            "{HEAD}    out[i * 2u] = vec4<f32>(1.0);\n    out[i * 3u + 1u] = vec4<f32>(0.0);\n}}"
        );
        assert_eq!(of(&mixed), None);
        let computed = format!(
            "{HEAD}    out[i * 2u] = vec4<f32>(1.0);\n    out[i + i] = vec4<f32>(0.0);\n}}"
        );
        assert_eq!(of(&computed), None);
    }
}
