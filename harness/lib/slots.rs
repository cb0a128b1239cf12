//! A palette kept as bare `vec4<f32>` slots, read from the shader: how many slots a joint takes
//! (the factor its reads multiply a joint's index by), whether they are its rows, and whether
//! three are its columns with the translation in their w.

use naga::{Expression as E, Handle, Module};

/// Where the slots are: a global (an array, or a struct holding only one), or the member of its
/// struct that holds them beside others (Urho3D's `cSkinMatrices` after `cModel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) global: Handle<naga::GlobalVariable>,
    pub(crate) member: Option<u32>,
}

impl From<Handle<naga::GlobalVariable>> for Place {
    fn from(global: Handle<naga::GlobalVariable>) -> Place {
        Place {
            global,
            member: None,
        }
    }
}

/// How many `vec4<f32>` slots a joint takes in `global` (an array of them, or a struct holding
/// only one): the factor an index it is read at is multiplied by (`bones[j * 3u + r]`, or a local
/// `var v = j * 4;` read as `bones[v + 1]`), 3 or 4; none where no read shows one.
pub(crate) fn per_joint(module: &Module, global: impl Into<Place>) -> Option<u32> {
    reads(module, global.into()).find_map(|(f, index)| factor(f, index, 4))
}

/// Whether a joint's `slots` slots in `global` are its rows: three always (an affine's rows);
/// four where the shader builds a joint's matrix with them as rows, a column of scalars taken
/// from a slot in turn (`mat4x4f(b[v].x, b[v + 1].x, ...)`: lane x of one slot, then of the
/// next); else its columns. (A transpose tells nothing: it depends on what the product does.)
pub(crate) fn rows(module: &Module, global: impl Into<Place>, slots: u32) -> bool {
    let global = global.into();
    if slots == 3 {
        return true;
    }
    functions(module).any(|f| {
        f.expressions.iter().any(|(_, e)| match e {
            // Its first two scalars: the x of two slots (down the rows), not a slot's x and y.
            E::Compose { components, .. } if components.len() >= 2 => {
                let lanes =
                    [components[0], components[1]].map(|c| lane_of_slot(module, f, global, c));
                lanes == [Some(0), Some(0)]
            }
            _ => false,
        })
    })
}

/// Whether a joint's three slots in `global` are its columns' xyz, each with a translation
/// component in w, as Cocos Creator rebuilds them (`mat4(vec4(v1.xyz, 0), vec4(v2.xyz, 0),
/// vec4(v3.xyz, 0), vec4(v1.w, v2.w, v3.w, 1))`): a vec4 composed of a slot's xyz first (a
/// column; rows give no such vector), and one of the w of three slots (the translation; rows keep
/// theirs in w too, so this alone tells nothing).
pub(crate) fn columns_translation(module: &Module, global: impl Into<Place>) -> bool {
    let global = global.into();
    let vec4 = |f: &naga::Function, first: &dyn Fn(&[Handle<E>]) -> bool| {
        f.expressions.iter().any(|(_, e)| match e {
            E::Compose { ty, components } => {
                is_vec4f(&module.types[*ty].inner) && first(components)
            }
            _ => false,
        })
    };
    let xyz = |f: &naga::Function, c: &[Handle<E>]| column_of_slot(module, f, global, c);
    let w = |f: &naga::Function, c: &[Handle<E>]| {
        c.len() == 4
            && c[..3]
                .iter()
                .all(|&e| lane_of_slot(module, f, global, e) == Some(3))
    };
    functions(module).any(|f| vec4(f, &|c| xyz(f, c)))
        && functions(module).any(|f| vec4(f, &|c| w(f, c)))
}

/// Whether `components` start with one slot of `global`'s xyz: `v1.xyz` whole, or its lanes 0, 1
/// and 2 in turn (`v1.x, v1.y, v1.z`, as naga's reading of GLSL spells `vec4(v1.xyz, 0.0)`).
fn column_of_slot(
    module: &Module,
    f: &naga::Function,
    global: Place,
    components: &[Handle<E>],
) -> bool {
    if (components.first()).is_some_and(|&e| xyz_of_slot(module, f, global, e).is_some()) {
        return true;
    }
    let lanes: Vec<Option<(Slot, u32)>> = (components.iter().take(3))
        .map(|&e| slot_lane(module, f, global, e))
        .collect();
    match lanes[..] {
        [Some((a, 0)), Some((b, 1)), Some((c, 2))] => a == b && b == c,
        _ => false,
    }
}

/// Which slot value an expression is: a local variable holding one (each load of it the same), or
/// the expression itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Local(Handle<naga::LocalVariable>),
    Value(Handle<E>),
}

/// The slot `e` is, a local variable's loads all one.
fn slot_key(f: &naga::Function, e: Handle<E>) -> Slot {
    let pointer = match f.expressions[e] {
        E::Load { pointer } => pointer,
        _ => e,
    };
    match f.expressions[pointer] {
        E::LocalVariable(l) => Slot::Local(l),
        _ => Slot::Value(e),
    }
}

/// The slot of `global` whose xyz `e` is (`v1.xyz`), if it is one.
fn xyz_of_slot(module: &Module, f: &naga::Function, global: Place, e: Handle<E>) -> Option<Slot> {
    use naga::SwizzleComponent::{X, Y, Z};
    let E::Swizzle {
        size: naga::VectorSize::Tri,
        vector,
        pattern,
    } = f.expressions[e]
    else {
        return None;
    };
    let slot = is_slot(module, f, global, vector) || holds_slot(module, f, global, vector);
    (pattern[..3] == [X, Y, Z] && slot).then(|| slot_key(f, vector))
}

/// The slot of `global` and the lane `e` reads: `v1.y` (1), or lane 1 of `v1.xyz`.
fn slot_lane(
    module: &Module,
    f: &naga::Function,
    global: Place,
    e: Handle<E>,
) -> Option<(Slot, u32)> {
    let (base, lane) = lane_read(f, e)?;
    if let Some(slot) = xyz_of_slot(module, f, global, base) {
        return Some((slot, lane));
    }
    lane_of_slot(module, f, global, e).map(|lane| (slot_key(f, base), lane))
}

/// Whether `inner` is a `vec4<f32>`, the slot a joint's row or column takes.
pub(crate) fn is_vec4f(inner: &naga::TypeInner) -> bool {
    matches!(*inner, naga::TypeInner::Vector { size: naga::VectorSize::Quad, scalar } if scalar == naga::Scalar::F32)
}

/// Every (function, index) the shader reads `global` at.
fn reads(module: &Module, global: Place) -> impl Iterator<Item = (&naga::Function, Handle<E>)> {
    functions(module).flat_map(move |f| {
        (f.expressions.iter()).filter_map(move |(_, e)| match *e {
            E::Access { base, index } if of_global(module, f, global, base) => Some((f, index)),
            _ => None,
        })
    })
}

/// The module's functions and its entry points'.
fn functions(module: &Module) -> impl Iterator<Item = &naga::Function> {
    (module.functions.iter().map(|(_, f)| f)).chain(module.entry_points.iter().map(|e| &e.function))
}

/// Whether `e` is the slots of `global`: the global, or the one member of its struct (not
/// another array beside it), or the member it names.
fn of_global(module: &Module, f: &naga::Function, global: Place, e: Handle<E>) -> bool {
    let alone = || {
        let ty = module.global_variables[global.global].ty;
        matches!(&module.types[ty].inner, naga::TypeInner::Struct { members, .. } if members.len() == 1)
    };
    match f.expressions[e] {
        E::GlobalVariable(g) => g == global.global && global.member.is_none(),
        E::AccessIndex { base, index } => {
            matches!(f.expressions[base], E::GlobalVariable(g) if g == global.global)
                && global.member.map_or_else(alone, |m| m == index)
        }
        _ => false,
    }
}

/// Whether `e` is a slot of `global`, loaded whole.
fn is_slot(module: &Module, f: &naga::Function, global: Place, e: Handle<E>) -> bool {
    matches!(f.expressions[e], E::Load { pointer }
        if matches!(f.expressions[pointer], E::Access { base, .. } if of_global(module, f, global, base)))
}

/// The vector and the lane `e` reads (`v.y`, or a load of `(*p).y`), if it reads a lane.
fn lane_read(f: &naga::Function, e: Handle<E>) -> Option<(Handle<E>, u32)> {
    match f.expressions[e] {
        E::AccessIndex { base, index } => Some((base, index)),
        E::Load { pointer } => match f.expressions[pointer] {
            E::AccessIndex { base, index } => Some((base, index)),
            _ => None,
        },
        _ => None,
    }
}

/// The lane of a slot of `global` that `e` reads (`b[v + 1].x`: 0), if it reads one.
fn lane_of_slot(module: &Module, f: &naga::Function, global: Place, e: Handle<E>) -> Option<u32> {
    let (base, lane) = lane_read(f, e)?;
    let whole = is_slot(module, f, global, base)
        || matches!(f.expressions[base], E::Access { base: b, .. } if of_global(module, f, global, b))
        || holds_slot(module, f, global, base);
    whole.then_some(lane)
}

/// Whether `e` is a local variable (or its load) that the function sets to a slot of `global`
/// alone (`vec4 v1 = joints[i * 3];`).
fn holds_slot(module: &Module, f: &naga::Function, global: Place, e: Handle<E>) -> bool {
    let pointer = match f.expressions[e] {
        E::Load { pointer } => pointer,
        _ => e,
    };
    let E::LocalVariable(l) = f.expressions[pointer] else {
        return false;
    };
    let values = stored(f, l);
    !values.is_empty() && values.iter().all(|&v| is_slot(module, f, global, v))
}

/// What local variable `l` is given: its initialiser, and every value stored in it.
fn stored(f: &naga::Function, l: Handle<naga::LocalVariable>) -> Vec<Handle<E>> {
    let mut out: Vec<Handle<E>> = f.local_variables[l].init.into_iter().collect();
    crate::naga_walk::for_each_statement(&f.body, &mut |s| {
        if let naga::Statement::Store { pointer: p, value } = *s {
            if matches!(f.expressions[p], E::LocalVariable(x) if x == l) {
                out.push(value);
            }
        }
    });
    out
}

/// The factor, 3 or 4, in an index `j * k + r` (`k * j`, a cast of either, or a local variable
/// initialised so), to a depth of `depth` operations.
fn factor(f: &naga::Function, e: Handle<E>, depth: u8) -> Option<u32> {
    let deeper = |e| (depth > 0).then(|| factor(f, e, depth - 1)).flatten();
    match f.expressions[e] {
        E::Binary {
            op: naga::BinaryOperator::Multiply,
            left,
            right,
        } => (literal(f, left).or_else(|| literal(f, right))).filter(|k| matches!(k, 3 | 4)),
        E::Binary {
            op: naga::BinaryOperator::Add,
            left,
            right,
        } => deeper(left).or_else(|| deeper(right)),
        E::As { expr, .. } => deeper(expr),
        // A lane of a vector of indices (Urho3D's `ivec4 idx = ivec4(indices) * 3; idx.x`).
        E::AccessIndex { base, .. } | E::Access { base, .. } => deeper(base),
        // A local variable (or a lane of one): its initialiser, or what is stored in it.
        E::Load { pointer } => match f.expressions[pointer] {
            E::LocalVariable(l) => stored(f, l).into_iter().find_map(deeper),
            E::AccessIndex { base, .. } | E::Access { base, .. } => match f.expressions[base] {
                E::LocalVariable(l) => stored(f, l).into_iter().find_map(deeper),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// A whole-number literal's value, or every lane's of a vector of one (`vec4(3i)`).
fn literal(f: &naga::Function, e: Handle<E>) -> Option<u32> {
    match f.expressions[e] {
        E::Splat { value, .. } => literal(f, value),
        ref e => crate::naga_walk::int_literal(e).and_then(|k| u32::try_from(k).ok()),
    }
}
