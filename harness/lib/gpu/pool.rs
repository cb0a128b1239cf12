//! Buffers and render targets kept per adapter and handed out again, so later cases reuse them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The free buffers and targets of one device, and how often each was created or reused.
#[derive(Default)]
pub struct Pool {
    buffers: Mutex<Vec<wgpu::Buffer>>,
    targets: Mutex<Vec<wgpu::Texture>>,
    created: AtomicU64,
    reused: AtomicU64,
}

/// Smallest buffer the pool creates; sizes grow in powers of two so few sizes serve every case.
const MIN_SIZE: u64 = 256;

impl Pool {
    /// A buffer with at least `size` bytes and exactly `usage`: a free one, or a new one.
    pub fn buffer(
        &self,
        device: &wgpu::Device,
        label: &str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let mut free = self.buffers.lock().unwrap_or_else(|p| p.into_inner());
        // The smallest free buffer that fits, so large ones stay for large meshes.
        let fit = free
            .iter()
            .enumerate()
            .filter(|(_, b)| b.usage() == usage && b.size() >= size)
            .min_by_key(|(_, b)| b.size())
            .map(|(i, _)| i);
        if let Some(i) = fit {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return free.swap_remove(i);
        }
        drop(free);
        self.created.fetch_add(1, Ordering::Relaxed);
        // Rounding up must not push a buffer the device could take past what it can bind.
        let limits = device.limits();
        let most = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let rounded = size.max(MIN_SIZE).next_power_of_two();
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: if rounded <= most {
                rounded
            } else {
                size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
            },
            usage,
            mapped_at_creation: false,
        })
    }

    /// A buffer holding `contents` at its start (the rest is left as it was).
    pub fn upload(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        label: &str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let buffer = self.buffer(
            device,
            label,
            contents.len() as u64,
            usage | wgpu::BufferUsages::COPY_DST,
        );
        queue.write_buffer(&buffer, 0, contents);
        buffer
    }

    /// A render target of exactly this size and format.
    pub fn target(
        &self,
        device: &wgpu::Device,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
    ) -> wgpu::Texture {
        let mut free = self.targets.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = free
            .iter()
            .position(|t| (t.width(), t.height(), t.format()) == (width, height, format))
        {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return free.swap_remove(i);
        }
        drop(free);
        self.created.fetch_add(1, Ordering::Relaxed);
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("target"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    }

    /// Takes buffers back once the GPU is done with them (after a successful readback: work that
    /// failed or timed out may still hold them, so those are dropped instead).
    pub fn give(&self, buffers: impl IntoIterator<Item = wgpu::Buffer>) {
        self.buffers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(buffers);
    }

    pub fn give_target(&self, target: wgpu::Texture) {
        self.targets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(target);
    }

    /// (created, reused) so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.created.load(Ordering::Relaxed),
            self.reused.load(Ordering::Relaxed),
        )
    }
}
