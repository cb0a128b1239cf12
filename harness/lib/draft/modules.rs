//! A shader split into modules, composed for its draft, or shipped as GLSL or SPIR-V, written as
//! WGSL for it: the folders its imports came from and every define it reads, those not given left
//! off.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Composition, Translation};
use crate::compose::{compose as compose_modules, defines_read, ComposeError, Define, Spec};
use crate::foreign::Form;

/// Composes the shader at `path` (`source`) from the modules in `folders` (none given: its own
/// folder, searched in depth) under the `given` defines and every other define its modules read
/// left off: the composed WGSL, and how it was composed, its folders relative to the shader's.
pub fn compose(
    path: &Path,
    source: &str,
    folders: &[PathBuf],
    given: &BTreeMap<String, Define>,
) -> Result<(String, Composition), ComposeError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let folders = match folders.is_empty() {
        true => vec![dir.clone()],
        false => folders.to_vec(),
    };
    let mut spec = Spec {
        entry: path,
        entry_source: source,
        folders: &folders,
        defines: given,
        base: &dir,
    };
    let mut all = given.clone();
    for name in defines_read(&spec)? {
        all.entry(name).or_insert(Define::Bool(false));
    }
    spec.defines = &all;
    let composed = compose_modules(&spec)?;
    let how = Composition {
        folders: module_folders(&composed.modules, &dir),
        defines: (all.iter())
            .map(|(name, value)| (name.clone(), *value, given.contains_key(name)))
            .collect(),
    };
    Ok((composed.source, how))
}

/// The GLSL or SPIR-V shader at `path` (`bytes`, in `form`) written as WGSL under the `given`
/// defines, every other define a GLSL shader reads left undefined: the WGSL, and how it was read;
/// or naga's error.
pub fn translate(
    path: &Path,
    bytes: &[u8],
    form: Form,
    given: &BTreeMap<String, Define>,
) -> Result<(String, Translation), String> {
    let mut all = given.clone();
    if let Form::Glsl(_) = form {
        for name in crate::foreign::defines_read(&String::from_utf8_lossy(bytes)) {
            all.entry(name).or_insert(Define::Bool(false));
        }
    }
    let translated = crate::foreign::translate(path, bytes, form, given)?;
    let how = Translation {
        language: form.name(),
        defines: (all.iter())
            .map(|(name, value)| (name.clone(), *value, given.contains_key(name)))
            .collect(),
    };
    Ok((translated.wgsl, how))
}

/// The folders of the imported `modules` (the entry module first, skipped), relative to `dir`
/// where they are inside it, each once.
fn module_folders(modules: &[PathBuf], dir: &Path) -> Vec<String> {
    let base = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut folders: Vec<String> = Vec::new();
    for module in modules.iter().skip(1) {
        let parent = module.parent().unwrap_or(Path::new("."));
        let full = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        let shown = match full.strip_prefix(&base) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => full.display().to_string(),
        };
        if !folders.contains(&shown) {
            folders.push(shown);
        }
    }
    folders
}
