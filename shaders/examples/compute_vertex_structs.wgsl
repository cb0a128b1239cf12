// Compute-only skinning of an engine's typed vertex structs, entry `skin_vertices`: each source
// vertex one `Vertex` in a storage array (position, u16 joint pairs, a texture coordinate, normal
// and f32 weights, 64 bytes a vertex with WGSL's alignment, padding after the position and the
// normal), each result one `SkinnedVertex` (position, normal and the texture coordinate copied
// through, 48 bytes), written whole. The normal goes through the inverse transpose of the blended
// matrix and is renormalised.

struct Vertex {
    position: vec3<f32>,
    joints: vec2<u32>,
    uv: vec2<f32>,
    normal: vec3<f32>,
    weights: vec4<f32>,
}

struct SkinnedVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
    uv: vec2<f32>,
}

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(2) var<storage, read_write> skinned: array<SkinnedVertex>;
@group(0) @binding(3) var<uniform> params: Params;

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

fn unpack_joints(pairs: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(pairs.x & 0xffffu, pairs.x >> 16u, pairs.y & 0xffffu, pairs.y >> 16u);
}

@compute @workgroup_size(64)
fn skin_vertices(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let v = vertices[i];
    let j = unpack_joints(v.joints);
    let m = v.weights.x * bones[j.x] + v.weights.y * bones[j.y] + v.weights.z * bones[j.z]
        + v.weights.w * bones[j.w];
    let p = (m * vec4<f32>(v.position, 1.0)).xyz;
    let n = normalize(normal_matrix(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)) * v.normal);
    skinned[i] = SkinnedVertex(p, n, v.uv);
}
