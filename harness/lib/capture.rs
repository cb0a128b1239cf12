//! The WGSL the harness adds to a shader: a compute entry point that calls a vertex-only shader's
//! skinning function (so its positions compare number by number), and a fragment stage where
//! the shader has none.

use naga::{ScalarKind, TypeInner, VectorSize};

use crate::contract::{Contract, Elem, Pipeline, PositionFormat, Role, Slot, Space, Want};
use crate::format::JointFormat;

/// The compute entry point the harness adds.
pub const ENTRY: &str = "skinproof_capture";
/// The fragment entry point the harness adds to a shader without one: the shape in one colour.
pub const FRAGMENT: &str = "skinproof_fragment";

/// How the skinning function is called, from its signature.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Call {
    /// `f(position, joints, weights)` returning the skinned position; vec4 when `wide`.
    Position { p4: bool, r4: bool },
    /// `f(joints, weights)` returning the blended matrix.
    Matrix,
}

fn is_vec(inner: &TypeInner, size: VectorSize, kind: ScalarKind) -> bool {
    matches!(inner, TypeInner::Vector { size: s, scalar } if *s == size && scalar.kind == kind && scalar.width == 4)
}

/// The call a function's signature allows with `sets` influence sets (a joints and a weights
/// argument each), or why it allows none.
fn call(module: &naga::Module, f: &naga::Function, sets: usize) -> Result<Call, String> {
    let ty = |h: naga::Handle<naga::Type>| &module.types[h].inner;
    let args: Vec<&TypeInner> = f.arguments.iter().map(|a| ty(a.ty)).collect();
    let result = f.result.as_ref().map(|r| ty(r.ty));
    let joints = |t: &TypeInner| is_vec(t, VectorSize::Quad, ScalarKind::Uint);
    let weights = |t: &TypeInner| is_vec(t, VectorSize::Quad, ScalarKind::Float);
    let vec3 = |t: &TypeInner| is_vec(t, VectorSize::Tri, ScalarKind::Float);
    let influences = |a: &[&TypeInner]| {
        a.len() == 2 * sets && a.chunks(2).all(|p| joints(p[0]) && weights(p[1]))
    };
    match (args.split_first(), result) {
        (Some((p, rest)), Some(r))
            if (vec3(p) || weights(p)) && influences(rest) && (vec3(r) || weights(r)) =>
        {
            Ok(Call::Position {
                p4: weights(p),
                r4: weights(r),
            })
        }
        (Some(_), Some(r)) if influences(&args) && Elem::Mat4F32.matches(r) => Ok(Call::Matrix),
        _ => {
            let pairs = if sets == 1 {
                "joints: vec4<u32>, weights: vec4<f32>".to_string()
            } else {
                format!("then a joints: vec4<u32>, weights: vec4<f32> pair for each of the {sets} influence sets")
            };
            Err(format!(
                "it must take (position: vec3<f32> or vec4<f32>, {pairs}) and return the skinned position, or the same without the position and return the blended mat4x4<f32>"
            ))
        }
    }
}

/// The WGSL to add to a shader held to `contract`, and the contract the harness's pipelines then
/// follow (with the added compute stage's bindings). Nothing to add: `Ok(None)`. A skinning
/// function that is missing or has another signature: why, as a contract message.
pub fn addition(
    contract: &Contract,
    module: &naga::Module,
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
        let call = call(module, f, contract.influence_sets)
            .map_err(|why| format!("the skinning function `{name}`: {why}{whence}"))?;
        let used: Vec<u32> = module
            .global_variables
            .iter()
            .filter_map(|(_, v)| v.binding.as_ref().map(|b| b.group))
            .collect();
        let group = (0..4).find(|g| !used.contains(g)).ok_or_else(|| {
            "the shader uses all 4 bind groups, leaving none for the harness's capture bindings"
                .to_string()
        })?;
        let frames = frame_calls(contract, module)?;
        wgsl.push_str(&compute_wgsl(
            name,
            call,
            group,
            contract.influence_sets,
            &frames,
        ));
        capture_contract(&mut c, group, &frames);
    }
    Ok((!wgsl.is_empty()).then_some((wgsl, c)))
}

/// The normal and tangent functions the profile names, checked: (role of their output, name).
fn frame_calls(contract: &Contract, module: &naga::Module) -> Result<Vec<(Role, String)>, String> {
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
            VectorSize::Quad,
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
        let sets = contract.influence_sets;
        let fits = args.split_first().is_some_and(|(d, rest)| {
            dir(d)
                && rest.len() == 2 * sets
                && rest.chunks(2).all(|p| {
                    is_vec(p[0], VectorSize::Quad, ScalarKind::Uint)
                        && is_vec(p[1], VectorSize::Quad, ScalarKind::Float)
                })
        }) && func.result.as_ref().is_some_and(|r| dir(ty(r.ty)));
        if !fits {
            let d = if size == VectorSize::Tri {
                "normal: vec3<f32>"
            } else {
                "tangent: vec4<f32>"
            };
            let pairs = if sets == 1 {
                "joints: vec4<u32>, weights: vec4<f32>".to_string()
            } else {
                format!("then a joints: vec4<u32>, weights: vec4<f32> pair for each of the {sets} influence sets")
            };
            return Err(format!(
                "the function `{name}` must take ({d}, {pairs}) and return the skinned {}{whence}",
                &d[..d.find(':').unwrap_or(0)]
            ));
        }
        out.push((role, name.clone()));
    }
    Ok(out)
}

/// The added compute stage: each vertex's influence sets lie one after another in the joints and
/// weights arrays; the normal and tangent functions are called with the same influences.
fn compute_wgsl(name: &str, call: Call, g: u32, sets: usize, frames: &[(Role, String)]) -> String {
    let influences = (0..sets)
        .map(|k| {
            format!("skinproof_joints[i * {sets}u + {k}u], skinproof_weights[i * {sets}u + {k}u]")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let skinned = match call {
        Call::Position { p4, r4 } => {
            let p = if p4 { "vec4<f32>(p, 1.0)" } else { "p" };
            let r = if r4 { ".xyz" } else { "" };
            format!("{name}({p}, {influences}){r}")
        }
        Call::Matrix => {
            format!("({name}({influences}) * vec4<f32>(p, 1.0)).xyz")
        }
    };
    // Normals and tangents: their sources and outputs at bindings 5 to 8 of the same group.
    let (mut frame_decls, mut frame_lines) = (String::new(), String::new());
    for (role, f) in frames {
        let (read, write, arg, value) = if *role == Role::SkinnedNormals {
            let v = format!("vec4<f32>({f}(skinproof_normals[i].xyz, {influences}), 0.0)");
            ("normals: array<vec4<f32>>", "skinned_normals", 5, v)
        } else {
            let v = format!("{f}(skinproof_tangents[i], {influences})");
            ("tangents: array<vec4<f32>>", "skinned_tangents", 7, v)
        };
        frame_decls.push_str(&format!(
            "@group({g}) @binding({arg}) var<storage, read> skinproof_{read};\n@group({g}) @binding({}) var<storage, read_write> skinproof_{write}: array<vec4<f32>>;\n",
            arg + 1
        ));
        frame_lines.push_str(&format!("\n    skinproof_{write}[i] = {value};"));
    }
    format!(
        "
{frame_decls}@group({g}) @binding(0) var<storage, read> skinproof_positions: array<vec4<f32>>;
@group({g}) @binding(1) var<storage, read> skinproof_joints: array<vec4<u32>>;
@group({g}) @binding(2) var<storage, read> skinproof_weights: array<vec4<f32>>;
@group({g}) @binding(3) var<storage, read_write> skinproof_skinned: array<vec4<f32>>;
@group({g}) @binding(4) var<uniform> skinproof_count: vec4<u32>;

@compute @workgroup_size(64)
fn {ENTRY}(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= skinproof_count.x) {{
        return;
    }}
    let p = skinproof_positions[i].xyz;
    skinproof_skinned[i] = vec4<f32>({skinned}, 0.0);{frame_lines}
}}
"
    )
}

/// `c` with the added compute stage: its bindings in `group`, the palette's bindings visible to
/// it, joints as u32x4 (the values the vertex stage reads, whatever its vertex format).
fn capture_contract(c: &mut Contract, group: u32, frames: &[(Role, String)]) {
    for s in &mut c.slots {
        if matches!(
            s.role,
            Role::Palette | Role::InverseBinds | Role::PaletteOffset
        ) {
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
            Want::Array(Elem::Vec4U32),
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
    for (role, _) in frames {
        let write = Space::Storage { writable: true };
        let vec4 = Want::Array(Elem::Vec4F32);
        added.extend(if *role == Role::SkinnedNormals {
            [
                (Role::Normals, 5, read, Want::Positions, "source normals"),
                (Role::SkinnedNormals, 6, write, vec4, "skinned normals"),
            ]
        } else {
            [
                (Role::Tangents, 7, read, vec4, "source tangents"),
                (Role::SkinnedTangents, 8, write, vec4, "skinned tangents"),
            ]
        });
    }
    for (role, binding, space, ty, holds) in added {
        c.slots.push(Slot {
            role,
            group,
            binding,
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
    c.formats.joints = JointFormat::U32x4;
    c.formats.positions = PositionFormat::Vec4;
    c.formats.skinned = PositionFormat::Vec4;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> naga::Module {
        naga::front::wgsl::parse_str(src).unwrap()
    }

    #[test]
    fn signatures_decide_the_call() {
        let m = module(
            "fn a(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> { return p; }
             fn b(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> { return mat4x4<f32>(); }
             fn c(p: vec4<f32>, j: vec4<u32>, w: vec4<f32>) -> vec4<f32> { return p; }
             fn d(j: vec4<u32>) -> f32 { return 0.0; }",
        );
        let f = |n: &str| {
            let (_, f) = m
                .functions
                .iter()
                .find(|(_, f)| f.name.as_deref() == Some(n))
                .unwrap();
            call(&m, f, 1)
        };
        assert_eq!(
            f("a"),
            Ok(Call::Position {
                p4: false,
                r4: false
            })
        );
        assert_eq!(f("b"), Ok(Call::Matrix));
        assert_eq!(f("c"), Ok(Call::Position { p4: true, r4: true }));
        assert!(f("d").unwrap_err().contains("must take"));
        let two = module(
            "fn e(p: vec3<f32>, j0: vec4<u32>, w0: vec4<f32>, j1: vec4<u32>, w1: vec4<f32>) -> vec3<f32> { return p; }",
        );
        let (_, e) = two.functions.iter().next().unwrap();
        assert_eq!(
            call(&two, e, 2),
            Ok(Call::Position {
                p4: false,
                r4: false
            })
        );
        assert!(call(&two, e, 1).unwrap_err().contains("must take"));
        let wgsl = compute_wgsl(
            "e",
            Call::Position {
                p4: false,
                r4: false,
            },
            3,
            2,
            &[],
        );
        assert!(wgsl.contains("e(p, skinproof_joints[i * 2u + 0u], skinproof_weights[i * 2u + 0u], skinproof_joints[i * 2u + 1u], skinproof_weights[i * 2u + 1u])"), "{wgsl}");
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
        let (wgsl, extended) = addition(&c, &module(src)).unwrap().unwrap();
        assert!(
            wgsl.contains("skinproof_skinned_normals[i] = vec4<f32>(sn(skinproof_normals[i].xyz")
        );
        let full = module(&format!("{src}{wgsl}"));
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&full)
            .unwrap();
        assert_eq!(extended.try_slot(Role::SkinnedTangents).unwrap().binding, 8);
        c.frame_functions.tangent = Some("sn".into());
        let why = addition(&c, &module(src)).unwrap_err();
        assert!(why.contains("`sn` must take (tangent: vec4<f32>"), "{why}");
    }
}
