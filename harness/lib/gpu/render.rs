//! The offscreen render path: draw with `vs_skin` + `fs_skin` into RGBA8, read back, unpad rows.

use glam::Mat4;
use image::RgbaImage;

use super::compute::{bind_groups, check_render_limits};
use super::context::TARGET_FORMAT;
use super::{readback, Context, GpuError};
use crate::contract::{Role, Want};
use crate::rig::{Mesh, View};

/// The column-major matrix that maps a skinned position to the clip position the 2D view gives
/// it: (x / half_width, y * scale + offset_y, 0, 1).
pub(super) fn view_matrix(view: View) -> Mat4 {
    Mat4::from_cols(
        glam::Vec4::new((1.0 / view.half_width) as f32, 0.0, 0.0, 0.0),
        glam::Vec4::new(0.0, view.scale as f32, 0.0, 0.0),
        glam::Vec4::ZERO,
        glam::Vec4::new(0.0, view.offset_y as f32, 0.0, 1.0),
    )
}

/// What the camera uniform holds for `view`: the contract's struct { scale, offset_y,
/// half_width, pad }, or [`view_matrix`] in the shader's struct around it.
fn camera_bytes(contract: &crate::contract::Contract, view: View) -> Vec<u8> {
    let uniform_bytes = contract.uniform_bytes;
    if contract.slot(Role::View).ty == Want::Matrix {
        return camera_matrix(contract, written(contract, view));
    }
    let mut bytes = vec![0u8; uniform_bytes as usize];
    let data = [
        view.scale as f32,
        view.offset_y as f32,
        view.half_width as f32,
    ];
    bytes[..12].copy_from_slice(bytemuck::cast_slice(&data));
    bytes
}

/// The camera matrix the harness writes for `view`, as the stage reads it
/// ([`crate::contract::Contract::written_camera`]).
fn written(contract: &crate::contract::Contract, view: View) -> Mat4 {
    contract.written_camera(view_matrix(view))
}

/// A camera given as a matrix: `m` at its member (first, unless the profile names another), the
/// rest of the shader's struct around it as the profile's `camera.fill` says.
pub(super) fn camera_matrix(contract: &crate::contract::Contract, m: Mat4) -> Vec<u8> {
    let at = contract
        .camera_member
        .as_ref()
        .map_or(0, |m| m.offset as usize);
    let mut bytes = contract.camera_struct.clone();
    bytes.resize(bytes.len().max(at + 64), 0);
    bytes[at..at + 64].copy_from_slice(bytemuck::cast_slice(&[m]));
    bytes
}

/// The position vertex buffer's bytes: each vertex's x, y and z, or x and y alone for a planar
/// (`Float32x2`) attribute.
fn positions(mesh: &Mesh, format: wgpu::VertexFormat) -> Vec<u8> {
    match format {
        wgpu::VertexFormat::Float32x2 => {
            let xy: Vec<[f32; 2]> = mesh.positions.iter().map(|p| [p[0], p[1]]).collect();
            bytemuck::cast_slice(&xy).to_vec()
        }
        _ => bytemuck::cast_slice(&mesh.positions).to_vec(),
    }
}

/// Bytes per pixel of the target.
const PIXEL: u32 = 4;

/// The mesh skinned by `palette` and drawn through `view` into a `width` x `height` image
/// cleared to transparent black.
pub fn render(
    ctx: &Context,
    palette: &[Mat4],
    mesh: &Mesh,
    view: View,
    width: u32,
    height: u32,
) -> Result<RgbaImage, GpuError> {
    check_render_limits(ctx, palette.len(), mesh.len(), mesh.indices.len())?;
    let max = ctx.device.limits().max_texture_dimension_2d;
    if width > max || height > max {
        return Err(GpuError::Limit {
            what: "the render target (pixels per side)".into(),
            need: width.max(height) as u64,
            limit: max as u64,
        });
    }
    let render = ctx.render()?;
    ctx.step(format!(
        "the draw ({}) of {} vertices into {width}x{height}",
        ctx.contract().vertex.as_deref().unwrap_or_default(),
        mesh.len()
    ));
    ctx.scoped(|| {
        let draw = Draw::new(ctx, &render.layouts, palette, mesh, view, width, height)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        draw.encode(&mut encoder, &render.pipeline, None);
        ctx.queue.submit([encoder.finish()]);
        let image = draw.read(ctx)?;
        draw.recycle(ctx);
        Ok(image)
    })
}

/// The buffers, bindings and target of one draw, reusable for repeated frames.
pub struct Draw {
    /// (group, bind group), one per group the render pipeline uses.
    binds: Vec<(u32, wgpu::BindGroup)>,
    /// The palette texture the bind groups bind, if the shader reads one.
    _texture: Option<super::palette::Uploaded>,
    uniforms: Vec<wgpu::Buffer>,
    /// One per vertex input of the contract, in its vertex-buffer order.
    vertex: Vec<wgpu::Buffer>,
    indices: wgpu::Buffer,
    index_count: u32,
    target: wgpu::Texture,
    readback: wgpu::Buffer,
    /// The shader's immediate data, set before the draw (empty where it takes none).
    immediates: Vec<u8>,
}

impl Draw {
    pub fn new(
        ctx: &Context,
        layouts: &[(u32, wgpu::BindGroupLayout)],
        palette: &[Mat4],
        mesh: &Mesh,
        view: View,
        width: u32,
        height: u32,
    ) -> Result<Draw, GpuError> {
        let (device, pool, contract) = (&ctx.device, &ctx.pool, ctx.contract());
        let init = |label: &str, contents: &[u8], usage| {
            pool.upload(device, &ctx.queue, label, contents, usage)
        };
        // (role, buffer, bytes bound).
        let mut bound: Vec<(Role, wgpu::Buffer, usize)> = Vec::new();
        let data = super::palette::layout(contract, palette, written(contract, view))?;
        for (role, bytes, bind) in data.buffers {
            let usage = contract.slot(role).space.usage();
            bound.push((role, init("palette", &bytes, usage), bind));
        }
        let texture = data.texture.map(|t| t.upload(ctx)).transpose()?;
        // A filled buffer that holds a case's counts: this case's copy, as the compute path's.
        let texture_width = contract.palette_texture_width(palette.len());
        for f in contract.filled_per_case() {
            let bytes = f.for_case((mesh.len(), palette.len(), texture_width), &[]);
            let usage = contract.slot(f.role).space.usage();
            bound.push((f.role, init("filled count", &bytes, usage), bytes.len()));
        }
        if !contract.camera_in_palette {
            let camera = camera_bytes(contract, view);
            let usage = contract.slot(Role::View).space.usage();
            bound.push((Role::View, init("view", &camera, usage), camera.len()));
        }
        // A vertex stage that reads per-vertex storage by vertex index: its pulled vertices, or
        // its joints and weights beside the attributes.
        let stored = |role| {
            (contract.try_slot(role)).is_some_and(|s| s.used_by(crate::contract::Pipeline::Render))
        };
        if stored(Role::Positions) || stored(Role::Joints) {
            for (role, label, bytes) in super::compute::vertex_data(contract, mesh)? {
                if stored(role) {
                    let storage = wgpu::BufferUsages::STORAGE;
                    bound.push((role, init(label, &bytes, storage), bytes.len()));
                }
            }
        }
        // An index buffer may not be empty; a mesh without triangles draws nothing.
        let indices: &[u32] = if mesh.indices.is_empty() {
            &[0]
        } else {
            &mesh.indices
        };
        let entries: Vec<(Role, &wgpu::Buffer, usize)> =
            bound.iter().map(|(r, b, n)| (*r, b, *n)).collect();
        let binds = bind_groups(ctx, layouts, &entries, texture.as_ref(), "render bindings")?;
        let readback = pool.buffer(
            device,
            "target readback",
            padded_row(width) as u64 * height as u64,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let formats = contract.formats;
        let sets = mesh.sets_data(contract.influence_sets, |w| {
            formats.vertex_weights.quantise_sets(w)
        });
        let mut vertex = Vec::new();
        for input in &contract.vertex_inputs {
            let (joints, weights) = match sets.get(input.set) {
                Some(set) => set.clone(),
                None => mesh.set_data(input.set),
            };
            let (label, data): (&str, Vec<u8>) = match input.role {
                Role::Positions => ("positions", positions(mesh, input.attribute.format)),
                Role::Joints if let Some(lane) = input.pair => {
                    let held = input.pair_influences();
                    ("pairs", crate::format::pairs(&joints, &weights, lane, held))
                }
                Role::Joints => ("joints", formats.vertex_joints.pack(&joints)?),
                Role::Weights => ("weights", formats.vertex_weights.pack(&weights)),
                // A mesh without them gets placeholders, as the compute path does.
                // Four floats wide where the attribute is a vec4, w 0.
                Role::Normals if input.attribute.format == wgpu::VertexFormat::Float32x4 => {
                    let wide: Vec<[f32; 4]> = (mesh.frames().0.iter())
                        .map(|n| [n[0], n[1], n[2], 0.0])
                        .collect();
                    ("normals", bytemuck::cast_slice(&wide).to_vec())
                }
                Role::Normals => ("normals", bytemuck::cast_slice(&mesh.frames().0).to_vec()),
                Role::Tangents => ("tangents", bytemuck::cast_slice(&mesh.frames().1).to_vec()),
                // The profile's value at every vertex (validated), else zeros.
                Role::Zeros => match contract.input_value(input) {
                    Some(one) => ("inputs", one.repeat(mesh.len())),
                    None => ("zeros", vec![0; mesh.len() * input.stride as usize]),
                },
                other => panic!("{other:?} is not per-vertex data"),
            };
            vertex.push(init(label, &data, wgpu::BufferUsages::VERTEX));
        }
        Ok(Draw {
            binds,
            _texture: texture,
            uniforms: bound.into_iter().map(|(_, b, _)| b).collect(),
            vertex,
            indices: init(
                "indices",
                bytemuck::cast_slice(indices),
                wgpu::BufferUsages::INDEX,
            ),
            index_count: mesh.indices.len() as u32,
            target: pool.target(device, width, height, TARGET_FORMAT),
            readback,
            immediates: (contract.immediates).for_case((mesh.len(), palette.len(), texture_width)),
        })
    }

    /// Hands the buffers and the target back to the adapter's pool; only after a successful readback.
    pub fn recycle(self, ctx: &Context) {
        ctx.pool.give(self.uniforms);
        ctx.pool.give(self.vertex);
        ctx.pool.give([self.indices, self.readback]);
        ctx.pool.give_target(self.target);
    }

    /// Records the pass (clear to transparent black, draw) and the copy into the readback buffer.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::RenderPipeline,
        timestamps: Option<wgpu::RenderPassTimestampWrites>,
    ) {
        let view = self.target.create_view(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("skin"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: timestamps,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if self.index_count > 0 {
                pass.set_pipeline(pipeline);
                for (group, bind) in &self.binds {
                    pass.set_bind_group(*group, bind, &[]);
                }
                for (slot, buffer) in self.vertex.iter().enumerate() {
                    pass.set_vertex_buffer(slot as u32, buffer.slice(..));
                }
                pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
                if !self.immediates.is_empty() {
                    pass.set_immediates(0, &self.immediates);
                }
                pass.draw_indexed(0..self.index_count, 0, 0..1);
            }
        }
        let (width, height) = (self.target.width(), self.target.height());
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row(width)),
                    rows_per_image: Some(height),
                },
            },
            self.target.size(),
        );
    }

    /// Waits for the submitted work and returns the unpadded image.
    pub fn read(&self, ctx: &Context) -> Result<RgbaImage, GpuError> {
        let (width, height) = (self.target.width(), self.target.height());
        let size = padded_row(width) as u64 * height as u64;
        let bytes = readback::read(ctx, &self.readback, size)?;
        let pixels = unpad(&bytes, width, height);
        Ok(
            RgbaImage::from_raw(width, height, pixels)
                .expect("unpadded size is width * height * 4"),
        )
    }
}

/// Bytes per row rounded up to wgpu's 256-byte copy alignment.
pub fn padded_row(width: u32) -> u32 {
    (width * PIXEL).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Drops the padding at the end of each row.
pub fn unpad(bytes: &[u8], width: u32, height: u32) -> Vec<u8> {
    let row = padded_row(width) as usize;
    let tight = (width * PIXEL) as usize;
    (0..height as usize)
        .flat_map(|y| &bytes[y * row..y * row + tight])
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pad_to_256_bytes() {
        assert_eq!(padded_row(64), 256);
        assert_eq!(padded_row(100), 512);
        assert_eq!(padded_row(65), 512);
    }

    #[test]
    fn unpad_keeps_only_pixels() {
        // 100 px rows: 400 bytes of pixels then 112 of padding.
        let mut padded = vec![0xAAu8; 512 * 2];
        padded[400..512].fill(0);
        padded[912..1024].fill(0);
        let tight = unpad(&padded, 100, 2);
        assert_eq!(tight.len(), 800);
        assert!(tight.iter().all(|&b| b == 0xAA));
    }
}
