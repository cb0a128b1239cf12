//! Where a vertex entry point's outputs come from: which sources (the palette, the source normal,
//! the source tangent) each located output may depend on, through expressions, local variables,
//! private globals and calls.

use std::collections::HashMap;

use naga::{Binding, Expression as E, Handle, Module, Statement, TypeInner};

/// A value that may depend on the palette.
pub(super) const PALETTE: u8 = 1;
/// On the source normal.
pub(super) const NORMAL: u8 = 2;
/// On the source tangent.
pub(super) const TANGENT: u8 = 4;

/// The sources traced: the palette's global (and its member, where the palette is one of its
/// struct's), and the locations of the source normal and tangent, or the buffers a stage that
/// pulls its vertices reads them from (pygfx's `s_normals`).
pub(super) struct Sources {
    pub(super) palette: Handle<naga::GlobalVariable>,
    pub(super) member: Option<u32>,
    pub(super) normal: Option<u32>,
    pub(super) tangent: Option<u32>,
    pub(super) pulled: [Option<Handle<naga::GlobalVariable>>; 2],
}

/// The expressions `e` reads (its operands).
pub(super) fn operands(e: &E) -> Vec<Handle<E>> {
    let opt = |o: &Option<Handle<E>>| o.iter().copied().collect::<Vec<_>>();
    match e {
        E::Compose { components, .. } => components.clone(),
        E::Access { base, index } => vec![*base, *index],
        E::AccessIndex { base, .. } => vec![*base],
        E::Splat { value, .. } => vec![*value],
        E::Swizzle { vector, .. } => vec![*vector],
        E::Load { pointer } => vec![*pointer],
        E::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            depth_ref,
            ..
        } => [
            vec![*image, *sampler, *coordinate],
            opt(array_index),
            opt(offset),
            opt(depth_ref),
        ]
        .concat(),
        E::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => [
            vec![*image, *coordinate],
            opt(array_index),
            opt(sample),
            opt(level),
        ]
        .concat(),
        E::ImageQuery { image, .. } => vec![*image],
        E::Unary { expr, .. } | E::Derivative { expr, .. } | E::As { expr, .. } => vec![*expr],
        E::Binary { left, right, .. } => vec![*left, *right],
        E::Select {
            condition,
            accept,
            reject,
        } => vec![*condition, *accept, *reject],
        E::Relational { argument, .. } => vec![*argument],
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => [vec![*arg], opt(arg1), opt(arg2), opt(arg3)].concat(),
        E::ArrayLength(e) => vec![*e],
        _ => Vec::new(),
    }
}

/// Whether `e` reads the palette: the palette's global, or where the palette is member `member`
/// of its global's struct, that member (not the struct's other members: a model matrix or a
/// switch beside the joints).
pub(super) fn reads_palette(
    module: &Module,
    f: &naga::Function,
    e: &E,
    (palette, member): (Handle<naga::GlobalVariable>, Option<u32>),
) -> bool {
    let global = |o: Handle<E>| matches!(f.expressions[o], E::GlobalVariable(g) if g == palette);
    let array = matches!(
        module.types[module.global_variables[palette].ty].inner,
        TypeInner::Array { .. }
    );
    // The struct the member is of: the global, or an element of it (libsgd's per-instance
    // `renderer_instances[i].jointMatrices`).
    let holder = |o: Handle<E>| {
        global(o)
            || (array
                && matches!(f.expressions[o], E::Access { base, .. } | E::AccessIndex { base, .. } if global(base)))
    };
    match (e, member) {
        (E::AccessIndex { base, index }, Some(m)) => *index == m && holder(*base),
        (_, Some(_)) => false,
        (e, None) => operands(e).into_iter().any(global),
    }
}

/// The functions that read the palette ([`reads_palette`]), themselves or through the functions
/// they call (the draft's one call-graph walk, [`super::called`]).
pub(super) fn reading_palette(
    module: &Module,
    palette: Handle<naga::GlobalVariable>,
    member: Option<u32>,
) -> Vec<Handle<naga::Function>> {
    let reads = |h: Handle<naga::Function>| {
        let f = &module.functions[h];
        f.expressions
            .iter()
            .any(|(_, e)| reads_palette(module, f, e, (palette, member)))
    };
    (module.functions.iter())
        .map(|(h, _)| h)
        .filter(|&h| super::called(module, [h]).any(reads))
        .collect()
}

/// A variable a function's values may flow through: its own local variable, or a private global
/// (three.js's generated stages keep every intermediate, and their outputs, in private globals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Var {
    Local(Handle<naga::LocalVariable>),
    Private(Handle<naga::GlobalVariable>),
}

/// A pointer's variable and the member of it the pointer reaches into first (None: the whole
/// variable, or an element picked by a computed index).
fn local_root(module: &Module, f: &naga::Function, mut p: Handle<E>) -> Option<(Var, Option<u32>)> {
    let var = |e: &E| match *e {
        E::LocalVariable(l) => Some(Var::Local(l)),
        E::GlobalVariable(g) if module.global_variables[g].space == naga::AddressSpace::Private => {
            Some(Var::Private(g))
        }
        _ => None,
    };
    let mut first = None;
    loop {
        if let Some(v) = var(&f.expressions[p]) {
            return Some((v, first));
        }
        match f.expressions[p] {
            E::AccessIndex { base, index } => {
                first = var(&f.expressions[base]).map(|_| index);
                p = base;
            }
            E::Access { base, .. } => {
                first = None;
                p = base;
            }
            _ => return None,
        }
    }
}

/// A located output of a vertex entry point: what it may depend on ([`PALETTE`], [`NORMAL`],
/// [`TANGENT`]), and whether every value it takes is renormalised (a `normalize` result, the
/// first component of a vector composed around one).
pub(super) struct Output {
    pub(super) location: u32,
    pub(super) depends: u8,
    pub(super) unit: bool,
}

/// The values each local variable (its member, or the whole) may hold, and the members whose
/// own store in the function's block came after the last store of the whole (GLSL's
/// `norm.xyz = normalize(..)`, which naga writes component by component).
#[derive(Default)]
struct Stores {
    values: HashMap<(Var, Option<u32>), Vec<Handle<E>>>,
    shadowed: std::collections::HashSet<(Var, u32)>,
}

impl Stores {
    fn get(&self, key: &(Var, Option<u32>)) -> Option<&Vec<Handle<E>>> {
        self.values.get(key)
    }
}

/// The values each local variable (its member, or the whole) may hold when `f` returns: those
/// stored into it, but for those a later store in the function's own block overwrites (war3's
/// `out.normal = in.normal`, then the skinned normal).
fn stores(module: &Module, f: &naga::Function) -> Stores {
    let mut out = Stores::default();
    for st in f.body.iter() {
        match st {
            Statement::Store { pointer, value } => match local_root(module, f, *pointer) {
                Some((l, Some(k))) if whole_member(f, *pointer) => {
                    out.values.insert((l, Some(k)), vec![*value]);
                    out.shadowed.insert((l, k));
                }
                Some(key) => {
                    if key.1.is_none() {
                        out.shadowed.retain(|(v, _)| *v != key.0);
                    }
                    out.values.insert(key, vec![*value]);
                }
                None => {}
            },
            // A nested store may or may not run: beside the values before it.
            nested => {
                crate::shader::for_each_nested(nested, &mut |st| {
                    if let Statement::Store { pointer, value } = st {
                        if let Some(key) = local_root(module, f, *pointer) {
                            // A whole store that may run after a member's: the whole's values
                            // may be read there again.
                            if key.1.is_none() {
                                out.shadowed.retain(|(v, _)| *v != key.0);
                            }
                            out.values.entry(key).or_default().push(*value);
                        }
                    }
                });
            }
        }
    }
    out
}

/// Whether `pointer` reaches one member of a variable whole (`norm.x`, `out.normal`), not a part
/// of one (`out.normal.x`).
fn whole_member(f: &naga::Function, pointer: Handle<E>) -> bool {
    matches!(f.expressions[pointer], E::AccessIndex { base, .. }
        if matches!(f.expressions[base], E::LocalVariable(_) | E::GlobalVariable(_)))
}

/// The values a load of `l` (its `member`, or the whole) may read: those stored into it, but for
/// the whole's where the member's own store came after them.
fn stored(stores: &Stores, l: Var, member: Option<u32>) -> Vec<Handle<E>> {
    let shadowed = |m: Option<u32>| match (m, member) {
        (None, Some(k)) => stores.shadowed.contains(&(l, k)),
        _ => false,
    };
    (stores.values.iter())
        .filter(|((x, m), _)| *x == l && (member.is_none() || m.is_none() || *m == member))
        .filter(|((_, m), _)| !shadowed(*m))
        .flat_map(|(_, v)| v.iter().copied())
        .collect()
}

/// The values `f` returns, at each of its `return`s.
pub(super) fn returns(f: &naga::Function) -> Vec<Handle<E>> {
    let mut out = Vec::new();
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let Statement::Return { value: Some(v) } = st {
            out.push(*v);
        }
    });
    out
}

/// Whether `e` is always a renormalised vector: `normalize(..)`, a vector composed with one
/// first (`vec4(normalize(t), w)`), a select of two, a local variable every store into which is
/// one, or a call to a function whose every return is one (to a depth of 4 calls).
fn unit(module: &Module, f: &naga::Function, e: Handle<E>, depth: u8) -> bool {
    let stores = stores(module, f);
    let mut seen = Vec::new();
    unit_in(module, f, &stores, e, depth, &mut seen)
}

fn unit_in(
    module: &Module,
    f: &naga::Function,
    stores: &Stores,
    e: Handle<E>,
    depth: u8,
    seen: &mut Vec<Handle<E>>,
) -> bool {
    if seen.contains(&e) {
        // A value that loops back to itself adds nothing new.
        return true;
    }
    seen.push(e);
    let all = |values: &[Handle<E>], seen: &mut Vec<Handle<E>>| {
        !values.is_empty()
            && values
                .iter()
                .all(|v| unit_in(module, f, stores, *v, depth, seen))
    };
    match &f.expressions[e] {
        E::Math {
            fun: naga::MathFunction::Normalize,
            ..
        } => true,
        E::Compose { components, .. } => all(&components[..components.len().min(1)], seen),
        // A conversion between float widths (`vec3<f32>(v)`) keeps the length.
        E::As { expr, .. } => all(&[*expr], seen),
        E::Select { accept, reject, .. } => all(&[*accept, *reject], seen),
        // The leading components of a vector (`norm.xyz`): of a unit vector, or of a variable
        // each of whose components was stored from the same one of a unit vector (GLSL's
        // `norm.xyz = normalize(..)`).
        E::Swizzle {
            size,
            vector,
            pattern,
        } if (0..*size as usize).all(|i| pattern[i] as usize == i) => {
            match f.expressions[*vector] {
                E::Load { pointer } => match local_root(module, f, pointer) {
                    Some((l, None)) => {
                        // Each component from the same one of one unit vector.
                        let mut bases = Vec::new();
                        let lanes = (0..*size as u32).all(|c| {
                            let values = stored(stores, l, Some(c));
                            !values.is_empty()
                                && values.iter().all(|&v| match f.expressions[v] {
                                    E::AccessIndex { base, index } if index == c => {
                                        bases.push(base);
                                        true
                                    }
                                    _ => unit_in(module, f, stores, v, depth, seen),
                                })
                        });
                        bases.dedup();
                        lanes
                            && bases.len() <= 1
                            && (bases.iter()).all(|&b| unit_in(module, f, stores, b, depth, seen))
                    }
                    _ => false,
                },
                // A vector composed around a unit one (`vec4(normalize(n), 0.0).xyz`); not a
                // wider vector renormalised whole, whose leading components are not unit.
                E::Compose { .. } => all(&[*vector], seen),
                _ => false,
            }
        }
        E::Load { pointer } => match local_root(module, f, *pointer) {
            Some((Var::Private(g), m)) if stored(stores, Var::Private(g), m).is_empty() => {
                depth > 0 && private_unit(module, (g, m), depth - 1)
            }
            Some((l, m)) => all(&stored(stores, l, m), seen),
            None => false,
        },
        E::CallResult(callee) if depth > 0 => {
            let g = &module.functions[*callee];
            let returns = returns(g);
            !returns.is_empty() && returns.iter().all(|v| unit(module, g, *v, depth - 1))
        }
        _ => false,
    }
}

/// Whether every element store into `global` (`dst_n[i] = ...`) among `functions` of a value
/// computed from the palette (where `palette` is known: a fallback that copies the source is no
/// skinned value) stores one that may be renormalised: computed from a `normalize`,
/// `inverseSqrt` or `length` result (through local variables, or in a function it calls). False
/// where such a store takes a value computed without one (Renderide's blended normals,
/// renormalised by a later stage).
pub(super) fn stores_renormalised<'m>(
    module: &Module,
    functions: impl Iterator<Item = &'m naga::Function>,
    global: Handle<naga::GlobalVariable>,
    palette: Option<(Handle<naga::GlobalVariable>, Option<u32>)>,
) -> bool {
    functions.into_iter().all(|f| {
        let held = stores(module, f);
        let skinned = palette.map(|p| palette_masks(module, f, p));
        let mut all = true;
        crate::shader::for_each_statement(&f.body, &mut |st| {
            if let Statement::Store { pointer, value } = *st {
                let element = !matches!(f.expressions[pointer], E::GlobalVariable(_));
                let blended = skinned.as_ref().is_none_or(|m| m[value.index()]);
                if element && blended && crate::shader::root_global(f, pointer) == Some(global) {
                    all &= may_renormalise(module, f, &held, value, 4, &mut Vec::new());
                }
            }
        });
        all
    })
}

/// Whether `e` is computed from a `normalize`, `inverseSqrt` or `length` result, in `f` or in a
/// function it calls (to a depth of `depth` calls); a private global no function of `f` stores
/// may be, as far as this reading tells.
fn may_renormalise(
    module: &Module,
    f: &naga::Function,
    held: &Stores,
    e: Handle<E>,
    depth: u8,
    seen: &mut Vec<Handle<E>>,
) -> bool {
    if seen.contains(&e) {
        return false;
    }
    seen.push(e);
    match &f.expressions[e] {
        e if renormalising(e) => true,
        // A call renormalises, or passes on what its arguments were (rend3's
        // `from_v(normalize(n))`).
        E::CallResult(callee) => {
            (depth > 0 && calls_renormalise(module, *callee, depth - 1))
                || (call_arguments(f, e).into_iter())
                    .any(|a| may_renormalise(module, f, held, a, depth, seen))
        }
        E::Load { pointer } => match local_root(module, f, *pointer) {
            Some((Var::Private(g), m)) if stored(held, Var::Private(g), m).is_empty() => true,
            Some((l, m)) => (stored(held, l, m).iter())
                .any(|&v| may_renormalise(module, f, held, v, depth, seen)),
            None => false,
        },
        other => {
            (operands(other).into_iter()).any(|o| may_renormalise(module, f, held, o, depth, seen))
        }
    }
}

/// Where entry point `ep` returns its clip position: `Some(Some(k))` as member k of its output
/// struct, `Some(None)` as its result itself, None where it returns none.
fn position_member(module: &Module, ep: &naga::EntryPoint) -> Option<Option<u32>> {
    let result = ep.function.result.as_ref()?;
    let position =
        |b: &Option<Binding>| matches!(b, Some(Binding::BuiltIn(naga::BuiltIn::Position { .. })));
    match &module.types[result.ty].inner {
        TypeInner::Struct { members, .. } => {
            let k = members.iter().position(|m| position(&m.binding))?;
            Some(Some(k as u32))
        }
        _ if position(&result.binding) => Some(None),
        _ => None,
    }
}

/// In [`clip_members`]: the global read whole (a bare matrix), not a member of it.
pub(super) const WHOLE: u32 = u32::MAX;

/// The members of struct global `global` that the clip position entry point `ep` returns is
/// computed from (`output.pos = camera.projection * (camera.view * world)`, not a light's matrix
/// that only a shadow coordinate reads), through lets, local variables and calls (a called
/// function's every read of a member counts), [`WHOLE`] where it reads the global whole; empty
/// where the position is not found.
pub(super) fn clip_members(
    module: &Module,
    ep: &naga::EntryPoint,
    global: Handle<naga::GlobalVariable>,
) -> Vec<u32> {
    // A member of the global read (its index), or the global read whole ([`WHOLE`]).
    let read = |f: &naga::Function, e: Handle<E>| {
        let global_at =
            |b: Handle<E>| matches!(f.expressions[b], E::GlobalVariable(g) if g == global);
        match f.expressions[e] {
            E::AccessIndex { base, index } if global_at(base) => Some(index),
            E::Load { pointer } if global_at(pointer) => Some(WHOLE),
            _ => None,
        }
    };
    let mut out = Vec::new();
    clip_walk(module, ep, &mut |_, f, e| {
        out.extend(read(f, e));
        // A called function's (and those it calls) every read of the global counts.
        if let E::CallResult(callee) = f.expressions[e] {
            for h in super::called(module, [callee]) {
                let g = &module.functions[h];
                out.extend(g.expressions.iter().filter_map(|(x, _)| read(g, x)));
            }
        }
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// Calls `visit` with each value the clip position entry point `ep` returns is computed from,
/// once each, as (the index of its function among `super::reachable(module, [ep])`, the
/// function, the expression): through lets, local variables, a call's arguments, and private
/// globals into every function the entry point reaches that stores into them (naga's reading of
/// SPIR-V writes `gl_Position` in `main_1`).
fn clip_walk(
    module: &Module,
    ep: &naga::EntryPoint,
    visit: &mut dyn FnMut(usize, &naga::Function, Handle<E>),
) {
    let f = &ep.function;
    let Some(member) = position_member(module, ep) else {
        return;
    };
    let funcs: Vec<&naga::Function> = super::reachable(module, &[ep]).collect();
    let held: Vec<Stores> = funcs.iter().map(|g| stores(module, g)).collect();
    // The values the position takes: a returned composite's component, or the member of the
    // local variable returned.
    let mut todo: Vec<(usize, Handle<E>)> = Vec::new();
    for value in returns(f) {
        let Some(k) = member else {
            todo.push((0, value));
            continue;
        };
        match &f.expressions[value] {
            E::Compose { components, .. } => {
                todo.extend(components.get(k as usize).map(|&c| (0, c)))
            }
            E::Load { pointer } => {
                if let Some((l, None)) = local_root(module, f, *pointer) {
                    todo.extend(stored(&held[0], l, Some(k)).into_iter().map(|v| (0, v)));
                }
            }
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    while let Some((i, e)) = todo.pop() {
        if !seen.insert((i, e)) {
            continue;
        }
        let f = funcs[i];
        visit(i, f, e);
        match &f.expressions[e] {
            E::Load { pointer } => match local_root(module, f, *pointer) {
                Some((Var::Private(p), m)) => {
                    for (j, h) in held.iter().enumerate() {
                        todo.extend(stored(h, Var::Private(p), m).into_iter().map(|v| (j, v)));
                    }
                }
                Some((l, m)) => todo.extend(stored(&held[i], l, m).into_iter().map(|v| (i, v))),
                None => todo.push((i, *pointer)),
            },
            E::CallResult(_) => todo.extend(call_arguments(f, e).into_iter().map(|a| (i, a))),
            other => todo.extend(operands(other).into_iter().map(|o| (i, o))),
        }
    }
}

/// The arguments of the call whose result is `result`.
fn call_arguments(f: &naga::Function, result: Handle<E>) -> Vec<Handle<E>> {
    let mut out = Vec::new();
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let Statement::Call {
            arguments,
            result: Some(r),
            ..
        } = st
        {
            if *r == result {
                out.extend(arguments.iter().copied());
            }
        }
    });
    out
}

/// Whether function `h`, or one it calls (to a depth of `depth` calls), computes a `normalize`,
/// `inverseSqrt` or `length`.
fn calls_renormalise(module: &Module, h: Handle<naga::Function>, depth: u8) -> bool {
    let f = &module.functions[h];
    f.expressions.iter().any(|(_, e)| match e {
        E::CallResult(callee) => depth > 0 && calls_renormalise(module, *callee, depth - 1),
        e => renormalising(e),
    })
}

/// Whether `e` is a `normalize`, `inverseSqrt` or `length`: a renormalisation, or part of one.
pub(super) fn renormalising(e: &E) -> bool {
    use naga::MathFunction as M;
    matches!(
        e,
        E::Math {
            fun: M::Normalize | M::InverseSqrt | M::Length,
            ..
        }
    )
}

/// Whether a private global (its member) that the reading function never stores is renormalised
/// wherever another function stores it (naga's `main_1`, which the entry point calls): at least
/// one such store, each a unit vector.
fn private_unit(
    module: &Module,
    (g, m): (Handle<naga::GlobalVariable>, Option<u32>),
    depth: u8,
) -> bool {
    let mut any = false;
    for (_, h) in module.functions.iter() {
        let st = stores(module, h);
        let values = stored(&st, Var::Private(g), m);
        any |= !values.is_empty();
        if !(values.iter()).all(|v| unit_in(module, h, &st, *v, depth, &mut Vec::new())) {
            return false;
        }
    }
    any
}

/// What each of `f`'s expressions may depend on (a mask of [`PALETTE`], [`NORMAL`], [`TANGENT`]),
/// and each local variable (or member of one), through stores, loops and calls.
fn trace(module: &Module, f: &naga::Function, s: &Sources, privates: &Locals) -> (Vec<u8>, Locals) {
    let reading = reading_palette(module, s.palette, s.member);
    // The buffers a pulled normal and tangent come from, with their masks, and the functions
    // that read them (a `load_normal(i)` helper).
    let pulled: Vec<(
        Handle<naga::GlobalVariable>,
        u8,
        Vec<Handle<naga::Function>>,
    )> = (s.pulled.iter().zip([NORMAL, TANGENT]))
        .filter_map(|(g, m)| Some(((*g)?, m, reading_palette(module, (*g)?, None))))
        .collect();
    let pulled_mask = |e: &E| {
        (pulled.iter())
            .filter(|(g, ..)| reads_palette(module, f, e, (*g, None)))
            .fold(0, |a, (_, m, _)| a | m)
    };
    let of_binding = |b: &Option<Binding>| match b {
        Some(Binding::Location { location, .. }) if Some(*location) == s.normal => NORMAL,
        Some(Binding::Location { location, .. }) if Some(*location) == s.tangent => TANGENT,
        _ => 0,
    };
    let members = |ty: Handle<naga::Type>| match &module.types[ty].inner {
        TypeInner::Struct { members, .. } => Some(members.clone()),
        _ => None,
    };
    let argument = |i: u32| {
        let a = &f.arguments[i as usize];
        members(a.ty).map_or(of_binding(&a.binding), |ms| {
            ms.iter().fold(0, |m, x| m | of_binding(&x.binding))
        })
    };
    let mut mask = vec![0u8; f.expressions.len()];
    // What the private globals may hold on entry: what any function of the stage stores there.
    let mut locals: Locals = privates.clone();
    let mut results: HashMap<Handle<E>, u8> = HashMap::new();
    // Until nothing changes: a loop may carry a value back to an earlier store.
    for _ in 0..16 {
        let before = (mask.clone(), locals.clone(), results.clone());
        for (h, e) in f.expressions.iter() {
            let own = match *e {
                _ if reads_palette(module, f, e, (s.palette, s.member)) => PALETTE,
                // The palette itself passed to the function that reads it (a bone texture,
                // Babylon.js's `readMatrixFromRawSampler(boneSampler, index)`); not a struct the
                // palette is one member of.
                E::GlobalVariable(g) if g == s.palette && s.member.is_none() => PALETTE,
                E::FunctionArgument(i) => argument(i),
                E::AccessIndex { base, index } => match f.expressions[base] {
                    E::FunctionArgument(i) => {
                        let a = &f.arguments[i as usize];
                        members(a.ty).map_or(argument(i), |ms| {
                            ms.get(index as usize).map_or(0, |x| of_binding(&x.binding))
                        })
                    }
                    _ => mask[base.index()],
                },
                E::Load { pointer } => match local_root(module, f, pointer) {
                    Some((l, m)) => local(&locals, l, m) | mask[pointer.index()],
                    None => mask[pointer.index()],
                },
                E::CallResult(_) => results.get(&h).copied().unwrap_or(0),
                _ => 0,
            } | pulled_mask(e);
            let from = match e {
                // A member of an argument is that member alone, not the whole struct.
                E::AccessIndex { base, .. }
                    if matches!(f.expressions[*base], E::FunctionArgument(_)) =>
                {
                    0
                }
                E::Load { .. } => 0,
                e => operands(e).iter().fold(0, |m, o| m | mask[o.index()]),
            };
            mask[h.index()] = own | from;
        }
        crate::shader::for_each_statement(&f.body, &mut |st| match st {
            Statement::Store { pointer, value } => {
                if let Some(key) = local_root(module, f, *pointer) {
                    *locals.entry(key).or_default() |= mask[value.index()];
                }
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                // A pointer to a local variable passes what the variable holds (naga's reading
                // of SPIR-V passes `&param` where GLSL passed the value).
                let held = |a: &Handle<E>| {
                    local_root(module, f, *a).map_or(0, |(l, m)| local(&locals, l, m))
                };
                let mut m = arguments
                    .iter()
                    .fold(0, |m, a| m | mask[a.index()] | held(a));
                if reading.contains(function) {
                    m |= PALETTE;
                }
                // What the callee reads of the private globals (naga's reading of SPIR-V keeps
                // the inputs there: Urho3D's `GetWorldNormal` reads `iNormal`).
                m |= (private_reads(module, *function).into_iter())
                    .fold(0, |a, g| a | local(&locals, Var::Private(g), None));
                m |= (pulled.iter())
                    .filter(|(.., fs)| fs.contains(function))
                    .fold(0, |a, (_, k, _)| a | k);
                if let Some(r) = result {
                    *results.entry(*r).or_default() |= m;
                }
                // A pointer argument may be written through.
                for a in arguments {
                    if let Some((l, _)) = local_root(module, f, *a) {
                        *locals.entry((l, None)).or_default() |= m;
                    }
                }
            }
            _ => {}
        });
        if (&mask, &locals, &results) == (&before.0, &before.1, &before.2) {
            break;
        }
    }
    (mask, locals)
}

/// The private globals function `h` and the functions it calls load from (not those they only
/// store into).
fn private_reads(module: &Module, h: Handle<naga::Function>) -> Vec<Handle<naga::GlobalVariable>> {
    let private = |g: Handle<naga::GlobalVariable>| {
        module.global_variables[g].space == naga::AddressSpace::Private
    };
    (super::called(module, [h]))
        .flat_map(|h| {
            let f = &module.functions[h];
            (f.expressions.iter())
                .filter_map(|(_, e)| match *e {
                    E::Load { pointer } => crate::shader::root_global(f, pointer),
                    _ => None,
                })
                .filter(|&g| private(g))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What a function's local variables (or members of them) may depend on.
type Locals = HashMap<(Var, Option<u32>), u8>;

/// What the private globals may hold while entry function `f` runs: what it and every function
/// it calls store into them, to a fixed point (naga's reading of SPIR-V, which keeps the inputs
/// and outputs in private globals and skins in a `main_1` the entry point calls).
fn private_stores(module: &Module, f: &naga::Function, s: &Sources) -> Locals {
    let called: Vec<&naga::Function> = super::called(module, super::calls(&f.body))
        .map(|h| &module.functions[h])
        .collect();
    let mut privates = Locals::new();
    if called.is_empty() {
        return privates;
    }
    for _ in 0..8 {
        let before = privates.clone();
        for g in std::iter::once(f).chain(called.iter().copied()) {
            let (_, locals) = trace(module, g, s, &before);
            for (key, m) in locals {
                if matches!(key.0, Var::Private(_)) {
                    *privates.entry(key).or_default() |= m;
                }
            }
        }
        if privates == before {
            break;
        }
    }
    privates
}

/// What local `l` (its `member`, or any of it) may depend on.
fn local(locals: &Locals, l: Var, member: Option<u32>) -> u8 {
    locals
        .iter()
        .filter(|((x, m), _)| *x == l && (member.is_none() || m.is_none() || *m == member))
        .fold(0, |a, (_, v)| a | v)
}

/// Whether each of `f`'s expressions may depend on the palette (its global, or its `member`).
pub(super) fn palette_masks(
    module: &Module,
    f: &naga::Function,
    (palette, member): (Handle<naga::GlobalVariable>, Option<u32>),
) -> Vec<bool> {
    let s = Sources {
        palette,
        member,
        normal: None,
        tangent: None,
        pulled: [None; 2],
    };
    let (mask, _) = trace(module, f, &s, &Locals::new());
    mask.into_iter().map(|m| m & PALETTE != 0).collect()
}

/// What each located output of entry point `ep` may depend on, and whether it is renormalised.
pub(super) fn outputs(module: &Module, ep: &naga::EntryPoint, s: &Sources) -> Vec<Output> {
    let f = &ep.function;
    let (mask, locals) = trace(module, f, s, &private_stores(module, f, s));
    let members = |ty: Handle<naga::Type>| match &module.types[ty].inner {
        TypeInner::Struct { members, .. } => Some(members.clone()),
        _ => None,
    };
    let Some(result) = &f.result else {
        return Vec::new();
    };
    let mut out: HashMap<u32, u8> = HashMap::new();
    let located: Vec<(usize, u32)> = match members(result.ty) {
        Some(ms) => (ms.iter().enumerate())
            .filter_map(|(k, m)| match m.binding {
                Some(Binding::Location { location, .. }) => Some((k, location)),
                _ => None,
            })
            .collect(),
        None => match result.binding {
            Some(Binding::Location { location, .. }) => vec![(0, location)],
            _ => Vec::new(),
        },
    };
    let all_stores = stores(module, f);
    // Each output's value expressions, where they show, for `unit`.
    let mut values: HashMap<u32, Vec<Handle<E>>> = HashMap::new();
    crate::shader::for_each_statement(&f.body, &mut |st| {
        let Statement::Return { value: Some(v) } = st else {
            return;
        };
        for &(k, location) in &located {
            let (m, vs) = match &f.expressions[*v] {
                E::Compose { components, .. } if members(result.ty).is_some() => (
                    components.get(k).map_or(0, |c| mask[c.index()]),
                    components.get(k).copied().into_iter().collect(),
                ),
                E::Load { pointer } if members(result.ty).is_some() => {
                    match local_root(module, f, *pointer) {
                        Some((l, None)) => {
                            let key = |m| all_stores.get(&(l, m)).map_or(&[][..], |v| &v[..]);
                            // A member's stores, and member k of each whole store composed.
                            let whole = key(None).iter().map(|&x| match &f.expressions[x] {
                                E::Compose { components, .. } => {
                                    components.get(k).copied().unwrap_or(x)
                                }
                                _ => x,
                            });
                            let vs = key(Some(k as u32)).iter().copied().chain(whole).collect();
                            (local(&locals, l, Some(k as u32)), vs)
                        }
                        _ => (mask[v.index()], Vec::new()),
                    }
                }
                _ => (mask[v.index()], vec![*v]),
            };
            *out.entry(location).or_default() |= m;
            values.entry(location).or_default().extend(vs);
        }
    });
    let mut out: Vec<Output> = (out.into_iter())
        .map(|(location, depends)| {
            let vs = values.get(&location).map_or(&[][..], |v| &v[..]);
            let unit = !vs.is_empty()
                && (vs.iter()).all(|v| unit_in(module, f, &all_stores, *v, 4, &mut Vec::new()));
            Output {
                location,
                depends,
                unit,
            }
        })
        .collect();
    out.sort_unstable_by_key(|o| o.location);
    out
}

/// Whether a function of the module multiplies a stored `vec4<f32>` position whole, as a point
/// (three-rs's `matrix * v.position`), rather than composing its own w: the position a global
/// named as positions holds as its elements, or a member named as the position of its elements'
/// struct. Only then does the engine store points with w 1 (`position_w: 1`).
pub(super) fn multiplies_stored_w(module: &Module) -> bool {
    let sources = position_sources(module);
    let functions = (module.functions.iter().map(|(h, f)| (Some(h), f)))
        .chain(module.entry_points.iter().map(|e| (None, &e.function)));
    !sources.is_empty()
        && functions.into_iter().any(|(h, f)| {
            let stores = stores(module, f);
            f.expressions.iter().any(|(_, e)| match *e {
                E::Binary {
                    op: naga::BinaryOperator::Multiply,
                    left,
                    right,
                } => [left, right].iter().any(|&o| {
                    (sources.iter()).any(|s| passed_position(module, (h, f), &stores, o, *s, 4))
                }),
                _ => false,
            })
        })
}

/// [`stored_position`], or an argument of function `h` that each of its callers passes one
/// (webgpu-learning's `calculateWorldPos(vertexIndex, positions[vertexIndex])`).
fn passed_position(
    module: &Module,
    (h, f): (Option<Handle<naga::Function>>, &naga::Function),
    stores: &Stores,
    e: Handle<E>,
    source: (Handle<naga::GlobalVariable>, Option<u32>),
    depth: u8,
) -> bool {
    let (E::FunctionArgument(k), Some(h)) = (&f.expressions[e], h) else {
        return stored_position(module, f, stores, e, source, depth);
    };
    if depth == 0 {
        return false;
    }
    let callers = (module.functions.iter().map(|(c, f)| (Some(c), f)))
        .chain(module.entry_points.iter().map(|e| (None, &e.function)));
    let mut passed = Vec::new();
    for (c, caller) in callers {
        crate::shader::for_each_statement(&caller.body, &mut |st| {
            if let Statement::Call {
                function,
                arguments,
                ..
            } = st
            {
                if *function == h {
                    passed.extend(arguments.get(*k as usize).map(|&a| (c, caller, a)));
                }
            }
        });
    }
    !passed.is_empty()
        && passed.iter().all(|&(c, caller, a)| {
            let held = self::stores(module, caller);
            passed_position(module, (c, caller), &held, a, source, depth - 1)
        })
}

/// The stored `vec4<f32>` positions of the module, (global, member of its element): a storage
/// global named as positions with them as its elements, or a member named as the position of its
/// elements' struct.
fn position_sources(module: &Module) -> Vec<(Handle<naga::GlobalVariable>, Option<u32>)> {
    let vec4 = |ty: Handle<naga::Type>| matches!(module.types[ty].inner, TypeInner::Vector { size: naga::VectorSize::Quad, scalar } if scalar == naga::Scalar::F32);
    let named_pos = |n: &Option<String>| {
        n.as_deref()
            .is_some_and(|n| super::read::named(n, &["pos"]))
    };
    // (global, member of its element) of each stored position.
    let mut sources = Vec::new();
    for (h, g) in module.global_variables.iter() {
        if !matches!(g.space, naga::AddressSpace::Storage { .. }) {
            continue;
        }
        let ty = crate::contract::unwrapped(&module.types, g.ty);
        let TypeInner::Array { base, .. } = module.types[ty].inner else {
            continue;
        };
        match &module.types[base].inner {
            _ if vec4(base) && named_pos(&g.name) => sources.push((h, None)),
            TypeInner::Struct { members, .. } => {
                if let Some(k) = members
                    .iter()
                    .position(|m| vec4(m.ty) && named_pos(&m.name))
                {
                    sources.push((h, Some(k as u32)));
                }
            }
            _ => {}
        }
    }
    sources
}

/// Whether `e` is a stored position of `source` (global, member), whole: its element loaded, or
/// its member of a loaded element, or a local variable holding one.
fn stored_position(
    module: &Module,
    f: &naga::Function,
    stores: &Stores,
    e: Handle<E>,
    source: (Handle<naga::GlobalVariable>, Option<u32>),
    depth: u8,
) -> bool {
    let element = |p: Handle<E>| {
        matches!(f.expressions[p], E::Access { base, .. } | E::AccessIndex { base, .. }
            if matches!(f.expressions[base], E::GlobalVariable(g) if g == source.0))
    };
    match (f.expressions[e].clone(), source.1) {
        (E::Load { pointer }, None) if element(pointer) => true,
        (E::Load { pointer }, Some(m)) if matches!(f.expressions[pointer], E::AccessIndex { base, index } if index == m && element(base)) => {
            true
        }
        // A local variable holding one.
        (E::Load { pointer }, _) => match local_root(module, f, pointer) {
            Some((l, k)) if depth > 0 => stored(stores, l, k)
                .iter()
                .any(|&v| stored_position(module, f, stores, v, source, depth - 1)),
            _ => false,
        },
        // A member of a whole element loaded (`let v = vertices[i]; v.position`).
        (E::AccessIndex { base, index }, Some(m)) if index == m => {
            matches!(f.expressions[base], E::Load { pointer } if element(pointer))
        }
        _ => false,
    }
}

/// Whether every store of a whole element into `global` (`skinned[i] = ...`), in any function,
/// is a point of w 1: a vector composed with a last component of 1.0 (`vec4(p.xyz, 1.0)`), or a
/// product whose right side is one, or a stored position of w 1 (`position_w: 1`, an affine blend
/// keeping it: `mat * pos_rests[i]`); false where there is none.
pub(super) fn stores_point_w(module: &Module, global: Handle<naga::GlobalVariable>) -> bool {
    let one = |f: &naga::Function, e: Handle<E>| match &f.expressions[e] {
        E::Literal(naga::Literal::F32(x)) => *x == 1.0,
        E::Literal(naga::Literal::AbstractFloat(x)) => *x == 1.0,
        _ => false,
    };
    let sources = position_sources(module);
    let mut stores = 0;
    let mut points = 0;
    for f in crate::shader::all_functions(module) {
        let held = self::stores(module, f);
        // A stored position multiplied whole: its w, 1 (`position_w: 1`), carried through.
        let source =
            |e: Handle<E>| (sources.iter()).any(|s| stored_position(module, f, &held, e, *s, 4));
        crate::shader::for_each_statement(&f.body, &mut |st| {
            let Statement::Store { pointer, value } = *st else {
                return;
            };
            // An element of the global, or of its struct's array (naga's `block.member[i]`).
            let element = matches!(
                f.expressions[pointer],
                E::Access { .. } | E::AccessIndex { .. }
            ) && crate::shader::root_global(f, pointer) == Some(global);
            if !element {
                return;
            }
            stores += 1;
            // `vec4(p, 1.0)`, or a matrix times one (an affine blend keeps its w 1).
            let composed = |e: Handle<E>| {
                matches!(&f.expressions[e], E::Compose { components, .. }
                    if components.last().is_some_and(|&c| one(f, c)))
            };
            let point = composed(value)
                || matches!(f.expressions[value], E::Binary { op: naga::BinaryOperator::Multiply, right, .. }
                    if composed(right) || source(right));
            if point {
                points += 1;
            }
        });
    }
    stores > 0 && points == stores
}

/// What entry point `ep` writes into its clip position itself, after the camera.
#[derive(Default)]
pub(super) struct ClipWrites {
    /// Its y negated (`gl_Position.y = -gl_Position.y`, as naga writes a stage read from SPIR-V
    /// made for Vulkan).
    pub(super) y_negated: bool,
    /// Its z (`out.pos.z = clamp(out.pos.z, 0.0, out.pos.w)`, a shadow pass's clamp to the near
    /// plane; a logarithmic depth).
    pub(super) z: bool,
    /// A position's y negated in place before the camera (`locPos.y = -locPos.y`, a world
    /// position's).
    pub(super) y_negated_before: bool,
}

/// Whether `value`, stored into lane y of `root` (a whole float `vec3` or `vec4` variable that
/// holds a position a matrix moved, `p = m * vec4(..)`: not a source position flipped before
/// skinning), negates that same lane (`v.y = -v.y`).
fn flips_own_y(
    module: &Module,
    f: &naga::Function,
    root: Option<(Var, Option<u32>)>,
    value: Handle<E>,
) -> bool {
    let Some((var, None)) = root else {
        return false;
    };
    let ty = match var {
        Var::Local(l) => f.local_variables[l].ty,
        Var::Private(g) => module.global_variables[g].ty,
    };
    let position = matches!(module.types[ty].inner, TypeInner::Vector { size: naga::VectorSize::Tri | naga::VectorSize::Quad, scalar } if scalar.kind == naga::ScalarKind::Float);
    let E::Unary {
        op: naga::UnaryOperator::Negate,
        expr,
    } = f.expressions[value]
    else {
        return false;
    };
    // `-v.y`, read as a load of the lane or a lane of a load.
    let read = match f.expressions[expr] {
        E::Load { pointer } => match f.expressions[pointer] {
            E::AccessIndex { base, index: 1 } => local_root(module, f, base),
            _ => None,
        },
        E::AccessIndex { base, index: 1 } => match f.expressions[base] {
            E::Load { pointer } => local_root(module, f, pointer),
            _ => None,
        },
        _ => None,
    };
    // Stored whole from a product (naga's reading of GLSL keeps `locPos = m * v` so).
    let mut moved = false;
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let Statement::Store { pointer, value } = *st {
            moved |= local_root(module, f, pointer) == Some((var, None))
                && matches!(
                    f.expressions[value],
                    E::Binary {
                        op: naga::BinaryOperator::Multiply,
                        ..
                    }
                );
        }
    });
    position && moved && read == root
}

/// What entry point `ep` writes into lanes of the `@builtin(position)` it returns, or of a
/// variable it then returns there whole (`clip.z = log_depth(clip.w)`; `out.position = clip`),
/// or of a private global it returns there that a function it calls writes (naga's `main_1`);
/// and whether a function negates a moved position's y before the camera.
pub(super) fn clip_writes(module: &Module, ep: &naga::EntryPoint) -> ClipWrites {
    let f = &ep.function;
    let mut found = ClipWrites::default();
    let Some(member) = position_member(module, ep) else {
        return found;
    };
    let loaded = |e: Handle<E>| match f.expressions[e] {
        E::Load { pointer } => local_root(module, f, pointer),
        _ => None,
    };
    // The variables (or members of one) the clip position is returned from.
    let mut holders: Vec<(Var, Option<u32>)> = Vec::new();
    crate::shader::for_each_statement(&f.body, &mut |st| {
        let Statement::Return { value: Some(v) } = st else {
            return;
        };
        let held = match (&f.expressions[*v], member) {
            (E::Compose { components, .. }, Some(k)) => {
                components.get(k as usize).and_then(|c| loaded(*c))
            }
            (_, Some(k)) => loaded(*v).filter(|h| h.1.is_none()).map(|h| (h.0, Some(k))),
            (_, None) => loaded(*v),
        };
        holders.extend(held);
    });
    // A variable stored whole into a holder holds it too (`out.position = clip`).
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let Statement::Store { pointer, value } = st {
            let into = local_root(module, f, *pointer);
            if into.is_some_and(|i| holders.contains(&i)) {
                holders.extend(loaded(*value).filter(|h| h.1.is_none()));
            }
        }
    });
    // The variables the clip position is computed from, by function: a flip before the camera
    // is one of theirs (not a normal's).
    let mut read: Vec<(usize, Var)> = Vec::new();
    clip_walk(module, ep, &mut |i, g, e| {
        if let E::Load { pointer } = g.expressions[e] {
            read.extend(local_root(module, g, pointer).map(|(v, _)| (i, v)));
        }
    });
    // The entry point's own lanes of what it returns; in every function it calls, a private
    // holder's (naga's reading of SPIR-V keeps `gl_Position` in a private global, written in
    // `main_1`) and, before the camera, a position's y negated in place.
    for (i, g) in super::reachable(module, &[ep]).enumerate() {
        // Another function's locals are its own: only private holders cross, with the locals it
        // stores whole into one (`gl_Position = pos`).
        let mut own: Vec<(Var, Option<u32>)> = (holders.iter().copied())
            .filter(|h| i == 0 || matches!(h.0, Var::Private(_)))
            .collect();
        // Until none is added: `q = p; clip = q` holds `p` too.
        let mut grown = i > 0;
        while grown {
            let before = own.len();
            crate::shader::for_each_statement(&g.body, &mut |st| {
                if let Statement::Store { pointer, value } = st {
                    if local_root(module, g, *pointer).is_some_and(|h| own.contains(&h)) {
                        let whole = match g.expressions[*value] {
                            E::Load { pointer } => local_root(module, g, pointer),
                            _ => None,
                        };
                        if let Some(h) = whole.filter(|h| h.1.is_none() && !own.contains(h)) {
                            own.push(h);
                        }
                    }
                }
            });
            grown = own.len() > before;
        }
        crate::shader::for_each_statement(&g.body, &mut |st| {
            let Statement::Store { pointer, value } = st else {
                return;
            };
            let E::AccessIndex { base, index } = g.expressions[*pointer] else {
                return;
            };
            let root = local_root(module, g, base);
            let held = root.is_some_and(|h| own.contains(&h));
            let negated = matches!(
                g.expressions[*value],
                E::Unary {
                    op: naga::UnaryOperator::Negate,
                    ..
                }
            );
            match index {
                1 if held => found.y_negated |= negated,
                2 if held => found.z = true,
                1 => {
                    found.y_negated_before |= flips_own_y(module, g, root, *value)
                        && root.is_some_and(|(v, _)| {
                            // A private global is one variable across functions.
                            (read.iter())
                                .any(|&(j, w)| w == v && (j == i || matches!(v, Var::Private(_))))
                        })
                }
                _ => {}
            }
        });
    }
    found
}
