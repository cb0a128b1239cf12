// Both stages, with the palette in a uniform buffer of 256 matrices (16 KiB), as renderers do on
// targets without storage buffers in the vertex stage.

struct Count {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct View {
    scale: f32,
    offset_y: f32,
    half_width: f32,
    _pad: f32,
}

// Bevy's form: the fixed array wrapped in a struct, as its only member.
struct SkinnedMesh {
    data: array<mat4x4<f32>, 256u>,
}

@group(0) @binding(0) var<uniform> palette: SkinnedMesh;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(5) var<uniform> params: Count;
@group(0) @binding(6) var<uniform> view: View;

fn skin(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (w[k] != 0.0) {
            acc = acc + w[k] * (palette.data[j[k]] * h).xyz;
        }
    }
    return acc;
}

@compute @workgroup_size(64)
fn skin_compute(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) {
        return;
    }
    skinned[i] = vec4<f32>(skin(positions[i].xyz, joints[i], weights[i]), 0.0);
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) tint: f32,
}

@vertex
fn vs_skin(
    @location(0) position: vec3<f32>,
    @location(1) joint: vec4<u32>,
    @location(2) weight: vec4<f32>,
) -> VertexOut {
    let p = skin(position, joint, weight);
    var out: VertexOut;
    out.clip = vec4<f32>(p.x / view.half_width, p.y * view.scale + view.offset_y, 0.0, 1.0);
    out.tint = f32(joint.x) / 8.0;
    return out;
}

@fragment
fn fs_skin(@location(0) tint: f32) -> @location(0) vec4<f32> {
    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);
}
