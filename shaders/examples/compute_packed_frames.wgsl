// Compute-only skinning of vertices whose normal and tangent are packed as engines keep them to
// shrink their vertices, entry `skin_packed`: each source vertex one `PackedVertex` (position,
// texture coordinate, and the normal and tangent each one word, `pack4x8snorm`, the tangent's w
// its handedness), each result the same struct, written whole. Each vertex's joints (u16 pairs)
// and unorm8 weights are a `Skin` in a buffer of their own. The normal goes through the inverse
// transpose of the blended matrix, the tangent through the matrix itself; both are renormalised
// before they are packed again.

struct PackedVertex {
    position: vec3<f32>,
    normal: u32,
    uv: vec2<f32>,
    tangent: u32,
    _pad: u32,
}

struct Skin {
    joints: vec2<u32>,
    weights: u32,
}

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<PackedVertex>;
@group(0) @binding(2) var<storage, read> skins: array<Skin>;
@group(0) @binding(3) var<storage, read_write> skinned: array<PackedVertex>;
@group(0) @binding(4) var<uniform> params: Params;

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

@compute @workgroup_size(64)
fn skin_packed(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let v = vertices[i];
    let s = skins[i];
    let j = vec4<u32>(s.joints.x & 0xffffu, s.joints.x >> 16u, s.joints.y & 0xffffu, s.joints.y >> 16u);
    let w = unpack4x8unorm(s.weights);
    let m = w.x * bones[j.x] + w.y * bones[j.y] + w.z * bones[j.z] + w.w * bones[j.w];
    let m3 = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    let n = normalize(normal_matrix(m3) * unpack4x8snorm(v.normal).xyz);
    let t = unpack4x8snorm(v.tangent);
    let skinned_t = vec4<f32>(normalize(m3 * t.xyz), t.w);
    var out = v;
    out.position = (m * vec4<f32>(v.position, 1.0)).xyz;
    out.normal = pack4x8snorm(vec4<f32>(n, 0.0));
    out.tangent = pack4x8snorm(skinned_t);
    skinned[i] = out;
}
