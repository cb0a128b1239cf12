// Compute-only skinning of two vertex streams, entry `skin_streams`, as engines keep them: each
// vertex's position and normal one `Vertex` in a storage array (32 bytes with WGSL's alignment),
// its joints and weights one `Skin` in a second array (the weights first, as unorm16 pairs, then
// the joints as u16 pairs: 16 bytes). Each result is one `SkinnedVertex`, written whole. There is
// no count uniform: the invocations are bounded by the length of the vertices' array.

struct Vertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

struct Skin {
    weights: vec2<u32>,
    joints: vec2<u32>,
}

struct SkinnedVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

@group(0) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(2) var<storage, read> skins: array<Skin>;
@group(0) @binding(3) var<storage, read_write> skinned: array<SkinnedVertex>;

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

@compute @workgroup_size(64)
fn skin_streams(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&vertices)) {
        return;
    }
    let v = vertices[i];
    let s = skins[i];
    let j = vec4<u32>(s.joints.x & 0xffffu, s.joints.x >> 16u, s.joints.y & 0xffffu, s.joints.y >> 16u);
    let w = vec4<f32>(unpack2x16unorm(s.weights.x), unpack2x16unorm(s.weights.y));
    var m = mat4x4<f32>();
    for (var k = 0u; k < 4u; k++) {
        m += w[k] * joint_matrices[j[k]];
    }
    let p = (m * vec4<f32>(v.position, 1.0)).xyz;
    let n = normalize(normal_matrix(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)) * v.normal);
    skinned[i] = SkinnedVertex(p, n);
}
