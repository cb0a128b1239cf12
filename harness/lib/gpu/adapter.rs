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
    // Trademark signs would cut the name at their bracket; what follows `(` or `/` is detail
    // (`llvmpipe (LLVM 15.0.6, 256 bits)`, NVIDIA's GL renderer `NVIDIA H200/PCIe/SSE2`).
    let name = ["(R)", "(r)", "(TM)", "(tm)"]
        .iter()
        .fold(name.to_string(), |n, mark| n.replace(mark, ""));
    let head = name.split(['(', '/']).next().unwrap_or(&name).trim();
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

/// Why naga cannot write a GL adapter's compute or storage-buffer shaders, where the context's
/// version explains it: desktop OpenGL below 4.3 (GLSL 4.30 brought both). wgpu asks EGL for
/// OpenGL 3.3 wherever the driver offers desktop OpenGL, and NVIDIA's returns exactly that; the
/// driver's extensions that add them are not what naga writes for. `None` for any other adapter.
pub fn gl_context_limit(backend: &str, driver_info: &str) -> Option<String> {
    if backend != "gl" {
        return None;
    }
    // Desktop GL_VERSION starts with the version (`3.3.0 NVIDIA 580.159.04`), GLES's with `OpenGL`.
    let mut parts = driver_info.split([' ', '.']);
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    ((major, minor) < (4, 3)).then(|| {
        format!(
            "this adapter's context is desktop OpenGL {major}.{minor} (GL_VERSION `{driver_info}`), for which naga writes GLSL {major}{minor}0: it has no compute shaders or storage buffers (GLSL 4.30 has both). wgpu asks EGL for OpenGL 3.3 wherever the driver offers desktop OpenGL, and this driver returns exactly that; the same GPU's Vulkan adapter is not limited so"
        )
    })
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
    // The harness makes no indirect draws or dispatches, and wgpu's pipelines that validate them
    // are compute shaders: on a GL context without them (NVIDIA's EGL gives wgpu desktop GL 3.3)
    // they fail to build and no device can be made ("Parent device is lost"). The variable
    // WGPU_VALIDATION_INDIRECT_CALL=1 still turns them on.
    desc.flags =
        (wgpu::InstanceFlags::default() - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL).with_env();
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
        assert_eq!(short_name("NVIDIA H200/PCIe/SSE2"), "nvidia-h200");
        assert_eq!(
            short_name("Mesa Intel(R) UHD Graphics 630 (CFL GT2)"),
            "mesa-intel-uhd-graphics-630"
        );
        assert_eq!(short_name("(R)"), "adapter");
    }

    #[test]
    fn desktop_gl_below_4_3_is_named() {
        let note = gl_context_limit("gl", "3.3.0 NVIDIA 580.159.04").unwrap();
        assert!(
            note.contains("desktop OpenGL 3.3") && note.contains("GLSL 330"),
            "{note}"
        );
        assert!(gl_context_limit("gl", "4.5 (Core Profile) Mesa 22.3.6").is_none());
        assert!(gl_context_limit("gl", "OpenGL ES 3.2 Mesa 22.3.6").is_none());
        assert!(gl_context_limit("vulkan", "3.3.0").is_none());
    }
}
