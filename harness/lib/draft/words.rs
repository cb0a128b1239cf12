//! What a byte-addressed vertex buffer holds: the 32-bit words a stage loads from it at
//! `i * k + c` (i the vertex index) and what each becomes (a joint index, a weight, a point, a
//! direction), traced through expressions, local variables and calls; and which of those words
//! each store into a byte-addressed output carries.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::format::Encoding;

use naga::{BinaryOperator as B, Expression as E, Handle, MathFunction as M, Module, Statement};
use naga::{Binding, BuiltIn, TypeInner};

/// How a word is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Decode {
    /// Its 32 bits as an integer.
    Bits,
    /// As an f32 (`bitcast<f32>`, or an `array<f32>`'s element).
    Float,
    /// A 16-bit half as an integer (`w & 0xffffu`, `w >> 16u`, `extractBits(w, 16u, 16u)`).
    Half,
    /// One byte as an integer.
    Byte,
    /// `unpack2x16unorm`.
    Unorm16,
    /// `unpack4x8unorm`.
    Unorm8,
    /// `unpack4x8snorm`: a direction packed in one word.
    Snorm8,
    /// `unpack2x16snorm` and `unpack2x16float`: half of a direction packed in two words.
    Snorm16,
    Float16,
}

type Words = BTreeSet<(i64, Decode)>;

/// What an expression's value is made of, as far as the trace follows it.
#[derive(Clone, Debug, Default, PartialEq)]
struct V {
    /// The value as `i * k + c` in the vertex index i (k 0: a constant), where it is one.
    lin: Option<(i64, i64)>,
    /// The buffer's words it is made of, each with how it was read.
    words: Words,
    /// Whether it depends on the palette.
    palette: bool,
    /// A float literal's value.
    float: Option<f64>,
    /// A vec4 composed with a last component 1.0 (a point: true) or 0.0 (a direction: false).
    point: Option<bool>,
    /// A composed vector's lanes or struct's members, where followed.
    parts: Option<Vec<V>>,
}

impl Decode {
    /// The encoding of a direction whose words are read so, where packed.
    fn packed(self) -> Option<Encoding> {
        match self {
            Decode::Snorm8 => Some(Encoding::Snorm8),
            Decode::Snorm16 => Some(Encoding::Snorm16),
            Decode::Float16 => Some(Encoding::F16),
            _ => None,
        }
    }
}

impl V {
    fn constant(c: i64) -> V {
        V {
            lin: Some((0, c)),
            ..V::default()
        }
    }

    /// A value made of `parts`: their words and palette, and the parts themselves.
    fn of_parts(parts: Vec<V>) -> V {
        V {
            words: parts.iter().flat_map(|p| p.words.iter().copied()).collect(),
            palette: parts.iter().any(|p| p.palette),
            parts: Some(parts),
            ..V::default()
        }
    }

    /// The whole, without the parts or what a scalar says.
    fn whole(&self) -> V {
        V {
            words: self.words.clone(),
            palette: self.palette,
            ..V::default()
        }
    }

    fn part(&self, k: usize) -> V {
        match &self.parts {
            Some(p) => p.get(k).cloned().unwrap_or_default(),
            None => self.whole(),
        }
    }

    /// Either value (a local stored twice, a select).
    fn join(&self, o: &V) -> V {
        V {
            lin: if self.lin == o.lin { self.lin } else { None },
            words: self.words.union(&o.words).copied().collect(),
            palette: self.palette || o.palette,
            float: match (self.float, o.float) {
                (Some(a), Some(b)) if a == b => Some(a),
                _ => None,
            },
            point: if self.point == o.point {
                self.point
            } else {
                None
            },
            parts: match (&self.parts, &o.parts) {
                (Some(a), Some(b)) if a.len() == b.len() => {
                    Some(a.iter().zip(b).map(|(x, y)| x.join(y)).collect())
                }
                _ => None,
            },
        }
    }

    /// The value with each word's reading changed by `f`.
    fn decoded(&self, f: &impl Fn(Decode) -> Decode) -> V {
        V {
            words: self.words.iter().map(|&(c, d)| (c, f(d))).collect(),
            parts: (self.parts.as_ref()).map(|p| p.iter().map(|x| x.decoded(f)).collect()),
            ..self.clone()
        }
    }

    /// The float words it is made of (a packed direction's word among them), in order.
    fn floats(&self) -> Vec<i64> {
        let set: BTreeSet<i64> = (self.words.iter())
            .filter(|w| w.1 == Decode::Float || w.1.packed().is_some())
            .map(|w| w.0)
            .collect();
        set.into_iter().collect()
    }
}

/// Where a pointer points.
enum Place {
    /// An element of the traced buffer at this index, and the lane of it where the element is a
    /// vector and the pointer picks one; or of the output.
    Buffer(Option<(i64, i64)>, Option<u32>),
    Output(Option<(i64, i64)>),
    /// An element of an index table the harness fills as a sequence, at this index.
    Table(Option<(i64, i64)>),
    /// An element of the palette, at this index expression.
    Palette(Option<Handle<E>>),
    /// A local variable, and the member the pointer reaches into first.
    Local(Handle<naga::LocalVariable>, Option<u32>),
    Other,
}

/// The globals a trace follows: the byte-addressed source, the palette (and its member, where it
/// is one of its struct's), a byte-addressed output.
pub(super) struct Targets {
    pub(super) buffer: Handle<naga::GlobalVariable>,
    pub(super) palette: Option<(Handle<naga::GlobalVariable>, Option<u32>)>,
    pub(super) output: Option<Handle<naga::GlobalVariable>>,
}

/// What the trace found.
#[derive(Default)]
struct Found {
    strides: BTreeSet<i64>,
    joints: Words,
    weights: Words,
    /// The float words of each value multiplied by a palette matrix, and whether it is composed
    /// as a point.
    vectors: BTreeSet<(Vec<i64>, Option<bool>)>,
    /// Names (lets, local variables) and the float words their values are made of.
    names: Vec<(String, Vec<i64>)>,
    /// Each store into the output: its index's `(k, c)` and the words the value is made of.
    stores: BTreeSet<(i64, i64, Vec<i64>)>,
    /// The words read as part of a packed direction, and its encoding.
    packed: BTreeMap<i64, Encoding>,
}

struct Trace<'a> {
    module: &'a Module,
    info: &'a naga::valid::ModuleInfo,
    t: &'a Targets,
    float_buffer: bool,
    /// The words an element of the buffer holds: 1, or a vector's lanes.
    lanes: i64,
    /// The index tables ([`super::read::index_tables`]): element k holds k.
    tables: Vec<Handle<naga::GlobalVariable>>,
    found: Found,
}

/// One function's trace state.
struct Frame<'f> {
    f: &'f naga::Function,
    info: &'f naga::valid::FunctionInfo,
    args: Vec<V>,
    memo: Vec<Option<V>>,
    locals: HashMap<Handle<naga::LocalVariable>, V>,
    results: HashMap<Handle<E>, V>,
}

/// Calls deeper than this are not followed.
const DEPTH: u8 = 5;

impl Trace<'_> {
    fn ty<'b>(&'b self, fr: &'b Frame, e: Handle<E>) -> &'b TypeInner {
        fr.info[e].ty.inner_with(&self.module.types)
    }

    /// Runs `f` with these argument values to a fixed point; its return value.
    fn run(
        &mut self,
        f: &naga::Function,
        info: &naga::valid::FunctionInfo,
        args: Vec<V>,
        depth: u8,
    ) -> V {
        let mut fr = Frame {
            f,
            info,
            args,
            memo: Vec::new(),
            locals: HashMap::new(),
            results: HashMap::new(),
        };
        let mut ret = None;
        // Until nothing changes: a loop carries values back to earlier statements.
        for _ in 0..8 {
            let before = (fr.locals.clone(), fr.results.clone());
            fr.memo = vec![None; f.expressions.len()];
            for (h, _) in f.expressions.iter() {
                self.eval(&mut fr, h);
            }
            ret = None;
            self.block(&mut fr, &f.body, depth, &mut ret);
            if (&fr.locals, &fr.results) == (&before.0, &before.1) {
                break;
            }
        }
        for (h, name) in &f.named_expressions {
            let v = self.eval(&mut fr, *h);
            self.found.names.push((name.clone(), v.floats()));
        }
        for (l, v) in &fr.locals {
            if let Some(name) = &f.local_variables[*l].name {
                self.found.names.push((name.clone(), v.floats()));
            }
        }
        ret.unwrap_or_default()
    }

    fn block(&mut self, fr: &mut Frame, block: &naga::Block, depth: u8, ret: &mut Option<V>) {
        for st in block.iter() {
            match st {
                Statement::Store { pointer, value } => {
                    let v = self.eval(fr, *value);
                    self.store(fr, *pointer, v);
                }
                Statement::Call {
                    function,
                    arguments,
                    result,
                } => {
                    let args: Vec<V> = arguments.iter().map(|a| self.eval(fr, *a)).collect();
                    let r = match depth {
                        0 => V::default(),
                        _ => {
                            let (g, info) =
                                (&self.module.functions[*function], &self.info[*function]);
                            self.run(g, info, args, depth - 1)
                        }
                    };
                    if let Some(h) = result {
                        let v = fr.results.get(h).map_or(r.clone(), |old| old.join(&r));
                        fr.results.insert(*h, v);
                    }
                }
                Statement::Return { value: Some(v) } => {
                    let v = self.eval(fr, *v);
                    *ret = Some(ret.take().map_or(v.clone(), |r| r.join(&v)));
                }
                Statement::Block(b) => self.block(fr, b, depth, ret),
                Statement::If { accept, reject, .. } => {
                    self.block(fr, accept, depth, ret);
                    self.block(fr, reject, depth, ret);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        self.block(fr, &c.body, depth, ret);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    self.block(fr, body, depth, ret);
                    self.block(fr, continuing, depth, ret);
                }
                _ => {}
            }
        }
    }

    fn store(&mut self, fr: &mut Frame, pointer: Handle<E>, v: V) {
        match self.place(fr, pointer) {
            Place::Local(l, member) => {
                let lanes = lanes(self.module, fr.f.local_variables[l].ty);
                let old = fr.locals.get(&l).cloned();
                let new = match (member, lanes) {
                    (Some(m), Some(n)) => {
                        let mut parts = (old.as_ref().and_then(|o| o.parts.clone()))
                            .unwrap_or_else(|| vec![V::default(); n]);
                        if let Some(p) = parts.get_mut(m as usize) {
                            *p = p.join(&v);
                        }
                        let joined = V::of_parts(parts);
                        old.map_or(joined.clone(), |o| V {
                            parts: joined.parts.clone(),
                            ..o.join(&joined)
                        })
                    }
                    _ => old.map_or(v.clone(), |o| o.join(&v)),
                };
                fr.locals.insert(l, new);
            }
            Place::Output(Some((k, c))) => {
                let words = v.words.iter().map(|w| w.0).collect::<BTreeSet<_>>();
                self.found
                    .stores
                    .insert((k, c, words.into_iter().collect()));
            }
            _ => {}
        }
    }

    /// Where pointer `p` points: the global or local it reaches into, through its steps.
    fn place(&mut self, fr: &mut Frame, p: Handle<E>) -> Place {
        enum Step {
            Index(Handle<E>),
            Member(u32),
        }
        let mut steps = Vec::new();
        let mut e = p;
        let root = loop {
            match fr.f.expressions[e] {
                E::Access { base, index } => {
                    steps.push(Step::Index(index));
                    e = base;
                }
                E::AccessIndex { base, index } => {
                    steps.push(Step::Member(index));
                    e = base;
                }
                E::GlobalVariable(g) => break Some(g),
                E::LocalVariable(l) => {
                    steps.reverse();
                    let first = match steps.first() {
                        Some(Step::Member(m)) => Some(*m),
                        _ => None,
                    };
                    return Place::Local(l, first);
                }
                _ => return Place::Other,
            }
        };
        steps.reverse();
        let Some(g) = root else {
            return Place::Other;
        };
        // The array's index, after the members of a struct that wraps it.
        let mut ty = self.module.global_variables[g].ty;
        let mut index = None;
        let mut members = Vec::new();
        let mut lane = None;
        for (k, s) in steps.iter().enumerate() {
            match (&self.module.types[ty].inner, s) {
                (TypeInner::Struct { members: ms, .. }, Step::Member(m)) => {
                    members.push(*m);
                    ty = ms[*m as usize].ty;
                }
                (TypeInner::Array { .. }, s) => {
                    index = Some(match s {
                        Step::Index(i) => Ok(*i),
                        Step::Member(n) => Err(*n),
                    });
                    lane = match steps.get(k + 1) {
                        Some(Step::Member(l)) => Some(*l),
                        _ => None,
                    };
                    break;
                }
                _ => break,
            }
        }
        let lin = |this: &mut Self, fr: &mut Frame| match index {
            Some(Ok(i)) => this.eval(fr, i).lin,
            Some(Err(n)) => Some((0, i64::from(n))),
            None => None,
        };
        if g == self.t.buffer {
            return Place::Buffer(lin(self, fr), lane);
        }
        if Some(g) == self.t.output {
            return Place::Output(lin(self, fr));
        }
        if self.tables.contains(&g) {
            return Place::Table(lin(self, fr));
        }
        match self.t.palette {
            Some((p, member)) if p == g && member.is_none_or(|m| members.first() == Some(&m)) => {
                Place::Palette(index.and_then(Result::ok))
            }
            _ => Place::Other,
        }
    }

    fn load(&mut self, fr: &mut Frame, pointer: Handle<E>) -> V {
        match self.place(fr, pointer) {
            // Element i * k + c of n-lane vectors is words (i * k + c) * n + lane: k * n a vertex.
            Place::Buffer(Some((k, c)), lane) if k != 0 => {
                let n = self.lanes;
                self.found.strides.insert(k * n);
                let how = if self.float_buffer {
                    Decode::Float
                } else {
                    Decode::Bits
                };
                let word = |l: i64| V {
                    words: [(c * n + l, how)].into(),
                    ..V::default()
                };
                match (n, lane) {
                    (1, _) => word(0),
                    (_, Some(l)) => word(i64::from(l)),
                    _ => V::of_parts((0..n).map(word).collect()),
                }
            }
            Place::Palette(index) => {
                if let Some(i) = index {
                    let joints = self.eval(fr, i).words;
                    self.found.joints.extend(joints);
                }
                V {
                    palette: true,
                    ..V::default()
                }
            }
            // Element k of a sequence is k. Read at a corner its index does not follow (pygfx's
            // `s_indices[face * 3 + k]`, one picked by `index % 3`), it is taken as the vertex's
            // own: an index buffer read by the vertex index, drawn in order.
            Place::Table(index) => V {
                lin: index.or(Some((1, 0))),
                ..V::default()
            },
            Place::Local(l, member) => {
                fr.locals.get(&l).map_or_else(V::default, |v| match member {
                    Some(m) => v.part(m as usize),
                    None => v.clone(),
                })
            }
            // An integer in a uniform (an engine's stream offset), or in a read-only struct of
            // parameters, is what the harness fills it with: 0, where the profile gives it no
            // value.
            Place::Other if self.uniform_integer(fr, pointer) => V::constant(0),
            _ => V::default(),
        }
    }

    /// Whether `pointer` is to an integer scalar in a uniform buffer, or in a struct of
    /// parameters in read-only storage (`var<storage> constants: SkinningConstants`; not an array,
    /// nor a struct ending in one: a buffer of vertices).
    fn uniform_integer(&self, fr: &Frame, pointer: Handle<E>) -> bool {
        let uniform = crate::shader::root_global(fr.f, pointer).is_some_and(|g| {
            let g = &self.module.global_variables[g];
            match g.space {
                naga::AddressSpace::Uniform => true,
                naga::AddressSpace::Storage { access } => {
                    !access.contains(naga::StorageAccess::STORE)
                        && matches!(&self.module.types[g.ty].inner, TypeInner::Struct { members, .. }
                            if !members.last().is_some_and(|m| matches!(self.module.types[m.ty].inner, TypeInner::Array { .. })))
                }
                _ => false,
            }
        });
        let integer =
            |s: naga::Scalar| matches!(s.kind, naga::ScalarKind::Uint | naga::ScalarKind::Sint);
        let scalar = match self.ty(fr, pointer) {
            TypeInner::Pointer { base, .. } => match self.module.types[*base].inner {
                TypeInner::Scalar(s) => Some(s),
                _ => None,
            },
            TypeInner::ValuePointer {
                size: None, scalar, ..
            } => Some(*scalar),
            _ => None,
        };
        uniform && scalar.is_some_and(integer)
    }

    fn eval(&mut self, fr: &mut Frame, h: Handle<E>) -> V {
        if let Some(v) = &fr.memo[h.index()] {
            return v.clone();
        }
        // A value that loops back to itself adds nothing.
        fr.memo[h.index()] = Some(V::default());
        let v = self.compute(fr, h);
        fr.memo[h.index()] = Some(v.clone());
        v
    }

    fn compute(&mut self, fr: &mut Frame, h: Handle<E>) -> V {
        let pointer = matches!(
            self.ty(fr, h),
            TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
        );
        match fr.f.expressions[h].clone() {
            E::Literal(_) | E::Constant(_) | E::Override(_) | E::ZeroValue(_) => {
                match super::read::number(self.module, fr.f, h) {
                    Some(x)
                        if x.fract() == 0.0
                            && self.ty(fr, h).scalar_kind() != Some(naga::ScalarKind::Float) =>
                    {
                        V::constant(x as i64)
                    }
                    Some(x) => V {
                        float: Some(x),
                        ..V::default()
                    },
                    None => V::default(),
                }
            }
            E::Compose { components, .. } => {
                let vector = matches!(self.ty(fr, h), TypeInner::Vector { .. });
                let mut parts = Vec::new();
                for c in components {
                    let v = self.eval(fr, c);
                    match (vector, self.ty(fr, c)) {
                        (true, TypeInner::Vector { size, .. }) => {
                            let n = *size as usize;
                            (0..n).for_each(|k| parts.push(v.part(k)));
                        }
                        _ => parts.push(v),
                    }
                }
                let point = match parts.last().and_then(|p| p.float) {
                    Some(w) if vector && parts.len() == 4 && (w == 1.0 || w == 0.0) => {
                        Some(w == 1.0)
                    }
                    _ => None,
                };
                V {
                    point,
                    ..V::of_parts(parts)
                }
            }
            E::Access { base, index } if !pointer => {
                let b = self.eval(fr, base);
                match (self.eval(fr, index).lin, &b.parts) {
                    (Some((0, c)), _) => b.part(c as usize),
                    // Any of the parts: where they agree on the index, so does the element.
                    (_, Some(parts)) if !parts.is_empty() => {
                        (parts.iter().skip(1)).fold(parts[0].clone(), |a, p| a.join(p))
                    }
                    _ => b.whole(),
                }
            }
            E::AccessIndex { base, index } if !pointer => self.eval(fr, base).part(index as usize),
            E::Splat { size, value } => {
                let v = self.eval(fr, value);
                V::of_parts(vec![v; size as usize])
            }
            E::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let v = self.eval(fr, vector);
                let parts = (pattern.iter().take(size as usize))
                    .map(|c| v.part(*c as usize))
                    .collect();
                V::of_parts(parts)
            }
            E::Load { pointer } => self.load(fr, pointer),
            E::FunctionArgument(i) => fr.args.get(i as usize).cloned().unwrap_or_default(),
            E::Unary { op, expr } => {
                let v = self.eval(fr, expr);
                match (op, v.lin) {
                    (naga::UnaryOperator::Negate, Some((k, c))) => V {
                        lin: Some((-k, -c)),
                        ..v.whole()
                    },
                    _ => v.whole(),
                }
            }
            E::Binary { op, left, right } => self.binary(fr, op, left, right),
            E::Select { accept, reject, .. } => {
                let (a, r) = (self.eval(fr, accept), self.eval(fr, reject));
                a.join(&r)
            }
            E::As {
                expr,
                kind,
                convert,
            } => {
                let v = self.eval(fr, expr);
                let float = kind == naga::ScalarKind::Float;
                let v = match (convert, float) {
                    // A bitcast reads the same bits another way.
                    (None, true) => {
                        v.decoded(&|d| if d == Decode::Bits { Decode::Float } else { d })
                    }
                    (None, false) => {
                        v.decoded(&|d| if d == Decode::Float { Decode::Bits } else { d })
                    }
                    _ => v,
                };
                V {
                    lin: if float { None } else { v.lin },
                    float: if float { v.float } else { None },
                    ..v
                }
            }
            E::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => self.math(fr, fun, arg, arg1, arg2),
            E::CallResult(_) => fr.results.get(&h).cloned().unwrap_or_default(),
            E::ImageLoad {
                image, coordinate, ..
            } => {
                let palette = matches!(fr.f.expressions[image], E::GlobalVariable(g)
                    if self.t.palette.is_some_and(|p| p.0 == g));
                if palette {
                    let joints = self.eval(fr, coordinate).words;
                    self.found.joints.extend(joints);
                }
                V {
                    palette,
                    ..V::default()
                }
            }
            _ => V::default(),
        }
    }

    fn binary(&mut self, fr: &mut Frame, op: B, left: Handle<E>, right: Handle<E>) -> V {
        let (l, r) = (self.eval(fr, left), self.eval(fr, right));
        let lin = match (op, l.lin, r.lin) {
            (B::Add, Some(a), Some(b)) => Some((a.0 + b.0, a.1 + b.1)),
            (B::Subtract, Some(a), Some(b)) => Some((a.0 - b.0, a.1 - b.1)),
            (B::Multiply, Some((0, a)), Some(b)) | (B::Multiply, Some(b), Some((0, a))) => {
                Some((b.0 * a, b.1 * a))
            }
            (B::ShiftLeft, Some(a), Some((0, s))) if (0..32).contains(&s) => {
                Some((a.0 << s, a.1 << s))
            }
            _ => None,
        };
        // A mask or a shift by a constant reads part of a word.
        let narrowed = |v: &V, n: i64| match op {
            B::And if n == 0xffff || n == 0xffff_0000 => {
                v.decoded(&|d| if d == Decode::Bits { Decode::Half } else { d })
            }
            B::And if n == 0xff => v.decoded(&|d| match d {
                Decode::Bits | Decode::Half => Decode::Byte,
                d => d,
            }),
            B::ShiftRight if n == 16 => {
                v.decoded(&|d| if d == Decode::Bits { Decode::Half } else { d })
            }
            B::ShiftRight if n == 8 || n == 24 => v.decoded(&|d| match d {
                Decode::Bits | Decode::Half => Decode::Byte,
                d => d,
            }),
            _ => v.clone(),
        };
        let (l2, r2) = match (l.lin, r.lin) {
            (_, Some((0, n))) => (narrowed(&l, n), r.clone()),
            (Some((0, n)), _) => (l.clone(), narrowed(&r, n)),
            _ => (l.clone(), r.clone()),
        };
        // A palette matrix moves a vector whose own value may hold the palette too: a local
        // skinned in place (`p = (m * vec4(p, 1.0)).xyz`) joins both of its values.
        let matrix =
            |e: Handle<E>, v: &V| v.palette && matches!(self.ty(fr, e), TypeInner::Matrix { .. });
        let vector = |e: Handle<E>| matches!(self.ty(fr, e), TypeInner::Vector { .. });
        let moved = if matrix(left, &l) && vector(right) {
            Some((left, &r, right))
        } else if matrix(right, &r) && vector(left) {
            Some((right, &l, left))
        } else if l.palette != r.palette {
            Some(if l.palette {
                (left, &r, right)
            } else {
                (right, &l, left)
            })
        } else {
            None
        };
        if let (B::Multiply, Some((p, o, other))) = (op, moved) {
            self.multiplied(fr, p, o, other);
        }
        V {
            lin,
            words: l2.words.union(&r2.words).copied().collect(),
            palette: l.palette || r.palette,
            ..V::default()
        }
    }

    /// A palette value `p` multiplied by `o` (expression `other`): a scalar is a weight, a vector
    /// under a matrix a point or a direction.
    fn multiplied(&mut self, fr: &Frame, p: Handle<E>, o: &V, other: Handle<E>) {
        match (self.ty(fr, other), self.ty(fr, p)) {
            (TypeInner::Scalar(_), _) => self.found.weights.extend(o.words.iter().copied()),
            (TypeInner::Vector { .. }, TypeInner::Matrix { .. }) => {
                self.found.vectors.insert((o.floats(), o.point));
                let packed = o.words.iter().filter_map(|w| Some((w.0, w.1.packed()?)));
                self.found.packed.extend(packed);
            }
            _ => {}
        }
    }

    fn math(
        &mut self,
        fr: &mut Frame,
        fun: M,
        arg: Handle<E>,
        arg1: Option<Handle<E>>,
        arg2: Option<Handle<E>>,
    ) -> V {
        let a = self.eval(fr, arg);
        let to = |d: Decode| move |x: Decode| if x == Decode::Bits { d } else { x };
        match fun {
            M::Unpack2x16unorm => return a.decoded(&to(Decode::Unorm16)).whole(),
            M::Unpack4x8unorm => return a.decoded(&to(Decode::Unorm8)).whole(),
            M::Unpack4x8snorm => return a.decoded(&to(Decode::Snorm8)).whole(),
            M::Unpack2x16snorm => return a.decoded(&to(Decode::Snorm16)).whole(),
            M::Unpack2x16float => return a.decoded(&to(Decode::Float16)).whole(),
            M::Unpack4xU8 | M::Unpack4xI8 => return a.decoded(&to(Decode::Byte)).whole(),
            M::ExtractBits => {
                let count = arg2.and_then(|c| super::read::number(self.module, fr.f, c));
                return match count {
                    Some(16.0) => a.decoded(&to(Decode::Half)),
                    Some(8.0) => a.decoded(&to(Decode::Byte)),
                    _ => a,
                }
                .whole();
            }
            _ => {}
        }
        let b = arg1.map(|x| self.eval(fr, x));
        // A row of a palette matrix dotted with a vector moves it (`dot(row, vec4(p, 1.0))`).
        if let (M::Dot, Some(b)) = (fun, &b) {
            if a.palette != b.palette {
                let o = if a.palette { b } else { &a };
                self.found.vectors.insert((o.floats(), o.point));
                let packed = o.words.iter().filter_map(|w| Some((w.0, w.1.packed()?)));
                self.found.packed.extend(packed);
            }
        }
        let mut v = a.whole();
        if let Some(b) = b {
            v = V {
                words: v.words.union(&b.words).copied().collect(),
                palette: v.palette || b.palette,
                ..V::default()
            };
        }
        if let Some(c) = arg2 {
            let c = self.eval(fr, c);
            v.words.extend(c.words);
            v.palette |= c.palette;
        }
        v
    }
}

/// The parts a local of this type is followed by: a vector's lanes, a struct's members, a short
/// fixed array's elements.
fn lanes(module: &Module, ty: Handle<naga::Type>) -> Option<usize> {
    match &module.types[ty].inner {
        TypeInner::Vector { size, .. } => Some(*size as usize),
        TypeInner::Struct { members, .. } => Some(members.len()),
        TypeInner::Array {
            size: naga::ArraySize::Constant(n),
            ..
        } if n.get() <= 16 => Some(n.get() as usize),
        _ => None,
    }
}

/// The vertex index as an entry point's argument gives it: `@builtin(vertex_index)`, or lane x of
/// `@builtin(global_invocation_id)`, as a bare value or a struct's member.
fn entry_arguments(module: &Module, ep: &naga::EntryPoint) -> Vec<V> {
    let of = |b: &Option<Binding>| match b {
        Some(Binding::BuiltIn(BuiltIn::VertexIndex)) => V {
            lin: Some((1, 0)),
            ..V::default()
        },
        Some(Binding::BuiltIn(BuiltIn::GlobalInvocationId)) => V::of_parts(vec![
            V {
                lin: Some((1, 0)),
                ..V::default()
            },
            V::default(),
            V::default(),
        ]),
        _ => V::default(),
    };
    (ep.function.arguments.iter())
        .map(|a| match &module.types[a.ty].inner {
            TypeInner::Struct { members, .. } if a.binding.is_none() => {
                V::of_parts(members.iter().map(|m| of(&m.binding)).collect())
            }
            _ => of(&a.binding),
        })
        .collect()
}

/// A field of three or four floats and where it starts, in words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Run {
    pub(super) first: i64,
    pub(super) len: i64,
}

/// A byte-addressed buffer's layout as the trace reads it, in words (`stride` a vertex).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Layout {
    pub(super) stride: i64,
    pub(super) position: Option<Run>,
    pub(super) normal: Option<Run>,
    pub(super) tangent: Option<Run>,
    /// Each influence set's first word, and the format.
    pub(super) joints: Option<(Vec<i64>, &'static str)>,
    pub(super) weights: Option<(Vec<i64>, &'static str)>,
    /// The output's fields, where one was traced.
    pub(super) output: Option<Stored>,
    /// Whether a packed tangent keeps no handedness (its unpacked w never read).
    pub(super) unhanded: bool,
    /// The words read as parts of packed directions, and their encodings.
    pub(super) packed: BTreeMap<i64, Encoding>,
}

/// A byte-addressed output's fields as its stores place them, in words (`stride` a vertex).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Stored {
    pub(super) stride: i64,
    pub(super) position: Option<Run>,
    pub(super) normal: Option<Run>,
    pub(super) tangent: Option<Run>,
}

/// What entry point `ep` reads from the byte-addressed buffer `t.buffer`, by what its words
/// become; None where it loads no word at `i * k + c` or at several strides.
pub(super) fn layout(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    ep: usize,
    t: &Targets,
) -> Option<Layout> {
    let element = super::read::array_element(module, module.global_variables[t.buffer].ty)
        .map(|e| &module.types[e].inner);
    let float_buffer = element.is_some_and(|e| e.scalar_kind() == Some(naga::ScalarKind::Float));
    let lanes = match element {
        Some(TypeInner::Vector { size, .. }) => *size as i64,
        _ => 1,
    };
    let tables = (super::read::index_tables(module).into_iter())
        .filter(|&g| g != t.buffer)
        .collect();
    let mut trace = Trace {
        module,
        info,
        t,
        float_buffer,
        lanes,
        tables,
        found: Found::default(),
    };
    let entry = &module.entry_points[ep];
    let args = entry_arguments(module, entry);
    trace.run(&entry.function, info.get_entry_point(ep), args, DEPTH);
    let found = trace.found;
    let stride = match found.strides.iter().collect::<Vec<_>>()[..] {
        [k] => *k,
        _ => return None,
    };
    let joints = influence(&found.joints, true);
    let joint_words: BTreeSet<i64> = found.joints.iter().map(|w| w.0).collect();
    let weights_read: Words = (found.weights.iter())
        .filter(|w| !joint_words.contains(&w.0))
        .copied()
        .collect();
    let weights = influence(&weights_read, false);
    let taken: BTreeSet<i64> = joint_words
        .iter()
        .chain(weights_read.iter().map(|w| &w.0))
        .copied()
        .collect();
    let (position, normal, tangent) = frames(&found, &taken);
    let output = output(&found, [position, normal, tangent]);
    Some(Layout {
        stride,
        position,
        normal,
        tangent,
        joints,
        weights,
        output,
        unhanded: super::compute::unhanded(module, Encoding::Snorm8),
        packed: found.packed,
    })
}

/// Joints' or weights' sets and format from the words read as them (None where none is).
fn influence(words: &Words, joints: bool) -> Option<(Vec<i64>, &'static str)> {
    let has = |d: Decode| words.iter().any(|w| w.1 == d);
    let (format, per_set) = match joints {
        true if has(Decode::Byte) => ("u8x4", 1),
        true if has(Decode::Half) => ("u16x4", 2),
        true if has(Decode::Float) => ("f32x4", 4),
        true if has(Decode::Bits) => ("u32x4", 4),
        false if has(Decode::Unorm8) || has(Decode::Byte) => ("unorm8x4", 1),
        false if has(Decode::Unorm16) || has(Decode::Half) => ("unorm16x4", 2),
        false if has(Decode::Float) => ("f32x4", 4),
        _ => return None,
    };
    let offsets: BTreeSet<i64> = words.iter().map(|w| w.0).collect();
    let offsets: Vec<i64> = offsets.into_iter().collect();
    Some((offsets.chunks(per_set).map(|c| c[0]).collect(), format))
}

/// A name's role by its words: `p`, `pos`, `position`, `px` a position's; `n`, `nrm`, `normal`,
/// `nx` a normal's; `t`, `tan`, `tangent`, `tx` a tangent's (0, 1, 2).
fn role_of(name: &str) -> Option<usize> {
    super::vertex::words(name).iter().find_map(|w| {
        let axis = |c: char| w.len() == 2 && w.starts_with(c) && "xyzw".contains(&w[1..]);
        if w == "p" || w.starts_with("pos") || w == "point" || axis('p') {
            Some(0)
        } else if ["n", "nrm", "nor", "nml"].contains(&w.as_str())
            || w.starts_with("norm")
            || axis('n')
        {
            Some(1)
        } else if ["t", "tn", "tng", "tgt"].contains(&w.as_str())
            || w.starts_with("tan")
            || axis('t')
        {
            Some(2)
        } else {
            None
        }
    })
}

/// The position, normal and tangent: the runs of float words multiplied by a palette matrix,
/// named by the lets and locals made of them alone, a point's the position, else in order.
fn frames(found: &Found, taken: &BTreeSet<i64>) -> (Option<Run>, Option<Run>, Option<Run>) {
    // Groups of words multiplied together, merged where they share a word, with whether one is
    // composed as a point and whether every one as a direction.
    let mut groups: Vec<(BTreeSet<i64>, bool, bool)> = Vec::new();
    for (words, point) in &found.vectors {
        let words: BTreeSet<i64> = words
            .iter()
            .filter(|w| !taken.contains(w))
            .copied()
            .collect();
        if words.is_empty() {
            continue;
        }
        let mut merged = (words, *point == Some(true), *point == Some(false));
        groups.retain(|g| {
            let apart = g.0.is_disjoint(&merged.0);
            if !apart {
                merged.0.extend(g.0.iter().copied());
                merged.1 |= g.1;
                merged.2 &= g.2;
            }
            apart
        });
        groups.push(merged);
    }
    groups.sort_by_key(|g| g.0.first().copied());
    let runs: Vec<(Run, bool, bool)> =
        (groups.iter())
            .filter_map(|(words, point, direction)| {
                let first = *words.first()?;
                let len = words.len() as i64;
                // Three or four floats, or the words of a packed direction.
                let packed = found.packed.get(&first).is_some_and(|e| {
                    e.bytes(3) as i64 == 4 * len
                        && words.iter().all(|w| found.packed.get(w) == Some(e))
                });
                (*words.last()? == first + len - 1 && ((3..=4).contains(&len) || packed))
                    .then_some((Run { first, len }, *point, *direction))
            })
            .collect();
    let mut votes = vec![[0usize; 3]; runs.len()];
    for (name, words) in &found.names {
        let Some(role) = role_of(name) else {
            continue;
        };
        let hit: Vec<usize> = (0..runs.len())
            .filter(|&k| {
                let r = runs[k].0;
                words.iter().any(|w| (r.first..r.first + r.len).contains(w))
            })
            .collect();
        if let [k] = hit[..] {
            votes[k][role] += 1;
        }
    }
    let mut roles: [Option<usize>; 3] = [None; 3];
    // A point is the position, then each role its run with the most votes.
    if let Some(k) = runs.iter().position(|r| r.1) {
        roles[0] = Some(k);
    }
    for role in 0..3 {
        if roles[role].is_some() {
            continue;
        }
        let best = (0..runs.len())
            .filter(|k| !roles.contains(&Some(*k)) && votes[*k][role] > 0)
            .max_by_key(|k| (votes[*k][role], std::cmp::Reverse(*k)));
        roles[role] = best;
    }
    // The rest in order of their offsets, as vertices lay them out; a direction (w 0) is never
    // the position (a stream of normals alone).
    let assigned = roles;
    let mut rest: Vec<usize> = (0..runs.len())
        .filter(|k| !assigned.contains(&Some(*k)))
        .collect();
    for (r, role) in roles.iter_mut().enumerate() {
        if role.is_none() {
            let next = rest.iter().position(|&k| r != 0 || !runs[k].2);
            *role = next.map(|at| rest.remove(at));
        }
    }
    let run = |r: Option<usize>| r.map(|k| runs[k].0);
    (run(roles[0]), run(roles[1]), run(roles[2]))
}

/// The output's fields: the slots each store fills with a source field's words, at one stride.
fn output(found: &Found, fields: [Option<Run>; 3]) -> Option<Stored> {
    let k = match found
        .stores
        .iter()
        .map(|s| s.0)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()[..]
    {
        [k] if k > 0 => k,
        _ => return None,
    };
    let mut slots: [BTreeSet<i64>; 3] = Default::default();
    // A tangent's words run on to its w, which the stage copies rather than moves.
    let span = |f: usize, r: Run| r.first..r.first + if f == 2 && r.len >= 3 { 4 } else { r.len };
    for (_, c, words) in &found.stores {
        let of: Vec<usize> = (0..3)
            .filter(|&f| fields[f].is_some_and(|r| words.iter().any(|w| span(f, r).contains(w))))
            .collect();
        if let [f] = of[..] {
            slots[f].insert(*c);
        }
    }
    let run = |s: &BTreeSet<i64>| {
        let first = *s.first()?;
        Some(Run {
            first,
            len: s.len() as i64,
        })
    };
    Some(Stored {
        stride: k,
        position: run(&slots[0]),
        normal: run(&slots[1]),
        tangent: run(&slots[2]),
    })
}

impl Layout {
    /// Influence sets the joints' offsets give.
    pub(super) fn sets(&self) -> usize {
        self.joints.as_ref().map_or(1, |j| j.0.len().max(1))
    }

    /// The words each field takes: (first, count).
    fn taken(&self) -> Vec<(i64, i64)> {
        let size = |format: &str| match format {
            "u8x4" | "unorm8x4" => 1,
            "u16x4" | "unorm16x4" => 2,
            _ => 4,
        };
        let mut out: Vec<(i64, i64)> = [self.position, self.normal, self.tangent]
            .iter()
            .flatten()
            .map(|r| (r.first, r.len))
            .collect();
        for (offsets, format) in [&self.joints, &self.weights].into_iter().flatten() {
            out.extend(offsets.iter().map(|&o| (o, size(format))));
        }
        out
    }

    /// Whether the fields lie apart inside the stride, as a profile's must: not where the stage
    /// reads fewer words of a field than its format takes (one joint word of an interleaved
    /// joint and weight pair, which no format describes).
    pub(super) fn fits(&self) -> bool {
        let mut taken = self.taken();
        taken.sort();
        taken.iter().all(|&(o, n)| o >= 0 && o + n <= self.stride)
            && taken.windows(2).all(|p| p[0].0 + p[0].1 <= p[1].0)
    }

    /// The vertices' fields in bytes, as a profile gives them after the group and binding: a
    /// tangent read as three floats is `tangent_format: vec3` where a fourth would lie on
    /// another field or past the stride.
    pub(super) fn vertex_fields(&self) -> String {
        self.fields(false)
    }

    /// The fields of one of `vertex.streams`: as [`Self::vertex_fields`], the joints or the
    /// weights each alone where the buffer holds one of them.
    pub(super) fn stream_fields(&self) -> String {
        self.fields(true)
    }

    /// Whether the trace found a field the harness writes: a vector, joints or weights.
    pub(super) fn holds_field(&self) -> bool {
        self.position.is_some()
            || self.normal.is_some()
            || self.tangent.is_some()
            || self.joints.is_some()
            || self.weights.is_some()
    }

    fn fields(&self, apart: bool) -> String {
        let mut out = format!("stride: {}", 4 * self.stride);
        for (name, run) in [
            ("position", self.position),
            ("normal", self.normal),
            ("tangent", self.tangent),
        ] {
            if let Some(r) = run {
                out.push_str(&format!(
                    ", {name}: {}{}",
                    4 * r.first,
                    self.packed(name, run, r)
                ));
            }
        }
        if self.three_floats() {
            out.push_str(", tangent_format: vec3");
        }
        // Joints and weights together, or neither (another buffer holds them), but in a stream.
        let both = apart || (self.joints.is_some() && self.weights.is_some());
        for (name, field) in [("joints", &self.joints), ("weights", &self.weights)] {
            if let Some((offsets, format)) = field.as_ref().filter(|_| both) {
                let bytes: Vec<String> = offsets.iter().map(|o| (4 * o).to_string()).collect();
                let offset = match &bytes[..] {
                    [one] => one.clone(),
                    many => format!("[{}]", many.join(", ")),
                };
                out.push_str(&format!(
                    ", {name}: {{ offset: {offset}, format: {format} }}"
                ));
            }
        }
        out
    }

    /// Whether the tangent is three floats whose fourth word lies on another field or past the
    /// stride: no handedness.
    fn three_floats(&self) -> bool {
        self.tangent.filter(|t| t.len == 3).is_some_and(|t| {
            let w = t.first + 3;
            let covered = (self.taken().iter()).any(|&(o, n)| (o..o + n).contains(&w));
            covered || w >= self.stride
        })
    }

    /// Whether the source tangent is a `vec3` (`tangent_format: vec3`): three floats alone, or
    /// packed in snorm8 by a shader that never reads its handedness.
    pub(super) fn tangent_vec3(&self) -> bool {
        let packed = (self.tangent).and_then(|t| self.packed.get(&t.first));
        self.three_floats() || (self.unhanded && packed == Some(&Encoding::Snorm8))
    }

    /// The output's fields in bytes, where the stores show at least its position.
    pub(super) fn output_fields(&self) -> Option<String> {
        let Stored {
            stride,
            position,
            normal,
            tangent,
        } = self.output?;
        let mut out = format!("stride: {}, position: {}", 4 * stride, 4 * position?.first);
        if let Some(n) = normal {
            out.push_str(&format!(
                ", normal: {}{}",
                4 * n.first,
                self.packed("normal", self.normal, n)
            ));
        }
        if let Some(t) = tangent {
            out.push_str(&format!(
                ", tangent: {}{}",
                4 * t.first,
                self.packed("tangent", self.tangent, t)
            ));
            if t.len == 3 {
                out.push_str(", tangent_format: vec3");
            }
        }
        Some(out)
    }

    /// A field `r` whose source `source` is a packed direction, as many words as its packing
    /// takes: its encoding, and a snorm8 tangent without handedness its format.
    fn packed(&self, name: &str, source: Option<Run>, r: Run) -> String {
        let Some(e) = source.and_then(|s| self.packed.get(&s.first)) else {
            return String::new();
        };
        if e.bytes(3) as i64 != 4 * r.len || name == "position" {
            return String::new();
        }
        let vec3 = name == "tangent" && self.unhanded && *e == Encoding::Snorm8;
        let format = if vec3 { ", tangent_format: vec3" } else { "" };
        format!(", {name}_encoding: {}{format}", e.name())
    }
}

/// Whether `g` is an array of bare 32-bit scalars: byte-addressed.
pub(super) fn is_words(module: &Module, g: &super::read::Global) -> bool {
    super::read::array_element(module, g.handle)
        .is_some_and(|e| matches!(module.types[e].inner, TypeInner::Scalar(s) if s.width == 4))
}

/// Whether `g` is an array of vectors of two or four 32-bit lanes: words in slots.
fn is_slots(module: &Module, g: &super::read::Global) -> bool {
    super::read::array_element(module, g.handle).is_some_and(|e| {
        matches!(module.types[e].inner, TypeInner::Vector { size, scalar }
            if scalar.width == 4 && matches!(size, naga::VectorSize::Bi | naga::VectorSize::Quad))
    })
}

/// The first read-only buffer of bare words (or of vectors, several a vertex) among `globals` not
/// yet `taken` whose loads a trace of entry point `index` lays out as `keep` wants, with that layout; its comment for the draft,
/// the vertex index as the stage names it (`i`, `vertex_index`).
pub(super) fn first_traced<'g>(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[&'g super::read::Global<'g>],
    traced: (usize, super::Target, Option<Handle<naga::GlobalVariable>>),
    taken: &[(u32, u32)],
    keep: impl Fn(&super::read::Global, &Layout) -> bool,
) -> Option<(&'g super::read::Global<'g>, Layout)> {
    // A vector array read one element a vertex is a typed stream, not pulled words.
    each_traced(module, info, globals, traced, taken)
        .find(|(g, l, typed)| !typed && keep(g, l))
        .map(|(g, l, _)| (g, l))
}

/// Each read-only buffer of bare words or of vectors among `globals` not yet `taken` that a
/// trace of entry point `index` lays out, with its layout and whether it is typed: an array of
/// vectors read one element a vertex.
pub(super) fn each_traced<'g, 'a>(
    module: &'a Module,
    info: &'a naga::valid::ModuleInfo,
    globals: &'a [&'g super::read::Global<'g>],
    (index, palette, output): (usize, super::Target, Option<Handle<naga::GlobalVariable>>),
    taken: &'a [(u32, u32)],
) -> impl Iterator<Item = (&'g super::read::Global<'g>, Layout, bool)> + 'a {
    (globals.iter())
        .filter(|g| matches!(g.space, naga::AddressSpace::Storage { .. }) && !g.writable())
        .filter(move |g| !taken.contains(&(g.group, g.binding)))
        .filter(move |g| is_words(module, g) || is_slots(module, g))
        .filter_map(move |g| {
            let targets = Targets {
                buffer: g.variable(module)?,
                palette,
                output,
            };
            let layout = layout(module, info, index, &targets)?;
            let typed = is_slots(module, g)
                && super::read::array_element(module, g.handle).is_some_and(|e| {
                    matches!(module.types[e].inner, TypeInner::Vector { size, .. } if layout.stride <= size as i64)
                });
            Some((*g, layout, typed))
        })
}

/// The draft's lines for traced buffer `g` as the stage's `role` (`vertices` or `influences`):
/// the comment on how it was laid out, then its fields.
pub(super) fn lines(g: &super::read::Global, layout: &Layout, role: &str) -> [String; 2] {
    [
        format!(
            "  # `{}` holds {k} words a vertex (word c of vertex i at `i * {k} + c`): each field where the stage reads it, by what it does with the words (a palette index, a weight, a vector the joints' matrices move: named by its lets, a point's w 1 the position); check each against the shader",
            g.name,
            k = layout.stride
        ),
        format!(
            "  {role}: {{ group: {}, binding: {}, {} }}",
            g.group,
            g.binding,
            layout.vertex_fields()
        ),
    ]
}
