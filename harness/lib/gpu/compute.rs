//! The compute readback path: upload, dispatch `skin_compute`, copy to a mappable buffer, read back.

use glam::Mat4;

use super::{readback, Context, GpuError};
use crate::contract::{Role, Slot, Space};
use crate::format::{Encoding, FrameFields};
use crate::rig::Mesh;

/// Skinned positions of every vertex of `mesh` under `palette`, computed on the GPU.
pub fn skin(ctx: &Context, palette: &[Mat4], mesh: &Mesh) -> Result<Vec<[f32; 3]>, GpuError> {
    skin_guarded(ctx, palette, mesh).map(|s| s.positions)
}

/// The GPU's skinned positions, and the first way the output broke the contract, if any; the
/// skinned normals and tangents where the contract has outputs for them (or the first way their
/// output broke it).
#[derive(Clone, Debug, PartialEq)]
pub struct Skinned {
    pub positions: Vec<[f32; 3]>,
    pub fault: Option<Fault>,
    pub normals: Option<Result<Vec<[f32; 4]>, Fault>>,
    pub tangents: Option<Result<Vec<[f32; 4]>, Fault>>,
}

/// How a compute output breaks the contract (one invocation per vertex writes `vec4(skinned, 0)`
/// at its index, and nothing at or past `count`).
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// The first output element at or past `count` that the shader overwrote.
    WrotePastCount(usize),
    /// The first vertex whose output element the shader never wrote.
    Unwritten(usize),
    /// The first vertex whose output w is not 0.
    NonZeroW { vertex: usize, w: f32 },
    /// The first byte of a byte-addressed output that the shader wrote outside the vertex's fields.
    OutsideFields { vertex: usize, byte: usize },
    /// The first byte of a vertex pool that the shader wrote outside its output regions, and where
    /// it lies.
    OutsideRegions { byte: usize, at: String },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Fault::WrotePastCount(i) => write!(
                f,
                "the shader wrote output element {i}, past the case's vertices: an invocation past the last vertex wrote (a dispatch rounds up to whole workgroups), so the shader's bound on its invocations (a vertex count, or an input's arrayLength) is missing or lets it through"
            ),
            Fault::Unwritten(v) => write!(
                f,
                "the shader never wrote the output of vertex {v} (one invocation per vertex must write it)"
            ),
            Fault::NonZeroW { vertex, w } => write!(
                f,
                "the output w of vertex {vertex} is {w:?}: the contract writes vec4(skinned, 0), or a point's vec4(skinned, 1) where the profile says `compute.skinned.w: 1`"
            ),
            Fault::OutsideFields { vertex, byte } => write!(
                f,
                "the shader wrote byte {byte} of vertex {vertex}'s output, which is none of its fields (a wrong offset or stride)"
            ),
            Fault::OutsideRegions { byte, ref at } => write!(
                f,
                "the shader wrote byte {byte} of the vertex pool, {at}, which is no output region's (a start read from the wrong member, or a wrong stride)"
            ),
        }
    }
}

/// A bit pattern no skinning writes: a NaN with a payload. The whole output starts as it, so an
/// element the shader skipped is told apart from one it wrote.
const SENTINEL: u32 = 0x7fc0_5eed;

/// How far a point's w (`compute.skinned.w: 1`) may lie from 1: the rounding of up to eight
/// weights summed in f32 (a few units in the last place), not a wrong w.
const POINT_W_TOLERANCE: f32 = 1e-5;

/// The guard of an output skinned in place, which the shader also reads as vertices: a finite
/// float (about 1.502), since skinning a NaN may give back its bits.
const GUARD_SOURCE: u32 = 0x3fc0_5eed;

/// Like [`skin`], also reporting writes past `count`.
pub fn skin_guarded(ctx: &Context, palette: &[Mat4], mesh: &Mesh) -> Result<Skinned, GpuError> {
    check_limits(ctx, palette.len(), mesh.len())?;
    let compute = ctx.compute()?;
    ctx.step(format!(
        "the compute dispatch ({}) of {} vertices",
        ctx.contract().compute.as_deref().unwrap_or_default(),
        mesh.len()
    ));
    ctx.scoped(|| {
        let job = Dispatch::new(ctx, &compute.layouts, palette, mesh)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        job.encode(&mut encoder, &compute.pipeline, None);
        ctx.queue.submit([encoder.finish()]);
        let skinned = job.read_guarded(ctx)?;
        job.recycle(ctx);
        Ok(skinned)
    })
}

/// The buffers and bindings of one compute dispatch, reusable for repeated runs.
pub struct Dispatch {
    /// (group, bind group), one per group the compute pipeline uses.
    binds: Vec<(u32, wgpu::BindGroup)>,
    /// The palette texture the bind groups bind, if the shader reads one.
    _texture: Option<super::palette::Uploaded>,
    inputs: Vec<wgpu::Buffer>,
    out: wgpu::Buffer,
    /// Bytes of output read back: the vertices and the guard.
    size: u64,
    readback: wgpu::Buffer,
    /// The skinned normal and tangent outputs the contract has, each a buffer of its own.
    frames: Vec<Frames>,
    vertices: u32,
    /// The workgroups the dispatch runs.
    workgroups: u32,
    /// The shader's immediate data, set before the dispatch (empty where it takes none).
    immediates: Vec<u8>,
    /// Where each vertex's output lies.
    layout: Output,
    /// The output's words before the dispatch, to tell what the shader wrote: the sentinel, or
    /// skinned in place the vertices read and a finite guard.
    initial: Vec<u32>,
    /// Where the regions lie, where the output is a vertex pool holding every stream.
    pool: Option<Vec<crate::regions::Placed>>,
}

/// A buffer the shader writes skinned normals or tangents to, and its readback.
struct Frames {
    role: Role,
    out: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Bytes read back: the vertices' and the guard's.
    size: u64,
    layout: Output,
    /// Its words before the dispatch: the sentinel, or written in place the source and a finite
    /// guard.
    initial: Vec<u32>,
}

/// An output's words before the dispatch: the sentinel everywhere, in the vertices' elements
/// until the shader writes them and in the guard past them; written over `source` (in place),
/// its words and a finite guard.
fn initial_words(layout: &Output, n: usize, guard: usize, source: Option<&[u8]>) -> Vec<u32> {
    let mut initial = vec![SENTINEL; (n + guard) * layout.stride];
    if let Some(source) = source {
        // An extra invocation reads the guard as its source, and a NaN read there may come
        // back with its bits unchanged: the guard holds a finite value instead.
        initial[n * layout.stride..].fill(GUARD_SOURCE);
        let words: Vec<u32> = (source.chunks_exact(4))
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .take(n * layout.stride)
            .collect();
        initial[..words.len()].copy_from_slice(&words);
    }
    initial
}

/// Where a vertex's output lies in the output buffer, in u32 words.
#[derive(Clone, Debug, PartialEq)]
struct Output {
    /// Words per vertex.
    stride: usize,
    /// The first of the position's 3 words (or of a normal's or tangent's in a buffer of their
    /// own, as many as `width`).
    position: usize,
    /// The words read back from `position`: 3, or a vec4 tangent's 4 (a packed direction's
    /// words in a stream of its own).
    width: usize,
    /// How those words hold their value, and its components: f32s (as many as `width`), or a
    /// packed direction.
    encoding: (Encoding, usize),
    /// The word that must be written 0 (a vec4 output's w); none for vec3 padding.
    w: Option<usize>,
    /// Whether that word is 1 instead, a point's homogeneous w (`vec4(p, 1.0)`, as engines
    /// write it: `compute.skinned.w: 1`).
    point_w: bool,
    /// Whether every word outside the fields must stay untouched (a byte-addressed output,
    /// where such a write lands on another field or vertex).
    fields_only: bool,
    /// The skinned normal and tangent fields, in bytes, where the output holds them (a
    /// byte-addressed output's).
    frames: FrameFields,
    /// The words of an output struct's other members, which the shader may write.
    others: Vec<usize>,
    /// Written over the vertices it reads (see `Contract::in_place`): a vertex whose fields the
    /// shader skipped still holds its source, so an unwritten one cannot be told.
    in_place: bool,
    /// The source vertices' words where the output has their stride: a word outside the fields
    /// may hold its vertex's source word at the same place (an engine writing the whole vertex,
    /// its other attributes copied through). Empty where there is no such source.
    source: Vec<u32>,
}

impl Output {
    fn of(contract: &crate::contract::Contract) -> Output {
        match &contract.packed {
            Some(p) => Output {
                stride: p.stride as usize / 4,
                position: p.position as usize / 4,
                width: 3,
                encoding: (Encoding::F32, 3),
                w: None,
                point_w: false,
                fields_only: true,
                frames: p.frames,
                others: (p.others.iter())
                    .flat_map(|&(o, n)| (o / 4..(o + n).div_ceil(4)).map(|w| w as usize))
                    .collect(),
                in_place: contract.in_place(),
                source: Vec::new(),
            },
            None => Output {
                stride: 4,
                position: 0,
                width: 3,
                encoding: (Encoding::F32, 3),
                w: (contract.formats.skinned == crate::contract::PositionFormat::Vec4).then_some(3),
                point_w: contract.point_output,
                fields_only: false,
                frames: FrameFields::NONE,
                others: Vec::new(),
                in_place: contract.in_place(),
                source: Vec::new(),
            },
        }
    }

    /// Where the normals or tangents of `stream` lie in their own buffer, written over their
    /// source when `in_place`.
    fn of_stream(stream: crate::contract::Stream, in_place: bool) -> Output {
        Output {
            stride: stream.stride as usize / 4,
            position: stream.offset as usize / 4,
            width: stream.bytes() as usize / 4,
            encoding: (stream.encoding, stream.words as usize),
            w: None,
            point_w: false,
            fields_only: stream.byte_addressed,
            frames: FrameFields::NONE,
            others: Vec::new(),
            in_place,
            source: Vec::new(),
        }
    }

    /// Each field's words: (first word, count), the position first.
    fn fields(&self) -> Vec<(usize, usize)> {
        let mut out = vec![(self.position, self.width)];
        out.extend(self.normal());
        out.extend(self.tangent());
        out
    }

    /// The normal field: (first word, words).
    fn normal(&self) -> Option<(usize, usize)> {
        let f = &self.frames;
        f.normal
            .map(|o| (o as usize / 4, f.normal_encoding.bytes(3) as usize / 4))
    }

    /// The tangent field: (first word, words).
    fn tangent(&self) -> Option<(usize, usize)> {
        let f = &self.frames;
        f.tangent
            .map(|o| (o as usize / 4, f.tangent_bytes() as usize / 4))
    }
}

/// An input buffer: the role it is bound as, its label and bytes.
type Input = (Role, &'static str, Vec<u8>);

/// The per-vertex input buffers in the contract's layout: (role, label, bytes). The positions
/// in the byte-addressed vertices or apart (vec4, w = 0); the joints and weights in the vertices,
/// in a byte-addressed buffer of their own, or apart, each with the contract's influence sets one
/// after another per vertex.
pub(super) fn vertex_data(
    contract: &crate::contract::Contract,
    mesh: &Mesh,
) -> Result<Vec<Input>, GpuError> {
    let weights = contract.reads().weights;
    let sets = mesh.sets_data(contract.influence_sets, |w| weights.quantise_sets(w));
    let (normals, tangents) = mesh.frames();
    let mut out = Vec::new();
    match &contract.pulled {
        Some(pulled) => {
            let bytes = pulled.pack(&mesh.positions, (&normals, &tangents), &sets)?;
            out.push((Role::Positions, "vertices", bytes));
        }
        None => {
            let positions: Vec<[f32; 4]> = mesh
                .positions
                .iter()
                // w is unused by the contract. 0, not 1: a shader that took the stored w as the
                // homogeneous 1 loses the palette's translation, and the comparisons see it; 1
                // where the profile says the engine stores points so (`position_w`).
                .map(|p| [p[0], p[1], p[2], contract.position_w.value()])
                .collect();
            let bytes = bytemuck::cast_slice(&positions).to_vec();
            out.push((Role::Positions, "positions", bytes));
        }
    }
    if let Some(influences) = &contract.influences {
        let bytes = influences.pack(&mesh.positions, (&normals, &tangents), &sets)?;
        out.push((Role::Joints, "influences", bytes));
    }
    // A pulling vertex stage's other streams.
    for (role, p) in &contract.pulled_more {
        let bytes = p.pack(&mesh.positions, (&normals, &tangents), &sets)?;
        out.push((*role, "vertex stream", bytes));
    }
    if contract.influences.is_none() && contract.pulled.as_ref().is_none_or(|p| p.joints.is_empty())
    {
        let format = contract.formats.joints;
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        for (j, w) in &sets {
            joints.push(format.pack(j)?);
            weights.push(bytemuck::cast_slice::<_, u8>(w).to_vec());
        }
        out.push((Role::Joints, "joints", interleave(&joints, mesh.len())));
        out.push((Role::Weights, "weights", interleave(&weights, mesh.len())));
    }
    Ok(out)
}

/// Per-set buffers of `n` equal elements each, interleaved: vertex 0's element of every set, then
/// vertex 1's, and so on.
fn interleave(sets: &[Vec<u8>], n: usize) -> Vec<u8> {
    if sets.len() == 1 || n == 0 {
        return sets.concat();
    }
    let size = sets[0].len() / n;
    let mut out = Vec::with_capacity(size * n * sets.len());
    for v in 0..n {
        for set in sets {
            out.extend_from_slice(&set[v * size..(v + 1) * size]);
        }
    }
    out
}

impl Dispatch {
    /// Uploads the palette and the vertex data in the contract's formats, and allocates the
    /// output and readback buffers; one bind group per group the compute pipeline uses.
    pub fn new(
        ctx: &Context,
        layouts: &[(u32, wgpu::BindGroupLayout)],
        palette: &[Mat4],
        mesh: &Mesh,
    ) -> Result<Dispatch, GpuError> {
        let (device, pool, contract) = (&ctx.device, &ctx.pool, ctx.contract());
        let init = |label: &str, contents: &[u8], usage| {
            pool.upload(device, &ctx.queue, label, contents, usage)
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let uniform = wgpu::BufferUsages::UNIFORM;
        let n = mesh.len();
        // Output elements past `count`, filled with the sentinel: a shader whose count guard is
        // off writes into them instead of being silently clipped by the buffer's end.
        let guard = contract.output_guard;
        let mut count = vec![0u8; contract.uniform_bytes as usize];
        count[..4].copy_from_slice(&(n as u32).to_le_bytes());
        // (role, buffer, bytes bound): every input binding covers exactly the case's data.
        let mut bound: Vec<(Role, wgpu::Buffer, usize)> = Vec::new();
        // A vertex stage captured whole reads its camera as the identity (or with z moved to w,
        // where the stage writes clip z itself), so that its clip position is the skinned
        // position (here where the camera is in the palette's struct).
        let camera = contract.written_camera(contract.clip_z.capture_camera());
        let data = super::palette::layout(contract, palette, camera)?;
        for (role, bytes, bind) in data.buffers {
            let usage = contract.slot(role).space.usage();
            bound.push((role, init("palette", &bytes, usage), bind));
        }
        let texture = data.texture.map(|t| t.upload(ctx)).transpose()?;
        // A vertex pool holds every stream in the one buffer, bound as the output.
        let regions = (contract.regions.as_ref())
            .map(|r| pool_words(contract, r, mesh, guard))
            .transpose()?;
        let starts = regions.as_ref().map_or_else(Vec::new, |p| p.starts.clone());
        let inputs = match regions {
            Some(_) => Vec::new(),
            None => vertex_data(contract, mesh)?,
        };
        // Skinned in place, the vertices are the output's first contents, bound once as it.
        let in_place = contract.in_place();
        let mut vertices = Vec::new();
        // The byte-addressed vertices' words, which an output of their stride may copy through.
        let mut source: Vec<u32> = Vec::new();
        for (role, label, bytes) in inputs {
            if in_place && role == Role::Positions {
                vertices = bytes;
                continue;
            }
            if role == Role::Positions && contract.pulled.is_some() {
                source = bytemuck::pod_collect_to_vec(&bytes);
            }
            bound.push((role, init(label, &bytes, storage), bytes.len()));
        }
        if contract.try_slot(Role::Count).is_some() {
            bound.push((Role::Count, init("count", &count, uniform), count.len()));
        }
        // A filled buffer that holds the vertex count, the joint count or the pool's starts: this
        // case's copy,
        // bound in place of the one every case shares.
        let texture_width = contract.palette_texture_width(palette.len());
        for f in contract.filled_per_case() {
            let bytes = f.for_case((n, palette.len(), texture_width), &starts);
            let usage = contract.slot(f.role).space.usage();
            bound.push((f.role, init("filled count", &bytes, usage), bytes.len()));
        }
        // Or in its own binding.
        let view = contract.try_slot(Role::View);
        if view.is_some_and(|s| s.used_by(crate::contract::Pipeline::Compute)) {
            let camera = super::render::camera_matrix(contract, camera);
            let usage = contract.slot(Role::View).space.usage();
            bound.push((Role::View, init("camera", &camera, usage), camera.len()));
        }
        // Normals or tangents skinned in place: likewise their output's first contents.
        let mut frame_sources = Vec::new();
        for (role, label, bytes) in frame_inputs(contract, mesh) {
            let skinned = match role {
                Role::Normals => Role::SkinnedNormals,
                _ => Role::SkinnedTangents,
            };
            if contract.frames_in_place(skinned) {
                frame_sources.push((skinned, bytes));
                continue;
            }
            bound.push((role, init(label, &bytes, storage), bytes.len()));
        }
        // An output holding `initial`, the buffer it is copied to to be read, and their size.
        let output = |label: &str, initial: &[u32]| {
            let size = (initial.len() * 4) as u64;
            let usage = storage | wgpu::BufferUsages::COPY_SRC;
            let out = init(label, bytemuck::cast_slice(initial), usage);
            let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
            let readback = pool.buffer(device, &format!("{label} readback"), size, usage);
            (out, readback, size)
        };
        let mut layout = Output::of(contract);
        let stride = contract.pulled.as_ref().map(|p| p.stride as usize / 4);
        if layout.fields_only && stride == Some(layout.stride) {
            layout.source = source;
        }
        let (initial, placed) = match regions {
            Some(p) => (p.words, Some(p.placed)),
            None => (
                initial_words(&layout, n, guard, in_place.then_some(&vertices[..])),
                None,
            ),
        };
        let (out, readback, size) = output("skinned", &initial);
        // Skinned normals and tangents likewise, each in its own stream with its own guard.
        let frames: Vec<Frames> = [Role::SkinnedNormals, Role::SkinnedTangents]
            .into_iter()
            .filter(|r| contract.try_slot(*r).is_some())
            .filter_map(|role| {
                let stream = contract.streams.of(role)?;
                let layout = Output::of_stream(stream, contract.frames_in_place(role));
                let source = frame_sources.iter().find(|(r, _)| *r == role);
                let initial = initial_words(&layout, n, guard, source.map(|(_, b)| &b[..]));
                let (out, readback, size) = output("skinned frames", &initial);
                Some(Frames {
                    role,
                    out,
                    readback,
                    size,
                    layout,
                    initial,
                })
            })
            .collect();
        let mut entries: Vec<(Role, &wgpu::Buffer, usize)> =
            bound.iter().map(|(r, b, n)| (*r, b, *n)).collect();
        let role = match placed {
            Some(_) => Role::Positions,
            None => Role::Skinned,
        };
        entries.push((role, &out, size as usize));
        for f in &frames {
            entries.push((f.role, &f.out, f.size as usize));
        }
        let binds = bind_groups(ctx, layouts, &entries, texture.as_ref(), "compute bindings")?;
        Ok(Dispatch {
            initial,
            binds,
            _texture: texture,
            inputs: bound.into_iter().map(|(_, b, _)| b).collect(),
            out,
            readback,
            frames,
            size,
            vertices: n as u32,
            workgroups: (n as u32).div_ceil(contract.workgroup_threads()),
            immediates: (contract.immediates).for_case((n, palette.len(), texture_width)),
            layout,
            pool: placed,
        })
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
            for (group, bind) in &self.binds {
                pass.set_bind_group(*group, bind, &[]);
            }
            if !self.immediates.is_empty() {
                pass.set_immediates(0, &self.immediates);
            }
            pass.dispatch_workgroups(self.workgroups, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.readback, 0, self.size);
        for f in &self.frames {
            encoder.copy_buffer_to_buffer(&f.out, 0, &f.readback, 0, f.size);
        }
    }

    /// Hands the buffers back to the adapter's pool; only after a successful readback.
    pub fn recycle(self, ctx: &Context) {
        let mut buffers = self.inputs;
        buffers.extend([self.out, self.readback]);
        for f in self.frames {
            buffers.extend([f.out, f.readback]);
        }
        ctx.pool.give(buffers);
    }

    /// Waits for the submitted work and returns the skinned positions.
    pub fn read(&self, ctx: &Context) -> Result<Vec<[f32; 3]>, GpuError> {
        self.read_guarded(ctx).map(|s| s.positions)
    }

    /// Waits, returns the positions, and looks for contract faults: writes into the guard past
    /// `count`, vertices left unwritten, a w other than 0.
    pub fn read_guarded(&self, ctx: &Context) -> Result<Skinned, GpuError> {
        let bytes = readback::read(ctx, &self.readback, self.size)?;
        let words = bytemuck::cast_slice(&bytes);
        let n = self.vertices as usize;
        if let Some(placed) = &self.pool {
            return Ok(inspect_pool(words, &self.initial, n, placed));
        }
        let mut skinned = inspect(words, &self.initial, n, &self.layout);
        for f in &self.frames {
            let bytes = readback::read(ctx, &f.readback, f.size)?;
            let words = bytemuck::cast_slice(&bytes);
            let frames = inspect_frames(words, &f.initial, self.vertices as usize, &f.layout);
            match f.role {
                Role::SkinnedNormals => skinned.normals = Some(frames),
                _ => skinned.tangents = Some(frames),
            }
        }
        Ok(skinned)
    }
}

/// A vertex pool's words before the dispatch, where its regions lie and the starts the shader
/// reads.
struct Pool {
    words: Vec<u32>,
    placed: Vec<crate::regions::Placed>,
    starts: Vec<(crate::regions::Stream, u32)>,
}

/// The vertex pool of a case: each source region holding the mesh's data tightly packed (a
/// position, normal or tangent as 3 or 4 floats, a normal's and a position's w 0; each vertex's
/// joints and weights in their formats, its sets one after another), each output region the
/// sentinel, and the gaps a finite filler.
fn pool_words(
    contract: &crate::contract::Contract,
    regions: &crate::regions::Regions,
    mesh: &Mesh,
    guard: usize,
) -> Result<Pool, GpuError> {
    use crate::regions::Stream;
    let n = mesh.len();
    let (placed, len) = regions.place(n, guard);
    // The gaps hold a finite value, as the guard of an output skinned in place does: an extra
    // invocation reads them as its sources, and what it writes must differ from the sentinel.
    let mut words = vec![GUARD_SOURCE; len as usize / 4];
    for p in placed.iter().filter(|p| p.stream.is_output()) {
        let at = p.start as usize / 4;
        words[at..at + p.len as usize / 4].fill(SENTINEL);
    }
    let (normals, tangents) = mesh.frames();
    // A position, normal or tangent region: a byte-addressed stream of its own, tightly packed.
    let floats = |values: Vec<[f32; 4]>, size: u32| -> Vec<u8> {
        let stream = crate::contract::Stream {
            stride: size,
            offset: 0,
            words: size / 4,
            byte_addressed: true,
            encoding: Default::default(),
        };
        stream.pack(&values)
    };
    let weights = contract.reads().weights;
    let sets = mesh.sets_data(contract.influence_sets, |w| weights.quantise_sets(w));
    for p in placed.iter().filter(|p| !p.stream.is_output()) {
        let bytes = match p.stream {
            Stream::Position => {
                let v = mesh.positions.iter().map(|p| [p[0], p[1], p[2], 0.0]);
                floats(v.collect(), p.size)
            }
            Stream::Normal => {
                let v = normals.iter().map(|n| [n[0], n[1], n[2], 0.0]);
                floats(v.collect(), p.size)
            }
            Stream::Tangent => floats(tangents.clone(), p.size),
            Stream::Joints => {
                let packed = (sets.iter())
                    .map(|(j, _)| regions.joints.pack(j))
                    .collect::<Result<Vec<_>, _>>()?;
                interleave(&packed, n)
            }
            _ => {
                let packed: Vec<_> = sets.iter().map(|(_, w)| regions.weights.pack(w)).collect();
                interleave(&packed, n)
            }
        };
        let at = p.start as usize / 4;
        let source: &[u32] = bytemuck::cast_slice(&bytes);
        words[at..at + source.len()].copy_from_slice(source);
    }
    let starts = (placed.iter())
        .map(|p| (p.stream, regions.start_value(p.start)))
        .collect();
    Ok(Pool {
        words,
        placed,
        starts,
    })
}

/// A vertex pool after the dispatch, against its words before: the skinned positions, normals
/// and tangents read from their regions and checked as outputs of their own are (the guard past
/// the vertices, a vertex left unwritten), and the first word written outside every output
/// region (a source, a gap).
fn inspect_pool(
    words: &[u32],
    before: &[u32],
    n: usize,
    placed: &[crate::regions::Placed],
) -> Skinned {
    use crate::regions::Stream;
    let region = |stream: Stream| placed.iter().find(|p| p.stream == stream);
    let range = |p: &crate::regions::Placed| p.start as usize / 4..(p.start + p.len) as usize / 4;
    // A region's words, its first `width` floats a vertex compared, the rest (a vec4's w) free.
    let layout = |p: &crate::regions::Placed, width: usize| Output {
        stride: p.size as usize / 4,
        position: 0,
        width,
        encoding: (Encoding::F32, width),
        w: None,
        point_w: false,
        fields_only: true,
        frames: FrameFields::NONE,
        others: (width..p.size as usize / 4).collect(),
        in_place: false,
        source: Vec::new(),
    };
    let frames = |stream: Stream, width: fn(usize) -> usize| {
        region(stream).map(|p| {
            let (r, layout) = (range(p), layout(p, width(p.size as usize / 4)));
            inspect_frames(&words[r.clone()], &before[r], n, &layout)
        })
    };
    let mut skinned = match region(Stream::SkinnedPosition) {
        Some(p) => inspect(&words[range(p)], &before[range(p)], n, &layout(p, 3)),
        None => Skinned {
            positions: Vec::new(),
            fault: None,
            normals: None,
            tangents: None,
        },
    };
    skinned.normals = frames(Stream::SkinnedNormal, |_| 3);
    skinned.tangents = frames(Stream::SkinnedTangent, |k| k);
    let outputs: Vec<_> = (placed.iter())
        .filter(|p| p.stream.is_output())
        .map(range)
        .collect();
    let outside = (words.iter().zip(before))
        .enumerate()
        .find(|&(i, (w, b))| w != b && !outputs.iter().any(|r| r.contains(&i)))
        .map(|(i, _)| Fault::OutsideRegions {
            byte: 4 * i,
            at: crate::regions::describe(placed, 4 * i as u32),
        });
    // A write outside the outputs says where the misplaced write went, which explains an
    // output left unwritten.
    skinned.fault = outside.or(skinned.fault);
    skinned
}

/// The source normals and tangents (xyzw each: a normal's w 0, a tangent's its handedness) in
/// the contract's streams, for the roles it binds: (role, label, bytes).
fn frame_inputs(contract: &crate::contract::Contract, mesh: &Mesh) -> Vec<Input> {
    let (normals, tangents) = mesh.frames();
    let normals: Vec<[f32; 4]> = normals.iter().map(|v| [v[0], v[1], v[2], 0.0]).collect();
    [
        (Role::Normals, "normals", normals),
        (Role::Tangents, "tangents", tangents),
    ]
    .into_iter()
    // A pulling vertex stage's stream of them is packed with its vertices.
    .filter(|(role, _, _)| {
        contract.try_slot(*role).is_some() && contract.pulled_as(*role).is_none()
    })
    .filter_map(|(role, label, values)| {
        Some((role, label, contract.streams.of(role)?.pack(&values)))
    })
    .collect()
}

/// Skinned normals or tangents of `n` vertices in a buffer of their own and the guard after
/// them, against the same words before the dispatch: the values (xyzw, a vec3's w 0), or the
/// first element written past `count`, left unwritten or written outside its direction.
fn inspect_frames(
    words: &[u32],
    before: &[u32],
    n: usize,
    layout: &Output,
) -> Result<Vec<[f32; 4]>, Fault> {
    let (values, skinned) = inspected(words, before, n, layout);
    match skinned.fault {
        Some(f) => Err(f),
        None => Ok(values),
    }
}

/// The positions and the first fault of an output of `n` vertices and the guard after them, laid
/// out as `layout` says, against `before`, the same words before the dispatch; the skinned
/// normals and tangents where the layout holds them, or the first fault of theirs.
fn inspect(words: &[u32], before: &[u32], n: usize, layout: &Output) -> Skinned {
    inspected(words, before, n, layout).1
}

/// [`inspect`], with the first field's values as read (xyzw, as many words as its width).
fn inspected(words: &[u32], before: &[u32], n: usize, layout: &Output) -> (Vec<[f32; 4]>, Skinned) {
    let (vertices, guard) = words.split_at(n * layout.stride);
    let (before, guard_before) = before.split_at(n * layout.stride);
    let past = (guard.chunks(layout.stride))
        .zip(guard_before.chunks(layout.stride))
        .position(|(v, b)| v != b)
        .map(|i| Fault::WrotePastCount(n + i));
    let fields = layout.fields();
    let unwritten = |(at, k): (usize, usize)| {
        if layout.in_place {
            return None;
        }
        (vertices.chunks(layout.stride))
            .zip(before.chunks(layout.stride))
            .position(|(v, b)| v[at..at + k] == b[at..at + k])
            .map(Fault::Unwritten)
    };
    let bad_w = || {
        let w = layout.w?;
        // A point's w 1 within rounding: where the shader moves `vec4(p, 1.0)` by the blended
        // matrix, its w is the weights' sum as f32 adds them.
        let ok = |x: f32| match layout.point_w {
            true => (x - 1.0).abs() <= POINT_W_TOLERANCE,
            false => x == 0.0,
        };
        vertices
            .chunks(layout.stride)
            .position(|v| !ok(f32::from_bits(v[w])))
            .map(|vertex| Fault::NonZeroW {
                vertex,
                w: f32::from_bits(vertices[vertex * layout.stride + w]),
            })
    };
    let in_field = |i: usize| {
        fields.iter().any(|&(at, k)| (at..at + k).contains(&i)) || layout.others.contains(&i)
    };
    // The word after a vec3 position or normal, written as a vec4's homogeneous w: 1 for a
    // point, 0 for a direction (`vec4(p, 1.0)`, an engine's interleaved vec4 slots). Another value
    // there is a write outside the fields, a coordinate landing at a wrong offset.
    let homogeneous = |i: usize, word: u32| {
        let after = |at: usize| at + 3 == i;
        let f = &layout.frames;
        let normal = (f.normal.map(|o| o as usize / 4)).filter(|_| !f.normal_encoding.packed());
        (after(layout.position) || normal.is_some_and(after))
            && [0.0, 1.0].contains(&f32::from_bits(word))
    };
    let outside = || {
        if !layout.fields_only {
            return None;
        }
        (vertices.chunks(layout.stride))
            .zip(before.chunks(layout.stride))
            .enumerate()
            .find_map(|(vertex, (v, b))| {
                (v.iter().zip(b))
                    .enumerate()
                    .find(|&(i, (w, b))| {
                        let copied = layout.source.get(vertex * layout.stride + i) == Some(w);
                        !in_field(i) && w != b && !homogeneous(i, *w) && !copied
                    })
                    .map(|(i, _)| Fault::OutsideFields {
                        vertex,
                        byte: 4 * i,
                    })
            })
    };
    let fault = past
        .clone()
        .or_else(|| unwritten(fields[0]))
        .or_else(bad_w)
        .or_else(outside);
    // A field's words of each vertex, decoded as (encoding, components).
    let values = |(at, k): (usize, usize), (encoding, components): (Encoding, usize)| {
        (vertices.chunks(layout.stride))
            .map(|v| encoding.decode(&v[at..at + k], components))
            .collect::<Vec<[f32; 4]>>()
    };
    // A normal or tangent field: the guard's fault is theirs too (the guard is the whole
    // output's), else a vertex whose field was left unwritten.
    let frame = |field: Option<(usize, usize)>, decode: (Encoding, usize)| {
        field.map(
            |(at, k)| match past.clone().or_else(|| unwritten((at, k))) {
                Some(f) => Err(f),
                None => Ok(values((at, k), decode)),
            },
        )
    };
    let first = values(fields[0], layout.encoding);
    let positions = first.iter().map(|v| [v[0], v[1], v[2]]).collect();
    let f = &layout.frames;
    let tangent_components = f.tangent_format.words() as usize;
    let skinned = Skinned {
        positions,
        fault,
        normals: frame(layout.normal(), (f.normal_encoding, 3)),
        tangents: frame(layout.tangent(), (f.tangent_encoding, tangent_components)),
    };
    (first, skinned)
}

/// One bind group per (group, layout), each binding the `bound` buffers of its group: (role,
/// buffer, bytes bound), and the buffers the contract fills ([`Role::Filled`]), which every
/// pipeline binds. A buffer past what the device binds in its space is refused first, by name:
/// wgpu's own error gives only the binding's number.
pub(crate) fn bind_groups(
    ctx: &Context,
    layouts: &[(u32, wgpu::BindGroupLayout)],
    bound: &[(Role, &wgpu::Buffer, usize)],
    palette: Option<&super::palette::Uploaded>,
    label: &str,
) -> Result<Vec<(u32, wgpu::BindGroup)>, GpuError> {
    let contract = ctx.contract();
    // The shared filled buffers, but for those `bound` has its own copy of (a case's count).
    let filled = (ctx.pipelines.filled.iter())
        .filter(|(r, _, _)| !bound.iter().any(|b| b.0 == *r))
        .map(|(r, b, n)| (*r, b, *n));
    let all: Vec<(Role, &wgpu::Buffer, usize)> = bound.iter().copied().chain(filled).collect();
    let limits = ctx.device.limits();
    for (role, buffer, bytes) in &all {
        let slot = contract.slot(*role);
        if layouts.iter().any(|(g, _)| *g == slot.group) {
            binds_within(slot, bound_size(buffer, *bytes), &limits)?;
        }
    }
    // The palette texture, and the adapter's sampler for it; the other textures and samplers.
    let texture = palette.map(|p| (Role::Palette, p.resource()));
    let sampler = (ctx.pipelines.palette_sampler.as_ref())
        .map(|s| (Role::PaletteSampler, wgpu::BindingResource::Sampler(s)));
    let others = (ctx.pipelines.resources.iter()).map(|(r, b)| (*r, b.resource()));
    let handles: Vec<_> = texture.into_iter().chain(sampler).chain(others).collect();
    Ok(layouts
        .iter()
        .map(|(group, layout)| {
            let in_group = |role: &Role| contract.slot(*role).group == *group;
            let entries: Vec<wgpu::BindGroupEntry> = (all.iter())
                .filter(|(role, _, _)| in_group(role))
                .map(|(role, buffer, bytes)| entry(contract.binding(*role), buffer, *bytes))
                .chain((handles.iter()).filter(|(role, _)| in_group(role)).map(
                    |(role, resource)| wgpu::BindGroupEntry {
                        binding: contract.binding(*role),
                        resource: resource.clone(),
                    },
                ))
                .collect();
            let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout,
                entries: &entries,
            });
            (*group, bind)
        })
        .collect())
}

/// Refuses a buffer of `size` bytes at `slot` past the device's largest binding in its space
/// (a uniform's is 64 KiB under WebGPU's defaults: a fixed palette of over 1024 matrices).
fn binds_within(slot: &Slot, size: u64, limits: &wgpu::Limits) -> Result<(), GpuError> {
    let (space, limit, name) = match slot.space {
        Space::Uniform => (
            "uniform",
            limits.max_uniform_buffer_binding_size,
            "max_uniform_buffer_binding_size",
        ),
        Space::Storage { .. } => (
            "storage",
            storage_binding(limits),
            if limits.max_buffer_size < limits.max_storage_buffer_binding_size {
                "max_buffer_size"
            } else {
                "max_storage_buffer_binding_size"
            },
        ),
        Space::Texture | Space::Sampler => return Ok(()),
    };
    over(
        &format!(
            "{} at @group({}) @binding({}){}, a {space} binding (bytes, {name})",
            slot.holds,
            slot.group,
            slot.binding,
            slot.whence()
        ),
        size,
        limit,
    )
}

/// The bytes [`entry`] binds of `buffer` for `bytes` of data.
fn bound_size(buffer: &wgpu::Buffer, bytes: usize) -> u64 {
    // A binding may not be empty; an empty array still gets one element's worth.
    (bytes as u64).max(16).min(buffer.size())
}

/// Binds the first `bytes` of a pooled buffer (which may be larger): the shader sees exactly the
/// data of this case, so `arrayLength` is the vertex or joint count and a uniform is its 16 bytes.
pub(crate) fn entry(binding: u32, buffer: &wgpu::Buffer, bytes: usize) -> wgpu::BindGroupEntry<'_> {
    let size = bound_size(buffer, bytes);
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: wgpu::BufferSize::new(size),
        }),
    }
}

/// `Err(Limit)` when `need` is past `limit`.
fn over(what: &str, need: u64, limit: u64) -> Result<(), GpuError> {
    if need > limit {
        Err(GpuError::Limit {
            what: what.into(),
            need,
            limit,
        })
    } else {
        Ok(())
    }
}

/// The largest storage buffer binding the device takes.
fn storage_binding(limits: &wgpu::Limits) -> u64 {
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

/// Refuses compute work the device cannot take before anything is submitted: the vertex arrays
/// are storage bindings there, and the dispatch has a workgroup count.
pub fn check_limits(ctx: &Context, joints: usize, vertices: usize) -> Result<(), GpuError> {
    let limits = ctx.device.limits();
    let binding = storage_binding(&limits);
    over("the palette (bytes)", joints as u64 * 64, binding)?;
    let contract = ctx.contract();
    // The largest of the vertex buffers, each bound whole.
    let per_vertex = (contract.pulled_all().into_iter())
        .map(|(_, p)| p.stride as u64)
        .chain([16 * contract.influence_sets as u64])
        .max()
        .unwrap_or(16);
    over(
        "the vertex buffers (bytes)",
        vertices as u64 * per_vertex,
        binding,
    )?;
    let threads = contract.workgroup_threads();
    over(
        &format!("the dispatch (workgroups of {threads})"),
        (vertices as u64).div_ceil(threads as u64),
        limits.max_compute_workgroups_per_dimension as u64,
    )
}

/// Refuses a draw the device cannot take: the palette is a storage binding, the vertex data are
/// vertex buffers (no dispatch, so no workgroup count) and the triangles an index buffer.
pub fn check_render_limits(
    ctx: &Context,
    joints: usize,
    vertices: usize,
    indices: usize,
) -> Result<(), GpuError> {
    let limits = ctx.device.limits();
    over(
        "the palette (bytes)",
        joints as u64 * 64,
        storage_binding(&limits),
    )?;
    over(
        "the vertex buffers (bytes)",
        vertices as u64 * 16,
        limits.max_buffer_size,
    )?;
    over(
        "the index buffer (bytes)",
        indices as u64 * 4,
        limits.max_buffer_size,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binding_past_the_device_limit_of_its_space_is_named() {
        let limits = wgpu::Limits::default();
        let slot = |space| Slot {
            role: Role::Palette,
            group: 1,
            binding: 2,
            space,
            ty: crate::contract::Want::FixedMatrices,
            holds: "the palette".into(),
            pipelines: Vec::new(),
            origin: Some("p.profile.yaml:3:1, field `palette`".into()),
        };
        let uniform = limits.max_uniform_buffer_binding_size;
        assert!(binds_within(&slot(Space::Uniform), uniform, &limits).is_ok());
        let msg = binds_within(&slot(Space::Uniform), uniform + 64, &limits)
            .unwrap_err()
            .to_string();
        let want = format!("the palette at @group(1) @binding(2) (the profile's p.profile.yaml:3:1, field `palette`), a uniform binding (bytes, max_uniform_buffer_binding_size) needs {} on this adapter, which allows {uniform}", uniform + 64);
        assert_eq!(msg, want);
        // Storage has its own, larger limit; textures and samplers are not buffers.
        let storage = Space::Storage { writable: false };
        assert!(binds_within(&slot(storage), uniform + 64, &limits).is_ok());
        let past = storage_binding(&limits) + 4;
        let msg = binds_within(&slot(storage), past, &limits)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("a storage binding (bytes, max_storage_buffer_binding_size)"),
            "{msg}"
        );
        assert!(binds_within(&slot(Space::Texture), u64::MAX, &limits).is_ok());
    }

    /// Output words for `vertices` (x, y, z, w) then a guard of `guard` untouched elements.
    fn words(vertices: &[[f32; 4]], guard: usize) -> Vec<u32> {
        let mut w: Vec<u32> = vertices.iter().flatten().map(|v| v.to_bits()).collect();
        w.extend(std::iter::repeat_n(SENTINEL, guard * 4));
        w
    }

    /// [`inspect`] of an output that started as the sentinel (not skinned in place).
    fn fresh(words: &[u32], n: usize, layout: &Output) -> Skinned {
        inspect(words, &vec![SENTINEL; words.len()], n, layout)
    }

    const VEC4: &Output = &Output {
        stride: 4,
        position: 0,
        width: 3,
        encoding: (Encoding::F32, 3),
        w: Some(3),
        point_w: false,
        fields_only: false,
        frames: FrameFields::NONE,
        others: Vec::new(),
        in_place: false,
        source: Vec::new(),
    };

    #[test]
    fn a_contract_output_has_no_fault() {
        let s = fresh(
            &words(&[[1.0, 2.0, 3.0, 0.0], [4.0, 5.0, 6.0, -0.0]], 2),
            2,
            VEC4,
        );
        assert_eq!(s.fault, None);
        assert_eq!(s.positions, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    }

    #[test]
    fn each_fault_is_found() {
        let w1 = fresh(
            &words(&[[1.0, 2.0, 3.0, 0.0], [4.0, 5.0, 6.0, 1.0]], 2),
            2,
            VEC4,
        );
        assert_eq!(w1.fault, Some(Fault::NonZeroW { vertex: 1, w: 1.0 }));
        // A point's output (`compute.skinned.w: 1`): w 1 at every vertex, and 0 is the fault.
        let point = Output {
            point_w: true,
            ..VEC4.clone()
        };
        let ones = words(&[[1.0, 2.0, 3.0, 1.0], [4.0, 5.0, 6.0, 1.0]], 2);
        assert_eq!(fresh(&ones, 2, &point).fault, None);
        // A blend's w: four weights summed in f32, 1 ulp short of 1; 0.999 is no point's w.
        let sum = words(&[[1.0, 2.0, 3.0, 0.99999994], [4.0, 5.0, 6.0, 1.0]], 2);
        assert_eq!(fresh(&sum, 2, &point).fault, None);
        let off = words(&[[1.0, 2.0, 3.0, 1.0], [4.0, 5.0, 6.0, 0.999]], 2);
        assert_eq!(
            fresh(&off, 2, &point).fault,
            Some(Fault::NonZeroW {
                vertex: 1,
                w: 0.999
            })
        );
        let zero = words(&[[1.0, 2.0, 3.0, 1.0], [4.0, 5.0, 6.0, 0.0]], 2);
        assert_eq!(
            fresh(&zero, 2, &point).fault,
            Some(Fault::NonZeroW { vertex: 1, w: 0.0 })
        );
        let s = f32::from_bits(SENTINEL);
        let skipped = fresh(&words(&[[1.0, 2.0, 3.0, 0.0], [s, s, s, s]], 2), 2, VEC4);
        assert_eq!(skipped.fault, Some(Fault::Unwritten(1)));
        let mut past = words(&[[1.0, 2.0, 3.0, 0.0]], 3);
        past[4 * 2] = 0;
        assert_eq!(fresh(&past, 1, VEC4).fault, Some(Fault::WrotePastCount(2)));
        // Tightly packed vec3: a write past the position lands on the next vertex.
        let packed = Output {
            stride: 3,
            position: 0,
            width: 3,
            encoding: (Encoding::F32, 3),
            w: None,
            point_w: false,
            fields_only: true,
            frames: FrameFields::NONE,
            others: Vec::new(),
            in_place: false,
            source: Vec::new(),
        };
        let mut tight: Vec<u32> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].map(f32::to_bits).to_vec();
        tight.extend([SENTINEL; 6]);
        let s = fresh(&tight, 2, &packed);
        assert_eq!((s.fault, s.positions[1]), (None, [4.0, 5.0, 6.0]));
        tight[6] = 0;
        assert_eq!(
            fresh(&tight, 2, &packed).fault,
            Some(Fault::WrotePastCount(2))
        );
        let gap = Output {
            stride: 4,
            ..packed.clone()
        };
        let mut gapped: Vec<u32> = [1.0f32, 2.0, 3.0].map(f32::to_bits).to_vec();
        gapped.extend([0.5f32.to_bits(), SENTINEL, SENTINEL, SENTINEL, SENTINEL]);
        assert_eq!(
            fresh(&gapped, 1, &gap).fault,
            Some(Fault::OutsideFields {
                vertex: 0,
                byte: 12
            })
        );
        // The word after the position as a vec4's w: 1 (a point) or 0, as `vec4(p, 1.0)` writes it.
        for w in [0.0f32, 1.0] {
            gapped[3] = w.to_bits();
            assert_eq!(fresh(&gapped, 1, &gap).fault, None, "w {w}");
        }
        // Position, normal and tangent tightly packed (10 words), a word of padding after them:
        // the frames read back, a field left unwritten or a write to the padding found.
        let frames = Output {
            stride: 11,
            frames: FrameFields {
                normal: Some(12),
                tangent: Some(24),
                ..FrameFields::NONE
            },
            ..packed.clone()
        };
        let vertex = [1.0f32, 2.0, 3.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, -1.0];
        let mut both: Vec<u32> = vertex.map(f32::to_bits).to_vec();
        both.push(SENTINEL);
        both.extend(std::iter::repeat_n(SENTINEL, 11));
        let s = fresh(&both, 1, &frames);
        assert_eq!(s.fault, None);
        assert_eq!(s.normals, Some(Ok(vec![[0.0, 0.0, 1.0, 0.0]])));
        assert_eq!(s.tangents, Some(Ok(vec![[1.0, 0.0, 0.0, -1.0]])));
        let mut no_tangent = both.clone();
        no_tangent[6..10].fill(SENTINEL);
        let s = fresh(&no_tangent, 1, &frames);
        assert_eq!(
            (s.fault, s.tangents),
            (None, Some(Err(Fault::Unwritten(0))))
        );
        let mut padding = both.clone();
        padding[10] = 0;
        assert_eq!(
            fresh(&padding, 1, &frames).fault,
            Some(Fault::OutsideFields {
                vertex: 0,
                byte: 40
            })
        );
        // The same word as an output struct's other member (a texture coordinate copied through):
        // the shader may write it.
        let with_uv = Output {
            others: vec![10],
            ..frames.clone()
        };
        assert_eq!(fresh(&padding, 1, &with_uv).fault, None);
        // Or the source vertex's word at the same place (BSEngine's skinner writes the whole
        // vertex, its other attributes copied through); another value is still outside.
        let mut source = vec![7u32; 11];
        source[10] = 0;
        let copied = Output {
            source,
            ..frames.clone()
        };
        assert_eq!(fresh(&padding, 1, &copied).fault, None);
        let mut other = padding.clone();
        other[10] = 5;
        assert_eq!(
            fresh(&other, 1, &copied).fault,
            Some(Fault::OutsideFields {
                vertex: 0,
                byte: 40
            })
        );
        let mut guard = both;
        guard[11 + 4] = 0;
        let s = fresh(&guard, 1, &frames);
        assert_eq!(s.normals, Some(Err(Fault::WrotePastCount(1))));
        assert_eq!(s.fault, Some(Fault::WrotePastCount(1)));
        // Packed snorm8 (blade's vertex): the normal and the tangent a word each, decoded; the
        // word after the position is the normal's, no vec4's w.
        let snorm8 = Output {
            stride: 5,
            frames: FrameFields {
                normal: Some(12),
                tangent: Some(16),
                tangent_format: crate::format::TangentFormat::Vec3,
                normal_encoding: Encoding::Snorm8,
                tangent_encoding: Encoding::Snorm8,
            },
            ..packed.clone()
        };
        let mut words: Vec<u32> = [1.0f32, 2.0, 3.0].map(f32::to_bits).to_vec();
        words.extend([u32::from_le_bytes([0, 0x81, 0, 0]), 127]);
        words.extend([SENTINEL; 5]);
        let s = fresh(&words, 1, &snorm8);
        assert_eq!(s.fault, None);
        assert_eq!(s.normals, Some(Ok(vec![[0.0, -1.0, 0.0, 0.0]])));
        assert_eq!(s.tangents, Some(Ok(vec![[1.0, 0.0, 0.0, 0.0]])));
        words[4] = SENTINEL;
        let s = fresh(&words, 1, &snorm8);
        assert_eq!(s.tangents, Some(Err(Fault::Unwritten(0))));
        // Skinned in place: the words before the dispatch are the source and a finite guard, so
        // a vertex left as it was is not told from one written, a word outside the fields must
        // keep its source, and the guard must keep its value.
        let in_place = Output {
            stride: 4,
            in_place: true,
            source: Vec::new(),
            ..packed.clone()
        };
        let mut source: Vec<u32> = [1.0f32, 2.0, 3.0, 7.0, 4.0, 5.0, 6.0, 8.0]
            .map(f32::to_bits)
            .to_vec();
        source.extend([GUARD_SOURCE; 4]);
        let mut after = source.clone();
        after[0] = 9.0f32.to_bits();
        let s = inspect(&after, &source, 2, &in_place);
        assert_eq!(
            (s.fault, s.positions),
            (None, vec![[9.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        );
        after[7] = 0.5f32.to_bits();
        assert_eq!(
            inspect(&after, &source, 2, &in_place).fault,
            Some(Fault::OutsideFields {
                vertex: 1,
                byte: 12
            })
        );
        after[7] = source[7];
        after[8] = SENTINEL;
        assert_eq!(
            inspect(&after, &source, 2, &in_place).fault,
            Some(Fault::WrotePastCount(2))
        );
        // Normals of their own written in place, tightly packed: a direction read back as
        // written, a word of the next vertex's source overwritten caught as past the count.
        let stream = Output::of_stream(
            crate::contract::Stream {
                stride: 12,
                offset: 0,
                words: 3,
                byte_addressed: true,
                encoding: Default::default(),
            },
            true,
        );
        let mut source: Vec<u32> = [0.0f32, 0.0, 1.0].map(f32::to_bits).to_vec();
        source.extend([GUARD_SOURCE; 3]);
        let mut after = source.clone();
        after[..3].copy_from_slice(&[0.0f32, 1.0, 0.0].map(f32::to_bits));
        assert_eq!(
            inspect_frames(&after, &source, 1, &stream),
            Ok(vec![[0.0, 1.0, 0.0, 0.0]])
        );
        after[3] = 0;
        assert_eq!(
            inspect_frames(&after, &source, 1, &stream),
            Err(Fault::WrotePastCount(1))
        );
        let text = Fault::NonZeroW { vertex: 1, w: 1.0 }.to_string();
        assert!(
            text.contains("vertex 1") && text.contains("vec4(skinned, 0)"),
            "{text}"
        );
    }
}
