//! Finds where a shader can be mutated: its contract bindings by role, the inputs of each skinning site, operands and literals, by naga's spans.

use super::*;
use crate::contract::{Contract, Role};
// The mutation kinds find their sites through it too.
pub(super) use crate::shader::root_global;

/// A function of the module: a helper or an entry point's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Func {
    Helper(Handle<Function>),
    Entry(usize),
}

/// Where a per-vertex input value (joints, weights) enters a skinning site, and how many
/// components the value has there (a vec4 in storage, the vec3 of a stage reading 3 influences).
pub(super) enum Source {
    /// A function parameter: rebound at the top of the body.
    Param {
        name: String,
        name_span: Range<usize>,
        body: usize,
        width: usize,
    },
    /// An expression (e.g. `weights[i]`): wrapped in place.
    Expr(Range<usize>, usize),
}

impl Source {
    /// The components of the value where it enters.
    pub(super) fn width(&self) -> usize {
        match *self {
            Source::Param { width, .. } | Source::Expr(_, width) => width,
        }
    }
}

/// The components of a value of type `inner`: a vector's size, 1 for a scalar, else 4.
fn width(inner: &TypeInner) -> usize {
    match *inner {
        TypeInner::Vector { size, .. } => size as usize,
        TypeInner::Scalar(_) => 1,
        _ => 4,
    }
}

/// The module with its source and contract, and what was found in it.
pub(super) struct Sites<'a> {
    pub(super) src: &'a str,
    pub(super) module: &'a Module,
    pub(super) contract: &'a Contract,
    /// Global variable per contract role.
    pub(super) globals: HashMap<Role, Handle<GlobalVariable>>,
    /// Roles of helper parameters, from the arguments their callers pass.
    /// With the influence set of a per-set input (joints, weights; 0 otherwise).
    pub(super) param_roles: HashMap<(Handle<Function>, usize), (Role, usize)>,
}

impl<'a> Sites<'a> {
    pub(super) fn new(src: &'a str, module: &'a Module, contract: &'a Contract) -> Self {
        // Every role at a variable's binding: two where the shader skins in place.
        let globals = (module.global_variables.iter())
            .flat_map(|(h, g)| {
                let at = g.binding.as_ref().map(|b| (b.group, b.binding));
                (contract.slots.iter())
                    .filter(move |s| Some((s.group, s.binding)) == at)
                    .map(move |s| (s.role, h))
            })
            .collect();
        let mut me = Sites {
            src,
            module,
            contract,
            globals,
            param_roles: HashMap::new(),
        };
        // A helper's parameter takes the role of what its callers pass. Repeated until nothing
        // changes, so that roles reach helpers called from helpers (skin(p, j, w) -> blend(j, w));
        // a call chain is at most as deep as there are functions. Only a vector parameter takes
        // it: a scalar one (`joint_matrix(j: u32)` called with `joints[k]`) holds one component,
        // which a swizzle of the whole input cannot be applied to.
        let is_vector = |f: Handle<Function>, i: usize| {
            module.functions[f]
                .arguments
                .get(i)
                .is_some_and(|a| matches!(module.types[a.ty].inner, TypeInner::Vector { .. }))
        };
        for _ in 0..=module.functions.len() {
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
                            if !is_vector(*function, i) {
                                continue;
                            }
                            if let Some(input) = me.input(f, arg) {
                                roles.insert((*function, i), input);
                            }
                        }
                    }
                });
            }
            if roles == me.param_roles {
                break;
            }
            me.param_roles = roles;
        }
        me
    }

    pub(super) fn funcs(&self) -> Vec<Func> {
        self.module
            .functions
            .iter()
            .map(|(h, _)| Func::Helper(h))
            .chain((0..self.module.entry_points.len()).map(Func::Entry))
            .collect()
    }

    pub(super) fn func(&self, f: Func) -> &'a Function {
        match f {
            Func::Helper(h) => &self.module.functions[h],
            Func::Entry(i) => &self.module.entry_points[i].function,
        }
    }

    pub(super) fn stage(&self, f: Func) -> Option<ShaderStage> {
        match f {
            Func::Helper(_) => None,
            Func::Entry(i) => Some(self.module.entry_points[i].stage),
        }
    }

    pub(super) fn span(&self, f: Func, e: Handle<Expression>) -> Option<Range<usize>> {
        self.func(f)
            .expressions
            .get_span(e)
            .to_range()
            .filter(|r| r.start < r.end && r.end <= self.src.len())
    }

    pub(super) fn text(&self, r: &Range<usize>) -> &'a str {
        &self.src[r.clone()]
    }

    /// The contract role a global variable is bound as, if any.
    pub(super) fn role_of(&self, g: Handle<GlobalVariable>) -> Option<Role> {
        let b = self.module.global_variables[g].binding.as_ref()?;
        Some(self.contract.slot_at(b.group, b.binding)?.role)
    }

    /// Whether buffer `g` is an array of 4-vectors, bare or as its struct's last member.
    fn vec4_elements(&self, g: Handle<GlobalVariable>) -> bool {
        let types = &self.module.types;
        let mut ty = self.module.global_variables[g].ty;
        if let TypeInner::Struct { members, .. } = &types[ty].inner {
            match members.last() {
                Some(m) => ty = m.ty,
                None => return false,
            }
        }
        matches!(types[ty].inner, TypeInner::Array { base, .. }
            if matches!(types[base].inner, TypeInner::Vector { size: naga::VectorSize::Quad, .. }))
    }

    /// The per-vertex input at a vertex-stage location, with its influence set.
    fn input_at(&self, binding: Option<&naga::Binding>) -> Option<(Role, usize)> {
        match binding {
            Some(naga::Binding::Location { location, .. }) => {
                let input = self.contract.input_at(*location)?;
                Some((input.role, input.set))
            }
            _ => None,
        }
    }

    /// Which per-vertex input (a role with a vertex input: positions, joints, weights) an
    /// expression in `f` is, if it is one.
    pub(super) fn role(&self, f: Func, e: Handle<Expression>) -> Option<Role> {
        self.input(f, e).map(|(role, _)| role)
    }

    /// Which per-vertex input an expression in `f` is, with its influence set (0 for a storage
    /// buffer, which holds every set).
    pub(super) fn input(&self, f: Func, e: Handle<Expression>) -> Option<(Role, usize)> {
        let func = self.func(f);
        let mut e = e;
        // The member taken last on the way, for a vertex input given as a struct (`v.position`).
        let mut member = None;
        loop {
            e = match func.expressions[e] {
                Expression::Load { pointer } => pointer,
                Expression::Access { base, .. } => base,
                Expression::AccessIndex { base, index } => {
                    member = Some(index);
                    base
                }
                Expression::Swizzle { vector, .. } => vector,
                Expression::GlobalVariable(g) => {
                    // A vertex input's role, or a compute-only stage's joints or weights held
                    // four to an element (`array<vec4<u32>>`, in SPIR-V's block struct too).
                    let per_vertex = |r: Role| {
                        self.contract.input(r).is_some()
                            || (matches!(r, Role::Joints | Role::Weights)
                                && self.contract.vertex_inputs.is_empty()
                                && self.vec4_elements(g))
                    };
                    return self.role_of(g).filter(|&r| per_vertex(r)).map(|r| (r, 0));
                }
                Expression::FunctionArgument(i) => {
                    let arg = func.arguments.get(i as usize)?;
                    // A member of a struct of located inputs: the entry point's, or a helper's
                    // that takes that struct whole (`get_position(in: VertexInput)`).
                    let located = |m: Option<u32>| match &self.module.types[arg.ty].inner {
                        TypeInner::Struct { members, .. } => {
                            self.input_at(members.get(m? as usize)?.binding.as_ref())
                        }
                        _ => None,
                    };
                    return match f {
                        Func::Helper(h) => (self.param_roles.get(&(h, i as usize)).copied())
                            .or_else(|| located(member)),
                        Func::Entry(_) => match &arg.binding {
                            Some(b) => self.input_at(Some(b)),
                            None => located(member),
                        },
                    };
                }
                _ => return None,
            };
        }
    }

    /// A read of a uniform struct member: (role, byte offset of the member, member index).
    pub(super) fn member_read(&self, f: Func, e: Handle<Expression>) -> Option<(Role, u32, u32)> {
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
        Some((self.role_of(g)?, members.get(index as usize)?.offset, index))
    }

    /// The name of the member at `offset` in the uniform struct bound as `role`.
    pub(super) fn member_name(&self, role: Role, offset: u32) -> Option<String> {
        let g = *self.globals.get(&role)?;
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

    /// Every read of uniform member (role, offset): (function, span).
    pub(super) fn member_reads(&self, role: Role, offset: u32) -> Vec<(Func, Range<usize>)> {
        let mut out = Vec::new();
        for f in self.funcs() {
            for (e, _) in self.func(f).expressions.iter() {
                if self
                    .member_read(f, e)
                    .is_some_and(|(r, o, _)| r == role && o == offset)
                {
                    if let Some(r) = self.span(f, e) {
                        out.push((f, r));
                    }
                }
            }
        }
        out
    }

    /// The (role, byte offset) of the struct member that `e` in `f` reads, directly or through a
    /// load, through nested structs (`params.vertices.end`), elements of arrays at a constant
    /// index (`params.regions[0].start`, the element a profile's member path reaches) and lanes of
    /// vectors, in any address space: where a filled binding's count member is read.
    pub(super) fn nested_member(&self, f: Func, e: Handle<Expression>) -> Option<(Role, u32)> {
        let exprs = &self.func(f).expressions;
        let mut e = match exprs[e] {
            Expression::Load { pointer } => pointer,
            _ => e,
        };
        let mut path = Vec::new();
        let g = loop {
            match exprs[e] {
                Expression::AccessIndex { base, index } => {
                    path.push(index);
                    e = base;
                }
                Expression::GlobalVariable(g) => break g,
                _ => return None,
            }
        };
        let (mut ty, mut offset) = (self.module.global_variables[g].ty, 0);
        path.reverse();
        for (step, &index) in path.iter().enumerate() {
            match self.module.types[ty].inner {
                TypeInner::Struct { ref members, .. } => {
                    let m = members.get(index as usize)?;
                    (ty, offset) = (m.ty, offset + m.offset);
                }
                TypeInner::Array { base, stride, .. } => {
                    (ty, offset) = (base, offset.checked_add(index.checked_mul(stride)?)?)
                }
                // A lane is a path's last step.
                TypeInner::Vector { scalar, .. } if step + 1 == path.len() => {
                    offset += index * u32::from(scalar.width);
                }
                _ => return None,
            }
        }
        Some((self.role_of(g)?, offset))
    }

    /// Whether `e` in `f` reads uniform member (role, offset), directly or through a load.
    pub(super) fn reads_member(
        &self,
        f: Func,
        e: Handle<Expression>,
        role: Role,
        offset: u32,
    ) -> bool {
        let exprs = &self.func(f).expressions;
        let e = match exprs[e] {
            Expression::Load { pointer } => pointer,
            _ => e,
        };
        self.member_read(f, e)
            .is_some_and(|(r, o, _)| r == role && o == offset)
    }

    /// The byte offset of field `name` of the uniform struct bound as `role`, as the contract
    /// lays it out.
    pub(super) fn field(&self, role: Role, name: &str) -> Option<u32> {
        self.contract.try_slot(role)?.ty.field(name)
    }

    /// The expressions of `f` that read one palette matrix: an index into the palette's array,
    /// bare or as its struct's member (the array a struct wraps alone, or the profile's
    /// `palette.member`).
    pub(super) fn palette_reads(&self, f: Func) -> Vec<Handle<Expression>> {
        let Some(&palette) = self.globals.get(&Role::Palette) else {
            return Vec::new();
        };
        // The member index of the array, where the palette's type is a struct.
        let member = match &self.module.types[self.module.global_variables[palette].ty].inner {
            TypeInner::Struct { members, .. } => {
                let name = self.contract.member(Role::Palette).map(|m| m.name.as_str());
                let k = match name {
                    Some(name) => members.iter().position(|m| m.name.as_deref() == Some(name)),
                    None => (members.len() == 1).then_some(0),
                };
                let Some(k) = k else {
                    return Vec::new();
                };
                Some(k as u32)
            }
            _ => None,
        };
        let exprs = &self.func(f).expressions;
        let is_array = |b: Handle<Expression>| match (member, &exprs[b]) {
            (None, Expression::GlobalVariable(g)) => *g == palette,
            (Some(k), Expression::AccessIndex { base, index }) => {
                *index == k && matches!(exprs[*base], Expression::GlobalVariable(g) if g == palette)
            }
            _ => false,
        };
        let elements: Vec<Handle<Expression>> = exprs
            .iter()
            .filter(|(_, e)| {
                matches!(e, Expression::Access { base, .. } | Expression::AccessIndex { base, .. } if is_array(*base))
            })
            .map(|(h, _)| h)
            .collect();
        // Struct elements: the member that holds each one's matrix.
        let Some(name) = self
            .contract
            .palette_element
            .member
            .as_ref()
            .map(|m| &m.name)
        else {
            return elements;
        };
        let element_ty = match &self.module.types[self.module.global_variables[palette].ty].inner {
            TypeInner::Array { base, .. } => Some(*base),
            TypeInner::Struct { members, .. } => (members.iter())
                .filter_map(|m| match self.module.types[m.ty].inner {
                    TypeInner::Array { base, .. } => Some(base),
                    _ => None,
                })
                .find(|b| matches!(self.module.types[*b].inner, TypeInner::Struct { .. })),
            _ => None,
        };
        let Some(TypeInner::Struct { members, .. }) =
            element_ty.map(|t| &self.module.types[t].inner)
        else {
            return Vec::new();
        };
        let Some(k) = members.iter().position(|m| m.name.as_ref() == Some(name)) else {
            return Vec::new();
        };
        exprs
            .iter()
            .filter(|(_, e)| {
                matches!(e, Expression::AccessIndex { base, index } if *index == k as u32 && elements.contains(base))
            })
            .map(|(h, _)| h)
            .collect()
    }

    /// Functions that index the palette themselves: where skinning happens.
    pub(super) fn skin_sites(&self) -> Vec<Func> {
        let Some(&palette) = self.globals.get(&Role::Palette) else {
            return Vec::new();
        };
        // A palette in a larger struct (beside a camera or a model matrix) counts only where
        // its array is indexed.
        if self.contract.member(Role::Palette).is_some() {
            let funcs = self.funcs().into_iter();
            return funcs
                .filter(|&f| !self.palette_reads(f).is_empty())
                .collect();
        }
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

    /// Where the blend reads its joints and weights: each skinning site that reads them, and in
    /// place of one that reads neither (a `joint_matrix(j: u32)` that only indexes the palette),
    /// the functions that call it, and so on up: where a swizzle of the whole input or the
    /// influence loop lies.
    pub(super) fn blend_sites(&self) -> Vec<Func> {
        let reads_influences = |f: Func| {
            self.func(f)
                .expressions
                .iter()
                .any(|(e, _)| matches!(self.role(f, e), Some(Role::Joints | Role::Weights)))
        };
        // Breadth first, in the order of the module, each function once.
        let mut out = Vec::new();
        let mut queue = self.skin_sites();
        let mut next = 0;
        while let Some(&f) = queue.get(next) {
            next += 1;
            match f {
                Func::Helper(h) if !reads_influences(f) => {
                    for caller in self.callers(h) {
                        if !queue.contains(&caller) {
                            queue.push(caller);
                        }
                    }
                }
                _ => out.push(f),
            }
        }
        out
    }

    /// The functions whose bodies call `h`.
    fn callers(&self, h: Handle<Function>) -> Vec<Func> {
        self.funcs()
            .into_iter()
            .filter(|&f| {
                let mut calls = false;
                for_each_statement(&self.func(f).body, &mut |s| {
                    calls |= matches!(s, Statement::Call { function, .. } if *function == h);
                });
                calls
            })
            .collect()
    }

    /// The skinning sites and the helpers that reach one through their calls (a `skin(p, j, w)`
    /// that calls a `blend(j, w)` that indexes the palette): where the position meets the blend.
    /// Entry points count when they index the palette themselves, or, where the numbers come
    /// through a copy of the vertex stage (no skinning function), when they call a path that
    /// returns a matrix (a `bone_matrix(j)` or a `blend(j, w)`): they then apply it to the
    /// position themselves.
    pub(super) fn skin_paths(&self) -> Vec<Func> {
        let mut paths = self.skin_sites();
        let c = self.contract;
        let captured = (c.compute.is_none() || c.captured) && c.skin_function.is_none();
        let returns_matrix = |h: Handle<Function>| {
            let result = self.module.functions[h].result.as_ref();
            result
                .is_some_and(|r| matches!(self.module.types[r.ty].inner, TypeInner::Matrix { .. }))
        };
        loop {
            let before = paths.len();
            for f in self.funcs() {
                if paths.contains(&f) {
                    continue;
                }
                let entry = !matches!(f, Func::Helper(_));
                if entry && (!captured || Some(f) != self.vertex()) {
                    continue;
                }
                let mut calls_path = false;
                for_each_statement(&self.func(f).body, &mut |s| {
                    if let Statement::Call { function, .. } = s {
                        calls_path |= paths.contains(&Func::Helper(*function))
                            && (!entry || returns_matrix(*function));
                    }
                });
                if calls_path {
                    paths.push(f);
                }
            }
            if paths.len() == before {
                return paths;
            }
        }
    }

    /// The contract's entry point `name`.
    fn entry(&self, name: &str) -> Option<Func> {
        let i = self
            .module
            .entry_points
            .iter()
            .position(|ep| ep.name == name)?;
        Some(Func::Entry(i))
    }

    pub(super) fn compute(&self) -> Option<Func> {
        self.entry(self.contract.compute.as_deref()?)
    }

    pub(super) fn vertex(&self) -> Option<Func> {
        self.entry(self.contract.vertex.as_deref()?)
    }

    /// The values `f` stores into the global with `role` (`skinned[i] = v` gives `v`).
    pub(super) fn stored_to(&self, f: Func, role: Role) -> Vec<Handle<Expression>> {
        let func = self.func(f);
        let mut stored = Vec::new();
        stores(&func.body, &mut stored);
        stored
            .into_iter()
            .filter(|&(pointer, _)| {
                root_global(func, pointer).and_then(|g| self.role_of(g)) == Some(role)
            })
            .map(|(_, value)| value)
            .collect()
    }

    /// Where the per-vertex input `role` enters each skinning site.
    pub(super) fn sources(&self, role: Role) -> Vec<Source> {
        self.sources_where(|(r, _)| r == role)
    }

    /// Where influence set `set` of the per-vertex input `role` enters each skinning site, where
    /// the set can be told (vertex attributes and the parameters they reach).
    pub(super) fn sources_of_set(&self, role: Role, set: usize) -> Vec<Source> {
        self.sources_where(|input| input == (role, set))
    }

    fn sources_where(&self, wanted: impl Fn((Role, usize)) -> bool) -> Vec<Source> {
        let mut out = Vec::new();
        for f in self.blend_sites() {
            let func = self.func(f);
            match f {
                Func::Helper(h) => {
                    for (i, _) in func.arguments.iter().enumerate() {
                        if self.param_roles.get(&(h, i)).is_some_and(|&r| wanted(r)) {
                            out.extend(self.param_source(f, i));
                        }
                    }
                    // A helper that loads the input buffers itself, as naga's reading of SPIR-V
                    // writes a compute stage's body (`main_1`, no parameters).
                    if func.arguments.is_empty() {
                        out.extend(self.whole_loads(f, &wanted));
                    }
                }
                Func::Entry(_) if self.stage(f) == Some(ShaderStage::Vertex) => {
                    for (i, a) in func.arguments.iter().enumerate() {
                        if self.input_at(a.binding.as_ref()).is_some_and(&wanted) {
                            out.extend(self.param_source(f, i));
                        }
                        // Inputs given as a struct (`input.joints`): each read of the member.
                        let TypeInner::Struct { members, .. } = &self.module.types[a.ty].inner
                        else {
                            continue;
                        };
                        for (e, expr) in func.expressions.iter() {
                            let Expression::AccessIndex { base, index } = *expr else {
                                continue;
                            };
                            let of_arg = matches!(func.expressions[base], Expression::FunctionArgument(k) if k as usize == i);
                            let member = members.get(index as usize);
                            if of_arg
                                && member.is_some_and(|m| {
                                    self.input_at(m.binding.as_ref()).is_some_and(&wanted)
                                })
                            {
                                let w = member.map_or(4, |m| width(&self.module.types[m.ty].inner));
                                out.extend(self.span(f, e).map(|r| Source::Expr(r, w)));
                            }
                        }
                    }
                }
                // An inlined compute path.
                Func::Entry(_) => out.extend(self.whole_loads(f, &wanted)),
            }
        }
        out
    }

    /// Each whole-element load of a wanted input buffer in `f` (`joints[i]`), to wrap.
    fn whole_loads(&self, f: Func, wanted: &impl Fn((Role, usize)) -> bool) -> Vec<Source> {
        let func = self.func(f);
        let mut out = Vec::new();
        for (e, expr) in func.expressions.iter() {
            if let Expression::Load { pointer } = *expr {
                // An element of the buffer, or of the array a struct wraps it in (SPIR-V's blocks,
                // `bone_weights.data[i]`).
                let global = |b: Handle<Expression>| match func.expressions[b] {
                    Expression::GlobalVariable(_) => true,
                    Expression::AccessIndex { base, .. } => {
                        matches!(func.expressions[base], Expression::GlobalVariable(_))
                    }
                    _ => false,
                };
                let whole = matches!(func.expressions[pointer], Expression::Access { base, .. } | Expression::AccessIndex { base, .. } if global(base));
                if whole && self.input(f, e).is_some_and(wanted) {
                    let w = self.loaded_width(func, pointer);
                    out.extend(self.span(f, e).map(|r| Source::Expr(r, w)));
                }
            }
        }
        out
    }

    pub(super) fn param_source(&self, f: Func, index: usize) -> Option<Source> {
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
            width: width(&self.module.types[func.arguments[index].ty].inner),
        })
    }

    /// The components of the element a pointer into a global's array (or into the array a
    /// struct wraps) points at; 4 where it cannot be told.
    fn loaded_width(&self, func: &Function, pointer: Handle<Expression>) -> usize {
        let types = &self.module.types;
        let element = |ty: Handle<naga::Type>| match types[ty].inner {
            TypeInner::Array { base, .. } => Some(width(&types[base].inner)),
            _ => None,
        };
        let of_global = |b: Handle<Expression>| -> Option<usize> {
            match func.expressions[b] {
                Expression::GlobalVariable(g) => element(self.module.global_variables[g].ty),
                Expression::AccessIndex { base, index } => match func.expressions[base] {
                    Expression::GlobalVariable(g) => {
                        match &types[self.module.global_variables[g].ty].inner {
                            TypeInner::Struct { members, .. } => {
                                element(members.get(index as usize)?.ty)
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                },
                _ => None,
            }
        };
        match func.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                of_global(base).unwrap_or(4)
            }
            _ => 4,
        }
    }

    /// Edits that replace every use of the sources' value `v` with `transform(v)`.
    pub(super) fn rebind(
        &self,
        sources: &[Source],
        transform: impl Fn(&str) -> String,
    ) -> Vec<Edit> {
        self.rebind_sized(sources, |v, _| transform(v))
    }

    /// Edits that replace every use of the sources' value `v` of `width` components with
    /// `transform(v, width)`.
    pub(super) fn rebind_sized(
        &self,
        sources: &[Source],
        transform: impl Fn(&str, usize) -> String,
    ) -> Vec<Edit> {
        let mut edits = Vec::new();
        for s in sources {
            match s {
                Source::Param {
                    name,
                    name_span,
                    body,
                    width,
                } => {
                    let renamed = format!("{name}_mutant");
                    edits.push(Edit {
                        range: name_span.clone(),
                        text: renamed.clone(),
                    });
                    edits.push(Edit {
                        range: *body..*body,
                        text: format!(" let {name} = {};", transform(&renamed, *width)),
                    });
                }
                Source::Expr(r, width) => edits.push(Edit {
                    range: r.clone(),
                    text: transform(&format!("({})", self.text(r)), *width),
                }),
            }
        }
        edits
    }

    /// The operator token of a binary expression, located between its operands.
    pub(super) fn operator(
        &self,
        f: Func,
        e: Handle<Expression>,
        token: &str,
    ) -> Option<Range<usize>> {
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

    /// The homogeneous 1: the last component of a vec4 built in a skinning site or a helper that
    /// calls one; not a column of a matrix built there (an identity's 0 0 0 1, which no point
    /// passes through).
    pub(super) fn homogeneous_ones(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        for f in self.skin_paths() {
            let exprs = &self.func(f).expressions;
            let columns: Vec<Handle<Expression>> = (exprs.iter())
                .filter_map(|(_, e)| match e {
                    Expression::Compose { ty, components }
                        if matches!(self.module.types[*ty].inner, TypeInner::Matrix { .. }) =>
                    {
                        Some(components.clone())
                    }
                    _ => None,
                })
                .flatten()
                .collect();
            for (h, e) in exprs.iter() {
                if let Expression::Compose { components, .. } = e {
                    let Some(&last) = components.last().filter(|_| !columns.contains(&h)) else {
                        continue;
                    };
                    if components.len() >= 2 && float_literal(&exprs[last]) == Some(1.0) {
                        out.extend(self.span(f, last));
                    }
                }
            }
        }
        out
    }

    /// Non-zero float literals in `f` that are arithmetic operands (not comparisons, not vector
    /// components), as (span, value).
    pub(super) fn operand_literals(&self, f: Func) -> Vec<(Range<usize>, f64)> {
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
}

/// `v` moved by 1.25e-4 of itself (1.0 -> 1.000125, 8.0 -> 8.001); 0 moves by 1.25e-4.
pub(super) fn perturb(v: f64) -> String {
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

pub(super) fn float_literal(e: &Expression) -> Option<f64> {
    match e {
        Expression::Literal(Literal::F32(v)) => Some(*v as f64),
        Expression::Literal(Literal::F64(v)) | Expression::Literal(Literal::AbstractFloat(v)) => {
            Some(*v)
        }
        _ => None,
    }
}

pub(super) use crate::naga_walk::int_literal;

pub(super) use crate::shader::for_each_statement;

/// Just after the `{` that opens the body of the function whose parameter list contains `from`:
/// the parameter list is closed (parentheses balanced, line comments skipped), then the next `{`.
pub(super) fn body_open(src: &str, from: usize) -> Option<usize> {
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

/// Every `Store` in `block` and the blocks inside it, as (pointer, value).
fn stores(block: &naga::Block, out: &mut Vec<(Handle<Expression>, Handle<Expression>)>) {
    for statement in block.iter() {
        match statement {
            naga::Statement::Store { pointer, value } => out.push((*pointer, *value)),
            naga::Statement::Block(b) => stores(b, out),
            naga::Statement::If { accept, reject, .. } => {
                stores(accept, out);
                stores(reject, out);
            }
            naga::Statement::Loop {
                body, continuing, ..
            } => {
                stores(body, out);
                stores(continuing, out);
            }
            naga::Statement::Switch { cases, .. } => {
                for case in cases {
                    stores(&case.body, out);
                }
            }
            _ => {}
        }
    }
}
