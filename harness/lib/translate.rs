//! The shader through naga's back-ends, one entry point at a time (SPIR-V, GLSL ES 3.10,
//! GLSL 4.50, HLSL, MSL), and each output through its own validator where there is one.
//!
//! This is what a team shipping the shader to every vendor meets: wgpu hands Vulkan drivers
//! naga's SPIR-V, GL drivers its GLSL, D3D12 its HLSL and Metal its MSL. `spirv-val` and
//! `glslangValidator` judge the SPIR-V and the GLSL; HLSL and MSL have no validator on Linux, so
//! their trials say only that naga's back-end wrote them.

use std::sync::OnceLock;

use crate::check::Outcome;
use crate::tools::{Missing, Tool, Tools};

/// A back-end, named as in the trial `shader::translates::<entry> [<target>]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Spirv,
    GlslEs310,
    Glsl450,
    Hlsl,
    Msl,
}

/// Every back-end, in trial order.
pub const TARGETS: [Target; 5] = [
    Target::Spirv,
    Target::GlslEs310,
    Target::Glsl450,
    Target::Hlsl,
    Target::Msl,
];

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Spirv => "spirv",
            Target::GlslEs310 => "glsl-es-310",
            Target::Glsl450 => "glsl-450",
            Target::Hlsl => "hlsl",
            Target::Msl => "msl",
        }
    }

    /// The tool that judges this target's output, if there is one.
    pub fn validator(self) -> Option<Tool> {
        match self {
            Target::Spirv => Some(Tool::SpirvVal),
            Target::GlslEs310 | Target::Glsl450 => Some(Tool::Glslang),
            Target::Hlsl | Target::Msl => None,
        }
    }
}

/// An entry point of the shader: its stage and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub stage: naga::ShaderStage,
    pub name: String,
}

impl Entry {
    /// Its translation trial's name after `shader::` (`translates::vs_main [spirv]`), as a
    /// profile's `case: shader` entry names it.
    pub fn check(&self, target: Target) -> String {
        format!("translates::{} [{}]", self.name, target.name())
    }
}

/// The shader's entry points, in the order it declares them; none when naga cannot parse it.
pub fn entries(source: &str) -> Vec<Entry> {
    naga::front::wgsl::parse_str(source)
        .map(|m| {
            m.entry_points
                .iter()
                .map(|e| Entry {
                    stage: e.stage,
                    name: e.name.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What a back-end wrote.
enum Output {
    Words(Vec<u32>),
    Text(String),
}

impl Output {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Output::Words(w) => w.iter().flat_map(|w| w.to_le_bytes()).collect(),
            Output::Text(t) => t.clone().into_bytes(),
        }
    }
}

/// The shader's module parsed and validated once for all its translation trials, on the first
/// that runs (a run whose filter selects none of them pays nothing).
pub struct Validated {
    source: String,
    /// The values the pipelines give the shader's overrides (the profile's `constants`).
    constants: naga::back::PipelineConstants,
    module: OnceLock<Result<(naga::Module, naga::valid::ModuleInfo), String>>,
}

impl Validated {
    pub fn new(source: &str, constants: naga::back::PipelineConstants) -> Validated {
        Validated {
            source: source.to_string(),
            constants,
            module: OnceLock::new(),
        }
    }

    fn get(&self) -> Result<&(naga::Module, naga::valid::ModuleInfo), &String> {
        let rejected = |e: String| format!("naga rejects the shader ({e}); see shader::validates");
        self.module
            .get_or_init(|| {
                let module = naga::front::wgsl::parse_str(&self.source)
                    .map_err(|e| rejected(e.to_string()))?;
                let info = crate::validator::strict()
                    .validate(&module)
                    .map_err(|e| rejected(e.into_inner().to_string()))?;
                Ok((module, info))
            })
            .as_ref()
    }
}

/// The module with its overrides resolved for `entry`, as the pipelines resolve them (the
/// profile's `constants`, else their defaults; the back-ends other than SPIR-V refuse overrides),
/// ready for any back-end.
fn prepared(
    validated: &Validated,
    entry: &Entry,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let (module, info) = validated.get().map_err(String::clone)?;
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((entry.stage, &entry.name)),
        &validated.constants,
    )
    .map_err(|e| format!("its overrides do not resolve with the profile's `constants`: {e}"))?;
    Ok((module.into_owned(), info.into_owned()))
}

/// `entry` of `module` written by `target`'s back-end, or the back-end's error.
fn write(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: &Entry,
    target: Target,
) -> Result<Output, String> {
    use naga::back::{glsl, hlsl, msl, spv};
    let policies = naga::proc::BoundsCheckPolicies::default();
    match target {
        Target::Spirv => {
            let options = spv::Options {
                flags: spv::WriterFlags::ADJUST_COORDINATE_SPACE | spv::WriterFlags::LABEL_VARYINGS,
                ..Default::default()
            };
            let pipeline = spv::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
            };
            spv::write_vec(module, info, &options, Some(&pipeline))
                .map(Output::Words)
                .map_err(|e| e.to_string())
        }
        Target::GlslEs310 | Target::Glsl450 => {
            let version = match target {
                Target::Glsl450 => glsl::Version::Desktop(450),
                _ => glsl::Version::new_gles(310),
            };
            let options = glsl::Options {
                version,
                ..Default::default()
            };
            let pipeline = glsl::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
                multiview: None,
            };
            let mut text = String::new();
            glsl::Writer::new(&mut text, module, info, &options, &pipeline, policies)
                .and_then(|mut w| w.write())
                .map_err(|e| e.to_string())?;
            Ok(Output::Text(text))
        }
        Target::Hlsl => {
            // Immediate data (push constants) as root constants in a register space no bind
            // group takes, as wgpu's DirectX 12 back-end places them apart from the groups.
            let options = hlsl::Options {
                immediates_target: Some(hlsl::BindTarget {
                    space: IMMEDIATES_SPACE,
                    register: 0,
                    binding_array_size: None,
                    dynamic_storage_buffer_offsets_index: None,
                    restrict_indexing: false,
                }),
                ..Default::default()
            };
            let pipeline = hlsl::PipelineOptions {
                entry_point: Some((entry.stage, entry.name.clone())),
            };
            let mut text = String::new();
            hlsl::Writer::new(&mut text, &options, &pipeline)
                .write(module, info, None)
                .map_err(|e| e.to_string())?;
            Ok(Output::Text(text))
        }
        Target::Msl => {
            let pipeline = msl::PipelineOptions {
                entry_point: Some((entry.stage, entry.name.clone())),
                ..Default::default()
            };
            // MSL 2.4 (macOS 12, iOS 15), as wgpu's Metal back-end picks on those systems; the
            // default 1.0 lacks attributes every engine's vertex stage takes (instance_id).
            let options = msl::Options {
                lang_version: (2, 4),
                ..Default::default()
            };
            msl::write_string(module, info, &options, &pipeline)
                .map(|(text, _)| Output::Text(text))
                .map_err(|e| e.to_string())
        }
    }
}

/// The HLSL register space of immediate data: past the 8 bind groups wgpu binds (spaces 0 to 7).
const IMMEDIATES_SPACE: u8 = 8;

/// The validator's command line for `target`'s output of a `stage` entry point, read on stdin.
fn arguments(target: Target, stage: naga::ShaderStage) -> Vec<&'static str> {
    let stage = match stage {
        naga::ShaderStage::Vertex => "vert",
        naga::ShaderStage::Fragment => "frag",
        _ => "comp",
    };
    match target {
        Target::Spirv => vec!["--target-env", "vulkan1.1", "-"],
        _ => vec!["--stdin", "-S", stage],
    }
}

/// The lines of a text output that a validator's message names (`ERROR: 0:12: ...`), quoted under
/// it: the message alone points into text the user never sees.
fn quoted(output: &Output, message: &str) -> String {
    let Output::Text(text) = output else {
        return String::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut named: Vec<usize> = message
        .lines()
        .filter_map(|l| {
            l.split_once(" 0:")?
                .1
                .split(':')
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .filter(|&n: &usize| (1..=lines.len()).contains(&n))
        .collect();
    named.dedup();
    named
        .iter()
        .take(5)
        .map(|&n| format!("\n  {n:>5} | {}", lines[n - 1]))
        .collect()
}

/// The trial `shader::translates::<entry> [<target>]`: naga's back-end writes the entry point
/// (an error FAILs with naga's message), then its validator judges the output (a rejection FAILs
/// with the tool's message). A validator that is not installed SKIPs, or FAILs when `required`.
pub fn outcome(validated: &Validated, entry: &Entry, target: Target, tools: &Tools) -> Outcome {
    let (module, info) = match prepared(validated, entry) {
        Ok(m) => m,
        Err(why) => return Outcome::skip(format!("not translated: {why}")),
    };
    let output = match write(&module, &info, entry, target) {
        Ok(o) => o,
        Err(why) => {
            return Outcome::fail(
                "naga",
                format!(
                    "naga's {} back-end cannot write entry point `{}`: {why}",
                    target.name(),
                    entry.name
                ),
            )
        }
    };
    let Some(tool) = target.validator() else {
        return Outcome::pass("written");
    };
    let invocation = match tools.locate(tool) {
        Ok(i) => i,
        Err(Missing::Required(why)) => return Outcome::fail("missing", why),
        Err(Missing::Optional(why)) => {
            return Outcome::skip(format!("written by naga, not validated: {why}"))
        }
    };
    match invocation.run(
        &arguments(target, entry.stage),
        &output.bytes(),
        tools.deadline,
    ) {
        Ok(said) if said.success => Outcome::pass(tool.name()),
        Ok(said) => Outcome::fail(
            tool.name(),
            format!(
                "{} rejects naga's {} of entry point `{}`:\n{}{}",
                tool.name(),
                target.name(),
                entry.name,
                said.text,
                quoted(&output, &said.text)
            ),
        ),
        Err(why) => Outcome::fail(tool.name(), why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;

    const SHADER: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = f32(id.x) * 2.0; }
@vertex
fn vs(@location(0) p: vec3<f32>) -> @builtin(position) vec4<f32> { return vec4(p, 1.0); }
";

    #[test]
    fn every_entry_point_is_found_in_order() {
        let names: Vec<String> = entries(SHADER).into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["main", "vs"]);
        assert!(entries("fn broken(").is_empty());
    }

    #[test]
    fn each_back_end_writes_each_stage() {
        let validated = Validated::new(SHADER, Default::default());
        for entry in entries(SHADER) {
            let (module, info) = prepared(&validated, &entry).unwrap();
            for target in TARGETS {
                let out = write(&module, &info, &entry, target).unwrap();
                match (target, out) {
                    // The SPIR-V magic number first.
                    (Target::Spirv, Output::Words(w)) => assert_eq!(w[0], 0x0723_0203),
                    (Target::Glsl450, Output::Text(t)) => assert!(t.starts_with("#version 450")),
                    (Target::GlslEs310, Output::Text(t)) => {
                        assert!(t.starts_with("#version 310 es"))
                    }
                    (Target::Hlsl | Target::Msl, Output::Text(t)) => assert!(!t.is_empty()),
                    (t, _) => panic!("{t:?} wrote the wrong kind of output"),
                }
            }
        }
    }

    #[test]
    fn a_validator_message_quotes_the_lines_it_names() {
        let output = Output::Text("#version 450\nvoid main() {\n  x = 1;\n}\n".into());
        let message =
            "ERROR: 0:3: 'x' : undeclared identifier\nERROR: 0:3: '' : compilation terminated";
        assert_eq!(quoted(&output, message), "\n      3 |   x = 1;");
        assert_eq!(quoted(&output, "ERROR: 0:99: out of range"), "");
        assert_eq!(quoted(&Output::Words(vec![1]), message), "");
    }

    #[test]
    fn an_override_without_a_value_cannot_be_translated() {
        let shader = "override n: u32;\n@compute @workgroup_size(1) fn main() { _ = n; }";
        let entry = &entries(shader)[0];
        let tools = Tools {
            root: env!("CARGO_MANIFEST_DIR").into(),
            required: Default::default(),
            deadline: std::time::Duration::from_secs(5),
        };
        let o = outcome(
            &Validated::new(shader, Default::default()),
            entry,
            Target::Msl,
            &tools,
        );
        assert_eq!(o.status, Status::Skip, "{}", o.message);
        assert!(
            o.message.contains("Missing value") && o.message.contains("`constants`"),
            "{}",
            o.message
        );
        // With the value the pipelines get, it translates.
        let constants = [("n".to_string(), 4.0)].into_iter().collect();
        let o = outcome(
            &Validated::new(shader, constants),
            entry,
            Target::Msl,
            &tools,
        );
        assert!(!o.message.contains("constants"), "{}", o.message);
    }
}
