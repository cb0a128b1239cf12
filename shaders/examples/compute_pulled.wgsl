// Compute-only vertex pulling at workgroup 256, entry `main`: every vertex's fields interleaved in
// one byte-addressed `array<u32>` (position vec3<f32> at byte 0, joints as u16 pairs at byte 12,
// f32 weights at byte 20, 36 bytes a vertex), the skinned positions tightly packed (12 bytes a
// vertex) in one `array<f32>`.

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Offsets and strides in u32 words.
const VERTEX_WORDS: u32 = 9u;
const POSITION_WORD: u32 = 0u;
const JOINTS_WORD: u32 = 3u;
const WEIGHTS_WORD: u32 = 5u;
const OUTPUT_WORDS: u32 = 3u;

@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<u32>;
@group(0) @binding(2) var<storage, read_write> skinned: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

fn load_f32(word: u32) -> f32 {
    return bitcast<f32>(vertices[word]);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = gid.x;
    if (v >= params.vertex_count) {
        return;
    }
    let base = v * VERTEX_WORDS;
    let at = base + POSITION_WORD;
    let p = vec4<f32>(load_f32(at), load_f32(at + 1u), load_f32(at + 2u), 1.0);
    let j01 = vertices[base + JOINTS_WORD];
    let j23 = vertices[base + JOINTS_WORD + 1u];
    let j = vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u);
    let wi = base + WEIGHTS_WORD;
    let w = vec4<f32>(load_f32(wi), load_f32(wi + 1u), load_f32(wi + 2u), load_f32(wi + 3u));
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        acc += w[k] * (palette[j[k]] * p).xyz;
    }
    let o = v * OUTPUT_WORDS;
    skinned[o] = acc.x;
    skinned[o + 1u] = acc.y;
    skinned[o + 2u] = acc.z;
}
