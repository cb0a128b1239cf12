// Compute-only skinning in place, entry `skin_in_place`: each vertex's position and normal are
// read from, and written back over, one storage buffer of tightly packed floats (24 bytes a
// vertex, where `vec3` members would be padded to 32), wrapped in a struct as storage buffers
// once had to be. The joints (u16 pairs in a struct of two words) and the weights lie in arrays of
// their own, declared `read_write` as engines that skin in place declare every buffer. The vertex
// count is the length of a range in a storage struct of skinning parameters, beside the offset of
// the mesh's joint 0 in the palette.

struct PackedVertex {
    px: f32, py: f32, pz: f32,
    nx: f32, ny: f32, nz: f32,
}

struct Vertices { data: array<PackedVertex> }

struct JointPair { j01: u32, j23: u32 }

struct Joints { data: array<JointPair> }

struct Weights { data: array<vec4<f32>> }

struct Range { start: u32, end: u32 }

struct SkinParams {
    vertices: Range,
    joint_offset: u32,
}

@group(0) @binding(0) var<storage, read_write> vertices: Vertices;
@group(0) @binding(1) var<storage, read_write> joints: Joints;
@group(0) @binding(2) var<storage, read_write> weights: Weights;
@group(0) @binding(3) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read> params: SkinParams;

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

@compute @workgroup_size(64)
fn skin_in_place(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.vertices.end - params.vertices.start) {
        return;
    }
    let i = params.vertices.start + gid.x;
    let v = vertices.data[i];
    let pair = joints.data[i];
    let j = vec4<u32>(pair.j01 & 0xffffu, pair.j01 >> 16u, pair.j23 & 0xffffu, pair.j23 >> 16u);
    let w = weights.data[i];
    var m = mat4x4<f32>();
    for (var k = 0u; k < 4u; k++) {
        m += w[k] * joint_matrices[params.joint_offset + j[k]];
    }
    let p = (m * vec4<f32>(v.px, v.py, v.pz, 1.0)).xyz;
    let n = normalize(normal_matrix(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)) * vec3<f32>(v.nx, v.ny, v.nz));
    vertices.data[i] = PackedVertex(p.x, p.y, p.z, n.x, n.y, n.z);
}
