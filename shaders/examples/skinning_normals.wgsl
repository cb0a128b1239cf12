// The default shader's shape (both stages, the built-in bindings) that also skins normals and
// tangents: the normal by the inverse transpose of the blended matrix, the tangent by the blended
// matrix, both renormalised, the tangent's handedness w kept.

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

@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(5) var<uniform> params: Count;
@group(0) @binding(6) var<uniform> view: View;
@group(0) @binding(7) var<storage, read> normals: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> tangents: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> skinned_normals: array<vec3<f32>>;
@group(0) @binding(10) var<storage, read_write> skinned_tangents: array<vec4<f32>>;

// p' = sum_k w_k * (palette[j_k] * (p, 1)).xyz; a zero weight contributes nothing.
fn skin(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (w[k] != 0.0) {
            acc = acc + w[k] * (palette[j[k]] * h).xyz;
        }
    }
    return acc;
}

// A = sum_k w_k * palette[j_k], its upper-left 3x3: what directions go through.
fn blend(j: vec4<u32>, w: vec4<f32>) -> mat3x3<f32> {
    var a = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (w[k] != 0.0) {
            let m = palette[j[k]];
            a = a + mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * w[k];
        }
    }
    return a;
}

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

fn skin_normal(n: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> {
    return normalize(normal_matrix(blend(j, w)) * n);
}

fn skin_tangent(t: vec4<f32>, j: vec4<u32>, w: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(normalize(blend(j, w) * t.xyz), t.w);
}

@compute @workgroup_size(64)
fn skin_compute(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) {
        return;
    }
    skinned[i] = vec4<f32>(skin(positions[i].xyz, joints[i], weights[i]), 0.0);
    skinned_normals[i] = skin_normal(normals[i].xyz, joints[i], weights[i]);
    skinned_tangents[i] = skin_tangent(tangents[i], joints[i], weights[i]);
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) tint: f32,
    @location(1) normal: vec3<f32>,
    @location(2) tangent: vec4<f32>,
}

@vertex
fn vs_skin(
    @location(0) position: vec3<f32>,
    @location(1) joint: vec4<u32>,
    @location(2) weight: vec4<f32>,
    @location(3) normal: vec3<f32>,
    @location(4) tangent: vec4<f32>,
) -> VertexOut {
    let p = skin(position, joint, weight);
    var out: VertexOut;
    out.clip = vec4<f32>(p.x / view.half_width, p.y * view.scale + view.offset_y, 0.0, 1.0);
    out.tint = f32(joint.x) / 8.0;
    out.normal = skin_normal(normal, joint, weight);
    out.tangent = skin_tangent(tangent, joint, weight);
    return out;
}

// The skinned normal and tangent are taken (a lit engine shades with them), so that no vertex
// output goes unconsumed.
@fragment
fn fs_skin(
    @location(0) tint: f32,
    @location(1) normal: vec3<f32>,
    @location(2) tangent: vec4<f32>,
) -> @location(0) vec4<f32> {
    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);
}
