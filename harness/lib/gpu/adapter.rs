//! Finds every adapter wgpu enumerates, narrowed by WGPU_BACKEND / WGPU_ADAPTER_NAME, deduplicated.

pub use crate::identity::AdapterInfo;
use crate::identity::{backend_name, parse_backends, BackendError};

/// An adapter and its description.
pub struct Found {
    pub info: AdapterInfo,
    pub adapter: wgpu::Adapter,
}

/// A `WGPU_BACKEND` that names an unknown backend, or none.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("WGPU_BACKEND: {0}")]
pub struct SelectionError(#[from] pub BackendError);

/// Which adapters to use, as wgpu's own tools read it from the environment.
#[derive(Clone, Debug)]
pub struct Selection {
    pub backends: wgpu::Backends,
    /// Case-insensitive substring of the adapter name.
    pub name: Option<String>,
}

impl Selection {
    /// Reads `WGPU_BACKEND` (comma list: vulkan, gl, metal, dx12, or an alias) and `WGPU_ADAPTER_NAME`.
    pub fn from_env() -> Result<Selection, SelectionError> {
        let backends = match std::env::var("WGPU_BACKEND") {
            Ok(list) if !list.trim().is_empty() => parse_backends(&list)?,
            _ => wgpu::Backends::all(),
        };
        let name = std::env::var("WGPU_ADAPTER_NAME")
            .ok()
            .filter(|s| !s.trim().is_empty());
        Ok(Selection { backends, name })
    }
}

/// `llvmpipe (LLVM 15.0.6, 256 bits)` -> `llvmpipe`; `NVIDIA H200` -> `nvidia-h200`.
pub fn short_name(name: &str) -> String {
    let head = name.split('(').next().unwrap_or(name).trim();
    let s: String = head
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() {
        "adapter".into()
    } else {
        s
    }
}

/// Every adapter on the selected backends whose name matches, each once, with unique tags.
pub fn discover(instance: &wgpu::Instance, selection: &Selection) -> Vec<Found> {
    let adapters = pollster::block_on(instance.enumerate_adapters(selection.backends));
    let mut found: Vec<Found> = Vec::new();
    for adapter in adapters {
        let i = adapter.get_info();
        if let Some(want) = &selection.name {
            if !i.name.to_lowercase().contains(&want.to_lowercase()) {
                continue;
            }
        }
        let backend = backend_name(i.backend).to_string();
        let duplicate = found.iter().any(|f| same(&f.adapter.get_info(), &i));
        if duplicate {
            continue;
        }
        let mut tag = format!("{backend}/{}", short_name(&i.name));
        let same = found
            .iter()
            .filter(|f| f.info.tag.starts_with(&tag))
            .count();
        if same > 0 {
            tag = format!("{tag}-{}", same + 1);
        }
        found.push(Found {
            info: AdapterInfo {
                tag,
                name: i.name.clone(),
                backend,
                device_type: format!("{:?}", i.device_type),
                driver: i.driver.clone(),
                driver_info: i.driver_info.clone(),
            },
            adapter,
        });
    }
    found
}

/// Whether two adapter descriptions name the same adapter.
fn same(i: &wgpu::AdapterInfo, j: &wgpu::AdapterInfo) -> bool {
    let key = |i: &wgpu::AdapterInfo| {
        (
            i.backend,
            i.name.clone(),
            i.vendor,
            i.device,
            i.driver.clone(),
            i.driver_info.clone(),
        )
    };
    key(i) == key(j)
}

/// The same adapter from a new instance, for a fresh device after one was abandoned: a thread
/// left in the driver may hold what the old instance's devices share (GL has one context per
/// adapter, and a software driver's shader threads). `None` when it is not found again.
pub fn again(adapter: &wgpu::Adapter) -> Option<wgpu::Adapter> {
    let want = adapter.get_info();
    let selection = Selection {
        backends: want.backend.into(),
        name: None,
    };
    let instance = instance(&selection);
    pollster::block_on(instance.enumerate_adapters(selection.backends))
        .into_iter()
        .find(|a| same(&a.get_info(), &want))
}

/// A wgpu instance on the selected backends, with flags from the environment (WGPU_VALIDATION...).
pub fn instance(selection: &Selection) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = selection.backends;
    desc.flags = wgpu::InstanceFlags::default().with_env();
    desc.backend_options = desc.backend_options.with_env();
    wgpu::Instance::new(desc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names() {
        assert_eq!(short_name("llvmpipe (LLVM 15.0.6, 256 bits)"), "llvmpipe");
        assert_eq!(short_name("NVIDIA H200"), "nvidia-h200");
        assert_eq!(
            short_name("AMD Radeon RX 7900 XTX (RADV NAVI31)"),
            "amd-radeon-rx-7900-xtx"
        );
    }
}
