//! Loads the shader under test, validates it with naga and checks it against the binding contract.

use std::path::{Path, PathBuf};

use naga::{AddressSpace, ShaderStage, StorageAccess};

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
        validator
            .validate(&module)
            .map_err(|e| ShaderError::Invalid(e.emit_to_string_with_path(&self.source, &path)))?;
        check_contract(&module).map_err(|message| ShaderError::Contract { path, message })?;
        Ok(module)
    }
}

/// What each group-0 binding must be: address space and, for storage, whether it is writable.
const BINDINGS: [(u32, &str, bool); 7] = [
    (0, "storage", false),
    (1, "storage", false),
    (2, "storage", false),
    (3, "storage", false),
    (4, "storage", true),
    (5, "uniform", false),
    (6, "uniform", false),
];

fn check_contract(module: &naga::Module) -> Result<(), String> {
    for (name, stage) in [
        ("skin_compute", ShaderStage::Compute),
        ("vs_skin", ShaderStage::Vertex),
        ("fs_skin", ShaderStage::Fragment),
    ] {
        let ep = module
            .entry_points
            .iter()
            .find(|ep| ep.name == name)
            .ok_or_else(|| format!("entry point `{name}` is missing"))?;
        if ep.stage != stage {
            return Err(format!(
                "entry point `{name}` must be a {stage:?} stage, is {:?}",
                ep.stage
            ));
        }
        if stage == ShaderStage::Compute && ep.workgroup_size != [64, 1, 1] {
            return Err(format!(
                "`{name}` must have @workgroup_size(64), has {:?}",
                ep.workgroup_size
            ));
        }
    }
    for (_, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let name = var.name.as_deref().unwrap_or("?");
        if binding.group != 0 {
            return Err(format!(
                "`{name}` is in group {}; the contract uses group 0 only",
                binding.group
            ));
        }
        let Some(&(_, space, writable)) = BINDINGS.iter().find(|b| b.0 == binding.binding) else {
            return Err(format!(
                "`{name}` uses binding {}; the contract has bindings 0 to 6",
                binding.binding
            ));
        };
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
            return Err(format!(
                "binding {} (`{name}`) must be var<{want}>, is {:?}",
                binding.binding, var.space
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shader(source: &str) -> Shader {
        Shader {
            path: "test.wgsl".into(),
            source: source.into(),
        }
    }

    fn default_source() -> String {
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
}
