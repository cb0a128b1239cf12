//! Whether a stage applies a stored matrix as it is or transposed: the transposes counted from
//! each read of the matrix to each vector it moves, a row vector (`p * m`) one more.

use std::collections::HashMap;

use naga::{BinaryOperator as B, Expression as E, Handle, MathFunction as M, Module, Statement};
use naga::{TypeInner, VectorSize};

/// What a value is, as far as the stored matrix goes: the matrix (or a blend of it) or one of its
/// columns, transposed an even (`false`) or odd (`true`) number of times.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Matrix(bool),
    Column(bool),
}

/// Each function's return value, where it is one.
type Returns = HashMap<Handle<naga::Function>, Value>;

/// How entry point `ep` applies the 4x4 matrices it reads from `reads` (a palette's, a camera's
/// loads, told by [`super::flow::reads_palette`]) to vectors: `Some(true)` where every such
/// product applies the stored matrix transposed (`p * m`, `transpose(m) * p`), `Some(false)`
/// where every one applies it as stored (`m * p`, `p * transpose(m)`), None where none shows or
/// they disagree.
pub(super) fn transposed(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    index: usize,
    reads: (Handle<naga::GlobalVariable>, Option<u32>),
) -> Option<bool> {
    let ep = &module.entry_points[index];
    let mut returns = Returns::new();
    let called: Vec<Handle<naga::Function>> =
        super::called(module, super::calls(&ep.function.body)).collect();
    let mut applied = Vec::new();
    // Callees first, to a fixed point, so that a helper's returned blend is known.
    for _ in 0..4 {
        let before = returns.clone();
        for &h in &called {
            let f = &module.functions[h];
            let (r, _) = function(module, (f, &info[h]), reads, &returns);
            if let Some(r) = r {
                returns.insert(h, r);
            }
        }
        if returns == before {
            break;
        }
    }
    for &h in &called {
        applied.extend(function(module, (&module.functions[h], &info[h]), reads, &returns).1);
    }
    let entry = (&ep.function, info.get_entry_point(index));
    applied.extend(function(module, entry, reads, &returns).1);
    match (applied.iter().all(|&t| t), applied.iter().any(|&t| t)) {
        _ if applied.is_empty() => None,
        (true, _) => Some(true),
        (false, false) => Some(false),
        _ => None,
    }
}

/// One function's return value and how each product of a vector with the matrix applies it.
fn function(
    module: &Module,
    (f, info): (&naga::Function, &naga::valid::FunctionInfo),
    reads: (Handle<naga::GlobalVariable>, Option<u32>),
    returns: &Returns,
) -> (Option<Value>, Vec<bool>) {
    let types: Vec<&TypeInner> = (f.expressions.iter())
        .map(|(h, _)| info[h].ty.inner_with(&module.types))
        .collect();
    // Whether each expression reaches into the matrices' global (through its member, where the
    // matrices are one of its struct's).
    let mut rooted = vec![false; f.expressions.len()];
    for (h, e) in f.expressions.iter() {
        rooted[h.index()] = super::flow::reads_palette(module, f, e, reads)
            || match *e {
                E::Access { base, .. } | E::AccessIndex { base, .. } => rooted[base.index()],
                E::Load { pointer } => rooted[pointer.index()],
                _ => false,
            };
    }
    let mut values: Vec<Option<Value>> = vec![None; f.expressions.len()];
    let mut locals: HashMap<Handle<naga::LocalVariable>, Value> = HashMap::new();
    let mut results: HashMap<Handle<E>, Value> = HashMap::new();
    let mut applied = Vec::new();
    // A 4x4 matrix, or a pointer to one.
    let is_mat4 = |t: &TypeInner| {
        let t = match *t {
            TypeInner::Pointer { base, .. } => &module.types[base].inner,
            _ => t,
        };
        matches!(
            t,
            TypeInner::Matrix {
                columns: VectorSize::Quad,
                rows: VectorSize::Quad,
                ..
            }
        )
    };
    for _ in 0..4 {
        applied.clear();
        for (h, e) in f.expressions.iter() {
            let v = |x: Handle<E>| values[x.index()];
            let value = match *e {
                _ if rooted[h.index()] && is_mat4(types[h.index()]) => Some(Value::Matrix(false)),
                E::Load { pointer } => match f.expressions[pointer] {
                    E::LocalVariable(l) => locals.get(&l).copied(),
                    _ => v(pointer),
                },
                E::Access { base, .. } | E::AccessIndex { base, .. } => match v(base) {
                    Some(Value::Matrix(t)) if !is_mat4(types[h.index()]) => Some(Value::Column(t)),
                    other => other,
                },
                E::Math {
                    fun: M::Transpose,
                    arg,
                    ..
                } => match v(arg) {
                    Some(Value::Matrix(t)) => Some(Value::Matrix(!t)),
                    _ => None,
                },
                E::Compose { ref components, .. } if is_mat4(types[h.index()]) => {
                    let cols: Vec<Option<Value>> = components.iter().map(|c| v(*c)).collect();
                    match cols.first() {
                        Some(Some(Value::Column(t)))
                            if cols.iter().all(|c| *c == Some(Value::Column(*t))) =>
                        {
                            Some(Value::Matrix(*t))
                        }
                        _ => None,
                    }
                }
                E::Binary { op, left, right } => {
                    let (l, r) = (v(left), v(right));
                    let vector = |x: Handle<E>| {
                        matches!(
                            types[x.index()],
                            TypeInner::Vector {
                                size: VectorSize::Quad,
                                ..
                            }
                        )
                    };
                    match (op, l, r) {
                        (B::Multiply, Some(Value::Matrix(t)), None) if vector(right) => {
                            applied.push(t);
                            None
                        }
                        (B::Multiply, None, Some(Value::Matrix(t))) if vector(left) => {
                            applied.push(!t);
                            None
                        }
                        (B::Add | B::Subtract, Some(a), Some(b)) if a == b => Some(a),
                        (B::Add | B::Subtract | B::Multiply | B::Divide, Some(a), None)
                        | (B::Add | B::Subtract | B::Multiply, None, Some(a)) => Some(a),
                        _ => None,
                    }
                }
                E::CallResult(_) => results.get(&h).copied(),
                _ => None,
            };
            values[h.index()] = value;
        }
        let before = locals.clone();
        crate::shader::for_each_statement(&f.body, &mut |st| match st {
            Statement::Store { pointer, value } => {
                if let (E::LocalVariable(l), Some(v)) =
                    (&f.expressions[*pointer], values[value.index()])
                {
                    locals.insert(*l, v);
                }
            }
            Statement::Call {
                function,
                result: Some(r),
                ..
            } => {
                if let Some(v) = returns.get(function) {
                    results.insert(*r, *v);
                }
            }
            _ => {}
        });
        if locals == before {
            break;
        }
    }
    let ret = super::flow::returns(f)
        .into_iter()
        .map(|r| values[r.index()])
        .reduce(|a, b| if a == b { a } else { None })
        .flatten();
    (ret, applied)
}
