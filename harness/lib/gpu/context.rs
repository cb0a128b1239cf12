//! One device, queue and pipeline set per adapter, with error capture around every GPU step.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::worker::{self, Worker};
use super::{deadline, AdapterInfo, GpuError};
use crate::contract::{Contract, Pipeline};
use crate::shader::Shader;

/// The compute pipeline built from the shader under test, with the layout the contract fixes.
pub struct ComputeSet {
    /// One layout per bind group the pipeline uses: (group, layout).
    pub layouts: Vec<(u32, wgpu::BindGroupLayout)>,
    pub pipeline: wgpu::ComputePipeline,
}

/// The render pipeline built from the shader under test, with the layout the contract fixes.
pub struct RenderSet {
    pub layouts: Vec<(u32, wgpu::BindGroupLayout)>,
    pub pipeline: wgpu::RenderPipeline,
}

/// Why a pipeline did not build on an adapter: wgpu's message with its sources.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(pub String);

/// Each pipeline, or why it did not build on this adapter. Built apart, so that a broken render
/// stage leaves the compute checks standing, and the other way round.
pub struct Pipelines {
    /// `None` where the shader has no such stage (its profile says so).
    pub compute: Option<Result<ComputeSet, BuildError>>,
    pub render: Option<Result<RenderSet, BuildError>>,
    /// The contract they were built with.
    pub contract: Arc<Contract>,
    /// The buffers the contract fills (`Role::Filled`): (role, buffer, bytes
    /// bound). Constant, so made once with the pipelines and bound by every pass.
    pub filled: Vec<(crate::contract::Role, wgpu::Buffer, usize)>,
    /// The sampler a palette texture is read through, where the shader takes one: nearest and
    /// clamped, so a texel read at its centre is that texel exactly. Made once, like `filled`.
    pub palette_sampler: Option<wgpu::Sampler>,
    /// The textures and samplers the contract binds among its filled bindings. Made once, like
    /// `filled`.
    pub resources: Vec<(crate::contract::Role, super::bound::Bound)>,
}

impl Pipelines {
    fn unbuilt(contract: Arc<Contract>) -> Pipelines {
        Pipelines {
            compute: Some(Err(BuildError("not built yet".into()))),
            render: Some(Err(BuildError("not built yet".into()))),
            contract,
            filled: Vec::new(),
            palette_sampler: None,
            resources: Vec::new(),
        }
    }

    /// Both pipelines failed for one reason (the module, the textures): each stage's error.
    fn failed(contract: Arc<Contract>, m: BuildError) -> Pipelines {
        Pipelines {
            compute: contract.has(Pipeline::Compute).then(|| Err(m.clone())),
            render: contract.has(Pipeline::Render).then(|| Err(m)),
            ..Pipelines::unbuilt(contract)
        }
    }

    /// Why a pipeline did not build, one line per pipeline; `None` when both did.
    pub fn errors(&self) -> Option<String> {
        let c = &self.contract;
        let mut why = Vec::new();
        let name = |e: &Option<String>| e.clone().unwrap_or_else(|| "none".into());
        if let Some(Err(m)) = &self.compute {
            why.push(format!("the compute pipeline ({}): {m}", name(&c.compute)));
        }
        if let Some(Err(m)) = &self.render {
            let fragment = c
                .fragment
                .clone()
                .unwrap_or_else(|| crate::capture::FRAGMENT.into());
            why.push(format!(
                "the render pipeline ({}, {fragment}): {m}",
                name(&c.vertex)
            ));
        }
        (!why.is_empty()).then(|| why.join("\n"))
    }
}

/// wgpu's refusal of the shader's module, or, where the shader breaks its contract and naga
/// rejects the module too (the stage the harness appends calls the shader as its profile says),
/// a line saying so: `shader::validates` gives the violations once, where every trial would
/// repeat wgpu's error. A module naga takes keeps wgpu's own reason (a device's, a backend's).
fn refused(shader: &Shader, wgpu: BuildError) -> BuildError {
    let broken = matches!(
        shader.validate(),
        Err(crate::shader::ShaderError::Contract { .. })
    );
    match broken && !shader.naga_accepts() {
        true => BuildError(
            "wgpu refuses the module, as naga does: the shader breaks its contract, which the stage the harness appends calls it by (`shader::validates` gives the violations)".into(),
        ),
        false => wgpu,
    }
}

/// Everything a trial needs on one adapter; built once and shared by all its trials.
pub struct Context {
    pub info: AdapterInfo,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The pipelines, each or why it did not build on this adapter.
    pub pipelines: Pipelines,
    /// Deadline for any one wait on the GPU.
    pub timeout: Duration,
    /// Buffers and targets reused across cases on this adapter.
    pub pool: Arc<super::pool::Pool>,
    /// How many devices of this adapter were abandoned before this one was made.
    pub replaces: usize,
    /// The device's thread, which runs its GPU jobs (`job`) under the deadline.
    pub(super) worker: Arc<Worker>,
    /// Errors raised outside any error scope (wgpu would otherwise panic on them).
    uncaptured: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
}

/// The first step of a pipeline build, named when it outlasts the deadline.
const MODULE_STEP: &str = "creating the shader module";
/// The step that makes the textures and samplers the contract binds (`gpu::bound`).
const RESOURCES_STEP: &str = "making the textures and samplers the harness binds";

/// The render target format: the goldens are 8-bit RGBA.
pub const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl Context {
    /// The device and the pipelines, made on a worker thread: each step (the device, the module,
    /// each pipeline) gets at most `timeout`, since a driver may take minutes over one pipeline.
    pub fn new(
        adapter: &wgpu::Adapter,
        info: AdapterInfo,
        shader: &Shader,
        timeout: Duration,
    ) -> Result<Context, GpuError> {
        // The worker owns what it uses: if it outlives the deadline, nothing here waits on it.
        let (adapter, shader) = (adapter.clone(), shader.clone());
        deadline::run(timeout, "creating the device", move |progress| {
            let mut ctx = Context::create(&adapter, info, &shader, timeout)?;
            ctx.pipelines = ctx.build_pipelines(&shader, &|what| progress.step(what));
            Ok(ctx)
        })?
    }

    fn create(
        adapter: &wgpu::Adapter,
        info: AdapterInfo,
        shader: &Shader,
        timeout: Duration,
    ) -> Result<Context, GpuError> {
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("skinproof"),
            // Timestamps where the adapter has them, for the benchmarks, and immediate data (push
            // constants) for the native engines' shaders that take it; nothing else beyond WebGPU.
            required_features: adapter.features()
                & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::IMMEDIATES),
            // The adapter's own limits, so large meshes are limited by the hardware, not by defaults.
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *lost_sink.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("{reason:?}: {message}"));
        });
        Ok(Context {
            replaces: 0,
            worker: Worker::start(&info.tag)?,
            info,
            device,
            queue,
            pipelines: Pipelines::unbuilt(shader.contract.clone()),
            timeout,
            pool: Default::default(),
            uncaptured,
            lost,
        })
    }

    /// The same device, queue, error sinks and buffer pool, with pipelines built from another
    /// shader: many shaders can be tested on one device. Built on a worker thread under the
    /// deadline, as in `new`.
    pub fn with_shader(&self, shader: &Shader) -> Result<Context, GpuError> {
        let mut ctx = Context {
            info: self.info.clone(),
            device: self.device.clone(),
            queue: self.queue.clone(),
            pipelines: Pipelines::unbuilt(shader.contract.clone()),
            timeout: self.timeout,
            pool: self.pool.clone(),
            replaces: self.replaces,
            worker: self.worker.clone(),
            uncaptured: self.uncaptured.clone(),
            lost: self.lost.clone(),
        };
        let shader = shader.clone();
        deadline::run(self.timeout, MODULE_STEP, move |progress| {
            ctx.pipelines = ctx.build_pipelines(&shader, &|what| progress.step(what));
            ctx
        })
    }

    /// The module, then each pipeline in its own error scope; `step` names each as it starts.
    fn build_pipelines(&self, shader: &Shader, step: &dyn Fn(String)) -> Pipelines {
        // naga's "The selected version doesn't support ..." says what, not why.
        let limit = super::adapter::gl_context_limit(&self.info.backend, &self.info.driver_info);
        let text = |e: GpuError| {
            let m = match e {
                GpuError::Validation(m) | GpuError::OutOfMemory(m) => m,
                other => other.to_string(),
            };
            match &limit {
                Some(why) if m.contains("selected version doesn't support") => {
                    BuildError(format!("{m}\n  why: {why}"))
                }
                _ => BuildError(m),
            }
        };
        step(MODULE_STEP.into());
        let module = match self
            .scoped(|| {
                Ok(self
                    .device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some("shader under test"),
                        source: wgpu::ShaderSource::Wgsl(shader.module_source().into()),
                    }))
            })
            .map_err(text)
        {
            Ok(m) => m,
            Err(m) => return Pipelines::failed(shader.contract.clone(), refused(shader, m)),
        };
        let contract = &shader.contract;
        step(RESOURCES_STEP.into());
        let resources = match self.make_resources(contract, &text) {
            Ok(r) => r,
            Err(why) => return Pipelines::failed(contract.clone(), why),
        };
        let compute = contract.compute.as_deref().map(|entry| {
            step(format!("building the compute pipeline ({entry})"));
            self.scoped(|| Ok(build_compute(&self.device, &module, contract, entry)))
                .map_err(text)
        });
        let render = contract.vertex.as_deref().map(|vs| {
            let fs = contract
                .fragment
                .as_deref()
                .unwrap_or(crate::capture::FRAGMENT);
            step(format!("building the render pipeline ({vs}, {fs})"));
            self.scoped(|| Ok(build_render(&self.device, &module, contract, vs, fs)))
                .map_err(text)
        });
        Pipelines {
            compute,
            render,
            contract: contract.clone(),
            filled: filled_buffers(&self.device, contract),
            palette_sampler: (contract.try_slot(crate::contract::Role::PaletteSampler))
                .map(|_| self.device.create_sampler(&Default::default())),
            resources,
        }
    }

    /// The textures and samplers `contract` binds, each made in its own error scope; a texture the
    /// device cannot make (a cube array on a downlevel adapter) fails by its binding and wgpu's
    /// error (`text` reads it as the pipelines' errors are read).
    fn make_resources(
        &self,
        contract: &Contract,
        text: &dyn Fn(GpuError) -> BuildError,
    ) -> Result<Vec<(crate::contract::Role, super::bound::Bound)>, BuildError> {
        let mut resources = Vec::new();
        for (role, r, texel) in super::bound::wanted(contract) {
            let made = self.scoped(|| Ok(super::bound::make(&self.device, &self.queue, r, texel)));
            match made.map_err(text) {
                Ok(b) => resources.push((role, b)),
                Err(BuildError(m)) => {
                    let slot = contract.slot(role);
                    return Err(BuildError(format!(
                        "the {} at @group({}) @binding({}){} could not be made: {m}",
                        r.wgsl(),
                        slot.group,
                        slot.binding,
                        slot.whence()
                    )));
                }
            }
        }
        Ok(resources)
    }

    /// The contract the pipelines were built with, which the paths bind and dispatch by.
    pub fn contract(&self) -> &Contract {
        &self.pipelines.contract
    }

    /// The compute pipeline, or a Pipeline error saying why there is none.
    pub fn compute(&self) -> Result<&ComputeSet, GpuError> {
        match &self.pipelines.compute {
            None => {
                let c = self.contract();
                // A vertex-only shader is compared number by number only when it can be called.
                let hint = match (&c.vertex, &c.skin_function, &c.uncaptured) {
                    (None, ..) => String::new(),
                    (Some(_), Some(f), _) => format!(", and its skinning function `{f}` cannot be called as the profile names it (`shader::validates` says why)"),
                    (Some(_), None, Some(why)) => format!(", and a copy of its vertex stage cannot be called: {why}; name its skinning function in the profile's `vertex.skin_function`"),
                    (Some(_), None, None) => ", and its vertex stage is not captured: name its skinning function in the profile's `vertex.skin_function`, or give its camera as a `matrix` (the 2D `view` form drops z)".into(),
                };
                Err(GpuError::Absent(format!(
                    "the shader has no compute stage ({} gives none){hint}",
                    c.name()
                )))
            }
            Some(built) => built
                .as_ref()
                .map_err(|m| GpuError::Pipeline(format!("the compute pipeline: {m}"))),
        }
    }

    /// The render pipeline, or a Pipeline error saying why there is none.
    pub fn render(&self) -> Result<&RenderSet, GpuError> {
        match &self.pipelines.render {
            None => Err(GpuError::Absent(format!(
                "the shader has no vertex stage ({} gives none)",
                self.contract().name()
            ))),
            Some(built) => built
                .as_ref()
                .map_err(|m| GpuError::Pipeline(format!("the render pipeline: {m}"))),
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes; any error they catch, a lost
    /// device, or an uncaptured error raised meanwhile, turns the result into an error.
    pub fn scoped<T>(&self, f: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
        if let Some(lost) = self.lost() {
            return Err(GpuError::Lost(lost));
        }
        // Work behind a hung step would wait for it.
        if let Some(why) = self.abandoned() {
            return Err(GpuError::Abandoned(why));
        }
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(e) = validation {
            return Err(GpuError::Validation(error_text(&e)));
        }
        if let Some(e) = oom {
            return Err(GpuError::OutOfMemory(error_text(&e)));
        }
        if let Some(lost) = self.lost() {
            return Err(GpuError::Lost(lost));
        }
        let stray: Vec<String> =
            std::mem::take(&mut *self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()));
        if !stray.is_empty() {
            return Err(GpuError::Validation(stray.join("\n")));
        }
        result
    }

    /// Runs `work` on the device's thread, after the jobs queued before it, with the deadline on
    /// each of its steps (`step`); see `worker::run`. Every GPU step of a trial goes through here,
    /// so a hang is a Deadline error, never a stuck trial.
    pub fn job<T: Send + 'static>(
        self: &Arc<Self>,
        first: &str,
        work: impl FnOnce(&Context) -> T + Send + 'static,
    ) -> Result<T, GpuError> {
        worker::run(self, first, work)
    }

    /// Starts the step `what` of the running job: the deadline restarts, and an overrun names it.
    pub fn step(&self, what: impl Into<String>) {
        self.worker.step(what.into());
    }

    /// Gives the device up after `step` outlasted the deadline: its work may never end. The device
    /// and queue are never dropped, since dropping a queue waits for its work.
    pub fn abandon(&self, step: &str) {
        let why = format!(
            "{step} outlasted the deadline of {} s",
            self.timeout.as_secs_f64()
        );
        if self.worker.abandon(why) {
            std::mem::forget((self.device.clone(), self.queue.clone()));
        }
    }

    /// Why the device was abandoned, once it was: the adapter needs a new device.
    pub fn abandoned(&self) -> Option<String> {
        self.worker.abandoned()
    }

    /// Whether the device was lost: its trials failed, and the adapter needs a new device.
    pub fn is_lost(&self) -> bool {
        self.lost().is_some()
    }

    fn lost(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// wgpu's error with its chain of sources, which hold the useful part (e.g. naga's diagnostic).
fn error_text(e: &wgpu::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// A pipeline layout with each (group, layout), groups in between empty, and `immediate_size`
/// bytes of immediate data.
pub fn pipeline_layout(
    device: &wgpu::Device,
    layouts: &[(u32, wgpu::BindGroupLayout)],
    immediate_size: u32,
) -> wgpu::PipelineLayout {
    let len = layouts
        .iter()
        .map(|(g, _)| *g as usize + 1)
        .max()
        .unwrap_or(0);
    let mut slots: Vec<Option<&wgpu::BindGroupLayout>> = vec![None; len];
    for (g, l) in layouts {
        slots[*g as usize] = Some(l);
    }
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &slots,
        immediate_size,
    })
}

/// The bind group layouts of `pipeline`, one per group it uses.
pub fn bind_group_layouts(
    device: &wgpu::Device,
    contract: &Contract,
    pipeline: Pipeline,
) -> Vec<(u32, wgpu::BindGroupLayout)> {
    contract
        .groups_of(pipeline)
        .into_iter()
        .map(|group| {
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&contract.layout_label(pipeline)),
                entries: &contract.layout_entries(pipeline, group),
            });
            (group, layout)
        })
        .collect()
}

/// The buffers `contract` fills, uploaded: (role, buffer, bytes bound); its textures and samplers
/// are `bound`'s.
fn filled_buffers(
    device: &wgpu::Device,
    contract: &Contract,
) -> Vec<(crate::contract::Role, wgpu::Buffer, usize)> {
    use wgpu::util::DeviceExt;
    (contract.filled.iter())
        .filter(|f| contract.slot(f.role).space.is_buffer())
        .map(|f| {
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("filled"),
                contents: &f.bytes,
                usage: contract.slot(f.role).space.usage(),
            });
            (f.role, buffer, f.bytes.len())
        })
        .collect()
}

/// A stage's compilation options: the shader's pipeline-overridable constants, the rest WebGPU's
/// defaults.
fn options<'a>(constants: &'a [(&'a str, f64)]) -> wgpu::PipelineCompilationOptions<'a> {
    wgpu::PipelineCompilationOptions {
        constants,
        ..Default::default()
    }
}

fn build_compute(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    contract: &Contract,
    entry: &str,
) -> ComputeSet {
    let layouts = bind_group_layouts(device, contract, Pipeline::Compute);
    let pipeline_layout = pipeline_layout(device, &layouts, contract.immediate_size());
    let constants = contract.pipeline_constants();
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some(entry),
        compilation_options: options(&constants),
        cache: None,
    });
    ComputeSet { layouts, pipeline }
}

fn build_render(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    contract: &Contract,
    vs: &str,
    fs: &str,
) -> RenderSet {
    let layouts = bind_group_layouts(device, contract, Pipeline::Render);
    let pipeline = render_pipeline(device, contract, &layouts, module, vs, fs);
    RenderSet { layouts, pipeline }
}

/// A render pipeline over the contract's render bindings and vertex layout, drawing triangles
/// into the RGBA8 target; `vs` and `fs` name the entry points in `module`.
pub fn render_pipeline(
    device: &wgpu::Device,
    contract: &Contract,
    layouts: &[(u32, wgpu::BindGroupLayout)],
    module: &wgpu::ShaderModule,
    vs: &str,
    fs: &str,
) -> wgpu::RenderPipeline {
    let layout = pipeline_layout(device, layouts, contract.immediate_size());
    let buffers: Vec<Option<wgpu::VertexBufferLayout>> =
        contract.vertex_buffers().into_iter().map(Some).collect();
    let constants = contract.pipeline_constants();
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(vs),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: options(&constants),
            buffers: &buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: options(&constants),
            targets: &[Some(wgpu::ColorTargetState {
                format: TARGET_FORMAT,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}
