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
        wgsl.push_str(&compute_wgsl(name, call, group, contract.influence_sets));
        capture_contract(&mut c, group);
    }
    Ok((!wgsl.is_empty()).then_some((wgsl, c)))
}

/// The added compute stage: each vertex's influence sets lie one after another in the joints and
/// weights arrays.
fn compute_wgsl(name: &str, call: Call, g: u32, sets: usize) -> String {
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
    format!(
        "
@group({g}) @binding(0) var<storage, read> skinproof_positions: array<vec4<f32>>;
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
    skinproof_skinned[i] = vec4<f32>({skinned}, 0.0);
}}
"
    )
}

/// `c` with the added compute stage: its bindings in `group`, the palette's bindings visible to
/// it, joints as u32x4 (the values the vertex stage reads, whatever its vertex format).
fn capture_contract(c: &mut Contract, group: u32) {
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
        );
        assert!(wgsl.contains("e(p, skinproof_joints[i * 2u + 0u], skinproof_weights[i * 2u + 0u], skinproof_joints[i * 2u + 1u], skinproof_weights[i * 2u + 1u])"), "{wgsl}");
    }
}
