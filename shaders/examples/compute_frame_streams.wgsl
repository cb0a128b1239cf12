// A compute stage that keeps normals and tangents in streams of their own, as engines that skin
// tightly packed vertex streams do: normals as bare floats, three a vertex, skinned in place;
// tangents as structs of three floats without handedness, skinned into a float stream of their
// own. The normal goes through the inverse transpose of the blended matrix, the tangent through
// the blended matrix, both renormalised.

struct Count {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Direction {
    x: f32,
    y: f32,
    z: f32,
}

@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(5) var<uniform> params: Count;
@group(0) @binding(6) var<storage, read_write> normals: array<f32>;
@group(0) @binding(7) var<storage, read> tangents: array<Direction>;
@group(0) @binding(8) var<storage, read_write> skinned_tangents: array<f32>;

// A = sum_k w_k * palette[j_k]; a zero weight contributes nothing.
fn blend(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> {
    var a = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (w[k] != 0.0) {
            a = a + palette[j[k]] * w[k];
        }
    }
    return a;
}

// A^-T = cof(A) / det(A) of the upper-left 3x3: the cofactor's columns are the cross products of
// A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

@compute @workgroup_size(64)
fn skin_compute(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) {
        return;
    }
    let a = blend(joints[i], weights[i]);
    let linear = mat3x3<f32>(a[0].xyz, a[1].xyz, a[2].xyz);
    skinned[i] = vec4<f32>((a * vec4<f32>(positions[i].xyz, 1.0)).xyz, 0.0);
    let at = 3u * i;
    let source = vec3<f32>(normals[at], normals[at + 1u], normals[at + 2u]);
    let n = normalize(normal_matrix(linear) * source);
    normals[at] = n.x;
    normals[at + 1u] = n.y;
    normals[at + 2u] = n.z;
    let s = tangents[i];
    let t = normalize(linear * vec3<f32>(s.x, s.y, s.z));
    skinned_tangents[at] = t.x;
    skinned_tangents[at + 1u] = t.y;
    skinned_tangents[at + 2u] = t.z;
}
