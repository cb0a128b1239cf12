//! The palette as the shader's profile lays it out: a storage or fixed-length uniform array, split
//! into globals and inverse binds, or behind a base offset, built from the skinning palette.

use glam::{DMat4, DQuat, DVec3, Mat4};

use super::{Context, GpuError};
use crate::contract::{Contract, Role};

/// The bytes of each palette binding, for one palette.
pub struct PaletteData {
    /// (role, bytes, bytes to bind).
    pub buffers: Vec<(Role, Vec<u8>, usize)>,
    /// The palette as a texture's texels, where the shader reads it from one.
    pub texture: Option<Texels>,
}

/// A palette texture's RGBA f32 texels, row by row.
pub struct Texels {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<f32>,
}

/// A palette texture on the device.
pub struct Uploaded {
    _texture: wgpu::Texture,
    view: wgpu::TextureView,
}

impl Texels {
    /// The texture on `ctx`'s device, or why its size is past the device's limit.
    pub fn upload(&self, ctx: &Context) -> Result<Uploaded, GpuError> {
        let max = ctx.device.limits().max_texture_dimension_2d;
        let side = self.width.max(self.height);
        if side > max {
            return Err(GpuError::Limit {
                what: format!(
                    "the palette texture ({} x {} texels; texels per side)",
                    self.width, self.height
                ),
                need: side as u64,
                limit: max as u64,
            });
        }
        use wgpu::util::DeviceExt;
        let texture = ctx.device.create_texture_with_data(
            &ctx.queue,
            &wgpu::TextureDescriptor {
                label: Some("palette texture"),
                size: wgpu::Extent3d {
                    width: self.width,
                    height: self.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            bytemuck::cast_slice(&self.texels),
        );
        let view = texture.create_view(&Default::default());
        Ok(Uploaded {
            _texture: texture,
            view,
        })
    }
}

impl Uploaded {
    /// What the palette's binding binds: the texture's view.
    pub fn resource(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::TextureView(&self.view)
    }
}

/// A matrix that moves every vertex far away, unlike any joint of a case.
fn decoy(i: usize) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        glam::Vec3::splat(2.5 + i as f32),
        glam::Quat::from_rotation_z(0.7 + i as f32),
        glam::Vec3::new(7.0, -5.0 - i as f32, 3.0),
    )
}

/// The inverse bind a split palette gets for joint `j`: a rigid motion, different per joint, so a
/// shader that leaves it out (or swaps the product) is off by it.
fn inverse_bind(j: usize) -> DMat4 {
    let angle = 0.3 + 0.1 * (j % 7) as f64;
    DMat4::from_rotation_translation(
        DQuat::from_axis_angle(DVec3::new(0.3, 1.0, 0.2).normalize(), angle),
        DVec3::new(0.25, -0.5 + 0.01 * (j % 11) as f64, 0.125),
    )
}

/// What the palette bindings hold for `palette` (`skin[j] = global[j] * inverseBind[j]`) under
/// `contract`, or why the case's palette does not fit the shader's. `camera` is written where
/// the camera matrix is a member of the palette's struct.
pub fn layout(
    contract: &Contract,
    palette: &[Mat4],
    camera: Mat4,
) -> Result<PaletteData, GpuError> {
    if let Some(t) = contract.palette_texture {
        let (width, height) = t.size(palette.len());
        let columns: Vec<[f32; 16]> = palette.iter().map(Mat4::to_cols_array).collect();
        let texels = t.texels_of(&columns, width, height);
        return Ok(PaletteData {
            buffers: Vec::new(),
            texture: Some(Texels {
                width,
                height,
                texels,
            }),
        });
    }
    let start = contract.palette_start();
    let split = contract.try_slot(Role::InverseBinds).is_some();
    // A split palette: the globals are skin[j] * B[j]^-1 and the inverse binds B[j], so their
    // product in the shader is skin[j] again (computed in f64, so only the final f32 rounding
    // stays).
    let globals: Vec<Mat4> = if split {
        palette
            .iter()
            .enumerate()
            .map(|(j, m)| (m.as_dmat4() * inverse_bind(j).inverse()).as_mat4())
            .collect()
    } else {
        palette.to_vec()
    };
    let mut main: Vec<Mat4> = (0..start).map(decoy).collect();
    main.extend_from_slice(&globals);
    // A uniform's palette, or a fixed-length one in a storage struct (per-instance data). A case
    // with more joints fails to load (`Reads::capacity`); this stays for callers past the suite.
    if let Some(len) = contract.fixed_palette_len() {
        if main.len() > len {
            return Err(GpuError::Layout(format!(
                "the shader's palette is a fixed array of {len} matrices ({}); the case needs {}{}",
                contract.name(),
                main.len(),
                if start > 0 {
                    format!(" ({} joints after an offset of {start})", palette.len())
                } else {
                    " (one per joint)".into()
                }
            )));
        }
        // Past the case's joints: NaN, so a shader that reads a joint the case does not have
        // shows it instead of skinning with zeros.
        main.resize(len, Mat4::from_cols_array(&[f32::NAN; 16]));
    }
    let bytes = |m: &[Mat4]| contract.palette_element.bytes(m);
    let main_bytes = match &contract.palette_member {
        Some(member) => {
            let mut out = hosted(contract, member.offset, &bytes(&main), camera);
            // The case's joint count beside its joints, where the profile names its member.
            if let Some(at) = (contract.palette_joint_count.as_ref()).and_then(|c| c.offset) {
                let at = at as usize;
                if let Some(word) = out.get_mut(at..at + 4) {
                    word.copy_from_slice(&(palette.len() as u32).to_le_bytes());
                }
            }
            if let Some(n) = &contract.palette_normals {
                parallel_normals(contract, n, &main[..start + palette.len()], &mut out)?;
            }
            out
        }
        None => {
            // Slots past the last whole joint the array declares: NaN, as joints past the case's.
            let mut out = bytes(&main);
            let declared = contract.palette_declared as usize;
            let nan = f32::NAN.to_le_bytes();
            while out.len() < declared {
                out.extend_from_slice(&nan);
            }
            out
        }
    };
    let bind = main_bytes.len();
    let mut buffers = vec![(Role::Palette, main_bytes, bind)];
    if split {
        let mut inverse: Vec<Mat4> = (0..start).map(decoy).collect();
        inverse.extend((0..palette.len()).map(|j| inverse_bind(j).as_mat4()));
        let b = bytes(&inverse);
        let n = b.len();
        buffers.push((Role::InverseBinds, b, n));
    }
    if contract.try_slot(Role::PaletteOffset).is_some() {
        let mut offset = vec![0u8; contract.uniform_bytes as usize];
        offset[..4].copy_from_slice(&(start as u32).to_le_bytes());
        let n = offset.len();
        buffers.push((Role::PaletteOffset, offset, n));
    }
    Ok(PaletteData {
        buffers,
        texture: None,
    })
}

/// Each joint's normal matrix into the array member beside the palette in its struct (`out`):
/// one for each of `joints` (the decoys before an offset included); past them the member keeps
/// its fill, as the palette's own NaNs past the case's joints do not reach it.
fn parallel_normals(
    contract: &Contract,
    n: &crate::contract::ParallelNormals,
    joints: &[Mat4],
    out: &mut Vec<u8>,
) -> Result<(), GpuError> {
    if joints.len() > n.len as usize {
        return Err(GpuError::Layout(format!(
            "the shader's normal matrices (member `{}`) are a fixed array of {} ({}); the case needs {}",
            n.member.name,
            n.len,
            contract.name(),
            joints.len()
        )));
    }
    let bytes = n.bytes(joints);
    let at = n.member.offset as usize;
    if out.len() < at + bytes.len() {
        out.resize((at + bytes.len()).next_multiple_of(16), 0);
    }
    out[at..at + bytes.len()].copy_from_slice(&bytes);
    Ok(())
}

/// The palette's struct: its fill, the palette at `offset` (the struct as long as the shader
/// declares it, or as the palette makes it where it ends in a runtime-sized palette), and the
/// camera matrix at its member where it is one of the struct.
fn hosted(contract: &Contract, offset: u32, palette: &[u8], camera: Mat4) -> Vec<u8> {
    let offset = offset as usize;
    let size = (offset + palette.len()).next_multiple_of(16);
    let mut out = contract.palette_struct.clone();
    out.resize(out.len().max(size), 0);
    out[offset..offset + palette.len()].copy_from_slice(palette);
    if let Some(m) = contract
        .camera_member
        .as_ref()
        .filter(|_| contract.camera_in_palette)
    {
        let at = m.offset as usize;
        out[at..at + 64].copy_from_slice(bytemuck::bytes_of(&camera));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A uniform array of 100 vec4 slots, 3 a joint, holds 33 joints and one slot more: its buffer
    /// is the 1600 bytes the shader declares (not 33 x 48 = 1584, which wgpu refuses to bind),
    /// the last slot NaN.
    #[test]
    fn a_fixed_palette_of_slots_is_as_long_as_the_shader_declares_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/examples");
        let path = root.join("vertex_column_joints.wgsl");
        let source = std::fs::read_to_string(&path).unwrap();
        let short = source.replace("array<vec4<f32>, 768>", "array<vec4<f32>, 100>");
        assert_ne!(short, source);
        let profile =
            std::fs::read_to_string(root.join("vertex_column_joints.profile.yaml")).unwrap();
        let at = root.join("vertex_column_joints.profile.yaml");
        let shader = crate::shader::Shader::with_profile_text(&path, short, &at, &profile).unwrap();
        let c = &shader.contract;
        assert_eq!((c.palette_len, c.palette_declared), (Some(33), 1600));
        let data = layout(c, &[Mat4::IDENTITY; 2], Mat4::IDENTITY).unwrap();
        let (_, bytes, bind) = &data.buffers[0];
        assert_eq!((bytes.len(), *bind), (1600, 1600));
        let floats: &[f32] = bytemuck::cast_slice(bytes);
        // Joint 0's first vec4: column 0 of the identity, translation x 0.
        assert_eq!(&floats[..4], &[1.0, 0.0, 0.0, 0.0]);
        assert!(floats[396..].iter().all(|x| x.is_nan()));
    }

    #[test]
    fn a_split_palette_multiplies_back_to_the_palette() {
        let skin = Mat4::from_rotation_translation(
            glam::Quat::from_rotation_x(0.4),
            glam::Vec3::new(1.0, 2.0, 3.0),
        );
        for j in [0, 5, 300] {
            let global = (skin.as_dmat4() * inverse_bind(j).inverse()).as_mat4();
            let back = global * inverse_bind(j).as_mat4();
            assert!(back.abs_diff_eq(skin, 1e-5), "{back} vs {skin}");
            // And the inverse bind is not the identity: leaving it out shows.
            assert!(!global.abs_diff_eq(skin, 1e-2));
        }
    }
}
