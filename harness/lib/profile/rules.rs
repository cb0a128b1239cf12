//! The profile's rules: each one a located error (the field, the message) for a profile that
//! cannot describe a shader.

use super::*;

impl Profile {
    /// The rules of a palette texture's fields: only with `form: texture`, and nothing a
    /// texture cannot hold (a split palette, an offset, a struct).
    fn check_texture(&self) -> Result<(), (String, String)> {
        let p = &self.palette;
        let texture = p.form == PaletteForm::Texture;
        let fields = [
            ("texels", p.texels.is_some()),
            ("normal_texels", p.normal_texels.is_some()),
            ("width", p.width.is_some()),
            ("sampler", p.sampler.is_some()),
        ];
        for (field, given) in fields {
            if given && !texture {
                return Err((
                    format!("palette.{field}"),
                    "is for a palette texture: give `form: texture`".into(),
                ));
            }
        }
        if texture && p.width.is_none() {
            return Err((
                "palette.width".into(),
                "a palette texture needs its `width`: a number of texels, `row` or `square`".into(),
            ));
        }
        if let Some(n) = p.texels.filter(|n| ![3, 4].contains(n)) {
            return Err((
                "palette.texels".into(),
                format!("must be 4 (a joint's columns) or 3 (the rows of its affine 3x4), got {n}"),
            ));
        }
        if texture && p.matrix == MatrixForm::Rows {
            return Err((
                "palette.matrix".into(),
                "a texture's rows are `texels: 3` alone (`texels: 4` its columns): leave `matrix` out, or give `columns_translation` with `texels: 3`".into(),
            ));
        }
        if texture && p.matrix == MatrixForm::ColumnsTranslation && p.texels != Some(3) {
            return Err((
                "palette.matrix".into(),
                "`columns_translation` packs a joint in three texels: give `texels: 3` with it"
                    .into(),
            ));
        }
        if let Some(n) = p.normal_texels.filter(|n| ![3, 4].contains(n)) {
            return Err((
                "palette.normal_texels".into(),
                format!("must be 4 (a mat4x4's columns) or 3 (a 3x3's), got {n}"),
            ));
        }
        let others = [
            ("inverse_binds", p.inverse_binds.is_some()),
            ("offset", p.offset.is_some()),
            ("member", p.member.is_some()),
            ("element_member", p.element_member.is_some()),
            ("normal_member", p.normal_member.is_some()),
        ];
        for (field, given) in others {
            if given && texture {
                return Err((
                    format!("palette.{field}"),
                    "a palette texture holds the palette alone, from joint 0".into(),
                ));
            }
        }
        Ok(())
    }

    /// The rules of a filled binding's `palette_offset` (binding `i`, member `name`): an
    /// identifier the binding's `members` do not also set, one such member in all, and a palette
    /// that can start past other matrices (not with `palette.offset`, in a texture or a struct).
    fn check_offset_member(&self, i: usize, name: &str) -> Result<(), (String, String)> {
        let field = format!("bindings[{i}].palette_offset");
        let p = &self.palette;
        let others = [
            ("count", self.bindings[i].count.as_deref()),
            ("joint_count", self.bindings[i].joint_count.as_deref()),
        ];
        let why = if let Some(why) = written_member(self.bound(i), name, &others, "the offset") {
            why
        } else if self.bindings[..i]
            .iter()
            .any(|b| b.palette_offset.is_some())
        {
            "another binding already holds the palette's offset".into()
        } else if p.offset.is_some() {
            "the palette's offset is already `palette.offset`".into()
        } else if p.form == PaletteForm::Texture || p.member.is_some() {
            "a palette texture, or a palette member of a larger struct, holds the palette from joint 0".into()
        } else {
            return Ok(());
        };
        Err((field, why))
    }

    /// The rules of the members the harness writes into the immediate data (`immediates.count`,
    /// `immediates.joint_count`): identifiers or dotted paths no other value there sets; the
    /// vertex count once in all, for a compute stage that has no `compute.count`.
    fn check_immediates(&self) -> Result<(), (String, String)> {
        let Some(i) = &self.immediates else {
            return Ok(());
        };
        let written = [
            ("count", i.count.as_deref(), "the vertex count"),
            ("joint_count", i.joint_count.as_deref(), "the joint count"),
            (
                "texture_width",
                i.texture_width.as_deref(),
                "the palette texture's width",
            ),
        ];
        for (k, &(field, name, what)) in written.iter().enumerate() {
            let Some(name) = name else { continue };
            let others: Vec<_> = written[..k].iter().map(|&(f, n, _)| (f, n)).collect();
            let why = if let Some(why) =
                written_member((&i.members, "immediates".into()), name, &others, what)
            {
                why
            } else if field == "texture_width" {
                if let Some(b) = (self.bindings.iter()).position(|b| b.texture_width.is_some()) {
                    format!(
                        "`bindings[{b}].texture_width` already holds the palette texture's width"
                    )
                } else if self.palette.form != PaletteForm::Texture {
                    NO_TEXTURE_WIDTH.into()
                } else {
                    continue;
                }
            } else if field != "count" {
                continue;
            } else if let Some(b) = self.bindings.iter().position(|b| b.count.is_some()) {
                format!("`bindings[{b}].count` already holds the vertex count")
            } else if let Some(why) = self.no_count_member() {
                why.into()
            } else {
                continue;
            };
            return Err((format!("immediates.{field}"), why));
        }
        Ok(())
    }

    /// The values filled binding `i` is given by name, and where (for [`written_member`]).
    fn bound(&self, i: usize) -> (&BTreeMap<String, Numbers>, String) {
        (&self.bindings[i].members, format!("bindings[{i}]"))
    }

    /// Why no member may hold the vertex count: the profile gives no compute stage, or its
    /// `compute.count` binds it.
    fn no_count_member(&self) -> Option<&'static str> {
        match &self.compute {
            None => Some("the vertex count is the compute stage's, and the profile gives none"),
            Some(k) if k.count.is_some() => Some("the vertex count is already `compute.count`"),
            Some(_) => None,
        }
    }

    /// The rules of a filled binding's `texture_width` (binding `i`, member `name`): an
    /// identifier no other value of the binding sets, one such member in all, for a palette in a
    /// texture.
    fn check_texture_width_member(&self, i: usize, name: &str) -> Result<(), (String, String)> {
        let b = &self.bindings[i];
        let others = [
            ("count", b.count.as_deref()),
            ("palette_offset", b.palette_offset.as_deref()),
            ("joint_count", b.joint_count.as_deref()),
        ];
        let what = "the palette texture's width";
        let why = if let Some(why) = written_member(self.bound(i), name, &others, what) {
            why
        } else if self.bindings[..i].iter().any(|b| b.texture_width.is_some()) {
            "another binding already holds the palette texture's width".into()
        } else if self.palette.form != PaletteForm::Texture {
            NO_TEXTURE_WIDTH.into()
        } else {
            return Ok(());
        };
        Err((format!("bindings[{i}].texture_width"), why))
    }

    /// The rules of a filled binding's `count` (binding `i`, member `name`): an identifier no
    /// other value of the binding sets, one such member in all, for a compute stage that has no
    /// `compute.count`.
    fn check_count_member(&self, i: usize, name: &str) -> Result<(), (String, String)> {
        let b = &self.bindings[i];
        let others = [
            ("palette_offset", b.palette_offset.as_deref()),
            ("joint_count", b.joint_count.as_deref()),
        ];
        let why =
            if let Some(why) = written_member(self.bound(i), name, &others, "the vertex count") {
                why
            } else if self.bindings[..i].iter().any(|b| b.count.is_some()) {
                "another binding already holds the vertex count".into()
            } else if let Some(why) = self.no_count_member() {
                why.into()
            } else {
                return Ok(());
            };
        Err((format!("bindings[{i}].count"), why))
    }

    /// The rules of the palette's and the camera's struct members and fills.
    fn check_members(&self) -> Result<(), (String, String)> {
        let p = &self.palette;
        // An index table is a binding of its own.
        let camera = self.vertex.as_ref().map(|v| v.camera.fill);
        let immediates = self.immediates.as_ref().map(|i| i.fill);
        for (field, fill) in [
            ("palette.fill", Some(p.fill)),
            ("vertex.camera.fill", camera),
            ("immediates.fill", immediates),
        ] {
            if fill == Some(Fill::Sequence) {
                return Err((
                    field.into(),
                    "`sequence` fills an index table the shader reads through, a buffer of its own the harness fills: give it in `bindings`".into(),
                ));
            }
        }
        if p.fill != Fill::Zero && p.member.is_none() {
            return Err((
                "palette.fill".into(),
                "fills the rest of a struct around the palette: give the palette's `member`".into(),
            ));
        }
        for (name, v) in &p.members {
            let field = format!("palette.members.{name}");
            let taken = [p.member.as_ref(), p.normal_member.as_ref()];
            let why = if p.member.is_none() {
                "values members of a struct around the palette: give the palette's `member`".into()
            } else if !is_member_path(name) {
                format!("`{name}` is not a WGSL identifier or a dotted path of them")
            } else if taken.contains(&Some(name)) {
                format!("`{name}` holds the palette's matrices, which the harness writes")
            } else if let Some(k) = v.0.iter().position(|x| !x.is_finite()) {
                format!("value {k} is not a finite number")
            } else {
                continue;
            };
            return Err((field, why));
        }
        if let Some(name) = &p.joint_count {
            let why = if p.member.is_none() {
                "is a member of a struct around the palette: give the palette's `member`".into()
            } else if !is_member_path(name) {
                format!("`{name}` is not a WGSL identifier or a dotted path of them")
            } else if [p.member.as_ref(), p.normal_member.as_ref()].contains(&Some(name)) {
                format!("`{name}` holds the palette's matrices, which the harness writes")
            } else if p.members.contains_key(name) {
                format!("`{name}` is also given a value in `palette.members`: the harness writes the joint count there")
            } else {
                String::new()
            };
            if !why.is_empty() {
                return Err(("palette.joint_count".into(), why));
            }
        }
        if p.member.is_some() && (p.inverse_binds.is_some() || p.offset.is_some()) {
            return Err((
                "palette.member".into(),
                "a palette member of a larger struct is not split (`inverse_binds`) or offset (`offset`)".into(),
            ));
        }
        let Some(v) = &self.vertex else {
            return Ok(());
        };
        let c = &v.camera;
        if c.clip_z == crate::format::ClipZ::Stage {
            // The skinned z is then read from clip w of the copied entry point.
            let why = match (c.form, &v.skin_function) {
                (CameraForm::View, _) => Some("reads the skinned z from a camera matrix: give `form: matrix` (the 2D `view` form drops z)".to_string()),
                (_, Some(f)) => Some(format!("reads the skinned z through a copy of the entry point, which the harness calls only where no `skin_function` is named (`{f}` returns the skinned position before any camera): leave `clip_z` out")),
                _ if self.compute.is_some() => Some("reads the skinned z through a copy of the entry point, which the harness calls only for a vertex-only profile (the numbers here come from `compute`): leave `clip_z` out".to_string()),
                _ => None,
            };
            if let Some(why) = why {
                return Err(("vertex.camera.clip_z".into(), format!("`stage` {why}")));
            }
        }
        if c.clip_y != crate::format::ClipY::Camera && c.form != CameraForm::Matrix {
            return Err((
                "vertex.camera.clip_y".into(),
                "`flipped` and `flipped_before` negate y in a camera matrix the harness writes: give `form: matrix`".into(),
            ));
        }
        if c.matrix == MatrixForm::ColumnsTranslation {
            return Err((
                "vertex.camera.matrix".into(),
                "is `columns` or `rows`: `columns_translation` packs a joint's affine, not a projection".into(),
            ));
        }
        if c.form != CameraForm::Matrix {
            for (field, given) in [
                ("fill", c.fill != Fill::Zero),
                ("member", c.member.is_some()),
                ("members", !c.members.is_empty()),
                ("matrix", c.matrix != MatrixForm::Columns),
            ] {
                if given {
                    return Err((
                        format!("vertex.camera.{field}"),
                        "is for a camera given as a matrix: give `form: matrix`".into(),
                    ));
                }
            }
        }
        let shared = (c.group, c.binding) == (p.group, p.binding);
        if shared && c.member.is_some() && p.member.is_none() {
            return Err((
                "palette.member".into(),
                "the camera is a member of the palette's binding: name the palette's member too"
                    .into(),
            ));
        }
        if let Some(m) = c
            .member
            .as_ref()
            .filter(|m| c.in_palette(p) && p.members.contains_key(*m))
        {
            return Err((
                format!("palette.members.{m}"),
                format!("`{m}` is the camera's member, which the harness writes"),
            ));
        }
        for (name, v) in &c.members {
            let why = if c.in_palette(p) {
                "the camera is a member of the palette's struct: give its other members' values in `palette.members`".into()
            } else if !is_member_path(name) {
                format!("`{name}` is not a WGSL identifier or a dotted path of them")
            } else if c.member.as_ref() == Some(name) {
                format!("`{name}` holds the camera's matrix, which the harness writes")
            } else if let Some(k) = v.0.iter().position(|x| !x.is_finite()) {
                format!("value {k} is not a finite number")
            } else {
                continue;
            };
            return Err((format!("vertex.camera.members.{name}"), why));
        }
        if c.in_palette(p) && c.fill != Fill::Zero {
            return Err((
                "vertex.camera.fill".into(),
                "the camera is a member of the palette's struct, which the palette's `fill` fills"
                    .into(),
            ));
        }
        // A path into the palette's member (`joints.m`) would write the camera over a joint.
        let first = (c.member.as_deref()).and_then(|m| m.split('.').next());
        if c.in_palette(p) && p.member.is_some() && first == p.member.as_deref() {
            return Err((
                "vertex.camera.member".into(),
                format!(
                    "`{}` is the palette's member",
                    p.member.as_deref().unwrap_or_default()
                ),
            ));
        }
        Ok(())
    }

    /// The first field that breaks a rule no serde type can state, and why.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        if self.compute.is_none() && self.vertex.is_none() {
            return Err((
                "compute".into(),
                "the profile names no stage: give `compute`, `vertex` or both".into(),
            ));
        }
        self.check_texture()?;
        self.check_normal_member()?;
        self.check_members()?;
        // WebGPU guarantees 4 bind groups; native engines ask for more where the adapter has them
        // (the device takes the adapter's limit), up to the 8 wgpu binds at all.
        let mut seen: BTreeMap<Slot, String> = BTreeMap::new();
        for (field, slot) in self.slots() {
            if slot.group >= MAX_BIND_GROUPS {
                return Err((
                    format!("{field}.group"),
                    format!(
                        "group {} is past the {MAX_BIND_GROUPS} bind groups wgpu binds (0 to {})",
                        slot.group,
                        MAX_BIND_GROUPS - 1
                    ),
                ));
            }
            if let Some(other) = seen.insert(slot, field.clone()) {
                // Skinned in place: the output is written over the vertices it reads.
                if matches!(
                    (other.as_str(), field.as_str()),
                    ("compute.vertices", "compute.output")
                        | ("compute.positions", "compute.skinned")
                        | ("compute.normals", "compute.skinned_normals")
                        | ("compute.tangents", "compute.skinned_tangents")
                ) {
                    continue;
                }
                let hint = match (other.as_str(), field.as_str()) {
                    ("palette", "vertex.camera") => " (a camera matrix inside the palette's struct is a `member` of it, as the palette is)",
                    ("compute.positions", "compute.output") | ("compute.vertices", "compute.skinned") => " (skinned in place, the output takes its input's form: `compute.output` over `compute.vertices`, or `compute.skinned` over `compute.positions`)",
                    _ => "",
                };
                return Err((
                    format!("{field}.binding"),
                    format!(
                        "@group({}) @binding({}) is already `{other}`; each role has its own binding{hint}",
                        slot.group, slot.binding
                    ),
                ));
            }
        }
        self.check_immediates()?;
        for (i, b) in self.bindings.iter().enumerate() {
            if let Some(k) = b.floats.iter().position(|x| !x.is_finite()) {
                return Err((
                    format!("bindings[{i}].floats"),
                    format!("value {k} is not a finite number"),
                ));
            }
            if let Some(name) = &b.palette_offset {
                self.check_offset_member(i, name)?;
            }
            if let Some(name) = &b.count {
                self.check_count_member(i, name)?;
            }
            if let Some(name) = &b.joint_count {
                let others = [
                    ("count", b.count.as_deref()),
                    ("palette_offset", b.palette_offset.as_deref()),
                ];
                if let Some(why) = written_member(self.bound(i), name, &others, "the joint count") {
                    return Err((format!("bindings[{i}].joint_count"), why));
                }
            }
            if let Some(name) = &b.texture_width {
                self.check_texture_width_member(i, name)?;
            }
            for (name, v) in &b.members {
                if !is_member_path(name) {
                    return Err((
                        format!("bindings[{i}].members.{name}"),
                        format!("`{name}` is not a WGSL identifier or a dotted path of them"),
                    ));
                }
                if let Some(k) = v.0.iter().position(|x| !x.is_finite()) {
                    return Err((
                        format!("bindings[{i}].members.{name}"),
                        format!("value {k} is not a finite number"),
                    ));
                }
            }
        }
        if let Some(m) = &self.modules {
            m.validate()?;
        }
        for (field, name) in self.entries() {
            if !is_identifier(name) {
                return Err((field.into(), format!("`{name}` is not a WGSL identifier")));
            }
        }
        // A camera one struct deeper (DiligentFX's `cbuffer { CameraAttribs g_Camera; }`).
        let camera = (self.vertex.as_ref()).and_then(|v| v.camera.member.as_deref());
        if let Some(m) = camera.filter(|m| !is_member_path(m)) {
            return Err((
                "vertex.camera.member".into(),
                format!("`{m}` is not a WGSL identifier or a dotted path of them"),
            ));
        }
        check_constants(&self.constants)?;
        // The pairs' count sets the influences read: checked before what it sets.
        let pairs = self.vertex.as_ref().and_then(|v| v.pairs.as_ref());
        if let Some(p) = pairs.filter(|_| !matches!(self.pair_count(), Some(2..=4 | 8))) {
            let n = p.location.0.len();
            let message = match p.format {
                crate::format::PairFormat::Vec2 => format!(
                    "must list 2 to 4 locations, or 8 (two sets of 4), one an influence; got {n}"
                ),
                crate::format::PairFormat::Vec4 => format!(
                    "must list 1, 2 or 4 locations (4: two sets of 4 influences), each `vec4<f32>` two influences (`format: vec4`); got {n}"
                ),
            };
            return Err(("vertex.pairs.location".into(), message));
        }
        let sets = self.sets();
        if !(1..=4).contains(&sets) {
            return Err((
                "influence_sets".into(),
                format!("must be 1 to 4 influence sets of 4 influences, got {sets}"),
            ));
        }
        if let Some(n) = self.max_influences {
            if sets > 1 && n != 4 * sets {
                let why = match n < 4 {
                    true => ": a shader that reads fewer than 4 reads one set (leave `influence_sets` out)",
                    false => "",
                };
                return Err((
                    "max_influences".into(),
                    format!(
                        "{sets} influence sets of 4 read {} influences a vertex, got {n}{why}",
                        4 * sets
                    ),
                ));
            }
            if !(2..=4).contains(&n) && sets == 1 {
                return Err((
                    "max_influences".into(),
                    format!("must be 2, 3 or 4 (how many influences a vertex the shader reads; one alone is not supported), got {n}"),
                ));
            }
        }
        if self.last_weight == Some(crate::format::LastWeight::Implied)
            && (sets > 1 || self.lanes() < 3)
        {
            return Err((
                "last_weight".into(),
                match sets > 1 {
                    true => format!("an implied last weight is one of a set read alone: {sets} influence sets hold every weight (leave `last_weight` out)"),
                    false => format!("an implied last weight needs 3 or 4 influences a vertex, the shader reading 2 or 3 weights, got `max_influences: {}`", self.lanes()),
                },
            ));
        }
        for (i, e) in self.expect.iter().enumerate() {
            for (what, text) in [
                ("case", &e.case),
                ("matches", &e.matches),
                ("reason", &e.reason),
            ] {
                if text.trim().is_empty() {
                    return Err((format!("expect[{i}].{what}"), "must not be empty".into()));
                }
            }
            if e.case == SHADER_TRIALS && e.joints_above.is_some() {
                return Err((
                    format!("expect[{i}].joints_above"),
                    "the shader's own trials (`case: shader`) have no joints: give `joints_above` in an entry about cases".into(),
                ));
            }
            if e.case == SHADER_TRIALS && e.influences_above.is_some() {
                return Err((
                    format!("expect[{i}].influences_above"),
                    "the shader's own trials (`case: shader`) have no vertices: give `influences_above` in an entry about cases".into(),
                ));
            }
        }
        self.frames_have_sources()?;
        self.check_streams()?;
        self.check_normal_matrix()?;
        if let Some(v) = &self.vertex {
            self.check_pulling(v, sets)?;
            self.check_locations(v, sets)?;
            check_skinned_tangent_format(v)?;
        }
        if let Some(c) = &self.compute {
            check_compute(c, sets)?;
            if let Some(r) = &c.regions {
                self.check_regions(r)?;
            }
        }
        Ok(())
    }

    /// Pairs beside a position attribute alone, nothing else holding joints or weights; their
    /// count (checked with the influence sets) is theirs, not `influence_sets`' or
    /// `max_influences`'.
    fn check_pairs(&self, v: &Vertex) -> Result<(), (String, String)> {
        let others = [
            ("vertex.joints", v.joints.is_some()),
            ("vertex.weights", v.weights.is_some()),
            ("vertex.vertices", v.vertices.is_some()),
            ("vertex.influences", v.influences.is_some()),
            ("vertex.streams", !v.streams.is_empty()),
            ("influence_sets", self.influence_sets.is_some()),
            ("max_influences", self.max_influences.is_some()),
            ("last_weight", self.last_weight.is_some()),
        ];
        if let Some((field, _)) = others.iter().find(|o| o.1) {
            return Err((
                field.to_string(),
                "`vertex.pairs` holds the joints and weights, one attribute an influence, and says how many: leave this out".into(),
            ));
        }
        if v.position.is_none() {
            return Err((
                "vertex".into(),
                "`position` is missing: `pairs` come beside a position attribute".into(),
            ));
        }
        Ok(())
    }

    /// One location per influence set for joints and weights, and every attribute at its own.
    /// A vertex stage skins its attributes, or pulls its vertices from one byte-addressed buffer
    /// (vertex-only, compared through a copy of its entry point), not both.
    fn check_pulling(&self, v: &Vertex, sets: usize) -> Result<(), (String, String)> {
        let attributes = [
            ("vertex.position", v.position.is_some()),
            ("vertex.joints", v.joints.is_some()),
            ("vertex.weights", v.weights.is_some()),
        ];
        if v.pairs.is_some() {
            return self.check_pairs(v);
        }
        if !v.streams.is_empty() {
            return self.check_pulled_streams(v, sets, &attributes);
        }
        let Some(pulled) = &v.vertices else {
            if let Some(i) = &v.influences {
                return self.check_influences(v, i, sets);
            }
            if let Some((field, _)) = attributes.iter().find(|a| !a.1) {
                return Err((
                    "vertex".into(),
                    format!("`{}` is missing: give `position`, `joints` and `weights`, `position` beside a byte-addressed `influences` buffer, or one byte-addressed `vertices` buffer", field.trim_start_matches("vertex.")),
                ));
            }
            return Ok(());
        };
        if v.influences.is_some() {
            return Err((
                "vertex.influences".into(),
                "give the joints and weights of pulled vertices in `vertices` (`joints` and `weights`), not in a buffer of their own".into(),
            ));
        }
        if let Some((field, _)) = attributes.iter().find(|a| a.1) {
            return Err((
                field.to_string(),
                "give either `vertices` (one byte-addressed buffer) or `position`, `joints` and `weights`, not both".into(),
            ));
        }
        pulls_frames(v, "vertex.vertices")?;
        let refuse = |field: &str, why: &str| Err((field.to_string(), why.to_string()));
        self.pulls_alone(v, "vertex.vertices")?;
        if pulled.position.is_none() {
            return refuse(
                "vertex.vertices.position",
                "the pulled vertices hold the position: give its offset",
            );
        }
        if pulled.joints.is_none() || pulled.weights.is_none() {
            return refuse("vertex.vertices", "the vertex stage's pulled vertices hold a position, joints and weights: give `joints` and `weights` here, or split them over `streams`");
        }
        check_vertices(pulled, sets, "vertex.vertices")
    }

    /// A vertex stage that pulls its vertices (from the buffers at `field`) does so in a
    /// vertex-only profile, compared through a copy of its entry point.
    fn pulls_alone(&self, v: &Vertex, field: &str) -> Result<(), (String, String)> {
        if self.compute.is_some() {
            return Err((field.into(), "a vertex stage pulls its vertices in a vertex-only profile: with a compute stage, the compute stage pulls them (`compute.vertices`)".into()));
        }
        if v.skin_function.is_some() {
            return Err(("vertex.skin_function".into(), "a vertex stage that pulls its vertices is compared through a copy of its entry point: leave out `skin_function`".into()));
        }
        Ok(())
    }

    /// A vertex stage that pulls its vertices' fields from several buffers (`vertex.streams`):
    /// vertex-only, compared through a copy of its entry point, instead of the attributes and
    /// the one buffer, with the position, the joints and the weights each in exactly one of them
    /// (a normal and a tangent in at most one), every buffer holding something.
    fn check_pulled_streams(
        &self,
        v: &Vertex,
        sets: usize,
        attributes: &[(&str, bool)],
    ) -> Result<(), (String, String)> {
        let refuse = |field: &str, why: &str| Err((field.to_string(), why.to_string()));
        let given = [
            ("vertex.vertices", v.vertices.is_some()),
            ("vertex.influences", v.influences.is_some()),
        ];
        if let Some((field, _)) = attributes.iter().chain(&given).find(|a| a.1) {
            return refuse(field, "give either `streams` (the stage's buffers it pulls its vertices from) or this, not both");
        }
        pulls_frames(v, "vertex.streams")?;
        self.pulls_alone(v, "vertex.streams")?;
        // (the field, whether this stream holds it, whether one stream must)
        let fields = |s: &Vertices| {
            [
                ("position", s.position.is_some(), true),
                ("joints", s.joints.is_some(), true),
                ("weights", s.weights.is_some(), true),
                ("normal", s.normal.is_some(), false),
                ("tangent", s.tangent.is_some(), false),
            ]
        };
        for (i, s) in v.streams.iter().enumerate() {
            let at = format!("vertex.streams[{i}]");
            if !fields(s).iter().any(|f| f.1) {
                return refuse(&at, "holds none of the position, joints, weights, normal and tangent: give the fields the stage reads from it");
            }
            check_vertices(s, sets, &at)?;
        }
        for (k, (what, _, required)) in fields(&v.streams[0]).into_iter().enumerate() {
            let holding: Vec<usize> = (v.streams.iter().enumerate())
                .filter(|(_, s)| fields(s)[k].1)
                .map(|(i, _)| i)
                .collect();
            if holding.len() > 1 {
                return refuse(
                    &format!("vertex.streams[{}].{what}", holding[1]),
                    &format!("the {what} is already in `vertex.streams[{}]`: give each field in one buffer", holding[0]),
                );
            }
            if holding.is_empty() && required {
                return refuse(
                    "vertex.streams",
                    &format!("no buffer holds the {what}: give it in one of them"),
                );
            }
        }
        Ok(())
    }

    /// A vertex stage's influences in storage, read by vertex index beside its attributes: the
    /// position an attribute, the joints and weights only here, in a vertex-only profile (the
    /// capture reads the buffer through a copy of the entry point).
    fn check_influences(
        &self,
        v: &Vertex,
        i: &Influences,
        sets: usize,
    ) -> Result<(), (String, String)> {
        let refuse = |field: &str, why: &str| Err((field.to_string(), why.to_string()));
        if v.position.is_none() {
            return refuse("vertex", "`position` is missing: a stage that reads its `influences` from storage takes its position as an attribute (or give one byte-addressed `vertices` buffer)");
        }
        for (field, given) in [
            ("joints", v.joints.is_some()),
            ("weights", v.weights.is_some()),
        ] {
            if given {
                return refuse(
                    &format!("vertex.{field}"),
                    "give the joints and weights either as attributes or in the byte-addressed `influences` buffer, not both",
                );
            }
        }
        if self.compute.is_some() {
            return refuse("vertex.influences", "a vertex stage reads its influences from storage in a vertex-only profile: with a compute stage, the compute stage reads them (`compute.influences`)");
        }
        if v.skin_function.is_some() {
            return refuse("vertex.skin_function", "a vertex stage that reads its influences from storage is compared through a copy of its entry point: leave out `skin_function`");
        }
        check_pulled(
            i.layout(),
            [("joints", &i.joints.offset), ("weights", &i.weights.offset)],
            sets,
            "vertex.influences",
        )
    }

    fn check_locations(&self, v: &Vertex, sets: usize) -> Result<(), (String, String)> {
        let mut locations = Vec::new();
        locations.extend(
            (v.position.as_ref()).map(|p| ("vertex.position.location".to_string(), p.location)),
        );
        let joints = v.joints.as_ref().map(|j| &j.location);
        let weights = v.weights.as_ref().map(|w| &w.location);
        for (what, places) in [("joints", joints), ("weights", weights)] {
            let Some(places) = places else { continue };
            let field = format!("vertex.{what}.location");
            per_set(&field, places.0.len(), sets)?;
            locations.extend(places.0.iter().map(|&l| (field.clone(), l)));
        }
        if let Some(p) = &v.pairs {
            let field = "vertex.pairs.location";
            locations.extend(p.location.0.iter().map(|&l| (field.to_string(), l)));
        }
        locations.extend(
            v.normal
                .map(|l| ("vertex.normal.location".into(), l.location)),
        );
        locations.extend(
            v.tangent
                .map(|l| ("vertex.tangent.location".into(), l.location)),
        );
        if let (Some(n), Some(t)) = (v.skinned_normal, v.skinned_tangent) {
            if n.location == t.location {
                return Err((
                    "vertex.skinned_tangent.location".into(),
                    format!(
                        "@location({}) is already `vertex.skinned_normal`; each output has its own location",
                        t.location
                    ),
                ));
            }
        }
        for (i, (field, l)) in locations.iter().enumerate() {
            if let Some((other, _)) = locations[..i].iter().find(|(_, m)| m == l) {
                return Err((
                    field.to_string(),
                    format!(
                        "@location({l}) is already `{}`; each attribute has its own location",
                        other.trim_end_matches(".location")
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Constant keys as WebGPU takes them (a WGSL name, or an `@id` number from 0 to 65535) with
/// finite values (naga refuses NaN and infinities for a pipeline constant).
fn check_constants(constants: &BTreeMap<String, Constant>) -> Result<(), (String, String)> {
    for (key, value) in constants {
        let field = format!("constants.{key}");
        let id = key.bytes().all(|b| b.is_ascii_digit());
        if id && key.parse::<u16>().is_err() {
            return Err((
                field,
                format!("`{key}` is past the largest override @id, 65535"),
            ));
        }
        if !id && !is_identifier(key) {
            return Err((
                field,
                format!("`{key}` is neither an override's name nor its @id number"),
            ));
        }
        if !value.value().is_finite() {
            return Err((field, "must be a finite number".into()));
        }
    }
    Ok(())
}

/// A list with one entry per influence set.
fn per_set(field: &str, given: usize, sets: usize) -> Result<(), (String, String)> {
    if given == sets {
        return Ok(());
    }
    Err((
        field.into(),
        format!(
            "gives {} for {sets} influence set{} (`influence_sets`): give one per set, e.g. [{}]",
            match given {
                1 => "1 place".to_string(),
                n => format!("{n} places"),
            },
            if sets == 1 { "" } else { "s" },
            (0..sets)
                .map(|k| (k * 2).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// A vertex stage that pulls its vertices from storage (the buffers at `field`) pulls its normal
/// and tangent there too: the copy of its entry point the numbers come through reads its sources
/// from its own buffers alone, no attribute beside them.
fn pulls_frames(v: &Vertex, field: &str) -> Result<(), (String, String)> {
    for (attribute, given) in [
        ("vertex.normal", v.normal.is_some()),
        ("vertex.tangent", v.tangent.is_some()),
    ] {
        if given {
            return Err((
                attribute.into(),
                format!("a stage that pulls its vertices (`{field}`) pulls this too: give it as a field there, not an attribute"),
            ));
        }
    }
    Ok(())
}

/// The compute stage's buffers: the positions and the influences each from one source, and one
/// output, each whole; formats storage can hold; byte-addressed fields aligned, inside the
/// stride, apart.
fn check_compute(c: &Compute, sets: usize) -> Result<(), (String, String)> {
    if c.regions.is_some() {
        return check_pool_alone(c);
    }
    check_sources(c)?;
    if let Some(v) = &c.vertices {
        if v.position.is_none() {
            return Err((
                "compute.vertices.position".into(),
                "the byte-addressed vertices hold the position: give its offset".into(),
            ));
        }
        check_vertices(v, sets, "compute.vertices")?;
    }
    if let Some(i) = &c.influences {
        check_pulled(
            i.layout(),
            [("joints", &i.joints.offset), ("weights", &i.weights.offset)],
            sets,
            "compute.influences",
        )?;
    }
    if let Some(w) = c.skinned.and_then(|s| s.w.map(|w| (s, w))) {
        let why = match w {
            (s, _) if s.format != crate::format::PositionFormat::Vec4 => {
                "is the w after each skinned position of a `vec4` output: give `format: vec4`, or leave it out"
                    .to_string()
            }
            (_, 0 | 1) => String::new(),
            (_, n) => format!("the output's w is 0 or 1 (a point's), got {n}"),
        };
        if !why.is_empty() {
            return Err(("compute.skinned.w".into(), why));
        }
    }
    match (&c.skinned, &c.output) {
        (Some(_), Some(_)) => {
            return Err((
                "compute.output".into(),
                "give either `skinned` or a byte-addressed `output`, not both".into(),
            ))
        }
        (None, None) => {
            return Err((
                "compute".into(),
                "the output is missing: give `skinned` or a byte-addressed `output`".into(),
            ))
        }
        (None, Some(o)) => {
            let fields = [o.normal.is_some(), o.tangent.is_some()];
            check_encodings(
                fields,
                [o.normal_encoding, o.tangent_encoding],
                "compute.output",
            )?;
            let layout = o.layout();
            if layout.members.is_empty() {
                crate::format::check_fields(layout.stride, &layout.fields())
                    .map_err(|(f, m)| (format!("compute.output.{f}"), m))?
            }
        }
        (Some(_), None) => {}
    }
    if let Some(w) = c.weights.filter(|w| w.format != WeightFormat::F32x4) {
        return Err((
            "compute.weights.format".into(),
            format!(
                "storage weights are f32x4 (`array<vec4<f32>>`); {} is a vertex format",
                w.format.name()
            ),
        ));
    }
    if c.joints.is_some_and(|j| j.format == JointFormat::U8x4) {
        return Err((
            "compute.joints.format".into(),
            "storage joints are u32x4, u16x4 (u16 pairs in u32 words) or f32x4; u8x4 is a vertex format"
                .into(),
        ));
    }
    Ok(())
}

/// A vertex pool holds every stream of the compute stage: no buffer of its own beside it.
fn check_pool_alone(c: &Compute) -> Result<(), (String, String)> {
    let apart = [
        ("positions", c.positions.is_some(), "position"),
        ("joints", c.joints.is_some(), "joints"),
        ("weights", c.weights.is_some(), "weights"),
        ("vertices", c.vertices.is_some(), "position"),
        ("influences", c.influences.is_some(), "joints"),
        ("skinned", c.skinned.is_some(), "skinned_position"),
        ("output", c.output.is_some(), "skinned_position"),
        ("normals", c.normals.is_some(), "normal"),
        ("tangents", c.tangents.is_some(), "tangent"),
        (
            "skinned_normals",
            c.skinned_normals.is_some(),
            "skinned_normal",
        ),
        (
            "skinned_tangents",
            c.skinned_tangents.is_some(),
            "skinned_tangent",
        ),
    ];
    match apart.iter().find(|(_, given, _)| *given) {
        Some((field, _, region)) => Err((
            format!("compute.{field}"),
            format!("`compute.regions` holds every stream of the compute stage: give this as its region `compute.regions.{region}`, not a buffer of its own"),
        )),
        None => Ok(()),
    }
}

impl Profile {
    /// A vertex pool's starts: in a buffer the harness fills (`bindings`), each region's its own
    /// member, which no other value of the binding sets; and a vertex count the harness writes,
    /// since no stream's `arrayLength` bounds the invocations.
    fn check_regions(&self, r: &Regions) -> Result<(), (String, String)> {
        let (g, b) = (r.starts.group, r.starts.binding);
        let Some(i) = (self.bindings.iter()).position(|x| (x.group, x.binding) == (g, b)) else {
            return Err((
                "compute.regions.starts".into(),
                format!("@group({g}) @binding({b}) is no buffer the harness fills: add `- {{ group: {g}, binding: {b} }}` to `bindings`, the struct whose members hold the regions' starts"),
            ));
        };
        let filled = &self.bindings[i];
        let starts = r.starts();
        for (k, (stream, name)) in starts.iter().enumerate() {
            let field = format!("compute.regions.{}.start", stream.name());
            let others = [
                ("count", filled.count.as_deref()),
                ("palette_offset", filled.palette_offset.as_deref()),
                ("joint_count", filled.joint_count.as_deref()),
            ];
            let why = if !is_member_path(name) {
                format!("`{name}` is not a WGSL identifier or a dotted path of them")
            } else if let Some((other, _)) = starts[..k].iter().find(|(_, n)| n == name) {
                format!(
                    "`{name}` is also where `{}` starts: each region has a member of its own",
                    other.name()
                )
            } else if let Some(why) =
                written_member(self.bound(i), name, &others, "the region's start")
            {
                why
            } else {
                continue;
            };
            return Err((field, why));
        }
        let counted = self.compute.as_ref().is_some_and(|k| k.count.is_some())
            || self.bindings.iter().any(|x| x.count.is_some());
        if !counted {
            return Err((
                "compute.regions".into(),
                "a vertex pool holds more than the case's vertices, so the shader must bound its invocations by a count: give `compute.count`, or a filled binding's `count` (as the starts' struct holds it: `bindings[].count`)".into(),
            ));
        }
        let need = [
            (
                r.skinned_normal.is_some(),
                r.normal.is_some(),
                "skinned_normal",
                "normal",
            ),
            (
                r.skinned_tangent.is_some(),
                r.tangent.is_some(),
                "skinned_tangent",
                "tangent",
            ),
        ];
        for (output, source, field, wants) in need {
            if output && !source {
                return Err((
                    format!("compute.regions.{field}"),
                    format!("`compute.regions.{field}` needs `compute.regions.{wants}` too"),
                ));
            }
        }
        Ok(())
    }
}

/// Where the compute stage reads the positions (`positions`, or `vertices`) and the joints and
/// weights (`joints` and `weights`, `vertices`, or `influences`): each from exactly one, whole.
fn check_sources(c: &Compute) -> Result<(), (String, String)> {
    let ways = "give `positions`, `joints` and `weights`, or one byte-addressed `vertices` buffer";
    let v = c.vertices.as_ref();
    match (v, c.positions.is_some()) {
        (Some(_), true) => return Err((
            "compute.positions".into(),
            "give either `vertices` (one byte-addressed buffer) or `positions`, `joints` and `weights`, not both".into(),
        )),
        (None, false) => return Err(("compute".into(), format!("`positions` is missing: {ways}"))),
        _ => {}
    }
    // Each source of the joints and weights: (its field, joints given, weights given).
    let typed = ("compute", c.joints.is_some(), c.weights.is_some());
    let pulled = v.map(|v| ("compute.vertices", v.joints.is_some(), v.weights.is_some()));
    let own = c
        .influences
        .as_ref()
        .map(|_| ("compute.influences", true, true));
    let sources: Vec<_> = [Some(typed), pulled, own]
        .into_iter()
        .flatten()
        .filter(|(_, j, w)| *j || *w)
        .collect();
    match sources.as_slice() {
        [] if v.is_some() => Err((
            "compute.vertices".into(),
            "the joints and weights are missing: give them in `vertices` (`joints` and `weights`) or in a byte-addressed `influences` buffer".into(),
        )),
        [] => Err(("compute".into(), format!("`joints` is missing: {ways}"))),
        [(field, j, w)] if !(j & w) => {
            let (given, missing) = if *j { ("joints", "weights") } else { ("weights", "joints") };
            Err(match *field {
                "compute" => (field.to_string(), format!("`{missing}` is missing: {ways}")),
                _ => (
                    field.to_string(),
                    format!("gives `{given}` without `{missing}`: give both, or neither where a byte-addressed `influences` buffer holds them"),
                ),
            })
        }
        [_] => Ok(()),
        [(first, fj, fw), (second, j, _), ..] => {
            let at = match *second {
                "compute.influences" => second.to_string(),
                _ => format!("{second}.{}", if *j { "joints" } else { "weights" }),
            };
            // The typed buffers as given: both, or the one.
            let first = match (*first, fj, fw) {
                ("compute", true, true) => "`joints` and `weights`".to_string(),
                ("compute", true, false) => "`joints`".to_string(),
                ("compute", _, _) => "`weights`".to_string(),
                (f, ..) => format!("`{}`", f.trim_start_matches("compute.")),
            };
            Err((
                at,
                format!("the joints and weights are given twice, here and in {first}: give them once, in `joints` and `weights`, in `vertices`, or in a byte-addressed `influences` buffer"),
            ))
        }
    }
}

/// A byte-addressed buffer's `normal_encoding` and `tangent_encoding` each beside the field it
/// encodes: `given`, whether the buffer holds the normal and the tangent.
fn check_encodings(
    given: [bool; 2],
    encodings: [crate::format::Encoding; 2],
    at: &str,
) -> Result<(), (String, String)> {
    for ((name, given), encoding) in ["normal", "tangent"].into_iter().zip(given).zip(encodings) {
        if !given && encoding.packed() {
            return Err((
                format!("{at}.{name}_encoding"),
                format!(
                    "says how the {name} is stored ({}), and `{at}` gives no `{name}`",
                    encoding.name()
                ),
            ));
        }
    }
    Ok(())
}

/// Why a texture width member is refused beside a palette in a buffer.
const NO_TEXTURE_WIDTH: &str = "the palette is no texture, so there is no texture width to write: give `palette.form: texture` where the joints are in one, or leave it out";

/// A vertex stage's skinned tangent keeps a handedness only where its source has one.
fn check_skinned_tangent_format(v: &Vertex) -> Result<(), (String, String)> {
    if v.skinned_tangent.and_then(|t| t.format) != Some(TangentFormat::Vec4) {
        return Ok(());
    }
    let source = match v.tangent {
        Some(a) if a.format == TangentFormat::Vec3 => "`vertex.tangent.format`",
        Some(_) => return Ok(()),
        None if v.pulled_tangent_format() == Some(TangentFormat::Vec3) => {
            "the pulled vertices' `tangent_format`"
        }
        None => return Ok(()),
    };
    Err((
        "vertex.skinned_tangent.format".into(),
        format!("is vec4, a tangent with the source's handedness in w, but the source tangent is vec3 ({source}), with none: give `format: vec3` or leave it out"),
    ))
}

/// A byte-addressed vertex buffer's offsets: one per set, each field aligned, inside the stride,
/// apart from the others.
fn check_vertices(v: &Vertices, sets: usize, at: &str) -> Result<(), (String, String)> {
    if v.tangent.is_none() && v.tangent_format == TangentFormat::Vec3 {
        return Err((
            format!("{at}.tangent_format"),
            format!("says how the source tangent is stored, and `{at}` gives no `tangent`"),
        ));
    }
    let fields = [v.normal.is_some(), v.tangent.is_some()];
    check_encodings(fields, [v.normal_encoding, v.tangent_encoding], at)?;
    let mut per_set = Vec::new();
    if let Some(j) = &v.joints {
        per_set.push(("joints", &j.offset));
    }
    if let Some(w) = &v.weights {
        per_set.push(("weights", &w.offset));
    }
    check_pulled(v.layout(), per_set, sets, at)
}

/// A byte-addressed buffer's layout: `per_set` fields (joints, weights) one place per set, each
/// field aligned, inside the stride, apart from the others (once the shader places named ones).
fn check_pulled<'a>(
    layout: crate::format::Pulled,
    per_set: impl IntoIterator<Item = (&'a str, &'a Offsets)>,
    sets: usize,
    at: &str,
) -> Result<(), (String, String)> {
    for (what, offsets) in per_set {
        self::per_set(&format!("{at}.{what}.offset"), offsets.0.len(), sets)?;
    }
    if !layout.members.is_empty() {
        // Checked once the shader's struct places them.
        return Ok(());
    }
    crate::format::check_fields(layout.stride, &layout.fields()).map_err(|(name, message)| {
        let field = match name.split('[').next().unwrap_or_default() {
            what @ ("position" | "stride" | "normal" | "tangent") => format!("{at}.{what}"),
            what => format!("{at}.{what}.offset"),
        };
        let message = if name == "stride" {
            message
        } else {
            format!("`{name}`: {message}")
        };
        (field, message)
    })
}

impl Profile {
    /// The rules of the compute stage's own normal and tangent buffers: a byte-addressed one's
    /// stride and offset, one written over its source (at its binding) laid out as the source
    /// is, and a vec3 tangent's skinned form.
    fn check_streams(&self) -> Result<(), (String, String)> {
        let Some(c) = &self.compute else {
            return Ok(());
        };
        let given = |f: &Frames<PositionFormat>| (f.slot(), f.stride, f.offset, f.normal_stream());
        let tangent =
            |f: &Frames<TangentFormat>| (f.slot(), f.stride, f.offset, f.tangent_stream());
        let (skinned_normals, skinned_tangents) = c.skinned_frames();
        let all: [Given; 4] = [
            ("compute.normals", "normal", c.normals.as_ref().map(given)),
            (
                "compute.tangents",
                "tangent",
                c.tangents.as_ref().map(tangent),
            ),
            (
                "compute.skinned_normals",
                "normal",
                skinned_normals.as_ref().map(given),
            ),
            (
                "compute.skinned_tangents",
                "tangent",
                skinned_tangents.as_ref().map(tangent),
            ),
        ];
        for one in &all {
            check_stream_place(one)?;
        }
        for (source, skinned) in [(&all[0], &all[2]), (&all[1], &all[3])] {
            check_in_place_stream(source, skinned)?;
        }
        let vertices = c.vertices.as_ref();
        let source = if (c.tangents).is_some_and(|t| t.tangent_format() == TangentFormat::Vec3) {
            "`compute.tangents.format`"
        } else if vertices
            .is_some_and(|v| v.tangent.is_some() && v.tangent_format == TangentFormat::Vec3)
        {
            "`compute.vertices.tangent_format`"
        } else {
            return Ok(());
        };
        if skinned_tangents.is_some_and(|t| t.tangent_format() == TangentFormat::Vec4) {
            return Err((
                "compute.skinned_tangents.format".into(),
                format!("is vec4, a tangent with the source's handedness in w, but the source tangents are vec3 ({source}), with none: give `format: vec3`"),
            ));
        }
        let output = c.output.as_ref().filter(|o| o.tangent.is_some());
        if output.is_some_and(|o| o.tangent_format == TangentFormat::Vec4) {
            return Err((
                "compute.output.tangent".into(),
                format!("is a vec4 tangent with the source's handedness in w, but the source tangents are vec3 ({source}), with none: give `tangent_format: vec3`"),
            ));
        }
        Ok(())
    }

    /// A palette's normal member is a second member of its elements' struct, beside the joint's
    /// matrix, or a second array of the palette's struct, beside the palette, in a palette the harness writes whole (not one whose matrices the shader
    /// multiplies by its inverse binds, where no normal matrix of the product is given).
    fn check_normal_member(&self) -> Result<(), (String, String)> {
        let p = &self.palette;
        let Some(name) = &p.normal_member else {
            return Ok(());
        };
        let why = if p.element_member.is_none() && p.member.is_none() {
            "is a member of each element's struct beside the joint's matrix (give that one's name as `palette.element_member`), or an array member of the palette's struct beside the palette's own (give that one's name as `palette.member`)".to_string()
        } else if p.element_member.as_ref() == Some(name) {
            format!("`{name}` is also `palette.element_member`, the joint's matrix: the normal matrix is another member")
        } else if p.parallel_normals() && p.member.as_ref() == Some(name) {
            format!("`{name}` is also `palette.member`, the joints' matrices: the normal matrices are another member")
        } else if p.inverse_binds.is_some() {
            "a split palette (`palette.inverse_binds`) gives the joints' global matrices, not the skin matrices whose normal matrices the member would hold".into()
        } else {
            return Ok(());
        };
        Err(("palette.normal_member".into(), why))
    }

    /// A stored position w of 1 is for positions the harness stores in a buffer (a compute
    /// stage's, or a vertex stage's pulled vertices): a vertex attribute's w is the vertex
    /// fetch's.
    fn check_position_w(&self) -> Result<(), (String, String)> {
        let stored = self.compute.as_ref().is_some_and(|c| c.regions.is_none())
            || (self.vertex.as_ref()).is_some_and(|v| v.pulled().any(|p| p.position.is_some()));
        if self.position_w == Some(crate::format::PositionW::One) && !stored {
            return Err((
                "position_w".into(),
                "is the w of positions stored in a buffer (`compute.positions` or `compute.vertices`, `vertex.vertices` or a stream's `position`); a vertex attribute's w is the vertex fetch's (1 for a vec3 attribute read as vec4): leave it out".into(),
            ));
        }
        Ok(())
    }

    /// A normal matrix is declared for a shader whose skinned normals the harness reads, and a
    /// frame length for one whose skinned normals or tangents it reads.
    fn check_normal_matrix(&self) -> Result<(), (String, String)> {
        self.check_position_w()?;
        if self.frame_length.is_some() && !self.reads_frames() {
            return Err((
                "frame_length".into(),
                "says how long the shader's skinned normals and tangents are, and the profile names none: give skinned normals or tangents (`compute.skinned_normals`, `compute.output.normal`, `compute.regions.skinned_normal`, `vertex.skinned_normal`, `vertex.normal_function`, or their tangent fields), or leave it out".into(),
            ));
        }
        if self.tangent_length.is_some() && !self.reads_tangents() {
            return Err((
                "tangent_length".into(),
                "says how long the shader's skinned tangents are, and the profile names none: give skinned tangents (`compute.skinned_tangents`, `compute.output.tangent`, `compute.regions.skinned_tangent`, `vertex.skinned_tangent`, `vertex.tangent_function`), or leave it out".into(),
            ));
        }
        self.check_tangent_frame()?;
        if self.normal_matrix.is_none() {
            return Ok(());
        }
        if self.reads_normals() {
            return Ok(());
        }
        Err((
            "normal_matrix".into(),
            "says how the shader skins normals, and the profile names no skinned normals: give `compute.skinned_normals`, `compute.output.normal`, `compute.regions.skinned_normal`, `vertex.skinned_normal` or `vertex.normal_function`, or leave it out".into(),
        ))
    }

    /// An orthogonal tangent frame is declared for a stage whose skinned tangents the harness
    /// reads beside a source normal they are made perpendicular to, and not through a tangent
    /// function, which takes no normal.
    fn check_tangent_frame(&self) -> Result<(), (String, String)> {
        if self.tangent_frame != Some(crate::format::TangentFrame::Orthogonal) {
            return Ok(());
        }
        let refuse = |why: &str| Err(("tangent_frame".to_string(), why.to_string()));
        let (compute, vertex) = (self.compute.as_ref(), self.vertex.as_ref());
        if vertex.is_some_and(|v| v.tangent_function.is_some()) {
            return refuse("says the shader makes its tangents perpendicular to the skinned normal, and `vertex.tangent_function` takes no normal to do it with: compare the tangents through a copy of the entry point (leave out `skin_function` and its frame functions, give `vertex.skinned_tangent`), or leave it out");
        }
        // The tangent function is refused above: the skinned tangents are a stage's outputs.
        let tangents = self.reads_tangents();
        let normal = compute.is_some_and(|c| {
            c.normals.is_some()
                || (c.vertices.as_ref()).is_some_and(|v| v.normal.is_some())
                || (c.regions.as_ref()).is_some_and(|r| r.normal.is_some())
        }) || vertex
            .is_some_and(|v| v.normal.is_some() || v.pulled().any(|p| p.normal.is_some()));
        if !tangents || !normal {
            return refuse("says the shader makes its skinned tangents perpendicular to its skinned normal, and the profile names no skinned tangents beside a source normal: give a skinned tangent (`compute.skinned_tangents`, `compute.output.tangent`, `compute.regions.skinned_tangent`, `vertex.skinned_tangent`) and the source normal the shader reads, or leave it out");
        }
        Ok(())
    }

    /// Whether the profile names a skinned normal or tangent the harness reads.
    fn reads_frames(&self) -> bool {
        self.reads_normals() || self.reads_tangents()
    }

    /// Whether the profile names skinned normals the harness reads: a compute stage's buffer or
    /// field, a vertex stage's output or normal function.
    fn reads_normals(&self) -> bool {
        let compute = self.compute.as_ref().is_some_and(|c| {
            c.skinned_normals.is_some()
                || (c.output.as_ref()).is_some_and(|o| o.normal.is_some())
                || (c.regions.as_ref()).is_some_and(|r| r.skinned_normal.is_some())
        });
        let vertex = (self.vertex.as_ref())
            .is_some_and(|v| v.normal_function.is_some() || v.skinned_normal.is_some());
        compute || vertex
    }

    /// As [`Profile::reads_normals`], for tangents.
    fn reads_tangents(&self) -> bool {
        let compute = self.compute.as_ref().is_some_and(|c| {
            c.skinned_tangents.is_some()
                || (c.output.as_ref()).is_some_and(|o| o.tangent.is_some())
                || (c.regions.as_ref()).is_some_and(|r| r.skinned_tangent.is_some())
        });
        let vertex = (self.vertex.as_ref())
            .is_some_and(|v| v.tangent_function.is_some() || v.skinned_tangent.is_some());
        compute || vertex
    }

    /// A skinned normal or tangent output needs the source it skins, in the same stage.
    fn frames_have_sources(&self) -> Result<(), (String, String)> {
        let need = |output: bool, source: bool, field: &str, wants: &str| {
            if output && !source {
                Err((field.to_string(), format!("`{field}` needs `{wants}` too")))
            } else {
                Ok(())
            }
        };
        if let Some(c) = &self.compute {
            let vertices = c.vertices.as_ref();
            let output = c.output.as_ref();
            // (source apart, source in `vertices`, output apart, output in `output`, their fields)
            let frames = [
                (
                    c.normals.is_some(),
                    vertices.is_some_and(|v| v.normal.is_some()),
                    c.skinned_normals.is_some(),
                    output.is_some_and(|o| o.normal.is_some()),
                    ["compute.normals", "compute.vertices.normal"],
                    ["compute.skinned_normals", "compute.output.normal"],
                ),
                (
                    c.tangents.is_some(),
                    vertices.is_some_and(|v| v.tangent.is_some()),
                    c.skinned_tangents.is_some(),
                    output.is_some_and(|o| o.tangent.is_some()),
                    ["compute.tangents", "compute.vertices.tangent"],
                    ["compute.skinned_tangents", "compute.output.tangent"],
                ),
            ];
            for (apart, within, out_apart, out_within, sources, outputs) in frames {
                for (both, fields) in [
                    (apart && within, sources),
                    (out_apart && out_within, outputs),
                ] {
                    if both {
                        return Err((
                            fields[0].to_string(),
                            format!("give either `{}` or `{}`, not both", fields[0], fields[1]),
                        ));
                    }
                }
                let field = if out_within { outputs[1] } else { outputs[0] };
                need(
                    out_apart || out_within,
                    apart || within,
                    field,
                    &format!("{}` or `{}", sources[0], sources[1]),
                )?;
            }
        }
        if let Some(v) = &self.vertex {
            for (given, field) in [
                (v.normal_function.is_some(), "vertex.normal_function"),
                (v.tangent_function.is_some(), "vertex.tangent_function"),
            ] {
                need(
                    given,
                    v.skin_function.is_some(),
                    field,
                    "vertex.skin_function",
                )?;
            }
            // A source is an attribute, or a field of the vertices the stage pulls.
            need(
                v.skinned_normal.is_some(),
                v.normal.is_some() || v.pulled().any(|p| p.normal.is_some()),
                "vertex.skinned_normal",
                "vertex.normal`, `vertex.vertices.normal` or a stream's `normal",
            )?;
            need(
                v.skinned_tangent.is_some(),
                v.tangent.is_some() || v.pulled().any(|p| p.tangent.is_some()),
                "vertex.skinned_tangent",
                "vertex.tangent`, `vertex.vertices.tangent` or a stream's `tangent",
            )?;
        }
        Ok(())
    }

    /// Every entry point and function name the profile gives, with its field.
    fn entries(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        if let Some(c) = &self.compute {
            out.push(("compute.entry", c.entry.as_str()));
        }
        if let Some(v) = &self.vertex {
            out.push(("vertex.entry", v.entry.as_str()));
            out.extend(v.fragment.as_deref().map(|f| ("vertex.fragment", f)));
            out.extend(
                v.skin_function
                    .as_deref()
                    .map(|f| ("vertex.skin_function", f)),
            );
            out.extend(
                v.normal_function
                    .as_deref()
                    .map(|f| ("vertex.normal_function", f)),
            );
            out.extend(
                v.tangent_function
                    .as_deref()
                    .map(|f| ("vertex.tangent_function", f)),
            );
        }
        out.extend(
            self.palette
                .member
                .as_deref()
                .map(|m| ("palette.member", m)),
        );
        out.extend((self.palette.element_member.as_deref()).map(|m| ("palette.element_member", m)));
        out.extend((self.palette.normal_member.as_deref()).map(|m| ("palette.normal_member", m)));
        out
    }
}

/// The rule of every member the harness writes into filled binding `i` (`b`), `what` it writes:
/// a WGSL identifier or a dotted path of them, which neither the binding's `members` nor its
/// `others` (the other members the harness writes there) also set. Why not, if it breaks it.
fn written_member(
    (members, at): (&BTreeMap<String, Numbers>, String),
    name: &str,
    others: &[(&str, Option<&str>)],
    what: &str,
) -> Option<String> {
    let other = others.iter().find(|(_, o)| *o == Some(name));
    if !is_member_path(name) {
        Some(format!(
            "`{name}` is not a WGSL identifier or a dotted path of them"
        ))
    } else if members.contains_key(name) {
        Some(format!(
            "`{name}` is also given a value in `{at}.members`: the harness writes {what} there"
        ))
    } else if let Some((field, _)) = other {
        Some(format!(
            "`{name}` is also `{at}.{field}`: the harness writes {what} there"
        ))
    } else {
        None
    }
}

/// A member or a dotted path into nested structs' members (`vertices.end`).
fn is_member_path(name: &str) -> bool {
    name.split('.').all(is_identifier)
}

/// A WGSL identifier: a letter or `_`, then letters, digits or `_` (not `_` alone).
pub(super) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && name != "_"
}

/// A normal or tangent buffer as the profile gives it: (its field, what it holds, and where
/// given: its slot, stride, offset and stream).
type Given = (
    &'static str,
    &'static str,
    Option<(Slot, Option<u32>, Option<u32>, crate::format::Stream)>,
);

/// A byte-addressed normal or tangent buffer's stride and offset: a positive multiple of 4, and
/// the direction inside the stride on a word.
fn check_stream_place((field, what, given): &Given) -> Result<(), (String, String)> {
    let Some((_, stride, offset, stream)) = given else {
        return Ok(());
    };
    let Some(s) = stride else {
        if stream.encoding.packed() {
            return Err((
                format!("{field}.encoding"),
                format!("is {}: a packed {what} is read from words, so its buffer is byte-addressed: give `stride` too, the bytes of a vertex (4 for one snorm8 word each)", stream.encoding.name()),
            ));
        }
        return match offset {
            Some(_) => Err((
                format!("{field}.offset"),
                "is for a byte-addressed buffer: give `stride` too, the bytes of a vertex (12 for tightly packed vec3s)".into(),
            )),
            None => Ok(()),
        };
    };
    if *s == 0 || s % 4 != 0 {
        return Err((
            format!("{field}.stride"),
            format!("is {s} bytes: a byte-addressed stride is a positive multiple of 4"),
        ));
    }
    let (o, bytes) = (offset.unwrap_or(0), stream.bytes());
    if o % 4 != 0 || o + bytes > *s {
        return Err((
            format!("{field}.offset"),
            format!("is byte {o}: the {bytes}-byte {what} must start on a 4-byte boundary and lie inside the stride ({s} bytes)"),
        ));
    }
    Ok(())
}

/// Skinned directions at their source's binding are written over it: the same form, stride,
/// offset and format.
fn check_in_place_stream(source: &Given, skinned: &Given) -> Result<(), (String, String)> {
    let (Some(a), Some(b)) = (&source.2, &skinned.2) else {
        return Ok(());
    };
    if a.0 != b.0 {
        return Ok(());
    }
    let (a, b) = (a.3, b.3);
    let form = match a.byte_addressed {
        true => "byte-addressed: give both `stride` or neither",
        false => "typed: give both `stride` or neither",
    };
    let format = if a.words == 4 { "vec4" } else { "vec3" };
    // (field, what must match, whether it differs, the source's)
    let differs = [
        (
            "stride",
            "form",
            a.byte_addressed != b.byte_addressed,
            form.to_string(),
        ),
        (
            "stride",
            "stride",
            a.stride != b.stride,
            format!("{} bytes", a.stride),
        ),
        (
            "offset",
            "offset",
            a.offset != b.offset,
            format!("byte {}", a.offset),
        ),
        ("format", "format", a.words != b.words, format.to_string()),
        (
            "encoding",
            "encoding",
            a.encoding != b.encoding,
            a.encoding.name().to_string(),
        ),
    ];
    match differs.into_iter().find(|d| d.2) {
        Some((field, what, _, source_is)) => Err((
            format!("{}.{field}", skinned.0),
            format!(
                "`{}` is written in place, at `{}`' binding, so its {what} must be the source's ({source_is})",
                skinned.0, source.0
            ),
        )),
        None => Ok(()),
    }
}
