// A vertex stage that pulls its vertices instead of taking attributes: one storage buffer of
// 32-byte vertices (the position's three floats, four u16 joint indices in two words, four
// unorm16 weights in two words, a spare word), read by `@builtin(vertex_index)`.

struct Camera {
    view_projection: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read> vertex_words: array<u32>;

const WORDS_PER_VERTEX: u32 = 8u;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let base = index * WORDS_PER_VERTEX;
    let position = vec3<f32>(
        bitcast<f32>(vertex_words[base]),
        bitcast<f32>(vertex_words[base + 1u]),
        bitcast<f32>(vertex_words[base + 2u]),
    );
    let j01 = vertex_words[base + 3u];
    let j23 = vertex_words[base + 4u];
    let joints = vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u);
    let weights = vec4<f32>(
        unpack2x16unorm(vertex_words[base + 5u]),
        unpack2x16unorm(vertex_words[base + 6u]),
    );
    let skin = weights.x * joint_matrices[joints.x]
        + weights.y * joint_matrices[joints.y]
        + weights.z * joint_matrices[joints.z]
        + weights.w * joint_matrices[joints.w];
    return camera.view_projection * skin * vec4<f32>(position, 1.0);
}
