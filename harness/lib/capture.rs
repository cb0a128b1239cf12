//! The WGSL the harness adds to a shader: a compute entry point that calls a vertex-only shader's
//! skinning function (so its positions compare number by number), and a fragment stage where
//! the shader has none.

use naga::{ScalarKind, TypeInner, VectorSize};

use crate::contract::{Contract, Elem, Pipeline, PositionFormat, Role, Slot, Space, Want};
use crate::format::{ClipZ, JointFormat};

/// The compute entry point the harness adds.
pub const ENTRY: &str = "skinproof_capture";
/// The fragment entry point the harness adds to a shader without one: the shape in one colour.
pub const FRAGMENT: &str = "skinproof_fragment";

/// How the skinning function is called, from its signature. `indices`: the integer arguments
/// after the influences (see [`is_index`]), each passed as the shader passes it (`passed`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Call {
    /// `f(position, joints, weights)` returning the skinned position; vec4 when `wide`.
    Position { p4: bool, r4: bool, indices: usize },
    /// `f(joints, weights)` returning the blended matrix, in `form`.
    Matrix { indices: usize, form: Blended },
}

/// The form of the blended matrix a skinning function returns: a `mat4x4<f32>`, or an affine one
/// without its last row, as a `mat4x3<f32>` (its four columns) or a `mat3x4<f32>` (its three rows,
/// as `palette.matrix: rows` stores a joint). The two affine types are read so because no other
/// reading transforms a point.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Blended {
    Full,
    Columns,
    Rows,
}

impl Blended {
    fn of(t: &TypeInner) -> Option<Blended> {
        let TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } = t
        else {
            return None;
        };
        match (*scalar == naga::Scalar::F32, columns, rows) {
            (true, VectorSize::Quad, VectorSize::Quad) => Some(Blended::Full),
            (true, VectorSize::Quad, VectorSize::Tri) => Some(Blended::Columns),
            (true, VectorSize::Tri, VectorSize::Quad) => Some(Blended::Rows),
            _ => None,
        }
    }

    fn wgsl(self) -> &'static str {
        match self {
            Blended::Full => "mat4x4<f32>",
            Blended::Columns => "mat4x3<f32>",
            Blended::Rows => "mat3x4<f32>",
        }
    }

    /// WGSL for the point `p` (a `vec3<f32>`) transformed by the matrix expression `m`: a
    /// `mat3x4`'s columns are the affine's rows, so the point multiplies it from the left.
    fn apply(self, m: &str) -> String {
        match self {
            Blended::Full => format!("({m} * vec4<f32>(p, 1.0)).xyz"),
            Blended::Columns => format!("{m} * vec4<f32>(p, 1.0)"),
            Blended::Rows => format!("vec4<f32>(p, 1.0) * {m}"),
        }
    }
}

/// How a normal or tangent function is called, from its signature.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameArgs {
    /// `f(direction, joints, weights)`, then `indices` integer arguments (`passed`).
    Influences { indices: usize },
    /// `f(matrix, direction)`, or `f(direction, matrix)` where not `matrix_first`: the matrix the
    /// skinning function blends (`Call::Matrix` with `indices`), as Bevy's
    /// `skin_normals(world_from_local, normal)` takes it.
    Matrix { matrix_first: bool, indices: usize },
    /// A normal function only: `f(joints, weights)`, then `indices` integer arguments (`passed`),
    /// returning the normal matrix, a `mat3x3<f32>` or (`wide`) a `mat4x4<f32>` that takes the
    /// normal as a direction (w 0), as engines that blend per-joint normal matrices write it;
    /// the added stage multiplies the source normal by it, as their vertex entry points do, and
    /// writes the product as it is (not renormalised).
    NormalMatrix { indices: usize, wide: bool },
}

/// A normal or tangent function the profile names, checked: the role of its output, its name,
/// how it is called.
type Frame = (Role, String, FrameArgs);

/// Whether `t` is a 32-bit integer scalar. Such arguments may follow a function's influences:
/// an engine's instance index (Bevy's `skin_model(indexes, weights, instance_index)`), or a
/// per-draw joint count, which the added stage passes as the shader's own call does (`passed`;
/// the instance index 0, the instance the render draws, as a copied entry point gets it).
fn is_index(t: &TypeInner) -> bool {
    matches!(t, TypeInner::Scalar(s) if s.width == 4 && matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint))
}

/// The influence arguments a skinning function takes: a joints and a weights argument per set,
/// the joints in `joint`'s form, `lanes` of each (a vec4, or the vec3 or vec2 of a shader that
/// reads fewer influences), the weights one fewer where the last is implied (`weight_lanes`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Taken {
    sets: usize,
    lanes: usize,
    weight_lanes: usize,
    joint: JointFormat,
}

/// The lanes of a stored vec4 that `n` read: `.xyz` for 3.
fn first_lanes(n: usize) -> &'static str {
    ["", ".x", ".xy", ".xyz", ""][n.min(4)]
}

impl Taken {
    /// As the capture holds the joints ([`capture_joints`]).
    fn of(contract: &Contract) -> Taken {
        Taken {
            sets: contract.influence_sets,
            lanes: contract.lanes,
            weight_lanes: contract.weight_lanes(),
            joint: capture_joints(contract),
        }
    }

    fn with(self, joint: JointFormat) -> Taken {
        Taken { joint, ..self }
    }

    fn joints(self) -> Elem {
        self.joint.elem().lanes(self.lanes)
    }

    fn weights(self) -> Elem {
        Elem::Vec4F32.lanes(self.weight_lanes)
    }

    /// The lanes of a stored vec4 of joints it takes: `.xyz` for 3.
    fn swizzle(self) -> &'static str {
        first_lanes(self.lanes)
    }

    /// The lanes of a stored vec4 of weights it takes.
    fn weight_swizzle(self) -> &'static str {
        first_lanes(self.weight_lanes)
    }
}

/// How many integer arguments follow the influence arguments that `args` starts with (`t`'s
/// joints and weights per set), or None where `args` is not so.
fn influences_then_indices(args: &[&TypeInner], t: Taken) -> Option<usize> {
    let (pairs, rest) = args.split_at_checked(2 * t.sets)?;
    let pair = |p: &[&TypeInner]| t.joints().matches(p[0]) && t.weights().matches(p[1]);
    (pairs.chunks(2).all(pair) && rest.iter().all(|t| is_index(t))).then_some(rest.len())
}

fn is_vec(inner: &TypeInner, size: VectorSize, kind: ScalarKind) -> bool {
    matches!(inner, TypeInner::Vector { size: s, scalar } if *s == size && scalar.kind == kind && scalar.width == 4)
}

/// The call a function's signature allows with the influence arguments `t` describes (a joints
/// and a weights argument a set), or why it allows none.
fn call(module: &naga::Module, f: &naga::Function, t: Taken) -> Result<Call, String> {
    let ty = |h: naga::Handle<naga::Type>| &module.types[h].inner;
    let args: Vec<&TypeInner> = f.arguments.iter().map(|a| ty(a.ty)).collect();
    let result = f.result.as_ref().map(|r| ty(r.ty));
    let weights = |t: &TypeInner| is_vec(t, VectorSize::Quad, ScalarKind::Float);
    let vec3 = |t: &TypeInner| is_vec(t, VectorSize::Tri, ScalarKind::Float);
    let influences = |a: &[&TypeInner]| influences_then_indices(a, t);
    match (args.split_first(), result) {
        (Some((p, rest)), Some(r)) if (vec3(p) || weights(p)) && (vec3(r) || weights(r)) => {
            match influences(rest) {
                Some(indices) => Ok(Call::Position {
                    p4: weights(p),
                    r4: weights(r),
                    indices,
                }),
                None => Err(must_take(t)),
            }
        }
        (Some(_), Some(r)) if Blended::of(r).is_some() => influences(&args)
            .zip(Blended::of(r))
            .map(|(indices, form)| Call::Matrix { indices, form })
            .ok_or_else(|| must_take(t)),
        _ => Err(must_take(t)),
    }
}

/// The call the skinning function `f` allows, and the joints it takes: as the capture holds them
/// ([`capture_joints`]), or as floats where the capture holds integers and the function takes
/// a float vector (`vec4<f32>`, or as many lanes as the shader reads; an engine that converts its integer attribute first, PlayCanvas's
/// `getSkinMatrix(indicesFloat, weights)`), each then converted where it is called.
fn called(
    module: &naga::Module,
    f: &naga::Function,
    contract: &Contract,
) -> Result<(Call, JointFormat), String> {
    let held = Taken::of(contract);
    call(module, f, held)
        .map(|c| (c, held.joint))
        .or_else(|why| match held.joint {
            JointFormat::F32x4 => Err(why),
            _ => call(module, f, held.with(JointFormat::F32x4))
                .map(|c| (c, JointFormat::F32x4))
                .map_err(|_| why),
        })
}

/// The signatures a skinning function may have, for its error message.
fn must_take(t: Taken) -> String {
    format!(
        "it must take (position: vec3<f32> or vec4<f32>, {}) and return the skinned position, or the same without the position and return the blended matrix (mat4x4<f32>, or an affine mat4x3<f32> of columns or mat3x4<f32> of rows); integer arguments may follow (an instance index, a joint count), passed as the shader's own call passes them where the added stage can (a member of a buffer the harness fills, a constant), else 0",
        pairs(t)
    )
}

/// The influence arguments `t` describes, in words.
fn pairs(t: Taken) -> String {
    let (jw, ww) = (t.joints().wgsl(), t.weights().wgsl());
    if t.sets == 1 {
        format!("joints: {jw}, weights: {ww}")
    } else {
        format!(
            "then a joints: {jw}, weights: {ww} pair for each of the {} influence sets",
            t.sets
        )
    }
}

/// The WGSL to add to a shader held to `contract`, and the contract the harness's pipelines then
/// follow (with the added compute stage's bindings). Nothing to add: `Ok(None)`. A skinning
/// function that is missing or has another signature: why, as a contract message.
pub fn addition(
    contract: &Contract,
    module: &naga::Module,
    source: &str,
) -> Result<Option<(String, Contract)>, String> {
    let mut wgsl = String::new();
    let mut c = contract.clone();
    if contract.vertex.is_some() && contract.fragment.is_none() {
        wgsl.push_str(&format!(
            "\n@fragment\nfn {FRAGMENT}() -> @location(0) vec4<f32> {{\n    return vec4<f32>(1.0, 1.0, 1.0, 1.0);\n}}\n"
        ));
        c.fragment = Some(FRAGMENT.into());
    }
    if let (None, Some(name)) = (&contract.compute, &contract.skin_function) {
        let whence = contract.profile.as_ref().map_or(String::new(), |o| {
            format!(" (the profile's {}, field `vertex.skin_function`)", o.path)
        });
        let f = module
            .functions
            .iter()
            .find(|(_, f)| f.name.as_deref() == Some(name.as_str()))
            .map(|(_, f)| f)
            .ok_or_else(|| format!("the skinning function `{name}` is missing{whence}"))?;
        let (call, taken) = called(module, f, contract)
            .map_err(|why| format!("the skinning function `{name}`: {why}{whence}"))?;
        let place = capture_place(module);
        let frames = frame_calls(contract, module, call, taken)?;
        let roles: Vec<Role> = frames.iter().map(|f| f.0).collect();
        capture_contract(&mut c, place, &roles);
        // Integer arguments as the shader's own call passes them, where the added stage binds
        // what they read (an engine's per-draw joint count).
        let tail = |f: &str, n: usize| crate::passed::trailing(module, &c, f, n);
        wgsl.push_str(&compute_wgsl(
            name,
            call,
            place,
            (capture_joints(contract), Taken::of(contract).with(taken)),
            &frames,
            (contract.vec3_tangent_attribute(), &tail),
        ));
    } else if contract.compute.is_none() {
        match entry_capture(contract, module, source) {
            Some(Ok(entry)) => {
                wgsl.push_str(&entry.copy);
                wgsl.push_str(&entry_compute_wgsl(&entry, contract));
                let roles: Vec<Role> = entry.frames.iter().map(|f| f.0).collect();
                capture_contract(&mut c, entry.place, &roles);
                // The camera too, bound as the identity (or with z moved to w, `clip_z: stage`):
                // the clip position is then the skinned one.
                for s in &mut c.slots {
                    if s.role == Role::View {
                        s.pipelines.push(Pipeline::Compute);
                    }
                }
            }
            // The numeric checks then SKIP, saying why.
            Some(Err(why)) => c.uncaptured = Some(why),
            None => {}
        }
    }
    Ok((!wgsl.is_empty() || c.uncaptured.is_some()).then_some((wgsl, c)))
}

/// The compute entry point that calls a copy of the vertex stage (`entry.call`, for vertex `i`)
/// and writes the clip position it returns, divided by w (or, under `clip_z: stage`, its x, y
/// and w, where the capture's camera put z), and the skinned normal and tangent it returns where
/// the capture reads them.
fn entry_compute_wgsl(entry: &EntryCapture, contract: &Contract) -> String {
    let frames: String = (entry.frames.iter())
        .map(|(role, member)| match role {
            Role::SkinnedNormals => {
                format!("\n    skinproof_skinned_normals[i] = vec4<f32>(out.{member}, 0.0);")
            }
            _ => format!(
                "\n    skinproof_skinned_tangents[i] = {};",
                tangent_value(&format!("out.{member}"), contract.vec3_tangent_output())
            ),
        })
        .collect();
    let roles: Vec<Role> = entry.frames.iter().map(|f| f.0).collect();
    format!(
        "\n{}{}
@compute @workgroup_size(64)
fn {ENTRY}(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= skinproof_count.x) {{
        return;
    }}
    let out = {};
    let clip = out{};
    skinproof_skinned[i] = {};{frames}
}}
",
        frame_declarations(entry.place, &roles, contract.pulled.is_some()),
        declarations(entry.place, capture_joints(contract), Own::of(contract)),
        entry.call,
        entry.clip,
        match contract.clip_z {
            ClipZ::Camera => "vec4<f32>(clip.xyz / clip.w, 0.0)",
            // The camera put z in w and nothing in z, which the stage may have overwritten.
            ClipZ::Stage => "vec4<f32>(clip.x, clip.y, clip.w, 0.0)",
        },
    )
}

/// A vertex stage captured through a copy of its entry point: the copy, the expression that
/// calls it for vertex `i`, the member of its result that holds the clip position (empty where
/// the result is the position), where the capture bindings go, and the skinned normal and
/// tangent it returns that the capture reads (the role and the result's member).
struct EntryCapture {
    copy: String,
    call: String,
    clip: String,
    place: Place,
    frames: Vec<(Role, String)>,
}

/// A vertex-only shader that skins inline, without a skinning function the profile names: its
/// vertex entry point copied as a function ([`crate::stage_copy`]) and how the capture calls it
/// and reads what it returns ([`EntryCapture`]).
/// `None` where it does not apply (a compute stage, a skinning function, a 2D view camera, which
/// drops z); an error where the stage cannot be called so (a builtin input other than the vertex
/// and instance index).
fn entry_capture(
    contract: &Contract,
    module: &naga::Module,
    source: &str,
) -> Option<Result<EntryCapture, String>> {
    let vs = contract.vertex.as_deref()?;
    if contract.skin_function.is_some() || !contract.matrix_camera() {
        return None;
    }
    let ep = module.entry_points.iter().find(|e| e.name == vs)?;
    Some((|| {
        let copy = crate::stage_copy::copy(module, ep, source)?;
        let result = ep.function.result.as_ref().ok_or("it returns nothing")?;
        let clip = clip_member(module, result).ok_or("it returns no @builtin(position)")?;
        let frames = entry_frames(contract, module, result);
        let fed: Vec<Role> = frames.iter().map(|f| f.0).collect();
        let args = (ep.function.arguments.iter())
            .map(|a| input_value(contract, module, &fed, &a.binding, a.ty))
            .collect::<Result<Vec<_>, _>>()?;
        let call = format!("{}({})", crate::stage_copy::BODY, args.join(", "));
        Ok(EntryCapture {
            copy,
            call,
            clip,
            place: capture_place(module),
            frames,
        })
    })())
}

/// The skinned normal and tangent a copied vertex stage returns at the profile's
/// `vertex.skinned_normal` and `vertex.skinned_tangent` (of their sources' types, as
/// `shader::validates` checks them), where the stage also reads their source, as an attribute or
/// from the vertices it pulls: the role and the member of its result struct that holds it.
fn entry_frames(
    contract: &Contract,
    module: &naga::Module,
    result: &naga::FunctionResult,
) -> Vec<(Role, String)> {
    let TypeInner::Struct { members, .. } = &module.types[result.ty].inner else {
        return Vec::new();
    };
    let at = |location: u32| {
        members.iter().find(|m| {
            matches!(m.binding, Some(naga::Binding::Location { location: l, .. }) if l == location)
        })
    };
    // The source: an attribute, or a field of the vertices the stage pulls.
    let pulled: Vec<_> = (contract.pulled_all().into_iter())
        .map(|(_, p)| p.frames)
        .collect();
    let has_source = |role: Role| {
        contract.input(Contract::source_of(role)).is_some()
            || pulled.iter().any(|f| match role {
                Role::SkinnedNormals => f.normal.is_some(),
                _ => f.tangent.is_some(),
            })
    };
    (contract.vertex_outputs.iter())
        .filter(|o| has_source(o.role))
        .filter_map(|o| Some((o.role, at(o.location)?.name.clone()?)))
        .collect()
}

/// Where the capture bindings go: a group, and the first of their binding numbers in it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Place {
    group: u32,
    base: u32,
}

/// The first bind group the shader leaves free, from binding 0; where it uses all four, the
/// last group past its highest binding there.
fn capture_place(module: &naga::Module) -> Place {
    let bindings: Vec<(u32, u32)> = (module.global_variables.iter())
        .filter_map(|(_, v)| v.binding.as_ref().map(|b| (b.group, b.binding)))
        .collect();
    match (0..4).find(|g| bindings.iter().all(|b| b.0 != *g)) {
        Some(group) => Place { group, base: 0 },
        None => {
            let top = bindings.iter().filter(|b| b.0 == 3).map(|b| b.1).max();
            Place {
                group: 3,
                base: top.map_or(0, |t| t + 1),
            }
        }
    }
}

/// What the capture passes for a vertex stage input: the case's position, joints and weights
/// where the contract has them, its normal and tangent where the capture reads their skinned
/// values (`fed`), the vertex index, instance 0, a struct of such members, and the zero value of
/// its type for any other attribute (a texture coordinate, a colour).
fn input_value(
    contract: &Contract,
    module: &naga::Module,
    fed: &[Role],
    binding: &Option<naga::Binding>,
    ty: naga::Handle<naga::Type>,
) -> Result<String, String> {
    use naga::common::wgsl::TypeContext;
    use naga::{Binding, BuiltIn};
    let taken = Taken::of(contract);
    let (sets, lanes, weight_lanes) = (taken.sets, taken.swizzle(), taken.weight_swizzle());
    let name = module.types.type_to_string(ty);
    match binding {
        Some(Binding::Location { location, .. }) => Ok(match contract.input_at(*location) {
            Some(v) if v.role == Role::Positions => match module.types[ty].inner {
                TypeInner::Vector {
                    size: VectorSize::Quad,
                    ..
                } => "vec4<f32>(skinproof_positions[i].xyz, 1.0)".into(),
                TypeInner::Vector {
                    size: VectorSize::Bi,
                    ..
                } => "skinproof_positions[i].xy".into(),
                _ => "skinproof_positions[i].xyz".into(),
            },
            // u16 joint pairs in a vec2<u32>, low half first, as the vertex buffer holds them.
            Some(v)
                if v.role == Role::Joints && v.attribute.format == wgpu::VertexFormat::Uint32x2 =>
            {
                let j = format!("skinproof_joints[i * {sets}u + {}u]", v.set);
                format!("vec2<u32>({j}.x | ({j}.y << 16u), {j}.z | ({j}.w << 16u))")
            }
            // One influence, (joint, weight): lane `lane` of its set of each; two in a vec4,
            // lanes `lane` and the next.
            Some(v)
                if v.role == Role::Joints
                    && let Some(lane) = v.pair =>
            {
                let at = format!("i * {sets}u + {}u", v.set);
                let held = v.pair_influences();
                let lanes: Vec<String> = (lane..lane + held)
                    .map(|l| {
                        format!("f32(skinproof_joints[{at}][{l}]), skinproof_weights[{at}][{l}]")
                    })
                    .collect();
                format!("vec{}<f32>({})", 2 * held, lanes.join(", "))
            }
            // An input of 4 lanes where the shader reads fewer takes the stored vec4 whole.
            Some(v) if v.role == Role::Joints => {
                let whole = v.ty == contract.formats.vertex_joints.elem();
                let lanes = if whole { "" } else { lanes };
                format!("skinproof_joints[i * {sets}u + {}u]{lanes}", v.set)
            }
            Some(v) if v.role == Role::Weights => {
                let lanes = if v.ty == Elem::Vec4F32 {
                    ""
                } else {
                    weight_lanes
                };
                format!("skinproof_weights[i * {sets}u + {}u]{lanes}", v.set)
            }
            // A normal or tangent whose skinned value the capture reads: the case's.
            Some(v) if v.role == Role::Normals && fed.contains(&Role::SkinnedNormals) => {
                match v.ty == Elem::Vec4F32 {
                    true => "vec4<f32>(skinproof_normals[i].xyz, 0.0)".into(),
                    false => "skinproof_normals[i].xyz".into(),
                }
            }
            Some(v) if v.role == Role::Tangents && fed.contains(&Role::SkinnedTangents) => {
                tangent_source(v.ty == Elem::Vec3F32).into()
            }
            // The profile's value for an input with no role, as the render path feeds it.
            Some(v) if v.role == Role::Zeros => (contract.input_values.iter())
                .find(|x| x.location == *location)
                .and_then(|x| x.wgsl(&name, v.attribute.format))
                .unwrap_or_else(|| format!("{name}()")),
            _ => format!("{name}()"),
        }),
        Some(Binding::BuiltIn(BuiltIn::VertexIndex)) => Ok("i".into()),
        Some(Binding::BuiltIn(BuiltIn::InstanceIndex)) => Ok("0u".into()),
        Some(Binding::BuiltIn(other)) => Err(format!("it reads @builtin {other:?}")),
        None => match &module.types[ty].inner {
            TypeInner::Struct { members, .. } => {
                let values = (members.iter())
                    .map(|m| input_value(contract, module, fed, &m.binding, m.ty))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(format!("{name}({})", values.join(", ")))
            }
            _ => Err(format!("an input of type {name} without a binding")),
        },
    }
}

/// How to take the clip position from the entry point's result: itself, or its member with
/// `@builtin(position)`.
fn clip_member(module: &naga::Module, result: &naga::FunctionResult) -> Option<String> {
    let is_position = |b: &Option<naga::Binding>| {
        matches!(
            b,
            Some(naga::Binding::BuiltIn(naga::BuiltIn::Position { .. }))
        )
    };
    if is_position(&result.binding) {
        return Some(String::new());
    }
    match &module.types[result.ty].inner {
        TypeInner::Struct { members, .. } => members
            .iter()
            .find(|m| is_position(&m.binding))
            .map(|m| format!(".{}", m.name.as_deref().unwrap_or("?"))),
        _ => None,
    }
}

/// The normal and tangent functions the profile names, checked; a function may take the blended
/// matrix where the skinning function (called as `skin`) returns one.
fn frame_calls(
    contract: &Contract,
    module: &naga::Module,
    skin: Call,
    taken: JointFormat,
) -> Result<Vec<Frame>, String> {
    let f = &contract.frame_functions;
    let mut out = Vec::new();
    for (role, name, size, field) in [
        (
            Role::SkinnedNormals,
            &f.normal,
            VectorSize::Tri,
            "normal_function",
        ),
        (
            Role::SkinnedTangents,
            &f.tangent,
            if contract.vec3_tangent_attribute() {
                VectorSize::Tri
            } else {
                VectorSize::Quad
            },
            "tangent_function",
        ),
    ] {
        let Some(name) = name else { continue };
        let whence = contract.profile.as_ref().map_or(String::new(), |o| {
            format!(" (the profile's {}, field `vertex.{field}`)", o.path)
        });
        let func = module
            .functions
            .iter()
            .find(|(_, x)| x.name.as_deref() == Some(name.as_str()))
            .map(|(_, x)| x)
            .ok_or_else(|| format!("the function `{name}` is missing{whence}"))?;
        let ty = |h: naga::Handle<naga::Type>| &module.types[h].inner;
        let dir = |t: &TypeInner| is_vec(t, size, ScalarKind::Float);
        let args: Vec<&TypeInner> = func.arguments.iter().map(|a| ty(a.ty)).collect();
        let held = Taken::of(contract);
        let t = held.with(taken);
        // The direction, the influences, then any integer arguments (passed as the skinning
        // function's); or the blended matrix and the direction, in either order.
        let blends = match skin {
            Call::Matrix { indices, form } => Some((indices, form)),
            Call::Position { .. } => None,
        };
        // The matrix argument takes what the skinning function returns, in its form.
        let matrix = |t: &&TypeInner| blends.is_some_and(|b| Blended::of(t) == Some(b.1));
        let indices = blends.map_or(0, |b| b.0);
        // A square f32 matrix of 3 or 4: Some(whether 4).
        let normal_matrix = |r: &TypeInner| match *r {
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } if scalar == naga::Scalar::F32 && columns == rows => match columns {
                VectorSize::Tri => Some(false),
                VectorSize::Quad => Some(true),
                VectorSize::Bi => None,
            },
            _ => None,
        };
        let returns_normal_matrix = (role == Role::SkinnedNormals)
            .then(|| func.result.as_ref().and_then(|r| normal_matrix(ty(r.ty))))
            .flatten();
        if let Some(wide) = returns_normal_matrix {
            if let Some(indices) = influences_then_indices(&args, t) {
                out.push((
                    role,
                    name.clone(),
                    FrameArgs::NormalMatrix { indices, wide },
                ));
                continue;
            }
        }
        let how = match args.as_slice() {
            [m, d] if matrix(m) && dir(d) => Some(FrameArgs::Matrix {
                matrix_first: true,
                indices,
            }),
            [d, m] if matrix(m) && dir(d) => Some(FrameArgs::Matrix {
                matrix_first: false,
                indices,
            }),
            _ => args.split_first().and_then(|(d, rest)| {
                influences_then_indices(rest, t)
                    .filter(|_| dir(d))
                    .map(|indices| FrameArgs::Influences { indices })
            }),
        };
        let Some(how) = how.filter(|_| func.result.as_ref().is_some_and(|r| dir(ty(r.ty)))) else {
            let d = match (role, size) {
                (Role::SkinnedNormals, _) => "normal: vec3<f32>",
                (_, VectorSize::Tri) => "tangent: vec3<f32>",
                _ => "tangent: vec4<f32>",
            };
            let or_matrix = match blends {
                Some((_, form)) => format!(
                    ", or (the blended {} the skinning function returns, {d}) in either order",
                    form.wgsl()
                ),
                None => String::new(),
            };
            let or_normal_matrix = if role == Role::SkinnedNormals {
                format!(
                    "; or take ({}) and return the normal matrix, mat3x3<f32> or mat4x4<f32>",
                    pairs(held)
                )
            } else {
                String::new()
            };
            return Err(format!(
                "the function `{name}` must take ({d}, {}), integer arguments after them (passed as the shader's own call passes them, or 0){or_matrix}, and return the skinned {}{or_normal_matrix}{whence}",
                pairs(held),
                &d[..d.find(':').unwrap_or(0)]
            ));
        };
        out.push((role, name.clone(), how));
    }
    Ok(out)
}

/// The integer arguments a function is passed after its influences, by its name and their count,
/// each after a comma (`passed::trailing`).
type Tail<'a> = &'a dyn Fn(&str, usize) -> String;

/// The added compute stage: each vertex's influence sets lie one after another in the joints and
/// weights arrays; the normal and tangent functions are called with the same influences.
fn compute_wgsl(
    name: &str,
    call: Call,
    place: Place,
    (held, t): (JointFormat, Taken),
    frames: &[Frame],
    (vec3_tangents, tail): (bool, Tail),
) -> String {
    let (sets, lanes) = (t.sets, t.swizzle());
    let joint = |k: usize| match held == t.joint {
        true => format!("skinproof_joints[i * {sets}u + {k}u]{lanes}"),
        false => format!(
            "{}(skinproof_joints[i * {sets}u + {k}u]{lanes})",
            t.joints().wgsl()
        ),
    };
    let weight_lanes = t.weight_swizzle();
    let influences = (0..sets)
        .map(|k| {
            format!(
                "{}, skinproof_weights[i * {sets}u + {k}u]{weight_lanes}",
                joint(k)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    // The blended matrix, where the skinning function returns one.
    let blend = |indices: usize| format!("{name}({influences}{})", tail(name, indices));
    let skinned = match call {
        Call::Position { p4, r4, indices } => {
            let p = if p4 { "vec4<f32>(p, 1.0)" } else { "p" };
            let r = if r4 { ".xyz" } else { "" };
            format!("{name}({p}, {influences}{}){r}", tail(name, indices))
        }
        Call::Matrix { indices, form } => form.apply(&blend(indices)),
    };
    // Normals and tangents: their sources and outputs at bindings 5 to 8 past the base.
    let mut frame_lines = String::new();
    for (role, f, how) in frames {
        let normals = *role == Role::SkinnedNormals;
        let source = if normals {
            "skinproof_normals[i].xyz"
        } else {
            tangent_source(vec3_tangents)
        };
        let args = match *how {
            FrameArgs::Matrix {
                matrix_first: true,
                indices,
            } => format!("{}, {source}", blend(indices)),
            FrameArgs::Matrix { indices, .. } => format!("{source}, {}", blend(indices)),
            FrameArgs::Influences { indices } => {
                format!("{source}, {influences}{}", tail(f, indices))
            }
            FrameArgs::NormalMatrix { indices, .. } => format!("{influences}{}", tail(f, indices)),
        };
        let (write, value) = if normals {
            let v = match how {
                FrameArgs::NormalMatrix { wide: false, .. } => {
                    format!("vec4<f32>({f}({args}) * {source}, 0.0)")
                }
                FrameArgs::NormalMatrix { wide: true, .. } => {
                    format!("vec4<f32>(({f}({args}) * vec4<f32>({source}, 0.0)).xyz, 0.0)")
                }
                _ => format!("vec4<f32>({f}({args}), 0.0)"),
            };
            ("skinned_normals", v)
        } else {
            (
                "skinned_tangents",
                tangent_value(&format!("{f}({args})"), vec3_tangents),
            )
        };
        frame_lines.push_str(&format!("\n    skinproof_{write}[i] = {value};"));
    }
    let roles: Vec<Role> = frames.iter().map(|f| f.0).collect();
    format!(
        "\n{}{}
@compute @workgroup_size(64)
fn {ENTRY}(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= skinproof_count.x) {{
        return;
    }}
    let p = skinproof_positions[i].xyz;
    skinproof_skinned[i] = vec4<f32>({skinned}, 0.0);{frame_lines}
}}
",
        frame_declarations(place, &roles, false),
        declarations(place, held, Own::Nothing)
    )
}

/// The case's tangent of vertex `i` as a stage whose tangents are vec3 (`vec3`) or vec4 reads it.
fn tangent_source(vec3: bool) -> &'static str {
    if vec3 {
        "skinproof_tangents[i].xyz"
    } else {
        "skinproof_tangents[i]"
    }
}

/// The vec4 the capture writes for a skinned tangent `value`: a vec3 one with w 0.
fn tangent_value(value: &str, vec3: bool) -> String {
    if vec3 {
        format!("vec4<f32>({value}, 0.0)")
    } else {
        value.to_string()
    }
}

/// The bindings of the normals and tangents the capture reads (`roles`: their skinned roles),
/// 5 to 8 past the capture's base: each source (not where the stage `pulls` its own) and its
/// skinned output.
fn frame_declarations(place: Place, roles: &[Role], pulls: bool) -> String {
    let (g, b) = (place.group, place.base);
    let mut out = String::new();
    for role in roles {
        let (read, write, arg) = if *role == Role::SkinnedNormals {
            ("normals", "skinned_normals", 5)
        } else {
            ("tangents", "skinned_tangents", 7)
        };
        // A stage that pulls its vertices reads its sources from its own buffer.
        if !pulls {
            out.push_str(&format!(
                "@group({g}) @binding({}) var<storage, read> skinproof_{read}: array<vec4<f32>>;\n",
                b + arg
            ));
        }
        out.push_str(&format!(
            "@group({g}) @binding({}) var<storage, read_write> skinproof_{write}: array<vec4<f32>>;\n",
            b + arg + 1
        ));
    }
    out
}

/// What a vertex stage reads from storage of its own by vertex index, which the capture binds
/// in place of its own buffers: every source (`vertex.vertices`, or its `vertex.streams`), or
/// the joints and weights beside its attributes (`vertex.influences`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Own {
    Nothing,
    Vertices,
    Influences,
}

impl Own {
    fn of(c: &Contract) -> Own {
        let render = |role| (c.try_slot(role)).is_some_and(|s| s.used_by(Pipeline::Render));
        if c.pulled.is_some() {
            Own::Vertices
        } else if c.influences.is_some() && render(Role::Joints) {
            Own::Influences
        } else {
            Own::Nothing
        }
    }

    /// Whether the stage's own buffer holds the sources of `role`.
    fn holds(self, role: Role) -> bool {
        match self {
            Own::Nothing => false,
            Own::Influences => matches!(role, Role::Joints | Role::Weights),
            Own::Vertices => matches!(
                role,
                Role::Positions | Role::Joints | Role::Weights | Role::Normals | Role::Tangents
            ),
        }
    }
}

/// The capture bindings at `place`: the case's positions, joints and weights (those the stage
/// does not read from its `own` buffer), the skinned output and the vertex count.
fn declarations(place: Place, joints: JointFormat, own: Own) -> String {
    let g = place.group;
    let joints = format!("array<{}>", joints.elem().wgsl());
    let all = [
        (Role::Positions, "read", "positions", "array<vec4<f32>>"),
        (Role::Joints, "read", "joints", joints.as_str()),
        (Role::Weights, "read", "weights", "array<vec4<f32>>"),
        (Role::Skinned, "read_write", "skinned", "array<vec4<f32>>"),
    ];
    let mut out = String::new();
    for (k, (role, access, name, ty)) in all.into_iter().enumerate() {
        if !own.holds(role) {
            out.push_str(&format!(
                "@group({g}) @binding({}) var<storage, {access}> skinproof_{name}: {ty};\n",
                place.base + k as u32
            ));
        }
    }
    out.push_str(&format!(
        "@group({g}) @binding({}) var<uniform> skinproof_count: vec4<u32>;\n",
        place.base + 4
    ));
    out
}

/// The joints the capture binds: the values the vertex stage reads, whatever its vertex format,
/// as u32x4, or as f32x4 or i32x4 where it reads them as floats or signed integers.
fn capture_joints(contract: &Contract) -> JointFormat {
    match contract.formats.vertex_joints {
        JointFormat::F32x4 => JointFormat::F32x4,
        JointFormat::I32x4 => JointFormat::I32x4,
        _ => JointFormat::U32x4,
    }
}

/// `c` with the added compute stage: its bindings at `place`, the palette's bindings visible to
/// it, joints as [`capture_joints`] gives them.
fn capture_contract(c: &mut Contract, place: Place, frames: &[Role]) {
    // A vertex stage that reads its vertices (or its joints and weights) from a buffer of its own
    // reads them there in the copy too: that buffer is bound to the added stage as well, and the
    // capture binds none of what it holds.
    let own = Own::of(c);
    let pulls = own == Own::Vertices;
    for s in &mut c.slots {
        let palette = matches!(
            s.role,
            Role::Palette | Role::InverseBinds | Role::PaletteOffset | Role::PaletteSampler
        );
        // Its one buffer, or each of its streams (`vertex.streams`).
        let stage_own = s.pipelines.contains(&Pipeline::Render)
            && own.holds(s.role)
            && matches!(
                s.role,
                Role::Positions | Role::Joints | Role::Weights | Role::Normals | Role::Tangents
            );
        if palette || stage_own {
            s.pipelines.push(Pipeline::Compute);
        }
    }
    let read = Space::Storage { writable: false };
    let added = [
        (
            Role::Positions,
            0,
            read,
            Want::Positions,
            "source positions",
        ),
        (
            Role::Joints,
            1,
            read,
            Want::Array(capture_joints(c).elem()),
            "joint indices",
        ),
        (
            Role::Weights,
            2,
            read,
            Want::Array(Elem::Vec4F32),
            "weights",
        ),
        (
            Role::Skinned,
            3,
            Space::Storage { writable: true },
            Want::Array(Elem::Vec4F32),
            "skinned positions",
        ),
        (
            Role::Count,
            4,
            Space::Uniform,
            Want::Count,
            "the vertex count",
        ),
    ];
    let mut added = added.to_vec();
    added.retain(|a| !own.holds(a.0));
    for role in frames {
        let write = Space::Storage { writable: true };
        let vec4 = Want::Array(Elem::Vec4F32);
        let [source, skinned] = if *role == Role::SkinnedNormals {
            [
                (Role::Normals, 5, read, Want::Positions, "source normals"),
                (Role::SkinnedNormals, 6, write, vec4, "skinned normals"),
            ]
        } else {
            [
                (Role::Tangents, 7, read, vec4, "source tangents"),
                (Role::SkinnedTangents, 8, write, vec4, "skinned tangents"),
            ]
        };
        // The stage's own buffer holds a pulling stage's sources.
        if !pulls {
            added.push(source);
        }
        added.push(skinned);
    }
    for (role, binding, space, ty, holds) in added {
        c.slots.push(Slot {
            role,
            group: place.group,
            binding: place.base + binding,
            space,
            ty,
            holds: holds.into(),
            pipelines: vec![Pipeline::Compute],
            origin: None,
        });
    }
    c.compute = Some(ENTRY.into());
    c.captured = true;
    c.workgroup_size = [64, 1, 1];
    c.formats.joints = capture_joints(c);
    c.formats.positions = PositionFormat::Vec4;
    c.formats.skinned = PositionFormat::Vec4;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The influence arguments of `sets` sets of `lanes`, the joints in `joint`'s form.
    fn taken(sets: usize, lanes: usize, joint: JointFormat) -> Taken {
        Taken {
            sets,
            lanes,
            weight_lanes: lanes,
            joint,
        }
    }
    use crate::contract::{FrameFunctions, VertexInput, VertexOutput};

    fn module(src: &str) -> naga::Module {
        naga::front::wgsl::parse_str(src).unwrap()
    }

    #[test]
    fn signatures_decide_the_call() {
        let m = module(
            "fn a(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return p; }
             fn b(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> { return mat4x4<f32>(); }
             fn c(p: vec4<f32>, j: vec4<u32>, w: vec4<f32>) -> vec4<f32> { return p; }
             fn d(j: vec4<u32>) -> f32 { return 0.0; }
             fn g(j: vec4<u32>, w: vec4<f32>, instance: u32) -> mat4x4<f32> { return mat4x4<f32>(); }
             fn h(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>, a: u32, b: i32) -> vec3<f32> { return p; }
             fn k(j: vec4<u32>, w: vec4<f32>, s: f32) -> mat4x4<f32> { return mat4x4<f32>(); }
             fn l(i: u32, j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> { return mat4x4<f32>(); }
             fn r(j: vec4<u32>, w: vec4<f32>) -> mat3x4<f32> { return mat3x4<f32>(); }
             fn s(j: vec4<u32>, w: vec4<f32>) -> mat4x3<f32> { return mat4x3<f32>(); }
             fn t(j: vec4<u32>, w: vec4<f32>) -> mat3x3<f32> { return mat3x3<f32>(); }",
        );
        let f = |n: &str| {
            let (_, f) = m
                .functions
                .iter()
                .find(|(_, f)| f.name.as_deref() == Some(n))
                .unwrap();
            call(&m, f, taken(1, 4, JointFormat::U32x4))
        };
        assert_eq!(
            f("a"),
            Ok(Call::Position {
                p4: false,
                r4: false,
                indices: 0
            })
        );
        assert_eq!(
            f("b"),
            Ok(Call::Matrix {
                indices: 0,
                form: Blended::Full
            })
        );
        assert_eq!(
            f("c"),
            Ok(Call::Position {
                p4: true,
                r4: true,
                indices: 0
            })
        );
        assert!(f("d").unwrap_err().contains("must take"));
        // An instance index after the influences (Bevy's skin_model), passed 0; a float there
        // or before the influences is no index.
        assert_eq!(
            f("g"),
            Ok(Call::Matrix {
                indices: 1,
                form: Blended::Full
            })
        );
        // Affine blends: rows (a mat3x4's columns) or columns (a mat4x3's); a 3x3 moves no point.
        for (name, form) in [("r", Blended::Rows), ("s", Blended::Columns)] {
            assert_eq!(f(name), Ok(Call::Matrix { indices: 0, form }));
        }
        assert!(f("t").is_err());
        assert_eq!(
            Blended::Rows.apply("m"),
            "vec4<f32>(p, 1.0) * m",
            "a row dotted with (p, 1) per coordinate"
        );
        assert_eq!(
            f("h"),
            Ok(Call::Position {
                p4: false,
                r4: false,
                indices: 2
            })
        );
        for bad in ["k", "l"] {
            assert!(f(bad).unwrap_err().contains("integer arguments may follow"));
        }
        let two = module(
            "fn e(p: vec3<f32>, j0: vec4<u32>, w0: vec4<f32>, j1: vec4<u32>, w1: vec4<f32>) -> vec3<f32> { return p; }",
        );
        let (_, e) = two.functions.iter().next().unwrap();
        assert_eq!(
            call(&two, e, taken(2, 4, JointFormat::U32x4)),
            Ok(Call::Position {
                p4: false,
                r4: false,
                indices: 0
            })
        );
        assert!(call(&two, e, taken(1, 4, JointFormat::U32x4))
            .unwrap_err()
            .contains("must take"));
        let wgsl = compute_wgsl(
            "e",
            Call::Position {
                p4: false,
                r4: false,
                indices: 0,
            },
            Place { group: 3, base: 0 },
            (JointFormat::U32x4, taken(2, 4, JointFormat::U32x4)),
            &[],
            (false, &|_: &str, n: usize| ", 0".repeat(n)),
        );
        assert!(wgsl.contains("e(p, skinproof_joints[i * 2u + 0u], skinproof_weights[i * 2u + 0u], skinproof_joints[i * 2u + 1u], skinproof_weights[i * 2u + 1u])"), "{wgsl}");
        // Integer joints held, a function that takes floats: each converted where it is called.
        let float =
            module("fn pc(j: vec4<f32>, w: vec4<f32>) -> mat4x4<f32> { return mat4x4<f32>(); }");
        let (_, pc) = float.functions.iter().next().unwrap();
        assert!(call(&float, pc, taken(1, 4, JointFormat::U32x4)).is_err());
        let c = call(&float, pc, taken(1, 4, JointFormat::F32x4)).unwrap();
        let wgsl = compute_wgsl(
            "pc",
            c,
            Place { group: 3, base: 0 },
            (JointFormat::U32x4, taken(1, 4, JointFormat::F32x4)),
            &[],
            (false, &|_: &str, n: usize| ", 0".repeat(n)),
        );
        assert!(
            wgsl.contains(
                "pc(vec4<f32>(skinproof_joints[i * 1u + 0u]), skinproof_weights[i * 1u + 0u])"
            ),
            "{wgsl}"
        );
    }

    /// A function of three influences (`max_influences: 3`) takes the first three lanes of the
    /// stored vec4s, converted where it takes floats; a vec4 signature is not its.
    #[test]
    fn three_influences_are_passed_as_the_first_three_lanes() {
        let three = module(
            "fn s(p: vec3<f32>, j: vec3<f32>, w: vec3<f32>) -> vec3<f32> { return p; }
             fn f(p: vec3<f32>, j: vec4<f32>, w: vec4<f32>) -> vec3<f32> { return p; }",
        );
        let mut fns = three.functions.iter().map(|(_, f)| f);
        let (s, f) = (fns.next().unwrap(), fns.next().unwrap());
        let t = taken(1, 3, JointFormat::U32x4);
        // Integer joints for float ones; four float lanes where the shader reads three.
        let floats = t.with(JointFormat::F32x4);
        assert!(call(&three, s, t).is_err() && call(&three, f, floats).is_err());
        let c = call(&three, s, t.with(JointFormat::F32x4)).unwrap();
        let wgsl = compute_wgsl(
            "s",
            c,
            Place { group: 3, base: 0 },
            (JointFormat::U32x4, t.with(JointFormat::F32x4)),
            &[],
            (false, &|_: &str, n: usize| ", 0".repeat(n)),
        );
        assert!(
            wgsl.contains("s(p, vec3<f32>(skinproof_joints[i * 1u + 0u].xyz), skinproof_weights[i * 1u + 0u].xyz)"),
            "{wgsl}"
        );
        assert_eq!(pairs(t), "joints: vec3<u32>, weights: vec3<f32>");
    }

    /// Four joints beside three weights, the last implied: the joints whole, the weights' first
    /// three lanes; four weights are not its signature.
    #[test]
    fn an_implied_last_weight_is_passed_as_the_first_three_weights() {
        let implied = module(
            "fn s(p: vec3<f32>, j: vec4<u32>, w: vec3<f32>) -> vec3<f32> { return p; }
             fn f(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return p; }",
        );
        let mut fns = implied.functions.iter().map(|(_, f)| f);
        let (s, f) = (fns.next().unwrap(), fns.next().unwrap());
        let t = Taken {
            weight_lanes: 3,
            ..taken(1, 4, JointFormat::U32x4)
        };
        assert!(call(&implied, f, t).is_err());
        let c = call(&implied, s, t).unwrap();
        let wgsl = compute_wgsl(
            "s",
            c,
            Place { group: 3, base: 0 },
            (JointFormat::U32x4, t),
            &[],
            (false, &|_: &str, n: usize| ", 0".repeat(n)),
        );
        assert!(
            wgsl.contains(
                "s(p, skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u].xyz)"
            ),
            "{wgsl}"
        );
        assert_eq!(pairs(t), "joints: vec4<u32>, weights: vec3<f32>");
    }

    #[test]
    fn the_capture_calls_the_normal_and_tangent_functions_and_validates() {
        let src = "@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
fn skin(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return (palette[j.x] * vec4<f32>(p, 1.0)).xyz * w.x; }
fn sn(n: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return normalize(n); }
fn st(t: vec4<f32>, j: vec4<u32>, w: vec4<f32>) -> vec4<f32> { return t; }
";
        let mut c = Contract::builtin();
        c.compute = None;
        c.skin_function = Some("skin".into());
        c.frame_functions.normal = Some("sn".into());
        c.frame_functions.tangent = Some("st".into());
        let (wgsl, extended) = addition(&c, &module(src), src).unwrap().unwrap();
        assert!(
            wgsl.contains("skinproof_skinned_normals[i] = vec4<f32>(sn(skinproof_normals[i].xyz")
        );
        let full = module(&format!("{src}{wgsl}"));
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&full)
            .unwrap();
        assert_eq!(extended.try_slot(Role::SkinnedTangents).unwrap().binding, 8);
        c.frame_functions.tangent = Some("sn".into());
        let why = addition(&c, &module(src), src).unwrap_err();
        assert!(why.contains("`sn` must take (tangent: vec4<f32>"), "{why}");
        // A stage whose tangent attribute is a vec3 (no handedness): its tangent function takes
        // and returns vec3s, the capture writes w 0 and the check leaves handedness out.
        c.vertex_inputs.push(VertexInput::new(
            Role::Tangents,
            (Elem::Vec3F32, None),
            wgpu::VertexFormat::Float32x3,
            5,
            None,
        ));
        let (wgsl, extended) = addition(&c, &module(src), src).unwrap().unwrap();
        let line = "skinproof_skinned_tangents[i] = vec4<f32>(sn(skinproof_tangents[i].xyz, skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u]), 0.0);";
        assert!(wgsl.contains(line), "{wgsl}");
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module(&format!("{src}{wgsl}")))
            .unwrap();
        assert!(!extended.tangent_handedness());
        c.frame_functions.tangent = Some("st".into());
        let why = addition(&c, &module(src), src).unwrap_err();
        assert!(why.contains("`st` must take (tangent: vec3<f32>"), "{why}");
    }

    #[test]
    fn a_normal_function_may_return_the_normal_matrix_the_capture_applies() {
        // fifth-light's shape: per-joint normal matrices in the palette's elements, blended by a
        // function of the influences; the vertex entry point multiplies the normal by it.
        let src = "struct Joint { transform: mat4x4<f32>, normal: mat3x3<f32> }
@group(0) @binding(0) var<uniform> joints: array<Joint, 64>;
fn skin(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> { return joints[j.x].transform * w.x + joints[j.y].transform * w.y; }
fn skin_normal_matrix(j: vec4<u32>, w: vec4<f32>) -> mat3x3<f32> { return joints[j.x].normal * w.x + joints[j.y].normal * w.y; }
";
        let mut c = Contract::builtin();
        c.compute = None;
        c.skin_function = Some("skin".into());
        c.frame_functions.normal = Some("skin_normal_matrix".into());
        let (wgsl, _) = addition(&c, &module(src), src).unwrap().unwrap();
        let call = "skinproof_skinned_normals[i] = vec4<f32>(skin_normal_matrix(skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u]) * skinproof_normals[i].xyz, 0.0);";
        assert!(wgsl.contains(call), "{wgsl}");
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module(&format!("{src}{wgsl}")))
            .unwrap();
        // Only a normal function: a tangent's matrix is the blended one, not the normal matrix.
        c.frame_functions.tangent = Some("skin_normal_matrix".into());
        let why = addition(&c, &module(src), src).unwrap_err();
        assert!(
            why.contains("`skin_normal_matrix` must take (tangent: vec4<f32>"),
            "{why}"
        );
        assert!(!why.contains("normal matrix, mat3x3"), "{why}");
        // The glTF Sample Viewer's shape: the normal matrix a mat4x4 (each joint's normal matrix
        // from its joint texture), the normal taken as a direction, w 0.
        let wide = format!(
            "{src}fn normal_mat4(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> {{ return joints[j.x].transform * w.x; }}\n"
        );
        c.frame_functions = FrameFunctions {
            normal: Some("normal_mat4".into()),
            tangent: None,
        };
        let (wgsl, _) = addition(&c, &module(&wide), &wide).unwrap().unwrap();
        let call = "skinproof_skinned_normals[i] = vec4<f32>((normal_mat4(skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u]) * vec4<f32>(skinproof_normals[i].xyz, 0.0)).xyz, 0.0);";
        assert!(wgsl.contains(call), "{wgsl}");
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module(&format!("{wide}{wgsl}")))
            .unwrap();
    }

    #[test]
    fn an_instance_index_after_the_influences_is_passed_zero_and_validates() {
        // Engines index per-instance data (a skin's first matrix) by the instance index.
        let src = "struct Mesh { world: mat4x4<f32>, skin_index: u32 }
@group(0) @binding(0) var<storage, read> mesh: array<Mesh>;
@group(0) @binding(1) var<storage, read> joints: array<mat4x4<f32>>;
fn skin_model(j: vec4<u32>, w: vec4<f32>, instance_index: u32) -> mat4x4<f32> {
    let o = mesh[instance_index].skin_index;
    return joints[o + j.x] * w.x + joints[o + j.y] * w.y + joints[o + j.z] * w.z + joints[o + j.w] * w.w;
}
fn sn(n: vec3<f32>, j: vec4<u32>, w: vec4<f32>, instance_index: u32) -> vec3<f32> {
    return normalize((skin_model(j, w, instance_index) * vec4<f32>(n, 0.0)).xyz);
}
";
        let mut c = Contract::builtin();
        c.compute = None;
        c.skin_function = Some("skin_model".into());
        c.frame_functions.normal = Some("sn".into());
        let (wgsl, _) = addition(&c, &module(src), src).unwrap().unwrap();
        assert!(
            wgsl.contains("(skin_model(skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u], 0) * vec4<f32>(p, 1.0)).xyz"),
            "{wgsl}"
        );
        assert!(wgsl.contains("sn(skinproof_normals[i].xyz, skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u], 0)"), "{wgsl}");
        let full = module(&format!("{src}{wgsl}"));
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&full)
            .unwrap();
    }

    #[test]
    fn normal_and_tangent_functions_may_take_the_blended_matrix() {
        // Bevy's shape: the normal by the matrix the skinning function returns, matrix first; a
        // tangent function here takes it second.
        let src = "@group(0) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;
fn skin_model(j: vec4<u32>, w: vec4<f32>, instance_index: u32) -> mat4x4<f32> {
    return joints[j.x] * w.x + joints[j.y] * w.y + joints[j.z] * w.z + joints[j.w] * w.w;
}
fn skin_normals(m: mat4x4<f32>, n: vec3<f32>) -> vec3<f32> { return normalize((m * vec4<f32>(n, 0.0)).xyz); }
fn skin_tangents(t: vec4<f32>, m: mat4x4<f32>) -> vec4<f32> { return vec4<f32>(normalize((m * vec4<f32>(t.xyz, 0.0)).xyz), t.w); }
fn skin_position(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return (skin_model(j, w, 0u) * vec4<f32>(p, 1.0)).xyz; }
";
        let mut c = Contract::builtin();
        c.compute = None;
        c.skin_function = Some("skin_model".into());
        c.frame_functions.normal = Some("skin_normals".into());
        c.frame_functions.tangent = Some("skin_tangents".into());
        let (wgsl, _) = addition(&c, &module(src), src).unwrap().unwrap();
        // The instance index as the shader's own call passes it (`skin_model(j, w, 0u)`).
        let blend = "skin_model(skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u], 0u)";
        for call in [
            format!("skin_normals({blend}, skinproof_normals[i].xyz)"),
            format!("skin_tangents(skinproof_tangents[i], {blend})"),
        ] {
            assert!(wgsl.contains(&call), "{call}\n{wgsl}");
        }
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module(&format!("{src}{wgsl}")))
            .unwrap();
        // A skinning function that returns the position has no matrix to give.
        c.skin_function = Some("skin_position".into());
        let why = addition(&c, &module(src), src).unwrap_err();
        assert!(
            why.contains("`skin_normals` must take (normal: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>), integer arguments after them (passed as the shader's own call passes them, or 0), and return"),
            "{why}"
        );
        assert!(!why.contains("blended"), "{why}");
    }

    #[test]
    fn capture_bindings_take_a_free_group_or_follow_the_last_ones() {
        let place = |decls: &str| capture_place(&module(decls));
        let var = |g: u32, b: u32| {
            format!("@group({g}) @binding({b}) var<uniform> u{g}_{b}: vec4<f32>;\n")
        };
        assert_eq!(place(&var(0, 0)), Place { group: 1, base: 0 });
        let all = [var(0, 0), var(1, 0), var(2, 0), var(3, 0), var(3, 4)].concat();
        assert_eq!(place(&all), Place { group: 3, base: 5 });
    }

    /// A vertex stage that skins inline, all four groups used: the copy of its stage, called with
    /// the case's inputs (a struct of them, the instance index 0, a normal the harness does not
    /// have as zeros), validates beside the shader.
    #[test]
    fn a_vertex_stage_without_a_skinning_function_is_called_through_a_copy() {
        let src = "struct Cam { proj: mat4x4<f32>, view: mat4x4<f32> }
@group(0) @binding(6) var<uniform> cam: Cam;
@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(1) @binding(0) var<uniform> a: vec4<f32>;
@group(2) @binding(0) var<uniform> b: vec4<f32>;
@group(3) @binding(2) var<uniform> c: vec4<f32>;
struct In { @location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>, @location(3) n: vec3<f32> }
struct Out { @location(0) n: vec3<f32>, @builtin(position) clip: vec4<f32> }
@vertex fn vs(input: In, @builtin(instance_index) inst: u32) -> Out {
    var o: Out;
    let m = input.w.x * palette[input.j.x] + input.w.y * palette[input.j.y];
    o.clip = cam.proj * cam.view * m * vec4<f32>(input.p, 1.0) + a * 0.0 + b * 0.0 + c * 0.0;
    o.n = input.n;
    return o;
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
";
        let mut c = Contract::builtin();
        c.compute = None;
        c.slots
            .iter_mut()
            .find(|s| s.role == Role::View)
            .unwrap()
            .ty = Want::Matrix;
        c.vertex = Some("vs".into());
        let (wgsl, extended) = addition(&c, &module(src), src).unwrap().unwrap();
        assert!(
            wgsl.contains("let out = skinproof_vertex_body(In(skinproof_positions[i].xyz, skinproof_joints[i * 1u + 0u], skinproof_weights[i * 1u + 0u], vec3<f32>()), 0u);\n    let clip = out.clip;"),
            "{wgsl}"
        );
        // No normal is read back: the profile names neither a source nor a skinned one.
        assert!(!wgsl.contains("skinproof_normals"), "{wgsl}");
        assert!(
            wgsl.contains("@group(3) @binding(3) var<storage, read> skinproof_positions"),
            "{wgsl}"
        );
        let full = module(&format!("{src}{wgsl}"));
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&full)
            .unwrap();
        assert!(extended.captured && extended.compute.as_deref() == Some(ENTRY));
        assert!(extended.slot(Role::View).used_by(Pipeline::Compute));
        // A camera that is the 2D view drops z: no capture then.
        c.slots
            .iter_mut()
            .find(|s| s.role == Role::View)
            .unwrap()
            .ty = Want::View;
        let added = addition(&c, &module(src), src).unwrap();
        assert!(added.is_none_or(|(w, _)| !w.contains(ENTRY)));
        // With the normal attribute and the location the stage returns it at, the copy is fed the
        // case's normals and its skinned normal read back.
        c.slots
            .iter_mut()
            .find(|s| s.role == Role::View)
            .unwrap()
            .ty = Want::Matrix;
        let mut framed = c.clone();
        framed.vertex_inputs.push(VertexInput::new(
            Role::Normals,
            (Elem::Vec3F32, None),
            wgpu::VertexFormat::Float32x3,
            3,
            None,
        ));
        framed.vertex_outputs.push(VertexOutput {
            role: Role::SkinnedNormals,
            location: 0,
            ty: Elem::Vec3F32,
            origin: None,
        });
        let (wgsl, extended) = addition(&framed, &module(src), src).unwrap().unwrap();
        for line in [
            "skinproof_weights[i * 1u + 0u], skinproof_normals[i].xyz), 0u);",
            "skinproof_skinned_normals[i] = vec4<f32>(out.n, 0.0);",
            "@group(3) @binding(8) var<storage, read> skinproof_normals: array<vec4<f32>>;",
            "@group(3) @binding(9) var<storage, read_write> skinproof_skinned_normals",
        ] {
            assert!(wgsl.contains(line), "{line} in {wgsl}");
        }
        assert!(extended.writes(Role::SkinnedNormals) && !extended.writes(Role::SkinnedTangents));
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module(&format!("{src}{wgsl}")))
            .unwrap();
        // A stage that cannot be called so keeps the reason, for its checks' SKIP (a builtin the
        // copy cannot feed; parsed, not yet validated, as the shader is read).
        c.slots
            .iter_mut()
            .find(|s| s.role == Role::View)
            .unwrap()
            .ty = Want::Matrix;
        let odd = src.replace(
            "@builtin(instance_index) inst: u32",
            "@builtin(front_facing) inst: bool",
        );
        let (wgsl, extended) = addition(&c, &module(&odd), &odd).unwrap().unwrap();
        assert!(!wgsl.contains(ENTRY) && !extended.captured);
        assert_eq!(
            extended.uncaptured.as_deref(),
            Some("it reads @builtin FrontFacing")
        );
    }
}
