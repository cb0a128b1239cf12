//! A first layout profile for a shader, drafted from naga's reading of it: each role guessed from
//! the types and names of its entry points' inputs and bindings, every guess written with why, and
//! what could not be guessed left as a `TODO` comment.
//!
//! A draft is a start, not a verdict: the harness validates it against the shader as it validates
//! any profile, and the suite then says what the guesses got wrong.

use std::fmt::Write as _;

use naga::{
    AddressSpace, Binding, ImageClass, ImageDimension, Module, ScalarKind, ShaderStage,
    StorageAccess, Type, TypeInner, VectorSize,
};

/// Why no draft could be made.
#[derive(Debug)]
pub enum DraftError {
    /// naga cannot parse the shader (a module split by imports needs its profile's `modules`).
    Parse(String),
    /// No entry point the harness can test: no vertex or compute stage.
    NoStage,
}

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DraftError::Parse(e) => write!(
                f,
                "naga cannot read the shader, so nothing can be drafted from it (a shader split into modules needs a profile's `modules` section first):\n{e}"
            ),
            DraftError::NoStage => write!(
                f,
                "the shader has no vertex or compute entry point, so there is no skinning stage to describe"
            ),
        }
    }
}

impl std::error::Error for DraftError {}

/// A drafted profile: its YAML text, and how many fields are left as `TODO`.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub yaml: String,
    pub todos: usize,
}

/// One global the drafted stages use, as naga declares it.
struct Global<'a> {
    name: String,
    group: u32,
    binding: u32,
    space: AddressSpace,
    ty: &'a TypeInner,
    /// Its type's handle, for member names and element types.
    handle: naga::Handle<Type>,
}

/// One located input of a vertex entry point: its location, name and type.
struct Input<'a> {
    location: u32,
    name: String,
    ty: &'a TypeInner,
}

/// Whether `name` (any case, any separators) contains one of `words`.
fn named(name: &str, words: &[&str]) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "");
    words.iter().any(|w| name.contains(w))
}

const JOINT_WORDS: &[&str] = &["joint", "bone", "index", "indices", "skinindex"];
const WEIGHT_WORDS: &[&str] = &["weight"];
const PALETTE_WORDS: &[&str] = &["bone", "joint", "skin", "palette", "matrices"];
const CAMERA_WORDS: &[&str] = &["viewproj", "proj", "camera", "mvp", "view"];

fn vector(ty: &TypeInner) -> Option<(u8, ScalarKind)> {
    match *ty {
        TypeInner::Vector { size, scalar } if scalar.width == 4 => Some((size as u8, scalar.kind)),
        _ => None,
    }
}

fn is_mat4(ty: &TypeInner) -> bool {
    matches!(
        ty,
        TypeInner::Matrix {
            columns: VectorSize::Quad,
            rows: VectorSize::Quad,
            ..
        }
    )
}

/// The element type of an array, or of the array a struct holds as its only member.
fn array_element(module: &Module, ty: naga::Handle<Type>) -> Option<naga::Handle<Type>> {
    match &module.types[ty].inner {
        TypeInner::Array { base, .. } => Some(*base),
        TypeInner::Struct { members, .. } if members.len() == 1 => {
            match module.types[members[0].ty].inner {
                TypeInner::Array { base, .. } => Some(base),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a type is a joint's matrix: a `mat4x4<f32>`, or (`Some(true)`) a `mat3x4<f32>`
/// holding an affine's three rows.
fn joint_matrix(ty: &TypeInner) -> Option<bool> {
    match ty {
        t if is_mat4(t) => Some(false),
        TypeInner::Matrix {
            columns: VectorSize::Tri,
            rows: VectorSize::Quad,
            ..
        } => Some(true),
        _ => None,
    }
}

/// How a global holds joint matrices, if it does: an array of them, a struct member holding
/// such an array (its name), or an array of structs each holding one (the member's name); with
/// whether each is an affine's rows (`mat3x4<f32>`).
enum Matrices {
    Array,
    Member(String),
    Element(String),
}

fn matrices(module: &Module, g: &Global) -> Option<(Matrices, bool)> {
    if let Some(e) = array_element(module, g.handle) {
        let inner = &module.types[e].inner;
        if let Some(rows) = joint_matrix(inner) {
            return Some((Matrices::Array, rows));
        }
        if let TypeInner::Struct { members, .. } = inner {
            // Per-instance data holding a whole palette (element 0's is the drawn instance's),
            // else one joint's matrix per element.
            if let Some(found) = palette_member(module, members) {
                return Some(found);
            }
            let (m, rows) = members
                .iter()
                .find_map(|m| joint_matrix(&module.types[m.ty].inner).map(|r| (m, r)))?;
            return Some((Matrices::Element(m.name.clone().unwrap_or_default()), rows));
        }
        return None;
    }
    match g.ty {
        TypeInner::Struct { members, .. } => palette_member(module, members),
        _ => None,
    }
}

/// The member of a struct that is an array of joint matrices, if any.
fn palette_member(module: &Module, members: &[naga::StructMember]) -> Option<(Matrices, bool)> {
    members.iter().find_map(|m| match module.types[m.ty].inner {
        TypeInner::Array { base, .. } => joint_matrix(&module.types[base].inner)
            .map(|rows| (Matrices::Member(m.name.clone().unwrap_or_default()), rows)),
        _ => None,
    })
}

/// The struct a global's members are read from: the global's own, or an array's element's.
fn struct_of<'a>(module: &'a Module, g: &'a Global) -> Option<&'a [naga::StructMember]> {
    let ty = array_element(module, g.handle).map_or(g.ty, |e| &module.types[e].inner);
    match ty {
        TypeInner::Struct { members, .. } => Some(members),
        _ => match g.ty {
            TypeInner::Struct { members, .. } => Some(members),
            _ => None,
        },
    }
}

/// The first `mat4x4` member of a struct global (or the global itself, a bare matrix): `None`
/// for the global, `Some(member)`; with how many matrices the struct holds.
fn camera_matrix(module: &Module, g: &Global) -> Option<(Option<String>, usize)> {
    if is_mat4(g.ty) {
        return Some((None, 1));
    }
    let TypeInner::Struct { members, .. } = g.ty else {
        return None;
    };
    let mats: Vec<_> = members
        .iter()
        .filter(|m| is_mat4(&module.types[m.ty].inner))
        .collect();
    let first = mats
        .iter()
        .find(|m| named(m.name.as_deref().unwrap_or(""), CAMERA_WORDS))
        .or(mats.first())?;
    let member = (first.offset != 0).then(|| first.name.clone().unwrap_or_default());
    Some((member, mats.len()))
}

/// The globals the entry points `eps` use, bound buffers, textures and samplers.
fn used_globals<'a>(
    module: &'a Module,
    info: &naga::valid::ModuleInfo,
    eps: &[usize],
) -> Vec<Global<'a>> {
    let mut out = Vec::new();
    for (h, var) in module.global_variables.iter() {
        let Some(b) = &var.binding else { continue };
        let used = eps.iter().any(|&i| !info.get_entry_point(i)[h].is_empty());
        if used {
            out.push(Global {
                name: var.name.clone().unwrap_or_default(),
                group: b.group,
                binding: b.binding,
                space: var.space,
                ty: &module.types[var.ty].inner,
                handle: var.ty,
            });
        }
    }
    out
}

/// The located inputs of a vertex entry point, its arguments' and their structs' members.
fn vertex_inputs<'a>(module: &'a Module, ep: &naga::EntryPoint) -> (Vec<Input<'a>>, bool) {
    let mut out = Vec::new();
    let mut vertex_index = false;
    let mut take = |binding: &Option<Binding>, name: &Option<String>, ty| match binding {
        Some(Binding::Location { location, .. }) => out.push(Input {
            location: *location,
            name: name.clone().unwrap_or_default(),
            ty: &module.types[ty].inner,
        }),
        Some(Binding::BuiltIn(naga::BuiltIn::VertexIndex)) => vertex_index = true,
        _ => {}
    };
    for arg in &ep.function.arguments {
        match &module.types[arg.ty].inner {
            TypeInner::Struct { members, .. } if arg.binding.is_none() => {
                for m in members {
                    take(&m.binding, &m.name, m.ty);
                }
            }
            _ => take(&arg.binding, &arg.name, arg.ty),
        }
    }
    (out, vertex_index)
}

/// The located outputs of a vertex entry point (a struct's members), name and location.
fn vertex_outputs(module: &Module, ep: &naga::EntryPoint) -> Vec<(u32, String, u8)> {
    let Some(result) = &ep.function.result else {
        return Vec::new();
    };
    let TypeInner::Struct { members, .. } = &module.types[result.ty].inner else {
        return Vec::new();
    };
    members
        .iter()
        .filter_map(|m| match m.binding {
            Some(Binding::Location { location, .. }) => {
                let width = vector(&module.types[m.ty].inner).map_or(0, |v| v.0);
                Some((location, m.name.clone().unwrap_or_default(), width))
            }
            _ => None,
        })
        .collect()
}

/// Whether the entry point returns its input at location `input` unchanged as its output at
/// location `output`: stored into that member of the output, or composed into it.
fn passed_through(module: &Module, ep: &naga::EntryPoint, output: u32, input: u32) -> bool {
    use naga::Expression as E;
    let f = &ep.function;
    let located = |b: &Option<Binding>, at: u32| matches!(b, Some(Binding::Location { location, .. }) if *location == at);
    let Some(result) = &f.result else {
        return false;
    };
    let TypeInner::Struct { members, .. } = &module.types[result.ty].inner else {
        return false;
    };
    let Some(k) = members.iter().position(|m| located(&m.binding, output)) else {
        return false;
    };
    // The input: an argument at the location, or a member of a struct argument.
    let is_input = |mut e: naga::Handle<naga::Expression>| loop {
        match f.expressions[e] {
            E::Load { pointer } => e = pointer,
            E::FunctionArgument(i) => return located(&f.arguments[i as usize].binding, input),
            E::AccessIndex { base, index } => match f.expressions[base] {
                E::FunctionArgument(i) => {
                    let arg = &f.arguments[i as usize];
                    return matches!(&module.types[arg.ty].inner, TypeInner::Struct { members, .. }
                        if members.get(index as usize).is_some_and(|m| located(&m.binding, input)));
                }
                _ => return false,
            },
            _ => return false,
        }
    };
    let into_member = |e: naga::Handle<naga::Expression>| matches!(f.expressions[e], E::AccessIndex { index, .. } if index as usize == k);
    fn walk(block: &naga::Block, found: &mut dyn FnMut(&naga::Statement) -> bool) -> bool {
        block.iter().any(|st| {
            found(st)
                || match st {
                    naga::Statement::Block(b) => walk(b, found),
                    naga::Statement::If { accept, reject, .. } => {
                        walk(accept, found) || walk(reject, found)
                    }
                    _ => false,
                }
        })
    }
    walk(&f.body, &mut |st| match *st {
        naga::Statement::Store { pointer, value } => into_member(pointer) && is_input(value),
        naga::Statement::Return { value: Some(v) } => match &f.expressions[v] {
            E::Compose { components, .. } => components.get(k).is_some_and(|&c| is_input(c)),
            _ => false,
        },
        _ => false,
    })
}

/// The vertex entry point most like a skinning one: the one whose inputs hold integer vectors or
/// names of joints, else the first.
fn skinning_vertex(module: &Module) -> Option<usize> {
    let vertex: Vec<usize> = (module.entry_points.iter().enumerate())
        .filter(|(_, e)| e.stage == ShaderStage::Vertex)
        .map(|(i, _)| i)
        .collect();
    let score = |&i: &usize| {
        let (inputs, _) = vertex_inputs(module, &module.entry_points[i]);
        inputs
            .iter()
            .filter(|x| named(&x.name, JOINT_WORDS) || named(&x.name, WEIGHT_WORDS))
            .count()
            + named(&module.entry_points[i].name, &["skin"]) as usize
    };
    // Ties go to the first (max_by_key keeps the last of equals).
    (vertex.iter().copied()).max_by_key(|i| (score(i), std::cmp::Reverse(*i)))
}

/// The text of a drafted profile, line by line.
struct Writer {
    out: String,
    todos: usize,
}

impl Writer {
    fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn todo(&mut self, text: impl AsRef<str>) {
        self.todos += 1;
        let _ = writeln!(self.out, "# TODO: {}", text.as_ref());
    }
}

/// Drafts a profile for the shader `file_name` holding `source`.
pub fn draft(file_name: &str, source: &str) -> Result<Draft, DraftError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| DraftError::Parse(e.emit_to_string_with_path(source, file_name)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| DraftError::Parse(e.emit_to_string_with_path(source, file_name)))?;
    let compute = (module.entry_points.iter()).position(|e| e.stage == ShaderStage::Compute);
    let vertex = skinning_vertex(&module);
    if compute.is_none() && vertex.is_none() {
        return Err(DraftError::NoStage);
    }
    let mut w = Writer {
        out: String::new(),
        todos: 0,
    };
    w.line(format!(
        "# A draft layout profile for {file_name}, from naga's reading of it: each field is a guess from"
    ));
    w.line("# the types and names of the entry points' inputs and bindings, with why. Check each against");
    w.line("# the shader (field reference: shaders/README.md); the suite validates the profile and says");
    w.line("# what a wrong guess breaks.");
    w.line(format!("shader: {file_name}"));
    let fragment = vertex.and_then(|_| fragment_stage(&module, &info));
    let eps: Vec<usize> = (compute.into_iter())
        .chain(vertex)
        .chain(fragment.as_ref().and_then(|f| f.kept))
        .collect();
    let globals = used_globals(&module, &info, &eps);
    let mut taken: Vec<(u32, u32)> = Vec::new();
    let palette = palette(&module, &globals, &mut w, &mut taken);
    let mut extras = Vec::new();
    if let Some(i) = compute {
        let ep = &module.entry_points[i];
        extras = compute_section(&module, &globals, ep, &mut w, &mut taken);
    }
    let mut sets = 1;
    if let Some(i) = vertex {
        let vertex = Stage {
            index: i,
            fragment: fragment.as_ref(),
        };
        sets = vertex_section(&module, &globals, vertex, palette, &mut w, &mut taken);
    }
    bindings(&module, &globals, &taken, &extras, &mut w);
    if sets > 1 {
        w.line(format!(
            "# {sets} joint and weight inputs each: {sets} influence sets of 4 (JOINTS_0/WEIGHTS_0, JOINTS_1/WEIGHTS_1, ...)"
        ));
        w.line(format!("influence_sets: {sets}"));
    }
    constants(&module, &mut w);
    Ok(Draft {
        yaml: w.out,
        todos: w.todos,
    })
}

/// The palette's binding, form and member, written; the global it is, if one was found.
fn palette<'a>(
    module: &Module,
    globals: &'a [Global],
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<&'a Global<'a>> {
    let candidates: Vec<(&Global, (Matrices, bool))> = (globals.iter())
        .filter(|g| g.space != AddressSpace::Handle)
        .filter_map(|g| matrices(module, g).map(|m| (g, m)))
        .collect();
    // A global named as joints beats one that is not; inverse binds are the palette's companion.
    let inverse = |g: &Global| named(&g.name, &["inverse", "invbind", "bindpose"]);
    // Ties go to the first binding (max_by_key keeps the last of equals).
    let chosen = candidates
        .iter()
        .filter(|(g, _)| !inverse(g))
        .max_by_key(|(g, _)| {
            (
                named(&g.name, PALETTE_WORDS),
                std::cmp::Reverse((g.group, g.binding)),
            )
        });
    let Some((g, (form_kind, rows))) = chosen else {
        let texture = globals.iter().find(|g| {
            matches!(
                g.ty,
                TypeInner::Image {
                    dim: ImageDimension::D2,
                    class: ImageClass::Sampled { .. },
                    ..
                }
            ) && named(&g.name, PALETTE_WORDS)
        });
        if let Some(t) = texture {
            taken.push((t.group, t.binding));
            w.line(format!(
                "# `{}` is a texture named as joints: a bone texture, four texels a joint (its matrix's columns) in a power-of-two square; `texels: 3` for an affine's rows, `width: row` or a number as the shader lays it out",
                t.name
            ));
            w.line(format!(
                "palette: {{ group: {}, binding: {}, form: texture, texels: 4, width: square }}",
                t.group, t.binding
            ));
            return Some(t);
        }
        w.todo("no binding holds mat4x4<f32> joint matrices the harness could find: give the palette's group and binding (and `form`)");
        w.line("palette: { group: 0, binding: 0 }");
        return None;
    };
    taken.push((g.group, g.binding));
    let form = match g.space {
        AddressSpace::Uniform => "uniform",
        _ => "storage",
    };
    let mut fields = format!("group: {}, binding: {}, form: {form}", g.group, g.binding);
    let why = match form_kind {
        Matrices::Array => format!("`{}` is an array of joint matrices", g.name),
        Matrices::Member(m) => {
            let _ = write!(fields, ", member: {m}");
            let others = struct_of(module, g)
                .is_some_and(|ms| ms.iter().any(|x| is_mat4(&module.types[x.ty].inner)));
            if others {
                fields.push_str(", fill: identity");
            }
            format!(
                "`{}` holds its joint matrices in member `{m}`{}",
                g.name,
                if others {
                    ", beside other matrices (a model, a view), which become identities"
                } else {
                    ""
                }
            )
        }
        Matrices::Element(m) => {
            let _ = write!(fields, ", element_member: {m}");
            format!(
                "`{}` is an array of structs, each joint's matrix in `{m}`",
                g.name
            )
        }
    };
    if *rows {
        fields.push_str(", matrix: rows");
    }
    if let Some((inv, _)) = candidates.iter().find(|(g, _)| inverse(g)) {
        taken.push((inv.group, inv.binding));
        let _ = write!(
            fields,
            ", inverse_binds: {{ group: {}, binding: {} }}",
            inv.group, inv.binding
        );
        w.line(format!(
            "# `{}` is named as inverse binds: a split palette, the shader multiplying each global by its inverse bind",
            inv.name
        ));
    }
    w.line(format!("# {why}: the palette"));
    w.line(format!("palette: {{ {fields} }}"));
    Some(g)
}

/// The compute stage's section: typed buffers guessed by element type, access and name.
fn compute_section(
    module: &Module,
    globals: &[Global],
    ep: &naga::EntryPoint,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Vec<Extra> {
    w.line("compute:");
    w.line(format!("  entry: {}", ep.name));
    if let Some(extras) = pool_section(module, globals, w, taken) {
        return extras;
    }
    let storage: Vec<&Global> = (globals.iter())
        .filter(|g| matches!(g.space, AddressSpace::Storage { .. }))
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let writable = |g: &Global| matches!(g.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE));
    let element = |g: &Global| array_element(module, g.handle).map(|e| &module.types[e].inner);
    let found = |role: &str, g: &Global, format: &str, why: String, w: &mut Writer| {
        w.line(format!("  # {why}"));
        w.line(format!(
            "  {role}: {{ group: {}, binding: {}, format: {format} }}",
            g.group, g.binding
        ));
    };
    let mut missing = Vec::new();
    for (role, want) in [
        ("positions", &["pos"][..]),
        ("joints", JOINT_WORDS),
        ("weights", WEIGHT_WORDS),
        ("skinned", &["skinned", "out", "result", "dst", "pos"][..]),
    ] {
        let pick = storage.iter().find(|g| {
            !taken.contains(&(g.group, g.binding))
                && (role == "skinned") == writable(g)
                && named(&g.name, want)
        });
        let Some(g) = pick else {
            missing.push(role);
            continue;
        };
        let (format, why) = match (role, element(g).and_then(vector)) {
            ("joints", Some((4, ScalarKind::Uint))) => ("u32x4", "array<vec4<u32>>".to_string()),
            ("joints", Some((2, ScalarKind::Uint))) => {
                ("u16x4", "array<vec2<u32>>: u16 pairs".to_string())
            }
            ("joints", Some((4, ScalarKind::Float))) => {
                ("f32x4", "array<vec4<f32>>: float indices".to_string())
            }
            ("joints", _) => ("u16x4", "words: u16 pairs, low half first".to_string()),
            ("weights", _) => ("f32x4", "array<vec4<f32>>".to_string()),
            (_, Some((3, _))) => ("vec3", "array<vec3<f32>>".to_string()),
            _ => ("vec4", "array<vec4<f32>>".to_string()),
        };
        let why = format!("`{}` is named as {role}, {why}", g.name);
        taken.push((g.group, g.binding));
        found(role, g, format, why, w);
    }
    // Normals and tangents in typed arrays: sources read-only, skinned ones written.
    for (role, words, out) in [
        ("normals", &["normal"][..], false),
        ("tangents", &["tangent"][..], false),
        ("skinned_normals", &["normal"][..], true),
        ("skinned_tangents", &["tangent"][..], true),
    ] {
        let pick = storage.iter().find(|g| {
            !taken.contains(&(g.group, g.binding)) && out == writable(g) && named(&g.name, words)
        });
        let Some(g) = pick else { continue };
        let format = match element(g).and_then(vector) {
            Some((3, ScalarKind::Float)) => "vec3",
            Some((4, ScalarKind::Float)) => "vec4",
            _ => continue,
        };
        taken.push((g.group, g.binding));
        found(
            role,
            g,
            format,
            format!("`{}` is named as {role}, array<{format}<f32>>", g.name),
            w,
        );
    }
    // Storage buffers of bare words or floats: byte-addressed, laid out by offsets no name gives.
    let left: Vec<&&Global> = (storage.iter())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    for g in left {
        let words = element(g).is_some_and(|e| matches!(e, TypeInner::Scalar(_)));
        if words || writable(g) {
            taken.push((g.group, g.binding));
            w.todo(format!(
                "`{}` (@group({}) @binding({})) is a buffer of no role the names tell (an array of 32-bit words is byte-addressed): give it as `compute.vertices`, `compute.influences`, `compute.output` or `compute.regions` with its offsets and stride, or as the role it holds (shaders/README.md)",
                g.name, g.group, g.binding
            ));
        }
    }
    for role in missing {
        w.todo(format!(
            "no storage buffer named as {role}: give `compute.{role}`, or for one byte-addressed buffer `compute.vertices` / `compute.output` (or a vertex pool, `compute.regions`)"
        ));
    }
    let count = (globals.iter())
        .filter(|g| g.space == AddressSpace::Uniform && !taken.contains(&(g.group, g.binding)))
        .find(|g| match g.ty {
            TypeInner::Struct { members, .. } => members.first().is_some_and(|m| {
                matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if s.kind == ScalarKind::Uint)
            }),
            TypeInner::Scalar(s) => s.kind == ScalarKind::Uint,
            _ => false,
        });
    if let Some(g) = count {
        taken.push((g.group, g.binding));
        w.line(format!(
            "  # `{}` is a uniform whose first member is a u32: the vertex count",
            g.name
        ));
        w.line(format!(
            "  count: {{ group: {}, binding: {} }}",
            g.group, g.binding
        ));
    }
    Vec::new()
}

/// Fields a filled binding gets besides its fill: the members the harness writes per case (a
/// vertex pool's count and palette offset), as `(group, binding)` and the text after the fill.
type Extra = ((u32, u32), String);

/// A vertex pool, where the compute stage has one read-write array of words and a struct whose
/// integer members are named as its streams (`base_position_offset`, `updated_normal_offset`):
/// `compute.regions`, each stream's start the member named as it, and the struct a filled binding
/// that also holds the count and the palette's offset where members are named so.
fn pool_section(
    module: &Module,
    globals: &[Global],
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<Vec<Extra>> {
    let free = |g: &&Global| !taken.contains(&(g.group, g.binding));
    let words = |g: &&Global| {
        matches!(g.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE))
            && array_element(module, g.handle).is_some_and(|e| {
                matches!(module.types[e].inner, TypeInner::Scalar(s) if s.kind == ScalarKind::Uint)
            })
    };
    let pools: Vec<&Global> = globals.iter().filter(free).filter(words).collect();
    let [pool] = pools[..] else {
        return None;
    };
    let integer = |m: &naga::StructMember| {
        matches!(module.types[m.ty].inner, TypeInner::Scalar(s)
            if matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint))
    };
    let (starts, members) = globals.iter().filter(free).find_map(|g| match g.ty {
        TypeInner::Struct { members, .. } if members.iter().filter(|m| integer(m)).count() >= 4 => {
            Some((g, members))
        }
        _ => None,
    })?;
    let names: Vec<String> = (members.iter())
        .filter(|m| integer(m))
        .filter_map(|m| m.name.clone())
        .collect();
    let out_words = &["updated", "skinned", "dst", "out", "result", "deformed"][..];
    let mut used: Vec<String> = Vec::new();
    let mut take = |ok: &dyn Fn(&str) -> bool| -> Option<String> {
        let n = names.iter().find(|n| !used.contains(n) && ok(n))?.clone();
        used.push(n.clone());
        Some(n)
    };
    // The per-case members first, so that a palette offset named `joint_matrix_base` is not
    // taken for the joints' start.
    let count = take(&|n| named(n, &["count", "numvert", "vertexnum"]));
    let offset = take(&|n| {
        named(
            n,
            &[
                "matrix",
                "firstjoint",
                "jointbase",
                "jointoffset",
                "skinindex",
            ],
        ) && !named(n, &["indices"])
    });
    let out = |n: &str| named(n, out_words);
    let skinned: Vec<Option<String>> = ["pos", "normal", "tangent"]
        .iter()
        .map(|what| take(&|n| out(n) && named(n, &[what])))
        .collect();
    let sources: Vec<Option<String>> = ["pos", "normal", "tangent"]
        .iter()
        .map(|what| take(&|n| !out(n) && named(n, &[what])))
        .collect();
    let joints = take(&|n| named(n, &["indices", "index", "joint", "bone"]));
    let weights = take(&|n| named(n, WEIGHT_WORDS));
    let (Some(position), Some(joints), Some(weights), Some(skinned_position)) =
        (&sources[0], joints, weights, &skinned[0])
    else {
        return None;
    };
    taken.push((pool.group, pool.binding));
    w.line(format!(
        "  # `{}` is a read-write array of words and `{}`'s integer members are named as streams: a vertex pool, each stream in a region whose start (in bytes; `unit: words` if the shader indexes the pool by it directly) is the member named as it",
        pool.name, starts.name
    ));
    w.line("  regions:");
    w.line(format!("    group: {}", pool.group));
    w.line(format!("    binding: {}", pool.binding));
    w.line(format!(
        "    starts: {{ group: {}, binding: {} }}",
        starts.group, starts.binding
    ));
    w.line(format!(
        "    position: {{ start: {position} }}   # vec3, 12 bytes a vertex; `format: vec4` for 16"
    ));
    if let Some(n) = &sources[1] {
        w.line(format!("    normal: {{ start: {n} }}"));
    }
    if let Some(n) = &sources[2] {
        w.line(format!(
            "    tangent: {{ start: {n}, format: vec3 }}   # vec4 where the pool keeps the handedness"
        ));
    }
    w.line(format!(
        "    joints: {{ start: {joints}, format: u16x4 }}   # the format the pool holds them in"
    ));
    w.line(format!(
        "    weights: {{ start: {weights}, format: f32x4 }}"
    ));
    w.line(format!(
        "    skinned_position: {{ start: {skinned_position} }}"
    ));
    for (what, (out, source)) in ["normal", "tangent"]
        .iter()
        .zip(skinned[1..].iter().zip(&sources[1..]))
    {
        if let (Some(n), Some(_)) = (out, source) {
            w.line(format!("    skinned_{what}: {{ start: {n} }}"));
        }
    }
    let mut extra = String::new();
    match count {
        Some(c) => {
            let _ = write!(extra, ", count: {c}");
        }
        None => w.todo(format!(
            "no member of `{}` is named as the vertex count: give `compute.count` or the member as `bindings[].count`",
            starts.name
        )),
    }
    if let Some(o) = offset {
        let _ = write!(extra, ", palette_offset: {o}");
    }
    Some(vec![((starts.group, starts.binding), extra)])
}

/// The fragment stage a draft names: its entry point, kept (its index) where the harness can bind
/// everything it reads, else left out for the harness's own with why.
struct Fragment {
    name: String,
    kept: Option<usize>,
    why_not: String,
}

/// The vertex entry point a draft describes, and the fragment stage beside it.
struct Stage<'a> {
    index: usize,
    fragment: Option<&'a Fragment>,
}

/// The shader's first fragment entry point: kept unless it reads a texture or sampler (a
/// material's), which the harness cannot fill.
fn fragment_stage(module: &Module, info: &naga::valid::ModuleInfo) -> Option<Fragment> {
    let (i, ep) =
        (module.entry_points.iter().enumerate()).find(|(_, e)| e.stage == ShaderStage::Fragment)?;
    let handles: Vec<String> = (used_globals(module, info, &[i]).into_iter())
        .filter(|g| g.space == AddressSpace::Handle)
        .map(|g| format!("`{}`", g.name))
        .collect();
    Some(Fragment {
        name: ep.name.clone(),
        kept: handles.is_empty().then_some(i),
        why_not: handles.join(", "),
    })
}

/// The vertex stage's section: attributes guessed by type and name, the camera among the
/// uniforms with a matrix, the fragment stage, and a skinning function by its signature.
fn vertex_section(
    module: &Module,
    globals: &[Global],
    stage: Stage,
    palette: Option<&Global>,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> usize {
    let ep = &module.entry_points[stage.index];
    w.line("vertex:");
    w.line(format!("  entry: {}", ep.name));
    match stage.fragment {
        Some(f) if f.kept.is_some() => {
            w.line(format!(
                "  fragment: {}   # its own colours: compared with the goldens by coverage",
                f.name
            ));
            w.line("  colour: any");
        }
        Some(f) => {
            w.line(format!(
                "  # fragment stage `{}` left out: it reads {}, which the harness cannot fill; the harness draws with its own, in one colour",
                f.name, f.why_not
            ));
            w.line("  colour: any");
        }
        None => {
            w.line("  # no fragment entry point: the harness adds one, drawing in one colour");
            w.line("  colour: any");
        }
    }
    let (inputs, pulls) = vertex_inputs(module, ep);
    if pulls && inputs.is_empty() {
        w.todo("the stage takes no attributes and reads @builtin(vertex_index): it pulls its vertices; give `vertex.vertices` (byte-addressed offsets, see shaders/README.md)");
    }
    let mut used = Vec::new();
    let pick = |used: &mut Vec<u32>, ok: &dyn Fn(&Input) -> bool| -> Option<usize> {
        let i = inputs
            .iter()
            .position(|x| !used.contains(&x.location) && ok(x))?;
        used.push(inputs[i].location);
        Some(i)
    };
    let float = |x: &Input, n: u8| vector(x.ty) == Some((n, ScalarKind::Float));
    let joint_like = |x: &Input| {
        named(&x.name, JOINT_WORDS)
            && matches!(
                vector(x.ty),
                Some((4 | 2, ScalarKind::Uint)) | Some((4, ScalarKind::Float))
            )
    };
    let joints = pick(&mut used, &joint_like).or_else(|| {
        pick(&mut used, &|x| {
            matches!(vector(x.ty), Some((4, ScalarKind::Uint)))
        })
    });
    let weight_like = |x: &Input| named(&x.name, WEIGHT_WORDS) && float(x, 4);
    let weights = pick(&mut used, &weight_like);
    // Further sets of 4 (JOINTS_1 and WEIGHTS_1): more inputs of each kind, in location order.
    let mut more = Vec::new();
    while more.len() < 3 {
        let (Some(j), Some(k)) = (pick(&mut used, &joint_like), pick(&mut used, &weight_like))
        else {
            break;
        };
        more.push((inputs[j].location, inputs[k].location));
    }
    let sets = 1 + more.len();
    let locations = |first: Option<usize>, of: fn(&(u32, u32)) -> u32| match first {
        Some(i) if sets > 1 => {
            let all: Vec<String> = std::iter::once(inputs[i].location)
                .chain(more.iter().map(of))
                .map(|l| l.to_string())
                .collect();
            format!("[{}]", all.join(", "))
        }
        Some(i) => inputs[i].location.to_string(),
        None => String::new(),
    };
    let joint_locations = locations(joints, |p| p.0);
    let weight_locations = locations(weights, |p| p.1);
    let position = pick(&mut used, &|x| {
        named(&x.name, &["pos"]) && (float(x, 3) || float(x, 4) || float(x, 2))
    });
    let normal = pick(&mut used, &|x| named(&x.name, &["normal"]) && float(x, 3));
    let tangent = pick(&mut used, &|x| {
        named(&x.name, &["tangent"]) && (float(x, 4) || float(x, 3))
    });
    match position {
        Some(i) => {
            let format = match vector(inputs[i].ty) {
                Some((2, _)) => "vec2",
                _ => "vec3",
            };
            w.line(format!(
                "  position: {{ location: {}, format: {format} }}   # `{}`",
                inputs[i].location, inputs[i].name
            ));
        }
        None if !pulls => w.todo("no input named as a position: give `vertex.position`"),
        None => {}
    }
    match joints {
        Some(i) => {
            let x = &inputs[i];
            let (format, why) = match vector(x.ty) {
                Some((2, _)) => ("u16x4", "vec2<u32>: two u16 indices a word"),
                Some((_, ScalarKind::Float)) => ("f32x4", "float indices"),
                _ => (
                    "u16x4",
                    "vec4<u32> reads u8x4, u16x4 or u32x4: say how your vertex buffer stores them",
                ),
            };
            w.line(format!(
                "  joints: {{ location: {joint_locations}, format: {format} }}   # `{}`, {why}",
                x.name
            ));
        }
        None if !pulls => {
            w.todo("no integer vec4 input or one named as joints: give `vertex.joints`")
        }
        None => {}
    }
    match weights {
        Some(i) => w.line(format!(
            "  weights: {{ location: {weight_locations}, format: f32x4 }}   # `{}`; unorm8x4 or unorm16x4 where the buffer stores them so",
            inputs[i].name
        )),
        None if !pulls => w.todo("no vec4<f32> input named as weights: give `vertex.weights`"),
        None => {}
    }
    if let Some(i) = normal {
        w.line(format!(
            "  normal: {{ location: {} }}   # `{}`",
            inputs[i].location, inputs[i].name
        ));
    }
    if let Some(i) = tangent {
        let format = if float(&inputs[i], 3) {
            ", format: vec3"
        } else {
            ""
        };
        w.line(format!(
            "  tangent: {{ location: {}{format} }}   # `{}`",
            inputs[i].location, inputs[i].name
        ));
    }
    let outputs = vertex_outputs(module, ep);
    for (source, what) in [(normal, "normal"), (tangent, "tangent")] {
        let Some(source) = source else {
            continue;
        };
        if let Some((location, name, _)) = outputs.iter().find(|(_, n, _)| named(n, &[what])) {
            if passed_through(module, ep, *location, inputs[source].location) {
                w.line(format!(
                    "  # the output `{name}` is the input `{}` passed through unskinned: no skinned {what} to compare",
                    inputs[source].name
                ));
                continue;
            }
            w.line(format!(
                "  skinned_{what}: {{ location: {location} }}   # the output `{name}`: compared where no skinning function is named"
            ));
        }
    }
    camera(module, globals, palette, w, taken);
    if let Some(name) = skin_function(module) {
        w.line(format!(
            "  skin_function: {name}   # its signature is a skinning function's: compared number by number through it"
        ));
    } else {
        w.line("  # no function with a skinning signature: the harness compares the entry point through a copy of it");
    }
    sets
}

/// The camera: a uniform holding a mat4x4 (named as a view or projection first), or a matrix
/// member of the palette's struct.
fn camera(
    module: &Module,
    globals: &[Global],
    palette: Option<&Global>,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) {
    let uniforms: Vec<&Global> = (globals.iter())
        .filter(|g| g.space == AddressSpace::Uniform)
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let with_matrix: Vec<(&Global, (Option<String>, usize))> = (uniforms.iter())
        .filter_map(|g| camera_matrix(module, g).map(|m| (*g, m)))
        .collect();
    // Named as a camera first; ties go to the first binding.
    let chosen = (with_matrix.iter()).max_by_key(|(g, (m, _))| {
        let camera =
            named(&g.name, CAMERA_WORDS) || m.as_deref().is_some_and(|m| named(m, CAMERA_WORDS));
        (camera, std::cmp::Reverse((g.group, g.binding)))
    });
    if let Some((g, (member, count))) = chosen {
        taken.push((g.group, g.binding));
        let mut fields = format!("group: {}, binding: {}, form: matrix", g.group, g.binding);
        if let Some(m) = member {
            let _ = write!(fields, ", member: {m}");
        }
        if *count > 1 {
            fields.push_str(", fill: identity");
        }
        w.line(format!(
            "  # `{}` holds a mat4x4<f32>: the camera's view-projection{}",
            g.name,
            if *count > 1 {
                "; its other matrices (a view, a model matrix) become identities"
            } else {
                ""
            }
        ));
        w.line(format!("  camera: {{ {fields} }}"));
        return;
    }
    // The palette's own struct may hold the camera (one uniform per draw).
    if let Some(p) = palette.filter(|p| matches!(p.ty, TypeInner::Struct { .. })) {
        if let Some((Some(member), _)) = camera_matrix(module, p) {
            w.line(format!(
                "  # the palette's struct `{}` holds a mat4x4<f32> member `{member}`: the camera",
                p.name
            ));
            w.line(format!(
                "  camera: {{ group: {}, binding: {}, form: matrix, member: {member} }}",
                p.group, p.binding
            ));
            return;
        }
    }
    // A struct of four floats: the contract's 2D view (scale, offset_y, half_width, pad).
    let view = uniforms.iter().find(|g| match g.ty {
        TypeInner::Struct { members, .. } => {
            members.len() == 4
                && members.iter().all(|m| {
                    matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if s.kind == ScalarKind::Float)
                })
        }
        _ => false,
    });
    if let Some(g) = view {
        taken.push((g.group, g.binding));
        w.line(format!(
            "  # `{}` is a struct of four floats: the contract's 2D view (scale, offset_y, half_width, pad)",
            g.name
        ));
        w.line(format!(
            "  camera: {{ group: {}, binding: {}, form: view }}",
            g.group, g.binding
        ));
        return;
    }
    w.todo("no uniform holding a mat4x4<f32> camera: give `vertex.camera` (`form: matrix`, or `view` for the contract's 2D view); the binding below is a free one, a placeholder");
    let used: Vec<(u32, u32)> = globals.iter().map(|g| (g.group, g.binding)).collect();
    let free = (0..).find(|b| !used.contains(&(3, *b))).unwrap_or(0);
    w.line(format!(
        "  camera: {{ group: 3, binding: {free}, form: matrix }}"
    ));
}

/// A function whose signature is one of the skinning function's: `(joints, weights) ->
/// mat4x4<f32>`, or `(position, joints, weights) -> vec3 or vec4`.
fn skin_function(module: &Module) -> Option<String> {
    let ty = |h: naga::Handle<Type>| &module.types[h].inner;
    let joints =
        |t: &TypeInner| matches!(vector(t), Some((4, ScalarKind::Uint | ScalarKind::Float)));
    let weights = |t: &TypeInner| vector(t) == Some((4, ScalarKind::Float));
    module.functions.iter().find_map(|(_, f)| {
        let args: Vec<&TypeInner> = f.arguments.iter().map(|a| ty(a.ty)).collect();
        let result = f.result.as_ref().map(|r| ty(r.ty))?;
        let blended = args.len() >= 2 && joints(args[0]) && weights(args[1]) && is_mat4(result);
        let moved = args.len() >= 3
            && matches!(vector(args[0]), Some((3 | 4, ScalarKind::Float)))
            && joints(args[1])
            && weights(args[2])
            && matches!(vector(result), Some((3 | 4, ScalarKind::Float)));
        (blended || moved).then(|| f.name.clone()).flatten()
    })
}

/// The pipeline-overridable constants without a default, each given a placeholder to replace:
/// the pipeline must set them.
fn constants(module: &Module, w: &mut Writer) {
    let open: Vec<String> = (module.overrides.iter())
        .filter(|(_, o)| o.init.is_none())
        .map(|(_, o)| {
            let key = match (o.id, &o.name) {
                (Some(id), _) => id.to_string(),
                (None, Some(name)) => name.clone(),
                (None, None) => "0".into(),
            };
            let value = match module.types[o.ty].inner {
                TypeInner::Scalar(naga::Scalar {
                    kind: ScalarKind::Bool,
                    ..
                }) => "false",
                _ => "0",
            };
            let name = o.name.clone().unwrap_or_default();
            format!("  {key}: {value}   # `{name}`")
        })
        .collect();
    if open.is_empty() {
        return;
    }
    w.todo("each override below has no default: give the value the engine's pipeline sets (these are placeholders)");
    w.line("constants:");
    for line in open {
        w.line(line);
    }
}

/// Whether a type holds a float matrix anywhere (a member, an array's element).
fn has_matrix(module: &Module, ty: naga::Handle<Type>) -> bool {
    match &module.types[ty].inner {
        TypeInner::Matrix { .. } => true,
        TypeInner::Array { base, .. } => has_matrix(module, *base),
        TypeInner::Struct { members, .. } => members.iter().any(|m| has_matrix(module, m.ty)),
        _ => false,
    }
}

/// The other buffers the stages read, each a filled binding (identities where its type holds
/// matrices); textures and samplers the harness cannot fill are named.
fn bindings(
    module: &Module,
    globals: &[Global],
    taken: &[(u32, u32)],
    extras: &[Extra],
    w: &mut Writer,
) {
    let rest: Vec<&Global> = (globals.iter())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let (buffers, handles): (Vec<&Global>, Vec<&Global>) = rest
        .into_iter()
        .partition(|g| g.space != AddressSpace::Handle);
    if !buffers.is_empty() {
        w.line("# Other buffers the stages read, filled by the harness: zeros, identities in their matrices");
        w.line("bindings:");
        for g in buffers {
            let holds_matrix = has_matrix(module, g.handle);
            let fill = if holds_matrix { ", fill: identity" } else { "" };
            let extra = (extras.iter())
                .find(|(at, _)| *at == (g.group, g.binding))
                .map_or("", |(_, e)| e.as_str());
            w.line(format!(
                "  - {{ group: {}, binding: {}{fill}{extra} }}   # `{}`",
                g.group, g.binding, g.name
            ));
        }
    }
    for g in handles {
        w.todo(format!(
            "`{}` (@group({}) @binding({})) is a texture or sampler the stages read, which the harness cannot fill: leave `vertex.fragment` out where only the fragment stage reads it",
            g.name, g.group, g.binding
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The draft parsed as a profile, and the contract it describes.
    fn contract(yaml: &str) -> crate::contract::Contract {
        crate::profile::Profile::parse(Path::new("draft.profile.yaml"), yaml)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"))
            .contract()
    }

    /// The default shader's draft puts every role where the built-in contract has it.
    #[test]
    fn the_default_shader_drafts_to_its_own_contract() {
        let source = include_str!("../../shaders/skinning.wgsl");
        let d = draft("skinning.wgsl", source).unwrap();
        assert_eq!(d.todos, 0, "{}", d.yaml);
        let place = |c: &crate::contract::Contract| {
            let mut v: Vec<(String, u32, u32)> = (c.slots.iter())
                .map(|s| (format!("{:?}", s.role), s.group, s.binding))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            place(&contract(&d.yaml)),
            place(&crate::contract::Contract::builtin()),
            "{}",
            d.yaml
        );
    }

    /// An engine's vertex stage: attributes named as bones, a camera struct of two matrices, a
    /// palette by name, a material's texture in the fragment stage (left out), a second set of
    /// influences and an override without a default.
    #[test]
    fn an_engine_vertex_stage_is_drafted_from_names_and_types() {
        let source = r#"
@id(3) override USE_SECOND: bool;
struct Camera { view: mat4x4<f32>, proj: mat4x4<f32> }
struct Light { dir: vec4<f32> }
@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<uniform> light: Light;
@group(1) @binding(0) var<storage, read> bone_matrices: array<mat4x4<f32>>;
@group(2) @binding(0) var albedo: texture_2d<f32>;
@group(2) @binding(1) var albedo_sampler: sampler;
struct In {
    @location(0) pos: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(4) bone_ids: vec4<u32>,
    @location(5) bone_weights: vec4<f32>,
    @location(6) bone_ids_1: vec4<u32>,
    @location(7) bone_weights_1: vec4<f32>,
}
struct Out { @builtin(position) clip: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(v: In) -> Out {
    var m = bone_matrices[v.bone_ids.x] * v.bone_weights.x;
    if (USE_SECOND) { m = m + bone_matrices[v.bone_ids_1.x] * v.bone_weights_1.x; }
    let p = camera.proj * camera.view * m * vec4<f32>(v.pos, 1.0) * light.dir.w;
    return Out(p, v.uv);
}
@fragment fn fs(o: Out) -> @location(0) vec4<f32> {
    return textureSample(albedo, albedo_sampler, o.uv);
}
"#;
        let d = draft("engine.wgsl", source).unwrap();
        let y = &d.yaml;
        for want in [
            "palette: { group: 1, binding: 0, form: storage }",
            "joints: { location: [4, 6], format: u16x4 }",
            "weights: { location: [5, 7], format: f32x4 }",
            "camera: { group: 0, binding: 0, form: matrix, fill: identity }",
            "# fragment stage `fs` left out: it reads `albedo`, `albedo_sampler`",
            "  - { group: 0, binding: 1 }   # `light`",
            "influence_sets: 2",
            "  3: false   # `USE_SECOND`",
        ] {
            assert!(y.contains(want), "no `{want}` in:\n{y}");
        }
        assert_eq!(d.todos, 1, "{y}");
        let c = contract(y);
        assert_eq!(c.influence_sets, 2);
        assert!(c.fragment.is_none() && !c.tint);
    }

    /// The drafts of the example shapes: those without byte-addressed buffers or modules pass
    /// `shader::validates` as drafted (the README's count).
    #[test]
    fn most_example_drafts_validate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut shaders = vec![root.join("shaders/skinning.wgsl")];
        for e in std::fs::read_dir(root.join("shaders/examples")).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "wgsl") {
                shaders.push(path);
            }
        }
        let mut valid = Vec::new();
        for path in &shaders {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let source = std::fs::read_to_string(path).unwrap();
            let Ok(d) = draft(&name, &source) else {
                continue;
            };
            let at = path.with_file_name("draft.profile.yaml");
            let shader = crate::shader::Shader::with_profile_text(path, source, &at, &d.yaml);
            if shader.and_then(|s| s.validate().map(|_| ())).is_ok() {
                valid.push(name);
            }
        }
        valid.sort();
        assert_eq!((shaders.len(), valid.len()), (24, 17), "{valid:?}");
    }

    /// A normal output is a skinned normal unless the entry point returns its input unchanged
    /// (stored into the output's member, or composed into it).
    #[test]
    fn a_normal_passed_through_is_no_skinned_normal() {
        let shader = |body: &str| {
            format!(
                "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
    @location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
    let m = bones[joints.x] * weights.x;
    var out: Out;
    out.clip = view_proj * m * vec4<f32>(position, 1.0);
    {body}
    return out;
}}"
            )
        };
        let through = draft("t.wgsl", &shader("out.normal = normal;"))
            .unwrap()
            .yaml;
        assert!(
            through.contains("the output `normal` is the input `normal` passed through unskinned")
                && !through.contains("skinned_normal:"),
            "{through}"
        );
        let skinned = shader("out.normal = normalize((m * vec4<f32>(normal, 0.0)).xyz);");
        let skinned = draft("t.wgsl", &skinned).unwrap().yaml;
        assert!(
            skinned.contains("  skinned_normal: { location: 0 }"),
            "{skinned}"
        );
    }

    #[test]
    fn a_shader_without_a_skinning_stage_or_unreadable_is_refused() {
        let only_fragment =
            "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }";
        assert!(matches!(
            draft("f.wgsl", only_fragment),
            Err(DraftError::NoStage)
        ));
        let err = draft("broken.wgsl", "fn (").unwrap_err().to_string();
        assert!(
            err.contains("broken.wgsl") && err.contains("naga cannot read"),
            "{err}"
        );
    }

    #[test]
    fn names_match_in_any_case_and_separators() {
        assert!(named("JOINT_INDICES", JOINT_WORDS));
        assert!(named("skinIndex", JOINT_WORDS));
        assert!(named("a_Weights", WEIGHT_WORDS));
        assert!(!named("uv", WEIGHT_WORDS));
        assert!(named("view_proj", CAMERA_WORDS));
    }
}
