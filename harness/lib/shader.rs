//! Loads the shader under test, validates it with naga and checks it against the binding contract.

use std::path::{Path, PathBuf};

use naga::common::wgsl::TypeContext;
use naga::{AddressSpace, ArraySize, Binding, Handle, ShaderStage, StorageAccess, TypeInner};

/// The WGSL source under test and where it came from.
#[derive(Clone, Debug)]
pub struct Shader {
    pub path: PathBuf,
    pub source: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ShaderError {
    #[error("{path}: cannot read shader: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// naga's located diagnostic (file:line:column and the offending source line).
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: breaks the shader contract (see SPEC.md): {message}")]
    Contract { path: String, message: String },
}

impl Shader {
    pub fn load(path: &Path) -> Result<Shader, ShaderError> {
        let source = std::fs::read_to_string(path).map_err(|source| ShaderError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(Shader {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Parses and validates with naga, then checks entry points and bindings against the contract.
    pub fn validate(&self) -> Result<naga::Module, ShaderError> {
        let path = self.path.display().to_string();
        let module = naga::front::wgsl::parse_str(&self.source)
            .map_err(|e| ShaderError::Invalid(e.emit_to_string_with_path(&self.source, &path)))?;
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        );
        let valid = validator
            .validate(&module)
            .map_err(|e| e.emit_to_string_with_path(&self.source, &path));
        // The contract first: a binding of the wrong type usually also makes naga reject the code
        // that uses it, and the contract says which binding and what it should be.
        let broken = contract_violations(&module, valid.as_ref().ok());
        if !broken.is_empty() {
            let mut message = broken.join("; ");
            if let Err(diagnostic) = valid {
                message.push_str("\nnaga also rejects the shader:\n");
                message.push_str(diagnostic.trim_end());
            }
            return Err(ShaderError::Contract { path, message });
        }
        valid.map_err(ShaderError::Invalid)?;
        Ok(module)
    }
}

/// What each group-0 binding must be: address space, whether it is writable, its type and what it
/// holds.
const BINDINGS: [(u32, &str, bool, Want, &str); 7] = [
    (
        0,
        "storage",
        false,
        Want::Array(Elem::Mat4F32),
        "the palette",
    ),
    (1, "storage", false, Want::Positions, "source positions"),
    (
        2,
        "storage",
        false,
        Want::Array(Elem::Vec4U32),
        "joint indices",
    ),
    (3, "storage", false, Want::Array(Elem::Vec4F32), "weights"),
    (
        4,
        "storage",
        true,
        Want::Array(Elem::Vec4F32),
        "skinned positions",
    ),
    (5, "uniform", false, Want::Count, "the vertex count"),
    (6, "uniform", false, Want::View, "the 2D view"),
];

/// The size of each of the contract's uniform structs (bindings 5 and 6), as the harness binds them.
pub const UNIFORM_BYTES: u32 = 16;

/// The element types the contract uses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    Mat4F32,
    Vec4F32,
    Vec4U32,
    Vec3F32,
}

impl Elem {
    fn wgsl(self) -> &'static str {
        match self {
            Elem::Mat4F32 => "mat4x4<f32>",
            Elem::Vec4F32 => "vec4<f32>",
            Elem::Vec4U32 => "vec4<u32>",
            Elem::Vec3F32 => "vec3<f32>",
        }
    }

    fn matches(self, inner: &TypeInner) -> bool {
        use naga::{Scalar, VectorSize::*};
        match (self, inner) {
            (
                Elem::Mat4F32,
                TypeInner::Matrix {
                    columns: Quad,
                    rows: Quad,
                    scalar,
                },
            ) => *scalar == Scalar::F32,
            (Elem::Vec4F32, TypeInner::Vector { size: Quad, scalar }) => *scalar == Scalar::F32,
            (Elem::Vec4U32, TypeInner::Vector { size: Quad, scalar }) => *scalar == Scalar::U32,
            (Elem::Vec3F32, TypeInner::Vector { size: Tri, scalar }) => *scalar == Scalar::F32,
            _ => false,
        }
    }
}

/// The type a binding must have.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// A runtime-sized array of this element.
    Array(Elem),
    /// `array<vec4<f32>>`, or `array<vec3<f32>>`: the same 16-byte stride, w unused (SPEC.md).
    Positions,
    /// struct { count: u32, 3 x u32 padding }: the count, a u32, in the first 4 bytes (padding
    /// written another way within 16 bytes, e.g. `u32, vec2<u32>`, or a bare `vec4<u32>`, reads
    /// the same buffer).
    Count,
    /// struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }: three f32 in the first 12
    /// bytes (or a `vec4<f32>`).
    View,
}

impl Want {
    fn wgsl(self) -> String {
        match self {
            Want::Array(e) => format!("array<{}>", e.wgsl()),
            Want::Positions => "array<vec4<f32>> (or array<vec3<f32>>)".into(),
            Want::Count => {
                "a struct whose first member is count: u32 (then 3 x u32 padding)".into()
            }
            Want::View => "struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }".into(),
        }
    }

    fn matches(self, types: &naga::UniqueArena<naga::Type>, ty: Handle<naga::Type>) -> bool {
        let is = |h: Handle<naga::Type>, s: naga::Scalar| matches!(types[h].inner, TypeInner::Scalar(x) if x == s);
        match (self, &types[ty].inner) {
            (
                Want::Array(e),
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    ..
                },
            ) => e.matches(&types[*base].inner),
            (
                Want::Positions,
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    ..
                },
            ) => [Elem::Vec4F32, Elem::Vec3F32]
                .iter()
                .any(|e| e.matches(&types[*base].inner)),
            (Want::Count, TypeInner::Struct { members, .. }) => members
                .first()
                .is_some_and(|m| m.offset == 0 && is(m.ty, naga::Scalar::U32)),
            (Want::Count, inner) => Elem::Vec4U32.matches(inner),
            (Want::View, TypeInner::Struct { members, .. }) => {
                members.len() >= 3
                    && members
                        .iter()
                        .take(3)
                        .enumerate()
                        .all(|(i, m)| m.offset == 4 * i as u32 && is(m.ty, naga::Scalar::F32))
            }
            (Want::View, inner) => Elem::Vec4F32.matches(inner),
            _ => false,
        }
    }
}

/// A type as WGSL writes it, structs with their members, for messages.
fn describe(module: &naga::Module, ty: Handle<naga::Type>) -> String {
    let types = &module.types;
    match &types[ty].inner {
        TypeInner::Struct { members, span } => {
            let fields: Vec<String> = members
                .iter()
                .map(|m| {
                    format!(
                        "{}: {}",
                        m.name.as_deref().unwrap_or("_"),
                        types.type_to_string(m.ty)
                    )
                })
                .collect();
            format!(
                "struct {} {{ {} }} ({span} bytes)",
                types[ty].name.as_deref().unwrap_or("_"),
                fields.join(", ")
            )
        }
        _ => types.type_to_string(ty),
    }
}

/// The `@location` values an entry point takes (arguments, and members of struct arguments).
fn located_inputs(module: &naga::Module, ep: &naga::EntryPoint) -> Vec<(u32, Handle<naga::Type>)> {
    let mut out = Vec::new();
    for arg in &ep.function.arguments {
        match &arg.binding {
            Some(Binding::Location { location, .. }) => out.push((*location, arg.ty)),
            Some(_) => {}
            None => {
                if let TypeInner::Struct { members, .. } = &module.types[arg.ty].inner {
                    for m in members {
                        if let Some(Binding::Location { location, .. }) = m.binding {
                            out.push((location, m.ty));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The `@location` values an entry point returns (its result, or members of a struct result).
fn located_outputs(module: &naga::Module, ep: &naga::EntryPoint) -> Vec<(u32, Handle<naga::Type>)> {
    let Some(result) = &ep.function.result else {
        return Vec::new();
    };
    match &result.binding {
        Some(Binding::Location { location, .. }) => vec![(*location, result.ty)],
        Some(_) => Vec::new(),
        None => match &module.types[result.ty].inner {
            TypeInner::Struct { members, .. } => members
                .iter()
                .filter_map(|m| match m.binding {
                    Some(Binding::Location { location, .. }) => Some((location, m.ty)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// The workgroup size a compute pipeline gets from entry point `ep`. A size given by `override`s
/// takes their defaults, as in the harness's pipelines, which set no constants; that needs the
/// validation `info`, and without it (naga rejected the shader) the size is not known: `None`.
fn workgroup_size(
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
    ep: &naga::EntryPoint,
) -> Option<Result<[u32; 3], String>> {
    if ep.workgroup_size_overrides.is_none() {
        return Some(Ok(ep.workgroup_size));
    }
    let entry = Some((ShaderStage::Compute, ep.name.as_str()));
    let constants = naga::back::PipelineConstants::default();
    Some(
        match naga::back::pipeline_constants::process_overrides(module, info?, entry, &constants) {
            Ok((resolved, _)) => resolved
                .entry_points
                .iter()
                .find(|e| e.name == ep.name)
                .map(|e| e.workgroup_size)
                .ok_or_else(|| "the entry point is gone once overrides are applied".to_string()),
            Err(e) => Err(format!(
                "its @workgroup_size depends on overrides that the harness cannot resolve without pipeline constants: {e}"
            )),
        },
    )
}

/// Every way `module` breaks the contract of SPEC.md (entry points, stages, workgroup size, the
/// vertex inputs and fragment output, and each binding's address space and type), one message each;
/// empty when it keeps it. `info` is naga's validation of the module, when it passed: with it, a
/// workgroup size given by overrides is checked too.
pub fn contract_violations(
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, stage) in [
        ("skin_compute", ShaderStage::Compute),
        ("vs_skin", ShaderStage::Vertex),
        ("fs_skin", ShaderStage::Fragment),
    ] {
        let Some(ep) = module.entry_points.iter().find(|ep| ep.name == name) else {
            bad.push(format!("entry point `{name}` is missing"));
            continue;
        };
        if ep.stage != stage {
            bad.push(format!(
                "entry point `{name}` must be a {stage:?} stage, is {:?}",
                ep.stage
            ));
            continue;
        }
        match stage {
            ShaderStage::Compute => match workgroup_size(module, info, ep) {
                Some(Ok(size)) if size != [64, 1, 1] => bad.push(format!(
                    "entry point `{name}` must have @workgroup_size(64), has {size:?}"
                )),
                Some(Err(why)) => bad.push(format!("entry point `{name}`: {why}")),
                _ => {}
            },
            ShaderStage::Vertex => {
                let inputs = located_inputs(module, ep);
                for (loc, want) in [(0, Elem::Vec3F32), (1, Elem::Vec4U32), (2, Elem::Vec4F32)] {
                    // A vec4 position reads the vec3 attribute with w = 1, as WebGPU fills it.
                    let want_ok = |inner: &TypeInner| {
                        want.matches(inner) || (loc == 0 && Elem::Vec4F32.matches(inner))
                    };
                    match inputs.iter().find(|(l, _)| *l == loc) {
                        None => bad.push(format!(
                            "entry point `{name}`: input @location({loc}) is missing (expected {})",
                            want.wgsl()
                        )),
                        Some((_, ty)) if !want_ok(&module.types[*ty].inner) => bad.push(format!(
                            "entry point `{name}`: input @location({loc}) must be {}{}, is {}",
                            want.wgsl(),
                            if loc == 0 { " (or vec4<f32>)" } else { "" },
                            describe(module, *ty)
                        )),
                        Some(_) => {}
                    }
                }
                for (loc, ty) in inputs.iter().filter(|(l, _)| *l > 2) {
                    bad.push(format!(
                        "entry point `{name}`: input @location({loc}) ({}) is not a vertex attribute of the contract (0 to 2)",
                        describe(module, *ty)
                    ));
                }
            }
            ShaderStage::Fragment => {
                let outputs = located_outputs(module, ep);
                match outputs.iter().find(|(l, _)| *l == 0) {
                    None => bad.push(format!(
                        "entry point `{name}` must return vec4<f32> at @location(0), returns {}",
                        ep.function
                            .result
                            .as_ref()
                            .map_or("nothing".into(), |r| describe(module, r.ty))
                    )),
                    Some((_, ty)) if !Elem::Vec4F32.matches(&module.types[*ty].inner) => bad
                        .push(format!(
                            "entry point `{name}` must return vec4<f32> at @location(0), returns {}",
                            describe(module, *ty)
                        )),
                    Some(_) => {}
                }
            }
            _ => {}
        }
    }
    if let Some(info) = info {
        bad.extend(stage_bindings(module, info));
    }
    let mut seen: Vec<u32> = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let name = var.name.as_deref().unwrap_or("?");
        if binding.group != 0 {
            bad.push(format!(
                "`{name}` is in group {}; the contract uses group 0 only",
                binding.group
            ));
            continue;
        }
        let Some(&(_, space, writable, want, _)) = BINDINGS.iter().find(|b| b.0 == binding.binding)
        else {
            bad.push(format!(
                "`{name}` uses binding {}; the contract has bindings 0 to 6",
                binding.binding
            ));
            continue;
        };
        if seen.contains(&binding.binding) {
            bad.push(format!(
                "binding {} (`{name}`) is declared twice",
                binding.binding
            ));
            continue;
        }
        seen.push(binding.binding);
        let ok = match var.space {
            AddressSpace::Storage { access } => {
                space == "storage" && access.contains(StorageAccess::STORE) == writable
            }
            AddressSpace::Uniform => space == "uniform",
            _ => false,
        };
        if !ok {
            let want = if writable {
                "storage, read_write"
            } else if space == "storage" {
                "storage, read"
            } else {
                "uniform"
            };
            bad.push(format!(
                "binding {} (`{name}`) must be var<{want}>, is {}",
                binding.binding,
                space_wgsl(var.space)
            ));
        }
        if !want.matches(&module.types, var.ty) {
            bad.push(format!(
                "binding {} (`{name}`) must be {}, is {}",
                binding.binding,
                want.wgsl(),
                describe(module, var.ty)
            ));
        } else if matches!(want, Want::Count | Want::View) {
            // The contract's uniforms are 16 bytes and are bound as exactly that; a larger struct
            // (a `vec3<u32>` pad aligns to 16 and doubles it) reads past them and fails to bind.
            let size = module.types[var.ty].inner.size(module.to_ctx());
            if size > UNIFORM_BYTES {
                bad.push(format!(
                    "binding {} (`{name}`) is {}; the contract's uniform is {UNIFORM_BYTES} bytes and is bound as exactly that (a vec3 or vec4 member aligns to 16 bytes: write the padding as u32s)",
                    binding.binding,
                    describe(module, var.ty)
                ));
            }
        }
    }
    for (b, space, writable, want, holds) in BINDINGS {
        if !seen.contains(&b) {
            let access = match (space, writable) {
                ("storage", true) => "storage, read_write",
                ("storage", false) => "storage, read",
                _ => "uniform",
            };
            bad.push(format!(
                "binding {b} ({holds}) is missing: expected @group(0) @binding({b}) var<{access}> of {}",
                want.wgsl()
            ));
        }
    }
    bad
}

/// Bindings an entry point uses outside its pipeline's: the compute pipeline has bindings 0 to 5,
/// the render pipeline 0 and 6 (SPEC.md), and the pipelines are built with exactly those.
fn stage_bindings(module: &naga::Module, info: &naga::valid::ModuleInfo) -> Vec<String> {
    let mut bad = Vec::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        let (allowed, pipeline): (&[u32], &str) = match ep.name.as_str() {
            "skin_compute" => (
                &[0, 1, 2, 3, 4, 5],
                "the compute pipeline has bindings 0 to 5",
            ),
            "vs_skin" | "fs_skin" => (&[0, 6], "the render pipeline has bindings 0 and 6"),
            _ => continue,
        };
        let uses = info.get_entry_point(i);
        for (handle, var) in module.global_variables.iter() {
            let Some(b) = &var.binding else { continue };
            // Bindings outside the contract have their own message.
            let foreign = b.group == 0 && BINDINGS.iter().any(|c| c.0 == b.binding);
            if !foreign || uses[handle].is_empty() || allowed.contains(&b.binding) {
                continue;
            }
            bad.push(format!(
                "entry point `{}` uses binding {} (`{}`); {pipeline}",
                ep.name,
                b.binding,
                var.name.as_deref().unwrap_or("?")
            ));
        }
    }
    bad
}

/// An address space as WGSL writes it.
fn space_wgsl(space: AddressSpace) -> String {
    match space {
        AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => {
            "var<storage, read_write>".into()
        }
        AddressSpace::Storage { .. } => "var<storage, read>".into(),
        AddressSpace::Uniform => "var<uniform>".into(),
        AddressSpace::Handle => "a texture or sampler".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn shader(source: &str) -> Shader {
        Shader {
            path: "test.wgsl".into(),
            source: source.into(),
        }
    }

    pub(crate) fn default_source() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/shaders/skinning.wgsl"
        ))
        .unwrap()
    }

    #[test]
    fn default_shader_validates() {
        shader(&default_source()).validate().unwrap();
    }

    #[test]
    fn syntax_error_is_located() {
        let src = default_source().replace("let i = id.x;", "let i = id.x");
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("test.wgsl:"), "{msg}");
    }

    #[test]
    fn missing_entry_point_breaks_contract() {
        let src = default_source().replace("fn fs_skin", "fn fs_other");
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("`fs_skin` is missing"), "{msg}");
    }

    #[test]
    fn writable_input_breaks_contract() {
        let src = default_source().replace(
            "var<storage, read> weights",
            "var<storage, read_write> weights",
        );
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("binding 3"), "{msg}");
    }
    /// The default shader with one edit, which must apply; its contract message.
    fn broken(from: &str, to: &str) -> String {
        let src = default_source();
        assert!(
            src.contains(from),
            "the default shader no longer contains `{from}`"
        );
        let err = shader(&src.replacen(from, to, 1)).validate().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract"),
            "{msg}"
        );
        msg
    }

    #[test]
    fn equivalent_layouts_are_accepted() {
        // Padding written as a vector, no trailing pad in the view, a vec4 position attribute:
        // the same bytes and the same attributes, so the contract holds.
        let src = default_source()
            .replacen(
                "    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    _pad0: u32,\n    _pad: vec2<u32>,\n",
                1,
            )
            .replacen(
                "    half_width: f32,\n    _pad: f32,\n",
                "    half_width: f32,\n",
                1,
            )
            .replacen(
                "@location(0) position: vec3<f32>",
                "@location(0) position: vec4<f32>",
                1,
            )
            .replacen(
                "let p = skin(position, joint, weight);",
                "let p = skin(position.xyz, joint, weight);",
                1,
            );
        assert!(src.contains("_pad: vec2<u32>") && src.contains("position: vec4<f32>"));
        shader(&src).validate().unwrap();
        // Source positions as vec3: the same 16-byte stride, w unused (SPEC.md).
        let vec3 = default_source()
            .replacen(
                "positions: array<vec4<f32>>",
                "positions: array<vec3<f32>>",
                1,
            )
            .replacen("positions[i].xyz", "positions[i]", 1);
        assert!(vec3.contains("positions: array<vec3<f32>>") && !vec3.contains("positions[i].xyz"));
        shader(&vec3).validate().unwrap();
    }

    #[test]
    fn binding_types_are_checked() {
        for (from, to, want) in [
            (
                "array<mat4x4<f32>>",
                "array<mat3x3<f32>>",
                "binding 0 (`palette`) must be array<mat4x4<f32>>, is array<mat3x3<f32>>",
            ),
            (
                "positions: array<vec4<f32>>",
                "positions: array<vec4<f32>, 4>",
                "binding 1 (`positions`) must be array<vec4<f32>> (or array<vec3<f32>>), is array<vec4<f32>, 4>",
            ),
            (
                "joints: array<vec4<u32>>",
                "joints: array<vec4<i32>>",
                "binding 2 (`joints`) must be array<vec4<u32>>, is array<vec4<i32>>",
            ),
            (
                "weights: array<vec4<f32>>",
                "weights: array<vec4<f32>, 4>",
                "binding 3 (`weights`) must be array<vec4<f32>>, is array<vec4<f32>, 4>",
            ),
            (
                "skinned: array<vec4<f32>>",
                "skinned: array<vec4<f32>, 64>",
                "binding 4 (`skinned`) must be array<vec4<f32>>, is array<vec4<f32>, 64>",
            ),
            (
                "    count: u32,\n",
                "    count: f32,\n",
                "binding 5 (`params`) must be a struct whose first member is count: u32 (then 3 x u32 padding), is struct Count { count: f32, _pad0: u32, _pad1: u32, _pad2: u32 } (16 bytes)",
            ),
            (
                "    offset_y: f32,\n",
                "    offset_y: u32,\n",
                "binding 6 (`view`) must be struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }, is struct View { scale: f32, offset_y: u32, half_width: f32, _pad: f32 } (16 bytes)",
            ),
            (
                "    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    _pad: vec3<u32>,\n",
                "binding 5 (`params`) is struct Count { count: u32, _pad: vec3<u32> } (32 bytes); the contract's uniform is 16 bytes",
            ),
            (
                "    _pad: f32,\n",
                "    _pad: f32,\n    extra: vec4<f32>,\n",
                "binding 6 (`view`) is struct View { scale: f32, offset_y: f32, half_width: f32, _pad: f32, extra: vec4<f32> } (32 bytes); the contract's uniform is 16 bytes",
            ),
        ] {
            let msg = broken(from, to);
            assert!(msg.contains(want), "{msg}\nwanted: {want}");
        }
    }

    #[test]
    fn each_stage_uses_only_its_pipelines_bindings() {
        let msg = broken(
            "let p = skin(position, joint, weight);",
            "let p = skin(positions[0].xyz + position * 0.0, joint, weight);",
        );
        assert!(
            msg.contains("entry point `vs_skin` uses binding 1 (`positions`); the render pipeline has bindings 0 and 6"),
            "{msg}"
        );
        // The fragment stage may read the view: binding 6 is the render pipeline's.
        let src = default_source().replacen(
            "return vec4<f32>(",
            "let unused = view.scale;\n    return vec4<f32>(",
            1,
        );
        assert!(src.contains("let unused = view.scale;"));
        shader(&src).validate().unwrap();
    }

    #[test]
    fn address_spaces_and_missing_bindings() {
        let msg = broken("var<uniform> view", "var<storage, read> view");
        assert!(
            msg.contains("binding 6 (`view`) must be var<uniform>, is var<storage, read>"),
            "{msg}"
        );
        let msg = broken("@group(0) @binding(5)", "@group(0) @binding(7)");
        assert!(
            msg.contains("`params` uses binding 7; the contract has bindings 0 to 6"),
            "{msg}"
        );
        assert!(
            msg.contains("binding 5 (the vertex count) is missing"),
            "{msg}"
        );
        let msg = broken("@group(0) @binding(6)", "@group(1) @binding(6)");
        assert!(msg.contains("`view` is in group 1"), "{msg}");
    }

    #[test]
    fn vertex_inputs_are_checked() {
        let msg = broken(
            "@location(0) position: vec3<f32>",
            "@location(0) position: vec2<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(0) must be vec3<f32> (or vec4<f32>), is vec2<f32>"
            ),
            "{msg}"
        );
        let msg = broken(
            "@location(1) joint: vec4<u32>",
            "@location(1) joint: vec4<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(1) must be vec4<u32>, is vec4<f32>"
            ),
            "{msg}"
        );
        let msg = broken(
            "@location(2) weight: vec4<f32>",
            "@location(3) weight: vec4<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(2) is missing (expected vec4<f32>)"
            ),
            "{msg}"
        );
    }

    #[test]
    fn fragment_output_and_stages_are_checked() {
        let msg = broken(
            "fn fs_skin(@location(0) tint: f32) -> @location(0) vec4<f32> {\n    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);",
            "fn fs_skin(@location(0) tint: f32) -> @location(0) vec4<u32> {\n    return vec4<u32>(1u);",
        );
        assert!(
            msg.contains(
                "entry point `fs_skin` must return vec4<f32> at @location(0), returns vec4<u32>"
            ),
            "{msg}"
        );
        let msg = broken(
            "@compute @workgroup_size(64)",
            "@compute @workgroup_size(32)",
        );
        assert!(
            msg.contains("entry point `skin_compute` must have @workgroup_size(64)"),
            "{msg}"
        );
    }

    #[test]
    fn a_workgroup_size_from_overrides_takes_their_defaults() {
        let with = |decl: &str, size: &str| {
            let src = default_source().replacen(
                "@compute @workgroup_size(64)",
                &format!("{decl}\n@compute @workgroup_size({size})"),
                1,
            );
            shader(&src).validate()
        };
        // What a pipeline without constants gets: 64, 8 * 8, 64 x 1 x 1.
        assert!(with("override WG: u32 = 64u;", "WG").is_ok());
        assert!(with("override A: u32 = 8u;\noverride B = A * 8u;", "B").is_ok());
        assert!(with("override X: u32 = 64u;\noverride Y: u32 = 1u;", "X, Y").is_ok());
        let msg = with("override WG: u32 = 32u;", "WG")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(
                "entry point `skin_compute` must have @workgroup_size(64), has [32, 1, 1]"
            ),
            "{msg}"
        );
        let msg = with("override WG: u32;", "WG").unwrap_err().to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract")
                && msg.contains(
                    "entry point `skin_compute`: its @workgroup_size depends on overrides"
                ),
            "{msg}"
        );
    }

    #[test]
    fn unreadable_and_empty_shaders_name_the_file() {
        let msg = Shader::load(Path::new("no/such/shader.wgsl"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("no/such/shader.wgsl: cannot read shader"),
            "{msg}"
        );
        let msg = shader("").validate().unwrap_err().to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract"),
            "{msg}"
        );
        assert!(
            msg.contains("entry point `skin_compute` is missing"),
            "{msg}"
        );
        let msg = shader("fn f( {").validate().unwrap_err().to_string();
        assert!(msg.contains("test.wgsl:1:"), "{msg}");
    }
}
