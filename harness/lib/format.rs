//! The data formats a shader may read: joints, weights and positions, packed as the GPU reads them.

use serde::Deserialize;

pub use crate::encoding::Encoding;

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
    /// Vertex format `Float32x4`, or `array<vec4<f32>>` in storage: whole numbers held as floats,
    /// as WebGL-era engines store joint indices; read as `vec4<f32>`.
    F32x4,
    /// Vertex format `Sint32x4`, or `array<vec4<i32>>` in storage: signed indices, as engines
    /// that mark an unused influence -1 store them; read as `vec4<i32>`.
    I32x4,
}

impl JointFormat {
    pub fn name(self) -> &'static str {
        match self {
            JointFormat::U8x4 => "u8x4",
            JointFormat::U16x4 => "u16x4",
            JointFormat::U32x4 => "u32x4",
            JointFormat::F32x4 => "f32x4",
            JointFormat::I32x4 => "i32x4",
        }
    }

    /// The largest joint index the format holds.
    pub fn max_index(self) -> u32 {
        match self {
            JointFormat::U8x4 => u8::MAX as u32,
            JointFormat::U16x4 => u16::MAX as u32,
            JointFormat::U32x4 => u32::MAX,
            // Every whole number up to 2^24 is an f32 exactly.
            JointFormat::F32x4 => 1 << 24,
            JointFormat::I32x4 => i32::MAX as u32,
        }
    }

    pub fn bytes_per_vertex(self) -> usize {
        match self {
            JointFormat::U8x4 => 4,
            JointFormat::U16x4 => 8,
            JointFormat::U32x4 | JointFormat::F32x4 | JointFormat::I32x4 => 16,
        }
    }

    pub fn vertex_format(self) -> wgpu::VertexFormat {
        match self {
            JointFormat::U8x4 => wgpu::VertexFormat::Uint8x4,
            JointFormat::U16x4 => wgpu::VertexFormat::Uint16x4,
            JointFormat::U32x4 => wgpu::VertexFormat::Uint32x4,
            JointFormat::F32x4 => wgpu::VertexFormat::Float32x4,
            JointFormat::I32x4 => wgpu::VertexFormat::Sint32x4,
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
                    // An index up to i32::MAX: the same bytes as i32 as as u32.
                    JointFormat::U32x4 | JointFormat::I32x4 => {
                        out.extend_from_slice(&j.to_le_bytes())
                    }
                    JointFormat::F32x4 => out.extend_from_slice(&(j as f32).to_le_bytes()),
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

    /// The integers a unorm format stores for one set of a vertex's weights ([`integers`]);
    /// `None` for f32.
    fn integers(self, ws: [f32; 4]) -> Option<[u32; 4]> {
        let q = integers(&ws, self.unorm_max()?);
        Some([q[0], q[1], q[2], q[3]])
    }

    /// The weights a shader reads after the format stored `ws`: themselves for f32, else q / max
    /// per weight, which the GPU converts exactly as this f32 division does (both correctly
    /// rounded).
    pub fn quantise(self, ws: [f32; 4]) -> [f32; 4] {
        let mut sets = [ws];
        self.quantise_sets(&mut sets);
        sets[0]
    }

    /// [`WeightFormat::quantise`] of one vertex's weights in all its influence sets at once: the
    /// integers rounded so that they sum to the rounded sum of every set's, so that eight weights
    /// summing to 1 in two sets still do (rounded set by set, each set's sum may miss by one).
    pub fn quantise_sets(self, sets: &mut [[f32; 4]]) {
        let Some(max) = self.unorm_max() else {
            return;
        };
        let ws: Vec<f32> = sets.iter().flatten().copied().collect();
        let q = integers(&ws, max);
        for (w, q) in sets.iter_mut().flatten().zip(q) {
            *w = q as f32 / max;
        }
    }

    /// The weights packed little-endian as the format stores them.
    pub fn pack(self, weights: &[[f32; 4]]) -> Vec<u8> {
        let mut out = Vec::with_capacity(weights.len() * self.bytes_per_vertex());
        for &ws in weights {
            match self.integers(ws) {
                None => out.extend_from_slice(bytemuck::cast_slice(&ws)),
                Some(q) if self == WeightFormat::Unorm8x4 => out.extend(q.map(|q| q as u8)),
                Some(q) => {
                    for q in q {
                        out.extend_from_slice(&(q as u16).to_le_bytes());
                    }
                }
            }
        }
        out
    }
}

/// The integers a unorm format of largest integer `max` stores for a vertex's weights `ws`: each
/// w * max rounded so that they sum to the rounded sum (largest remainders first), as exporters
/// write 8-bit weights, so weights that sum to 1 still do.
fn integers(ws: &[f32], max: f32) -> Vec<u32> {
    let scaled: Vec<f64> = (ws.iter())
        .map(|w| w.clamp(0.0, 1.0) as f64 * max as f64)
        .collect();
    let mut q: Vec<u32> = scaled.iter().map(|x| x.floor() as u32).collect();
    let total = scaled.iter().sum::<f64>().round().min(max as f64) as u32;
    let mut order: Vec<usize> = (0..ws.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (scaled[a] - scaled[a].floor(), scaled[b] - scaled[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let mut short = total.saturating_sub(q.iter().sum());
    for i in order {
        if short == 0 {
            break;
        }
        if scaled[i] > q[i] as f64 {
            q[i] += 1;
            short -= 1;
        }
    }
    q
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
}

/// The w the harness stores after each source position held in four floats (a `vec4<f32>` array
/// or member): 0 (default), so a shader that multiplies the stored vec4 as a point loses the
/// palette's translation and the comparisons see it; or 1, where an engine stores points with w
/// 1 and its shader multiplies the vec4 as it is (`matrix * v.position`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(try_from = "u8")]
pub enum PositionW {
    #[default]
    Zero,
    One,
}

impl TryFrom<u8> for PositionW {
    type Error = String;
    fn try_from(n: u8) -> Result<PositionW, String> {
        match n {
            0 => Ok(PositionW::Zero),
            1 => Ok(PositionW::One),
            n => Err(format!(
                "field `position_w`: the stored w is 0 or 1 (a point's), got {n}"
            )),
        }
    }
}

impl PositionW {
    pub fn value(self) -> f32 {
        match self {
            PositionW::Zero => 0.0,
            PositionW::One => 1.0,
        }
    }
}

/// What each of `vertex.pairs` holds: one influence as (joint index, weight) in a `vec2<f32>`
/// (libGDX's `a_boneWeightN`), or two as (joint, weight, joint, weight) in a `vec4<f32>`
/// (OpenSceneGraph's `boneWeightN`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PairFormat {
    #[default]
    Vec2,
    Vec4,
}

impl PairFormat {
    /// The influences one attribute holds.
    pub fn influences(self) -> usize {
        match self {
            PairFormat::Vec2 => 1,
            PairFormat::Vec4 => 2,
        }
    }

    pub fn vertex_format(self) -> wgpu::VertexFormat {
        match self {
            PairFormat::Vec2 => wgpu::VertexFormat::Float32x2,
            PairFormat::Vec4 => wgpu::VertexFormat::Float32x4,
        }
    }
}

/// How tangents are stored: four floats (xyz and w, the handedness), or three (the direction
/// alone, as engines store it that keep no handedness).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TangentFormat {
    Vec3,
    #[default]
    Vec4,
}

impl TangentFormat {
    pub fn name(self) -> &'static str {
        match self {
            TangentFormat::Vec3 => "vec3",
            TangentFormat::Vec4 => "vec4",
        }
    }

    /// The floats a tangent takes.
    pub fn words(self) -> u32 {
        match self {
            TangentFormat::Vec3 => 3,
            TangentFormat::Vec4 => 4,
        }
    }
}

/// Where each vertex's normal or tangent lies in a buffer of its own: `words` components (xyz,
/// then a vec4's w) at byte `offset` of each vertex's `stride` bytes, f32s or packed as
/// `encoding` says. A typed array (`array<vec4<f32>>` or `array<vec3<f32>>`) is a 16-byte stride
/// at offset 0; a byte-addressed one (`array<f32>`, `array<u32>` or an array of a struct of
/// 32-bit members) takes the profile's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    pub stride: u32,
    pub offset: u32,
    pub words: u32,
    /// Whether byte-addressed: every byte outside the direction is then another field's or
    /// vertex's, which the shader must leave as it was.
    pub byte_addressed: bool,
    pub encoding: Encoding,
}

impl Stream {
    /// A typed array of `words`-float directions (a vec3 array has a vec4's 16-byte stride).
    pub const fn typed(words: u32) -> Stream {
        Stream {
            stride: 16,
            offset: 0,
            words,
            byte_addressed: false,
            encoding: Encoding::F32,
        }
    }

    /// The bytes of each vertex's direction, in its encoding.
    pub fn bytes(&self) -> u32 {
        self.encoding.bytes(self.words)
    }

    /// The buffer of `values` (xyzw each): each vertex's first `words` components at its place
    /// in the stream's encoding, zeros elsewhere.
    pub fn pack(&self, values: &[[f32; 4]]) -> Vec<u8> {
        let (stride, offset) = (self.stride as usize, self.offset as usize);
        let mut out = vec![0u8; values.len() * stride];
        for (v, value) in values.iter().enumerate() {
            let at = v * stride + offset;
            let bytes = self.encoding.encode(value, self.words as usize);
            out[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        out
    }
}

/// How a vertex stage takes its position attribute: three floats (`vec3`, or `vec4` read with
/// w = 1, as WebGPU fills), or two (`vec2`: a planar mesh's x and y, as 2D rigs store them, the
/// stage supplying z itself; a case whose mesh leaves the plane z = 0 cannot be tested).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AttributePosition {
    Vec2,
    #[default]
    Vec3,
    Vec4,
}

impl AttributePosition {
    /// The vertex attribute format: `Float32x2` for a planar position, else `Float32x3`.
    pub fn vertex_format(self) -> wgpu::VertexFormat {
        match self {
            AttributePosition::Vec2 => wgpu::VertexFormat::Float32x2,
            AttributePosition::Vec3 | AttributePosition::Vec4 => wgpu::VertexFormat::Float32x3,
        }
    }
}

/// A byte-addressed vertex buffer: one `array<u32>` holding every vertex's fields one after
/// another, `stride` bytes apart, each field at its byte offset in the vertex. The vertices'
/// buffer holds the position; a second one (`compute.influences`) may hold the joints and
/// weights instead, and then no position; a pulling vertex stage's streams (`vertex.streams`)
/// each hold some of the fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Pulled {
    pub stride: u32,
    /// The `vec3<f32>` position (12 bytes), where this buffer holds it.
    pub position: Option<u32>,
    /// The word after the position, where the stride has room for it and no other field lies
    /// there (a `vec4<f32>` member's w).
    pub position_w: PositionW,
    /// Each influence set's joints, in `joint_format`; none where another buffer holds them.
    pub joints: Vec<u32>,
    pub joint_format: JointFormat,
    /// Each influence set's weights, in `weights`' format.
    pub weight_offsets: Vec<u32>,
    pub weights: WeightFormat,
    /// The `vec3<f32>` normal (12 bytes) and `vec4<f32>` tangent (16 bytes, w = handedness), if
    /// the shader reads them here.
    pub frames: FrameFields,
    /// The fields the profile gives by member name, and the stride if it leaves it to the shader:
    /// (the field's name as [`Pulled::fields`] gives it, or `stride`; the member, empty for the
    /// stride). Their numbers are 0 until the shader's vertex struct places them.
    pub members: Vec<(String, String)>,
}

/// The byte offsets of a vertex's normal (`vec3<f32>`, 12 bytes) and tangent (`vec4<f32>`, 16
/// bytes, or a `vec3<f32>`'s 12 without handedness) in a byte-addressed buffer, those it holds,
/// each in its encoding (f32s, or packed: a snorm8 direction is one word).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFields {
    pub normal: Option<u32>,
    pub tangent: Option<u32>,
    /// The tangent's components: `vec4` (default) or `vec3`.
    pub tangent_format: TangentFormat,
    pub normal_encoding: Encoding,
    pub tangent_encoding: Encoding,
}

impl FrameFields {
    /// No normal or tangent field.
    pub const NONE: FrameFields = FrameFields {
        normal: None,
        tangent: None,
        tangent_format: TangentFormat::Vec4,
        normal_encoding: Encoding::F32,
        tangent_encoding: Encoding::F32,
    };

    /// (name, offset, size) of each field given.
    fn fields(&self) -> impl Iterator<Item = Field> {
        [
            ("normal", self.normal, self.normal_encoding.bytes(3)),
            ("tangent", self.tangent, self.tangent_bytes()),
        ]
        .into_iter()
        .filter_map(|(name, offset, size)| offset.map(|o| (name.to_string(), o, size)))
    }

    /// The tangent field's bytes, in its encoding.
    pub fn tangent_bytes(&self) -> u32 {
        self.tangent_encoding.bytes(self.tangent_format.words())
    }

    /// Whether field `name` (as [`Pulled::fields`] names it) is a direction packed into integer
    /// words.
    pub fn packed(&self, name: &str) -> bool {
        match name {
            "normal" => self.normal_encoding.packed(),
            "tangent" => self.tangent_encoding.packed(),
            _ => false,
        }
    }
}

/// A byte-addressed output: vertex i's skinned `vec3<f32>` at `i * stride + position` bytes, and
/// its skinned normal and tangent at theirs where the shader writes them here.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    pub stride: u32,
    pub position: u32,
    pub frames: FrameFields,
    /// (offset, bytes) of an output struct's other members, which the shader may write.
    pub others: Vec<(u32, u32)>,
    /// The fields given by member name, as [`Pulled::members`].
    pub members: Vec<(String, String)>,
}

impl FrameFields {
    /// Sets field `name` (`normal` or `tangent`) to `offset`; false for another name.
    fn place(&mut self, name: &str, offset: u32) -> bool {
        match name {
            "normal" => self.normal = Some(offset),
            "tangent" => self.tangent = Some(offset),
            _ => return false,
        }
        true
    }
}

impl Packed {
    /// Sets the stride or field `name` (as [`Packed::fields`] names it) to `value`, as the
    /// shader's vertex struct places it.
    pub fn place(&mut self, name: &str, value: u32) {
        match name {
            "stride" => self.stride = value,
            "position" => self.position = value,
            other => {
                self.frames.place(other, value);
            }
        }
    }

    /// Every field with its byte offset and size, as the profile names them.
    pub fn fields(&self) -> Vec<Field> {
        let mut out = vec![("position".to_string(), self.position, 12)];
        out.extend(self.frames.fields());
        out
    }
}

/// One influence set: each vertex's 4 joints and 4 weights.
pub type SetData = (Vec<[u32; 4]>, Vec<[f32; 4]>);

/// A field of a byte-addressed vertex: its name, byte offset and size.
pub type Field = (String, u32, u32);

impl Pulled {
    /// Sets the stride or field `name` (as [`Pulled::fields`] names it: `joints`, or `joints[1]`
    /// of several sets) to `value`, as the shader's vertex struct places it.
    pub fn place(&mut self, name: &str, value: u32) {
        let (what, set) = match name.split_once('[') {
            Some((what, k)) => (what, k.trim_end_matches(']').parse().unwrap_or(0)),
            None => (name, 0),
        };
        let slot = match what {
            "stride" => &mut self.stride,
            "position" => {
                self.position = Some(value);
                return;
            }
            "joints" => &mut self.joints[set],
            "weights" => &mut self.weight_offsets[set],
            other => {
                self.frames.place(other, value);
                return;
            }
        };
        *slot = value;
    }

    /// Every field with its byte offset and size, as the profile names them.
    pub fn fields(&self) -> Vec<Field> {
        let position = self.position.map(|o| ("position".to_string(), o, 12));
        let mut out: Vec<Field> = position.into_iter().collect();
        out.extend(self.frames.fields());
        let many = self.joints.len() > 1;
        let name = |what: &str, k: usize| {
            if many {
                format!("{what}[{k}]")
            } else {
                what.to_string()
            }
        };
        for (k, &o) in self.joints.iter().enumerate() {
            out.push((
                name("joints", k),
                o,
                self.joint_format.bytes_per_vertex() as u32,
            ));
        }
        for (k, &o) in self.weight_offsets.iter().enumerate() {
            out.push((
                name("weights", k),
                o,
                self.weights.bytes_per_vertex() as u32,
            ));
        }
        out
    }

    /// The buffer: per vertex its position, normal and tangent, and each set's joints and weights
    /// packed in their formats at their offsets, those the layout holds; bytes of no field are 0.
    pub fn pack(
        &self,
        positions: &[[f32; 3]],
        frames: (&[[f32; 3]], &[[f32; 4]]),
        sets: &[SetData],
    ) -> Result<Vec<u8>, TooWide> {
        let stride = self.stride as usize;
        let mut out = vec![0u8; positions.len() * stride];
        let mut put = |offset: u32, size: usize, bytes: &[u8]| {
            for (v, chunk) in bytes.chunks(size).enumerate() {
                let at = v * stride + offset as usize;
                out[at..at + size].copy_from_slice(chunk);
            }
        };
        if let Some(o) = self.position {
            // The w first: a field written after it at the same bytes takes them.
            let w = self.position_w.value();
            if w != 0.0 && o as usize + 16 <= stride {
                put(o + 12, 4, &w.to_le_bytes().repeat(positions.len()));
            }
            put(o, 12, bytemuck::cast_slice(positions));
        }
        let f = &self.frames;
        if let Some(o) = f.normal {
            let bytes: Vec<u8> = (frames.0.iter())
                .flat_map(|n| f.normal_encoding.encode(n, 3))
                .collect();
            put(o, f.normal_encoding.bytes(3) as usize, &bytes);
        }
        if let Some(o) = f.tangent {
            // A vec3 tangent is its direction alone: xyz, no handedness.
            let k = f.tangent_format.words() as usize;
            let bytes: Vec<u8> = (frames.1.iter())
                .flat_map(|t| f.tangent_encoding.encode(t, k))
                .collect();
            put(o, f.tangent_bytes() as usize, &bytes);
        }
        // Each set's joints and weights, those this buffer holds (a stream may hold one alone).
        for ((j, _), &jo) in sets.iter().zip(&self.joints) {
            put(
                jo,
                self.joint_format.bytes_per_vertex(),
                &self.joint_format.pack(j)?,
            );
        }
        for ((_, w), &wo) in sets.iter().zip(&self.weight_offsets) {
            put(wo, self.weights.bytes_per_vertex(), &self.weights.pack(w));
        }
        Ok(out)
    }
}

/// The first rule a byte-addressed layout breaks, as (the field's name, why): every offset and the
/// stride a multiple of 4 (the buffer is read in u32 words), every field inside the stride, no two
/// fields overlapping.
pub fn check_fields(stride: u32, fields: &[Field]) -> Result<(), (String, String)> {
    if stride == 0 || !stride.is_multiple_of(4) {
        return Err((
            "stride".into(),
            format!("the stride must be a positive multiple of 4 bytes (the buffer is read in u32 words), got {stride}"),
        ));
    }
    for (i, (name, offset, size)) in fields.iter().enumerate() {
        if !offset.is_multiple_of(4) {
            return Err((
                name.clone(),
                format!("offset {offset} is not a multiple of 4 bytes (the buffer is read in u32 words)"),
            ));
        }
        if offset + size > stride {
            return Err((
                name.clone(),
                format!(
                    "bytes {offset} to {} lie past the stride of {stride} bytes",
                    offset + size - 1
                ),
            ));
        }
        if let Some((other, o, n)) = fields[..i]
            .iter()
            .find(|(_, o, n)| *offset < o + n && *o < offset + size)
        {
            return Err((
                name.clone(),
                format!(
                    "bytes {offset} to {} overlap `{other}` (bytes {o} to {})",
                    offset + size - 1,
                    o + n - 1
                ),
            ));
        }
    }
    Ok(())
}

/// The matrix a shader skins normals by: the inverse transpose of the blended matrix's 3x3 (the
/// default, what keeps a normal perpendicular to the moved surface), that 3x3 itself, as
/// shaders do that treat normals as they treat tangents (the same direction where every joint is
/// a rotation and a uniform scale), or the blend of each joint's own inverse transpose, as
/// shaders do that keep a normal matrix per joint.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NormalMatrix {
    #[default]
    InverseTranspose,
    Blended,
    PerJoint,
}

impl NormalMatrix {
    pub const ALL: [NormalMatrix; 3] = [
        NormalMatrix::InverseTranspose,
        NormalMatrix::Blended,
        NormalMatrix::PerJoint,
    ];

    /// As a profile's `normal_matrix` writes it.
    pub fn name(self) -> &'static str {
        match self {
            NormalMatrix::InverseTranspose => "inverse_transpose",
            NormalMatrix::Blended => "blended",
            NormalMatrix::PerJoint => "per_joint",
        }
    }
}

/// Where a copied vertex stage's clip z comes from: the camera's matrix (default, `camera`), or
/// the stage itself, which writes it after the camera (`stage`: a shadow pass that clamps it to
/// the near plane, `clamp(z, 0.0, w)`, or a logarithmic depth). Under `stage` the capture reads
/// the skinned z from clip w, its camera the identity with the z row moved to w.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClipZ {
    #[default]
    Camera,
    Stage,
}

impl ClipZ {
    /// The matrix a captured stage's camera holds: the identity, or under `stage` the identity
    /// with its z row moved to w and no w row, clip `(x, y, 0, z)`, so that the skinned z reaches
    /// the capture whatever the stage writes into clip z. Every entry 0 or 1: exact, and the
    /// capture reads x, y and w undivided.
    pub fn capture_camera(self) -> glam::Mat4 {
        match self {
            ClipZ::Camera => glam::Mat4::IDENTITY,
            ClipZ::Stage => glam::Mat4::from_cols(
                glam::Vec4::X,
                glam::Vec4::Y,
                glam::Vec4::W,
                glam::Vec4::ZERO,
            ),
        }
    }
}

/// Whether a vertex stage negates y around the camera: `camera` (default: it keeps what the
/// camera gives), `flipped`, after it, as naga writes a stage it reads from SPIR-V made for
/// Vulkan's downward y (`gl_Position.y = -gl_Position.y`), or `flipped_before`, before it (a
/// world position's y, `locPos.y = -locPos.y`, as Sascha Willems' glTF PBR stage does). The
/// harness writes its camera with y negated on the same side, so that the stage's flip undoes it.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClipY {
    #[default]
    Camera,
    Flipped,
    FlippedBefore,
}

impl ClipY {
    /// The matrix the harness writes where it means camera `m`: `m`, or under `flipped` `m`
    /// with its y row negated (exact), under `flipped_before` its y column, which the stage's own
    /// negation turns back into `m`.
    pub fn written(self, m: glam::Mat4) -> glam::Mat4 {
        let flip = glam::Mat4::from_diagonal(glam::Vec4::new(1.0, -1.0, 1.0, 1.0));
        match self {
            ClipY::Camera => m,
            ClipY::Flipped => flip * m,
            ClipY::FlippedBefore => m * flip,
        }
    }
}

/// How the shader makes its skinned tangent: the blended matrix's 3x3 moves it (default,
/// `skinned`), or it is then made perpendicular to the skinned normal (`orthogonal`, a
/// Gram-Schmidt step, `normalize(t - dot(t, n) * n)`, as engines do that build a tangent frame in
/// the vertex stage). The two part only where the skinned normal is not perpendicular to the
/// moved tangent: a normal moved by the blended matrix itself or per joint, under uneven scale.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TangentFrame {
    #[default]
    Skinned,
    Orthogonal,
}

impl TangentFrame {
    pub const ALL: [TangentFrame; 2] = [TangentFrame::Skinned, TangentFrame::Orthogonal];

    /// As a profile's `tangent_frame` writes it.
    pub fn name(self) -> &'static str {
        match self {
            TangentFrame::Skinned => "skinned",
            TangentFrame::Orthogonal => "orthogonal",
        }
    }
}

/// The length of the skinned normals and tangents where the harness reads them: unit (default:
/// the shader renormalises after skinning), or any, for a shader that leaves renormalising to a
/// later stage (engines that normalise in the fragment stage, after interpolation), whose
/// directions alone are compared.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FrameLength {
    #[default]
    Unit,
    Any,
}

/// The last weight of the influences a shader reads: given in the vertex data (default), or
/// implied, one minus the sum of the others (`last_weight: implied`: a shader that reads one
/// weight fewer than joints, as engines that keep three weights beside four joints do).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LastWeight {
    #[default]
    Given,
    Implied,
}

impl LastWeight {
    /// The weights such a shader reads of `lanes` influences.
    pub fn read(self, lanes: usize) -> usize {
        match self {
            LastWeight::Given => lanes,
            LastWeight::Implied => lanes - 1,
        }
    }

    /// `w` as the shader takes it of `lanes` influences: an implied last weight is one minus the
    /// others, summed in order (the data's own last weight, which it does not read, differs
    /// where the weights do not sum to one, or by rounding).
    pub fn apply(self, w: [f32; 4], lanes: usize) -> [f32; 4] {
        let mut w = w;
        if self == LastWeight::Implied {
            let last = lanes - 1;
            w[last] = w[..last].iter().fold(1.0, |r, x| r - x);
        }
        w
    }
}

/// What the shader under test reads of each vertex, which the scene is built for: the joint
/// format that holds the fewest indices (a case past it cannot be tested), and the weights as the
/// numeric path reads them (quantised for the CPU reference too).
#[derive(Clone, Debug, PartialEq)]
pub struct Reads {
    pub joints: JointFormat,
    /// Where the profile gives that format, for the message (empty for the built-in contract).
    pub joints_whence: String,
    pub weights: WeightFormat,
    /// How many influence sets of 4 the shader reads per vertex (a case with more influences
    /// cannot be tested), and where the profile says so, for the message.
    pub sets: usize,
    pub sets_whence: String,
    /// How many of a set's 4 influences it reads (fewer than 4 with one set alone), and where
    /// the profile says so.
    pub lanes: usize,
    pub lanes_whence: String,
    /// Whether it takes the last of those weights as one minus the others.
    pub last_weight: LastWeight,
    /// Where the profile says the shader takes planar (x, y) positions, for the message: a case
    /// whose mesh leaves the plane z = 0 cannot be tested.
    pub planar: Option<String>,
    /// How the shader skins normals, which the CPU reference follows.
    pub normals: NormalMatrix,
    /// How it makes its skinned tangents, which the CPU reference follows.
    pub tangents: TangentFrame,
    /// How it reads the source normals and tangents (packed ones are quantised for the CPU
    /// reference too).
    pub normal_encoding: Encoding,
    pub tangent_encoding: Encoding,
    /// The most joints its palette holds, where the layout fixes a number (a uniform array): a
    /// case with more cannot be drawn with it.
    pub capacity: Option<Capacity>,
}

/// The most joints a case may have for a layout to hold them, and why, for the message.
#[derive(Clone, Debug, PartialEq)]
pub struct Capacity {
    pub joints: usize,
    /// What fixes the number, the text a profile's `expect` entry matches: `the shader's
    /// palette is a fixed array of 128 matrices`.
    pub fixed: String,
    /// Where, and what a base offset takes of it, for the message.
    pub whence: String,
}

/// What the failure of a case with a vertex of more influences than the shader reads says: the
/// matcher of the `expect` entry a draft writes for such cases.
pub const MORE_THAN_READ: &str = "more than the shader reads";

/// Influence `lane` of each vertex (and the next `held - 1` lanes) as one attribute of two f32
/// an influence, (joint index, weight), as `vertex.pairs` takes them (libGDX's `a_boneWeightN`,
/// one; OpenSceneGraph's `boneWeightN`, two), little-endian.
pub fn pairs(joints: &[[u32; 4]], weights: &[[f32; 4]], lane: usize, held: usize) -> Vec<u8> {
    (joints.iter().zip(weights))
        .flat_map(|(j, w)| (lane..lane + held).flat_map(|l| [j[l] as f32, w[l]]))
        .flat_map(f32::to_le_bytes)
        .collect()
}

impl Reads {
    /// The most influences a vertex may have for the shader to read them all.
    pub fn most(&self) -> usize {
        self.sets * self.lanes
    }
}

impl Default for Reads {
    fn default() -> Reads {
        Reads {
            joints: JointFormat::U32x4,
            joints_whence: String::new(),
            weights: WeightFormat::F32x4,
            sets: 1,
            sets_whence: String::new(),
            lanes: 4,
            lanes_whence: String::new(),
            last_weight: LastWeight::Given,
            planar: None,
            normals: NormalMatrix::InverseTranspose,
            tangents: TangentFrame::Skinned,
            normal_encoding: Encoding::F32,
            tangent_encoding: Encoding::F32,
            capacity: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An implied last weight is one minus the others read, worked by hand: of four, 1 - 0.5 -
    /// 0.25 - 0.125 = 0.125 whatever the data's fourth; of three (`max_influences: 3`), the third;
    /// given, the weights as they are.
    #[test]
    fn an_implied_last_weight_is_one_minus_the_others_read() {
        let w = [0.5, 0.25, 0.125, 0.9];
        assert_eq!(LastWeight::Implied.apply(w, 4), [0.5, 0.25, 0.125, 0.125]);
        assert_eq!(LastWeight::Implied.apply(w, 3), [0.5, 0.25, 0.25, 0.9]);
        assert_eq!(LastWeight::Given.apply(w, 4), w);
        assert_eq!(
            (LastWeight::Implied.read(4), LastWeight::Given.read(4)),
            (3, 4)
        );
    }

    /// Lane 2 of two vertices: (7, 0.25) and (300, 0.5), each two little-endian f32; with lane 3
    /// beside it, (9, 0) and (6, 0) after each.
    #[test]
    fn pairs_hold_one_lanes_joint_as_a_float_and_its_weight() {
        let joints = [[1, 2, 7, 9], [4, 5, 300, 6]];
        let weights = [[0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.5, 0.0]];
        let floats = |bytes: Vec<u8>| -> Vec<f32> {
            (bytes.chunks(4))
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect()
        };
        assert_eq!(
            floats(pairs(&joints, &weights, 2, 1)),
            [7.0, 0.25, 300.0, 0.5]
        );
        // Two a vertex (a vec4): lanes 2 and 3, each (joint, weight).
        assert_eq!(
            floats(pairs(&joints, &weights, 2, 2)),
            [7.0, 0.25, 9.0, 0.0, 300.0, 0.5, 6.0, 0.0]
        );
    }

    /// The capture's camera, worked by hand: the identity keeps (x, y, z, 1); under `stage`,
    /// (1.5, -2, -0.25, 1) becomes (1.5, -2, 0, -0.25): z in w, nothing in z, bit for bit.
    #[test]
    fn a_stage_that_writes_clip_z_is_captured_with_z_in_w() {
        let p = glam::Vec4::new(1.5, -2.0, -0.25, 1.0);
        assert_eq!(ClipZ::Camera.capture_camera() * p, p);
        let clip = ClipZ::Stage.capture_camera() * p;
        assert_eq!(clip.to_array(), [1.5, -2.0, 0.0, -0.25]);
        assert_eq!(ClipZ::default(), ClipZ::Camera);
    }

    /// Under `flipped` the written camera's y row is negated, so that the stage's own negation
    /// gives back the camera meant: (1, 2, 3, 1) through the identity is written (1, -2, 3, 1).
    #[test]
    fn a_flipped_stage_gets_its_camera_with_y_negated() {
        let p = glam::Vec4::new(1.0, 2.0, 3.0, 1.0);
        let m = glam::Mat4::from_translation(glam::Vec3::new(0.5, 0.25, 0.0));
        assert_eq!(ClipY::Camera.written(m), m);
        assert_eq!(
            ClipY::Flipped.written(glam::Mat4::IDENTITY) * p,
            glam::Vec4::new(1.0, -2.0, 3.0, 1.0)
        );
        let written = ClipY::Flipped.written(m) * p;
        assert_eq!((written * glam::Vec4::new(1.0, -1.0, 1.0, 1.0)), m * p);
    }

    #[test]
    fn a_stream_places_each_direction_and_zeros_the_rest() {
        let values = [[1.0f32, 2.0, 3.0, -1.0], [4.0, 5.0, 6.0, 1.0]];
        let floats = |b: Vec<u8>| bytemuck::cast_slice::<u8, f32>(&b).to_vec();
        let packed = Stream {
            stride: 12,
            offset: 0,
            words: 3,
            byte_addressed: true,
            encoding: Default::default(),
        };
        assert_eq!(floats(packed.pack(&values)), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let spaced = Stream {
            stride: 20,
            offset: 4,
            words: 4,
            byte_addressed: true,
            encoding: Default::default(),
        };
        assert_eq!(
            floats(spaced.pack(&values)),
            [0.0, 1.0, 2.0, 3.0, -1.0, 0.0, 4.0, 5.0, 6.0, 1.0]
        );
        assert_eq!(
            floats(Stream::typed(3).pack(&values[..1])),
            [1.0, 2.0, 3.0, 0.0]
        );
    }

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
        // Floats: 258.0 is 0x43810000.
        let floats = JointFormat::F32x4.pack(&joints).unwrap();
        assert_eq!(&floats[12..], &[0x00, 0x00, 0x81, 0x43]);
        let err = JointFormat::F32x4
            .pack(&[[1 << 24, (1 << 24) + 1, 0, 0]])
            .unwrap_err();
        assert_eq!(err.joint, (1 << 24) + 1);
        // Signed: the same bytes as u32 up to i32::MAX, past it refused.
        assert_eq!(
            JointFormat::I32x4.pack(&joints).unwrap(),
            JointFormat::U32x4.pack(&joints).unwrap()
        );
        let err = JointFormat::I32x4.pack(&[[1 << 31, 0, 0, 0]]).unwrap_err();
        assert!(
            err.to_string().contains("i32x4 (at most 2147483647)"),
            "{err}"
        );
        assert_eq!(
            JointFormat::I32x4.vertex_format(),
            wgpu::VertexFormat::Sint32x4
        );
    }

    #[test]
    fn pulled_vertices_interleave_at_their_offsets() {
        let mut layout = Pulled {
            stride: 40,
            position: Some(0),
            position_w: Default::default(),
            joints: vec![12],
            joint_format: JointFormat::U16x4,
            weight_offsets: vec![20],
            weights: WeightFormat::F32x4,
            frames: FrameFields::default(),
            members: Vec::new(),
        };
        let positions = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let normals = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]];
        let tangents = [[1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, -1.0]];
        let sets = [(
            vec![[1, 2, 3, 4], [5, 6, 7, 8]],
            vec![[0.5, 0.5, 0.0, 0.0]; 2],
        )];
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes.len(), 80);
        assert_eq!(bytes[40..44], 4.0f32.to_le_bytes());
        assert_eq!(bytes[52..54], 5u16.to_le_bytes());
        assert_eq!(bytes[60..64], 0.5f32.to_le_bytes());
        assert_eq!(bytes[36..40], [0; 4]);
        assert_eq!(check_fields(layout.stride, &layout.fields()), Ok(()));
        // A point's w after the position, under the joints that start there: the joints keep
        // their bytes; with the joints moved on, the w shows.
        layout.position_w = PositionW::One;
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes[12..14], 1u16.to_le_bytes());
        layout.joints = vec![16];
        layout.weight_offsets = vec![24];
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes[12..16], 1.0f32.to_le_bytes());
        assert_eq!(bytes[52..56], 1.0f32.to_le_bytes());
        (layout.joints, layout.weight_offsets) = (vec![12], vec![20]);
        layout.position_w = PositionW::Zero;
        // A normal and a tangent after the weights: 36 + 12 + 16 = 64 bytes.
        layout.stride = 64;
        layout.frames = FrameFields {
            normal: Some(36),
            tangent: Some(48),
            ..FrameFields::default()
        };
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes[64 + 40..64 + 44], 1.0f32.to_le_bytes());
        assert_eq!(bytes[64 + 60..64 + 64], (-1.0f32).to_le_bytes());
        assert_eq!(check_fields(layout.stride, &layout.fields()), Ok(()));
        layout.frames.tangent = Some(44);
        let overlap = check_fields(layout.stride, &layout.fields()).unwrap_err();
        assert_eq!(overlap.0, "tangent");
        assert!(overlap.1.contains("overlap `normal`"), "{}", overlap.1);
        // A vec3 tangent (12 bytes) right before the normal: its xyz, the normal's x kept.
        layout.frames = FrameFields {
            normal: Some(48),
            tangent: Some(36),
            tangent_format: TangentFormat::Vec3,
            ..FrameFields::default()
        };
        layout.stride = 60;
        assert_eq!(check_fields(layout.stride, &layout.fields()), Ok(()));
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes[36..40], 1.0f32.to_le_bytes());
        assert_eq!(bytes[44..48], 0.0f32.to_le_bytes());
        assert_eq!(bytes[60 + 48..60 + 52], 0.0f32.to_le_bytes());
        assert_eq!(bytes[60 + 52..60 + 56], 1.0f32.to_le_bytes());
        // Packed snorm8: the normal and the vec4 tangent one word each, w the handedness.
        layout.frames = FrameFields {
            normal: Some(36),
            tangent: Some(40),
            normal_encoding: Encoding::Snorm8,
            tangent_encoding: Encoding::Snorm8,
            ..FrameFields::default()
        };
        layout.stride = 44;
        assert_eq!(check_fields(layout.stride, &layout.fields()), Ok(()));
        assert!(layout.frames.packed("normal") && !layout.frames.packed("position"));
        let bytes = layout
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes[36..44], [0, 0, 127, 0, 127, 0, 0, 127]);
        assert_eq!(bytes[44 + 36..44 + 44], [0, 127, 0, 0, 127, 0, 0, 0x81]);
        layout.frames.normal_encoding = Encoding::F16;
        let wide = check_fields(layout.stride, &layout.fields()).unwrap_err();
        assert_eq!(wide.0, "tangent");
        assert!(
            wide.1.contains("overlap `normal` (bytes 36 to 43)"),
            "{}",
            wide.1
        );
        layout.stride = 64;
        let packed = Packed {
            stride: 40,
            position: 0,
            frames: FrameFields {
                normal: Some(12),
                tangent: Some(28),
                ..FrameFields::default()
            },
            others: Vec::new(),
            members: Vec::new(),
        };
        let past = check_fields(packed.stride, &packed.fields()).unwrap_err();
        assert_eq!(past.0, "tangent");
        assert!(past.1.contains("bytes 28 to 43 lie past"), "{}", past.1);
        // Joints and weights in a buffer of their own, 24 bytes a vertex (u16 pairs, then f32s):
        // no position, and the bytes before the joints stay 0.
        let influences = Pulled {
            stride: 24,
            position: None,
            position_w: Default::default(),
            joints: vec![0],
            weight_offsets: vec![8],
            frames: FrameFields::default(),
            ..layout.clone()
        };
        let names: Vec<String> = influences.fields().into_iter().map(|f| f.0).collect();
        assert_eq!(names, ["joints", "weights"]);
        let bytes = influences
            .pack(&positions, (&normals, &tangents), &sets)
            .unwrap();
        assert_eq!(bytes.len(), 48);
        assert_eq!(bytes[24..28], [5, 0, 6, 0]);
        assert_eq!(bytes[32..36], 0.5f32.to_le_bytes());
        assert_eq!(bytes[44..48], [0; 4]);
        let overlap = check_fields(36, &[("a".into(), 0, 12), ("b".into(), 8, 8)]).unwrap_err();
        assert_eq!(overlap.0, "b");
        assert!(
            overlap.1.contains("overlap `a` (bytes 0 to 11)"),
            "{}",
            overlap.1
        );
        let past = check_fields(16, &[("a".into(), 8, 12)]).unwrap_err();
        assert!(past.1.contains("past the stride of 16"), "{}", past.1);
        assert!(check_fields(16, &[("a".into(), 2, 4)])
            .unwrap_err()
            .1
            .contains("multiple of 4"));
        assert_eq!(check_fields(14, &[]).unwrap_err().0, "stride");
    }

    /// Eight weights in two sets are rounded together: 0.125 x 255 = 31.875 each, which set by
    /// set would round to 128 + 128 = 256 bytes (a vertex of two sets moved by 1/255 where every
    /// joint holds still); together seven of the eight get the unit, 255.
    #[test]
    fn weights_of_two_sets_are_rounded_together() {
        let f = WeightFormat::Unorm8x4;
        let mut sets = [[0.125; 4]; 2];
        f.quantise_sets(&mut sets);
        let bytes = f.pack(&sets);
        assert_eq!(bytes, [32, 32, 32, 32, 32, 32, 32, 31]);
        let sum = |b: &[u8]| b.iter().map(|&b| u32::from(b)).sum::<u32>();
        assert_eq!((sum(&bytes), sum(&f.pack(&[[0.125; 4]]))), (255, 128));
        let mut f32s = [[0.125; 4]; 2];
        WeightFormat::F32x4.quantise_sets(&mut f32s);
        assert_eq!(f32s, [[0.125; 4]; 2]);
    }

    #[test]
    fn unorm_weights_are_what_the_gpu_reads() {
        // 0.3 * 255 = 76.500003 and 0.7 * 255 = 178.499997 (as f32): rounded apart they could
        // sum to 256; the larger remainder gets the unit, so the bytes sum to 255.
        let f = WeightFormat::Unorm8x4;
        let q = f.quantise([0.3, 0.7, 0.0, 0.0]);
        assert_eq!(f.pack(&[[0.3, 0.7, 0.0, 0.0]]), [77, 178, 0, 0]);
        assert_eq!(q, [77.0 / 255.0, 178.0 / 255.0, 0.0, 0.0]);
        assert_eq!(f.pack(&[[0.5, 0.5, 0.0, 0.0]]), [128, 127, 0, 0]);
        assert_eq!(f.pack(&[[0.25, 0.25, 0.25, 0.25]]), [64, 64, 64, 63]);
        assert_eq!(
            WeightFormat::F32x4.quantise([0.3, 0.7, 0.0, 0.0]),
            [0.3, 0.7, 0.0, 0.0]
        );
        let g = WeightFormat::Unorm16x4;
        assert_eq!(
            g.quantise([0.5, 0.5, 0.0, 0.0])[0] + g.quantise([0.5, 0.5, 0.0, 0.0])[1],
            (32768.0 + 32767.0) / 65535.0
        );
        assert_eq!(g.pack(&[[1.0, 0.0, 0.0, 0.0]])[..2], 65535u16.to_le_bytes());
    }
}
