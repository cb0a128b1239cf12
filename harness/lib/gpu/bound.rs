//! The textures and samplers the contract binds for a shader's other bindings (`bindings`), made once with the pipelines.

use crate::contract::{Contract, Role, Want};
use crate::resource::Resource;

/// A texture's view or a sampler, as a bind group entry takes it.
pub enum Bound {
    View(wgpu::TextureView),
    Sampler(wgpu::Sampler),
}

impl Bound {
    pub fn resource(&self) -> wgpu::BindingResource<'_> {
        match self {
            Bound::View(v) => wgpu::BindingResource::TextureView(v),
            Bound::Sampler(s) => wgpu::BindingResource::Sampler(s),
        }
    }
}

/// Each texture or sampler `contract` binds among its filled bindings: its role, what the shader
/// declares, and its texel's bytes (empty: zeros).
pub fn wanted(contract: &Contract) -> Vec<(Role, Resource, &[u8])> {
    (contract.filled.iter())
        .filter_map(|f| match contract.slot(f.role).ty {
            Want::Resource(r) => Some((f.role, r, &f.bytes[..])),
            _ => None,
        })
        .collect()
}

/// What the harness binds for `r`: a texture of its texel `texel` (empty: zeros) in every layer,
/// or a clamped sampler (linear where it filters, a `less-equal` comparison where it compares).
pub fn make(device: &wgpu::Device, queue: &wgpu::Queue, r: Resource, texel: &[u8]) -> Bound {
    match r.texture() {
        None => Bound::Sampler(device.create_sampler(&sampler(r))),
        Some(t) => Bound::View(texture(device, queue, t, texel)),
    }
}

fn sampler(r: Resource) -> wgpu::SamplerDescriptor<'static> {
    let (comparison, filtering) = match r {
        Resource::Sampler {
            comparison,
            filtering,
        } => (comparison, filtering),
        Resource::Texture { .. } => (false, false),
    };
    let filter = if filtering {
        wgpu::FilterMode::Linear
    } else {
        wgpu::FilterMode::Nearest
    };
    wgpu::SamplerDescriptor {
        label: Some("bound sampler"),
        mag_filter: filter,
        min_filter: filter,
        compare: comparison.then_some(wgpu::CompareFunction::LessEqual),
        ..Default::default()
    }
}

/// A texture of one texel a layer, each layer `texel` (empty: zeros, as wgpu initialises it).
fn texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    t: crate::resource::Texture,
    texel: &[u8],
) -> wgpu::TextureView {
    let size = wgpu::Extent3d {
        width: 1,
        height: 1,
        depth_or_array_layers: t.layers,
    };
    let mut usage = wgpu::TextureUsages::TEXTURE_BINDING;
    if t.writable() {
        usage |= wgpu::TextureUsages::COPY_DST;
    }
    // A multisampled texture must be one a pass can render to.
    if t.samples > 1 {
        usage |= wgpu::TextureUsages::RENDER_ATTACHMENT;
    }
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("bound texture"),
        size,
        mip_level_count: 1,
        sample_count: t.samples,
        dimension: t.dimension,
        format: t.format,
        usage,
        view_formats: &[],
    });
    if !texel.is_empty() && t.writable() {
        queue.write_texture(
            texture.as_image_copy(),
            &texel.repeat(t.layers as usize),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(texel.len() as u32),
                rows_per_image: Some(1),
            },
            size,
        );
    }
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(t.view),
        ..Default::default()
    })
}
