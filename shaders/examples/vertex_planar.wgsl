// A 2D rig's vertex stage, as cut-out and sprite animation tools lay theirs out: planar (x, y)
// positions placed at z = 0 by the stage, four u16 joint indices in two u32s (WGSL has no u16),
// the palette split into the joints' global matrices and their inverse binds, a camera struct of
// three matrices, and an options uniform whose zeros mean the skinned path and the plain colour.

struct Camera {
    projection: mat4x4<f32>,
    view: mat4x4<f32>,
    model: mat4x4<f32>,
}

struct Options {
    debug_view: u32,
    unskinned: u32,
}

struct VertexIn {
    @location(0) position: vec2<f32>,
    @location(1) joint_pairs: vec2<u32>,
    @location(2) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) weights: vec4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<uniform> options: Options;
@group(2) @binding(0) var<storage, read> joint_globals: array<mat4x4<f32>>;
@group(2) @binding(1) var<storage, read> inverse_binds: array<mat4x4<f32>>;

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    let local = vec4<f32>(v.position, 0.0, 1.0);
    let p = v.joint_pairs;
    let joints = vec4<u32>(p.x & 0xffffu, p.x >> 16u, p.y & 0xffffu, p.y >> 16u);
    var skin = mat4x4<f32>();
    for (var k = 0u; k < 4u; k++) {
        let j = joints[k];
        skin += (joint_globals[j] * inverse_binds[j]) * v.weights[k];
    }
    let placed = select(skin * local, local, options.unskinned != 0u);
    var out: VertexOut;
    out.clip = camera.projection * camera.view * camera.model * placed;
    out.weights = v.weights;
    return out;
}

@fragment
fn fs_main(i: VertexOut) -> @location(0) vec4<f32> {
    if options.debug_view == 1u {
        return i.weights;
    }
    return vec4<f32>(0.9, 0.6, 0.2, 1.0);
}
