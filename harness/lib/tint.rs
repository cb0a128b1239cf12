//! Tint, the WGSL compiler of Chromium-based browsers, on the shader the harness builds its
//! pipelines from: the job for `tools/tint/check.mjs` (the module source with what `capture` adds,
//! the entry points, layouts and vertex buffers of both pipelines), its answer located in the
//! shader file: the `shader::tint_accepts` trial's outcomes, one per pipeline.
//!
//! naga accepts WGSL that Tint refuses (a derivative outside a fragment stage, a barrier under
//! control flow that depends on a per-thread value); a team shipping to browsers must know.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::check::Outcome;
use crate::contract::{Contract, Pipeline};
use crate::shader::Shader;
use crate::tools::{Missing, Tool, Tools};

/// What `check.mjs` answers: the adapter, Tint's messages on the module, and the errors of each
/// pipeline (`None`: not built, because the module failed or the shader has no such stage).
#[derive(Debug, Deserialize)]
struct Answer {
    adapter: String,
    module: Vec<Message>,
    compute: Option<Vec<String>>,
    render: Option<Vec<String>>,
}

/// One message of the module's compilation info; line 0 when it has no place.
#[derive(Debug, Deserialize)]
struct Message {
    #[serde(rename = "type")]
    kind: String,
    line: usize,
    column: usize,
    message: String,
}

/// A pipeline the trial builds: the shader's entry points in it (a row each; the fragment stage
/// the harness adds has none) and what the report calls it.
struct Built {
    pipeline: Pipeline,
    entries: Vec<String>,
    shown: String,
}

fn built(contract: &Contract) -> Vec<Built> {
    let mut out = Vec::new();
    if let Some(cs) = &contract.compute {
        out.push(Built {
            pipeline: Pipeline::Compute,
            entries: vec![cs.clone()],
            shown: format!("the compute pipeline ({cs})"),
        });
    }
    if let Some(vs) = &contract.vertex {
        out.push(Built {
            pipeline: Pipeline::Render,
            entries: std::iter::once(vs.clone())
                .chain(contract.fragment.clone())
                .collect(),
            shown: format!("the render pipeline ({vs}, {})", fragment(contract)),
        });
    }
    out
}

fn fragment(contract: &Contract) -> &str {
    contract
        .fragment
        .as_deref()
        .unwrap_or(crate::capture::FRAGMENT)
}

/// The bind group layouts of `pipeline` as WebGPU's descriptors take them.
fn groups(contract: &Contract, pipeline: Pipeline) -> Value {
    let groups: Vec<Value> = contract
        .groups_of(pipeline)
        .into_iter()
        .map(|group| {
            let entries: Vec<Value> = contract
                .layout_entries(pipeline, group)
                .into_iter()
                .map(|e| {
                    let handle = match e.ty {
                        wgpu::BindingType::Texture {
                            sample_type,
                            view_dimension,
                            multisampled,
                        } => Some((
                            "texture",
                            json!({
                                "sampleType": sample_name(sample_type),
                                "viewDimension": view_name(view_dimension),
                                "multisampled": multisampled,
                            }),
                        )),
                        wgpu::BindingType::Sampler(s) => Some((
                            "sampler",
                            json!({ "type": match s {
                                wgpu::SamplerBindingType::Filtering => "filtering",
                                wgpu::SamplerBindingType::NonFiltering => "non-filtering",
                                wgpu::SamplerBindingType::Comparison => "comparison",
                            } }),
                        )),
                        _ => None,
                    };
                    if let Some((kind, desc)) = handle {
                        return json!({
                            "binding": e.binding,
                            "visibility": e.visibility.bits(),
                            kind: desc,
                        });
                    }
                    let (kind, min) = match e.ty {
                        wgpu::BindingType::Buffer {
                            ty,
                            min_binding_size,
                            ..
                        } => (
                            match ty {
                                wgpu::BufferBindingType::Uniform => "uniform",
                                wgpu::BufferBindingType::Storage { read_only: true } => {
                                    "read-only-storage"
                                }
                                wgpu::BufferBindingType::Storage { read_only: false } => "storage",
                            },
                            min_binding_size.map_or(0, |s| s.get()),
                        ),
                        _ => unreachable!("a texture or sampler is described above"),
                    };
                    json!({
                        "binding": e.binding,
                        "visibility": e.visibility.bits(),
                        "type": kind,
                        "minBindingSize": min,
                    })
                })
                .collect();
            json!({ "group": group, "entries": entries })
        })
        .collect();
    Value::Array(groups)
}

/// A texture binding's sample type as WebGPU names it.
fn sample_name(t: wgpu::TextureSampleType) -> &'static str {
    match t {
        wgpu::TextureSampleType::Float { filterable: true } => "float",
        wgpu::TextureSampleType::Float { filterable: false } => "unfilterable-float",
        wgpu::TextureSampleType::Depth => "depth",
        wgpu::TextureSampleType::Sint => "sint",
        wgpu::TextureSampleType::Uint => "uint",
    }
}

/// A texture view's dimension as WebGPU names it.
fn view_name(d: wgpu::TextureViewDimension) -> &'static str {
    match d {
        wgpu::TextureViewDimension::D1 => "1d",
        wgpu::TextureViewDimension::D2 => "2d",
        wgpu::TextureViewDimension::D2Array => "2d-array",
        wgpu::TextureViewDimension::Cube => "cube",
        wgpu::TextureViewDimension::CubeArray => "cube-array",
        wgpu::TextureViewDimension::D3 => "3d",
    }
}

/// A wgpu vertex format as WebGPU names it: `Float32x3` -> `float32x3`, `Unorm8x4Bgra` ->
/// `unorm8x4-bgra`.
fn vertex_format(format: wgpu::VertexFormat) -> String {
    let name = format!("{format:?}").to_lowercase().replace('_', "-");
    match name.strip_suffix("bgra") {
        Some(rest) => format!("{rest}-bgra"),
        None => name,
    }
}

/// WebGPU's least `maxVertexBuffers`, which Dawn's compatibility mode on GL keeps.
const MAX_VERTEX_BUFFERS: usize = 8;

/// The render pipeline's vertex buffers: one an attribute, as the harness binds them, or, where
/// the stage takes more attributes than WebGPU's least limit allows buffers (an engine's
/// per-instance attributes beside the skinning ones), all interleaved in one, as an engine packs
/// them; the shader is then judged, not the harness's choice of buffers.
fn vertex_buffers(inputs: &[crate::contract::VertexInput]) -> Vec<Value> {
    let attribute = |v: &crate::contract::VertexInput, offset: u64| {
        json!({
            "format": vertex_format(v.attribute.format),
            "offset": offset,
            "shaderLocation": v.attribute.shader_location,
        })
    };
    if inputs.len() <= MAX_VERTEX_BUFFERS {
        return inputs
            .iter()
            .map(|v| json!({ "arrayStride": v.stride, "attributes": [attribute(v, v.attribute.offset)] }))
            .collect();
    }
    let mut offset = 0;
    let attributes: Vec<Value> = inputs
        .iter()
        .map(|v| {
            let a = attribute(v, offset);
            offset += v.attribute.format.size().next_multiple_of(4);
            a
        })
        .collect();
    vec![json!({ "arrayStride": offset, "attributes": attributes })]
}

/// The job `check.mjs` reads on stdin.
fn job(shader: &Shader) -> Value {
    let c = &shader.contract;
    let buffers = vertex_buffers(&c.vertex_inputs);
    let target = format!("{:?}", crate::gpu::context::TARGET_FORMAT).to_lowercase();
    json!({
        "code": shader.module_source(),
        "label": shader.path.display().to_string(),
        "constants": c.constants.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "immediateSize": c.immediate_size(),
        "compute": c.compute.as_ref().map(|entry| json!({
            "entry": entry,
            "groups": groups(c, Pipeline::Compute),
        })),
        "render": c.vertex.as_ref().map(|vs| json!({
            "vertex": vs,
            "fragment": fragment(c),
            "buffers": buffers,
            "groups": groups(c, Pipeline::Render),
            "format": target,
        })),
    })
}

/// A message of Tint's, placed in the shader file (or in the WGSL the harness adds, after it)
/// with its line of source.
fn located(shader: &Shader, m: &Message) -> String {
    let text = shader.module_source();
    let own = shader.source.lines().count();
    let place = match m.line {
        0 => return format!("{}: {}", m.kind, m.message),
        l if l <= own => format!("{}:{l}:{}", shader.path.display(), m.column),
        l => format!(
            "{}, in the WGSL the harness appends, line {}, column {}",
            shader.path.display(),
            l - own,
            m.column
        ),
    };
    let line = text.lines().nth(m.line - 1).unwrap_or("").trim_end();
    format!("{place}: {}: {}\n  {} | {line}", m.kind, m.message, m.line)
}

/// The trial `shader::tint_accepts`: Tint compiles the module and Dawn builds each pipeline on
/// its OpenGL backend; each pipeline's outcome for each of the shader's entry points in it. An
/// error FAILs with Tint's or Dawn's message; a Tint that is not installed SKIPs, or FAILs when
/// required.
pub fn outcomes(shader: &Shader, tools: &Tools) -> Vec<(String, Outcome)> {
    let pipelines = built(&shader.contract);
    let all = |o: Outcome| -> Vec<(String, Outcome)> {
        pipelines
            .iter()
            .flat_map(|p| p.entries.iter().map(|e| (e.clone(), o.clone())))
            .collect()
    };
    let invocation = match tools.locate(Tool::Tint) {
        Ok(i) => i,
        Err(Missing::Required(why)) => return all(Outcome::fail("missing", why)),
        Err(Missing::Optional(why)) => {
            return all(Outcome::skip(format!("not compiled by Tint: {why}")))
        }
    };
    let input = job(shader).to_string();
    let said = match invocation.run(&[], input.as_bytes(), tools.deadline) {
        Ok(said) => said,
        Err(why) => return all(Outcome::fail("tint", why)),
    };
    // Dawn prints warnings of its own around the answer, which is one line of JSON: Tint's
    // verdict, or why there is none (no adapter), said with those warnings.
    let answer = said
        .text
        .lines()
        .filter(|l| l.starts_with('{'))
        .find_map(|l| serde_json::from_str::<Value>(l).ok());
    let why = match answer.as_ref().map(|a| (a.get("error"), a)) {
        Some((Some(Value::String(error)), _)) => error.clone(),
        Some((_, a)) => match Answer::deserialize(a) {
            Ok(answer) => return judge(shader, &answer, &pipelines),
            Err(e) => format!("its answer does not parse ({e})"),
        },
        None => "no answer".into(),
    };
    all(Outcome::fail(
        "tint",
        format!("tools/tint/check.mjs: {why}\n{}", said.text),
    ))
}

/// Each pipeline's outcome from the answer: the module's errors fail both.
fn judge(shader: &Shader, answer: &Answer, pipelines: &[Built]) -> Vec<(String, Outcome)> {
    let on = format!("Dawn's OpenGL backend on {}", answer.adapter);
    let errors: Vec<String> = answer
        .module
        .iter()
        .filter(|m| m.kind == "error")
        .map(|m| located(shader, m))
        .collect();
    let warnings = answer.module.len() - errors.len();
    pipelines
        .iter()
        .flat_map(|p| {
            let outcome = if !errors.is_empty() {
                Outcome::fail(
                    format!("{} errors", errors.len()),
                    format!("Tint rejects the shader ({on}):\n{}", errors.join("\n")),
                )
            } else {
                let failed = match p.pipeline {
                    Pipeline::Compute => &answer.compute,
                    Pipeline::Render => &answer.render,
                };
                match failed.as_deref() {
                    Some([]) => {
                        let mut o = Outcome::pass(format!("{warnings} warnings"));
                        o.message = answer
                            .module
                            .iter()
                            .map(|m| located(shader, m))
                            .collect::<Vec<_>>()
                            .join("\n");
                        o
                    }
                    Some(e) => Outcome::fail(
                        format!("{} errors", e.len()),
                        format!("Dawn cannot build {} ({on}):\n{}", p.shown, e.join("\n")),
                    ),
                    None => Outcome::fail("tint", format!("{} was not built", p.shown)),
                }
            };
            p.entries
                .iter()
                .map(|e| (e.clone(), outcome.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_formats_are_named_as_webgpu_names_them() {
        assert_eq!(vertex_format(wgpu::VertexFormat::Float32x3), "float32x3");
        assert_eq!(vertex_format(wgpu::VertexFormat::Uint16x4), "uint16x4");
        assert_eq!(
            vertex_format(wgpu::VertexFormat::Unorm10_10_10_2),
            "unorm10-10-10-2"
        );
        assert_eq!(
            vertex_format(wgpu::VertexFormat::Unorm8x4Bgra),
            "unorm8x4-bgra"
        );
    }

    #[test]
    fn more_attributes_than_webgpus_least_buffer_limit_share_one_interleaved_buffer() {
        let input = |location: u32, format: wgpu::VertexFormat| crate::contract::VertexInput {
            role: crate::contract::Role::Zeros,
            set: 0,
            pair: None,
            ty: crate::contract::Elem::Attribute(format),
            also: None,
            attribute: wgpu::VertexAttribute {
                format,
                offset: 0,
                shader_location: location,
            },
            stride: format.size(),
            origin: None,
        };
        let formats = [
            wgpu::VertexFormat::Float32x3,
            wgpu::VertexFormat::Uint8x4,
            wgpu::VertexFormat::Unorm16x2,
        ];
        let inputs: Vec<_> = (0..9).map(|l| input(l, formats[l as usize % 3])).collect();
        // Eight: a buffer each, as the harness binds them.
        let apart = vertex_buffers(&inputs[..8]);
        assert_eq!(apart.len(), 8);
        assert_eq!(apart[1]["arrayStride"], 4);
        assert_eq!(apart[1]["attributes"][0]["shaderLocation"], 1);
        // Nine: one buffer, each attribute after the last, 4-byte aligned.
        let packed = vertex_buffers(&inputs);
        assert_eq!(packed.len(), 1);
        let offsets: Vec<_> = packed[0]["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["offset"].as_u64().unwrap())
            .collect();
        assert_eq!(offsets, [0, 12, 16, 20, 32, 36, 40, 52, 56]);
        assert_eq!(packed[0]["arrayStride"], 60);
        assert_eq!(packed[0]["attributes"][8]["format"], "unorm16x2");
    }

    #[test]
    fn the_job_has_both_pipelines_of_the_builtin_contract() {
        let source = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/shaders/skinning.wgsl"
        ))
        .unwrap();
        let shader = Shader::new("shaders/skinning.wgsl", source);
        let job = job(&shader);
        let c = &shader.contract;
        assert_eq!(job["compute"]["entry"], c.compute.clone().unwrap());
        assert_eq!(job["render"]["vertex"], c.vertex.clone().unwrap());
        assert_eq!(job["render"]["format"], "rgba8unorm");
        assert_eq!(
            job["render"]["buffers"].as_array().unwrap().len(),
            c.vertex_inputs.len()
        );
        let bound = |p: &str| -> usize {
            job[p]["groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["entries"].as_array().unwrap().len())
                .sum()
        };
        assert_eq!(bound("compute"), c.slots_of(Pipeline::Compute).len());
        assert_eq!(bound("render"), c.slots_of(Pipeline::Render).len());
    }

    #[test]
    fn messages_point_at_the_shader_file_or_the_harness_addition() {
        let mut shader = Shader::new("s.wgsl", "fn a() {}\nfn b() {}\n");
        shader.added = "fn c() {}\n".into();
        let m = |line| Message {
            kind: "error".into(),
            line,
            column: 4,
            message: "no".into(),
        };
        assert_eq!(
            located(&shader, &m(2)),
            "s.wgsl:2:4: error: no\n  2 | fn b() {}"
        );
        assert_eq!(
            located(&shader, &m(3)),
            "s.wgsl, in the WGSL the harness appends, line 1, column 4: error: no\n  3 | fn c() {}"
        );
        assert_eq!(located(&shader, &m(0)), "error: no");
    }
}
