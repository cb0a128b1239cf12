// Compute-only vertex pulling, entry `main`, at the workgroup size its pipelines set (`override
// WORKGROUP_SIZE` has no default; the profile's `constants` give it): every vertex's fields
// interleaved in one byte-addressed `array<u32>` (position vec3<f32> at byte 0, normal vec3<f32>
// at byte 12, tangent vec4<f32> at byte 24, joints as u16 pairs at byte 40, f32 weights at byte
// 48, 64 bytes a vertex); the skinned position, normal and tangent tightly packed (40 bytes a
// vertex) in one `array<f32>`. The normal goes through the inverse transpose of the blended
// matrix, the tangent through the blended matrix, both renormalised; the tangent keeps its
// handedness w.

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Offsets and strides in u32 words.
const VERTEX_WORDS: u32 = 16u;
const POSITION_WORD: u32 = 0u;
const NORMAL_WORD: u32 = 3u;
const TANGENT_WORD: u32 = 6u;
const JOINTS_WORD: u32 = 10u;
const WEIGHTS_WORD: u32 = 12u;
const OUTPUT_WORDS: u32 = 10u;
const OUT_NORMAL_WORD: u32 = 3u;
const OUT_TANGENT_WORD: u32 = 6u;

@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<u32>;
@group(0) @binding(2) var<storage, read_write> skinned: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

fn load_f32(word: u32) -> f32 {
    return bitcast<f32>(vertices[word]);
}

fn load_vec3(word: u32) -> vec3<f32> {
    return vec3<f32>(load_f32(word), load_f32(word + 1u), load_f32(word + 2u));
}

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

override WORKGROUP_SIZE: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = gid.x;
    if (v >= params.vertex_count) {
        return;
    }
    let base = v * VERTEX_WORDS;
    let p = vec4<f32>(load_vec3(base + POSITION_WORD), 1.0);
    let n = load_vec3(base + NORMAL_WORD);
    let t = vec4<f32>(load_vec3(base + TANGENT_WORD), load_f32(base + TANGENT_WORD + 3u));
    let j01 = vertices[base + JOINTS_WORD];
    let j23 = vertices[base + JOINTS_WORD + 1u];
    let j = vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u);
    let wi = base + WEIGHTS_WORD;
    let w = vec4<f32>(load_f32(wi), load_f32(wi + 1u), load_f32(wi + 2u), load_f32(wi + 3u));
    var acc = vec3<f32>(0.0);
    var blend = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        let m = palette[j[k]];
        acc += w[k] * (m * p).xyz;
        blend += mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * w[k];
    }
    let sn = normalize(normal_matrix(blend) * n);
    let st = vec4<f32>(normalize(blend * t.xyz), t.w);
    let o = v * OUTPUT_WORDS;
    skinned[o] = acc.x;
    skinned[o + 1u] = acc.y;
    skinned[o + 2u] = acc.z;
    let on = o + OUT_NORMAL_WORD;
    skinned[on] = sn.x;
    skinned[on + 1u] = sn.y;
    skinned[on + 2u] = sn.z;
    let ot = o + OUT_TANGENT_WORD;
    skinned[ot] = st.x;
    skinned[ot + 1u] = st.y;
    skinned[ot + 2u] = st.z;
    skinned[ot + 3u] = st.w;
}
