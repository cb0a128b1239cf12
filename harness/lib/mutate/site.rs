//! Finds where a shader can be mutated: its contract bindings, the inputs of each skinning site, operands and literals, by naga's spans.

use super::*;

/// Which contract input a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Role {
    Position,
    Joints,
    Weights,
}

/// A function of the module: a helper or an entry point's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Func {
    Helper(Handle<Function>),
    Entry(usize),
}

/// Where a per-vertex input value (joints, weights) enters a skinning site.
pub(super) enum Source {
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
pub(super) struct Located<'a> {
    pub(super) src: &'a str,
    pub(super) module: &'a Module,
    /// Global variable per contract binding (group 0).
    pub(super) bindings: HashMap<u32, Handle<GlobalVariable>>,
    /// Roles of helper parameters, from the arguments their callers pass.
    pub(super) param_roles: HashMap<(Handle<Function>, usize), Role>,
}

impl<'a> Located<'a> {
    pub(super) fn new(src: &'a str, module: &'a Module) -> Self {
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
        // A helper's parameter takes the role of what its callers pass. Repeated until nothing
        // changes, so that roles reach helpers called from helpers (skin(p, j, w) -> blend(j, w));
        // a call chain is at most as deep as there are functions.
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
                            if let Some(role) = me.role(f, arg) {
                                roles.insert((*function, i), role);
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

    pub(super) fn binding_of(&self, g: Handle<GlobalVariable>) -> Option<u32> {
        self.module.global_variables[g]
            .binding
            .as_ref()
            .filter(|b| b.group == 0)
            .map(|b| b.binding)
    }

    /// Which contract input an expression in `f` is, if it is one.
    pub(super) fn role(&self, f: Func, e: Handle<Expression>) -> Option<Role> {
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
                        Func::Entry(_) => {
                            let arg = func.arguments.get(i as usize)?;
                            let binding = match (&arg.binding, member) {
                                (Some(b), _) => Some(b),
                                (None, Some(m)) => match &self.module.types[arg.ty].inner {
                                    TypeInner::Struct { members, .. } => {
                                        members.get(m as usize)?.binding.as_ref()
                                    }
                                    _ => None,
                                },
                                (None, None) => None,
                            };
                            match binding {
                                Some(naga::Binding::Location { location: 0, .. }) => {
                                    Some(Role::Position)
                                }
                                Some(naga::Binding::Location { location: 1, .. }) => {
                                    Some(Role::Joints)
                                }
                                Some(naga::Binding::Location { location: 2, .. }) => {
                                    Some(Role::Weights)
                                }
                                _ => None,
                            }
                        }
                    }
                }
                _ => return None,
            };
        }
    }

    /// A read of a uniform struct member: (binding, byte offset of the member, member index).
    pub(super) fn member_read(&self, f: Func, e: Handle<Expression>) -> Option<(u32, u32, u32)> {
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
    pub(super) fn member_name(&self, binding: u32, offset: u32) -> Option<String> {
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
    pub(super) fn member_reads(&self, binding: u32, offset: u32) -> Vec<(Func, Range<usize>)> {
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
    pub(super) fn reads_member(
        &self,
        f: Func,
        e: Handle<Expression>,
        binding: u32,
        offset: u32,
    ) -> bool {
        let exprs = &self.func(f).expressions;
        let e = match exprs[e] {
            Expression::Load { pointer } => pointer,
            _ => e,
        };
        self.member_read(f, e)
            .is_some_and(|(b, o, _)| b == binding && o == offset)
    }

    /// Functions that index the palette themselves: where skinning happens.
    pub(super) fn skin_sites(&self) -> Vec<Func> {
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

    /// The skinning sites and the helpers that reach one through their calls (a `skin(p, j, w)`
    /// that calls a `blend(j, w)` that indexes the palette): where the position meets the blend.
    /// Entry points count only when they index the palette themselves.
    pub(super) fn skin_paths(&self) -> Vec<Func> {
        let mut paths = self.skin_sites();
        loop {
            let before = paths.len();
            for f in self.funcs() {
                if paths.contains(&f) || !matches!(f, Func::Helper(_)) {
                    continue;
                }
                let mut calls_path = false;
                for_each_statement(&self.func(f).body, &mut |s| {
                    if let Statement::Call { function, .. } = s {
                        calls_path |= paths.contains(&Func::Helper(*function));
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

    pub(super) fn entry(&self, stage: ShaderStage) -> Option<Func> {
        self.funcs()
            .into_iter()
            .find(|&f| self.stage(f) == Some(stage))
    }

    /// Where the per-vertex input `role` enters each skinning site.
    pub(super) fn sources(&self, role: Role) -> Vec<Source> {
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
        })
    }

    /// Edits that replace every use of the sources' value `v` with `transform(v)`.
    pub(super) fn rebind(
        &self,
        sources: &[Source],
        transform: impl Fn(&str) -> String,
    ) -> Vec<Edit> {
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

    /// Every mutant this module offers, in kind order.
    pub(super) fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let weights = self.sources(Role::Weights);
        let joints = self.sources(Role::Joints);
        let sites = self.skin_sites();
        let paths = self.skin_paths();
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

        // The homogeneous 1: the last component of a vec4 built in a skinning site or a helper
        // that calls one.
        let mut homogeneous = Vec::new();
        for &f in &paths {
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
                    if !paths.contains(&Func::Helper(*function)) {
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

        // The compute output's w: a literal 0 as the last component of a vec4 stored to binding 4.
        if let Some(cs) = compute {
            let func = self.func(cs);
            let mut stored = Vec::new();
            stores(&func.body, &mut stored);
            let edits: Vec<Edit> = stored
                .into_iter()
                .filter(|&(pointer, _)| {
                    root_global(func, pointer).and_then(|g| self.binding_of(g)) == Some(4)
                })
                .filter_map(|(_, value)| match &func.expressions[value] {
                    // The w is the last component: `vec4(p, 0.0)` composes a vec3 and a scalar.
                    Expression::Compose { components, .. } if !components.is_empty() => {
                        let w = *components.last()?;
                        (float_literal(&func.expressions[w]) == Some(0.0))
                            .then(|| self.span(cs, w))
                            .flatten()
                    }
                    _ => None,
                })
                .map(|range| Edit {
                    range,
                    text: "1.0".into(),
                })
                .collect();
            if !edits.is_empty() {
                out.push(Candidate {
                    kind: Kind::OutputW,
                    description: "the compute output's w written as 1 instead of 0".into(),
                    hint: "any case: the compute comparisons hold every output w to 0".into(),
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

pub(super) fn int_literal(e: &Expression) -> Option<i64> {
    match e {
        Expression::Literal(Literal::U32(v)) => Some(*v as i64),
        Expression::Literal(Literal::I32(v)) => Some(*v as i64),
        Expression::Literal(Literal::AbstractInt(v)) => Some(*v),
        _ => None,
    }
}

pub(super) fn for_each_statement(block: &Block, visit: &mut impl FnMut(&Statement)) {
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

/// The global variable a pointer expression indexes into, if any (`skinned[i]` -> `skinned`).
fn root_global(func: &Function, mut e: Handle<Expression>) -> Option<Handle<GlobalVariable>> {
    loop {
        match func.expressions[e] {
            Expression::GlobalVariable(g) => return Some(g),
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => e = base,
            _ => return None,
        }
    }
}
