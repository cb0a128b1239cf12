//! GPU benchmarks on one adapter: the compute path (static and 4 influences) and the render path,
//! timed by the wall clock and, where the adapter has them, by timestamp queries, cross-checked.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::compute::Dispatch;
use super::render::Draw;
use super::{Context, GpuError};
use crate::contract::{Contract, Role};
use crate::rig::{strip, Mesh, Skeleton, View};

/// One timed tier on one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuRow {
    pub tier: String,
    pub vertices: usize,
    pub repetitions: usize,
    /// Wall clock from submission to the end of the wait, median / min / max, milliseconds.
    pub wall_median_ms: f64,
    pub wall_min_ms: f64,
    pub wall_max_ms: f64,
    /// Median pass time from timestamp queries, when the adapter has them and they are credible.
    pub gpu_median_ms: Option<f64>,
    /// Nanoseconds per vertex from the GPU time when credible, else from the wall clock.
    pub ns_per_vertex: f64,
    /// Why a timestamp figure was not used, if it was not.
    pub note: String,
}

/// All GPU tiers of one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuBench {
    pub adapter: String,
    pub timestamps: bool,
    /// First use of each benchmark pipeline at the smallest size, summed, ms: Mesa compiles a
    /// pipeline at its first use, so this is kept apart from the timed repetitions.
    pub warmup_ms: f64,
    /// Median wall time of an empty submission and wait, ms.
    pub empty_submit_ms: f64,
    pub rows: Vec<GpuRow>,
}

/// A static transform with the contract's bindings: the fast baseline of the compute tiers. It
/// reads and writes positions where the contract lays them, byte-addressed or not.
fn static_wgsl(contract: &Contract) -> String {
    // The first joint's matrix, from the palette's bare array of matrices or its texture's first
    // texels (the palette then declared); a palette of other elements, or inside a struct, is not
    // read.
    let first = if contract.palette_texture.is_some() {
        let texel = |k: u32| format!("textureLoad(palette, vec2<i32>({k}, 0), 0)");
        let texels: Vec<String> = (0..4).map(texel).collect();
        Some(format!("mat4x4<f32>({})", texels.join(", ")))
    } else if contract.palette_element.is_plain() && contract.palette_member.is_none() {
        Some("palette[0]".to_string())
    } else {
        None
    };
    // Skinned in place, the positions are read from the output's binding.
    let (mut roles, src) = match contract.in_place() {
        true => (vec![(Role::Skinned, "skinned")], "skinned"),
        false => (
            vec![(Role::Positions, "positions"), (Role::Skinned, "skinned")],
            "positions",
        ),
    };
    if contract.try_slot(Role::Count).is_some() {
        roles.push((Role::Count, "params"));
    }
    if first.is_some() {
        roles.insert(0, (Role::Palette, "palette"));
    }
    let first = first.unwrap_or_else(|| {
        "mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0))".into()
    });
    let bindings = contract.declarations(&roles);
    let workgroup = contract.workgroup_wgsl();
    let word =
        |stride: u32, offset: u32, k: u32| format!("id.x * {}u + {}u", stride / 4, offset / 4 + k);
    let pulled = (contract.pulled.as_ref()).and_then(|p| Some((p.stride, p.position?)));
    let load = match pulled {
        Some((stride, position)) => {
            let c: Vec<String> = (0..3)
                .map(|k| format!("bitcast<f32>({src}[{}])", word(stride, position, k)))
                .collect();
            format!("vec3<f32>({})", c.join(", "))
        }
        None => format!("{src}[id.x].xyz"),
    };
    // A shader that bounds its invocations by its inputs' length has no count uniform: the
    // positions' binding holds exactly the case's vertices (skinned in place, the output's binding
    // may hold its guard too, which this timing kernel then transforms as well).
    let count = match (contract.try_slot(Role::Count), pulled) {
        (Some(_), _) => "params.count".to_string(),
        (None, Some((stride, _))) => format!("arrayLength(&{src}) / {}u", stride / 4),
        (None, None) => format!("arrayLength(&{src})"),
    };
    let store = match &contract.packed {
        Some(p) => (0..3)
            .map(|k| {
                format!(
                    "skinned[{}] = bitcast<u32>(q[{k}]);",
                    word(p.stride, p.position, k)
                )
            })
            .collect::<Vec<_>>()
            .join("\n    "),
        None => "skinned[id.x] = vec4<f32>(q, 0.0);".into(),
    };
    format!(
        r#"{bindings}
@compute @workgroup_size({workgroup})
fn static_compute(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (id.x >= {count}) {{ return; }}
    let q = ({first} * vec4<f32>({load}, 1.0)).xyz;
    {store}
}}
"#
    )
}

/// A pipeline, `None` where the shader lacks its stage, or why it did not build.
fn present<T>(built: Result<T, GpuError>) -> Result<Option<T>, GpuError> {
    match built {
        Err(GpuError::Absent(_)) => Ok(None),
        other => other.map(Some),
    }
}

/// A pass time below this fraction of the wall clock's work (wall minus the cost of an empty
/// submission) is not credible: lavapipe has been seen to report compute passes ~1000x too short
/// once a render pass ran on the device.
const CREDIBLE: f64 = 0.25;

/// Runs the GPU tiers at the given vertex counts with `reps` timed repetitions each.
pub fn run(ctx: &Context, sizes: &[usize], reps: usize) -> Result<GpuBench, GpuError> {
    // A stage the shader does not have leaves its tiers out.
    let (compute, render) = (present(ctx.compute())?, present(ctx.render())?);
    ctx.scoped(|| {
        let device = &ctx.device;
        // Only beside a compute stage: without one the contract has no position bindings to
        // declare (a vertex-only shader that is not captured); nor for a vertex pool, whose
        // regions start where a filled binding says, which this kernel does not read.
        let pooled = ctx.contract().regions.is_some();
        let static_pipeline = compute.filter(|_| !pooled).map(|compute| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("static transform"),
                source: wgpu::ShaderSource::Wgsl(static_wgsl(ctx.contract()).into()),
            });
            let immediates = ctx.contract().immediate_size();
            let layout = super::context::pipeline_layout(device, &compute.layouts, immediates);
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("static_compute"),
                layout: Some(&layout),
                module: &module,
                entry_point: Some("static_compute"),
                compilation_options: Default::default(),
                cache: None,
            })
        });
        let timer = Timer::new(ctx);
        // What a submission and wait cost with no work in them, for the timestamp cross-check.
        let mut empty: Vec<f64> = (0..5)
            .map(|_| {
                let start = Instant::now();
                ctx.queue.submit([ctx
                    .device
                    .create_command_encoder(&Default::default())
                    .finish()]);
                wait(ctx).map(|_| start.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<Result<_, _>>()?;
        let overhead = median(&mut empty);
        let row =
            |tier: &str, n: usize, samples: &[(f64, Option<f64>)]| row(tier, n, samples, overhead);
        let mut rows = Vec::new();
        let mut warmup_ms = 0.0;
        // As many influences a vertex as one set of the shader's holds (its `max_influences`).
        let lanes = ctx.contract().lanes;
        let (compute_tier, render_tier) = (
            format!("compute, {lanes} influences"),
            format!("render, {lanes} influences, 256x256 frame"),
        );
        // Compute tiers first: timestamps of compute passes are least trustworthy after a render pass.
        for &n in sizes {
            let Some(compute) = compute else {
                break;
            };
            ctx.step(format!("the compute benchmark of {n} vertices"));
            let (palette, mesh) = model(n, lanes);
            check_fits(ctx, palette.len(), n)?;
            let job = Dispatch::new(ctx, &compute.layouts, &palette, &mesh)?;
            let static_tier = (static_pipeline.as_ref()).map(|p| ("compute, static transform", p));
            let tiers = static_tier
                .into_iter()
                .chain([(compute_tier.as_str(), &compute.pipeline)]);
            for (tier, pipeline) in tiers {
                let first = Instant::now();
                submit_compute(ctx, &job, pipeline, None)?;
                if n == sizes[0] {
                    warmup_ms += first.elapsed().as_secs_f64() * 1e3;
                }
                let samples = (0..reps)
                    .map(|_| {
                        let start = Instant::now();
                        let stamps = timer.as_ref().map(|t| t.compute_writes());
                        submit_compute(ctx, &job, pipeline, stamps)?;
                        let wall = start.elapsed().as_secs_f64() * 1e3;
                        let gpu = timer.as_ref().map(|t| t.read_ms(ctx)).transpose()?;
                        Ok((wall, gpu))
                    })
                    .collect::<Result<Vec<_>, GpuError>>()?;
                rows.push(row(tier, n, &samples));
            }
        }
        for &n in sizes {
            let Some(render) = render else {
                break;
            };
            ctx.step(format!("the render benchmark of {n} vertices"));
            let (palette, mesh) = model(n, lanes);
            let view = View {
                scale: 0.9,
                offset_y: -0.45,
                half_width: 1.0,
            };
            let draw = Draw::new(ctx, &render.layouts, &palette, &mesh, view, 256, 256)?;
            let first = Instant::now();
            submit_render(ctx, &draw, &render.pipeline, None)?;
            if n == sizes[0] {
                warmup_ms += first.elapsed().as_secs_f64() * 1e3;
            }
            let samples = (0..reps)
                .map(|_| {
                    let start = Instant::now();
                    let stamps = timer.as_ref().map(|t| t.render_writes());
                    submit_render(ctx, &draw, &render.pipeline, stamps)?;
                    let wall = start.elapsed().as_secs_f64() * 1e3;
                    let gpu = timer.as_ref().map(|t| t.read_ms(ctx)).transpose()?;
                    Ok((wall, gpu))
                })
                .collect::<Result<Vec<_>, GpuError>>()?;
            rows.push(row(&render_tier, n, &samples));
        }
        Ok(GpuBench {
            adapter: ctx.info.tag.clone(),
            timestamps: timer.is_some(),
            empty_submit_ms: overhead,
            warmup_ms,
            rows,
        })
    })
}

/// A chain of 64 joints bent along its length, skinned by a strip with `influences` per vertex.
fn model(vertices: usize, influences: usize) -> (Vec<glam::Mat4>, Mesh) {
    let joints = 64;
    let segment = 1.0 / joints as f64;
    let skeleton = Skeleton::chain(joints, segment);
    let mut pose = skeleton.bind_pose();
    for (j, local) in pose.locals.iter_mut().enumerate().skip(1) {
        local.rotation = glam::DQuat::from_rotation_z(if j % 2 == 0 { 0.02 } else { -0.015 });
    }
    (
        skeleton.palette(&pose),
        strip(joints, segment, vertices, 0.1, influences),
    )
}

fn check_fits(ctx: &Context, joints: usize, vertices: usize) -> Result<(), GpuError> {
    super::compute::check_limits(ctx, joints, vertices)
}

fn submit_compute(
    ctx: &Context,
    job: &Dispatch,
    pipeline: &wgpu::ComputePipeline,
    stamps: Option<wgpu::ComputePassTimestampWrites>,
) -> Result<(), GpuError> {
    ctx.step("a benchmark dispatch");
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    job.encode(&mut encoder, pipeline, stamps);
    ctx.queue.submit([encoder.finish()]);
    wait(ctx)
}

fn submit_render(
    ctx: &Context,
    draw: &Draw,
    pipeline: &wgpu::RenderPipeline,
    stamps: Option<wgpu::RenderPassTimestampWrites>,
) -> Result<(), GpuError> {
    ctx.step("a benchmark draw");
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    draw.encode(&mut encoder, pipeline, stamps);
    ctx.queue.submit([encoder.finish()]);
    wait(ctx)
}

fn wait(ctx: &Context) -> Result<(), GpuError> {
    ctx.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(ctx.timeout),
        })
        .map(|_| ())
        .map_err(|e| match e {
            wgpu::PollError::Timeout => super::readback::hung(ctx),
            other => GpuError::Readback(other.to_string()),
        })
}

/// Median, min and max of the wall times; the GPU median when every sample had a credible one.
fn row(tier: &str, vertices: usize, samples: &[(f64, Option<f64>)], overhead: f64) -> GpuRow {
    let mut wall: Vec<f64> = samples.iter().map(|s| s.0).collect();
    let wall_median = median(&mut wall);
    let mut gpu: Vec<f64> = samples.iter().filter_map(|s| s.1).collect();
    let (gpu_median_ms, note) = if gpu.is_empty() {
        (
            None,
            "no timestamp queries on this adapter: wall clock".to_string(),
        )
    } else {
        let g = median(&mut gpu);
        let work = (wall_median - overhead).max(wall_median * 0.05);
        if g < work * CREDIBLE || g > wall_median * 1.5 {
            (
                None,
                format!("FLAGGED: timestamps say {g:.4} ms against {wall_median:.3} ms of wall clock ({overhead:.3} ms of it submission): not credible, not used"),
            )
        } else {
            (Some(g), String::new())
        }
    };
    let ms = gpu_median_ms.unwrap_or(wall_median);
    GpuRow {
        tier: tier.into(),
        vertices,
        repetitions: samples.len(),
        wall_median_ms: wall_median,
        wall_min_ms: wall.first().copied().unwrap_or(0.0),
        wall_max_ms: wall.last().copied().unwrap_or(0.0),
        gpu_median_ms,
        ns_per_vertex: ms * 1e6 / vertices.max(1) as f64,
        note,
    }
}

/// Sorts `v` and returns its median.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// A two-entry timestamp query set with its resolve and readback buffers.
struct Timer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
}

impl Timer {
    fn new(ctx: &Context) -> Option<Timer> {
        if !ctx
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return None;
        }
        let device = &ctx.device;
        Some(Timer {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp readback"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: ctx.queue.get_timestamp_period() as f64,
        })
    }

    fn compute_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    fn render_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Resolves the last pass's two timestamps and returns their difference in milliseconds.
    fn read_ms(&self, ctx: &Context) -> Result<f64, GpuError> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&self.set, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 16);
        ctx.queue.submit([encoder.finish()]);
        let bytes = super::readback::read(ctx, &self.readback, 16)?;
        let t: &[u64] = bytemuck::cast_slice(&bytes);
        Ok(t[1].saturating_sub(t[0]) as f64 * self.period_ns / 1e6)
    }
}

/// Says whether the Mesa shader cache was cold: it grew during the run (shaders were compiled
/// afresh) or stayed the same (every pipeline came from the cache).
pub fn describe_cache(before: Option<u64>) -> String {
    match (before, mesa_cache_bytes()) {
        (Some(b), Some(a)) if a > b => format!(
            "cold (the Mesa shader cache grew by {} KiB during the run)",
            (a - b).div_ceil(1024)
        ),
        (Some(_), Some(a)) if a > 0 => {
            "warm (the Mesa shader cache did not grow: pipelines came from it)".into()
        }
        _ => "unknown (no Mesa shader cache found; a non-Mesa driver, or the cache is disabled)"
            .into(),
    }
}

/// Bytes in Mesa's on-disk shader cache, to tell whether a run compiled shaders afresh.
pub fn mesa_cache_bytes() -> Option<u64> {
    let dir = std::env::var_os("MESA_SHADER_CACHE_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .map(|d| std::path::PathBuf::from(d).join("mesa_shader_cache"))
        })
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| std::path::PathBuf::from(h).join(".cache/mesa_shader_cache"))
        })?;
    fn walk(p: &std::path::Path) -> u64 {
        std::fs::read_dir(p)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| match e.file_type() {
                        Ok(t) if t.is_dir() => walk(&e.path()),
                        _ => e.metadata().map(|m| m.len()).unwrap_or(0),
                    })
                    .sum()
            })
            .unwrap_or(0)
    }
    let mut total = walk(&dir);
    // Newer Mesa keeps a single-file database beside the per-shader folders.
    if let Some(parent) = dir.parent() {
        total += walk(&parent.join("mesa_shader_cache_db"));
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_static_shader_validates() {
        use crate::contract::{Packed, Pulled, Want};
        let mut pulled = Contract::builtin();
        pulled.pulled = Some(Pulled {
            stride: 36,
            position: Some(0),
            position_w: Default::default(),
            joints: vec![12],
            joint_format: crate::contract::JointFormat::U16x4,
            weight_offsets: vec![20],
            weights: crate::contract::WeightFormat::F32x4,
            frames: Default::default(),
            members: Vec::new(),
        });
        pulled.packed = Some(Packed {
            stride: 12,
            position: 0,
            frames: Default::default(),
            others: Vec::new(),
            members: Vec::new(),
        });
        for s in &mut pulled.slots {
            match s.role {
                Role::Positions => s.ty = Want::Words,
                Role::Skinned => s.ty = Want::OutputWords,
                _ => {}
            }
        }
        // And each without a count uniform: bounded by the positions' length.
        let uncounted = |c: &Contract| {
            let mut c = c.clone();
            c.slots.retain(|s| s.role != Role::Count);
            c
        };
        // And skinned in place: the output at the inputs' binding (byte-addressed, of their
        // stride, or typed).
        let over_input = |c: &Contract| {
            let mut c = uncounted(c);
            let at = c.slot(Role::Positions);
            let (group, binding) = (at.group, at.binding);
            for s in c.slots.iter_mut().filter(|s| s.role == Role::Skinned) {
                (s.group, s.binding) = (group, binding);
            }
            assert!(c.in_place());
            c
        };
        let mut in_place = over_input(&pulled);
        in_place.packed.as_mut().unwrap().stride = 36;
        let typed = static_wgsl(&over_input(&Contract::builtin()));
        assert!(
            typed.contains("arrayLength(&skinned)") && typed.contains("skinned[id.x].xyz"),
            "{typed}"
        );
        let contracts = [
            uncounted(&Contract::builtin()),
            uncounted(&pulled),
            Contract::builtin(),
            pulled,
        ];
        let validates = |src: &str| {
            let module = naga::front::wgsl::parse_str(src).unwrap();
            naga::valid::Validator::new(Default::default(), Default::default())
                .validate(&module)
                .unwrap_or_else(|e| panic!("{e:?}\n{src}"));
        };
        let src = static_wgsl(&in_place);
        assert!(
            src.contains("arrayLength(&skinned) / 9u") && !src.contains("positions"),
            "{src}"
        );
        validates(&src);
        validates(&typed);
        for (k, contract) in contracts.into_iter().enumerate() {
            let src = static_wgsl(&contract);
            assert_eq!(src.contains("arrayLength(&positions)"), k < 2, "{src}");
            validates(&src);
        }
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn incredible_timestamps_are_flagged() {
        let r = row(
            "t",
            1000,
            &[
                (10.0, Some(0.001)),
                (10.0, Some(0.001)),
                (10.0, Some(0.001)),
            ],
            0.3,
        );
        assert!(r.gpu_median_ms.is_none());
        assert!(r.note.contains("not credible"), "{}", r.note);
        assert_eq!(r.ns_per_vertex, 10.0 * 1e6 / 1000.0);
        let r = row("t", 1000, &[(10.0, Some(8.0))], 0.3);
        assert_eq!(r.gpu_median_ms, Some(8.0));
    }
}
