//! The compute readback path: upload, dispatch `skin_compute`, copy to a mappable buffer, read back.

use glam::Mat4;

use super::{readback, Context, GpuError};
use crate::scene::Mesh;

/// Threads per workgroup fixed by the contract.
pub const WORKGROUP: u32 = 64;

/// Skinned positions of every vertex of `mesh` under `palette`, computed on the GPU.
pub fn skin(ctx: &Context, palette: &[Mat4], mesh: &Mesh) -> Result<Vec<[f32; 3]>, GpuError> {
    skin_guarded(ctx, palette, mesh).map(|s| s.positions)
}

/// The GPU's skinned positions, and whether the shader wrote past `count`.
#[derive(Clone, Debug, PartialEq)]
pub struct Skinned {
    pub positions: Vec<[f32; 3]>,
    /// The first output element at or past `count` that the shader overwrote, if any.
    pub wrote_past_count: Option<usize>,
}

/// Output elements past `count`, filled with a sentinel: a shader whose count guard is off writes
/// into them instead of being silently clipped by the buffer's end.
pub const GUARD: usize = 64;

/// A bit pattern no skinning writes: a NaN with a payload.
const SENTINEL: u32 = 0x7fc0_5eed;

/// Like [`skin`], also reporting writes past `count`.
pub fn skin_guarded(ctx: &Context, palette: &[Mat4], mesh: &Mesh) -> Result<Skinned, GpuError> {
    check_limits(ctx, palette.len(), mesh.len())?;
    let pipelines = ctx.pipelines()?;
    ctx.scoped(|| {
        let job = Dispatch::new(ctx, &pipelines.compute_layout, palette, mesh);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        job.encode(&mut encoder, &pipelines.compute, None);
        ctx.queue.submit([encoder.finish()]);
        let skinned = job.read_guarded(ctx)?;
        job.recycle(ctx);
        Ok(skinned)
    })
}

/// The buffers and bindings of one compute dispatch, reusable for repeated runs.
pub struct Dispatch {
    bind: wgpu::BindGroup,
    inputs: [wgpu::Buffer; 5],
    out: wgpu::Buffer,
    /// Bytes of output read back: the vertices and the guard.
    size: u64,
    readback: wgpu::Buffer,
    vertices: u32,
}

impl Dispatch {
    /// Uploads the palette and the vertex data, and allocates the output and readback buffers.
    pub fn new(
        ctx: &Context,
        layout: &wgpu::BindGroupLayout,
        palette: &[Mat4],
        mesh: &Mesh,
    ) -> Dispatch {
        let (device, pool) = (&ctx.device, &ctx.pool);
        let init = |label: &str, contents: &[u8], usage| {
            pool.upload(device, &ctx.queue, label, contents, usage)
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let n = mesh.len();
        let positions: Vec<[f32; 4]> = mesh
            .positions
            .iter()
            .map(|p| [p[0], p[1], p[2], 1.0])
            .collect();
        let palette_buf = init("palette", bytemuck::cast_slice(palette), storage);
        let positions_buf = init("positions", bytemuck::cast_slice(&positions), storage);
        let joints_buf = init("joints", bytemuck::cast_slice(&mesh.joints), storage);
        let weights_buf = init("weights", bytemuck::cast_slice(&mesh.weights), storage);
        let count = [n as u32, 0, 0, 0];
        let count_buf = init(
            "count",
            bytemuck::cast_slice(&count),
            wgpu::BufferUsages::UNIFORM,
        );
        // Zeros for the vertices, the sentinel for the guard past them.
        let mut initial = vec![0u32; (n + GUARD) * 4];
        initial[n * 4..].fill(SENTINEL);
        let out = init(
            "skinned",
            bytemuck::cast_slice(&initial),
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let size = ((n + GUARD) * 16) as u64;
        let readback = pool.buffer(
            device,
            "skinned readback",
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute bindings"),
            layout,
            entries: &[
                entry(0, &palette_buf),
                entry(1, &positions_buf),
                entry(2, &joints_buf),
                entry(3, &weights_buf),
                entry(4, &out),
                entry(5, &count_buf),
            ],
        });
        Dispatch {
            bind,
            inputs: [
                palette_buf,
                positions_buf,
                joints_buf,
                weights_buf,
                count_buf,
            ],
            out,
            readback,
            size,
            vertices: n as u32,
        }
    }

    /// Records the dispatch (one invocation per vertex) and the copy into the readback buffer.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        timestamps: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skin"),
                timestamp_writes: timestamps,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.bind, &[]);
            pass.dispatch_workgroups(self.vertices.div_ceil(WORKGROUP), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.readback, 0, self.size);
    }

    /// Hands the buffers back to the adapter's pool; only after a successful readback.
    pub fn recycle(self, ctx: &Context) {
        let [a, b, c, d, e] = self.inputs;
        ctx.pool.give([a, b, c, d, e, self.out, self.readback]);
    }

    /// Waits for the submitted work and returns the skinned positions.
    pub fn read(&self, ctx: &Context) -> Result<Vec<[f32; 3]>, GpuError> {
        self.read_guarded(ctx).map(|s| s.positions)
    }

    /// Waits, returns the positions, and looks for writes into the guard past `count`.
    pub fn read_guarded(&self, ctx: &Context) -> Result<Skinned, GpuError> {
        let bytes = readback::read(ctx, &self.readback, self.size)?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let n = self.vertices as usize;
        let wrote_past_count = words[n * 4..]
            .chunks(4)
            .position(|v| v.iter().any(|&w| w != SENTINEL))
            .map(|i| n + i);
        let out: &[[f32; 4]] = bytemuck::cast_slice(&bytes[..n * 16]);
        Ok(Skinned {
            positions: out.iter().map(|v| [v[0], v[1], v[2]]).collect(),
            wrote_past_count,
        })
    }
}

pub(crate) fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// Refuses work the device cannot take before anything is submitted.
pub fn check_limits(ctx: &Context, joints: usize, vertices: usize) -> Result<(), GpuError> {
    let limits = ctx.device.limits();
    let binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let over = |what: &str, need: u64, limit: u64| {
        if need > limit {
            Err(GpuError::Limit {
                what: what.into(),
                need,
                limit,
            })
        } else {
            Ok(())
        }
    };
    over("the palette (bytes)", joints as u64 * 64, binding)?;
    over("the vertex buffers (bytes)", vertices as u64 * 16, binding)?;
    over(
        "the dispatch (workgroups of 64)",
        (vertices as u64).div_ceil(WORKGROUP as u64),
        limits.max_compute_workgroups_per_dimension as u64,
    )
}
