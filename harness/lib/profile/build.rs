//! The contract a valid profile describes: its slots, its buffers' layouts and where each field
//! of them was given.

use super::*;

/// A layout's joints and weights, one offset per influence set, each named `joints` (or
/// `joints[k]` of several sets) as [`crate::format::Pulled::fields`] names them.
fn influence_offsets(named: &mut Named, what: &str, places: &Offsets) -> Vec<u32> {
    let many = places.0.len() > 1;
    (places.0.iter().enumerate())
        .map(|(k, p)| match many {
            true => named.byte(&format!("{what}[{k}]"), p),
            false => named.byte(what, p),
        })
        .collect()
}

impl Vertices {
    /// The layout the harness packs the buffer in (a named member at byte 0 until the shader
    /// places it).
    pub fn layout(&self) -> crate::format::Pulled {
        let mut named = Named::default();
        let offsets = |named: &mut Named, what: &str, field: Option<&Offsets>| {
            field.map_or_else(Vec::new, |o| influence_offsets(named, what, o))
        };
        crate::format::Pulled {
            stride: named.stride(self.stride),
            position: self.position.as_ref().map(|p| named.byte("position", p)),
            position_w: Default::default(),
            frames: crate::format::FrameFields {
                normal: named.maybe("normal", &self.normal),
                tangent: named.maybe("tangent", &self.tangent),
                tangent_format: self.tangent_format,
                normal_encoding: self.normal_encoding,
                tangent_encoding: self.tangent_encoding,
            },
            joints: offsets(
                &mut named,
                "joints",
                self.joints.as_ref().map(|j| &j.offset),
            ),
            joint_format: self.joints.as_ref().map(|j| j.format).unwrap_or_default(),
            weight_offsets: offsets(
                &mut named,
                "weights",
                self.weights.as_ref().map(|w| &w.offset),
            ),
            weights: self.weights.as_ref().map(|w| w.format).unwrap_or_default(),
            members: named.0,
        }
    }
}

impl Influences {
    /// The layout the harness packs the buffer in: joints and weights alone.
    pub fn layout(&self) -> crate::format::Pulled {
        let mut named = Named::default();
        crate::format::Pulled {
            stride: named.stride(self.stride),
            position: None,
            position_w: Default::default(),
            frames: crate::format::FrameFields::default(),
            joints: influence_offsets(&mut named, "joints", &self.joints.offset),
            joint_format: self.joints.format,
            weight_offsets: influence_offsets(&mut named, "weights", &self.weights.offset),
            weights: self.weights.format,
            members: named.0,
        }
    }
}

impl Regions {
    /// Each stream the pool holds, in the profile's order, with the member that holds its start.
    pub fn starts(&self) -> Vec<(crate::regions::Stream, &str)> {
        use crate::regions::Stream;
        let mut out = vec![(Stream::Position, self.position.start.as_str())];
        out.extend(
            self.normal
                .as_ref()
                .map(|r| (Stream::Normal, r.start.as_str())),
        );
        out.extend(
            self.tangent
                .as_ref()
                .map(|r| (Stream::Tangent, r.start.as_str())),
        );
        out.push((Stream::Joints, &self.joints.start));
        out.push((Stream::Weights, &self.weights.start));
        out.push((Stream::SkinnedPosition, &self.skinned_position.start));
        let normal = self.skinned_normal.as_ref();
        out.extend(normal.map(|r| (Stream::SkinnedNormal, r.start.as_str())));
        let tangent = self.skinned_tangent.as_ref();
        out.extend(tangent.map(|r| (Stream::SkinnedTangent, r.start.as_str())));
        out
    }

    /// The floats of a position or normal (vec3 unless given), of a tangent (vec4 unless
    /// given), a skinned one's its source's unless it gives its own.
    fn floats(&self) -> [(crate::regions::Stream, Option<u32>); 6] {
        use crate::regions::Stream;
        let position = |f: Option<PositionFormat>| match f {
            Some(PositionFormat::Vec4) => 4,
            _ => 3,
        };
        let normal = self.normal.as_ref().map(|r| position(r.format));
        let tangent = (self.tangent.as_ref()).map(|r| r.format.unwrap_or_default().words());
        let skinned_normal = (self.skinned_normal.as_ref())
            .map(|r| r.format.map_or(normal.unwrap_or(3), |f| position(Some(f))));
        let skinned_tangent = (self.skinned_tangent.as_ref())
            .map(|r| r.format.map_or(tangent.unwrap_or(4), |f| f.words()));
        let source = position(self.position.format);
        [
            (Stream::Position, Some(source)),
            (Stream::Normal, normal),
            (Stream::Tangent, tangent),
            (
                Stream::SkinnedPosition,
                Some(
                    self.skinned_position
                        .format
                        .map_or(source, |f| position(Some(f))),
                ),
            ),
            (Stream::SkinnedNormal, skinned_normal),
            (Stream::SkinnedTangent, skinned_tangent),
        ]
    }

    /// The pool the harness packs, each vertex's `sets` influence sets one after another.
    pub fn layout(&self, sets: usize) -> crate::regions::Regions {
        use crate::regions::Stream;
        let joints = self.joints.format.unwrap_or_default();
        let weights = self.weights.format.unwrap_or_default();
        let floats = self.floats();
        let size = |stream: Stream| match stream {
            Stream::Joints => (joints.bytes_per_vertex() * sets) as u32,
            Stream::Weights => (weights.bytes_per_vertex() * sets) as u32,
            other => {
                4 * floats
                    .iter()
                    .find(|(s, _)| *s == other)
                    .and_then(|(_, n)| *n)
                    .unwrap_or(3)
            }
        };
        crate::regions::Regions {
            streams: (self.starts().into_iter())
                .map(|(stream, _)| (stream, size(stream)))
                .collect(),
            joints,
            weights,
            in_words: self.unit == StartUnit::Words,
        }
    }
}

impl Profile {
    /// Where the profile gives each field of its byte-addressed buffers, by its full name.
    fn field_places(&self) -> Vec<(String, String)> {
        // Each buffer: (its name, whether it holds a position, a normal, a tangent, joints,
        // weights).
        let mut given = Vec::new();
        let compute = self.compute.as_ref();
        let vertices = |v: &Vertices| {
            (
                v.position.is_some(),
                v.normal.is_some(),
                v.tangent.is_some(),
                v.joints.is_some(),
                v.weights.is_some(),
            )
        };
        if let Some(v) = compute.and_then(|k| k.vertices.as_ref()) {
            given.push(("compute.vertices", vertices(v)));
        }
        if compute.is_some_and(|k| k.influences.is_some()) {
            given.push(("compute.influences", (false, false, false, true, true)));
        }
        if let Some(v) = self.vertex.as_ref().and_then(|v| v.vertices.as_ref()) {
            given.push(("vertex.vertices", vertices(v)));
        }
        if self.vertex.as_ref().is_some_and(|v| v.influences.is_some()) {
            given.push(("vertex.influences", (false, false, false, true, true)));
        }
        let streams = self
            .vertex
            .iter()
            .flat_map(|v| v.streams.iter().enumerate());
        let streams: Vec<(String, &Vertices)> = streams
            .map(|(i, s)| (format!("vertex.streams[{i}]"), s))
            .collect();
        for (at, s) in &streams {
            given.push((at.as_str(), vertices(s)));
        }
        if let Some(o) = compute.and_then(|k| k.output.as_ref()) {
            let frames = (o.normal.is_some(), o.tangent.is_some());
            given.push(("compute.output", (true, frames.0, frames.1, false, false)));
        }
        let mut out = Vec::new();
        for (what, (position, normal, tangent, joints, weights)) in given {
            let keys = [
                ("stride", true),
                ("position", position),
                ("normal", normal),
                ("tangent", tangent),
                ("joints", joints),
                ("weights", weights),
            ];
            for (key, _) in keys.into_iter().filter(|k| k.1) {
                let field = format!("{what}.{key}");
                out.push((field.clone(), self.whence(&field)));
            }
        }
        out
    }

    /// `file:line:column, field `path``: where the profile writes `field`, for messages.
    fn whence(&self, field: &str) -> String {
        let (line, column) = yaml_line::place_near(&self.source, field).unwrap_or((1, 1));
        format!("{}:{line}:{column}, field `{field}`", self.path.display())
    }

    /// The values by member name the profile gives at `field` (`palette.members`), each with
    /// where it is written, for messages.
    fn member_values(
        &self,
        members: &BTreeMap<String, Numbers>,
        field: &str,
    ) -> Vec<crate::contract::MemberValue> {
        (members.iter())
            .map(|(name, v)| crate::contract::MemberValue {
                name: name.clone(),
                values: v.0.clone(),
                origin: self.whence(&format!("{field}.{name}")),
            })
            .collect()
    }

    /// The compute stage's bindings: (role, slot, space, type, what it holds, field).
    fn compute_slots(
        &self,
        k: &Compute,
    ) -> Vec<(Role, Slot, Space, Want, &'static str, &'static str)> {
        let read = Space::Storage { writable: false };
        let mut out = Vec::new();
        if let Some(p) = k.positions {
            // Either element type reads them (the same 16-byte stride, w unused).
            out.push((
                Role::Positions,
                p.slot(),
                read,
                Want::Positions,
                "source positions",
                "compute.positions",
            ));
        }
        if let Some(j) = k.joints {
            let ty = match j.format {
                JointFormat::U16x4 => Want::PackedJoints,
                JointFormat::F32x4 => Want::Flat(Elem::Vec4F32),
                JointFormat::I32x4 => Want::Flat(Elem::Vec4I32),
                _ => Want::Flat(Elem::Vec4U32),
            };
            out.push((
                Role::Joints,
                j.slot(),
                read,
                ty,
                "joint indices",
                "compute.joints",
            ));
        }
        if let Some(w) = k.weights {
            out.push((
                Role::Weights,
                w.slot(),
                read,
                Want::Flat(Elem::Vec4F32),
                "weights",
                "compute.weights",
            ));
        }
        if let Some(v) = &k.vertices {
            out.push((
                Role::Positions,
                v.slot(),
                read,
                Want::Words,
                "the byte-addressed vertices",
                "compute.vertices",
            ));
        }
        if let Some(i) = &k.influences {
            out.push((
                Role::Joints,
                i.slot(),
                read,
                Want::Words,
                "the byte-addressed joints and weights",
                "compute.influences",
            ));
        }
        let write = Space::Storage { writable: true };
        if let Some(o) = k.skinned {
            // The output is what the profile says, since the harness checks its w.
            let ty = Want::Array(match o.format {
                PositionFormat::Vec3 => Elem::Vec3F32,
                PositionFormat::Vec4 => Elem::Vec4F32,
            });
            out.push((
                Role::Skinned,
                o.slot(),
                write,
                ty,
                "skinned positions",
                "compute.skinned",
            ));
        }
        if let Some(o) = &k.output {
            out.push((
                Role::Skinned,
                o.slot(),
                write,
                Want::OutputWords,
                "the byte-addressed output",
                "compute.output",
            ));
        }
        if let Some(r) = &k.regions {
            // The shader reads its sources and writes its outputs in the one buffer.
            out.push((
                Role::Positions,
                Slot {
                    group: r.group,
                    binding: r.binding,
                },
                write,
                Want::OutputWords,
                "the vertex pool",
                "compute.regions",
            ));
        }
        if let Some(count) = k.count {
            out.push((
                Role::Count,
                count,
                Space::Uniform,
                Want::Count,
                "the vertex count",
                "compute.count",
            ));
        }
        out
    }

    /// The contract this profile describes: the built-in one with each role moved where the
    /// profile puts it. The workgroup size and a uniform palette's length are the shader's, read
    /// by naga when the shader is loaded.
    pub fn contract(&self) -> Contract {
        let mut c = Contract::builtin();
        let mut slots = self.palette_contract(&mut c);
        if let Some(k) = &self.compute {
            slots.extend(self.compute_contract(k, &mut c));
        }
        c.vertex_inputs.clear();
        if let Some(v) = &self.vertex {
            slots.extend(self.vertex_contract(v, &mut c));
        }
        slots.extend(self.filled_contract(&mut c));
        let (compute, vertex) = (self.compute.as_ref(), self.vertex.as_ref());
        c.slots = slots;
        c.compute = compute.map(|k| k.entry.clone());
        c.vertex = vertex.map(|v| v.entry.clone());
        c.fragment = vertex.and_then(|v| v.fragment.clone());
        let mut entries = Vec::new();
        if let Some(k) = compute {
            entries.push((k.entry.clone(), self.whence("compute.entry")));
        }
        if let Some(v) = vertex {
            entries.push((v.entry.clone(), self.whence("vertex.entry")));
            if let Some(f) = &v.fragment {
                entries.push((f.clone(), self.whence("vertex.fragment")));
            }
        }
        c.influence_sets = self.sets();
        c.lanes = self.lanes();
        c.last_weight = self.last_weight.unwrap_or_default();
        if let Some(i) = &self.immediates {
            c.immediates.fill = i.fill;
            c.immediates.origin = self.whence("immediates");
            c.immediates.members = self.member_values(&i.members, "immediates.members");
            let member = |name: &Option<String>, field: &str| {
                (name.clone())
                    .map(|name| crate::contract::CaseMember::named(name, self.whence(field)))
            };
            c.immediates.count = member(&i.count, "immediates.count");
            c.immediates.joints = member(&i.joint_count, "immediates.joint_count");
            c.immediates.texture_width = member(&i.texture_width, "immediates.texture_width");
        }
        // A palette that holds each joint's normal matrix is there to be blended per joint.
        c.frame_length = self.frame_length.unwrap_or_default();
        c.tangent_length = self.tangent_length.unwrap_or(c.frame_length);
        c.tangent_frame = self.tangent_frame.unwrap_or_default();
        c.position_w = self.position_w.unwrap_or_default();
        if let Some(p) = c.pulled.as_mut() {
            p.position_w = c.position_w;
        }
        c.normal_matrix = self.normal_matrix.unwrap_or(
            match self.palette.normal_member.is_some() || self.palette.normal_texels.is_some() {
                true => crate::format::NormalMatrix::PerJoint,
                false => Default::default(),
            },
        );
        c.constants = (self.constants.iter())
            .map(|(k, v)| (k.clone(), v.value()))
            .collect();
        c.profile = Some(Origin {
            path: self.path.display().to_string(),
            entries,
            sets: (self.influence_sets.map(|_| self.whence("influence_sets")))
                .or_else(|| self.pair_count().map(|_| self.whence("vertex.pairs"))),
            lanes: (self.max_influences.map(|_| self.whence("max_influences")))
                .or_else(|| self.pair_count().map(|_| self.whence("vertex.pairs"))),
            constants: (self.constants.keys())
                .map(|k| (k.clone(), self.whence(&format!("constants.{k}"))))
                .collect(),
            fields: self.field_places(),
        });
        c
    }

    /// The palette's slots (with its inverse binds, sampler and offset where given), and its form
    /// into `c`.
    fn palette_contract(&self, c: &mut Contract) -> Vec<crate::contract::Slot> {
        let read = Space::Storage { writable: false };
        let p = &self.palette;
        let (palette_space, palette_ty) = match p.form {
            PaletteForm::Storage => (read, Want::Array(Elem::Mat4F32)),
            PaletteForm::Uniform => (Space::Uniform, Want::FixedMatrices),
            PaletteForm::Texture => (Space::Texture, Want::Texture),
        };
        c.palette_texture =
            (p.form == PaletteForm::Texture).then(|| crate::contract::PaletteTexture {
                texels: p.texels.unwrap_or(4),
                affine: p.matrix.affine(),
                normal_texels: p.normal_texels.unwrap_or(0),
                width: p
                    .width
                    .map_or(crate::contract::TextureWidth::Square, |w| w.0),
            });
        c.palette_member = p.member.clone().map(|m| self.member(m, "palette.member"));
        c.palette_element = crate::contract::PaletteElement {
            rows: p.matrix != MatrixForm::Columns,
            member: (p.element_member.clone()).map(|m| self.member(m, "palette.element_member")),
            stride: if p.matrix == MatrixForm::Columns {
                64
            } else {
                48
            },
            affine: p.matrix.affine(),
            normal: (p.normal_member.clone())
                .filter(|_| !p.parallel_normals())
                .map(|m| self.member(m, "palette.normal_member")),
            ..Default::default()
        };
        c.palette_normals = (p.normal_member.clone())
            .filter(|_| p.parallel_normals())
            .map(|m| {
                crate::contract::ParallelNormals::new(self.member(m, "palette.normal_member"))
            });
        c.palette_fill = p.fill;
        c.palette_members = self.member_values(&p.members, "palette.members");
        c.palette_joint_count = (p.joint_count.clone()).map(|name| {
            crate::contract::CaseMember::named(name, self.whence("palette.joint_count"))
        });
        let mut slots = vec![self.slot(
            Role::Palette,
            (p.group, p.binding),
            (palette_space, palette_ty),
            if p.inverse_binds.is_some() {
                "the joints' global matrices"
            } else {
                "the palette"
            },
            self.stages(),
            "palette",
        )];
        // The palette's companions, each where the profile gives it.
        let companions = [
            (
                p.inverse_binds,
                Role::InverseBinds,
                (palette_space, palette_ty),
                "the inverse binds",
                "palette.inverse_binds",
            ),
            (
                p.sampler,
                Role::PaletteSampler,
                (Space::Sampler, Want::Sampler),
                "the palette texture's sampler",
                "palette.sampler",
            ),
            (
                p.offset,
                Role::PaletteOffset,
                (Space::Uniform, Want::FirstU32),
                "the palette's base offset",
                "palette.offset",
            ),
        ];
        for (at, role, ty, holds, field) in companions {
            if let Some(s) = at {
                slots.push(self.slot(role, (s.group, s.binding), ty, holds, self.stages(), field));
            }
        }
        slots
    }

    /// The compute stage's slots, and its formats, streams and layouts into `c`.
    fn compute_contract(&self, k: &Compute, c: &mut Contract) -> Vec<crate::contract::Slot> {
        let mut slots = Vec::new();
        for (role, b, space, ty, holds, field) in self.compute_slots(k) {
            slots.push(self.slot(
                role,
                (b.group, b.binding),
                (space, ty),
                holds,
                vec![Pipeline::Compute],
                field,
            ));
        }
        slots.extend(self.compute_frames(k));
        let streams = &mut c.streams;
        if let Some(f) = &k.normals {
            streams.normals = f.normal_stream();
        }
        if let Some(f) = &k.tangents {
            streams.tangents = f.tangent_stream();
        }
        let (skinned_normals, skinned_tangents) = k.skinned_frames();
        if let Some(f) = &skinned_normals {
            streams.skinned_normals = f.normal_stream();
        }
        if let Some(f) = &skinned_tangents {
            streams.skinned_tangents = f.tangent_stream();
        }
        if let Some(j) = k.joints {
            c.formats.joints = j.format;
        }
        if let Some(p) = k.positions {
            c.formats.positions = p.format;
        }
        if let Some(p) = k.skinned {
            c.formats.skinned = p.format;
            c.point_output = p.w == Some(1);
        }
        if let Some(j) = k.vertices.as_ref().and_then(|v| v.joints.as_ref()) {
            c.formats.joints = j.format;
        }
        if let Some(i) = &k.influences {
            c.formats.joints = i.joints.format;
            c.influences = Some(i.layout());
        }
        if let Some(r) = &k.regions {
            let layout = r.layout(self.sets());
            c.formats.joints = layout.joints;
            c.regions = Some(layout);
        }
        c.pulled = k.vertices.as_ref().map(Vertices::layout);
        c.packed = k.output.as_ref().map(Output::layout);
        slots
    }

    /// The vertex stage's slots (its camera, its pulled vertices), and its inputs, outputs and
    /// functions into `c`.
    fn vertex_contract(&self, v: &Vertex, c: &mut Contract) -> Vec<crate::contract::Slot> {
        let p = &self.palette;
        let mut slots = Vec::new();
        let (camera, holds) = match v.camera.form {
            CameraForm::View => (Want::View, "the 2D view"),
            CameraForm::Matrix => (Want::Matrix, "the camera's view-projection"),
        };
        // A camera in the palette's struct is written with the palette, into its buffer.
        if !v.camera.in_palette(p) {
            slots.push(self.slot(
                Role::View,
                (v.camera.group, v.camera.binding),
                (Space::Uniform, camera),
                holds,
                vec![Pipeline::Render],
                "vertex.camera",
            ));
        }
        c.camera_fill = v.camera.fill;
        c.camera_members = self.member_values(&v.camera.members, "vertex.camera.members");
        c.camera_in_palette = v.camera.in_palette(p);
        c.clip_z = v.camera.clip_z;
        c.clip_y = v.camera.clip_y;
        c.camera_rows = v.camera.matrix == MatrixForm::Rows;
        c.camera_member = (v.camera.member.clone()).map(|m| self.member(m, "vertex.camera.member"));
        let input = |role, ty, also, format, location, field: &str| {
            crate::contract::VertexInput::new(
                role,
                (ty, also),
                format,
                location,
                Some(self.whence(field)),
            )
        };
        if let Some(p) = &v.position {
            // A planar position is taken as its two floats alone.
            let (ty, also) = match p.format {
                AttributePosition::Vec2 => (Elem::Attribute(p.format.vertex_format()), None),
                _ => (Elem::Vec3F32, Some(Elem::Vec4F32)),
            };
            c.vertex_inputs = vec![input(
                Role::Positions,
                ty,
                also,
                p.format.vertex_format(),
                p.location,
                "vertex.position",
            )];
        }
        if let (Some(_), Some(j), Some(w)) = (&v.position, &v.joints, &v.weights) {
            let per_set = [
                (
                    Role::Joints,
                    j.format.elem().lanes(self.lanes()),
                    j.format.vertex_format(),
                    &j.location,
                    "vertex.joints",
                ),
                (
                    Role::Weights,
                    Elem::Vec4F32.lanes(self.last_weight.unwrap_or_default().read(self.lanes())),
                    w.format.vertex_format(),
                    &w.location,
                    "vertex.weights",
                ),
            ];
            for set in 0..self.sets() {
                for (role, ty, format, places, field) in per_set {
                    let mut i = input(role, ty, None, format, places.0[set], field);
                    i.set = set;
                    c.vertex_inputs.push(i);
                }
            }
            c.formats.vertex_joints = j.format;
            c.formats.vertex_weights = w.format;
        }
        if let (Some(_), Some(pairs)) = (&v.position, &v.pairs) {
            // Influence i in its own attribute: lane i % 4 of set i / 4, its joint as a float;
            // two a `vec4<f32>`, from lane i % 4 (0 or 2) on.
            let pair = pairs.format.vertex_format();
            let held = pairs.format.influences();
            for (k, &location) in pairs.location.0.iter().enumerate() {
                let ty = Elem::Attribute(pair);
                let mut at = input(Role::Joints, ty, None, pair, location, "vertex.pairs");
                let i = k * held;
                (at.set, at.pair) = (i / 4, Some(i % 4));
                c.vertex_inputs.push(at);
            }
            c.formats.vertex_joints = JointFormat::F32x4;
            c.formats.vertex_weights = WeightFormat::F32x4;
        }
        if let Some(pulled) = &v.vertices {
            // The stage's vertices in one storage buffer, as a compute stage pulls them.
            slots.push(self.slot(
                Role::Positions,
                (pulled.group, pulled.binding),
                (Space::Storage { writable: false }, Want::Words),
                "the byte-addressed vertices",
                vec![Pipeline::Render],
                "vertex.vertices",
            ));
            c.pulled = Some(pulled.layout());
            let layout = pulled.layout();
            c.formats.vertex_joints = layout.joint_format;
            c.formats.vertex_weights = layout.weights;
        }
        for (i, s) in v.streams.iter().enumerate() {
            // Each of the stage's buffers, bound as the role of the first field it holds.
            let layout = s.layout();
            let role = [
                (Role::Positions, layout.position.is_some()),
                (Role::Joints, !layout.joints.is_empty()),
                (Role::Weights, !layout.weight_offsets.is_empty()),
                (Role::Normals, layout.frames.normal.is_some()),
                (Role::Tangents, layout.frames.tangent.is_some()),
            ]
            .into_iter()
            .find_map(|(r, holds)| holds.then_some(r))
            .unwrap_or(Role::Positions);
            slots.push(self.slot(
                role,
                (s.group, s.binding),
                (Space::Storage { writable: false }, Want::Words),
                "a byte-addressed vertex stream",
                vec![Pipeline::Render],
                &format!("vertex.streams[{i}]"),
            ));
            if !layout.joints.is_empty() {
                c.formats.vertex_joints = layout.joint_format;
            }
            if !layout.weight_offsets.is_empty() {
                c.formats.vertex_weights = layout.weights;
            }
            match role {
                Role::Positions => c.pulled = Some(layout),
                Role::Joints => c.influences = Some(layout),
                _ => c.pulled_more.push((role, layout)),
            }
        }
        if let Some(i) = &v.influences {
            // The joints and weights in a storage buffer of their own, read by vertex index.
            slots.push(self.slot(
                Role::Joints,
                (i.group, i.binding),
                (Space::Storage { writable: false }, Want::Words),
                "the byte-addressed joints and weights",
                vec![Pipeline::Render],
                "vertex.influences",
            ));
            let layout = i.layout();
            c.formats.vertex_joints = layout.joint_format;
            c.formats.vertex_weights = layout.weights;
            c.influences = Some(layout);
        }
        let (inputs, outputs) = self.vertex_frames(v);
        c.vertex_inputs.extend(inputs);
        c.input_values = (v.inputs.iter())
            .map(|(&location, n)| crate::contract::InputValue {
                location,
                values: n.0.clone(),
                origin: self.whence(&format!("vertex.inputs.{location}")),
            })
            .collect();
        c.vertex_outputs = outputs;
        c.tint = v.colour == Colour::Tint;
        c.skin_function = v.skin_function.clone();
        c.frame_functions = crate::contract::FrameFunctions {
            normal: v.normal_function.clone(),
            tangent: v.tangent_function.clone(),
        };
        slots
    }

    /// The slots of the buffers the harness fills (`bindings`), and what it writes into them
    /// into `c`.
    fn filled_contract(&self, c: &mut Contract) -> Vec<crate::contract::Slot> {
        let mut slots = Vec::new();
        for (i, b) in self.bindings.iter().enumerate() {
            let role = Role::Filled(i as u32);
            // The space and size come from the shader, once it is read.
            slots.push(self.slot(
                role,
                (b.group, b.binding),
                (Space::Uniform, Want::Filled),
                "a buffer the harness fills",
                vec![Pipeline::Compute, Pipeline::Render],
                &format!("bindings[{i}]"),
            ));
            let mut members = self.member_values(&b.members, &format!("bindings[{i}].members"));
            if let Some(name) = &b.palette_offset {
                members.push(crate::contract::MemberValue {
                    name: name.clone(),
                    values: vec![crate::contract::PALETTE_OFFSET as f64],
                    origin: self.whence(&format!("bindings[{i}].palette_offset")),
                });
                c.offset_in_filled = true;
            }
            // The members written for each case.
            let member = |name: &Option<String>, field: &str| {
                (name.clone()).map(|name| {
                    let origin = self.whence(&format!("bindings[{i}].{field}"));
                    crate::contract::CaseMember::named(name, origin)
                })
            };
            // The vertex pool's starts, where this is the binding that holds them.
            let regions = (self.compute.as_ref())
                .and_then(|k| k.regions.as_ref())
                .filter(|r| (r.starts.group, r.starts.binding) == (b.group, b.binding));
            let starts = regions.map_or_else(Vec::new, |r| {
                (r.starts().into_iter())
                    .map(|(stream, name)| {
                        let field = format!("compute.regions.{}.start", stream.name());
                        let member = crate::contract::CaseMember::named(
                            name.to_string(),
                            self.whence(&field),
                        );
                        (stream, member)
                    })
                    .collect()
            });
            c.filled.push(crate::contract::Filled {
                role,
                fill: b.fill,
                floats: b.floats.clone(),
                members,
                count: member(&b.count, "count"),
                joints: member(&b.joint_count, "joint_count"),
                texture_width: member(&b.texture_width, "texture_width"),
                starts,
                bytes: Vec::new(),
                problems: Vec::new(),
            });
        }
        slots
    }

    /// A slot the profile gives at `field`: `role` at (group, binding), of this space and type.
    fn slot(
        &self,
        role: Role,
        (group, binding): (u32, u32),
        (space, ty): (Space, Want),
        holds: &str,
        pipelines: Vec<Pipeline>,
        field: &str,
    ) -> crate::contract::Slot {
        crate::contract::Slot {
            role,
            group,
            binding,
            space,
            ty,
            holds: holds.into(),
            pipelines,
            origin: Some(self.whence(field)),
        }
    }

    /// The pipelines of the stages the profile has: where a binding both stages share is bound.
    fn stages(&self) -> Vec<Pipeline> {
        let compute = self.compute.is_some().then_some(Pipeline::Compute);
        let render = self.vertex.is_some().then_some(Pipeline::Render);
        compute.into_iter().chain(render).collect()
    }

    /// A struct member the profile names at `field`.
    fn member(&self, name: String, field: &str) -> crate::contract::Member {
        crate::contract::Member {
            name,
            offset: 0,
            origin: Some(self.whence(field)),
        }
    }
}

impl Profile {
    /// The compute stage's normal and tangent bindings, those the profile gives.
    fn compute_frames(&self, k: &Compute) -> Vec<crate::contract::Slot> {
        let read = Space::Storage { writable: false };
        let write = Space::Storage { writable: true };
        // A typed array's type, or byte-addressed words.
        let ty = |stride: Option<u32>, typed: Want| match stride {
            Some(_) => Want::OutputWords,
            None => typed,
        };
        let tangents = |f: &Frames<TangentFormat>| match f.tangent_format() {
            TangentFormat::Vec4 => ty(f.stride, Want::Array(Elem::Vec4F32)),
            TangentFormat::Vec3 => ty(f.stride, Want::Positions),
        };
        let at = |f: Option<&Frames<PositionFormat>>| {
            f.map(|f| (f.slot(), ty(f.stride, Want::Positions)))
        };
        let at_tangents = |f: Option<&Frames<TangentFormat>>| f.map(|f| (f.slot(), tangents(f)));
        let (skinned_normals, skinned_tangents) = k.skinned_frames();
        let given = [
            (
                Role::Normals,
                at(k.normals.as_ref()),
                read,
                "source normals",
                "compute.normals",
            ),
            (
                Role::Tangents,
                at_tangents(k.tangents.as_ref()),
                read,
                "source tangents",
                "compute.tangents",
            ),
            (
                Role::SkinnedNormals,
                at(skinned_normals.as_ref()),
                write,
                "skinned normals",
                "compute.skinned_normals",
            ),
            (
                Role::SkinnedTangents,
                at_tangents(skinned_tangents.as_ref()),
                write,
                "skinned tangents",
                "compute.skinned_tangents",
            ),
        ];
        given
            .into_iter()
            .filter_map(|(role, given, space, holds, field)| {
                let (s, ty) = given?;
                Some(crate::contract::Slot {
                    role,
                    group: s.group,
                    binding: s.binding,
                    space,
                    ty,
                    holds: holds.into(),
                    pipelines: vec![Pipeline::Compute],
                    origin: Some(self.whence(field)),
                })
            })
            .collect()
    }

    /// The vertex stage's normal and tangent attributes and outputs, those the profile gives.
    fn vertex_frames(
        &self,
        v: &Vertex,
    ) -> (
        Vec<crate::contract::VertexInput>,
        Vec<crate::contract::VertexOutput>,
    ) {
        use crate::contract::{VertexInput, VertexOutput};
        use crate::format::TangentFormat;
        // Tangents as the attribute holds them: a vec3 has no handedness.
        let (tangent_ty, tangent_format) = match v.tangent.map(|t| t.format) {
            Some(TangentFormat::Vec3) => (Elem::Vec3F32, wgpu::VertexFormat::Float32x3),
            _ => (Elem::Vec4F32, wgpu::VertexFormat::Float32x4),
        };
        let (normal_ty, normal_format) = match v.normal.and_then(|n| n.format) {
            Some(PositionFormat::Vec4) => (Elem::Vec4F32, wgpu::VertexFormat::Float32x4),
            _ => (Elem::Vec3F32, wgpu::VertexFormat::Float32x3),
        };
        let mut inputs = Vec::new();
        for (role, at, ty, format, field) in [
            (
                Role::Normals,
                v.normal.map(|n| Location {
                    location: n.location,
                }),
                normal_ty,
                normal_format,
                "vertex.normal",
            ),
            (
                Role::Tangents,
                v.tangent.map(|t| Location {
                    location: t.location,
                }),
                tangent_ty,
                tangent_format,
                "vertex.tangent",
            ),
        ] {
            if let Some(l) = at {
                let whence = Some(self.whence(field));
                let mut input = VertexInput::new(role, (ty, None), format, l.location, whence);
                // The mesh's tangents are four floats a vertex; a vec3 attribute reads the first
                // three.
                if role == Role::Tangents {
                    input.stride = 16;
                }
                inputs.push(input);
            }
        }
        let mut outputs = Vec::new();
        // The skinned tangent in the source's type, or its direction alone where it says so.
        let source = (v.tangent.map(|t| t.format)).or(v.pulled_tangent_format());
        let skinned_tangent_ty = match v.skinned_tangent.and_then(|t| t.format).or(source) {
            Some(TangentFormat::Vec3) => Elem::Vec3F32,
            _ => Elem::Vec4F32,
        };
        for (role, at, ty, field) in [
            (
                Role::SkinnedNormals,
                v.skinned_normal,
                Elem::Vec3F32,
                "vertex.skinned_normal",
            ),
            (
                Role::SkinnedTangents,
                v.skinned_tangent.map(|t| Location {
                    location: t.location,
                }),
                skinned_tangent_ty,
                "vertex.skinned_tangent",
            ),
        ] {
            if let Some(l) = at {
                outputs.push(VertexOutput {
                    role,
                    location: l.location,
                    ty,
                    origin: Some(self.whence(field)),
                });
            }
        }
        (inputs, outputs)
    }
}
