//! What identifies an adapter: its backend (one table of names and aliases) and the description reports record and cases match.

use serde::{Deserialize, Serialize};

/// Every backend a setting or a case file may name: the name the harness writes, then the aliases
/// it also reads (as `WGPU_BACKEND` does).
pub const BACKENDS: [(wgpu::Backend, &str, &[&str]); 4] = [
    (wgpu::Backend::Vulkan, "vulkan", &["vk"]),
    (wgpu::Backend::Gl, "gl", &["gles", "opengl"]),
    (wgpu::Backend::Metal, "metal", &["mtl"]),
    (wgpu::Backend::Dx12, "dx12", &["d3d12"]),
];

/// The backend names as messages list them.
pub const BACKEND_NAMES: &str = "vulkan, gl, metal, dx12";

/// A backend name that is not in [`BACKENDS`], or a list that names none.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    #[error("unknown backend `{0}` (expected a comma list of {BACKEND_NAMES})")]
    Unknown(String),
    #[error("`{0}` names no backend (expected a comma list of {BACKEND_NAMES})")]
    Empty(String),
}

/// One backend by its name or an alias, in any case; the unknown word comes back lowercased.
pub fn parse_backend(word: &str) -> Result<wgpu::Backend, BackendError> {
    let word = word.trim().to_ascii_lowercase();
    BACKENDS
        .iter()
        .find(|(_, name, aliases)| *name == word || aliases.contains(&word.as_str()))
        .map(|(backend, _, _)| *backend)
        .ok_or(BackendError::Unknown(word))
}

/// A comma list of backend names; an unknown name is an error rather than silently nothing.
pub fn parse_backends(list: &str) -> Result<wgpu::Backends, BackendError> {
    let mut out = wgpu::Backends::empty();
    for word in list.split(',').filter(|w| !w.trim().is_empty()) {
        out |= wgpu::Backends::from(parse_backend(word)?);
    }
    if out.is_empty() {
        return Err(BackendError::Empty(list.to_string()));
    }
    Ok(out)
}

/// The backend's short name, as used in tags, reports and `WGPU_BACKEND`.
pub fn backend_name(b: wgpu::Backend) -> &'static str {
    match BACKENDS.iter().find(|(backend, _, _)| *backend == b) {
        Some((_, name, _)) => name,
        None if b == wgpu::Backend::BrowserWebGpu => "webgpu",
        None => "noop",
    }
}

/// What the report says about an adapter.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AdapterInfo {
    /// Short `backend/name` used in trial names, e.g. `vulkan/llvmpipe`.
    pub tag: String,
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_lists() {
        assert_eq!(
            parse_backends("vulkan, GL").unwrap(),
            wgpu::Backends::VULKAN | wgpu::Backends::GL
        );
        let err = parse_backends("vulkan,vulcan").unwrap_err().to_string();
        assert!(err.contains("`vulcan`"), "{err}");
        assert!(parse_backends(" , ")
            .unwrap_err()
            .to_string()
            .contains("names no backend"));
    }

    #[test]
    fn every_alias_reads_as_its_backend_and_writes_as_its_name() {
        for (backend, name, aliases) in BACKENDS {
            for word in aliases.iter().chain([&name]) {
                assert_eq!(parse_backend(&word.to_uppercase()), Ok(backend));
            }
            assert_eq!(backend_name(backend), name);
            assert!(BACKEND_NAMES.contains(name));
        }
        assert_eq!(backend_name(wgpu::Backend::Noop), "noop");
    }
}
