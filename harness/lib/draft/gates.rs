//! Which members of the buffers the harness fills switch the skinning on: a branch on a member
//! (or a lane of one) compared with a constant, the palette read on one side only
//! (dungeon-crawler's `if (uniforms.is_animated == u32(1))`), and the value that takes the side
//! that skins; which member a compute stage's guard bounds its invocations by, the vertex count;
//! and which vector members a direction or a matrix is rebuilt from, the identity's basis.

use naga::{BinaryOperator as B, Expression as E, Handle, Module, Statement};

/// A member that switches the skinning, and the value that takes the path reading the palette.
pub(super) struct Switch {
    pub(super) global: Handle<naga::GlobalVariable>,
    /// The member's dotted path in the global's struct (or its array's element struct).
    pub(super) path: String,
    pub(super) value: f64,
    /// Where the member is a vector and the test reads one lane of it (`flags.x`): that lane and
    /// the vector's lanes; the others are written 0.
    pub(super) lane: Option<(u32, u32)>,
    /// The test as it must hold for the skinning, for the draft's comment (`is_animated == 1`,
    /// negated where the shader skins when it fails); for a basis vector, the product that shows
    /// it (`to_world_x * n.x`).
    pub(super) test: String,
    /// Whether a basis vector ([`basis`]) rather than a switch.
    pub(super) basis: bool,
    /// The name of the `let` the tested member is read into, if any (`let bone_count =
    /// model.flags.z`): what the engine calls the value.
    pub(super) named: Option<String>,
    /// Whether the test is a least value (`count > 2`): of several on one member, the greatest
    /// takes every path that skins (OpenSceneGraph's `nbBonesPerVertex > 0`, `> 2`, ... `> 6`,
    /// one attribute of two influences each).
    pub(super) at_least: bool,
}

impl Switch {
    /// The member as the profile names it, a lane after its vector (`flags.z`).
    pub(super) fn read_path(&self) -> String {
        lane_path(&self.path, self.lane)
    }

    /// The member's value as the profile's `members` take it: `1`, or `[1, 0, 0, 0]` for a lane.
    pub(super) fn yaml_value(&self) -> String {
        match self.lane {
            None => self.value.to_string(),
            Some((k, n)) => {
                let lanes: Vec<String> = (0..n)
                    .map(|i| {
                        if i == k {
                            self.value.to_string()
                        } else {
                            "0".into()
                        }
                    })
                    .collect();
                format!("[{}]", lanes.join(", "))
            }
        }
    }
}

/// Every switch of the skinning the module's branches show, first found first, one per member:
/// `member` is the palette's member index in its global's struct, if it is one.
pub(super) fn switches(
    module: &Module,
    palette: Handle<naga::GlobalVariable>,
    member: Option<u32>,
) -> Vec<Switch> {
    let reading = super::flow::reading_palette(module, palette, member);
    let mut out: Vec<Switch> = Vec::new();
    for f in crate::shader::all_functions(module) {
        let reads = |st: &Statement| {
            let mut found = false;
            crate::shader::for_each_nested(st, &mut |s| match s {
                Statement::Emit(range) => {
                    found |= range.clone().any(|e| {
                        super::flow::reads_palette(module, f, &f.expressions[e], (palette, member))
                    })
                }
                Statement::Call { function, .. } => found |= reading.contains(function),
                _ => {}
            });
            found
        };
        // `select(unskinned, skinned, test)`: the test must hold where only the accepted value
        // may depend on the palette, and fail where only the rejected one does.
        let mut masks = None;
        for (_, e) in f.expressions.iter() {
            let E::Select {
                condition,
                accept,
                reject,
            } = *e
            else {
                continue;
            };
            let m = masks
                .get_or_insert_with(|| super::flow::palette_masks(module, f, (palette, member)));
            if m[accept.index()] == m[reject.index()] {
                continue;
            }
            for s in tested(module, f, condition, m[accept.index()]) {
                push_new(&mut out, s);
            }
        }
        let block_reads = |b: &naga::Block| b.iter().any(&reads);
        let returns = |b: &naga::Block| b.iter().any(|s| matches!(s, Statement::Return { .. }));
        visit_blocks(&f.body, &mut |block| {
            let statements: Vec<&Statement> = block.iter().collect();
            for (i, st) in statements.iter().enumerate() {
                let Statement::If {
                    condition,
                    accept,
                    reject,
                } = st
                else {
                    continue;
                };
                let after = statements[i + 1..].iter().any(|s| reads(s));
                // Whether the test must hold to skin: the palette read on the accepting side
                // only, or after a rejecting side that returns early without it.
                let want = match (block_reads(accept), block_reads(reject)) {
                    (true, false) => true,
                    (false, true) => false,
                    (false, false) if returns(accept) && !returns(reject) && after => false,
                    _ => continue,
                };
                for s in tested(module, f, *condition, want) {
                    push_new(&mut out, s);
                }
            }
        });
    }
    out
}

/// `s`, unless a switch of the same member is already in `out` (one per member, first found);
/// where both are least values, the greater.
fn push_new(out: &mut Vec<Switch>, s: Switch) {
    match (out.iter_mut()).find(|o| (o.global, &o.path) == (s.global, &s.path)) {
        Some(o) if o.lane == s.lane && o.at_least && s.at_least && s.value > o.value => *o = s,
        Some(_) => {}
        None => out.push(s),
    }
}

/// Vector members of filled buffers that a direction or a matrix is rebuilt from, each its basis
/// vector k: scaled by lane k of a vector (dead-signal's `to_world_x.xyz * n.x + to_world_y.xyz *
/// n.y + ...`), dotted with one into lane k of a composed vector (the rows of a normal matrix
/// kept as three vec4s, as uniform alignment makes engines keep a mat3x3), or column k of a
/// composed matrix (an instance's model matrix kept as four vec4s). The identity's: lane k 1, the
/// others 0, where a zero fill would collapse the direction.
pub(super) fn basis(module: &Module) -> Vec<Switch> {
    let mut out: Vec<Switch> = Vec::new();
    let axes = ["x", "y", "z", "w"];
    for f in crate::shader::all_functions(module) {
        // A vector member, read whole or swizzled: loaded through its pointer, or a member of a
        // loaded struct (`let instance = instances[i]; instance.m_1`).
        let member = |mut e: Handle<E>| {
            while let E::Swizzle { vector, .. } = f.expressions[e] {
                e = vector;
            }
            let (ty, (g, path, lane)) = match f.expressions[e] {
                E::Load { pointer } => (pointee(module, f, pointer)?, member_path(module, f, e)?),
                E::AccessIndex { base, index } => struct_value_member(module, f, base, index)?,
                _ => return None,
            };
            let naga::TypeInner::Vector { size, scalar } = module.types[ty].inner else {
                return None;
            };
            let whole = lane.is_none();
            (whole && scalar.kind == naga::ScalarKind::Float).then_some((g, path, size as u32))
        };
        // Lane k of a vector value (not a struct's member).
        let lane = |e: Handle<E>| match f.expressions[e] {
            E::AccessIndex { base, index } => match f.expressions[base] {
                E::Load { .. } | E::FunctionArgument(_) | E::CallResult(_) => None,
                _ => Some(index),
            },
            _ => None,
        };
        let mut found =
            |(g, path, n): (Handle<naga::GlobalVariable>, String, u32), k: u32, test: String| {
                if k < n && !out.iter().any(|o| (o.global, &o.path) == (g, &path)) {
                    out.push(Switch {
                        global: g,
                        path,
                        value: 1.0,
                        lane: Some((k, n)),
                        test,
                        basis: true,
                        named: None,
                        at_least: false,
                    });
                }
            };
        for (_, e) in f.expressions.iter() {
            match *e {
                E::Binary {
                    op: B::Multiply,
                    left,
                    right,
                } => {
                    for (v, s) in [(left, right), (right, left)] {
                        if let (Some(m), Some(k)) = (member(v), lane(s)) {
                            let test = format!("{} * v.{}", m.1, axes[k as usize % 4]);
                            found(m, k, test);
                        }
                    }
                }
                // A matrix composed from vector members, column k the basis vector k (an
                // instance's model matrix kept as four vec4s).
                E::Compose { ty, ref components }
                    if matches!(module.types[ty].inner, naga::TypeInner::Matrix { .. }) =>
                {
                    for (k, &c) in components.iter().enumerate() {
                        if let Some(m) = member(c) {
                            let test = format!("{} as column {k} of a matrix", m.1);
                            found(m, k as u32, test);
                        }
                    }
                }
                E::Compose { ref components, .. } => {
                    for (k, &c) in components.iter().enumerate() {
                        let E::Math {
                            fun: naga::MathFunction::Dot,
                            arg,
                            arg1: Some(arg1),
                            ..
                        } = f.expressions[c]
                        else {
                            continue;
                        };
                        if let Some(m) = member(arg).or_else(|| member(arg1)) {
                            let test = format!("dot({}, v) in lane {}", m.1, axes[k % 4]);
                            found(m, k as u32, test);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Calls `visit` with `block` and every block nested in it.
fn visit_blocks(block: &naga::Block, visit: &mut impl FnMut(&naga::Block)) {
    visit(block);
    for s in block.iter() {
        match s {
            Statement::Block(b) => visit_blocks(b, visit),
            Statement::If { accept, reject, .. } => {
                visit_blocks(accept, visit);
                visit_blocks(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                cases.iter().for_each(|c| visit_blocks(&c.body, visit))
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                visit_blocks(body, visit);
                visit_blocks(continuing, visit);
            }
            _ => {}
        }
    }
}

/// The switches a condition tests that must each come out `want`: both sides of `a && b` that
/// must hold (`model.isSkinned > 0.5 && wSum > 0.001`), of `a || b` that must fail, the negated
/// test of `!a`, or the one test [`switch`] reads.
fn tested(module: &Module, f: &naga::Function, condition: Handle<E>, want: bool) -> Vec<Switch> {
    match f.expressions[condition] {
        E::Binary {
            op: B::LogicalAnd,
            left,
            right,
        } if want => [left, right]
            .iter()
            .flat_map(|&side| tested(module, f, side, true))
            .collect(),
        E::Binary {
            op: B::LogicalOr,
            left,
            right,
        } if !want => [left, right]
            .iter()
            .flat_map(|&side| tested(module, f, side, false))
            .collect(),
        E::Unary {
            op: naga::UnaryOperator::LogicalNot,
            expr,
        } => tested(module, f, expr, !want),
        // `a && b` must hold with both sides holding, `a || b` fail with both failing; the
        // first side's test is the branch's condition, or its negation.
        E::Load { pointer } => match short_circuit(f, pointer) {
            Some(s) if s.and == want => {
                let mut out = tested(module, f, s.first, want != s.negated);
                out.extend(tested(module, f, s.second, want));
                out
            }
            _ => Vec::new(),
        },
        _ => switch(module, f, condition, want).into_iter().collect(),
    }
}

/// `a && b` or `a || b` as naga's WGSL front end lowers it.
struct ShortCircuit {
    /// The first side: the branch's condition, or its negation where `negated`.
    first: Handle<E>,
    negated: bool,
    second: Handle<E>,
    /// `&&` rather than `||`.
    and: bool,
}

/// The two sides of the `a && b` (true) or `a || b` (false) that naga's WGSL front end lowers
/// into local variable `pointer`: `if (c) { t = b; } else { t = false; }` is `c && b`, `if (c)
/// { t = b; } else { t = true; }` is `!c || b` (the first side the condition, and whether it is
/// negated), and so on for the literal on the other side.
fn short_circuit(f: &naga::Function, pointer: Handle<E>) -> Option<ShortCircuit> {
    let E::LocalVariable(local) = f.expressions[pointer] else {
        return None;
    };
    // naga's own temporary, unnamed: a variable of the shader's may be stored anywhere.
    if f.local_variables[local].name.is_some() {
        return None;
    }
    let stored = |block: &naga::Block| {
        block.iter().find_map(|s| match *s {
            Statement::Store { pointer, value } => {
                matches!(f.expressions[pointer], E::LocalVariable(l) if l == local).then_some(value)
            }
            _ => None,
        })
    };
    let literal = |e: Handle<E>| match f.expressions[e] {
        E::Literal(naga::Literal::Bool(b)) => Some(b),
        _ => None,
    };
    let mut found = None;
    visit_blocks(&f.body, &mut |block| {
        for st in block.iter() {
            let Statement::If {
                condition,
                accept,
                reject,
            } = st
            else {
                continue;
            };
            let (Some(yes), Some(no)) = (stored(accept), stored(reject)) else {
                continue;
            };
            // A branch on the variable itself is no lowering of it.
            let own =
                |e: Handle<E>| matches!(f.expressions[e], E::Load { pointer: p } if p == pointer);
            if own(*condition) || own(yes) || own(no) {
                continue;
            }
            let side = |negated: bool, second: Handle<E>, and: bool| ShortCircuit {
                first: *condition,
                negated,
                second,
                and,
            };
            if found.is_some() {
                continue;
            }
            found = match (literal(yes), literal(no)) {
                (None, Some(false)) => Some(side(false, yes, true)),
                (None, Some(true)) => Some(side(true, yes, false)),
                (Some(true), None) => Some(side(false, no, false)),
                (Some(false), None) => Some(side(true, no, true)),
                _ => None,
            };
        }
    });
    found
}

/// The switch a condition tests, and the value that makes it `want`: a member compared with a
/// constant (`==`, `!=`, `>`, `>=`, or `<`, `<=` that must fail), or its bits under a mask compared with 0 or the mask
/// (`(flags & 4u) != 0u`).
fn switch(module: &Module, f: &naga::Function, condition: Handle<E>, want: bool) -> Option<Switch> {
    let (op, side, c, flipped) = match f.expressions[condition] {
        // `bool(member)`: the member compared with 0.
        E::As {
            expr,
            kind: naga::ScalarKind::Bool,
            ..
        } => (B::NotEqual, expr, 0.0, false),
        E::Binary { op, left, right } => match (
            super::read::number(module, f, left),
            super::read::number(module, f, right),
        ) {
            (None, Some(c)) => (op, left, c, false),
            (Some(c), None) => (op, right, c, true),
            _ => return None,
        },
        _ => return None,
    };
    // `c op member` reads as `member op' c`.
    let op = match (op, flipped) {
        (B::Greater, true) => B::Less,
        (B::GreaterEqual, true) => B::LessEqual,
        (B::Less, true) => B::Greater,
        (B::LessEqual, true) => B::GreaterEqual,
        (op, _) => op,
    };
    let (member, mask) = match f.expressions[side] {
        E::Binary {
            op: B::And,
            left,
            right,
        } => match (
            super::read::number(module, f, left),
            super::read::number(module, f, right),
        ) {
            (None, Some(m)) => (left, Some(m)),
            (Some(m), None) => (right, Some(m)),
            _ => return None,
        },
        _ => (side, None),
    };
    let (global, path, lane) = member_path(module, f, member)?;
    let value = match (mask, op, want) {
        // Bits under a mask: all of them set, or none.
        (Some(m), B::NotEqual, true) | (Some(m), B::Equal, false) if c == 0.0 => m,
        (Some(m), B::Equal, true) if c == m => m,
        (Some(_), ..) => return None,
        (None, B::Equal, true) | (None, B::NotEqual, false) => c,
        (None, B::Equal, false) | (None, B::NotEqual, true) => {
            if c == 0.0 {
                1.0
            } else {
                0.0
            }
        }
        (None, B::Greater, true) | (None, B::LessEqual, false) => c.floor() + 1.0,
        (None, B::GreaterEqual, true) | (None, B::Less, false) => c.ceil().max(1.0),
        _ => return None,
    };
    // The test as it must come out for the skinning: negated where it must fail.
    let op = match (op, want) {
        (op, true) => op,
        (B::Equal, false) => B::NotEqual,
        (B::NotEqual, false) => B::Equal,
        (B::Greater, false) => B::LessEqual,
        (B::GreaterEqual, false) => B::Less,
        (B::Less, false) => B::GreaterEqual,
        (B::LessEqual, false) => B::Greater,
        _ => return None,
    };
    let symbol = match op {
        B::Equal => "==",
        B::NotEqual => "!=",
        B::Greater => ">",
        B::GreaterEqual => ">=",
        B::Less => "<",
        B::LessEqual => "<=",
        _ => return None,
    };
    let lanes = ["x", "y", "z", "w"];
    let read = match lane {
        Some((k, _)) => format!("{path}.{}", lanes[k as usize % 4]),
        None => path.clone(),
    };
    let tested = match mask {
        Some(m) => format!("({read} & {m})"),
        None => read,
    };
    Some(Switch {
        global,
        test: format!("{tested} {symbol} {c}"),
        path,
        value,
        lane,
        basis: false,
        named: f.named_expressions.get(&member).cloned(),
        at_least: matches!(op, B::Greater | B::GreaterEqual),
    })
}

/// The member a compute entry point bounds its invocations by, `if (i >= params.count) { return; }`
/// or `if (i < params.count) { ... }` around the work (the invocation index a lane of its
/// `global_invocation_id`, or that converted; the member of a uniform or read-only buffer or of the
/// immediate data, or a lane of one, `sp.p.y`): the vertex count, found by what the stage does with it rather than by
/// its name.
pub(super) fn count_bound(module: &Module, ep: &naga::EntryPoint) -> Option<Bound> {
    let id = |f: &naga::Function, e: Handle<E>| match f.expressions[e] {
        E::FunctionArgument(a) => matches!(
            f.arguments[a as usize].binding,
            Some(naga::Binding::BuiltIn(naga::BuiltIn::GlobalInvocationId))
        ),
        _ => false,
    };
    // The private globals the entry point keeps the invocation's id in, for the function it
    // calls (naga's reading of SPIR-V: `gl_GlobalInvocationID_1`, read in `main_1`).
    let mut held = Vec::new();
    crate::shader::for_each_statement(&ep.function.body, &mut |st| {
        if let Statement::Store { pointer, value } = *st {
            if let E::GlobalVariable(g) = ep.function.expressions[pointer] {
                if id(&ep.function, value) {
                    held.push(g);
                }
            }
        }
    });
    let mut found = None;
    for f in super::reachable(module, &[ep]) {
        if found.is_none() {
            found = bound_in(module, f, &|f, mut e| loop {
                match f.expressions[e] {
                    E::As { expr, .. } => e = expr,
                    E::AccessIndex { base, .. } => e = base,
                    E::Load { pointer } => e = pointer,
                    E::GlobalVariable(g) => break held.contains(&g),
                    _ => break id(f, e),
                }
            });
        }
    }
    found
}

/// The bound of [`count_bound`] in function `f`, where `invocation` tells the invocation's index.
fn bound_in(
    module: &Module,
    f: &naga::Function,
    invocation: &dyn Fn(&naga::Function, Handle<E>) -> bool,
) -> Option<Bound> {
    let invocation = |e: Handle<E>| invocation(f, e);
    let mut found = None;
    visit_blocks(&f.body, &mut |block| {
        for st in block.iter() {
            let Statement::If {
                condition, accept, ..
            } = st
            else {
                continue;
            };
            let returns = accept.iter().any(|s| matches!(s, Statement::Return { .. }));
            let E::Binary { op, left, right } = f.expressions[*condition] else {
                continue;
            };
            if found.is_some() {
                continue;
            }
            // `i >= X` returning early, or `i < X` around the work.
            let bound = match op {
                B::GreaterEqual if returns && invocation(left) => right,
                B::LessEqual if returns && invocation(right) => left,
                B::Less if invocation(left) => right,
                B::Greater if invocation(right) => left,
                _ => continue,
            };
            found = match f.expressions[bound] {
                E::ArrayLength(_) => Some(Bound::ArrayLength),
                _ => (member_path(module, f, bound).map(Bound::Member))
                    .or_else(|| whole_integer(module, f, bound).map(Bound::Whole)),
            };
        }
    });
    found
}

/// The uniform global a loaded integer is the whole of (`var<uniform> num_verts: i32`), converted
/// or not.
fn whole_integer(
    module: &Module,
    f: &naga::Function,
    e: Handle<E>,
) -> Option<Handle<naga::GlobalVariable>> {
    match f.expressions[e] {
        E::As { expr, .. } => whole_integer(module, f, expr),
        // A uniform: `compute.count` binds one.
        E::Load { pointer } => match f.expressions[pointer] {
            E::GlobalVariable(g)
                if module.global_variables[g].space == naga::AddressSpace::Uniform =>
            {
                let ty = &module.types[module.global_variables[g].ty].inner;
                matches!(ty, naga::TypeInner::Scalar(s) if s.width == 4
                    && matches!(s.kind, naga::ScalarKind::Uint | naga::ScalarKind::Sint))
                .then_some(g)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether any function of the module reads member `path` of filled global `global` (through
/// its pointer, or from a loaded struct: `let ins = ins_data[i]; ins.bone_offset`).
pub(super) fn reads_member(
    module: &Module,
    global: Handle<naga::GlobalVariable>,
    path: &str,
) -> bool {
    crate::shader::all_functions(module).any(|f| {
        f.expressions.iter().any(|(h, _)| {
            member_path(module, f, h).is_some_and(|(g, p, _)| g == global && p == path)
        })
    })
}

/// What a compute stage's guard bounds its invocations by.
pub(super) enum Bound {
    /// A member of a filled buffer (or a lane of one).
    Member(MemberPath),
    /// A filled buffer that is one integer, the count itself.
    Whole(Handle<naga::GlobalVariable>),
    /// An input's `arrayLength`: the stage needs no count.
    ArrayLength,
}

/// A member's dotted `path` as the profile names it, the `lane` read of a vector member after it
/// (`flags.z`).
pub(super) fn lane_path(path: &str, lane: Option<(u32, u32)>) -> String {
    match lane {
        Some((k, _)) => format!("{path}.{}", ["x", "y", "z", "w"][k as usize % 4]),
        None => path.to_string(),
    }
}

/// A member path with the lane read of a vector member, if one is: (global, path, lane).
pub(super) type MemberPath = (Handle<naga::GlobalVariable>, String, Option<(u32, u32)>);

/// The uniform, read-only storage or immediate global a loaded scalar member belongs to, and its dotted
/// path (through struct members, and an array's element: element 0 is the drawn instance's), with
/// the lane where the scalar is one of a vector member's (`flags.x`).
fn member_path(module: &Module, f: &naga::Function, e: Handle<E>) -> Option<MemberPath> {
    member_path_within(module, f, e, 0)
}

/// [`member_path`], `depth` locals and conversions deep (a local stored from itself, `a = a`,
/// ends).
fn member_path_within(
    module: &Module,
    f: &naga::Function,
    e: Handle<E>,
    depth: u8,
) -> Option<MemberPath> {
    if depth > 8 {
        return None;
    }
    let mut lane = None;
    let mut e = match f.expressions[e] {
        // A local variable the function stores once, whole (naga's reading of SPIR-V keeps every
        // GLSL local so: `float enable = enables[gl_InstanceIndex];`).
        E::Load { pointer } if matches!(f.expressions[pointer], E::LocalVariable(_)) => {
            return member_path_within(module, f, stored_once(f, pointer)?, depth + 1);
        }
        E::Load { pointer } => pointer,
        E::As { expr, .. } => return member_path_within(module, f, expr, depth + 1),
        // A lane of a loaded vector member, or a member of a loaded struct (`let model =
        // models[instance_id]; model.flags.z`).
        E::AccessIndex { base, index } => {
            let Some(size) = vector_size(module, f, base) else {
                return struct_value_member(module, f, base, index).map(|(_, m)| m);
            };
            let (g, path, None) = member_path(module, f, base)? else {
                return None;
            };
            return Some((g, path, Some((index, size))));
        }
        _ => return None,
    };
    let mut names = Vec::new();
    loop {
        match f.expressions[e] {
            E::AccessIndex { base, index } => {
                let inner = pointee(module, f, base).map(|t| &module.types[t].inner);
                let array = matches!(inner, Some(naga::TypeInner::Array { .. }));
                // A lane of a vector member, read through its pointer.
                if let Some(&naga::TypeInner::Vector { size, .. }) = inner {
                    if names.is_empty() && lane.is_none() {
                        lane = Some((index, size as u32));
                        e = base;
                        continue;
                    }
                    return None;
                }
                match member_name(module, f, base, index) {
                    Some(name) => names.push(name),
                    // Element 0 of an array, the drawn object's, as a member path steps
                    // through it; another element is no member path.
                    None if array && index == 0 => {}
                    None => return None,
                }
                e = base;
            }
            E::Access { base, .. } => e = base,
            E::GlobalVariable(g) => {
                if !filled(module, g) || names.is_empty() {
                    return None;
                }
                names.reverse();
                return Some((g, names.join("."), lane));
            }
            _ => return None,
        }
    }
}

/// The one value local variable `pointer` takes, where the function stores it once, whole, and
/// never into a part of it.
fn stored_once(f: &naga::Function, pointer: Handle<E>) -> Option<Handle<E>> {
    let E::LocalVariable(local) = f.expressions[pointer] else {
        return None;
    };
    let mut values = Vec::new();
    let mut parts = false;
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let Statement::Store { pointer: p, value } = *st {
            let mut e = p;
            loop {
                match f.expressions[e] {
                    E::LocalVariable(l) if l == local => {
                        if e == p {
                            values.push(value);
                        } else {
                            parts = true;
                        }
                        break;
                    }
                    E::Access { base, .. } | E::AccessIndex { base, .. } => e = base,
                    _ => break,
                }
            }
        }
    });
    match (values.as_slice(), parts, f.local_variables[local].init) {
        (&[value], false, None) => Some(value),
        _ => None,
    }
}

/// Member `index` of the struct value `base` loads from a filled global (`let instance =
/// instances[i]; instance.m_1`): the member's type and its path.
fn struct_value_member(
    module: &Module,
    f: &naga::Function,
    base: Handle<E>,
    index: u32,
) -> Option<(Handle<naga::Type>, MemberPath)> {
    let E::Load { pointer } = f.expressions[base] else {
        return None;
    };
    let naga::TypeInner::Struct { ref members, .. } =
        module.types[pointee(module, f, pointer)?].inner
    else {
        return None;
    };
    let m = members.get(index as usize)?;
    let name = m.name.clone()?;
    // The struct's own path: empty for the global's struct (or its array's element).
    let (g, path) = match member_path(module, f, base) {
        Some((g, path, None)) => (g, format!("{path}.{name}")),
        Some(_) => return None,
        None => (root_global(module, f, pointer)?, name),
    };
    Some((m.ty, (g, path, None)))
}

/// The filled global (uniform, read-only storage or immediate data) a pointer points into, through its arrays'
/// elements only (element 0 is the drawn instance's).
fn root_global(
    module: &Module,
    f: &naga::Function,
    mut e: Handle<E>,
) -> Option<Handle<naga::GlobalVariable>> {
    loop {
        match f.expressions[e] {
            E::Access { base, .. } => e = base,
            E::AccessIndex { base, .. } => {
                let array = pointee(module, f, base).is_some_and(|t| {
                    matches!(module.types[t].inner, naga::TypeInner::Array { .. })
                });
                if !array {
                    return None;
                }
                e = base;
            }
            E::GlobalVariable(g) => return filled(module, g).then_some(g),
            _ => return None,
        }
    }
}

/// Whether global `g` is one the harness fills: a uniform, storage the shader only reads, or the
/// immediate data (push constants).
fn filled(module: &Module, g: Handle<naga::GlobalVariable>) -> bool {
    match module.global_variables[g].space {
        naga::AddressSpace::Uniform | naga::AddressSpace::Immediate => true,
        naga::AddressSpace::Storage { access } => !access.contains(naga::StorageAccess::STORE),
        _ => false,
    }
}

/// The lanes of the vector `e` loads from a member, if it loads one.
fn vector_size(module: &Module, f: &naga::Function, e: Handle<E>) -> Option<u32> {
    let ty = match f.expressions[e] {
        E::Load { pointer } => pointee(module, f, pointer)?,
        // A vector member of a loaded struct.
        E::AccessIndex { base, index } => struct_value_member(module, f, base, index)?.0,
        _ => return None,
    };
    match module.types[ty].inner {
        naga::TypeInner::Vector { size, .. } => Some(size as u32),
        _ => None,
    }
}

/// The name of member `index` of the struct `base` points to (or whose array `base` points into).
fn member_name(module: &Module, f: &naga::Function, base: Handle<E>, index: u32) -> Option<String> {
    let ty = pointee(module, f, base)?;
    match &module.types[ty].inner {
        naga::TypeInner::Struct { members, .. } => members.get(index as usize)?.name.clone(),
        _ => None,
    }
}

/// The type a pointer expression into a global points to, followed through members and elements.
fn pointee(module: &Module, f: &naga::Function, e: Handle<E>) -> Option<Handle<naga::Type>> {
    let element = |ty: Handle<naga::Type>| match module.types[ty].inner {
        naga::TypeInner::Array { base, .. } => Some(base),
        _ => None,
    };
    match f.expressions[e] {
        E::GlobalVariable(g) => Some(module.global_variables[g].ty),
        E::Access { base, .. } => element(pointee(module, f, base)?),
        E::AccessIndex { base, index } => {
            let ty = pointee(module, f, base)?;
            match &module.types[ty].inner {
                naga::TypeInner::Struct { members, .. } => Some(members.get(index as usize)?.ty),
                naga::TypeInner::Array { base, .. } => Some(*base),
                _ => None,
            }
        }
        _ => None,
    }
}
