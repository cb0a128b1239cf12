//! The data formats a shader may read: joints, weights and positions, packed as the GPU reads them.

use serde::Deserialize;

/// How four joint indices per vertex are stored.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum JointFormat {
    /// Vertex format `Uint8x4`; read as `vec4<u32>`.
    U8x4,
    /// Vertex format `Uint16x4`, or in storage two u16 per `u32` word (low half first), 8 bytes
    /// per vertex; read as `vec4<u32>`, or as `array<u32>` / `array<vec2<u32>>` in storage.
    U16x4,
    /// Vertex format `Uint32x4`, or `array<vec4<u32>>` in storage.
    #[default]
    U32x4,
}

impl JointFormat {
    pub fn name(self) -> &'static str {
        match self {
            JointFormat::U8x4 => "u8x4",
            JointFormat::U16x4 => "u16x4",
            JointFormat::U32x4 => "u32x4",
        }
    }

    /// The largest joint index the format holds.
    pub fn max_index(self) -> u32 {
        match self {
            JointFormat::U8x4 => u8::MAX as u32,
            JointFormat::U16x4 => u16::MAX as u32,
            JointFormat::U32x4 => u32::MAX,
        }
    }

    pub fn bytes_per_vertex(self) -> usize {
        match self {
            JointFormat::U8x4 => 4,
            JointFormat::U16x4 => 8,
            JointFormat::U32x4 => 16,
        }
    }

    pub fn vertex_format(self) -> wgpu::VertexFormat {
        match self {
            JointFormat::U8x4 => wgpu::VertexFormat::Uint8x4,
            JointFormat::U16x4 => wgpu::VertexFormat::Uint16x4,
            JointFormat::U32x4 => wgpu::VertexFormat::Uint32x4,
        }
    }

    /// The joints packed little-endian as the format stores them; the first vertex and joint
    /// index that does not fit, when one does not.
    pub fn pack(self, joints: &[[u32; 4]]) -> Result<Vec<u8>, TooWide> {
        if let Some((vertex, j)) = joints
            .iter()
            .enumerate()
            .find_map(|(v, js)| js.iter().find(|&&j| j > self.max_index()).map(|&j| (v, j)))
        {
            return Err(TooWide {
                vertex,
                joint: j,
                format: self,
            });
        }
        let mut out = Vec::with_capacity(joints.len() * self.bytes_per_vertex());
        for js in joints {
            for &j in js {
                match self {
                    JointFormat::U8x4 => out.push(j as u8),
                    JointFormat::U16x4 => out.extend_from_slice(&(j as u16).to_le_bytes()),
                    JointFormat::U32x4 => out.extend_from_slice(&j.to_le_bytes()),
                }
            }
        }
        Ok(out)
    }
}

/// A joint index beyond what the joint format holds.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("vertex {vertex} uses joint {joint}, which does not fit the profile's joint format {} (at most {})", format.name(), format.max_index())]
pub struct TooWide {
    pub vertex: usize,
    pub joint: u32,
    pub format: JointFormat,
}

/// How four weights per vertex are stored.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WeightFormat {
    /// `Float32x4`, or `array<vec4<f32>>` in storage.
    #[default]
    F32x4,
    /// `Unorm8x4`: each weight is q / 255 for a byte q.
    Unorm8x4,
    /// `Unorm16x4`: each weight is q / 65535.
    Unorm16x4,
}

impl WeightFormat {
    pub fn name(self) -> &'static str {
        match self {
            WeightFormat::F32x4 => "f32x4",
            WeightFormat::Unorm8x4 => "unorm8x4",
            WeightFormat::Unorm16x4 => "unorm16x4",
        }
    }

    pub fn vertex_format(self) -> wgpu::VertexFormat {
        match self {
            WeightFormat::F32x4 => wgpu::VertexFormat::Float32x4,
            WeightFormat::Unorm8x4 => wgpu::VertexFormat::Unorm8x4,
            WeightFormat::Unorm16x4 => wgpu::VertexFormat::Unorm16x4,
        }
    }

    pub fn bytes_per_vertex(self) -> usize {
        match self {
            WeightFormat::F32x4 => 16,
            WeightFormat::Unorm8x4 => 4,
            WeightFormat::Unorm16x4 => 8,
        }
    }

    /// The largest integer of a unorm format; `None` for f32.
    fn unorm_max(self) -> Option<f32> {
        match self {
            WeightFormat::F32x4 => None,
            WeightFormat::Unorm8x4 => Some(255.0),
            WeightFormat::Unorm16x4 => Some(65535.0),
        }
    }

    /// The weight a shader reads after the format stored `w`: `w` itself for f32, else the nearest
    /// q / max, which the GPU converts exactly as this f32 division does (both correctly rounded).
    pub fn quantise(self, w: f32) -> f32 {
        match self.unorm_max() {
            None => w,
            Some(max) => (w.clamp(0.0, 1.0) * max).round() / max,
        }
    }

    /// The weights packed little-endian as the format stores them.
    pub fn pack(self, weights: &[[f32; 4]]) -> Vec<u8> {
        let mut out = Vec::with_capacity(weights.len() * self.bytes_per_vertex());
        for ws in weights {
            for &w in ws {
                match self.unorm_max() {
                    None => out.extend_from_slice(&w.to_le_bytes()),
                    Some(max) => {
                        let q = (w.clamp(0.0, 1.0) * max).round();
                        if self == WeightFormat::Unorm8x4 {
                            out.push(q as u8);
                        } else {
                            out.extend_from_slice(&(q as u16).to_le_bytes());
                        }
                    }
                }
            }
        }
        out
    }
}

/// How positions are stored: three floats, or four with w (16 bytes either way in storage, where
/// a vec3 array has a 16-byte stride).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PositionFormat {
    Vec3,
    #[default]
    Vec4,
}

impl PositionFormat {
    pub fn name(self) -> &'static str {
        match self {
            PositionFormat::Vec3 => "vec3",
            PositionFormat::Vec4 => "vec4",
        }
    }

    /// The vertex attribute format: `Float32x3`; a vec4 input reads it with w = 1, as WebGPU fills.
    pub fn vertex_format(self) -> wgpu::VertexFormat {
        wgpu::VertexFormat::Float32x3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joints_pack_little_endian_and_refuse_what_does_not_fit() {
        let joints = [[1, 2, 3, 258]];
        assert_eq!(
            JointFormat::U16x4.pack(&joints).unwrap(),
            [1, 0, 2, 0, 3, 0, 2, 1]
        );
        assert_eq!(JointFormat::U32x4.pack(&joints).unwrap().len(), 16);
        let err = JointFormat::U8x4
            .pack(&[[0; 4], [0, 300, 0, 0]])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "vertex 1 uses joint 300, which does not fit the profile's joint format u8x4 (at most 255)"
        );
        assert_eq!(
            JointFormat::U8x4.pack(&[[255, 0, 7, 1]]).unwrap(),
            [255, 0, 7, 1]
        );
    }

    #[test]
    fn unorm_weights_are_what_the_gpu_reads() {
        // 0.3 * 255 = 76.5 rounds to 77: the shader reads 77 / 255, not 0.3.
        let f = WeightFormat::Unorm8x4;
        assert_eq!(f.quantise(0.3), 77.0 / 255.0);
        assert_eq!(f.pack(&[[0.3, 0.7, 0.0, 1.0]]), [77, 179, 0, 255]);
        assert_eq!(WeightFormat::F32x4.quantise(0.3), 0.3);
        let g = WeightFormat::Unorm16x4;
        assert_eq!(g.quantise(0.5), 32768.0 / 65535.0);
        assert_eq!(g.pack(&[[0.5, 0.0, 0.0, 0.0]])[..2], 32768u16.to_le_bytes());
    }
}
