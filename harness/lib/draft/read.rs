//! What a draft reads of a shader: the globals its stages use, a vertex stage's located inputs
//! and outputs, and the types and names that tell a role.

use naga::{AddressSpace, Binding, Module, ScalarKind, ShaderStage, Type, TypeInner, VectorSize};

/// One global the drafted stages use, as naga declares it.
pub(super) struct Global<'a> {
    pub(super) name: String,
    pub(super) group: u32,
    pub(super) binding: u32,
    pub(super) space: AddressSpace,
    pub(super) ty: &'a TypeInner,
    /// Its type's handle, for member names and element types.
    pub(super) handle: naga::Handle<Type>,
}

impl<'a> Global<'a> {
    /// A bound global variable as the draft reads it; None for one without a binding.
    fn of(module: &'a Module, var: &naga::GlobalVariable) -> Option<Global<'a>> {
        let b = var.binding.as_ref()?;
        Some(Global {
            name: name_of(module, var),
            group: b.group,
            binding: b.binding,
            space: var.space,
            ty: &module.types[var.ty].inner,
            handle: var.ty,
        })
    }

    /// Whether the shader may write it: a `read_write` storage buffer.
    pub(super) fn writable(&self) -> bool {
        matches!(self.space, AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
    }

    /// The module's variable at this global's group and binding.
    pub(super) fn variable(&self, module: &Module) -> Option<naga::Handle<naga::GlobalVariable>> {
        crate::shader::global_handle_at(module, self.group, self.binding)
    }
}

/// A global's name, or where it has none (naga names a block without an instance name `unnamed`,
/// `unnamed_3` from SPIR-V, `global`, `global_2` from GLSL) the name of its struct's one member
/// (`dst_pos` of `buffer Dst { vec4 dst_pos[]; }`), which says what it holds.
fn name_of(module: &Module, var: &naga::GlobalVariable) -> String {
    let name = var.name.clone().unwrap_or_default();
    let numbered = |stem: &str| {
        name.strip_prefix(stem).is_some_and(|rest| {
            rest.is_empty()
                || rest
                    .strip_prefix('_')
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
        })
    };
    let unnamed = name.is_empty() || numbered("unnamed") || numbered("global");
    match &module.types[var.ty].inner {
        TypeInner::Struct { members, .. } if unnamed && members.len() == 1 => {
            members[0].name.clone().unwrap_or(name)
        }
        _ => name,
    }
}

/// One located input of a vertex entry point: its location, name and type.
pub(super) struct Input<'a> {
    pub(super) location: u32,
    pub(super) name: String,
    pub(super) ty: &'a TypeInner,
}

/// Whether `name` (any case, any separators) contains one of `words`.
pub(super) fn named(name: &str, words: &[&str]) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "");
    words.iter().any(|w| name.contains(w))
}

pub(super) const JOINT_WORDS: &[&str] = &["joint", "bone", "index", "indices", "skinindex"];
pub(super) const WEIGHT_WORDS: &[&str] = &["weight"];
pub(super) const PALETTE_WORDS: &[&str] = &["bone", "joint", "skin", "palette", "matrices"];

/// The words of [`PALETTE_WORDS`] that say joints, not any matrices.
const JOINTS_PALETTE_WORDS: &[&str] = &["bone", "joint", "skin", "palette"];

/// How strongly `name` says it holds the joints: 2 named as bones, joints, skin or a palette; 1
/// as matrices alone (a draw's `transformationMatrices` is named so too); 0 not.
pub(super) fn palette_score(name: &str) -> u8 {
    if named(name, JOINTS_PALETTE_WORDS) {
        2
    } else {
        u8::from(named(name, PALETTE_WORDS))
    }
}

pub(super) const CAMERA_WORDS: &[&str] = &["viewproj", "proj", "camera", "mvp", "view"];
/// Names of an engine's per-instance skin offset: where the mesh's joint 0 lies in a palette
/// shared by many meshes (a vertex pool's struct, a per-instance one).
pub(super) const OFFSET_WORDS: &[&str] = &[
    "skinindex",
    "skinoffset",
    "jointoffset",
    "jointbase",
    "firstjoint",
    "boneoffset",
    "bonebase",
    "firstbone",
    "paletteoffset",
    "matrixoffset",
    "matrixbase",
];

pub(super) fn vector(ty: &TypeInner) -> Option<(u8, ScalarKind)> {
    match *ty {
        TypeInner::Vector { size, scalar } if scalar.width == 4 => Some((size as u8, scalar.kind)),
        _ => None,
    }
}

pub(super) fn is_mat4(ty: &TypeInner) -> bool {
    matches!(
        ty,
        TypeInner::Matrix {
            columns: VectorSize::Quad,
            rows: VectorSize::Quad,
            ..
        }
    )
}

/// The element type of an array, or of the array a struct holds as its only member
/// ([`crate::contract::unwrapped`], as the harness binds it).
pub(super) fn array_element(module: &Module, ty: naga::Handle<Type>) -> Option<naga::Handle<Type>> {
    match module.types[crate::contract::unwrapped(&module.types, ty)].inner {
        TypeInner::Array { base, .. } => Some(base),
        _ => None,
    }
}

/// Whether a type is a joint's matrix: a `mat4x4<f32>` (or a `mat4x3<f32>`, an affine's four
/// columns, laid out as a mat4x4's), or (`Some(true)`) a `mat3x4<f32>` holding an affine's three
/// rows.
pub(super) fn joint_matrix(ty: &TypeInner) -> Option<bool> {
    match ty {
        t if is_mat4(t) => Some(false),
        TypeInner::Matrix {
            columns: VectorSize::Quad,
            rows: VectorSize::Tri,
            scalar,
        } if *scalar == naga::Scalar::F32 => Some(false),
        TypeInner::Matrix {
            columns: VectorSize::Tri,
            rows: VectorSize::Quad,
            ..
        } => Some(true),
        _ => None,
    }
}

/// How a global holds joint matrices, if it does: an array of them, a struct member holding
/// such an array (its name; the array's elements may be structs each holding one, the third
/// field that member's name), or an array of structs each holding one (the member's name); with
/// whether each is an affine's rows (`mat3x4<f32>`). A member or an element may have each
/// joint's normal matrix beside it (its name): a parallel array, or a second member.
pub(super) enum Matrices {
    Array,
    Member(String, Option<String>, Option<String>),
    Element(String, Option<String>),
}

/// Names of each joint's own normal matrix (`transforms_inv_transpose`, `normal_matrices`).
const NORMAL_MATRIX_WORDS: &[&str] = &["normal", "transpose", "invtrans", "cofactor"];

/// The member named as the joints' normal matrices that `is` accepts, other than `taken`.
fn normal_member(
    members: &[naga::StructMember],
    taken: &str,
    is: impl Fn(&naga::StructMember) -> bool,
) -> Option<String> {
    members
        .iter()
        .filter(|m| {
            m.name
                .as_deref()
                .is_some_and(|n| n != taken && named(n, NORMAL_MATRIX_WORDS))
        })
        .find(|m| is(m))
        .and_then(|m| m.name.clone())
}

/// The members, those named as normal matrices last: the joints' matrices are found before
/// their normal matrices, which may be `mat4x4<f32>` too.
fn named_last(members: &[naga::StructMember]) -> Vec<&naga::StructMember> {
    let normal = |m: &&naga::StructMember| {
        m.name
            .as_deref()
            .is_some_and(|n| named(n, NORMAL_MATRIX_WORDS))
    };
    let mut out: Vec<_> = members.iter().filter(|m| !normal(m)).collect();
    out.extend(members.iter().filter(normal));
    out
}

pub(super) fn matrices(module: &Module, g: &Global) -> Option<(Matrices, bool)> {
    if let Some(e) = array_element(module, g.handle) {
        let inner = &module.types[e].inner;
        if let Some(rows) = joint_matrix(inner) {
            return Some((Matrices::Array, rows));
        }
        // An affine's rows as three vec4 members (`r0`, `r1`, `r2`), in a buffer named so.
        if crate::contract::is_row_struct(&module.types, inner) && named(&g.name, PALETTE_WORDS) {
            return Some((Matrices::Array, true));
        }
        // Bare vec4 slots, a joint's rows or columns one after another, read at a joint's index
        // times 3 or 4 (`bones[j * 3u + r]`), as engines with a WebGL past keep them, named as a
        // palette or not (`u_uniformArray`).
        if holds_vec4(module, g) {
            let var = g.variable(module)?;
            let slots = crate::slots::per_joint(module, var)?;
            return Some((Matrices::Array, crate::slots::rows(module, var, slots)));
        }
        if let TypeInner::Struct { members, .. } = inner {
            // Per-instance data holding a whole palette (element 0's is the drawn instance's),
            // else one joint's matrix per element.
            if let Some(found) = palette_member(module, members) {
                return Some(found);
            }
            let (m, rows) = named_last(members)
                .into_iter()
                .find_map(|m| joint_matrix(&module.types[m.ty].inner).map(|r| (m, r)))?;
            let name = m.name.clone().unwrap_or_default();
            let normal = normal_member(members, &name, |n| {
                crate::contract::is_normal_matrix(&module.types[n.ty].inner)
            });
            return Some((Matrices::Element(name, normal), rows));
        }
        return None;
    }
    match g.ty {
        TypeInner::Struct { members, .. } => {
            palette_member(module, members).or_else(|| slot_member(module, g, members))
        }
        _ => None,
    }
}

/// A member of `vec4<f32>` slots beside others, named as a palette and read at a joint's index
/// times 3 or 4 (Urho3D's `cSkinMatrices` after `cModel`): the member, and whether its slots are
/// each joint's rows.
fn slot_member(
    module: &Module,
    g: &Global,
    members: &[naga::StructMember],
) -> Option<(Matrices, bool)> {
    let place = slot_place(module, g)?;
    let name = members.get(place.member? as usize)?.name.clone()?;
    let slots = crate::slots::per_joint(module, place)?;
    let rows = crate::slots::rows(module, place, slots);
    Some((Matrices::Member(name, None, None), rows))
}

/// Where `g` holds a palette's bare `vec4<f32>` slots: itself (an array of them, or a struct
/// holding only one), or the member of its struct named as a palette that is one.
pub(super) fn slot_place(module: &Module, g: &Global) -> Option<crate::slots::Place> {
    let var = g.variable(module)?;
    if holds_vec4(module, g) {
        return Some(var.into());
    }
    let TypeInner::Struct { members, .. } = g.ty else {
        return None;
    };
    let k = members.iter().position(|m| {
        let slots = matches!(module.types[m.ty].inner, TypeInner::Array { base, .. }
            if crate::slots::is_vec4f(&module.types[base].inner));
        slots && m.name.as_deref().is_some_and(|n| named(n, PALETTE_WORDS))
    })?;
    Some(crate::slots::Place {
        global: var,
        member: Some(k as u32),
    })
}

/// Names of an index table (`s_indices`, `jointsMatrixIndexTable`, `remap`).
const TABLE_WORDS: &[&str] = &["index", "indices", "table", "lookup", "remap"];

/// Whether `g` is an index table the harness fills as a sequence: a read-only array of i32, u32
/// or f32 (or a struct ending in one) named as indices or a table.
pub(super) fn index_table(module: &Module, g: &Global) -> bool {
    crate::shader::scalar_array(module, g.handle).is_some()
        && !g.writable()
        && named(&g.name, TABLE_WORDS)
}

/// The module's bound index tables ([`index_table`]), which the draft fills as sequences.
pub(super) fn index_tables(module: &Module) -> Vec<naga::Handle<naga::GlobalVariable>> {
    (module.global_variables.iter())
        .filter(|(_, v)| Global::of(module, v).is_some_and(|g| index_table(module, &g)))
        .map(|(h, _)| h)
        .collect()
}

/// Whether `g` is an array of `vec4<f32>` (or a struct holding only one).
pub(super) fn holds_vec4(module: &Module, g: &Global) -> bool {
    array_element(module, g.handle).is_some_and(|e| crate::slots::is_vec4f(&module.types[e].inner))
}

/// The member of a struct that is an array of joint matrices, if any.
pub(super) fn palette_member(
    module: &Module,
    members: &[naga::StructMember],
) -> Option<(Matrices, bool)> {
    // Each element a joint's matrix, or a struct holding one (astraweave's `JointMatrix`).
    let element = |base: naga::Handle<naga::Type>| match &module.types[base].inner {
        TypeInner::Struct { members, .. } => (named_last(members).into_iter())
            .find_map(|e| joint_matrix(&module.types[e.ty].inner).map(|r| (e.name.clone(), r))),
        t => joint_matrix(t).map(|r| (None, r)),
    };
    let (m, (inner, rows)) =
        named_last(members)
            .into_iter()
            .find_map(|m| match module.types[m.ty].inner {
                TypeInner::Array { base, .. } => element(base).map(|e| (m, e)),
                _ => None,
            })?;
    let name = m.name.clone().unwrap_or_default();
    // A parallel array: fixed-length, as a struct holding two arrays has it.
    let normal = normal_member(members, &name, |n| match module.types[n.ty].inner {
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(_),
            ..
        } => crate::contract::is_normal_matrix(&module.types[base].inner),
        _ => false,
    });
    Some((Matrices::Member(name, normal, inner), rows))
}

/// The struct a global's members are read from: the global's own, or an array's element's.
pub(super) fn struct_of<'a>(module: &'a Module, g: &'a Global) -> Option<&'a [naga::StructMember]> {
    let ty = array_element(module, g.handle).map_or(g.ty, |e| &module.types[e].inner);
    match ty {
        TypeInner::Struct { members, .. } => Some(members),
        _ => match g.ty {
            TypeInner::Struct { members, .. } => Some(members),
            _ => None,
        },
    }
}

/// The camera's matrix in a uniform global, as [`camera_matrix`] finds it.
pub(super) struct CameraMatrix {
    /// `None` for the global, or a member at byte 0; `Some(member)` past it.
    pub(super) member: Option<String>,
    /// How many matrices the global holds.
    pub(super) count: usize,
    /// Whether the clip position reads the matrix (or one of the struct's).
    pub(super) clipped: bool,
}

/// The first `mat4x4` member of a struct global (or the global itself, a bare matrix): `None`
/// for the global, `Some(member)`; with how many matrices the struct holds. A short array of
/// matrices named as a camera's (`proj_view: array<mat4x4f, 2>`, multiplied element by element)
/// holds the camera in element 0, its other elements identities. `clip`: the struct's members the
/// clip position is computed from ([`super::flow::clip_members`]); where one of them is a matrix,
/// the camera is one of those (the others are identities, so any of them takes it).
pub(super) fn camera_matrix(module: &Module, g: &Global, clip: &[u32]) -> Option<CameraMatrix> {
    let whole = |count| CameraMatrix {
        member: None,
        count,
        clipped: clip.contains(&super::flow::WHOLE),
    };
    if is_mat4(g.ty) {
        return Some(whole(1));
    }
    if let TypeInner::Array {
        base,
        size: naga::ArraySize::Constant(n),
        ..
    } = g.ty
    {
        let n = n.get() as usize;
        let short = (2..=4).contains(&n) && named(&g.name, CAMERA_WORDS);
        return (short && is_mat4(&module.types[*base].inner)).then(|| whole(n));
    }
    let TypeInner::Struct { members, .. } = g.ty else {
        return None;
    };
    // A short array of matrices named as a camera's counts as its element 0 (Filament's
    // `clipFromWorldMatrix[4]`, one an eye).
    let camera_array = |m: &naga::StructMember| match module.types[m.ty].inner {
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            ..
        } => {
            (2..=4).contains(&n.get())
                && is_mat4(&module.types[base].inner)
                && camera_score(m.name.as_deref().unwrap_or("")) > 0
        }
        _ => false,
    };
    let mats: Vec<(usize, &naga::StructMember)> = (members.iter().enumerate())
        .filter(|(_, m)| is_mat4(&module.types[m.ty].inner) || camera_array(m))
        .collect();
    if mats.is_empty() {
        return nested_camera(module, members, clip);
    }
    let clipped = mats.iter().any(|(k, _)| clip.contains(&(*k as u32)));
    // The best named as the view-projection among those the clip position reads; ties go to
    // the first.
    let (_, first) = (mats.iter().rev())
        .filter(|(k, _)| !clipped || clip.contains(&(*k as u32)))
        .max_by_key(|(_, m)| camera_score(m.name.as_deref().unwrap_or("")))?;
    Some(CameraMatrix {
        member: (first.offset != 0).then(|| first.name.clone().unwrap_or_default()),
        count: mats.len(),
        // The struct read whole (`let c = u; c.view_proj`) counts too.
        clipped: clipped || clip.contains(&super::flow::WHOLE),
    })
}

/// The camera in a struct member of a struct without matrices of its own (DiligentFX's `cbuffer
/// cbCameraAttribs { CameraAttribs g_CameraAttribs; }`): the best named as a view-projection
/// among the nested structs' matrices named as a camera's at all, those the clip position reads
/// first, as the dotted path to it.
fn nested_camera(
    module: &Module,
    members: &[naga::StructMember],
    clip: &[u32],
) -> Option<CameraMatrix> {
    let mut best: Option<(u8, String, u32, usize, bool)> = None;
    for (k, outer) in members.iter().enumerate() {
        let TypeInner::Struct { members: inner, .. } = &module.types[outer.ty].inner else {
            continue;
        };
        let mats: Vec<&naga::StructMember> = (inner.iter())
            .filter(|m| is_mat4(&module.types[m.ty].inner))
            .collect();
        let clipped = clip.contains(&(k as u32)) || clip.contains(&super::flow::WHOLE);
        for m in &mats {
            // Named as a camera's at least (a nested `world` alone is a model's), and among
            // those the clip position reads first.
            let score = camera_score(m.name.as_deref().unwrap_or(""));
            let rank = 4 * u8::from(clipped) + score;
            if score > 0 && best.as_ref().is_none_or(|b| rank > b.0) {
                let path = format!(
                    "{}.{}",
                    outer.name.as_deref().unwrap_or_default(),
                    m.name.as_deref().unwrap_or_default()
                );
                best = Some((rank, path, outer.offset + m.offset, mats.len(), clipped));
            }
        }
    }
    let (_, path, offset, count, clipped) = best?;
    Some(CameraMatrix {
        member: (offset != 0).then_some(path),
        count,
        clipped,
    })
}

/// How surely a matrix's name says it is the camera's view-projection: 3 for a view-projection
/// (`view_proj`, `mvp`, `clip_from_world`, `world_to_clip`), 2 for a light's, a shadow's or the
/// previous frame's (`lightViewProjMatrix` beside `cameraViewProjMatrix`: the camera draws), 1
/// for a projection, camera or view, 0 for an inverse (`inv_view`, `world_from_view`,
/// `view_from_clip`, `clip_to_world`) or any other name.
pub(super) fn camera_score(name: &str) -> u8 {
    let n = name.to_ascii_lowercase().replace('_', "");
    let other = ["light", "shadow", "prev", "last"];
    match view_projection_score(&n) {
        3 if other.iter().any(|w| n.contains(w)) => 2,
        s => s,
    }
}

/// [`camera_score`] before a light's or the previous frame's matrix is told apart.
fn view_projection_score(name: &str) -> u8 {
    let n = name.to_ascii_lowercase().replace('_', "");
    let inverse = ["inv", "worldfrom", "viewfromclip", "toworld", "cliptoview"];
    let both = [
        "viewproj",
        "projview",
        "mvp",
        "clipfromworld",
        "worldtoclip",
        "clipfromlocal",
    ];
    if inverse.iter().any(|w| n.contains(w)) {
        0
    } else if both.iter().any(|w| n.contains(w)) {
        3
    } else if named(&n, CAMERA_WORDS) {
        1
    } else {
        0
    }
}

/// The globals the entry points `eps` use, bound buffers, textures and samplers.
pub(super) fn used_globals<'a>(
    module: &'a Module,
    info: &naga::valid::ModuleInfo,
    eps: &[usize],
) -> Vec<Global<'a>> {
    let mut out = Vec::new();
    for (h, var) in module.global_variables.iter() {
        let used = eps.iter().any(|&i| !info.get_entry_point(i)[h].is_empty());
        if let Some(g) = Global::of(module, var).filter(|_| used) {
            out.push(g);
        }
    }
    out
}

/// The located inputs of a vertex entry point, its arguments' and their structs' members.
pub(super) fn vertex_inputs<'a>(
    module: &'a Module,
    ep: &naga::EntryPoint,
) -> (Vec<Input<'a>>, bool) {
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
pub(super) fn vertex_outputs(module: &Module, ep: &naga::EntryPoint) -> Vec<(u32, String, u8)> {
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
pub(super) fn passed_through(
    module: &Module,
    ep: &naga::EntryPoint,
    output: u32,
    input: u32,
) -> bool {
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
    // Passed through: the input stored into the member (or composed into the result), and no
    // other value stored there (war3's `out.normal = in.normal`, overwritten with the skinned
    // normal after).
    let overwritten = walk(&f.body, &mut |st| match *st {
        naga::Statement::Store { pointer, value } => into_member(pointer) && !is_input(value),
        _ => false,
    });
    !overwritten
        && walk(&f.body, &mut |st| match *st {
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
pub(super) fn skinning_vertex(module: &Module) -> Option<usize> {
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

/// The compute entry point that skins, where a module has several (an MMD deformer resets and
/// morphs its vertices in passes of their own first): the one that reads an array of joint
/// matrices (`array<mat4x4<f32>>`, alone in a struct too) and writes none (a pass that writes
/// them builds the palette), then one named as skinning; ties, and a module where none does, go
/// to the first.
pub(super) fn skinning_compute(module: &Module, info: &naga::valid::ModuleInfo) -> Option<usize> {
    let matrices = |g: &naga::GlobalVariable| {
        let ty = crate::contract::unwrapped(&module.types, g.ty);
        matches!(module.types[ty].inner, TypeInner::Array { base, .. } if is_mat4(&module.types[base].inner))
    };
    // One that writes matrices builds the palette (a pass before the skinning).
    let score = |i: usize| {
        let uses = info.get_entry_point(i);
        let used = |how| {
            (module.global_variables.iter()).any(|(h, g)| matrices(g) && uses[h].contains(how))
        };
        let reads = used(naga::valid::GlobalUse::READ);
        let writes = used(naga::valid::GlobalUse::WRITE);
        (
            reads && !writes,
            reads,
            named(&module.entry_points[i].name, &["skin"]),
        )
    };
    (module.entry_points.iter().enumerate())
        .filter(|(_, e)| e.stage == ShaderStage::Compute)
        .map(|(i, _)| i)
        .max_by_key(|&i| (score(i), std::cmp::Reverse(i)))
}

/// A function whose signature is one of the skinning function's: `(joints, weights) ->
/// mat4x4<f32>`, or `(position, joints, weights) -> vec3 or vec4`, the joints and weights vectors
/// of `lanes` (4, or the 2 or 3 of a shader that reads fewer influences; the weights one fewer
/// where the last is implied: `(joints, weights)` lanes).
pub(super) fn skin_function(module: &Module, lanes: (u8, u8)) -> Option<String> {
    let ty = |h: naga::Handle<Type>| &module.types[h].inner;
    let (joints, weights) = (
        |t: &TypeInner| joints_of(t, lanes.0),
        |t: &TypeInner| weights_of(t, lanes.1),
    );
    // One of the entry module's own first: an imported one's name is the composed, decorated one.
    let mut found: Vec<String> = module
        .functions
        .iter()
        .filter_map(|(_, f)| {
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
        .collect();
    found.sort_by_key(|name| crate::compose::undecorated(name).is_some());
    found.into_iter().next()
}

/// Whether a skinning function's argument is joints of `lanes` lanes: an integer (or float)
/// vector of that size.
fn joints_of(t: &TypeInner, lanes: u8) -> bool {
    vector(t).is_some_and(|v| v.0 == lanes && v.1 != ScalarKind::Bool)
}

/// Whether a skinning function's argument is weights of `lanes` lanes: a float vector.
fn weights_of(t: &TypeInner, lanes: u8) -> bool {
    vector(t) == Some((lanes, ScalarKind::Float))
}

/// A function of the module with a signature `normal_function` can name.
pub(super) enum NormalFunction {
    /// `(vec3<f32>, joints, weights) -> vec3<f32>`: the normal skinned by the influences.
    Influences(String),
    /// A float matrix and a `vec3<f32>` in either order to a `vec3<f32>` (the blended matrix and
    /// the normal), or the joints and weights to a `mat3x3<f32>` (the normal matrix): a shape
    /// other helpers share, so only a hint.
    Other(String),
}

/// The function (other than the skinning function `skin`) with a normal function's signature,
/// for joints and weights of `lanes` lanes (as [`skin_function`]'s); the `(normal, joints,
/// weights)` one first.
pub(super) fn normal_function(
    module: &Module,
    lanes: (u8, u8),
    skin: &str,
) -> Option<NormalFunction> {
    let ty = |h: naga::Handle<Type>| &module.types[h].inner;
    let vec3 = |t: &TypeInner| vector(t) == Some((3, ScalarKind::Float));
    let (joints, weights) = (
        |t: &TypeInner| joints_of(t, lanes.0),
        |t: &TypeInner| weights_of(t, lanes.1),
    );
    let matrix = |t: &TypeInner| matches!(t, TypeInner::Matrix { .. });
    let mat3 = |t: &TypeInner| {
        matches!(
            t,
            TypeInner::Matrix {
                columns: naga::VectorSize::Tri,
                rows: naga::VectorSize::Tri,
                ..
            }
        )
    };
    let mut found: Vec<NormalFunction> = (module.functions.iter())
        .filter(|(_, f)| f.name.as_deref() != Some(skin))
        .filter_map(|(_, f)| {
            let name = f.name.clone()?;
            let args: Vec<&TypeInner> = f.arguments.iter().map(|a| ty(a.ty)).collect();
            let result = f.result.as_ref().map(|r| ty(r.ty))?;
            let influences =
                args.len() >= 3 && vec3(args[0]) && joints(args[1]) && weights(args[2]);
            let by_matrix = args.len() == 2
                && ((matrix(args[0]) && vec3(args[1])) || (vec3(args[0]) && matrix(args[1])));
            let normal_matrix =
                args.len() >= 2 && joints(args[0]) && weights(args[1]) && mat3(result);
            match () {
                _ if vec3(result) && influences => Some(NormalFunction::Influences(name)),
                _ if (vec3(result) && by_matrix) || normal_matrix => {
                    Some(NormalFunction::Other(name))
                }
                _ => None,
            }
        })
        .collect();
    found.sort_by_key(|f| matches!(f, NormalFunction::Other(_)));
    found.into_iter().next()
}

/// Whether a type holds a float matrix anywhere (a member, an array's element).
pub(super) fn has_matrix(module: &Module, ty: naga::Handle<Type>) -> bool {
    match &module.types[ty].inner {
        TypeInner::Matrix { .. } => true,
        TypeInner::Array { base, .. } => has_matrix(module, *base),
        TypeInner::Struct { members, .. } => members.iter().any(|m| has_matrix(module, m.ty)),
        _ => false,
    }
}

/// A number an expression always is: a literal or a named constant, through casts.
pub(super) fn number(
    module: &Module,
    f: &naga::Function,
    e: naga::Handle<naga::Expression>,
) -> Option<f64> {
    use naga::{Expression as E, Literal as L};
    let literal = |l: L| match l {
        L::F32(x) => Some(f64::from(x)),
        L::AbstractFloat(x) => Some(x),
        L::I32(x) => Some(f64::from(x)),
        L::U32(x) => Some(f64::from(x)),
        L::AbstractInt(x) => Some(x as f64),
        _ => None,
    };
    match f.expressions[e] {
        E::Literal(l) => literal(l),
        E::Constant(c) => match module.global_expressions[module.constants[c].init] {
            E::Literal(l) => literal(l),
            _ => None,
        },
        // An override's default, which the draft takes unless the profile's `constants` say
        // otherwise.
        E::Override(o) => match module.overrides[o]
            .init
            .map(|i| &module.global_expressions[i])
        {
            Some(E::Literal(l)) => literal(*l),
            _ => None,
        },
        E::As { expr, .. } => number(module, f, expr),
        _ => None,
    }
}
