// A vertex stage that pulls each field from a storage buffer of its own, as engines that keep
// their geometry in storage do: positions and normals as bare floats (three a vertex), joints as
// four u8 indices in one word, weights as a vec4 a vertex; every read goes through the mesh's
// index buffer (bound as storage, read at the triangle's corner), and the position and normal
// are skinned in place.

struct Camera {
    view_projection: mat4x4<f32>,
}

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read> indices: array<u32>;
@group(0) @binding(3) var<storage, read> positions: array<f32>;
@group(0) @binding(4) var<storage, read> normals: array<f32>;
@group(0) @binding(5) var<storage, read> skin_joints: array<u32>;
@group(0) @binding(6) var<storage, read> skin_weights: array<vec4<f32>>;

fn load_position(i: u32) -> vec3<f32> {
    return vec3<f32>(positions[i * 3u], positions[i * 3u + 1u], positions[i * 3u + 2u]);
}

fn load_normal(i: u32) -> vec3<f32> {
    return vec3<f32>(normals[i * 3u], normals[i * 3u + 1u], normals[i * 3u + 2u]);
}

@vertex
fn vs_main(@builtin(vertex_index) vertex_index: u32) -> Out {
    let face = vertex_index / 3u;
    let corner = vertex_index % 3u;
    let triangle = vec3<u32>(indices[face * 3u], indices[face * 3u + 1u], indices[face * 3u + 2u]);
    let i = triangle[corner];

    var position = load_position(i);
    var normal = load_normal(i);
    let joints = unpack4xU8(skin_joints[i]);
    let weights = skin_weights[i];
    let skin = weights.x * bones[joints.x]
        + weights.y * bones[joints.y]
        + weights.z * bones[joints.z]
        + weights.w * bones[joints.w];
    position = (skin * vec4<f32>(position, 1.0)).xyz;
    normal = (skin * vec4<f32>(normal, 0.0)).xyz;

    var out: Out;
    out.clip = camera.view_projection * vec4<f32>(position, 1.0);
    out.normal = normalize(normal);
    return out;
}
