// A vertex stage laid out as an engine's mesh pipeline lays it out: a view uniform with the
// projection first, then the view matrix and other fields; per-instance mesh data in a storage
// array indexed by `instance_index` (an affine world matrix as three transposed rows, and where
// the instance's joints start in the palette); a storage palette; normals skinned by the blended
// matrix the skinning function returns; inputs and outputs in structs,
// with a texture coordinate the profile does not name (the harness feeds it zeros) and varyings
// the fragment stage shades with (a flat integer one `either`-sampled, as WebGPU's compatibility
// mode needs).

struct View {
    clip_from_view: mat4x4<f32>,
    view_from_world: mat4x4<f32>,
    world_position: vec3<f32>,
    exposure: f32,
}

struct Mesh {
    // The affine world matrix, transposed: three rows of (x, y, z, translation).
    world_from_local: mat3x4<f32>,
    local_from_world_transpose_a: mat2x4<f32>,
    local_from_world_transpose_b: f32,
    flags: u32,
    current_skin_index: u32,
    first_vertex_index: u32,
}

@group(0) @binding(0) var<uniform> view: View;
@group(1) @binding(0) var<storage, read> meshes: array<Mesh>;
@group(1) @binding(1) var<storage, read> joint_matrices: array<mat4x4<f32>>;

// The skinning the harness compares number by number, as Bevy's `skin_model` takes it: the
// instance index last (the harness passes 0, the instance it draws).
fn skin_model(indexes: vec4<u32>, weights: vec4<f32>, instance_index: u32) -> mat4x4<f32> {
    let skin_index = meshes[instance_index].current_skin_index;
    return weights.x * joint_matrices[skin_index + indexes.x]
        + weights.y * joint_matrices[skin_index + indexes.y]
        + weights.z * joint_matrices[skin_index + indexes.z]
        + weights.w * joint_matrices[skin_index + indexes.w];
}

// The normal skinned by the blended matrix's inverse transpose, as Bevy's `skin_normals` takes
// it: the matrix first (the harness passes what `skin_model` returns).
fn skin_normals(world_from_local: mat4x4<f32>, normal: vec3<f32>) -> vec3<f32> {
    let m = mat3x3<f32>(world_from_local[0].xyz, world_from_local[1].xyz, world_from_local[2].xyz);
    // The inverse transpose up to scale: the cofactor matrix, its columns cross products.
    let cofactor = mat3x3<f32>(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    return normalize(cofactor * normal);
}

fn affine_to_square(affine: mat3x4<f32>) -> mat4x4<f32> {
    return transpose(mat4x4<f32>(affine[0], affine[1], affine[2], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
}

struct Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(6) joint_indices: vec4<u32>,
    @location(7) joint_weights: vec4<f32>,
}

struct VertexOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) world_position: vec4<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(5) @interpolate(flat, either) instance_index: u32,
}

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    let mesh = meshes[vertex.instance_index];
    let skin = skin_model(vertex.joint_indices, vertex.joint_weights, vertex.instance_index);
    let world_from_local = affine_to_square(mesh.world_from_local) * skin;
    var out: VertexOutput;
    out.world_position = world_from_local * vec4<f32>(vertex.position, 1.0);
    out.position = view.clip_from_view * (view.view_from_world * out.world_position);
    out.world_normal = skin_normals(world_from_local, vertex.normal);
    out.uv = vertex.uv;
    out.instance_index = vertex.instance_index;
    return out;
}

// Never black: coverage is what the harness compares.
@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let shade = 0.4 + 0.25 * fract(in.world_position.x) + 0.25 * in.uv.x + 0.1 * abs(in.world_normal.z);
    return vec4<f32>(shade, shade, shade, 1.0);
}
