// A vertex stage laid out as scene-graph engines with a WebGL past lay theirs out: joint indices
// as floats (a `vec4<f32>` attribute), the bones in a float texture one row long (four texels a
// bone, its matrix's columns), a scene uniform with the view-projection first, a mesh uniform with
// the world matrix, and the skinning inline in the entry point.

struct Scene {
    view_projection: mat4x4<f32>,
    view: mat4x4<f32>,
    eye: vec4<f32>,
}

struct Mesh {
    world: mat4x4<f32>,
    visibility: f32,
}

@group(0) @binding(0) var<uniform> scene: Scene;
@group(1) @binding(0) var<uniform> mesh: Mesh;
@group(1) @binding(1) var bone_sampler: texture_2d<f32>;

fn read_matrix(index: f32) -> mat4x4<f32> {
    let offset = i32(index) * 4;
    let m0 = textureLoad(bone_sampler, vec2<i32>(offset + 0, 0), 0);
    let m1 = textureLoad(bone_sampler, vec2<i32>(offset + 1, 0), 0);
    let m2 = textureLoad(bone_sampler, vec2<i32>(offset + 2, 0), 0);
    let m3 = textureLoad(bone_sampler, vec2<i32>(offset + 3, 0), 0);
    return mat4x4<f32>(m0, m1, m2, m3);
}

struct VertexInputs {
    @location(0) position: vec3<f32>,
    @location(1) matrices_indices: vec4<f32>,
    @location(2) matrices_weights: vec4<f32>,
}

struct FragmentInputs {
    @builtin(position) position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
}

@vertex
fn main_vertex(input: VertexInputs) -> FragmentInputs {
    var influence = read_matrix(input.matrices_indices[0]) * input.matrices_weights[0];
    influence += read_matrix(input.matrices_indices[1]) * input.matrices_weights[1];
    influence += read_matrix(input.matrices_indices[2]) * input.matrices_weights[2];
    influence += read_matrix(input.matrices_indices[3]) * input.matrices_weights[3];
    let final_world = mesh.world * influence;
    let world_position = final_world * vec4<f32>(input.position, 1.0);
    var output: FragmentInputs;
    output.position = scene.view_projection * world_position;
    output.world_position = world_position.xyz;
    return output;
}

@fragment
fn main_fragment(input: FragmentInputs) -> @location(0) vec4<f32> {
    let shade = 0.6 + 0.2 * fract(input.world_position.x);
    return vec4<f32>(shade, shade, shade, mesh.visibility);
}
