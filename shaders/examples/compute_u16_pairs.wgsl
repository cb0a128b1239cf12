// A compute pre-skinning pass: 256 threads per workgroup, entry `main`, joint indices as two u16
// per u32 word (4 per vertex in 8 bytes, as glTF stores JOINTS_0 as unsigned shorts), each input
// in its own storage buffer.

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(1) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(1) @binding(1) var<storage, read> src_positions: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> src_joints: array<vec2<u32>>;
@group(1) @binding(3) var<storage, read> src_weights: array<vec4<f32>>;
@group(1) @binding(4) var<storage, read_write> dst_positions: array<vec4<f32>>;
@group(1) @binding(5) var<uniform> params: Params;

fn unpack_joints(packed: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(packed.x & 0xffffu, packed.x >> 16u, packed.y & 0xffffu, packed.y >> 16u);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = gid.x;
    if (v >= params.vertex_count) {
        return;
    }
    let p = vec4<f32>(src_positions[v].xyz, 1.0);
    let j = unpack_joints(src_joints[v]);
    let w = src_weights[v];
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        if (w[k] != 0.0) {
            acc += w[k] * (joint_matrices[j[k]] * p).xyz;
        }
    }
    dst_positions[v] = vec4<f32>(acc, 0.0);
}
