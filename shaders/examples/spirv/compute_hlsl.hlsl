// Compute pre-skinning as an HLSL engine writes it, compiled to SPIR-V by glslang (which reads
// HLSL) and handed to wgpu as `ShaderSource::SpirV`:
//   glslangValidator -D -V -S comp -e main spirv/compute_hlsl.hlsl -o compute_hlsl.spv
// Registers become bindings of set 0 by their numbers. The palette is a structured buffer of
// float4x4 applied as mul(matrix, point), the influences two structured buffers, the count a
// constant buffer's only member; the output keeps w 1.

cbuffer Params : register(b0) {
    uint vertex_count;
};

StructuredBuffer<float4x4> bones : register(t1);
StructuredBuffer<float4> rest_positions : register(t2);
StructuredBuffer<uint4> bone_indices : register(t3);
StructuredBuffer<float4> bone_weights : register(t4);
RWStructuredBuffer<float4> skinned_positions : register(u5);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    if (i >= vertex_count) {
        return;
    }
    uint4 j = bone_indices[i];
    float4 w = bone_weights[i];
    float4x4 m = bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
    float3 p = mul(m, float4(rest_positions[i].xyz, 1.0)).xyz;
    skinned_positions[i] = float4(p, 1.0);
}
