// A compute stage that skins an engine's vertex pool: every stream of the mesh, sources and
// outputs, tightly packed in regions of one `array<u32>`, each region's byte offset in a struct
// the engine writes per mesh beside the vertex count and the mesh's first joint. Positions,
// normals and tangents are three floats a vertex (the tangents without handedness), joints u16
// pairs, weights four floats. The normal goes through the inverse transpose of the blended
// matrix, the tangent through the blended matrix, both renormalised.

struct MeshRegions {
    source_position: u32,
    source_normal: u32,
    source_tangent: u32,
    joint_indices: u32,
    joint_weights: u32,
    skinned_position: u32,
    skinned_normal: u32,
    skinned_tangent: u32,
    first_joint: u32,
    vertex_count: u32,
}

@group(0) @binding(0) var<storage, read_write> pool: array<u32>;
@group(0) @binding(1) var<storage, read> mesh: MeshRegions;
@group(0) @binding(2) var<storage, read> joint_matrices: array<mat4x4<f32>>;

// The i-th element of a region of `words` u32 words an element, as a word index.
fn word_of(region: u32, i: u32, words: u32) -> u32 {
    return region / 4u + i * words;
}

fn load_vec3(region: u32, i: u32) -> vec3<f32> {
    let w = word_of(region, i, 3u);
    return vec3<f32>(bitcast<f32>(pool[w]), bitcast<f32>(pool[w + 1u]), bitcast<f32>(pool[w + 2u]));
}

fn load_vec4(region: u32, i: u32) -> vec4<f32> {
    let w = word_of(region, i, 4u);
    return vec4<f32>(
        bitcast<f32>(pool[w]),
        bitcast<f32>(pool[w + 1u]),
        bitcast<f32>(pool[w + 2u]),
        bitcast<f32>(pool[w + 3u]),
    );
}

// Four u16 indices in two words, the low half first.
fn load_u16x4(region: u32, i: u32) -> vec4<u32> {
    let w = word_of(region, i, 2u);
    let a = pool[w];
    let b = pool[w + 1u];
    return vec4<u32>(a & 0xffffu, a >> 16u, b & 0xffffu, b >> 16u);
}

fn store_vec3(region: u32, i: u32, v: vec3<f32>) {
    let w = word_of(region, i, 3u);
    pool[w] = bitcast<u32>(v.x);
    pool[w + 1u] = bitcast<u32>(v.y);
    pool[w + 2u] = bitcast<u32>(v.z);
}

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn inverse_transpose(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

@compute @workgroup_size(64)
fn skin_pool(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= mesh.vertex_count) {
        return;
    }
    let joints = load_u16x4(mesh.joint_indices, i);
    let weights = load_vec4(mesh.joint_weights, i);
    // A = sum_k w_k * M[first + j_k]; a zero weight contributes nothing.
    var a = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (weights[k] != 0.0) {
            a = a + joint_matrices[mesh.first_joint + joints[k]] * weights[k];
        }
    }
    let linear = mat3x3<f32>(a[0].xyz, a[1].xyz, a[2].xyz);
    let p = (a * vec4<f32>(load_vec3(mesh.source_position, i), 1.0)).xyz;
    store_vec3(mesh.skinned_position, i, p);
    let n = normalize(inverse_transpose(linear) * load_vec3(mesh.source_normal, i));
    store_vec3(mesh.skinned_normal, i, n);
    let t = normalize(linear * load_vec3(mesh.source_tangent, i));
    store_vec3(mesh.skinned_tangent, i, t);
}
